// Corridor console: the only script. Pages work without it; it rewrites every
// <time datetime> from UTC into the viewer's own time zone, and sends a posting form only once
// (a double click then shows the first answer, with its secret; the server runs each rendered
// form once in any case, through the form's one-time token).
(function () {
  "use strict";
  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, {
        year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
      });
    } catch (e) { return; }
    var nodes = document.querySelectorAll("time[datetime]");
    for (var i = 0; i < nodes.length; i++) {
      var d = new Date(nodes[i].getAttribute("datetime"));
      if (isNaN(d.getTime())) { continue; }
      nodes[i].title = nodes[i].textContent;
      nodes[i].textContent = fmt.format(d);
      nodes[i].classList.add("local");
    }
  }
  function submitOnce() {
    var forms = document.querySelectorAll('form[method="post"]');
    for (var i = 0; i < forms.length; i++) {
      forms[i].addEventListener("submit", function (e) {
        if (this.getAttribute("data-sent")) { e.preventDefault(); return; }
        this.setAttribute("data-sent", "1");
      });
    }
  }
  // A page restored from the back-forward cache may be sent again (the server answers that
  // it was already done).
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) { return; }
    var sent = document.querySelectorAll("form[data-sent]");
    for (var i = 0; i < sent.length; i++) { sent[i].removeAttribute("data-sent"); }
  });
  function ready() { localTimes(); submitOnce(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
