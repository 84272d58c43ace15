/* Table socket reconnect (issue #6): the page comes back by itself after a dropped socket or a
   server restart, with capped exponential backoff and jitter, and resyncs from the server.

   The htmx ws extension reconnects on its own, but only after close codes 1006, 1011, 1012
   and 1013, with a delay up to 64 s. This file:
   - sets the extension's delay: full jitter over min(15 s, 0.5 s * 2^tries), at least 250 ms;
   - also reconnects after the closes the extension leaves alone (1000, 1001 "going away" when a
     daphne process stops, 1005, 1008 ...), except the server's refusals 4400-4499 (4401 not
     signed in, 4404 no such table): those reload the page once, which shows the login or 404;
     but 4429 (too many table tabs of this user) neither reloads nor reconnects: its error
     frame says what to do;
   - reconnects at once when the browser comes back online or the tab becomes visible again,
     and unmasks half-open sockets (a sleeping laptop, a phone changing networks): on return it
     asks for a resync and reconnects when nothing answers within 5 s.
   Resync: the server sends the full state of the socket's audience on every connect, and
   table.js sends {"intent": "resync"} on a reopen, so the page never shows a stale hand.
   Versions (issue #17): every state frame starts with #table-frame, the table's version and
   whether it is a full screen (a connect's or a resync's answer) or a push. A frame older than
   the state shown is dropped (pushes rendered by different processes or threads may arrive out
   of order). A push of the version shown (a sealed step's decider sees his own choice under
   the step's version) or of the next one is taken; a push further ahead means one was lost on
   the way: it is dropped and the page asks for a resync, whose full screen heals the gap. The
   first state after a (re)connect is always taken. A version's push may be two frames (the
   public one with the shared regions, and this seat's own regions when they changed): taken
   in either order, as the second is of the version then shown. */
