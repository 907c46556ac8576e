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
        if (parseFloat(body.amount_received) >= parseFloat(cryptoAmount)) {
          return 'Paid late: ' + body.amount_received + ' ' + currency + ' arrived for the ' + cryptoAmount + ' ' + currency +
            ' requested, part of it after the request expired. Contact the merchant for a refund.';
        }
        return 'Underpaid: ' + body.amount_received + ' ' + currency + ' arrived of the ' + cryptoAmount + ' ' + currency +
          ' requested before the request expired. Contact the merchant for a refund.';
      case 'expired':
        if (parseFloat(body.amount_received) > 0) {
          return 'This payment request expired before a payment arrived; ' + body.amount_received + ' ' + currency +
            ' arrived after it. Contact the merchant for a refund.';
        }
        return 'This payment request expired before a payment arrived.';
    }
    return '';
  }

  // units reads a USDC decimal ("2.500000") as base units, exactly (no floating point);
  // decimal writes base units back with six fraction digits.
  function units(s) {
    var parts = String(s).split('.');
    return parseInt(parts[0] || '0', 10) * 1000000 + parseInt(((parts[1] || '') + '000000').slice(0, 6), 10);
  }
  function decimal(u) {
    var f = String(u % 1000000);
    while (f.length < 6) { f = '0' + f; }
    return Math.floor(u / 1000000) + '.' + f;
  }

  // askFor points the heading, the wallet link and the QR code at what is still due: the
  // amount, or the rest once part has arrived, so a payer who scans again pays only the rest.
  var shownDue = units(el('crypto-amount').textContent);
  function askFor(due) {
    if (due === shownDue) { return; }
    shownDue = due;
    el('crypto-amount').textContent = decimal(due);
    var link = el('wallet-link');
    link.setAttribute('href', link.getAttribute('href').replace(/uint256=[0-9]+$/, 'uint256=' + due));
    var qr = el('qr');
    qr.setAttribute('src', qr.getAttribute('src').split('?')[0] + '?due=' + due);
    qr.setAttribute('alt', 'QR code of the payment request: ' + decimal(due) + ' ' + currency + ' to ' + el('deposit-address').textContent);
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
    var total = units(cryptoAmount), got = units(body.amount_received);
    askFor(got > 0 && got < total ? total - got : total);
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
