// The link's page: amounts in the buyer's locale, Embed to pay while the link is payable, then a receipt and the
// way back to the merchant.
//
// The server wrote each amount as Embed does (en-US); the browser's own Intl.NumberFormat rewrites it in the locale
// the link names (a locale the browser does not know keeps the text). Embed is configured from #checkout's data
// attributes (the token and checkout session the server made for this page: they pay this link alone).
(function () {
  'use strict';
  const root = document.documentElement;
  const locale = root.getAttribute('lang') || 'en';

  const formatMoney = (major, currency) => {
    try {
      return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(major);
    } catch (error) {
      return null; // an unknown locale or currency
    }
  };

  for (const element of document.querySelectorAll('[data-amount][data-currency]')) {
    if (element.id === 'checkout') continue;
    const text = formatMoney(Number(element.dataset.amount), element.dataset.currency);
    if (text !== null) element.textContent = text;
  }

  const checkout = document.getElementById('checkout');
  if (!window.Embed) return;
  const receipt = document.getElementById('receipt');
  const state = document.getElementById('state');
  const payment = document.getElementById('payment');
  const back = document.getElementById('return');
  const APPROVED = new Set(['authorization_succeeded', 'capture_succeeded']);
  const WALLETS = { applepay: 'Apple Pay', googlepay: 'Google Pay' };

  const el = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  // Minor units as the buyer reads money: Embed knows each currency's decimals, the browser the locale.
  const money = (amount, currency) => window.Embed.formatAmount(amount, currency, locale);

  // What the buyer paid with: each gift card's part, then the card's.
  const paidWith = (transaction) => {
    const parts = (transaction.gift_card_redemptions || [])
      .filter((redemption) => redemption.status === 'succeeded')
      .map((redemption) => `${money(redemption.amount, transaction.currency)}, gift card ending in ${redemption.gift_card.last4}`);
    const method = transaction.payment_method;
    const wallet = method && WALLETS[method.method];
    if (method && method.method === 'paypal') {
      parts.push(method.label ? `PayPal (${method.label})` : 'PayPal');
    } else if (method && method.label) {
      const scheme = method.scheme ? method.scheme.charAt(0).toUpperCase() + method.scheme.slice(1) : 'Card';
      parts.push(wallet ? `${wallet} (${scheme} ending in ${method.label})` : `${scheme} ending in ${method.label}`);
    }
    return parts.join('; ') || 'Gift cards';
  };

  const showReceipt = (transaction) => {
    const details = receipt.dataset;
    const rows = [
      ['Amount paid', money(transaction.amount, transaction.currency)],
      ['Paid to', details.merchant || window.location.host],
      ['For', details.items || 'This payment request'],
      ['Paid with', paidWith(transaction)],
      ['Date', new Date(transaction.created_at || Date.now()).toLocaleString(locale)],
      ['Payment request', details.linkId, 'reference'],
      ...(details.externalIdentifier ? [['Your reference', details.externalIdentifier]] : []),
      ['Payment reference', transaction.reconciliation_id || transaction.id, 'reference'],
    ];
    const list = el('dl');
    rows.forEach(([label, value, className]) => list.append(el('dt', label), el('dd', value, className)));
    const heading = el('h2', 'Receipt');
    heading.id = 'receipt-heading';
    heading.tabIndex = -1;
    receipt.replaceChildren(heading, el('p', 'Thank you. Your payment was successful.'), list);
    receipt.dataset.transactionId = transaction.id;
    receipt.hidden = false;
    if (payment) payment.hidden = true;
    if (state && state.dataset.status === 'completed') state.hidden = true; // the receipt says it in full
    if (back) back.hidden = false;
    // Keyboard and screen reader users land on what happened; the way back to the merchant is the next stop.
    heading.focus();
  };

  // The server refused the payment for the link itself (paid, being paid or expired meanwhile): say so in words
  // and take the form away, since no other card would be taken either.
  const showRefusal = (error) => {
    state.textContent = error.message;
    state.dataset.status = 'refused';
    state.hidden = false;
    payment.hidden = true;
    state.setAttribute('tabindex', '-1');
    state.focus();
  };

  // Back from PayPal to a link its payment completed: no checkout here, the receipt of the payment this tab made.
  if (!checkout) {
    window.Embed.returned({ apiOrigin: receipt.dataset.apiOrigin }).then(
      (transaction) => {
        if (transaction && APPROVED.has(transaction.status)) showReceipt(transaction);
      },
      () => {}, // the page already says the request was paid
    );
    return;
  }

  const config = checkout.dataset;
  // The account's payment options for this order, as the server read them: Embed asks nothing itself.
  const methods = new Set((config.methods || '').split(' '));
  window.paymentLinkCheckout = window.Embed.mount(checkout, {
    token: config.token,
    sessionId: config.sessionId,
    amount: Number.parseInt(config.amount, 10),
    currency: config.currency,
    country: config.country,
    apiOrigin: config.apiOrigin,
    locale,
    giftCards: methods.has('gift-card'),
    paypal: methods.has('paypal'),
    // Apple Pay's and Google Pay's buttons show where the browser has the wallet and the payment options offer it;
    // Google Pay's sheet encrypts to the account's own key (the server wrote its merchant ID and key when it has one).
    googlePay: config.googlePayMerchantId
      ? { merchantId: config.googlePayMerchantId, publicKey: config.googlePayPublicKey }
      : undefined,
    onComplete: (transaction) => {
      if (APPROVED.has(transaction.status)) showReceipt(transaction);
    },
    onError: (error) => {
      if (error.status === 409 && error.code === 'duplicate_record') showRefusal(error);
    },
  });
})();
