// The theme: the player's choice kept in this browser (the table's View menu), else the
// system's, followed when it changes. site.css holds the dark colours under [data-theme=dark].
(function () {
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function stored() {
    try { return localStorage.getItem("ddz-theme") || "system"; } catch (e) { return "system"; }
  }
  function apply(choice) {
    var dark = choice === "dark" || (choice !== "light" && !!media && media.matches);
    document.documentElement.dataset.theme = dark ? "dark" : "light";
  }
  window.ddzTheme = apply;
  apply(stored());
  if (media && media.addEventListener) media.addEventListener("change", function () { apply(stored()); });
})();
// The phone header's menu button (site.css shows it when this has run).
document.documentElement.classList.add("js-nav");
document.addEventListener("click", (event) => {
  const bar = document.querySelector(".topbar");
  const button = bar && bar.querySelector(".menu-btn");
  if (!button) return;
  const open = event.target.closest(".menu-btn") === button
    ? !bar.classList.contains("open")
    : bar.classList.contains("open") && bar.contains(event.target) && !event.target.closest("a, button");
  bar.classList.toggle("open", open);
  button.setAttribute("aria-expanded", open ? "true" : "false");
});
document.addEventListener("keydown", (event) => {
  const bar = document.querySelector(".topbar.open");
  if (event.key === "Escape" && bar) {
    bar.classList.remove("open");
    const button = bar.querySelector(".menu-btn");
    button.setAttribute("aria-expanded", "false");
    button.focus();
  }
});
