/* The first-hand guide (templates/club/guide.html): one coach mark at a time, the box placed
   beside the part of the table it explains (centred when that part is not on screen now).
   It opens by itself once per account, when his first hand is dealt: the server is told when
   it has been shown. */
(function () {
  "use strict";
  var guide, steps, index = 0, spot = null;

  function csrfHeaders() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}"); }
    catch (e) { return {}; }
  }

  function visible(el) {
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  function targetOf(step) {
    var found = null;
    (step.dataset.target || "").split(",").some(function (sel) {
      var el = document.querySelector(sel.trim());
      if (el && visible(el)) { found = el; return true; }
      return false;
    });
    return found;
  }

  function place(box, target) {
    box.style.top = box.style.left = box.style.bottom = "";
    box.classList.toggle("centred", !target);
    if (!target) return;
    target.scrollIntoView({ block: "nearest", inline: "nearest" });
    var r = target.getBoundingClientRect(), h = box.offsetHeight, w = box.offsetWidth;
    var vw = document.documentElement.clientWidth, vh = window.innerHeight, gap = 10;
    var top = r.bottom + gap + h <= vh ? r.bottom + gap : Math.max(gap, r.top - gap - h);
    var left = Math.min(Math.max(gap, r.left + r.width / 2 - w / 2), vw - w - gap);
    box.style.top = top + "px";
    box.style.left = Math.max(gap, left) + "px";
  }

  function show(i) {
    index = Math.max(0, Math.min(i, steps.length - 1));
    if (spot) spot.classList.remove("guide-spot");
    steps.forEach(function (s, n) { s.hidden = n !== index; });
    spot = targetOf(steps[index]);
    if (spot) spot.classList.add("guide-spot");
    guide.querySelector(".guide-count").textContent = (index + 1) + " / " + steps.length;
    guide.querySelector('[data-guide="back"]').disabled = index === 0;
    var next = guide.querySelector('[data-guide="next"]');
    next.textContent = index === steps.length - 1 ? next.dataset.last : next.dataset.next;
    place(guide.querySelector(".guide-box"), spot);
  }

  function open() {
    guide.hidden = false;
    show(0);
    guide.querySelector('[data-guide="next"]').focus();
  }

  function close() {
    guide.hidden = true;
    if (spot) spot.classList.remove("guide-spot");
    spot = null;
  }

  function markSeen() {
    var url = guide.dataset.seenUrl;
    if (!url) return;
    fetch(url, { method: "POST", headers: csrfHeaders(), credentials: "same-origin" });
  }

  document.addEventListener("DOMContentLoaded", function () {
    guide = document.getElementById("table-guide");
    if (!guide) return;
    steps = Array.prototype.slice.call(guide.querySelectorAll(".guide-steps li"));
    guide.addEventListener("click", function (event) {
      var action = event.target.closest("[data-guide]");
      if (!action) return;
      var what = action.dataset.guide;
      if (what === "close" || (what === "next" && index === steps.length - 1)) close();
      else show(index + (what === "next" ? 1 : -1));
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !guide.hidden) close();
    });
    document.addEventListener("click", function (event) {
      if (event.target.closest("[data-guide-open]")) open();
    });
    if (guide.dataset.auto !== "1") return;
    // the first hand: the guide opens once the player's cards are on the table (a push)
    var dealt = function () {
      if (!document.querySelector("#table-hand .hc")) return false;
      open();
      markSeen();
      return true;
    };
    if (dealt()) return;
    var watch = new MutationObserver(function () { if (dealt()) watch.disconnect(); });
    watch.observe(document.body, { childList: true, subtree: true });
  });
})();
