// Each cell of a list carries its column's name, so that on a phone a row reads as labelled lines
// (desk-lists.css) instead of a table wider than the screen.
"use strict";
document.querySelectorAll("#result_list").forEach((table) => {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  table.querySelectorAll("tbody tr").forEach((row) => {
    [...row.children].forEach((cell, column) => {
      if (heads[column]) {
        cell.dataset.label = heads[column];
      }
    });
  });
});
