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
  // The same words as the server's (web/checkout StatusLabels), by state.
  var labels = {
    created: 'Waiting for payment',
    pending: 'Payment seen',
    completed: 'Payment completed',
    overpaid: 'Payment completed: overpaid',
    expired: 'Payment request expired',
    underpaid: 'Underpaid'
  };
  var status = root.getAttribute('data-status');

  function terminal(s) { return s === 'completed' || s === 'failed'; }

  function plural(n, noun) { return n === 1 ? '1 ' + noun : n + ' ' + noun + 's'; }

  // state is the API's status, a failure named by its reason, an overpayment by its amount.
  function state(body) {
    if (body.status === 'failed') { return body.failure_reason === 'underpaid' ? 'underpaid' : 'expired'; }
    if (body.status === 'completed' && parseFloat(body.amount_received) > parseFloat(cryptoAmount)) { return 'overpaid'; }
    return body.status;
  }

  // detail is the line under the status, as the server renders it.
  function detail(body) {
    switch (state(body)) {
      case 'pending':
        return Math.min(body.confirmations || 0, body.required_confirmations) + ' of ' + plural(body.required_confirmations, 'confirmation');
      case 'completed':
        return 'Thank you.';
      case 'overpaid':
        return 'Overpaid: ' + body.amount_received + ' ' + currency + ' arrived for the ' + cryptoAmount + ' ' + currency +
          ' requested. Contact the merchant for a refund of the difference.';
      case 'underpaid':
        return 'Underpaid: ' + body.amount_received + ' ' + currency + ' arrived of the ' + cryptoAmount + ' ' + currency +
          ' requested before the request expired. Contact the merchant for a refund.';
      case 'expired':
        return 'This payment request expired before a payment arrived.';
    }
    return '';
  }

  function show(body) {
    status = body.status;
    el('status').setAttribute('data-status', status);
    root.setAttribute('data-status', status);
    el('status').textContent = labels[state(body)] || status;
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
