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
  }
  // client-side auto-pass: my turn, a pass is allowed and no legal play beats the table
  function maybeAutoPass() {
    var hand = document.getElementById("table-hand");
    var pass = document.querySelector("#pass-form button:not([disabled])");
    if (!hand || !pass) return;  // no pass form: leading, or not the play phase
    var hints = [];
    try { hints = JSON.parse(hand.dataset.hints || "[]"); } catch (e) { return; }
    if (hints.length === 0) setTimeout(function () {
      var again = document.querySelector("#pass-form button:not([disabled])");
      if (again) again.click();
    }, 600);
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
