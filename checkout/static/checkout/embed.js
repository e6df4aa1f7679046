/*
 * Embed: a drop-in checkout built on Secure Fields.
 *
 * Usage:
 *   const checkout = Embed.mount('#checkout', {
 *     token, sessionId, amount: 1299, currency: 'USD', country: 'US',
 *     giftCards: true,
 *     buyerId,               // the buyer the token is pinned to: their saved cards, "save this card"
 *     googlePay: { merchantId, publicKey },  // Google Pay's sheet encrypts to this server's key
 *     onComplete(transaction) { ... },
 *     onError(error) { ... },
 *   });
 *
 * The mounted element gets data-state (loading, ready, processing, challenge,
 * approved, declined, error, too-many-attempts) and, once a transaction exists,
 * data-transaction-id.
 *
 * A card payment the issuer wants to check (3-D Secure) answers
 * buyer_approval_pending: the issuer's page is shown in a frame inside the
 * checkout; when it ends, the page it returns to (APPROVAL_COMPLETE_PATH, on the
 * API origin) tells this script, which reads the transaction with the token
 * and finishes as for any other payment.
 *
 * PayPal, when the checkout's payment options offer it: the buyer approves at
 * PayPal in the whole tab (a top-level navigation, which PayPal requires and
 * no content security policy directive governs) and comes back to
 * `redirectUrl` (default: this page); mounting Embed there again, or calling
 * Embed.returned(), reads the payment with the token it was made with.
 */
