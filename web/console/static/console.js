// Corridor console: the only script. Pages work without it; it rewrites every
// <time datetime> from UTC into the viewer's own time zone.
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
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", localTimes);
  } else {
    localTimes();
  }
})();
