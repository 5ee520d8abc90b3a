// Shared helpers of the page scripts: the catalog, DOM building, the REST API, toasts, tokens.
// Player names and every other piece of data are put in the page as text, never as markup.
/** @import { ErrorResponse, RulesView } from "../../typings/protocol" */
import "./scrollcue.js";

export const LANG = document.documentElement.dataset.lang || "en";
const LANGS = ["en", "es", "pt"];
/** @type {Record<string, string>} */
let catalog = {};

/** @type {Promise<Record<string, string>> | null} */
let loading = null;

/**
 * Load the catalog of the page's language (the one the templates use), once: every later call
 * answers the same promise, so a handler may await it without asking the server again.
 */
export function loadCatalog() {
  loading ??= fetchCatalog();
  return loading;
}

async function fetchCatalog() {
  try {
    const version = document.documentElement.dataset.version || "";
    const response = await fetch(`/i18n/${LANG}.json?v=${encodeURIComponent(version)}`, { credentials: "same-origin" });
    if (response.ok) catalog = await response.json();
  } catch {
    catalog = {};
  }
  tidyLangSwitch();
  showFlash();
  return catalog;
}

/**
 * Send the form's submissions to `handler`, each once `ready` (the page's set-up: its catalog,
 * its data) has settled. Call it before the page awaits anything: a form the browser sent itself
 * would leave the page with a GET that puts its fields, a password too, in the address. A form
 * sent while this script still loaded was held by formguard.js and is sent again now.
 * @param {HTMLFormElement} owner
 * @param {Promise<unknown>} ready
 * @param {(submit: SubmitEvent) => unknown} handler
 */
export function onSubmit(owner, ready, handler) {
  const settled = ready.catch(() => undefined);
  owner.addEventListener("submit", (submit) => {
    submit.preventDefault();
    settled.then(() => handler(submit));
  });
  owner.dataset.wired = "1";
  if (owner.dataset.held) {
    delete owner.dataset.held;
    owner.requestSubmit();
  }
}

const FLASH_KEY = "dicepoker:flash";

/**
 * Say `text` in a toast on the next page this tab opens (logged out, account deleted: the page
 * that did it goes away at once).
 * @param {string} text
 */
export function flash(text) {
  try {
    sessionStorage.setItem(FLASH_KEY, text);
  } catch {
    /* private mode: the next page simply does not say it */
  }
}

function showFlash() {
  let text;
  try {
    text = sessionStorage.getItem(FLASH_KEY);
    sessionStorage.removeItem(FLASH_KEY);
  } catch {
    return;
  }
  if (text) toast(text, "ok", 5000);
}

/** @param {string} key */
function known(key) {
  return Object.prototype.hasOwnProperty.call(catalog, key);
}

/**
 * The translation of `msgid`, with `{name}` placeholders filled from `values`.
 * @param {string} msgid
 * @param {Record<string, string | number>} [values]
 */
export function t(msgid, values) {
  let text = known(msgid) ? catalog[msgid] : msgid;
  if (values) {
    text = text.replace(/\{(\w+)\}/g, (match, key) =>
      Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : match,
    );
  }
  return text;
}

const pluralRules = new Intl.PluralRules(LANG === "pt" ? "pt-BR" : LANG);

/**
 * The form of a plural message (`msgid` its singular id, `msgid_plural` in the catalog) for the
 * count `n`, with `{n}` and the other placeholders filled: the catalog has each form under
 * `{msgid}|{category}`, the CLDR category that `Intl.PluralRules` picks.
 * @param {string} msgid
 * @param {number} n
 * @param {Record<string, string | number>} [values]
 */
export function tn(msgid, n, values) {
  const key = `${msgid}|${pluralRules.select(n)}`;
  const form = known(key) ? key : `${msgid}|other`;
  return t(known(form) ? catalog[form] : msgid, { n: num(n), ...values });
}

/**
 * The name to show for a player: a bot left with its default name, its level and seat in English
 * ("Greedy 2", as the server names it), is named in the page's language ("Codicioso 2").
 * @param {string} name
 */
export function shownName(name) {
  const match = /^([A-Z][a-z]+) (\d+)$/.exec(String(name || ""));
  const level = match ? `level.${match[1].toLowerCase()}` : "";
  if (!match || !known(level)) return name;
  return t("{level} {n}", { level: catalog[level], n: match[2] });
}

