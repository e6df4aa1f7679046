// Each cell of a list carries its column's name, so that on a phone a row reads as labelled lines
// (desk-lists.css) instead of a table wider than the screen.
//
// A run of TOKEN_LENGTH or more characters without a space is a token (an id, a URL, a thumbprint, an email address):
// it alone is wrapped in a `desk-token` span, which may break at any character. Words are never broken, so the
// table's columns are never squeezed narrower than their longest word ("Settle|ment" under a long URL's column).
"use strict";
const TOKEN_LENGTH = 16;
const TOKEN = new RegExp(`(\\S{${TOKEN_LENGTH},})`);

function markTokens(cell) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    texts.push(node);
  }
  texts.forEach((node) => {
    const parts = node.data.split(TOKEN); // odd parts are the tokens
    if (parts.length === 1) {
      return;
    }
    const fragment = document.createDocumentFragment();
    parts.forEach((part, index) => {
      if (index % 2 === 1) {
        const token = document.createElement("span");
        token.className = "desk-token";
        token.textContent = part;
        fragment.append(token);
      } else if (part) {
        fragment.append(part);
      }
    });
    node.replaceWith(fragment);
  });
}

document.querySelectorAll("#result_list").forEach((table) => {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  table.querySelectorAll("tbody tr").forEach((row) => {
    [...row.children].forEach((cell, column) => {
      if (heads[column]) {
        cell.dataset.label = heads[column];
      }
      markTokens(cell);
    });
  });
});
