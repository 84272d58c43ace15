/* Club life on the table page: player settings (card size, sounds synthesised with the Web
   Audio API, client-side auto-pass) and quick-chat bubbles placed over the speaker's seat. */
(function () {
  "use strict";
  var prefs = document.getElementById("club-prefs");
  var root = document.getElementById("table-root");
  if (!prefs || !root) return;
  var size = prefs.dataset.cardSize || "m";
  root.classList.add("club-cards-" + size);
  var soundOn = prefs.dataset.sound === "1";
  var autoPass = prefs.dataset.autoPass === "1";

  // ---- sounds: short synthesised tones, no files; none before the page's first gesture (a
  // context made earlier starts suspended and the browser warns), muted by the sound setting
  var ctx = null;
  var gestured = false;
  function audio() {
    if (!gestured) return null;
    if (!ctx) {
      var AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }
  function tone(freqs, dur, type) {
    if (!soundOn) return;
    var a = audio();
    if (!a) return;
    var t = a.currentTime;
    freqs.forEach(function (f, i) {
      var o = a.createOscillator(), g = a.createGain();
      o.type = type || "sine";
      o.frequency.value = f;
      var start = t + i * dur;
      g.gain.setValueAtTime(0.0001, start);
      g.gain.exponentialRampToValueAtTime(0.2, start + 0.01);
      g.gain.exponentialRampToValueAtTime(0.0001, start + dur);
      o.connect(g); g.connect(a.destination);
      o.start(start); o.stop(start + dur + 0.02);
    });
  }
  function noiseBurst() {  // a bomb: a short filtered noise thump
    if (!soundOn) return;
    var a = audio();
    if (!a) return;
    var len = Math.floor(a.sampleRate * 0.35), buf = a.createBuffer(1, len, a.sampleRate);
    var d = buf.getChannelData(0);
    for (var i = 0; i < len; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / len, 2);
    var src = a.createBufferSource(), f = a.createBiquadFilter(), g = a.createGain();
    f.type = "lowpass"; f.frequency.value = 600; g.gain.value = 0.6;
    src.buffer = buf; src.connect(f); f.connect(g); g.connect(a.destination); src.start();
  }
  window.ddzClubSounds = {
    turn: function () { tone([660, 880], 0.09); },
    bomb: noiseBurst,
    spring: function () { tone([523, 659, 784, 1047], 0.12, "triangle"); },
    // 报双 / 报单: two short beeps for 2 cards left, one longer higher one for 1
    report: function (left) { if (left === "1") tone([1175], 0.22, "square"); else tone([988, 988], 0.09, "square"); },
  };
  // browsers only allow audio after a gesture: unlock on the first click
  function unlock() { gestured = true; if (soundOn) audio(); }
  document.addEventListener("pointerdown", unlock, { once: true });
  document.addEventListener("keydown", unlock, { once: true });

  var wasMyTurn = false, lastBomb = "", lastSpring = "";
  function afterSwap() {
    var controls = document.getElementById("table-controls");
    var myTurn = !!(controls && controls.dataset.myTurn === "1");
    if (myTurn && !wasMyTurn) {
      window.ddzClubSounds.turn();
      if (autoPass) maybeAutoPass();
    }
    wasMyTurn = myTurn;
    var bomb = document.querySelector("#table-trick .top-play.bomb");
    var bombKey = bomb ? bomb.textContent : "";
    if (bomb && bombKey !== lastBomb) window.ddzClubSounds.bomb();
    lastBomb = bombKey;
    var result = document.querySelector("#table-result .result-panel");
    var spring = result && /tag hot/.test(result.innerHTML) ? result.innerHTML.length + "" : "";
    if (spring && spring !== lastSpring) window.ddzClubSounds.spring();
    lastSpring = spring;
    reportCue();
  }
  // 报牌: a seat's panel announcing 2 or 1 cards left for the first time this hand
  var reported = null;  // "seat:left" of the announcements on screen (null: not looked yet)
  function reportCue() {
    var now = {};
    document.querySelectorAll("#table-seats [data-report]").forEach(function (tag) {
      var seat = tag.closest("[data-seat]");
      now[(seat ? seat.dataset.seat : "") + ":" + tag.dataset.report] = tag.dataset.report;
    });
    if (reported !== null) {
      Object.keys(now).forEach(function (key) { if (!(key in reported)) window.ddzClubSounds.report(now[key]); });
    }
    reported = now;
  }
  // 要不起 auto-pass: the server marks the controls it sends a seat that cannot beat the top
  // play (data-cant-beat); after a second the page presses their Pass, still a move the server
  // checks like any other, unless the turn has moved on meanwhile.
  var AUTO_PASS_MS = 1000;
  function maybeAutoPass() {
    var controls = document.getElementById("table-controls");
    if (!controls || controls.dataset.cantBeat !== "1") return;
    var version = controls.dataset.version;
    setTimeout(function () {
      var now = document.getElementById("table-controls");
      if (!now || now.dataset.cantBeat !== "1" || now.dataset.version !== version) return;
      var pass = now.querySelector("#pass-form button");
      if (pass) pass.click();
    }, AUTO_PASS_MS);
  }

  // ---- chat bubbles: over the speaker's seat, gone after a few seconds
  function place(bubble) {
    var name = bubble.dataset.name;
    var seats = document.querySelectorAll("#table-seats .seat");
    for (var i = 0; i < seats.length; i++) {
      var nm = seats[i].querySelector(".nm");
      if (nm && nm.textContent === name) {
        var r = seats[i].getBoundingClientRect();
        bubble.style.left = Math.max(4, r.left + r.width / 2 - 60) + "px";
        bubble.style.top = Math.max(4, r.top - 12) + "px";
        return;
      }
    }
  }
  function bubbles() {
    document.querySelectorAll("[data-club-bubble]:not([data-seen])").forEach(function (b) {
      b.dataset.seen = "1";
      if (b.classList.contains("club-bubble")) place(b);
      setTimeout(function () {
        if (b.classList.contains("club-bubble")) b.remove();
      }, 4000);
    });
    var log = document.getElementById("club-watch-chat");
    if (log) {
      while (log.children.length > 30) log.removeChild(log.firstElementChild);
      log.scrollTop = log.scrollHeight;
    }
  }
  document.body.addEventListener("htmx:wsAfterMessage", function () { bubbles(); afterSwap(); });
  document.body.addEventListener("htmx:afterSwap", afterSwap);
  afterSwap();
})();