/**
 * A key of the catalog if present, else `fallback`.
 * @param {string} key
 * @param {string} fallback
 */
export function tk(key, fallback) {
  return known(key) ? catalog[key] : fallback;
}

/**
 * The label of a row of a variant, e.g. Póker / Quadra / Four of a kind.
 * @param {string} variant
 * @param {string} rowId
 */
export function rowLabel(variant, rowId) {
  return tk(`row.${variant}.${rowId}`, rowId.replace(/_/g, " "));
}

/** @param {string} variant */
export function variantName(variant) {
  return tk(`variant.${variant}`, variant);
}

/** @param {string | null | undefined} level */
export function levelName(level) {
  return level ? tk(`level.${level}`, level) : "";
}

const numberFormat = new Intl.NumberFormat(LANG === "pt" ? "pt-BR" : LANG);
/** @param {number} value */
export function num(value) {
  return numberFormat.format(value);
}

/** @type {Map<number, Intl.NumberFormat>} */
const decimalFormats = new Map();
/**
 * A number with `digits` decimals in the page's language: 247.1, 247,1.
 * @param {number} value
 */
export function dec(value, digits = 1) {
  let format = decimalFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat(LANG === "pt" ? "pt-BR" : LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    decimalFormats.set(digits, format);
  }
  return format.format(value);
}

/**
 * A loss or a difference below the best, with a real minus sign: −3.2 (0.0 when none).
 * @param {number} value
 */
export function minus(value, digits = 1) {
  const text = dec(Math.abs(value), digits);
  return Number(text.replace(/[^0-9]/g, "")) === 0 ? text : `−${text}`;
}

/**
 * A signed number with a real minus sign: +4, −200.
 * @param {number} value
 */
export function signed(value) {
  if (value > 0) return `+${num(value)}`;
  if (value < 0) return `−${num(-value)}`;
  return num(0);
}

/**
 * What a zero costs, as the rules say: "−200" (the rules give the penalty as a positive
 * number; a School row closed with a zero takes it off the total). The sheet, the felt's last
 * move and the move log all say it, and must say it alike.
 * @param {RulesView} rules
 */
export function zeroCost(rules) {
  return signed(-(rules.zero_penalty || 0));
}

const ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"];
/** @param {number} index */
export function roman(index) {
  return ROMAN[index] || String(index + 1);
}

/** The positions 0..count-1 (the dice of a throw, the columns of a sheet). */
export function range(/** @type {number} */ count) {
  return Array.from({ length: Math.max(0, count) }, (_, index) => index);
}

/**
 * Build an element: h("button", {class: "x", onclick: fn, "aria-label": "…"}, "text", child).
 * Strings become text nodes; attributes with null/false values are left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        element.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
      } else if (key === "class") {
        element.className = String(value);
      } else if (key === "dataset") {
        Object.assign(element.dataset, value);
      } else if (key === "text") {
        element.textContent = String(value);
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

/**
 * @param {Element} element
 * @param {Child[]} children
 */
function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * @template {Element} E
 * @param {E} element
 * @returns {E}
 */
export function clear(element) {
  while (element.firstChild) element.removeChild(element.firstChild);
  return element;
}

/**
 * The element of the page that `selector` finds. It must be there and be a `type` (an
 * HTMLElement unless told): a template that lacks what its script needs fails at once, by name.
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} [type]
 * @returns {T}
 */
export function $(selector, type) {
  const element = document.querySelector(selector);
  const wanted = type || HTMLElement;
  if (!(element instanceof wanted)) throw new Error(`the page has no ${wanted.name} ${selector}`);
  return /** @type {T} */ (element);
}

/**
 * Call the REST API: {ok, status, data}; errors carry data.error = {code, message}. The data
 * is `unknown` until the caller names the answer's type of the contract (protocol.d.ts, generated
 * from the models), so that what a page reads of an answer is checked against the models too.
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<ApiResult<unknown>>}
 */
export async function api(method, url, body) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, credentials: "same-origin", headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    return { ok: false, status: 0, data: { error: { code: "network", message: t("error.network") } } };
  }
  let data;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  // A 429 says in how many seconds to try again.
  const retryAfter = Number(response.headers.get("Retry-After")) || 0;
  return { ok: response.ok, status: response.status, data, retryAfter };
}

