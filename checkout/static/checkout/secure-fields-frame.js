/*
 * Secure Fields: the script that runs inside each field's iframe.
 *
 * The iframe is served from the API origin, so the merchant page that embeds
 * it cannot read what is typed here. Each frame keeps the value of its own
 * field. The card-number frame is also the "collector": on submit it asks the
 * expiry and security-code frames (same origin as itself) for their values and
 * stores all three in the checkout session with a same-origin PUT.
 *
 * The merchant page only ever receives non-sensitive state: whether a field is
 * valid or empty, the card scheme, the last four digits once the number is
 * valid, the error text shown to the user, and the frame's height.
 */
(() => {
  'use strict';

  const NS = 'gr4vy-sf:';
  const FIELD_NAMES = ['number', 'expiry', 'security_code'];
  const COLLECT_TIMEOUT_MS = 5000;
  const STORE_TIMEOUT_MS = 30000;
  const MAX_TEXT_LENGTH = 120;

  const POINTERS = {
    number: '/payment_method/number',
    expiry: '/payment_method/expiration_date',
    security_code: '/payment_method/security_code',
  };

  // ---------------------------------------------------------------------------
  // Card rules (pure functions, shared by all three frames)
  // ---------------------------------------------------------------------------

  function range(from, to) {
    const out = [];
    for (let n = from; n <= to; n += 1) out.push(n);
    return out;
  }

  // True when the first `size` digits of `digits` form a number in [low, high].
  function prefixBetween(digits, size, low, high) {
    if (digits.length < size) return false;
    const prefix = Number(digits.slice(0, size));
    return prefix >= low && prefix <= high;
  }

  // Order matters: the first matching rule wins.
  const SCHEMES = [
    { name: 'amex', lengths: [15], gaps: [4, 10], test: (d) => /^3[47]/.test(d) },
    { name: 'visa', lengths: [13, 16, 19], test: (d) => d.startsWith('4') },
    {
      name: 'mastercard',
      lengths: [16],
      test: (d) => prefixBetween(d, 2, 51, 55) || prefixBetween(d, 4, 2221, 2720),
    },
    {
      name: 'discover',
      lengths: range(16, 19),
      test: (d) => d.startsWith('6011') || d.startsWith('65') || prefixBetween(d, 3, 644, 649),
    },
    { name: 'diners', lengths: range(14, 19), gaps: [4, 10], test: (d) => /^3(0[0-5]|[689])/.test(d) },
    { name: 'jcb', lengths: range(16, 19), test: (d) => prefixBetween(d, 4, 3528, 3589) },
    { name: 'unionpay', lengths: range(16, 19), test: (d) => d.startsWith('62') },
    {
      name: 'maestro',
      lengths: range(13, 19),
      test: (d) => /^(5018|5020|5038|5893|6304|6759|676[1-3])/.test(d),
    },
  ];
  const SCHEME_NAMES = SCHEMES.map((s) => s.name);
  const ANY_LENGTH = range(13, 19);

  function detectScheme(digits) {
    return SCHEMES.find((scheme) => scheme.test(digits)) || null;
  }

  function luhnValid(digits) {
    let sum = 0;
    let double = false;
    for (let i = digits.length - 1; i >= 0; i -= 1) {
      let n = digits.charCodeAt(i) - 48;
      if (double) {
        n *= 2;
        if (n > 9) n -= 9;
      }
      sum += n;
      double = !double;
    }
    return sum % 10 === 0;
  }

  // Longest value the user may type; the number's limit depends on its scheme,
  // the security code's on the scheme relayed from the number frame.
  function maxDigitsFor(field, digits, relayedScheme) {
    if (field === 'number') {
      const scheme = detectScheme(digits);
      return scheme ? Math.max(...scheme.lengths) : 19;
    }
    if (field === 'expiry') return 4;
    return securityCodeLength(relayedScheme);
  }

  function securityCodeLength(schemeName) {
    return schemeName === 'amex' ? 4 : 3;
  }

  function validateNumber(digits) {
    const scheme = detectScheme(digits);
    const result = { valid: false, empty: digits.length === 0, scheme: scheme ? scheme.name : null, error: null };
    const lengths = scheme ? scheme.lengths : ANY_LENGTH;
    if (result.empty) {
      result.error = 'Enter a card number.';
    } else if (digits.length < Math.min(...lengths)) {
      result.error = 'The card number is incomplete.';
    } else if (!lengths.includes(digits.length) || !luhnValid(digits)) {
      result.error = 'The card number is not valid.';
    } else {
      result.valid = true;
    }
    return result;
  }

  function validateExpiry(digits, now = new Date()) {
    const result = { valid: false, empty: digits.length === 0, error: null };
    if (result.empty) {
      result.error = 'Enter an expiry date.';
      return result;
    }
    if (digits.length < 4) {
      result.error = 'Enter the expiry date as MM/YY.';
      return result;
    }
    const month = Number(digits.slice(0, 2));
    const year = 2000 + Number(digits.slice(2, 4));
    const thisYear = now.getFullYear();
    const thisMonth = now.getMonth() + 1;
    if (month < 1 || month > 12) {
      result.error = 'Enter a month between 01 and 12.';
    } else if (year < thisYear || (year === thisYear && month < thisMonth)) {
      result.error = 'This card has expired.';
    } else if (year > thisYear + 20) {
      result.error = 'The expiry date is too far in the future.';
    } else {
      result.valid = true;
    }
    return result;
  }

  function validateSecurityCode(digits, schemeName) {
    const needed = securityCodeLength(schemeName);
    const result = { valid: false, empty: digits.length === 0, error: null };
    if (result.empty) {
      result.error = 'Enter the security code.';
    } else if (digits.length !== needed) {
      result.error = `The security code must be ${needed} digits.`;
    } else {
      result.valid = true;
    }
    return result;
  }

  function validate(field, digits, schemeName) {
    if (field === 'number') return validateNumber(digits);
    if (field === 'expiry') return validateExpiry(digits);
    return validateSecurityCode(digits, schemeName);
  }

  // --- display formatting ----------------------------------------------------

  function formatNumber(digits) {
    const scheme = detectScheme(digits);
    const gaps = scheme && scheme.gaps ? scheme.gaps : [4, 8, 12, 16];
    let out = '';
    for (let i = 0; i < digits.length; i += 1) {
      if (gaps.includes(i)) out += ' ';
      out += digits[i];
    }
    return out;
  }

  // A leading 2-9 can only be a single-digit month, so it becomes 02-09.
  function normaliseExpiryDigits(digits) {
    return /^[2-9]/.test(digits) ? `0${digits}`.slice(0, 4) : digits;
  }

  // The slash is only added once the year starts, so deleting never gets stuck.
  function formatExpiry(digits) {
    return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
  }

  // ---------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------

  // Own copy of SecureFields.helpers.toOrigin: this document must not load or depend on merchant-page code.
  function toOrigin(value) {
    try {
      const origin = new URL(String(value)).origin;
      return origin && origin !== 'null' ? origin : null;
    } catch (_) {
      return null;
    }
  }

  function readChannel() {
    const params = new URLSearchParams(window.location.hash.slice(1));
    const channel = params.get('channel') || '';
    return /^[A-Za-z0-9-]{8,64}$/.test(channel) ? channel : null;
  }

  function clipText(value) {
    return typeof value === 'string' ? value.trim().slice(0, MAX_TEXT_LENGTH) : '';
  }

  function isRequestId(value) {
    return typeof value === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(value);
  }

  // Keep only plain strings from the API's error details.
  function cleanDetails(details) {
    if (!Array.isArray(details)) return [];
    return details.slice(0, 20).map((item) => {
      const out = {};
      ['location', 'pointer', 'message', 'type'].forEach((key) => {
        if (item && typeof item[key] === 'string') out[key] = item[key].slice(0, 300);
      });
      return out;
    });
  }

  // --- style: only a few text values, set as CSS custom properties ---------

  const STYLE_VARIABLES = {
    fontSize: '--sf-font-size',
    fontFamily: '--sf-font-family',
    fontWeight: '--sf-font-weight',
    color: '--sf-color',
    labelColor: '--sf-label-color',
    placeholderColor: '--sf-placeholder-color',
    backgroundColor: '--sf-background',
    borderColor: '--sf-border-color',
    borderRadius: '--sf-border-radius',
    focusColor: '--sf-focus-color',
    errorColor: '--sf-error-color',
  };
  const SAFE_STYLE_VALUE = /^[A-Za-z0-9#%.,()'" +-]{1,80}$/;
  const FORBIDDEN_STYLE = /(url|image|image-set|expression|var|attr|env)\s*\(/i;

  function sanitiseStyleValue(key, value) {
    let text = value;
    if (typeof value === 'number' && Number.isFinite(value)) {
      text = key === 'fontWeight' ? String(value) : `${value}px`;
    }
    if (typeof text !== 'string') return null;
    text = text.trim();
    if (!SAFE_STYLE_VALUE.test(text) || FORBIDDEN_STYLE.test(text)) return null;
    return text;
  }

  function applyStyle(style) {
    Object.keys(STYLE_VARIABLES).forEach((key) => {
      if (!Object.prototype.hasOwnProperty.call(style, key)) return;
      const value = sanitiseStyleValue(key, style[key]);
      const variable = STYLE_VARIABLES[key];
      if (value) document.documentElement.style.setProperty(variable, value);
      else document.documentElement.style.removeProperty(variable);
    });
  }

  // ---------------------------------------------------------------------------
  // Frame set-up
  // ---------------------------------------------------------------------------

  const root = document.getElementById('sf-root');
  const input = document.getElementById('sf-input');
  const labelEl = document.getElementById('sf-label');
  const errorEl = document.getElementById('sf-error');

  const FIELD = root ? root.dataset.field : null;
  const SESSION_ID = root ? root.dataset.sessionId || '' : '';
  const PARENT_ORIGIN = root ? toOrigin(root.dataset.parentOrigin) : null;
  const OWN_ORIGIN = window.location.origin;
  const CHANNEL = readChannel();

  function frameName(field) {
    return `gr4vy-sf-${CHANNEL}-${field}`;
  }

  // The browser tells us who embeds us where it can; refuse a mismatch with
  // the parent_origin we were given. CSP frame-ancestors is the main control,
  // this only adds a second check.
  function embeddedByExpectedParent() {
    if (window.parent === window) return false;
    const ancestors = window.location.ancestorOrigins;
    if (ancestors && ancestors.length > 0 && ancestors[0] !== 'null') {
      return ancestors[0] === PARENT_ORIGIN;
    }
    return true;
  }

  function disableFrame(message) {
    if (input) {
      input.disabled = true;
      input.setAttribute('aria-invalid', 'true');
    }
    if (errorEl) errorEl.textContent = message;
  }

  if (!root || !input || !labelEl || !errorEl) return;
  if (!FIELD_NAMES.includes(FIELD) || !PARENT_ORIGIN || !CHANNEL || !embeddedByExpectedParent()) {
    disableFrame('This field could not be loaded.');
    return;
  }

  const state = {
    digits: '',
    touched: false,
    // The security-code frame learns the scheme from the parent page.
    relayedScheme: null,
    lastReport: '',
    lastHeight: 0,
  };

  function toParent(type, payload = {}) {
    window.parent.postMessage(
      Object.assign({ type: NS + type, channel: CHANNEL, field: FIELD }, payload),
      PARENT_ORIGIN,
    );
  }

  function currentScheme() {
    if (FIELD === 'number') {
      const scheme = detectScheme(state.digits);
      return scheme ? scheme.name : null;
    }
    return state.relayedScheme;
  }

  // Validate, update the visible error and tell the parent if anything the
  // parent is allowed to know has changed.
  function refresh() {
    const result = validate(FIELD, state.digits, currentScheme());
    const shownError = state.touched && !result.valid ? result.error : null;

    errorEl.textContent = shownError || '';
    input.setAttribute('aria-invalid', shownError ? 'true' : 'false');

    const report = {
      valid: result.valid,
      empty: result.empty,
      scheme: FIELD === 'number' ? result.scheme : null,
      last4: FIELD === 'number' && result.valid ? state.digits.slice(-4) : null,
      error: shownError,
    };
    const serialised = JSON.stringify(report);
    if (serialised !== state.lastReport) {
      state.lastReport = serialised;
      toParent('change', report);
    }
    return result;
  }

  function reportHeight() {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height > 0 && height !== state.lastHeight) {
      state.lastHeight = height;
      toParent('resize', { height });
    }
  }

  // --- typing -----------------------------------------------------------------

  function cleanDigits(raw) {
    let digits = raw.replace(/\D/g, '');
    if (FIELD === 'expiry') digits = normaliseExpiryDigits(digits);
    return digits.slice(0, maxDigitsFor(FIELD, digits, state.relayedScheme));
  }

  function display(digits) {
    if (FIELD === 'number') return formatNumber(digits);
    if (FIELD === 'expiry') return formatExpiry(digits);
    return digits;
  }

  // Reformat the input and keep the caret after the same number of digits.
  function onInput() {
    const raw = input.value;
    const caret = input.selectionStart === null ? raw.length : input.selectionStart;
    const caretAtEnd = caret >= raw.length;
    const digitsBeforeCaret = raw.slice(0, caret).replace(/\D/g, '').length;

    state.digits = cleanDigits(raw);
    const shown = display(state.digits);
    input.value = shown;

    if (document.activeElement === input) {
      let position = shown.length;
      if (!caretAtEnd) {
        position = 0;
        let seen = 0;
        while (position < shown.length && seen < digitsBeforeCaret) {
          if (/\d/.test(shown[position])) seen += 1;
          position += 1;
        }
      }
      input.setSelectionRange(position, position);
    }
    refresh();
  }

  // Backspace/Delete next to a separator would otherwise remove only the
  // separator, which formatting puts straight back. Step over it instead.
  function onKeyDown(event) {
    // Enter submits, as in any form: the page decides what submitting means (no card data travels with it).
    if (event.key === 'Enter') {
      event.preventDefault();
      toParent('submit');
      return;
    }
    if (event.key !== 'Backspace' && event.key !== 'Delete') return;
    const start = input.selectionStart;
    if (start === null || start !== input.selectionEnd) return;
    const value = input.value;
    if (event.key === 'Backspace' && start > 0 && /\D/.test(value[start - 1])) {
      input.setSelectionRange(start - 1, start - 1);
    } else if (event.key === 'Delete' && start < value.length && /\D/.test(value[start])) {
      input.setSelectionRange(start + 1, start + 1);
    }
  }

  function onBlur() {
    // Tabbing through an empty field should not shout at the user.
    if (state.digits) state.touched = true;
    refresh();
    toParent('blur');
  }

  // ---------------------------------------------------------------------------
  // Commands from the merchant page (non-sensitive only)
  // ---------------------------------------------------------------------------

  function applyConfig(message) {
    const label = clipText(message.label);
    if (label) labelEl.textContent = label;
    if (typeof message.placeholder === 'string') input.placeholder = clipText(message.placeholder);
    if (message.style && typeof message.style === 'object') applyStyle(message.style);
    reportHeight();
  }

  function handleParentCommand(message) {
    switch (message.type) {
      case `${NS}config`:
        applyConfig(message);
        break;
      case `${NS}scheme`:
        if (FIELD === 'security_code') {
          // Re-validate only: silently cutting a typed digit could hide a
          // wrong code, so a too-long code is reported as invalid instead.
          state.relayedScheme = SCHEME_NAMES.includes(message.scheme) ? message.scheme : null;
          refresh();
        }
        break;
      case `${NS}touch`:
        state.touched = true;
        refresh();
        break;
      case `${NS}focus`:
        input.focus();
        break;
      case `${NS}clear`:
        // After a decline: the buyer starts again from empty fields, not from the refused card.
        state.digits = '';
        state.touched = false;
        input.value = '';
        refresh();
        break;
      case `${NS}submit`:
        if (FIELD === 'number' && isRequestId(message.requestId)) {
          collectAndStore(message.requestId, message.fields);
        }
        break;
      default:
        break;
    }
  }

  // ---------------------------------------------------------------------------
  // Frame-to-frame messages (same origin only; these carry card values)
  // ---------------------------------------------------------------------------

  // Find a sibling Secure Fields frame of this instance. Cross-origin frames
  // throw when their name is read and are skipped, so only frames from our
  // own origin can match.
  function findSibling(field) {
    const wanted = frameName(field);
    const frames = window.parent.frames;
    for (let i = 0; i < frames.length; i += 1) {
      const candidate = frames[i];
      if (candidate === window) continue;
      try {
        if (candidate.name === wanted && candidate.location.origin === OWN_ORIGIN) return candidate;
      } catch (_) {
        // Not our origin.
      }
    }
    return null;
  }

  function isSiblingFrame(source, field) {
    try {
      return source !== window && source.parent === window.parent && source.name === frameName(field);
    } catch (_) {
      return false;
    }
  }

  const pendingCollects = new Map();

  function handleSiblingMessage(message, source) {
    if (message.type === `${NS}collect` && FIELD !== 'number' && isSiblingFrame(source, 'number')) {
      if (!isRequestId(message.requestId)) return;
      state.touched = true;
      refresh();
      // targetOrigin is our own origin: the value can only reach a frame
      // that is still the API origin's.
      source.postMessage(
        { type: `${NS}value`, channel: CHANNEL, field: FIELD, requestId: message.requestId, value: state.digits },
        OWN_ORIGIN,
      );
      return;
    }
    if (message.type === `${NS}value` && FIELD === 'number' && FIELD_NAMES.includes(message.field)) {
      if (!isSiblingFrame(source, message.field)) return;
      const key = `${message.requestId}:${message.field}`;
      const resolve = pendingCollects.get(key);
      if (resolve && typeof message.value === 'string') {
        pendingCollects.delete(key);
        resolve(message.value.replace(/\D/g, ''));
      }
    }
  }

  function collectFrom(field, requestId) {
    const sibling = findSibling(field);
    if (!sibling) return Promise.resolve(null);
    return new Promise((resolve) => {
      const key = `${requestId}:${field}`;
      const timer = setTimeout(() => {
        pendingCollects.delete(key);
        resolve(null);
      }, COLLECT_TIMEOUT_MS);
      pendingCollects.set(key, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      sibling.postMessage({ type: `${NS}collect`, channel: CHANNEL, requestId }, OWN_ORIGIN);
    });
  }

  // ---------------------------------------------------------------------------
  // Storing the card (card-number frame only)
  // ---------------------------------------------------------------------------

  function fieldFailure(code, message, fields) {
    return {
      ok: false,
      status: 0,
      code,
      message,
      details: fields.map((item) => ({
        location: 'body',
        pointer: POINTERS[item.field],
        field: item.field,
        message: item.message,
        type: code,
      })),
      retryAfter: null,
    };
  }

  // Re-validate everything here rather than trusting what the other frames or
  // the parent reported; the scheme comes from our own number.
  async function gatherValues(requestId, wanted) {
    state.touched = true;
    const numberResult = refresh();
    const scheme = numberResult.scheme;
    const values = { number: state.digits };
    const missing = [];
    const invalid = [];

    if (!numberResult.valid) invalid.push({ field: 'number', message: numberResult.error });

    const others = FIELD_NAMES.filter((f) => f !== 'number' && wanted.includes(f));
    const collected = await Promise.all(others.map((f) => collectFrom(f, requestId)));
    others.forEach((field, index) => {
      const value = collected[index];
      if (value === null) {
        missing.push({ field, message: 'This field is not available.' });
        return;
      }
      const result = validate(field, value, scheme);
      if (!result.valid) invalid.push({ field, message: result.error });
      values[field] = value;
    });
    return { values, missing, invalid };
  }

  function buildBody(values) {
    const method = { method: 'card', number: values.number };
    if (values.expiry) method.expiration_date = formatExpiry(values.expiry);
    if (values.security_code) method.security_code = values.security_code;
    return { payment_method: method };
  }

  async function describeFailure(response) {
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    const body = data && typeof data === 'object' ? data : {};
    return {
      ok: false,
      status: response.status,
      code: typeof body.code === 'string' ? body.code : `http_${response.status}`,
      message: typeof body.message === 'string' ? body.message : `Request failed with status ${response.status}.`,
      details: cleanDetails(body.details),
      // Passed on as text; secure-fields.js turns it into seconds.
      retryAfter: clipText(response.headers.get('Retry-After')) || null,
    };
  }

  async function storeCard(requestId, wanted) {
    const { values, missing, invalid } = await gatherValues(requestId, wanted);
    if (missing.length) return fieldFailure('field_unavailable', 'A card field is not available.', missing);
    if (invalid.length) return fieldFailure('invalid_fields', 'Some card details are not valid.', invalid);

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), STORE_TIMEOUT_MS);
    try {
      // Same-origin request: no CORS and no cookies are involved.
      const response = await fetch(
        `${OWN_ORIGIN}/checkout/sessions/${encodeURIComponent(SESSION_ID)}/fields`,
        {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify(buildBody(values)),
          credentials: 'omit',
          cache: 'no-store',
          signal: controller.signal,
        },
      );
      if (response.ok) return { ok: true };
      return await describeFailure(response);
    } catch (error) {
      const timedOut = error && error.name === 'AbortError';
      return {
        ok: false,
        status: 0,
        code: timedOut ? 'timeout' : 'network_error',
        message: timedOut ? 'The request timed out.' : 'The payment service could not be reached.',
        details: [],
        retryAfter: null,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function collectAndStore(requestId, fields) {
    const wanted = Array.isArray(fields) ? fields.filter((f) => FIELD_NAMES.includes(f)) : FIELD_NAMES;
    const result = await storeCard(requestId, wanted);
    toParent('result', Object.assign({ requestId }, result));
  }

  // ---------------------------------------------------------------------------
  // Wiring
  // ---------------------------------------------------------------------------

  function isOurMessage(message) {
    return (
      message !== null &&
      typeof message === 'object' &&
      typeof message.type === 'string' &&
      message.type.startsWith(NS) &&
      message.channel === CHANNEL
    );
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!isOurMessage(message)) return;
    // Commands: only from the page that embeds us, at the origin we were told.
    if (event.source === window.parent) {
      if (event.origin === PARENT_ORIGIN) handleParentCommand(message);
      return;
    }
    // Card values: only from sibling frames of our own origin.
    if (event.origin === OWN_ORIGIN) handleSiblingMessage(message, event.source);
  });

  input.addEventListener('input', onInput);
  input.addEventListener('keydown', onKeyDown);
  input.addEventListener('blur', onBlur);
  input.addEventListener('focus', () => toParent('focus'));

  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(reportHeight).observe(root);
  } else {
    window.addEventListener('resize', reportHeight);
  }

  toParent('ready');
  refresh();
  reportHeight();
})();