(function () {
  "use strict";

  var MAX_DELAY = 15000;
  var ANSWER_TIMEOUT = 5000;
  var HANDLED_BY_EXT = [1006, 1011, 1012, 1013];

  function backoff(tries) {
    var cap = Math.min(MAX_DELAY, 500 * Math.pow(2, Math.min(tries, 5)));
    return Math.max(250, Math.floor(Math.random() * cap));
  }

  function configure() {
    if (window.htmx && htmx.config) htmx.config.wsReconnectDelay = backoff;
  }
  configure();

  var wrapper = null;     // the extension's public socket interface (send, reconnect)
  var state = "idle";     // connecting | open | closed
  var tries = 0;          // our own reconnects since the last open
  var timer = null;
  var watchdog = null;
  var unloading = false;
  var reloaded = false;
  var hiddenAt = null;
  var openSocket = null;  // the socket of the last open
  var retired = null;     // a socket we replaced on purpose: its late close is not a drop

  function clearTimer() {
    if (timer) { clearTimeout(timer); timer = null; }
  }

  function reconnectNow() {
    clearTimer();
    if (!wrapper || unloading || state === "connecting") return;
    retired = openSocket;
    state = "connecting";
    wrapper.reconnect();
  }

  function reconnectLater() {
    clearTimer();
    var delay = backoff(tries);
    tries += 1;
    timer = setTimeout(reconnectNow, delay);
  }

  function onTablePage() {
    return !!document.querySelector("[ws-connect]");
  }

  var shownVersion = null; // #table-frame's data-version of the state on screen

  function askResync() {
    // every push after the gap asks again until the full screen comes: the server answers a
    // burst of requests with one rendering
    if (!wrapper) return;
    try { wrapper.send(JSON.stringify({ intent: "resync" })); } catch (e) { reconnectNow(); }
  }

  document.addEventListener("htmx:wsBeforeMessage", function (ev) {
    var message = ev.detail && ev.detail.message;
    if (typeof message !== "string") return;
    var found = /id="table-frame"[^>]*data-version="(\d+)" data-full="([01])"/.exec(message);
    if (!found) return; // an error for this socket alone, not a state
    var version = parseInt(found[1], 10);
    if (shownVersion !== null && version < shownVersion) {
      ev.preventDefault(); // an older state overtaken by a newer one
      return;
    }
    if (found[2] === "0" && shownVersion !== null && version > shownVersion + 1) {
      ev.preventDefault(); // a push was lost on the way
      askResync();
      return;
    }
    shownVersion = version;
  });

  document.addEventListener("htmx:wsConnecting", function () { state = "connecting"; });

  document.addEventListener("htmx:wsOpen", function (ev) {
    state = "open";
    shownVersion = null; // the server's state on connect is the truth, whatever came before
    tries = 0;
    clearTimer();
    if (ev.detail && ev.detail.event) openSocket = ev.detail.event.target || null;
    if (ev.detail && ev.detail.socketWrapper) wrapper = ev.detail.socketWrapper;
  });

  // A seat's own frame is sent only when its regions change, so its loss shows at no version:
  // the seat's copy of a version's public frame says whether an own frame of that version was
  // sent before it (data-own), and the page asks for the full screen when it has none.
  var ownVersion = null; // the version of the last full screen or own frame taken
  var checkedVersion = null;

  document.addEventListener("htmx:wsAfterMessage", function (ev) {
    if (watchdog) { clearTimeout(watchdog); watchdog = null; }
    var message = ev.detail && ev.detail.message;
    if (typeof message !== "string") return;
    var found = /id="table-frame"[^>]*data-version="(\d+)" data-full="([01])"(?: data-part="(\w+)")?(?: data-own="([01])")?/.exec(message);
    if (!found) return;
    var version = parseInt(found[1], 10);
    if (found[2] === "1" || found[3] === "seat") { ownVersion = version; return; }
    if (found[4] !== "1" || ownVersion === version || checkedVersion === version) return;
    checkedVersion = version;
    askResync();
  });

  document.addEventListener("htmx:wsClose", function (ev) {
    var closed = ev.detail && ev.detail.event ? ev.detail.event.target : null;
    if (closed && closed === retired) { retired = null; return; }
    state = "closed";
    if (ev.detail && ev.detail.socketWrapper) wrapper = ev.detail.socketWrapper;
    var code = ev.detail && ev.detail.event ? ev.detail.event.code : 1006;
    if (unloading || !onTablePage()) return;
    if (code === 4429) return;
    if (code >= 4400 && code < 4500) {
      // the server refused this socket (signed out, table gone): the page itself says why
      if (!reloaded) { reloaded = true; setTimeout(function () { location.reload(); }, 1000); }
      return;
    }
    if (HANDLED_BY_EXT.indexOf(code) >= 0) {
      state = "connecting"; // the extension's own timer is running
      return;
    }
    reconnectLater();
  });

  function checkAlive() {
    if (!wrapper || !onTablePage()) return;
    if (state === "closed") { tries = 0; reconnectNow(); return; }
    if (state !== "open") return;
    // a socket that looks open may be dead: ask for the state, reconnect if nothing comes back
    try {
      wrapper.send(JSON.stringify({ intent: "resync" }));
    } catch (e) {
      reconnectNow();
      return;
    }
    if (watchdog) clearTimeout(watchdog);
    watchdog = setTimeout(function () {
      watchdog = null;
      if (state === "open") { state = "closed"; tries = 0; reconnectNow(); }
    }, ANSWER_TIMEOUT);
  }

  window.addEventListener("online", checkAlive);
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) checkAlive(); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") { hiddenAt = Date.now(); return; }
    // back after more than a few seconds away: make sure the socket still answers
    if (hiddenAt === null || Date.now() - hiddenAt > 3000) checkAlive();
    hiddenAt = null;
  });
  window.addEventListener("beforeunload", function () { unloading = true; });
  document.addEventListener("DOMContentLoaded", configure);
})();