(function (global) {
  'use strict';

  if (global.Embed) return;

  const MINOR_UNITS = { JPY: 0, KRW: 0, BHD: 3, KWD: 3 };
  const APPROVED = new Set(['authorization_succeeded', 'capture_succeeded']);
  const DECLINED = new Set(['authorization_declined']);
  const CHALLENGED = 'buyer_approval_pending';
  // What _createTransaction answers once a payment's failure is shown: nothing more to do.
  const FAILED = Symbol('failed');
  const APPROVAL_COMPLETE_PATH = '/embed/approval-complete';
  const APPROVAL_COMPLETE_MESSAGE = 'gr4vy-embed:approval-complete';
  // What a tab keeps while its buyer is away at PayPal: the transaction and the token that may read it back.
  const REDIRECT_RECORD_PREFIX = 'gr4vy-embed:redirect:';
  // The parameters the server adds to redirect_url when the buyer comes back from the processor.
  const RETURN_PARAMS = ['transaction_id', 'transaction_status'];
  // setTimeout's longest delay; a challenge never waits longer than a day.
  const MAX_TIMER_MS = 2 ** 31 - 1;
  const REQUEST_TIMEOUT_MS = 60000;
  const FIELDS_LOAD_TIMEOUT_MS = 30000;
  const MAX_RETRY_WAIT_SECONDS = 600;
  const FIELD_ORDER = ['number', 'expiry', 'security_code'];
  const POINTER_FIELDS = {
    '/payment_method/number': 'number',
    '/payment_method/expiration_date': 'expiry',
    '/payment_method/security_code': 'security_code',
  };
  const SCHEME_NAMES = {
    visa: 'Visa',
    mastercard: 'Mastercard',
    amex: 'American Express',
    discover: 'Discover',
    diners: 'Diners Club',
    jcb: 'JCB',
    unionpay: 'UnionPay',
    maestro: 'Maestro',
  };
  const BALANCE_MESSAGES = {
    invalid_gift_card: 'We could not find a gift card with that number and PIN. Check them and try again.',
    expired_card: 'This gift card has expired.',
    inactive_card: 'This gift card is not active yet.',
  };

  // Captured while this script runs; document.currentScript is null later.
  const SCRIPT_SRC = (() => {
    const script = document.currentScript || document.querySelector('script[src*="embed.js"]');
    return script && script.src ? script.src : null;
  })();

  let instanceCount = 0;
  // Mounting twice on one element replaces the earlier checkout cleanly.
  const mounted = new WeakMap();
  let secureFieldsLoading = null;

  // ---------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------

  function minorUnits(currency) {
    return Object.prototype.hasOwnProperty.call(MINOR_UNITS, currency) ? MINOR_UNITS[currency] : 2;
  }

  /** Format an amount given in minor units, e.g. (1299, 'USD') -> "$12.99". */
  function formatAmount(amount, currency, locale) {
    const digits = minorUnits(currency);
    const value = amount / 10 ** digits;
    const options = { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits };
    try {
      return new Intl.NumberFormat(locale, options).format(value);
    } catch (_) {
      try {
        return new Intl.NumberFormat('en-US', options).format(value);
      } catch (__) {
        return `${value.toFixed(digits)} ${currency}`;
      }
    }
  }

  /** Tiny element builder; text children become text nodes (never HTML). */
  function h(tag, props = {}, children = []) {
    const el = document.createElement(tag);
    Object.keys(props).forEach((key) => {
      const value = props[key];
      if (value === null || value === undefined || value === false) return;
      if (key === 'class') el.className = value;
      else if (key === 'text') el.textContent = value;
      else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? '' : String(value));
    });
    [].concat(children).forEach((child) => {
      if (child !== null && child !== undefined && child !== false) el.append(child);
    });
    return el;
  }

  function ensureStylesheet() {
    if (!SCRIPT_SRC) return;
    const href = new URL('embed.css', SCRIPT_SRC).href;
    const present = Array.from(document.querySelectorAll('link[rel="stylesheet"]')).some((l) => l.href === href);
    if (!present) document.head.appendChild(h('link', { rel: 'stylesheet', href, 'data-gr4vy-embed': true }));
  }

  // SecureFields, checked for the helpers this script uses instead of copies
  // of its own (SecureFields.helpers: randomId, parseRetryAfter).
  function loadedSecureFields() {
    const SecureFields = global.SecureFields;
    if (!SecureFields) return Promise.reject(new Error('secure-fields.js did not define SecureFields.'));
    if (!SecureFields.helpers) return Promise.reject(new Error('secure-fields.js is out of date.'));
    return Promise.resolve(SecureFields);
  }

  // Merchants normally include secure-fields.js themselves; if they did not,
  // load it from the same folder as this script.
  function loadSecureFields() {
    if (global.SecureFields) return loadedSecureFields();
    if (!SCRIPT_SRC) return Promise.reject(new Error('secure-fields.js is not loaded.'));
    if (!secureFieldsLoading) {
      secureFieldsLoading = new Promise((resolve, reject) => {
        const script = h('script', { src: new URL('secure-fields.js', SCRIPT_SRC).href });
        script.addEventListener('load', () => resolve(loadedSecureFields()));
        script.addEventListener('error', () => {
          secureFieldsLoading = null;
          reject(new Error('secure-fields.js could not be loaded.'));
        });
        document.head.appendChild(script);
      });
    }
    return secureFieldsLoading;
  }

  class EmbedError extends Error {
    constructor(message, { status = 0, code = 'error', details = [], retryAfter = null } = {}) {
      super(message);
      this.name = 'EmbedError';
      this.status = status;
      this.code = code;
      this.details = details;
      this.retryAfter = retryAfter;
    }
  }

  // A retry of the same request with the same key is only useful when we do
  // not know whether the first one was processed.
  function outcomeUnknown(error) {
    return error.status === 0 || error.status >= 500 || [408, 409, 425, 429].includes(error.status);
  }

  function readOptions(options) {
    const o = options || {};
    const fail = (message) => {
      throw new TypeError(`Embed.mount: ${message}`);
    };
    if (typeof o.token !== 'string' || !o.token) fail('token is required.');
    if (typeof o.sessionId !== 'string' || !o.sessionId) fail('sessionId is required.');
    if (!Number.isInteger(o.amount) || o.amount <= 0) fail('amount must be a positive integer in minor units.');
    const currency = String(o.currency || '').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) fail('currency must be an ISO 4217 code.');
    const country = o.country ? String(o.country).toUpperCase() : null;
    if (country && !/^[A-Z]{2}$/.test(country)) fail('country must be an ISO 3166 alpha-2 code.');
    // mount() is synchronous and may run before secure-fields.js has loaded, so
    // this reads the origin with URL itself rather than SecureFields.helpers.
    let apiOrigin = null;
    try {
      apiOrigin = new URL(o.apiOrigin || SCRIPT_SRC).origin;
    } catch (_) {
      apiOrigin = null;
    }
    if (!apiOrigin || apiOrigin === 'null') fail('apiOrigin could not be determined.');
    const buyer = readBuyer(o, fail);
    return {
      token: o.token,
      sessionId: o.sessionId,
      amount: o.amount,
      currency,
      country,
      apiOrigin,
      giftCards: o.giftCards === true,
      // PayPal: true, offered (the merchant's server read the payment options); false, never; left out, offered
      // when the checkout's payment options (POST /payment-options) say so.
      paypal: typeof o.paypal === 'boolean' ? o.paypal : null,
      redirectUrl: readRedirectUrl(o.redirectUrl, fail),
      buyer,
      // Saved cards need the buyer the token is pinned to; `savedCards: false` turns them off.
      savedCards: buyer !== null && o.savedCards !== false,
      locale: o.locale || document.documentElement.lang || undefined,
      style: o.style || {},
      stylesheet: o.stylesheet !== false,
      onComplete: typeof o.onComplete === 'function' ? o.onComplete : null,
      onError: typeof o.onError === 'function' ? o.onError : null,
      // Apple Pay and Google Pay buttons where the browser offers them; `wallets: false` turns them off.
      wallets: o.wallets !== false,
      googlePay: readGooglePay(o.googlePay, fail),
    };
  }

  // The buyer the token is pinned to, as the transaction body names it: {field, value} or null.
  function readBuyer(o, fail) {
    if (o.buyerId && o.buyerExternalIdentifier) fail('give buyerId or buyerExternalIdentifier, not both.');
    if (o.buyerId) return { field: 'buyer_id', value: String(o.buyerId) };
    if (o.buyerExternalIdentifier) return { field: 'buyer_external_identifier', value: String(o.buyerExternalIdentifier) };
    return null;
  }

  // Where PayPal sends the buyer back: the merchant's page, or this one without the parameters of an earlier return.
  function readRedirectUrl(value, fail) {
    let url;
    try {
      url = new URL(value || global.location.href);
    } catch (_) {
      return fail('redirectUrl must be an http or https URL.');
    }
    if (!['https:', 'http:'].includes(url.protocol)) fail('redirectUrl must be an http or https URL.');
    RETURN_PARAMS.forEach((name) => url.searchParams.delete(name));
    url.hash = '';
    return url.href;
  }

  /** MM/YY of a stored card has passed (it is valid through the end of that month). */
  function expired(expirationDate, now = new Date()) {
    const match = /^(\d{2})\/(\d{2})$/.exec(expirationDate || '');
    if (!match) return false;
    const year = 2000 + Number(match[2]);
    const month = Number(match[1]);
    return year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1);
  }

  // ---------------------------------------------------------------------------
  // PayPal's return (what one tab keeps while its buyer is at PayPal)
  // ---------------------------------------------------------------------------

  function webUrl(value) {
    try {
      const url = new URL(value);
      return ['https:', 'http:'].includes(url.protocol) ? url.href : null;
    } catch (_) {
      return null;
    }
  }

  // sessionStorage: this tab only, this origin only, gone when the tab closes. The token is the one already in the
  // page; it reads only what its own checkout made (docs/frontend.md).
  function keepRedirect(transactionId, token) {
    try {
      global.sessionStorage.setItem(REDIRECT_RECORD_PREFIX + transactionId, JSON.stringify({ token }));
    } catch (_) {
      // Storage refused (a private mode): the buyer still pays; the page they come back to cannot show the outcome.
    }
  }

  // The record of the transaction this page's address names, taken once (a reload is not a second return), and the
  // address cleaned of the return's parameters.
  function takeRedirect() {
    const params = new URLSearchParams(global.location.search);
    const transactionId = params.get('transaction_id');
    if (!transactionId) return null;
    let record = null;
    try {
      const key = REDIRECT_RECORD_PREFIX + transactionId;
      record = JSON.parse(global.sessionStorage.getItem(key) || 'null');
      global.sessionStorage.removeItem(key);
    } catch (_) {
      record = null;
    }
    if (!record || typeof record.token !== 'string') return null;
    const clean = new URL(global.location.href);
    RETURN_PARAMS.forEach((name) => clean.searchParams.delete(name));
    global.history.replaceState(global.history.state, '', clean.href);
    return { transactionId, token: record.token };
  }

  function readReturned(returned, request) {
    return request('GET', `/transactions/${encodeURIComponent(returned.transactionId)}`, { token: returned.token });
  }

  // ---------------------------------------------------------------------------
  // The checkout
  // ---------------------------------------------------------------------------

  class Checkout {
    constructor(root, options) {
      this.root = root;
      this.options = options;
      this.id = `gr4vy-embed-${(instanceCount += 1)}`;
      this.state = null;
      this.sf = null;
      // SecureFields.helpers, set once secure-fields.js has loaded. Everything
      // that uses them needs the "ready" state, which needs the card fields.
      this.helpers = null;
      this.giftCards = [];
      this.giftBusy = false;
      // The buyer's stored cards (masked, as the API lists them) and the one chosen; null: a new card.
      this.savedCards = [];
      this.savedChoice = null;
      this.attempt = null;
      // The 3-D Secure challenge being shown: {transaction, frame, timer}; null otherwise.
      this.challenge = null;
      this.channel = null;
      this.onMessage = (event) => this._onChallengeMessage(event);
      this.timers = new Set();
      this.destroyed = false;
      this.ui = {};
      // The Apple Pay and Google Pay buttons, made once the form is.
      this.wallets = null;

      if (options.stylesheet) ensureStylesheet();
      this._build();
      this.wallets = new WalletButtons(this);
      this.ui.form.prepend(this.wallets.element);
      this._setState('loading');
      this._renderGiftCards();
      this._initSecureFields();
      if (options.savedCards) this._loadSavedCards();
      this._resumeRedirect();
      // Asked on a return too: after a payment canceled at PayPal, "Try again" offers PayPal again.
      if (options.paypal !== false) this._loadPayPal();
      if (options.wallets) this.wallets.load();
    }

    // --- public ---------------------------------------------------------------

    /** Same as pressing Pay; also runs the inline validation. */
    pay() {
      return this._pay();
    }

    unmount() {
      if (this.destroyed) return;
      this.destroyed = true;
      if (mounted.get(this.root) === this) mounted.delete(this.root);
      this.timers.forEach((timer) => clearTimeout(timer));
      this.timers.clear();
      global.removeEventListener('message', this.onMessage);
      if (this.sf) this.sf.destroy();
      this.root.replaceChildren();
      this.root.classList.remove('gr4vy-embed');
      ['state', 'transactionId', 'errorCode', 'wallets'].forEach((key) => delete this.root.dataset[key]);
      this.root.removeAttribute('aria-busy');
    }

    // --- helpers --------------------------------------------------------------

    _format(amount) {
      return formatAmount(amount, this.options.currency, this.options.locale);
    }

    _later(fn, ms) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.destroyed) fn();
      }, ms);
      this.timers.add(timer);
      return timer;
    }

    _callback(name, value) {
      const fn = this.options[name];
      if (!fn) return;
      try {
        fn(value);
      } catch (error) {
        // A merchant callback failing must not break the checkout.
        console.error(error);
      }
    }

    // --- DOM ------------------------------------------------------------------

    _build() {
      const { id, ui } = this;
      const total = this._format(this.options.amount);

      ui.heading = h('h2', { class: 'gr4vy-embed__heading', id: `${id}-heading`, text: `Pay ${total}` });

      ui.number = h('div', { class: 'gr4vy-embed__slot' });
      ui.expiry = h('div', { class: 'gr4vy-embed__slot' });
      ui.code = h('div', { class: 'gr4vy-embed__slot' });
      ui.cardError = h('p', { class: 'gr4vy-embed__error', role: 'alert', id: `${id}-card-error` });
      ui.card = h('fieldset', { class: 'gr4vy-embed__card' }, [
        h('legend', { class: 'gr4vy-embed__legend', text: 'Card details' }),
        ui.number,
        h('div', { class: 'gr4vy-embed__row' }, [ui.expiry, ui.code]),
        this.options.savedCards ? this._buildSaveOption() : null,
        ui.cardError,
      ]);
      ui.saved = h('fieldset', { class: 'gr4vy-embed__saved', hidden: true }, [
        h('legend', { class: 'gr4vy-embed__legend', text: 'Saved cards' }),
      ]);
      ui.covered = h('p', {
        class: 'gr4vy-embed__note',
        hidden: true,
        text: 'Your gift cards cover the full amount, so no card is needed.',
      });

      ui.pay = h('button', { type: 'submit', class: 'gr4vy-embed__pay', disabled: true, text: `Pay ${total}` });
      ui.form = h(
        'form',
        {
          class: 'gr4vy-embed__form',
          novalidate: true,
          'aria-labelledby': `${id}-heading`,
          onsubmit: (event) => {
            event.preventDefault();
            this._pay();
          },
        },
        [this._buildPayPal(), ui.saved, ui.card, ui.covered, this.options.giftCards ? this._buildGiftCards() : null, this._buildSummary(), ui.pay],
      );

      ui.outcomeTitle = h('h2', { class: 'gr4vy-embed__outcome-title', tabindex: '-1', id: `${id}-outcome` });
      ui.outcomeMessage = h('p', { class: 'gr4vy-embed__outcome-message', role: 'alert' });
      ui.retry = h('button', {
        type: 'button',
        class: 'gr4vy-embed__secondary',
        hidden: true,
        onclick: () => this._backToForm(),
      });
      ui.outcome = h('div', { class: 'gr4vy-embed__outcome', hidden: true, 'aria-labelledby': `${id}-outcome` }, [
        ui.outcomeTitle,
        ui.outcomeMessage,
        ui.retry,
      ]);

      this.root.classList.add('gr4vy-embed');
      this.root.replaceChildren(ui.heading, ui.form, this._buildChallenge(), ui.outcome);
    }

    // The issuer's check (3-D Secure): its page in a frame, with the amount above it and a way out below.
    _buildChallenge() {
      const { id, ui } = this;
      ui.challengeTitle = h('h2', {
        class: 'gr4vy-embed__challenge-title',
        tabindex: '-1',
        id: `${id}-challenge-title`,
        text: 'Confirm with your bank',
      });
      ui.challengeFrame = h('div', { class: 'gr4vy-embed__challenge-frame' });
      ui.challenge = h(
        'section',
        {
          class: 'gr4vy-embed__challenge',
          hidden: true,
          'aria-labelledby': `${id}-challenge-title`,
          onkeydown: (event) => {
            if (event.key === 'Escape') this._challengeClosed('canceled');
          },
        },
        [
          ui.challengeTitle,
          h('p', {
            class: 'gr4vy-embed__challenge-text',
            text: `Your card issuer asks you to confirm this payment of ${this._format(this.options.amount)}.`,
          }),
          ui.challengeFrame,
          h('button', {
            type: 'button',
            class: 'gr4vy-embed__secondary',
            text: 'Cancel payment',
            onclick: () => this._challengeClosed('canceled'),
          }),
        ],
      );
      return ui.challenge;
    }

    _buildGiftCards() {
      const { id, ui } = this;
      // Enter in a gift card input checks the balance instead of paying.
      const onEnter = (event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          this._checkBalance();
        }
      };
      ui.giftToggle = h('button', {
        type: 'button',
        class: 'gr4vy-embed__toggle',
        'aria-expanded': 'false',
        'aria-controls': `${id}-gift-panel`,
        text: 'Use a gift card',
        onclick: () => this._toggleGiftPanel(),
      });
      ui.giftNumber = h('input', {
        id: `${id}-gift-number`,
        class: 'gr4vy-embed__input',
        type: 'text',
        inputmode: 'numeric',
        autocomplete: 'off',
        spellcheck: 'false',
        onkeydown: onEnter,
      });
      ui.giftPin = h('input', {
        id: `${id}-gift-pin`,
        class: 'gr4vy-embed__input',
        type: 'password',
        inputmode: 'numeric',
        autocomplete: 'off',
        onkeydown: onEnter,
      });
      ui.giftCheck = h('button', {
        type: 'button',
        class: 'gr4vy-embed__secondary',
        text: 'Check balance',
        onclick: () => this._checkBalance(),
      });
      ui.giftStatus = h('p', { class: 'gr4vy-embed__status', role: 'status' });
      ui.giftError = h('p', { class: 'gr4vy-embed__error', role: 'alert' });
      ui.giftPanel = h('div', { class: 'gr4vy-embed__gift-panel', id: `${id}-gift-panel`, hidden: true }, [
        h('div', { class: 'gr4vy-embed__row' }, [
          h('div', { class: 'gr4vy-embed__field' }, [
            h('label', { for: `${id}-gift-number`, text: 'Gift card number' }),
            ui.giftNumber,
          ]),
          h('div', { class: 'gr4vy-embed__field' }, [h('label', { for: `${id}-gift-pin`, text: 'PIN' }), ui.giftPin]),
        ]),
        ui.giftCheck,
        ui.giftStatus,
        ui.giftError,
      ]);
      ui.giftList = h('ul', { class: 'gr4vy-embed__applied', 'aria-label': 'Applied gift cards', hidden: true });
      return h('section', { class: 'gr4vy-embed__gift', 'aria-label': 'Gift cards' }, [
        ui.giftToggle,
        ui.giftPanel,
        ui.giftList,
      ]);
    }

    _buildSaveOption() {
      const { id, ui } = this;
      ui.save = h('input', { type: 'checkbox', id: `${id}-save`, class: 'gr4vy-embed__save-input' });
      return h('div', { class: 'gr4vy-embed__save' }, [
        ui.save,
        h('label', { for: `${id}-save`, text: 'Save this card for next time' }),
      ]);
    }

    _buildSummary() {
      const { ui } = this;
      if (!this.options.giftCards) return null;
      ui.summaryTotal = h('dd', { class: 'gr4vy-embed__total' });
      ui.summaryGift = h('dd', { class: 'gr4vy-embed__gift-total' });
      ui.summaryGiftRow = h('div', { hidden: true }, [h('dt', { text: 'Gift cards applied' }), ui.summaryGift]);
      ui.summaryRemaining = h('dd', { class: 'gr4vy-embed__remaining' });
      return h('dl', { class: 'gr4vy-embed__summary', 'aria-live': 'polite' }, [
        h('div', {}, [h('dt', { text: 'Total' }), ui.summaryTotal]),
        ui.summaryGiftRow,
        h('div', { class: 'gr4vy-embed__remaining-row' }, [h('dt', { text: 'Remaining to pay' }), ui.summaryRemaining]),
      ]);
    }

    // --- state ----------------------------------------------------------------

    _setState(state) {
      this.state = state;
      this.root.dataset.state = state;
      this.root.setAttribute('aria-busy', state === 'loading' || state === 'processing' ? 'true' : 'false');
      const locked = state !== 'ready';
      if (this.ui.giftToggle) {
        [this.ui.giftToggle, this.ui.giftNumber, this.ui.giftPin, this.ui.giftCheck].forEach((el) => {
          el.disabled = locked || this.giftBusy;
        });
        this.ui.giftList.querySelectorAll('button').forEach((button) => {
          button.disabled = locked;
        });
      }
      this.ui.saved.querySelectorAll('input').forEach((input) => {
        input.disabled = locked || input.dataset.expired === 'true';
      });
      if (this.ui.save) this.ui.save.disabled = locked;
      this._updatePayButton();
      this._updatePayPal();
    }

    /** What pressing Pay charges: the card's part once gift cards cover some of the amount. */
    _payLabel() {
      if (this.state === 'processing') return 'Processing…';
      const remaining = this._remaining();
      if (remaining === this.options.amount) return `Pay ${this._format(this.options.amount)}`;
      if (remaining === 0) return `Pay ${this._format(this.options.amount)} with gift cards`;
      return `Pay ${this._format(remaining)} by card`;
    }

    _cardNeeded() {
      return this._remaining() > 0;
    }

    _newCardNeeded() {
      return this._cardNeeded() && this.savedChoice === null;
    }

    // Disabled only while nothing can happen (loading, processing, a balance check in flight: paying then could skip
    // that gift card). Incomplete card fields do not disable it: pressing it says what is missing, where a greyed-out
    // button would only look broken.
    _updatePayButton() {
      this.ui.pay.disabled = !(this.state === 'ready' && !this.giftBusy);
      this.ui.pay.textContent = this._payLabel();
      if (this.wallets) this.wallets.update();
    }

    // --- Secure Fields --------------------------------------------------------

    async _initSecureFields() {
      let SecureFieldsClass;
      try {
        SecureFieldsClass = await loadSecureFields();
      } catch (error) {
        if (!this.destroyed) this._loadFailed(error);
        return;
      }
      if (this.destroyed) return;

      const { options, ui } = this;
      this.helpers = SecureFieldsClass.helpers;
      this.sf = new SecureFieldsClass({ sessionId: options.sessionId, apiOrigin: options.apiOrigin, style: options.style });
      this.sf.on('ready', () => {
        if (this.state === 'loading' && this.sf.isReady()) this._setState('ready');
      });
      this.sf.on('change', () => this._onCardChange());
      // Enter in a card field pays, as the pay button does (it does nothing while not ready).
      this.sf.on('submit', () => this._pay());
      this.sf.addCardNumberField(ui.number, { label: 'Card number', placeholder: '1234 1234 1234 1234' });
      this.sf.addExpiryDateField(ui.expiry, { label: 'Expiry date (MM/YY)', placeholder: 'MM/YY' });
      this.sf.addSecurityCodeField(ui.code, { label: 'Security code', placeholder: 'CVC' });

      this._later(() => {
        if (this.state === 'loading') this._loadFailed(new Error('The card fields did not load in time.'));
      }, FIELDS_LOAD_TIMEOUT_MS);
    }

    _loadFailed(cause) {
      const error = new EmbedError(cause && cause.message ? cause.message : 'The checkout could not be loaded.', {
        code: 'load_failed',
      });
      this._showOutcome('error', {
        title: 'Checkout unavailable',
        message: 'The payment form could not be loaded. Refresh the page to try again.',
      });
      this._callback('onError', error);
    }

    _onCardChange() {
      if (this.sf.isValid()) this.ui.cardError.textContent = '';
      this._updatePayButton();
    }

    _firstInvalidField() {
      const fields = this.sf.getState();
      return FIELD_ORDER.find((field) => fields[field] && !fields[field].valid) || 'number';
    }

    _showCardError(message, field) {
      this.ui.cardError.textContent = message;
      this.sf.showErrors();
      this.sf.focus(field || this._firstInvalidField());
    }

    // --- API ------------------------------------------------------------------

    // POST /transactions under the attempt's Idempotency-Key. The answer, or FAILED once the failure is shown; an
    // answer that may have been lost keeps the attempt, so a retry sends the same key and gets the first payment.
    async _createTransaction(body) {
      let transaction;
      try {
        transaction = await this._post('/transactions', body, { 'Idempotency-Key': this._idempotencyKey(body) });
      } catch (error) {
        if (!outcomeUnknown(error)) this.attempt = null;
        this._failed(error);
        return FAILED;
      }
      this.attempt = null;
      return transaction;
    }

    _post(path, body, headers = {}) {
      return this._request('POST', path, { headers, body: JSON.stringify(body) });
    }

    async _request(method, path, { headers = {}, body, token = this.options.token } = {}) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
      let response;
      try {
        response = await fetch(`${this.options.apiOrigin}${path}`, {
          method,
          mode: 'cors',
          credentials: 'omit',
          cache: 'no-store',
          headers: Object.assign(
            {
              ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
              Accept: 'application/json',
              Authorization: `Bearer ${token}`,
            },
            headers,
          ),
          body,
          signal: controller.signal,
        });
      } catch (error) {
        const timedOut = error && error.name === 'AbortError';
        throw new EmbedError(timedOut ? 'The request timed out.' : 'The payment service could not be reached.', {
          code: timedOut ? 'timeout' : 'network_error',
        });
      } finally {
        clearTimeout(timer);
      }

      let data = null;
      try {
        data = await response.json();
      } catch (_) {
        data = null;
      }
      if (!response.ok) {
        const body = data && typeof data === 'object' ? data : {};
        throw new EmbedError(typeof body.message === 'string' ? body.message : `Request failed (${response.status}).`, {
          status: response.status,
          code: typeof body.code === 'string' ? body.code : `http_${response.status}`,
          details: Array.isArray(body.details) ? body.details : [],
          retryAfter: this.helpers ? this.helpers.parseRetryAfter(response.headers.get('Retry-After')) : null,
        });
      }
      return data;
    }

    // --- saved cards ----------------------------------------------------------

    // The token names the buyer, so the API answers with that buyer's cards only. Saved cards are a convenience:
    // if they cannot be listed the checkout still takes a new card.
    async _loadSavedCards() {
      let data;
      try {
        data = await this._request('GET', '/buyers/payment-methods');
      } catch (_) {
        return;
      }
      if (this.destroyed || !data || !Array.isArray(data.items)) return;
      this.savedCards = data.items.filter((item) => item && typeof item.id === 'string' && item.method === 'card');
      const usable = this.savedCards.find((card) => !expired(card.expiration_date));
      if (usable && this.state !== 'processing') this.savedChoice = usable.id;
      this._renderSavedCards();
    }

    _renderSavedCards() {
      const { id, ui } = this;
      const name = `${id}-saved`;
      const option = (value, label, detail, card) => {
        const inputId = `${name}-${value}`;
        const isExpired = card ? expired(card.expiration_date) : false;
        const input = h('input', {
          type: 'radio',
          name,
          id: inputId,
          value,
          checked: (this.savedChoice || 'new') === value,
          'data-expired': isExpired ? 'true' : 'false',
          disabled: isExpired || this.state !== 'ready',
          onchange: () => this._chooseSaved(value === 'new' ? null : value),
        });
        return h(
          'div',
          { class: 'gr4vy-embed__saved-item', 'data-last4': card ? card.label : null, 'data-expired': isExpired },
          [
            input,
            h('label', { for: inputId }, [
              h('span', { class: 'gr4vy-embed__saved-name', text: label }),
              detail ? h('span', { class: 'gr4vy-embed__saved-detail', text: detail }) : null,
            ]),
          ],
        );
      };
      const items = this.savedCards.map((card) => {
        const scheme = SCHEME_NAMES[card.scheme] || 'Card';
        const expiry = expired(card.expiration_date) ? `Expired ${card.expiration_date}` : `Expires ${card.expiration_date}`;
        return option(card.id, `${scheme} ending in ${card.label}`, expiry, card);
      });
      ui.saved.replaceChildren(ui.saved.firstChild, ...items, option('new', 'Use a new card', null, null));
      this._renderGiftCards();
    }

    _chooseSaved(paymentMethodId) {
      this.savedChoice = paymentMethodId;
      this.ui.cardError.textContent = '';
      this._renderGiftCards();
      if (paymentMethodId === null && this.sf) this.sf.focus('number');
    }

    // --- gift cards -----------------------------------------------------------

    _toggleGiftPanel() {
      const { ui } = this;
      const open = ui.giftPanel.hidden;
      ui.giftPanel.hidden = !open;
      ui.giftToggle.setAttribute('aria-expanded', String(open));
      if (open) ui.giftNumber.focus();
    }

    _allocations() {
      let left = this.options.amount;
      return this.giftCards.map((card) => {
        const amount = Math.min(card.balance, left);
        left -= amount;
        return { card, amount };
      });
    }

    _remaining() {
      return this._allocations().reduce((left, item) => left - item.amount, this.options.amount);
    }

    _giftMessage(status, error) {
      this.ui.giftStatus.textContent = status || '';
      this.ui.giftError.textContent = error || '';
    }

    _setGiftBusy(busy) {
      this.giftBusy = busy;
      this.ui.giftCheck.textContent = busy ? 'Checking…' : 'Check balance';
      this._setState(this.state);
    }

    async _checkBalance() {
      const { ui } = this;
      if (this.state !== 'ready' || this.giftBusy) return;
      const number = ui.giftNumber.value.replace(/[\s-]/g, '');
      const pin = ui.giftPin.value.trim();
      this._giftMessage('', '');

      if (!number || !pin) {
        this._giftMessage('', 'Enter the gift card number and PIN.');
        (number ? ui.giftPin : ui.giftNumber).focus();
        return;
      }
      if (this.giftCards.some((card) => card.number === number)) {
        this._giftMessage('', 'This gift card has already been added.');
        return;
      }
      if (this._remaining() === 0) {
        this._giftMessage('', 'The full amount is already covered.');
        return;
      }

      this._setGiftBusy(true);
      this._giftMessage('Checking balance…', '');
      try {
        const data = await this._post('/gift-cards/balances', { items: [{ number, pin }] });
        const item = data && Array.isArray(data.items) ? data.items[0] : null;
        this._applyBalance(item, number, pin);
      } catch (error) {
        this._giftMessage('', '');
        if (error.status === 429) {
          this._tooManyAttempts(error);
        } else {
          this._giftMessage('', 'We could not check this gift card right now. Please try again.');
        }
      } finally {
        this._setGiftBusy(false);
      }
    }

    _applyBalance(item, number, pin) {
      const { ui, options } = this;
      if (!item || typeof item !== 'object') {
        this._giftMessage('', 'We could not check this gift card right now. Please try again.');
        return;
      }
      if (item.balance_error_code) {
        this._giftMessage(
          '',
          BALANCE_MESSAGES[item.balance_error_code] || 'This gift card cannot be used. Try another one.',
        );
        return;
      }
      if (!Number.isInteger(item.balance)) {
        this._giftMessage('', 'We could not check this gift card right now. Please try again.');
        return;
      }
      if (item.currency && item.currency !== options.currency) {
        this._giftMessage('', `This gift card is in ${item.currency} and cannot pay for a ${options.currency} order.`);
        return;
      }
      if (item.balance <= 0) {
        this._giftMessage('', 'This gift card has no balance left.');
        return;
      }

      const last4 = typeof item.last4 === 'string' && item.last4 ? item.last4 : number.slice(-4);
      const card = { key: this.helpers.randomId(), number, pin, last4, balance: item.balance };
      this.giftCards.push(card);
      ui.giftNumber.value = '';
      ui.giftPin.value = '';
      this._renderGiftCards();
      const applied = this._allocations().find((entry) => entry.card === card).amount;
      this._giftMessage(
        `Gift card ending in ${last4} has a balance of ${this._format(card.balance)}. ${this._format(applied)} applied.`,
        '',
      );
    }

    _removeGiftCard(card) {
      const index = this.giftCards.indexOf(card);
      if (index === -1 || this.state !== 'ready') return;
      this.giftCards.splice(index, 1);
      this._renderGiftCards();
      this._giftMessage(`Gift card ending in ${card.last4} removed.`, '');
      // Keep keyboard focus in the list, or fall back to the gift card toggle.
      const buttons = this.ui.giftList.querySelectorAll('button');
      const next = buttons[Math.min(index, buttons.length - 1)];
      (next || this.ui.giftToggle).focus();
    }

    _renderGiftCards() {
      const { ui } = this;
      const allocations = this._allocations();
      const remaining = this._remaining();

      if (ui.giftList) {
        ui.giftList.replaceChildren(
          ...allocations.map(({ card, amount }) =>
            h('li', { class: 'gr4vy-embed__applied-item', 'data-last4': card.last4 }, [
              h('span', { class: 'gr4vy-embed__applied-name', text: `Gift card ending in ${card.last4}` }),
              h('span', {
                class: 'gr4vy-embed__applied-amount',
                text:
                  amount > 0
                    ? `Covers ${this._format(amount)} (balance ${this._format(card.balance)})`
                    : 'Not needed',
              }),
              h('button', {
                type: 'button',
                class: 'gr4vy-embed__remove',
                'aria-label': `Remove gift card ending in ${card.last4}`,
                text: 'Remove',
                disabled: this.state !== 'ready',
                onclick: () => this._removeGiftCard(card),
              }),
            ]),
          ),
        );
        ui.giftList.hidden = allocations.length === 0;
      }

      if (ui.summaryTotal) {
        const covered = this.options.amount - remaining;
        ui.summaryTotal.textContent = this._format(this.options.amount);
        ui.summaryGift.textContent = this._format(covered);
        ui.summaryGiftRow.hidden = covered === 0;
        ui.summaryRemaining.textContent = this._format(remaining);
      }

      // Hidden (not removed) so the card frames keep what was typed.
      ui.saved.hidden = remaining === 0 || this.savedCards.length === 0;
      ui.card.hidden = remaining === 0 || this.savedChoice !== null;
      ui.covered.hidden = remaining !== 0;
      this._updatePayButton();
      this._updatePayPal();
    }

    // --- paying ---------------------------------------------------------------

    _transactionBody(cardNeeded) {
      const { options } = this;
      const body = { amount: options.amount, currency: options.currency };
      if (options.country) body.country = options.country;
      body.intent = 'capture';
      // A token pinned to a buyer allows only transactions that name that buyer.
      if (options.buyer) body[options.buyer.field] = options.buyer.value;
      if (cardNeeded && this.savedChoice !== null) {
        body.payment_method = { method: 'id', id: this.savedChoice, redirect_url: this._approvalCompleteUrl() };
      } else if (cardNeeded) {
        body.payment_method = {
          method: 'checkout-session',
          id: options.sessionId,
          redirect_url: this._approvalCompleteUrl(),
        };
        if (this.ui.save && this.ui.save.checked) body.store = true;
      }
      const giftCards = this._allocations()
        .filter((entry) => entry.amount > 0)
        .map(({ card, amount }) => ({ number: card.number, pin: card.pin, amount }));
      if (giftCards.length) body.gift_cards = giftCards;
      return body;
    }

    // One key per attempt. Retrying the very same request (after a network
    // error, a 5xx or a 429) reuses the key so it cannot charge twice.
    _idempotencyKey(body) {
      const fingerprint = JSON.stringify(body);
      if (!this.attempt || this.attempt.fingerprint !== fingerprint) {
        this.attempt = { fingerprint, key: this.helpers.randomId() };
      }
      return this.attempt.key;
    }

    async _pay() {
      if (this.state !== 'ready' || this.giftBusy) return;
      const cardNeeded = this._cardNeeded();
      const newCard = this._newCardNeeded();
      this.ui.cardError.textContent = '';

      if (newCard && !(this.sf && this.sf.isValid())) {
        this._showCardError('Check your card details. Some of them are missing or not valid.');
        return;
      }

      this._setState('processing');
      if (newCard) {
        try {
          await this.sf.submit();
        } catch (error) {
          this._cardStoreFailed(error);
          return;
        }
      }

      const transaction = await this._createTransaction(this._transactionBody(cardNeeded));
      if (transaction === FAILED || this.destroyed) return;
      if (transaction && transaction.status === CHALLENGED) this._showChallenge(transaction);
      else this._transactionCreated(transaction || {});
    }

    _cardStoreFailed(error) {
      if (this.destroyed) return;
      if (error.code === 'invalid_fields' || error.status === 400) {
        this._setState('ready');
        const detail = (error.details || []).find((d) => d && typeof d.message === 'string');
        const field = detail ? detail.field || POINTER_FIELDS[detail.pointer] : undefined;
        this._showCardError(detail ? detail.message : 'Check your card details and try again.', field);
        return;
      }
      this._failed(error);
    }

    _transactionCreated(transaction) {
      if (typeof transaction.id === 'string') this.root.dataset.transactionId = transaction.id;
      const status = transaction.status;
      const total = this._format(this.options.amount);

      if (APPROVED.has(status)) {
        this._showOutcome('approved', {
          title: 'Payment approved',
          message: `Thank you. Your payment of ${total} was successful.`,
        });
      } else if (DECLINED.has(status)) {
        if (typeof transaction.error_code === 'string') this.root.dataset.errorCode = transaction.error_code;
        this._showOutcome('declined', {
          title: 'Payment declined',
          message: 'Your payment was declined. Check your details or try another card.',
          retry: this._cardNeeded() ? 'Try another card' : 'Try again',
        });
      } else if (['processing', 'authorization_pending', 'capture_pending', CHALLENGED].includes(status)) {
        // Paying again could charge twice, so no retry is offered.
        this._showOutcome('error', {
          title: 'Payment not confirmed yet',
          message: 'Your payment is still being processed. Please do not pay again; you will be told once it completes.',
        });
      } else {
        this._showOutcome('error', {
          title: 'Payment not completed',
          message: 'Your payment could not be completed. Please try again.',
          retry: 'Try again',
        });
      }
      this._callback('onComplete', transaction);
    }

    // --- PayPal ---------------------------------------------------------------

    // Hidden until the payment options offer PayPal; above the card, as the quicker way to pay.
    _buildPayPal() {
      const { id, ui } = this;
      ui.paypalButton = h('button', {
        type: 'button',
        class: 'gr4vy-embed__paypal',
        'aria-describedby': `${id}-paypal-note`,
        onclick: () => this._payWithPayPal(),
      }, [h('span', { class: 'gr4vy-embed__paypal-word', text: 'PayPal' })]);
      ui.paypalButton.setAttribute('aria-label', 'Pay with PayPal');
      ui.paypalNote = h('p', {
        class: 'gr4vy-embed__paypal-note',
        id: `${id}-paypal-note`,
        text: 'You will approve the payment at PayPal, then come back here.',
      });
      ui.paypal = h('section', { class: 'gr4vy-embed__paypal-option', 'aria-label': 'PayPal', hidden: true }, [
        ui.paypalButton,
        ui.paypalNote,
        h('p', { class: 'gr4vy-embed__divider', text: 'or pay by card' }),
      ]);
      this.paypalOffered = false;
      return ui.paypal;
    }

    // The checkout's payment options say whether a PayPal service takes this amount, currency and country. PayPal
    // is a convenience: if the options cannot be read the checkout still takes cards.
    async _loadPayPal() {
      const { options } = this;
      if (options.paypal === true) {
        this.paypalOffered = true;
        this._updatePayPal();
        return;
      }
      const body = { amount: options.amount, currency: options.currency };
      if (options.country) body.country = options.country;
      let data;
      try {
        data = await this._post('/payment-options', body);
      } catch (_) {
        return;
      }
      if (this.destroyed || !data || !Array.isArray(data.items)) return;
      this.paypalOffered = data.items.some((item) => item && item.method === 'paypal');
      this._updatePayPal();
    }

    // PayPal takes no gift cards beside it: it is offered while none is applied.
    _updatePayPal() {
      const { ui } = this;
      if (!ui.paypal) return;
      ui.paypal.hidden = !this.paypalOffered || this.giftCards.length > 0;
      ui.paypalButton.disabled = this.state !== 'ready' || this.giftBusy;
    }

    _payPalBody() {
      const { options } = this;
      const body = { amount: options.amount, currency: options.currency, intent: 'authorize' };
      if (options.country) body.country = options.country;
      if (options.buyer) body[options.buyer.field] = options.buyer.value;
      body.payment_method = { method: 'paypal', redirect_url: options.redirectUrl, currency: options.currency };
      if (options.country) body.payment_method.country = options.country;
      return body;
    }

    // The transaction is made here; the buyer then leaves for PayPal's page in this tab (PayPal's pages refuse to be
    // framed), and the tab keeps what the return needs to read the payment back.
    async _payWithPayPal() {
      if (this.state !== 'ready' || this.giftBusy || this.giftCards.length > 0) return;
      this._setState('processing');
      const transaction = await this._createTransaction(this._payPalBody());
      if (transaction === FAILED || this.destroyed) return;
      const approvalUrl = webUrl(transaction && transaction.payment_method && transaction.payment_method.approval_url);
      if (!transaction || transaction.status !== CHALLENGED || !approvalUrl || typeof transaction.id !== 'string') {
        this._transactionCreated(transaction || {});
        return;
      }
      this.root.dataset.transactionId = transaction.id;
      keepRedirect(transaction.id, this.options.token);
      this._setState('redirecting');
      this.ui.pay.textContent = 'Going to PayPal…';
      global.location.assign(approvalUrl);
    }

    // Back from PayPal: this page's address names the transaction, and this tab kept the token that made it. The
    // transaction read back says how it ended (the address is the buyer's to edit). False: not a return.
    _resumeRedirect() {
      const returned = takeRedirect();
      if (!returned) return false;
      this.root.dataset.transactionId = returned.transactionId;
      this._setState('processing');
      readReturned(returned, (method, path, init) => this._request(method, path, init)).then(
        (transaction) => {
          if (!this.destroyed) this._transactionCreated(transaction || {});
        },
        (error) => {
          if (!this.destroyed) this._notConfirmed(error);
        },
      );
      return true;
    }

    // --- 3-D Secure -----------------------------------------------------------

    // Where the issuer's page sends the buyer (the payment's redirect_url): a page of the API origin that tells this
    // checkout, and only this page's origin, that the challenge is over. One channel per checkout, so a retry of the
    // same body keeps its idempotency key.
    _approvalCompleteUrl() {
      if (!this.channel) this.channel = this.helpers.randomId();
      const query = new URLSearchParams({ parent_origin: global.location.origin, channel: this.channel });
      return `${this.options.apiOrigin}${APPROVAL_COMPLETE_PATH}?${query}`;
    }

    _showChallenge(transaction) {
      const { ui } = this;
      const method = transaction.payment_method || {};
      let approvalUrl = null;
      try {
        approvalUrl = new URL(method.approval_url);
      } catch (_) {
        approvalUrl = null;
      }
      if (!approvalUrl || !['https:', 'http:'].includes(approvalUrl.protocol) || typeof transaction.id !== 'string') {
        this._transactionCreated(transaction); // waits for a page we cannot show: not confirmed
        return;
      }
      this.root.dataset.transactionId = transaction.id;
      const frame = h('iframe', {
        src: approvalUrl.href,
        title: 'Card issuer authentication',
        class: 'gr4vy-embed__challenge-page',
        referrerpolicy: 'no-referrer',
        // Forms and scripts of its own origin; never navigating this page, opening windows or downloads.
        sandbox: 'allow-forms allow-scripts allow-same-origin',
      });
      // Focus moves into the issuer's page once it is there; the title is announced first.
      frame.addEventListener('load', () => frame.focus(), { once: true });
      const expiresAt = Date.parse(transaction.approval_expires_at);
      const timer = Number.isFinite(expiresAt)
        ? this._later(() => this._challengeClosed('expired'), Math.min(Math.max(expiresAt - Date.now(), 0), MAX_TIMER_MS))
        : null;
      this.challenge = { transaction, frame, timer };
      global.addEventListener('message', this.onMessage);
      ui.challengeFrame.replaceChildren(frame);
      ui.form.hidden = true;
      ui.challenge.hidden = false;
      this._setState('challenge');
      ui.challengeTitle.focus();
    }

    // Only our completion page, in the frame this checkout made, for the transaction it waits for, is heard.
    _onChallengeMessage(event) {
      const { challenge } = this;
      const data = event.data;
      if (
        !challenge ||
        event.origin !== this.options.apiOrigin ||
        event.source !== challenge.frame.contentWindow ||
        !data ||
        data.type !== APPROVAL_COMPLETE_MESSAGE ||
        data.channel !== this.channel ||
        data.transactionId !== challenge.transaction.id
      ) {
        return;
      }
      this._challengeReturned();
    }

    // The message only says the buyer is back: the transaction itself says how the payment ended.
    async _challengeReturned() {
      const { transaction } = this._endChallenge();
      this._setState('processing');
      let current;
      try {
        current = await this._request('GET', `/transactions/${encodeURIComponent(transaction.id)}`);
      } catch (error) {
        if (!this.destroyed) this._notConfirmed(error);
        return;
      }
      if (!this.destroyed) this._transactionCreated(current || {});
    }

    // Closed by the buyer (Cancel, Escape) or out of time. The buyer may have finished in the frame a moment before,
    // so the transaction is read first; while it still waits, the payment is not completed (it fails at its expiry).
    async _challengeClosed(reason) {
      if (!this.challenge) return;
      const { transaction } = this._endChallenge();
      this._setState('processing');
      let current = null;
      try {
        current = await this._request('GET', `/transactions/${encodeURIComponent(transaction.id)}`);
      } catch (_) {
        current = null;
      }
      if (this.destroyed) return;
      if (current && current.status && current.status !== CHALLENGED) {
        this._transactionCreated(current);
        return;
      }
      const expired = reason === 'expired';
      const error = new EmbedError(expired ? 'The authentication expired.' : 'The buyer canceled the authentication.', {
        code: expired ? 'authentication_expired' : 'authentication_canceled',
      });
      this.root.dataset.errorCode = error.code;
      this._showOutcome('error', {
        title: expired ? 'Time ran out' : 'Payment canceled',
        message: expired
          ? 'The time to confirm this payment with your bank ran out, so it was not completed. You can try again.'
          : 'You closed the check with your bank, so this payment was not completed. You can try again.',
        retry: 'Try again',
      });
      this._callback('onError', error);
    }

    _endChallenge() {
      const { challenge, ui } = this;
      this.challenge = null;
      global.removeEventListener('message', this.onMessage);
      if (challenge.timer !== null) {
        clearTimeout(challenge.timer);
        this.timers.delete(challenge.timer);
      }
      ui.challengeFrame.replaceChildren();
      ui.challenge.hidden = true;
      ui.form.hidden = false;
      return challenge;
    }

    _notConfirmed(error) {
      this._showOutcome('error', {
        title: 'Payment not confirmed yet',
        message: 'We could not confirm your payment. Please do not pay again; you will be told once it completes.',
      });
      this._callback('onError', error);
    }

    _failed(error) {
      if (this.destroyed) return;
      if (error.status === 429) {
        this._tooManyAttempts(error);
        return;
      }
      if (typeof error.code === 'string') this.root.dataset.errorCode = error.code;
      this._showOutcome('error', Object.assign({ title: 'Payment not completed' }, this._describeError(error)));
      this._callback('onError', error);
    }

    _describeError(error) {
      if (error.code === 'network_error') {
        return {
          message: 'We could not reach the payment service. Check your connection and try again.',
          retry: 'Try again',
        };
      }
      if (error.code === 'timeout') {
        return { message: 'The payment service took too long to respond. Please try again.', retry: 'Try again' };
      }
      if (error.status === 401 || error.status === 404) {
        return { message: 'Your checkout session has expired. Refresh the page to start again.' };
      }
      if (error.status === 403) {
        return { message: 'This payment could not be authorised. Refresh the page and try again.' };
      }
      return {
        message: 'Something went wrong and your payment was not completed. Please try again.',
        retry: 'Try again',
      };
    }

    _tooManyAttempts(error) {
      const wait =
        Number.isFinite(error.retryAfter) && error.retryAfter > 0
          ? Math.min(error.retryAfter, MAX_RETRY_WAIT_SECONDS)
          : 0;
      const seconds = wait === 1 ? '1 second' : `${wait} seconds`;
      this._showOutcome('too-many-attempts', {
        title: 'Too many attempts',
        message: wait
          ? `Too many attempts. Please wait ${seconds}, then try again.`
          : 'Too many attempts. Please wait a moment, then try again.',
        retry: 'Try again',
        retryAfter: wait,
      });
      this._callback('onError', error);
    }

    _showOutcome(state, { title, message, retry, retryAfter = 0 }) {
      const { ui } = this;
      this._setState(state);
      ui.form.hidden = true;
      ui.outcome.hidden = false;
      ui.outcomeTitle.textContent = title;
      ui.outcomeMessage.textContent = message;
      ui.retry.hidden = !retry;
      ui.retry.textContent = retry || '';
      ui.retry.disabled = retryAfter > 0;
      if (retryAfter > 0) {
        this._later(() => {
          ui.retry.disabled = false;
        }, retryAfter * 1000);
      }
      ui.outcomeTitle.focus();
    }

    _backToForm() {
      const { ui } = this;
      // A declined card is not offered again: the buyer types the next one into empty fields.
      if (this.state === 'declined' && this.sf && this.savedChoice === null) this.sf.clear();
      if (ui.save) ui.save.checked = false;
      ui.outcome.hidden = true;
      ui.form.hidden = false;
      delete this.root.dataset.transactionId;
      delete this.root.dataset.errorCode;
      this._setState(this.sf && this.sf.isReady() ? 'ready' : 'loading');
      if (this._newCardNeeded() && this.sf) this.sf.focus('number');
      else ui.pay.focus();
    }
  }

  // ---------------------------------------------------------------------------
  // Wallets: Apple Pay and Google Pay buttons (docs/frontend.md, "Wallets")
  // ---------------------------------------------------------------------------

  // Built into the browser, so no script of Apple's or Google's is loaded: Apple Pay JS in Safari, and Google Pay
  // through the Payment Request API with Google's payment method identifier.
  const APPLE_PAY_VERSION = 3;
  const GOOGLE_PAY_METHOD = 'https://google.com/pay';
  // Upstream's scheme ids (payment-options `context.supported_schemes`) in each wallet's own names.
  const APPLE_PAY_NETWORKS = {
    amex: 'amex',
    discover: 'discover',
    jcb: 'jcb',
    maestro: 'maestro',
    mastercard: 'masterCard',
    unionpay: 'chinaUnionPay',
    visa: 'visa',
  };
  const GOOGLE_PAY_NETWORKS = {
    amex: 'AMEX',
    discover: 'DISCOVER',
    jcb: 'JCB',
    maestro: 'MAESTRO',
    mastercard: 'MASTERCARD',
    visa: 'VISA',
  };

  /** The `googlePay` option: what Google's payment sheet needs to encrypt the token to this server's key. */
  function readGooglePay(value, fail) {
    if (value === undefined || value === null || value === false) return null;
    const { merchantId, publicKey, environment = 'PRODUCTION' } = value;
    if (typeof merchantId !== 'string' || !merchantId) fail('googlePay.merchantId is required.');
    if (typeof publicKey !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(publicKey)) fail('googlePay.publicKey is required.');
    if (!['TEST', 'PRODUCTION'].includes(environment)) fail('googlePay.environment must be TEST or PRODUCTION.');
    return { merchantId, publicKey, environment };
  }

  /** An amount in minor units as the wallets take it: a decimal string, "12.99". */
  function decimalAmount(amount, currency) {
    const digits = minorUnits(currency);
    return (amount / 10 ** digits).toFixed(digits);
  }

  function networks(context, names) {
    const schemes = context && Array.isArray(context.supported_schemes) ? context.supported_schemes : [];
    return schemes.filter((scheme) => Object.prototype.hasOwnProperty.call(names, scheme)).map((scheme) => names[scheme]);
  }

  /**
   * The wallet buttons of one checkout: shown only where the browser offers the wallet and payment-options offers
   * it, and paying the part of the amount gift cards leave, with the token the wallet gives.
   */
  class WalletButtons {
    constructor(checkout) {
      this.checkout = checkout;
      this.buttons = [];
      this.element = h('div', { class: 'gr4vy-embed__wallets', hidden: true });
    }

    // Which wallets this browser offers first: most offer none, and then the server is not asked. The root's
    // data-wallets names the buttons shown once this is decided (empty for none).
    async load() {
      const c = this.checkout;
      const offered = [this._appleAvailable() ? 'applepay' : null, (await this._googleAvailable()) ? 'googlepay' : null];
      const options = offered.some(Boolean) && !c.destroyed ? await this._options() : [];
      if (c.destroyed) return;
      options
        .filter((option) => option && offered.includes(option.method) && option.context)
        .forEach((option) => this._add(option));
      this.update();
      c.root.dataset.wallets = this.buttons.map((button) => button.dataset.method).join(' ');
    }

    // The checkout's payment options; none when they cannot be read (the card fields still take the payment).
    async _options() {
      const { options } = this.checkout;
      const body = { amount: options.amount, currency: options.currency };
      if (options.country) body.country = options.country;
      try {
        const data = await this.checkout._post('/payment-options', body);
        return data && Array.isArray(data.items) ? data.items : [];
      } catch (_) {
        return [];
      }
    }

    // Shown while something is left for a card to pay; usable when Pay is.
    update() {
      const c = this.checkout;
      this.element.hidden = this.buttons.length === 0 || c._remaining() === 0;
      this.buttons.forEach((button) => {
        button.disabled = !(c.state === 'ready' && !c.giftBusy);
      });
    }

    _appleAvailable() {
      const Session = global.ApplePaySession;
      if (typeof Session !== 'function' || !this.checkout.options.country) return false;
      try {
        return Session.canMakePayments() === true;
      } catch (_) {
        return false; // Safari throws on a page that is not a secure context
      }
    }

    async _googleAvailable() {
      if (!this.checkout.options.googlePay || typeof global.PaymentRequest !== 'function') return false;
      try {
        return (await this._googleRequest(null).canMakePayment()) === true;
      } catch (_) {
        return false;
      }
    }

    _add(option) {
      const apple = option.method === 'applepay';
      const label = apple ? 'Apple Pay' : 'Google Pay';
      const button = h('button', {
        type: 'button',
        class: `gr4vy-embed__wallet gr4vy-embed__wallet--${option.method}`,
        'data-method': option.method,
        'aria-label': `Pay with ${label}`,
        lang: 'en',
        text: label,
        onclick: () => (apple ? this._payApple(option) : this._payGoogle(option)),
      });
      this.buttons.push(button);
      if (this.buttons.length === 1) {
        this.element.append(h('p', { class: 'gr4vy-embed__wallets-or', text: 'Or pay by card' }));
      }
      this.element.insertBefore(button, this.element.lastChild);
    }

    _usable() {
      const c = this.checkout;
      return c.state === 'ready' && !c.giftBusy && c._remaining() > 0;
    }

    // Apple's sheet must open in the click itself: the session is made and begun before anything is awaited.
    _payApple(option) {
      const c = this.checkout;
      if (!this._usable()) return;
      const { options } = c;
      let session;
      try {
        session = new global.ApplePaySession(APPLE_PAY_VERSION, {
          countryCode: options.country,
          currencyCode: options.currency,
          supportedNetworks: networks(option.context, APPLE_PAY_NETWORKS),
          merchantCapabilities: ['supports3DS'],
          total: { label: option.context.merchant_name, amount: decimalAmount(c._remaining(), options.currency) },
        });
      } catch (error) {
        c._failed(new EmbedError(error.message || 'Apple Pay could not start.', { code: 'wallet_unavailable' }));
        return;
      }
      const Session = global.ApplePaySession;
      session.onvalidatemerchant = async (event) => {
        let merchantSession;
        try {
          merchantSession = await c._post('/digital-wallets/apple/session', {
            validation_url: event.validationURL,
            domain_name: global.location.hostname,
          });
        } catch (error) {
          session.abort();
          c._failed(error);
          return;
        }
        session.completeMerchantValidation(merchantSession);
      };
      session.onpaymentauthorized = async (event) => {
        const transaction = await this._submit('applepay', event.payment && event.payment.token, (ok) =>
          session.completePayment(ok ? Session.STATUS_SUCCESS : Session.STATUS_FAILURE),
        );
        if (transaction) this._finish(transaction);
      };
      session.oncancel = () => {
        if (c.state === 'processing' && !c.destroyed) c._setState('ready');
      };
      c._setState('processing');
      session.begin();
    }

    _payGoogle(option) {
      const c = this.checkout;
      if (!this._usable()) return;
      let request;
      try {
        request = this._googleRequest(option, c._remaining());
      } catch (error) {
        c._failed(new EmbedError(error.message || 'Google Pay could not start.', { code: 'wallet_unavailable' }));
        return;
      }
      // show() must be called in the click itself, before anything is awaited.
      const shown = request.show();
      c._setState('processing');
      this._googleShown(shown);
    }

    async _googleShown(shown) {
      const c = this.checkout;
      let response;
      try {
        response = await shown;
      } catch (_) {
        if (!c.destroyed) c._setState('ready'); // the buyer closed the sheet
        return;
      }
      const method = response.details && response.details.paymentMethodData;
      const token = method && method.tokenizationData ? method.tokenizationData.token : null;
      const transaction = await this._submit('googlepay', token, (ok) => response.complete(ok ? 'success' : 'fail'));
      if (transaction) this._finish(transaction);
    }

    // Google Pay's PaymentDataRequest: its token encrypted directly to this server's key (ECv2), never a gateway's.
    _googleRequest(option, amount = this.checkout.options.amount) {
      const { options } = this.checkout;
      const google = options.googlePay;
      const schemes = option ? networks(option.context, GOOGLE_PAY_NETWORKS) : Object.values(GOOGLE_PAY_NETWORKS);
      const data = {
        environment: google.environment,
        apiVersion: 2,
        apiVersionMinor: 0,
        merchantInfo: { merchantId: google.merchantId, merchantName: option ? option.context.merchant_name : '' },
        allowedPaymentMethods: [
          {
            type: 'CARD',
            parameters: { allowedAuthMethods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], allowedCardNetworks: schemes },
            tokenizationSpecification: {
              type: 'DIRECT',
              parameters: { protocolVersion: 'ECv2', publicKey: google.publicKey },
            },
          },
        ],
      };
      const total = { label: 'Total', amount: { currency: options.currency, value: decimalAmount(amount, options.currency) } };
      return new global.PaymentRequest([{ supportedMethods: GOOGLE_PAY_METHOD, data }], { total });
    }

    // The transaction paid with the wallet's token; `settle(ok)` closes the wallet's sheet first. Null when it failed
    // (the checkout shows why).
    async _submit(method, token, settle) {
      const c = this.checkout;
      if (!token) {
        await settle(false);
        c._failed(new EmbedError('The wallet gave no payment token.', { code: 'wallet_error' }));
        return null;
      }
      const body = c._transactionBody(false);
      body.payment_method = { method, token, redirect_url: c._approvalCompleteUrl() };
      let transaction;
      try {
        transaction = await c._post('/transactions', body, { 'Idempotency-Key': c._idempotencyKey(body) });
      } catch (error) {
        c.attempt = null; // a token pays once: a retry needs a new one from the wallet
        await settle(false);
        c._failed(error);
        return null;
      }
      c.attempt = null;
      const status = transaction && transaction.status;
      await settle(APPROVED.has(status) || status === CHALLENGED);
      return transaction || {};
    }

    _finish(transaction) {
      const c = this.checkout;
      if (c.destroyed) return;
      // A Google Pay card without a device cryptogram goes through 3-D Secure like a typed one.
      if (transaction.status === CHALLENGED) c._showChallenge(transaction);
      else c._transactionCreated(transaction);
    }
  }

  function mount(element, options) {
    const root = typeof element === 'string' ? document.querySelector(element) : element;
    if (!root || typeof root.appendChild !== 'function') throw new TypeError('Embed.mount: element not found.');
    const settings = readOptions(options);
    if (mounted.has(root)) mounted.get(root).unmount();
    const checkout = new Checkout(root, settings);
    mounted.set(root, checkout);
    return checkout;
  }

  /**
   * A page PayPal sent the buyer back to, with no checkout mounted on it (a payment link already paid): the
   * transaction its address names, read with the token this tab kept, or null when this is no return from PayPal.
   */
  function returned(options = {}) {
    const record = takeRedirect();
    if (!record) return Promise.resolve(null);
    const apiOrigin = new URL(options.apiOrigin || SCRIPT_SRC).origin;
    const reader = { options: { apiOrigin, token: record.token }, helpers: null };
    return readReturned(record, (method, path, init) => Checkout.prototype._request.call(reader, method, path, init));
  }

  global.Embed = { mount, returned, formatAmount, minorUnits, Error: EmbedError };
})(window);
