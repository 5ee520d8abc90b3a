// The colour theme: light or dark as the visitor chose with the header's switch (remembered in
// localStorage), else as the system prefers (prefers-color-scheme). A classic script loaded in
// <head>, before the page is drawn, so that a dark page never flashes light; it sets
// <html data-theme> (the CSS reads only that) and keeps the switch's aria-pressed true to it.
(() => {
  const KEY = "dicepoker:theme";
  const media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  /** The visitor's own choice, if any. */
  const chosen = () => {
    try {
      const value = localStorage.getItem(KEY);
      return value === "dark" || value === "light" ? value : null;
    } catch {
      return null;
    }
  };

  const apply = () => {
    const theme = chosen() || (media && media.matches ? "dark" : "light");
    document.documentElement.dataset.theme = theme;
    const button = document.getElementById("theme-switch");
    if (button) button.setAttribute("aria-pressed", String(theme === "dark"));
  };

  const bind = () => {
    apply();
    const button = document.getElementById("theme-switch");
    if (!button) return;
    button.addEventListener("click", () => {
      const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
      try {
        localStorage.setItem(KEY, next);
      } catch {
        /* private mode: the choice lasts as long as the page */
      }
      document.documentElement.dataset.theme = next;
      button.setAttribute("aria-pressed", String(next === "dark"));
    });
  };

  apply();
  if (media) media.addEventListener("change", () => { if (!chosen()) apply(); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
