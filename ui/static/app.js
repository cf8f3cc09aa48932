// Progressive enhancement for the review pages: every page works without it.
"use strict";
(function () {
  // Copy a citation to the clipboard.
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.copy");
    if (!b) return;
    var text = b.getAttribute("data-copy") || "";
    var done = function () { b.textContent = "Copied"; setTimeout(function () { b.textContent = "Copy citation"; }, 1500); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { select(b); });
    } else {
      select(b);
    }
  });
  function select(b) {
    var c = document.getElementById("citation");
    if (!c) return;
    var r = document.createRange(); r.selectNodeContents(c);
    var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  // Keyboard: j/k move through the rows of a table, Enter opens the row's link,
  // / focuses the first search box.
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    if (ev.key === "/") {
      var s = document.querySelector("input[type=search]");
      if (s) { ev.preventDefault(); s.focus(); }
      return;
    }
    if (ev.key !== "j" && ev.key !== "k" && ev.key !== "Enter") return;
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.rows tbody tr"));
    if (!rows.length) return;
    var i = rows.findIndex(function (r) { return r.classList.contains("sel"); });
    if (ev.key === "Enter") {
      if (i < 0) return;
      var a = rows[i].querySelector("a");
      if (a) { ev.preventDefault(); a.click(); }
      return;
    }
    if (i >= 0) rows[i].classList.remove("sel");
    i = ev.key === "j" ? Math.min(rows.length - 1, i + 1) : Math.max(0, i - 1);
    rows[i].classList.add("sel");
    rows[i].scrollIntoView({ block: "nearest" });
  });
  // Graph: an edge opens its evidence card and keeps the edge highlighted.
  document.addEventListener("click", function (ev) {
    var e = ev.target.closest && ev.target.closest("a.edge");
    if (!e) return;
    document.querySelectorAll("a.edge.sel").forEach(function (x) { x.classList.remove("sel"); });
    e.classList.add("sel");
    var card = document.querySelector(e.getAttribute("href"));
    if (card) setTimeout(function () { card.focus({ preventScroll: false }); }, 0);
  });
})();
