// Event pages: follow the player to his next table. On the event page the htmx ws extension
// swaps the regions; on an event's table page (the banner) a plain socket listens. Either
// way, a pushed "#event-goto" link to another table is followed at once. On the table page, a
// pushed pause (he ended his arena hand under 托管) replaces the banner's "next table" note:
// no table opens until he resumes on the event page.
(function () {
  "use strict";
  function follow(root) {
    var goto = root.querySelector("#event-goto[data-goto]");
    if (goto && goto.dataset.goto !== window.location.pathname) {
      window.location.assign(goto.dataset.goto);
    }
  }
  function onEventPage() {
    document.body.addEventListener("htmx:wsAfterMessage", function () { follow(document); });
    follow(document);
  }
  function onTablePage(banner) {
    var delay = 500;
    function paused(doc) {
      var note = doc.querySelector("#event-own [data-paused]");
      var next = banner.querySelector("[data-next-table]");
      if (note && next) {
        next.textContent = note.textContent;
        next.dataset.paused = "1";
      }
    }
    function open() {
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      var ws = new WebSocket(scheme + window.location.host + "/ws/events/" + banner.dataset.event + "/");
      ws.onmessage = function (message) {
        var doc = new DOMParser().parseFromString(message.data, "text/html");
        follow(doc);
        paused(doc);
        delay = 500;
      };
      ws.onclose = function (closed) {
        if (closed.code === 4404) return;
        delay = Math.min(delay * 2, 15000);
        window.setTimeout(open, delay * (0.5 + Math.random()));
      };
    }
    open();
  }
  document.addEventListener("DOMContentLoaded", function () {
    var banner = document.querySelector("#event-banner[data-follow]");
    if (document.getElementById("event-root")) onEventPage();
    else if (banner) onTablePage(banner);
  });
})();
