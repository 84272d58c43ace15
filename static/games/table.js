/* The table screen's small behaviours (no framework): card selection by click, tap and
   keyboard, hint cycling, the countdown, the "your turn" tab title, the reconnect notice.
   Everything here only changes the page; moves go to the server through htmx ws-send. */
(function () {
  "use strict";

  var selected = new Set(); // data-key of the selected cards ("9h-4")
  var handSignature = "";
  var hintIndex = -1;
  var hintSignature = "";
  var baseTitle = document.title;
  var wasOpen = false;
  var skew = 0; // server clock minus this clock, from the status clock's data-now

  function root() { return document.getElementById("table-root"); }
  function handEl() { return document.querySelector("#table-hand .hand"); }
  function cards() { var h = handEl(); return h ? Array.prototype.slice.call(h.querySelectorAll(".hc")) : []; }
  // whether the hand may be played now, and its hints: the controls' (sent when the turn moves)
  function controlsData(name) { var c = document.getElementById("table-controls"); return c ? c.dataset[name] || "" : ""; }
  function canSelect() { return !!(handEl() && controlsData("canPlay")); }

  function selectedCodes() {
    return cards().filter(function (c) { return selected.has(c.dataset.key); })
      .map(function (c) { return c.dataset.card; });
  }

  function render() {
    cards().forEach(function (c) { c.setAttribute("aria-pressed", selected.has(c.dataset.key) ? "true" : "false"); });
    var codes = selectedCodes();
    var input = document.getElementById("play-cards");
    if (input) input.value = codes.join(" ");
    var play = document.getElementById("play-btn");
    if (play) play.disabled = codes.length === 0;
    var info = document.querySelector("[data-sel-info]");
    var r = root();
    if (info && r) {
      info.textContent = codes.length ? (r.dataset.selectedText || "") + ": " + codes.length : "";
    }
  }

  function toggle(card) {
    if (!canSelect()) return;
    var key = card.dataset.key;
    if (selected.has(key)) selected.delete(key); else selected.add(key);
    hintIndex = -1;
    render();
  }

  function focusCard(list, i) {
    if (!list.length) return;
    i = Math.max(0, Math.min(list.length - 1, i));
    list.forEach(function (c, j) { c.tabIndex = j === i ? 0 : -1; });
    list[i].focus();
  }

  function hint() {
    var hints;
    try { hints = JSON.parse(controlsData("hints") || "[]"); } catch (e) { hints = []; }
    if (!hints.length) return;
    hintIndex = (hintIndex + 1) % hints.length;
    var wanted = hints[hintIndex].split(" ");
    selected.clear();
    var list = cards();
    wanted.forEach(function (code) {
      for (var i = 0; i < list.length; i++) {
        if (list[i].dataset.card === code && !selected.has(list[i].dataset.key)) { selected.add(list[i].dataset.key); break; }
      }
    });
    render();
  }

  // After every swap: keep the selection while the hand is unchanged, refresh the cues.
  function afterUpdate() {
    fitStage();  // a hand's start or end shows or hides what is above the stage (table.css)
    arrange();
    var list = cards();
    var sig = list.map(function (c) { return c.dataset.key; }).sort().join(",");
    if (sig !== handSignature) { selected.clear(); handSignature = sig; }
    if (!canSelect()) selected.clear();
    var hs = controlsData("hints");
    if (hs !== hintSignature) { hintSignature = hs; hintIndex = -1; }
    render();
    titleCue();
    var clock = document.getElementById("table-clock");
    if (clock && clock.dataset.now && clock.dataset.now !== clock.dataset.seen) {
      clock.dataset.seen = clock.dataset.now;
      var server = Date.parse(clock.dataset.now);
      if (!isNaN(server)) skew = server - Date.now();
    }
    tick();
    effects();
    var err = document.querySelector("#table-error .error-msg");
    if (err && !err.dataset.timer) {
      err.dataset.timer = "1";
      setTimeout(function () { var e = document.getElementById("table-error"); if (e && e.contains(err)) e.innerHTML = ""; }, 7000);
    }
  }

  // ---- the player's view settings (the bar's "View" overlay), kept in this browser
  function pref(name, fallback) {
    try { return localStorage.getItem("ddz-" + name) || fallback; } catch (e) { return fallback; }
  }
  function setPref(name, value) {
    try { localStorage.setItem("ddz-" + name, value); } catch (e) { /* private mode: this page only */ }
  }

  // The hand's order: the server's (by rank, low to high), or grouped by count, the biggest
  // groups first (bombs, triples, pairs), each group by rank; the jokers count as one group.
  function rankOf(code) { return code === "SJ" || code === "BJ" ? "joker" : code.slice(0, -1); }
  function arrange() {
    var h = handEl();
    if (!h) return;
    var list = cards();
    list.forEach(function (c, i) { if (c.dataset.rankOrder === undefined) c.dataset.rankOrder = String(i); });
    var byCount = pref("sort", "rank") === "count";
    var counts = {};
    list.forEach(function (c) { var r = rankOf(c.dataset.card); counts[r] = (counts[r] || 0) + 1; });
    var ordered = list.slice().sort(function (a, b) {
      var ra = Number(a.dataset.rankOrder), rb = Number(b.dataset.rankOrder);
      if (!byCount) return ra - rb;
      return (counts[rankOf(b.dataset.card)] - counts[rankOf(a.dataset.card)]) || (ra - rb);
    });
    var same = ordered.every(function (c, i) { return c === list[i]; });
    if (!same) ordered.forEach(function (c) { h.appendChild(c); });
    h.dataset.sort = byCount ? "count" : "rank";
  }

  function applyTheme() {
    var theme = pref("theme", "system");
    if (window.ddzTheme) window.ddzTheme(theme);
  }

  // Panels opened from the bar that stay as the player left them, across pushes and visits
  // (the 记牌器): <details data-remember="name">.
  function restorePanels() {
    document.querySelectorAll("details[data-remember]").forEach(function (panel) {
      panel.open = pref(panel.dataset.remember, "closed") === "open";
    });
  }
  document.addEventListener("toggle", function (ev) {
    var panel = ev.target;
    if (panel instanceof HTMLDetailsElement && panel.dataset.remember) {
      setPref(panel.dataset.remember, panel.open ? "open" : "closed");
    }
  }, true);

  function showPrefs() {
    document.querySelectorAll("input[data-pref]").forEach(function (input) {
      var stored = pref(input.dataset.pref, "");
      if (stored) input.checked = input.value === stored;
    });
  }

  document.addEventListener("change", function (ev) {
    var input = ev.target;
    if (!(input instanceof HTMLInputElement) || !input.dataset.pref) return;
    setPref(input.dataset.pref, input.value);
    if (input.dataset.pref === "theme") applyTheme();
    if (input.dataset.pref === "sort") arrange();
  });

  // ---- effects: a short CSS animation over the trick when a play beats the table with a
  // flourish, a spring ends the hand, or a landlord's partner is revealed; table.css runs none
  // when the system asks for reduced motion. Each is shown once, when it happens (not on load).
  var seenTop = null, seenResult = null, seenRoles = null, effectTimer = 0;
  function flash(kind, label) {
    var box = document.getElementById("table-effect");
    if (!box) return;
    box.className = "table-effect";
    box.textContent = label;
    void box.offsetWidth; // restart the animation
    box.className = "table-effect fx-" + kind;
    clearTimeout(effectTimer);
    effectTimer = setTimeout(function () { box.className = "table-effect"; box.textContent = ""; }, 1200);
  }
  function effects() {
    var top = document.querySelector("#table-trick .top-play");
    var topSig = top ? top.textContent.replace(/\s+/g, " ") : "";
    if (seenTop !== null && top && top.dataset.effect && topSig !== seenTop) {
      var who = top.querySelector(".top-who"); // "name · kind"
      flash(top.dataset.effect, who ? who.textContent.split("·").pop().trim() : "");
    }
    seenTop = topSig;
    var spring = document.querySelector("#table-result [data-effect='spring']");
    var resultSig = spring ? spring.textContent : "";
    if (seenResult !== null && spring && resultSig !== seenResult) flash("spring", resultSig);
    seenResult = resultSig;
    var roles = {};
    document.querySelectorAll("#table-seats .seat").forEach(function (seat) {
      roles[seat.dataset.seat] = seat.querySelectorAll(".tag.role").length;
    });
    if (seenRoles !== null) {
      Object.keys(roles).forEach(function (seat) {
        if (roles[seat] > (seenRoles[seat] || 0)) {
          var panel = document.querySelector('#table-seats .seat[data-seat="' + seat + '"]');
          if (!panel) return;
          panel.classList.add("fx-reveal");
          // taken off once it has run (0.9 s, or none with reduced motion): a move may leave
          // the panel in place, sending its play part alone, and the panel is then as sent
          setTimeout(function () { panel.classList.remove("fx-reveal"); }, 1200);
        }
      });
    }
    seenRoles = roles;
  }

  function titleCue() {
    var controls = document.getElementById("table-controls");
    var r = root();
    var mine = controls && controls.dataset.myTurn === "1";
    document.title = mine && r ? "● " + (r.dataset.turnText || "") + " · " + baseTitle : baseTitle;
  }

  function tick() {
    var now = Date.now() + skew;
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var at = Date.parse(el.dataset.deadline);
      var n = el.querySelector(".clock-n");
      if (!n || isNaN(at)) return;
      var left = Math.max(0, Math.ceil((at - now) / 1000));
      n.textContent = String(left);
      el.classList.toggle("low", left <= 5);
    });
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) return;
    var card = t.closest(".hc");
    if (card) { toggle(card); return; }
    if (t.closest("#hint-btn")) { hint(); return; }
    if (t.closest("[data-dismiss]")) {
      var target = document.getElementById(t.closest("[data-dismiss]").dataset.dismiss);
      if (target) target.innerHTML = "";
      return;
    }
    if (t.closest("[data-dismiss-result]")) {
      var panel = t.closest("[data-result]");
      if (panel) panel.hidden = true;
    }
  });

  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (t instanceof Element && t.classList.contains("hc")) {
      var list = cards();
      var i = list.indexOf(t);
      if (ev.key === "ArrowRight" || ev.key === "ArrowDown") { ev.preventDefault(); focusCard(list, i + 1); return; }
      if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") { ev.preventDefault(); focusCard(list, i - 1); return; }
      if (ev.key === "Home") { ev.preventDefault(); focusCard(list, 0); return; }
      if (ev.key === "End") { ev.preventDefault(); focusCard(list, list.length - 1); return; }
      // Space and Enter click the focused button natively, which toggles it.
    }
    if (t instanceof Element && t.closest("input, textarea, select")) return;
    if (ev.key === "h" || ev.key === "H") {
      var btn = document.getElementById("hint-btn");
      if (btn && !btn.disabled) { ev.preventDefault(); hint(); }
    }
    if (document.querySelector(".replay-nav")) {
      var dir = ev.key === "ArrowLeft" ? "prev" : ev.key === "ArrowRight" ? "next" : null;
      var link = dir && document.querySelector('[data-replay="' + dir + '"]:not(.disabled)');
      if (link) { ev.preventDefault(); link.click(); }
    }
  });

  // Every move names the hand version it was made on: the controls' own while it is this
  // seat's turn (they come in the seat's own frame, before the version's shared regions), else
  // the status's clock's. The forms leave it out so that their rendering stays the same from
  // one move to the next. The play frame carries the selected cards; an empty selection sends
  // nothing.
  document.addEventListener("htmx:wsConfigSend", function (ev) {
    var controls = document.getElementById("table-controls");
    var clock = document.getElementById("table-clock");
    var version = (controls && controls.dataset.version) || (clock && clock.dataset.version);
    if (version) ev.detail.parameters.version = version;
    var form = ev.target;
    if (form && form.id === "play-form") {
      var codes = selectedCodes();
      if (!codes.length) { ev.preventDefault(); return; }
      ev.detail.parameters.cards = codes.join(" ");
    }
  });

  document.addEventListener("htmx:wsAfterMessage", afterUpdate);
  document.addEventListener("htmx:afterSettle", afterUpdate);

  // A region the push does not change stays in place. Replacing it with its twin would lose a
  // tap pressed on the old button and released on the new one: the first state after a
  // connect repeats every region the page loaded with, but for their CSRF fields.
  function asShown(region) {
    var copy = region.cloneNode(true);
    copy.removeAttribute("hx-swap-oob");
    copy.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (field) { field.remove(); });
    return copy.outerHTML;
  }
  document.addEventListener("htmx:oobBeforeSwap", function (ev) {
    var incoming = ev.detail.fragment && ev.detail.fragment.firstElementChild;
    if (incoming && asShown(ev.detail.target) === asShown(incoming)) ev.detail.shouldSwap = false;
  });

  document.addEventListener("htmx:wsOpen", function (ev) {
    var conn = document.getElementById("table-conn");
    if (conn) conn.hidden = true;
    if (wasOpen && ev.detail && ev.detail.socketWrapper) {
      // a reconnect: ask for the exact current state
      ev.detail.socketWrapper.send(JSON.stringify({ intent: "resync" }));
    }
    wasOpen = true;
  });
  document.addEventListener("htmx:wsClose", function () {
    var conn = document.getElementById("table-conn");
    if (conn) conn.hidden = false;
  });

  // The stage fills the window below the site's bar (table.css): how far down the page it starts.
  // Runs after every push too: the style is written only when the place moved, so an unchanged
  // stage is not restyled.
  function fitStage() {
    var r = root();
    if (!r) return;
    var top = Math.round(r.getBoundingClientRect().top + window.scrollY) + "px";
    if (r.style.getPropertyValue("--stage-top") !== top) r.style.setProperty("--stage-top", top);
  }
  window.addEventListener("resize", fitStage);

  document.addEventListener("DOMContentLoaded", function () {
    showPrefs();
    restorePanels();
    baseTitle = document.title;
    afterUpdate();
    setInterval(tick, 250);
  });
})();
