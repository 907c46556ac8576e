// The hosted payment page's live status: polls the public status endpoint and counts down
// to expiry, without reloading. Served as a file: the page's CSP allows no inline script.
(function () {
  'use strict';
  var root = document.getElementById('checkout');
  if (!root) { return; }
  var statusURL = root.getAttribute('data-status-url');
  var expiresAt = Date.parse(root.getAttribute('data-expires-at'));
  var statusEl = document.getElementById('status');
  var confEl = document.getElementById('confirmations');
  var countdownEl = document.getElementById('countdown');
  var labels = {
    created: 'Waiting for payment',
    pending: 'Payment seen, waiting for confirmations',
    completed: 'Payment completed',
    failed: 'Payment failed'
  };
  var status = root.getAttribute('data-status');
  var timer = null;

  function terminal(s) { return s === 'completed' || s === 'failed'; }

  function show(s, body) {
    status = s;
    statusEl.setAttribute('data-status', s);
    root.setAttribute('data-status', s);
    statusEl.textContent = labels[s] || s;
    if (body && typeof body.confirmations === 'number' && s === 'pending') {
      confEl.textContent = body.confirmations + ' of ' + body.required_confirmations + ' confirmations';
    } else if (s === 'completed') {
      confEl.textContent = 'Thank you.';
    } else if (s === 'failed') {
      confEl.textContent = body && body.failure_reason === 'underpaid' ? 'The amount received was too low.' : 'This payment request expired.';
    } else {
      confEl.textContent = '';
    }
  }

  function tick() {
    if (terminal(status)) { countdownEl.textContent = '--:--'; return; }
    var left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    var m = Math.floor(left / 60), s = left % 60;
    countdownEl.textContent = m + ':' + (s < 10 ? '0' : '') + s;
  }

  function poll() {
    var req = new XMLHttpRequest();
    req.open('GET', statusURL);
    req.setRequestHeader('Accept', 'application/json');
    req.onload = function () {
      if (req.status === 200) {
        try {
          var body = JSON.parse(req.responseText);
          show(body.status, body);
        } catch (e) { /* keep polling */ }
      }
      if (!terminal(status)) { timer = setTimeout(poll, 1500); }
    };
    req.onerror = function () { timer = setTimeout(poll, 3000); };
    req.send();
  }

  var copy = document.getElementById('copy-address');
  if (copy && navigator.clipboard) {
    copy.addEventListener('click', function () {
      navigator.clipboard.writeText(document.getElementById('deposit-address').textContent).then(function () {
        copy.textContent = 'Copied';
      });
    });
  }

  show(status);
  tick();
  setInterval(tick, 1000);
  if (!terminal(status)) { poll(); }
}());