/**
 * The catalog's words for the refusal `code` (its id `error.{code}`, one per code of the
 * server, shared with the terminal client), with the server's `reason` where the text has a
 * place for it; null for a code the catalog does not know.
 * @param {string} code
 * @param {string | null | undefined} reason
 */
function catalogRefusal(code, reason) {
  const key = `error.${code}`;
  return known(key) ? t(key, { reason: reason || "" }).trim() : null;
}

/**
 * Why the engine refused, in the page's words: the catalog's `reason.{key}` with its parameters
 * (a row id as the row's translated name); null for a reason the catalog does not know.
 * @param {string | null | undefined} key
 * @param {Record<string, string | number> | null | undefined} params
 */
function reasonWords(key, params) {
  if (!key || !known(`reason.${key}`)) return null;
  const values = { ...(params || {}) };
  if (typeof values.row === "string") values.row = rowLabel(String(values.variant || ""), values.row);
  return t(`reason.${key}`, values);
}

/**
 * The `{reason}` of a refused record in the page's words: its turn and the engine's reason, or,
 * in a page not in English, a plain sentence rather than the server's English.
 * @param {{ message?: string, turn?: number, reason?: string, params?: Record<string, string | number> }} error
 */
function recordReason(error) {
  const why = reasonWords(error.reason, error.params);
  if (why && typeof error.turn === "number") return t("turn {turn}: {reason}", { turn: num(error.turn), reason: why });
  if (why) return why;
  return LANG === "en" ? error.message || "" : t("the file is not a game record that can be read");
}

/**
 * The words of a refusal: why the engine refused, in the page's words, where it said it as data
 * (`key` and `params`); else the catalog's words for the code, else the server's own message,
 * else the code.
 * @param {string} code
 * @param {string | null | undefined} reason
 * @param {string} [key]
 * @param {Record<string, string | number>} [params]
 */
export function refusalText(code, reason, key, params) {
  const why = reasonWords(key, params);
  if (why) return `${why.charAt(0).toUpperCase()}${why.slice(1)}.`;
  return catalogRefusal(code, reason) || reason || code;
}

/**
 * The text of an API error, translated where we know its code.
 * @param {ApiResult<unknown>} result
 */
export function errorText(result) {
  const data = /** @type {ErrorResponse | null} */ (result && result.data);
  const error = data && data.error;
  const reason = error && error.code === "bad_record" ? recordReason(error) : error && error.message;
  const text = (error && error.code && catalogRefusal(error.code, reason)) || (error && error.message);
  if (text) return text;
  if (result && result.status === 404) return t("This game does not exist.");
  return t("Something went wrong. Please try again.");
}

/**
 * A short message at the bottom of the screen.
 * @param {string} text
 * @param {"info" | "ok" | "error"} [kind]
 */
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

/** @param {string} gameId */
const TOKEN_KEY = (gameId) => `dicepoker:tokens:${gameId}`;

/**
 * {seat: token} for the seats this browser holds in a game.
 * @param {string} gameId
 * @returns {Record<string, unknown>}
 */
export function loadTokens(gameId) {
  try {
    const raw = localStorage.getItem(TOKEN_KEY(gameId));
    const value = raw ? JSON.parse(raw) : {};
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * @param {string} gameId
 * @param {number} seat
 * @param {string} token
 */
export function saveToken(gameId, seat, token) {
  const tokens = loadTokens(gameId);
  tokens[String(seat)] = token;
  try {
    localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify(tokens));
  } catch {
    /* private mode: the game still works for this page's life */
  }
}

/**
 * @param {string} gameId
 * @param {number} seat
 */
export function forgetToken(gameId, seat) {
  const tokens = loadTokens(gameId);
  delete tokens[String(seat)];
  try {
    localStorage.setItem(TOKEN_KEY(gameId), JSON.stringify(tokens));
  } catch {
    /* ignore */
  }
}

/** @param {string} name */
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
    if (!(link instanceof HTMLElement)) continue;
    link.addEventListener("click", () => {
      const lang = link.dataset.langChoice || "";
      if (LANGS.includes(lang)) {
        document.cookie = `lang=${lang}; path=/; max-age=31536000; samesite=lax`;
      }
    });
  }
}

const relative = new Intl.RelativeTimeFormat(LANG === "pt" ? "pt-BR" : LANG, { numeric: "auto" });
/**
 * "3 min ago"-style time, with the browser's relative time formatter.
 * @param {string | null | undefined} iso
 */
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

/** @param {string} text */
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
