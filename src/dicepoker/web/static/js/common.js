// Shared helpers of the page scripts: the catalog, DOM building, the REST API, toasts, tokens.
// Player names and every other piece of data are put in the page as text, never as markup.

export const LANG = document.documentElement.dataset.lang || "en";
const LANGS = ["en", "es", "pt"];
let catalog = {};

/** Load the catalog of the page's language (the one the templates use). */
export async function loadCatalog() {
  try {
    const version = document.documentElement.dataset.version || "";
    const response = await fetch(`/i18n/${LANG}.json?v=${encodeURIComponent(version)}`, { credentials: "same-origin" });
    if (response.ok) catalog = await response.json();
  } catch {
    catalog = {};
  }
  tidyLangSwitch();
  return catalog;
}

/** The translation of `msgid`, with `{name}` placeholders filled from `values`. */
export function t(msgid, values) {
  let text = Object.prototype.hasOwnProperty.call(catalog, msgid) ? catalog[msgid] : msgid;
  if (values) {
    text = text.replace(/\{(\w+)\}/g, (match, key) =>
      Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : match,
    );
  }
  return text;
}

/** A key of the catalog if present, else `fallback`. */
export function tk(key, fallback) {
  return Object.prototype.hasOwnProperty.call(catalog, key) ? catalog[key] : fallback;
}

/** The label of a row of a preset, e.g. Póker / Quadra / Four of a kind. */
export function rowLabel(preset, rowId) {
  return tk(`row.${preset}.${rowId}`, rowId.replace(/_/g, " "));
}

export function presetName(preset) {
  return tk(`preset.${preset}`, preset);
}

export function levelName(level) {
  return level ? tk(`level.${level}`, level) : "";
}

const numberFormat = new Intl.NumberFormat(LANG === "pt" ? "pt-BR" : LANG);
export function num(value) {
  return numberFormat.format(value);
}

const decimalFormats = new Map();
/** A number with `digits` decimals in the page's language: 247.1, 247,1. */
export function dec(value, digits = 1) {
  if (!decimalFormats.has(digits)) {
    decimalFormats.set(digits, new Intl.NumberFormat(LANG === "pt" ? "pt-BR" : LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return decimalFormats.get(digits).format(value);
}

/** A loss or a difference below the best, with a real minus sign: −3.2 (0.0 when none). */
export function minus(value, digits = 1) {
  const text = dec(Math.abs(value), digits);
  return Number(text.replace(/[^0-9]/g, "")) === 0 ? text : `−${text}`;
}

/** A signed number with a real minus sign: +4, −200. */
export function signed(value) {
  if (value > 0) return `+${num(value)}`;
  if (value < 0) return `−${num(-value)}`;
  return num(0);
}

const ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"];
export function roman(index) {
  return ROMAN[index] || String(index + 1);
}

/**
 * Build an element: h("button", {class: "x", onclick: fn, "aria-label": "…"}, "text", child).
 * Strings become text nodes; attributes with null/false values are left out.
 */
export function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        element.addEventListener(key.slice(2), value);
      } else if (key === "class") {
        element.className = value;
      } else if (key === "dataset") {
        Object.assign(element.dataset, value);
      } else if (key === "text") {
        element.textContent = value;
      } else if (value === true) {
        element.setAttribute(key, "");
      } else {
        element.setAttribute(key, String(value));
      }
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(element) {
  while (element.firstChild) element.removeChild(element.firstChild);
  return element;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Call the REST API: {ok, status, data}; errors carry data.error = {code, message}. */
export async function api(method, url, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    return { ok: false, status: 0, data: { error: { code: "network", message: t("No connection to the server.") } } };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

/** The text of an API error, translated where we know its code. */
export function errorText(result) {
  const error = result && result.data && result.data.error;
  if (error && error.code && ERROR_TEXT[error.code]) {
    const base = t(ERROR_TEXT[error.code]);
    return error.message && error.code === "bad_record" ? `${base} ${error.message}` : base;
  }
  if (error && error.message) return error.message;
  if (result && result.data && typeof result.data.detail === "string") return result.data.detail;
  if (result && result.status === 404) return t("This game does not exist.");
  return t("Something went wrong. Please try again.");
}

export const ERROR_TEXT = {
  bad_message: "The server did not understand that.",
  too_large: "That was too large.",
  spectator: "Spectators cannot play.",
  waiting: "The game starts when every seat is taken.",
  stale: "The game moved on: look again and retry.",
  not_your_turn: "It is not your turn.",
  bad_roll: "You cannot roll now.",
  bad_move: "That cell cannot be filled with these dice.",
  game_over: "The game is over.",
  rate_limited: "Slow down a little.",
  bad_record: "This record cannot be read:",
  network: "No connection to the server.",
};

/** A short message at the bottom of the screen. */
export function toast(text, kind = "info", ms = 3200) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = h("div", { class: `toast toast-${kind}` }, text);
  box.appendChild(item);
  requestAnimationFrame(() => item.classList.add("show"));
  setTimeout(() => {
    item.classList.remove("show");
    setTimeout(() => item.remove(), 300);
  }, ms);
}

// --- seat tokens, kept in localStorage by game id --------------------------------------------

const TOKEN_KEY = (gameId) => `dicepoker:tokens:${gameId}`;

/** {seat: token} for the seats this browser holds in a game. */
export function loadTokens(gameId) {
  try {
    const raw = localStorage.getItem(TOKEN_KEY(gameId));
    const value = raw ? JSON.parse(raw) : {};
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

export function saveToken(gameId, seat, token) {
  const tokens = loadTokens(gameId);
  tokens[String(seat)] = token;
  try {
    localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify(tokens));
  } catch {
    /* private mode: the game still works for this page's life */
  }
}

export function forgetToken(gameId, seat) {
  const tokens = loadTokens(gameId);
  delete tokens[String(seat)];
  try {
    localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify(tokens));
  } catch {
    /* ignore */
  }
}

export function rememberName(name) {
  try {
    if (name) localStorage.setItem("dicepoker:name", name);
  } catch {
    /* ignore */
  }
}

export function savedName() {
  try {
    return localStorage.getItem("dicepoker:name") || "";
  } catch {
    return "";
  }
}

/** Drop `?lang=` from the address once the server has set the cookie; keep the cookie fresh. */
function tidyLangSwitch() {
  const url = new URL(window.location.href);
  if (url.searchParams.has("lang")) {
    url.searchParams.delete("lang");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
  for (const link of document.querySelectorAll("[data-lang-choice]")) {
    link.addEventListener("click", () => {
      const lang = link.dataset.langChoice;
      if (LANGS.includes(lang)) {
        document.cookie = `lang=${lang}; path=/; max-age=31536000; samesite=lax`;
      }
    });
  }
}

/** "3 min ago"-style time, with the browser's relative time formatter. */
const relative = new Intl.RelativeTimeFormat(LANG === "pt" ? "pt-BR" : LANG, { numeric: "auto" });
export function ago(iso) {
  if (typeof iso !== "string") return "";
  // The server's times are UTC; SQLite hands them back without a zone.
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`;
  const time = Date.parse(zoned);
  if (Number.isNaN(time)) return "";
  const seconds = Math.round((time - Date.now()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, "second");
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), "hour");
  return relative.format(Math.round(seconds / 86400), "day");
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function prefersReducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
