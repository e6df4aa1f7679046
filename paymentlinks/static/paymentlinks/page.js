// The link's amounts in the buyer's locale: the server wrote them as Embed does (en-US); the browser's own
// Intl.NumberFormat rewrites each in the locale the link names. A locale the browser does not know keeps the text.
(function () {
  'use strict';
  const root = document.documentElement;
  const locale = root.getAttribute('lang') || 'en';
  for (const element of document.querySelectorAll('[data-amount]')) {
    try {
      const format = new Intl.NumberFormat(locale, { style: 'currency', currency: element.dataset.currency });
      element.textContent = format.format(Number(element.dataset.amount));
    } catch (error) {
      // An unknown locale or currency: the server's text stays.
    }
  }
})();
