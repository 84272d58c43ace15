/* Table notices (issue #8). The server pushes #table-notices children (public table news,
   one span per language); this keeps the span of the page's language and fades each notice
   out. "Your turn" is noticed here from the player's own controls (data-my-turn), next to the
   tab-title cue of table.js: it never needs anything another seat could not see. */
(function () {
  "use strict";
  var LIFE_MS = 7000;
  var TURN_LIFE_MS = 2500;
  var lang = (document.documentElement.lang || "").toLowerCase();
  var wasMine = null;

  function settle(toast) {
    if (toast.dataset.settled) return;
    var life = toast.classList.contains("turn") ? TURN_LIFE_MS : LIFE_MS;
    toast.dataset.settled = "1";
    var spans = toast.querySelectorAll("[data-lang]");
    var keep = null;
    spans.forEach(function (s) { if (s.dataset.lang.toLowerCase() === lang) keep = s; });
    if (!keep && spans.length) keep = spans[spans.length - 1];
    spans.forEach(function (s) { if (s !== keep) s.remove(); });
    if (keep) keep.style.display = "inline";
    setTimeout(function () { toast.classList.add("fade"); }, life);
    setTimeout(function () { toast.remove(); }, life + 600);
  }

  function turnCue() {
    var root = document.getElementById("table-root");
    var controls = document.getElementById("table-controls");
    var box = document.getElementById("table-notices");
    if (!root || !controls || !box) return;
    var mine = controls.dataset.myTurn === "1";
    if (mine !== wasMine) {
      // one "your turn" notice at a time, and none once the turn has passed (or the hand ended)
      box.querySelectorAll(".notice-toast.turn").forEach(function (old) { old.remove(); });
    }
    if (mine && wasMine === false) {
      var p = document.createElement("p");
      p.className = "notice-toast turn";
      p.setAttribute("role", "status");
      var span = document.createElement("span");
      span.setAttribute("data-lang", lang);
      span.textContent = root.dataset.turnText || "";
      p.appendChild(span);
      box.appendChild(p);
      settle(p);
    }
    wasMine = mine;
  }

  function scan() {
    var box = document.getElementById("table-notices");
    if (box) box.querySelectorAll(".notice-toast").forEach(settle);
    turnCue();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("table-root");
    if (!root) return;
    new MutationObserver(scan).observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-my-turn"] });
    scan();
  });
})();
