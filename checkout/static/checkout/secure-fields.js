/*
 * Secure Fields: the merchant-page side.
 *
 * Usage:
 *   const sf = new SecureFields({ sessionId });
 *   sf.addCardNumberField('#card-number');
 *   sf.addExpiryDateField('#expiry');
 *   sf.addSecurityCodeField('#cvv');
 *   sf.on('change', ({ field, valid, empty, scheme, last4, error }) => { ... });
 *   await sf.submit();
 *
 * Every input is an iframe served from the API origin. This page never sees
 * the card data: it only receives validity, scheme, last four digits (once
 * valid) and error text. On submit, the card-number frame gathers the values
 * from its sibling frames and stores them in the checkout session itself.
 */
(function (global) {
  'use strict';

  if (global.SecureFields) return;

  const NS = 'gr4vy-sf:';
  const FRAME_PATH = '/checkout/secure-fields/frame/';
  const SUBMIT_TIMEOUT_MS = 45000;
  const MIN_FRAME_HEIGHT = 40;
  const MAX_FRAME_HEIGHT = 400;

  const FIELD_DEFAULTS = {
    number: { label: 'Card number', title: 'Secure card number input' },
    expiry: { label: 'Expiry date (MM/YY)', title: 'Secure expiry date input' },
    security_code: { label: 'Security code', title: 'Secure security code input' },
  };
  const FIELD_ORDER = ['number', 'expiry', 'security_code'];
  const POINTERS = {
    number: '/payment_method/number',
    expiry: '/payment_method/expiration_date',
    security_code: '/payment_method/security_code',
  };
  const EVENTS = ['change', 'ready', 'focus', 'blur', 'submit'];

  // Captured while this script runs; document.currentScript is null later.
  const SCRIPT_ORIGIN = (() => {
    const script = document.currentScript || document.querySelector('script[src*="secure-fields.js"]');
    try {
      return script ? new URL(script.src, window.location.href).origin : null;
    } catch (_) {
      return null;
    }
  })();

  // --- helpers shared with embed.js as SecureFields.helpers ------------------
  // The card-field frames keep their own copy of what they need: they must not
  // depend on this merchant-page file (see docs/frontend.md).

  /** `scheme://host[:port]` of a URL, or null for anything without a real origin. */
  function toOrigin(value) {
    try {
      const origin = new URL(String(value)).origin;
      return origin && origin !== 'null' ? origin : null;
    } catch (_) {
      return null;
    }
  }

  /** A random version 4 UUID (channels, request ids, idempotency keys). */
  function randomId() {
    if (global.crypto && typeof global.crypto.randomUUID === 'function') return global.crypto.randomUUID();
    // randomUUID exists only in secure contexts; getRandomValues everywhere.
    const bytes = global.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** Seconds to wait from a Retry-After header value (seconds or HTTP date), or null. */
  function parseRetryAfter(header) {
    if (typeof header !== 'string' || !header) return null;
    const text = header.trim();
    if (/^\d+$/.test(text)) return Number(text);
    const when = Date.parse(text);
    return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
  }

  const HELPERS = Object.freeze({ toOrigin, randomId, parseRetryAfter });

  // --- private helpers ----------------------------------------------------------

  function resolveElement(target) {
    const element = typeof target === 'string' ? document.querySelector(target) : target;
    if (!element || typeof element.appendChild !== 'function') {
      throw new TypeError(`SecureFields: container not found: ${String(target)}`);
    }
    return element;
  }

  function textOption(value) {
    return typeof value === 'string' ? value.slice(0, 120) : undefined;
  }

  // Only plain string/number values go to the frames; the frames sanitise
  // them again because they cannot trust this page.
  function plainStyle(style) {
    const out = {};
    if (!style || typeof style !== 'object') return out;
    Object.keys(style).forEach((key) => {
      const value = style[key];
      if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) out[key] = value;
    });
    return out;
  }

  function emptyFieldState(field) {
    return { field, valid: false, empty: true, scheme: null, last4: null, error: null };
  }

  class SecureFieldsError extends Error {
    constructor(message, { status = 0, code = 'error', details = [], retryAfter = null } = {}) {
      super(message);
      this.name = 'SecureFieldsError';
      this.status = status;
      this.code = code;
      this.details = details;
      this.retryAfter = retryAfter;
    }
  }

  class SecureFields {
    constructor({ sessionId, apiOrigin, style } = {}) {
      if (typeof sessionId !== 'string' || !sessionId) {
        throw new TypeError('SecureFields: sessionId is required.');
      }
      const origin = toOrigin(apiOrigin || SCRIPT_ORIGIN);
      if (!origin) throw new TypeError('SecureFields: apiOrigin could not be determined.');
      if (!window.location.origin || window.location.origin === 'null') {
        throw new TypeError('SecureFields: the page must be served over http(s).');
      }

      this.sessionId = sessionId;
      this.apiOrigin = origin;
      this._channel = randomId();
      this._style = plainStyle(style);
      this._fields = new Map();
      this._listeners = new Map(EVENTS.map((name) => [name, new Set()]));
      this._pending = new Map();
      this._submitting = null;
      this._destroyed = false;
      this._onMessage = this._onMessage.bind(this);
      window.addEventListener('message', this._onMessage);
    }

    // --- public API -----------------------------------------------------------

    addCardNumberField(target, options) {
      return this._addField('number', target, options);
    }

    addExpiryDateField(target, options) {
      return this._addField('expiry', target, options);
    }

    addSecurityCodeField(target, options) {
      return this._addField('security_code', target, options);
    }

    on(event, handler) {
      if (!this._listeners.has(event)) throw new TypeError(`SecureFields: unknown event "${event}".`);
      if (typeof handler !== 'function') throw new TypeError('SecureFields: handler must be a function.');
      this._listeners.get(event).add(handler);
      return this;
    }

    off(event, handler) {
      if (this._listeners.has(event)) this._listeners.get(event).delete(handler);
      return this;
    }

    /** Latest non-sensitive state of every added field, keyed by field name. */
    getState() {
      const out = {};
      this._fields.forEach((entry, field) => {
        out[field] = Object.assign({}, entry.state);
      });
      return out;
    }

    /** True once every added field has reported a valid value. */
    isValid() {
      if (this._fields.size === 0) return false;
      for (const entry of this._fields.values()) {
        if (!entry.state.valid) return false;
      }
      return true;
    }

    /** True once every added frame has loaded. */
    isReady() {
      if (this._fields.size === 0) return false;
      for (const entry of this._fields.values()) {
        if (!entry.ready) return false;
      }
      return true;
    }

    /** Ask every frame to show its validation message (as after a submit). */
    showErrors() {
      this._fields.forEach((entry) => this._post(entry, 'touch'));
    }

    /** Empty every field (what the buyer typed is dropped in the frames; the page never had it). */
    clear() {
      this._fields.forEach((entry) => this._post(entry, 'clear'));
    }

    focus(field) {
      const entry = this._fields.get(field);
      if (!entry) return;
      entry.iframe.focus();
      this._post(entry, 'focus');
    }

    /**
     * Store the card in the checkout session. Resolves {} on success; rejects
     * with a SecureFieldsError carrying status, code, details and retryAfter.
     * Concurrent calls share the request in flight.
     */
    submit() {
      if (!this._submitting) {
        this._submitting = this._submit().finally(() => {
          this._submitting = null;
        });
      }
      return this._submitting;
    }

    destroy() {
      if (this._destroyed) return;
      this._destroyed = true;
      window.removeEventListener('message', this._onMessage);
      this._pending.forEach(({ reject, timer }) => {
        clearTimeout(timer);
        reject(new SecureFieldsError('Secure Fields was destroyed.', { code: 'destroyed' }));
      });
      this._pending.clear();
      this._fields.forEach((entry) => entry.iframe.remove());
      this._fields.clear();
      this._listeners.forEach((set) => set.clear());
    }

    // --- fields -------------------------------------------------------------

    _frameUrl(field) {
      const url = new URL(FRAME_PATH, this.apiOrigin);
      url.searchParams.set('field', field);
      url.searchParams.set('session_id', this.sessionId);
      url.searchParams.set('parent_origin', window.location.origin);
      // The channel travels in the fragment: the frame reads it, the server
      // never needs it.
      url.hash = `channel=${this._channel}`;
      return url.toString();
    }

    _addField(field, target, options = {}) {
      if (this._destroyed) throw new Error('SecureFields: instance was destroyed.');
      if (this._fields.has(field)) throw new Error(`SecureFields: the ${field} field was already added.`);
      const container = resolveElement(target);
      const defaults = FIELD_DEFAULTS[field];

      const iframe = document.createElement('iframe');
      iframe.name = `gr4vy-sf-${this._channel}-${field}`;
      iframe.title = textOption(options.title) || defaults.title;
      iframe.className = 'gr4vy-sf-frame';
      iframe.setAttribute('scrolling', 'no');
      iframe.setAttribute('data-field', field);
      iframe.style.display = 'block';
      iframe.style.width = '100%';
      iframe.style.border = '0';
      iframe.style.height = '86px';
      iframe.src = this._frameUrl(field);

      const entry = {
        field,
        iframe,
        ready: false,
        queue: [],
        state: emptyFieldState(field),
        config: {
          label: textOption(options.label) || defaults.label,
          placeholder: textOption(options.placeholder) || '',
          style: Object.assign({}, this._style, plainStyle(options.style)),
        },
      };
      this._fields.set(field, entry);
      container.appendChild(iframe);
      return { field, iframe, focus: () => this.focus(field) };
    }

    // Messages sent before a frame has loaded would go to about:blank and be
    // dropped by the targetOrigin check, so they wait for its ready message.
    _post(entry, type, payload = {}) {
      const message = Object.assign({ type: NS + type, channel: this._channel }, payload);
      if (!entry.ready || !entry.iframe.contentWindow) {
        entry.queue.push(message);
        return;
      }
      entry.iframe.contentWindow.postMessage(message, this.apiOrigin);
    }

    _relayScheme() {
      const number = this._fields.get('number');
      const code = this._fields.get('security_code');
      if (number && code) this._post(code, 'scheme', { scheme: number.state.scheme });
    }

    // --- incoming messages -----------------------------------------------------

    _onMessage(event) {
      if (event.origin !== this.apiOrigin) return;
      const message = event.data;
      if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
      if (!message.type.startsWith(NS) || message.channel !== this._channel) return;
      const entry = this._fields.get(message.field);
      if (!entry || event.source !== entry.iframe.contentWindow) return;

      switch (message.type.slice(NS.length)) {
        case 'ready':
          this._onReady(entry);
          break;
        case 'change':
          this._onChange(entry, message);
          break;
        case 'resize':
          this._onResize(entry, message);
          break;
        case 'focus':
        case 'blur':
        case 'submit':
          this._emit(message.type.slice(NS.length), { field: entry.field });
          break;
        case 'result':
          if (entry.field === 'number') this._onResult(message);
          break;
        default:
          break;
      }
    }

    _onReady(entry) {
      const queued = entry.queue;
      entry.ready = true;
      entry.queue = [];
      // A reloaded frame starts blank; the config is sent every time.
      this._post(entry, 'config', entry.config);
      if (entry.field === 'security_code') this._relayScheme();
      queued.forEach((message) => entry.iframe.contentWindow.postMessage(message, this.apiOrigin));
      this._emit('ready', { field: entry.field });
    }

    _onChange(entry, message) {
      const previousScheme = entry.state.scheme;
      const isNumber = entry.field === 'number';
      entry.state = {
        field: entry.field,
        valid: message.valid === true,
        empty: message.empty === true,
        scheme: isNumber && typeof message.scheme === 'string' ? message.scheme : null,
        last4:
          isNumber && message.valid === true && /^\d{4}$/.test(String(message.last4)) ? String(message.last4) : null,
        error: typeof message.error === 'string' ? message.error.slice(0, 200) : null,
      };
      if (isNumber && entry.state.scheme !== previousScheme) this._relayScheme();
      this._emit('change', Object.assign({}, entry.state));
    }

    _onResize(entry, message) {
      const height = Number(message.height);
      // Hidden frames report nothing useful; keep the last real height.
      if (!Number.isFinite(height) || height < 1) return;
      const clamped = Math.min(MAX_FRAME_HEIGHT, Math.max(MIN_FRAME_HEIGHT, Math.ceil(height)));
      entry.iframe.style.height = `${clamped}px`;
    }

    _onResult(message) {
      const pending = this._pending.get(message.requestId);
      if (!pending) return;
      this._pending.delete(message.requestId);
      clearTimeout(pending.timer);
      if (message.ok === true) {
        pending.resolve({});
        return;
      }
      pending.reject(
        new SecureFieldsError(typeof message.message === 'string' ? message.message : 'The card could not be saved.', {
          status: Number.isInteger(message.status) ? message.status : 0,
          code: typeof message.code === 'string' ? message.code : 'error',
          details: Array.isArray(message.details) ? message.details : [],
          // The frame passes the Retry-After header text on; it is parsed here.
          retryAfter: parseRetryAfter(message.retryAfter),
        }),
      );
    }

    _emit(event, payload) {
      this._listeners.get(event).forEach((handler) => {
        try {
          handler(payload);
        } catch (error) {
          // One failing handler must not stop the others; surface it anyway.
          setTimeout(() => {
            throw error;
          });
        }
      });
    }

    // --- submit --------------------------------------------------------------

    async _submit() {
      if (this._destroyed) throw new SecureFieldsError('Secure Fields was destroyed.', { code: 'destroyed' });
      const number = this._fields.get('number');
      if (!number) {
        throw new SecureFieldsError('Add a card number field before submitting.', { code: 'missing_field' });
      }
      if (!this.isReady()) {
        throw new SecureFieldsError('The card fields are still loading.', { code: 'not_ready' });
      }

      this.showErrors();
      const invalid = FIELD_ORDER.filter((field) => this._fields.has(field) && !this._fields.get(field).state.valid);
      if (invalid.length) {
        throw new SecureFieldsError('Some card details are not valid.', {
          code: 'invalid_fields',
          details: invalid.map((field) => ({
            location: 'body',
            pointer: POINTERS[field],
            field,
            message: this._fields.get(field).state.error || 'This field is not valid.',
            type: 'invalid_fields',
          })),
        });
      }

      const requestId = randomId();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this._pending.delete(requestId);
          reject(new SecureFieldsError('Saving the card timed out.', { code: 'timeout' }));
        }, SUBMIT_TIMEOUT_MS);
        this._pending.set(requestId, { resolve, reject, timer });
        this._post(number, 'submit', { requestId, fields: Array.from(this._fields.keys()) });
      });
    }
  }

  SecureFields.Error = SecureFieldsError;
  SecureFields.scriptOrigin = SCRIPT_ORIGIN;
  SecureFields.helpers = HELPERS;
  global.SecureFields = SecureFields;
})(window);
