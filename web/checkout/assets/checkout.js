// The hosted payment page's live status: polls the public status endpoint and counts down
// to expiry, without reloading. The server renders the state at load; this script only moves
// it on. Served as a file: the page's CSP allows no inline script.
(function () {
  'use strict';
  var root = document.getElementById('checkout');
  if (!root) { return; }
  var statusURL = root.getAttribute('data-status-url');
  var expiresAt = Date.parse(root.getAttribute('data-expires-at'));
  var cryptoAmount = root.getAttribute('data-crypto-amount');
  var currency = root.getAttribute('data-cryptocurrency');
  var el = function (id) { return document.getElementById(id); };
  var labels = {
    created: 'Waiting for payment',
    pending: 'Payment seen, waiting for confirmations',
    completed: 'Payment completed',
    failed: 'Payment failed'
  };
  var status = root.getAttribute('data-status');

  function terminal(s) { return s === 'completed' || s === 'failed'; }

  // detail is the line under the status, as the server renders it.
  function detail(body) {
    if (body.status === 'pending' && typeof body.confirmations === 'number') {
      return body.confirmations + ' of ' + body.required_confirmations + ' confirmations';
    }
    if (body.status === 'completed') { return 'Thank you.'; }
    if (body.status === 'failed' && body.failure_reason === 'underpaid') {
      return 'Underpaid: ' + body.amount_received + ' ' + currency + ' arrived of the ' + cryptoAmount + ' ' + currency +
        ' requested before the request expired. Contact the merchant for a refund.';
    }
    if (body.status === 'failed') { return 'This payment request expired.'; }
    return '';
  }

  function show(body) {
    status = body.status;
    el('status').setAttribute('data-status', status);
    root.setAttribute('data-status', status);
    el('status').textContent = labels[status] || status;
    el('confirmations').textContent = detail(body);
    if (body.transaction_hash) {
      el('transaction-hash').textContent = body.transaction_hash;
      el('transaction').hidden = false;
    }
    var received = parseFloat(body.amount_received), due = parseFloat(cryptoAmount);
    el('received-amount').textContent = body.amount_received;
    el('partly-paid').hidden = terminal(status) || !(received > 0 && received < due);
    // A finished payment asks for nothing more: no address to copy, no code to scan.
    el('pay-section').hidden = terminal(status);
    el('time-left').hidden = terminal(status);
  }

  function tick() {
    if (terminal(status)) { return; }
    var left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    var m = Math.floor(left / 60), s = left % 60;
    el('countdown').textContent = m + ':' + (s < 10 ? '0' : '') + s;
  }

  function poll() {
    var req = new XMLHttpRequest();
    req.open('GET', statusURL);
    req.setRequestHeader('Accept', 'application/json');
    req.onload = function () {
      if (req.status === 200) {
        try {
          show(JSON.parse(req.responseText));
        } catch (e) { /* keep polling */ }
      }
      if (!terminal(status)) { setTimeout(poll, 1500); }
    };
    req.onerror = function () { setTimeout(poll, 3000); };
    req.send();
  }

  var copy = el('copy-address');
  if (copy && navigator.clipboard) {
    copy.addEventListener('click', function () {
      navigator.clipboard.writeText(el('deposit-address').textContent).then(function () {
        copy.textContent = 'Copied';
      });
    });
  }

  tick();
  setInterval(tick, 1000);
  if (!terminal(status)) { poll(); }
}());
