// Who is winning: each seat's chance of finishing first, as the server judged it after every
// event (`win_probability` of the chances message, and of the snapshots: the welcome, sync and
// seats messages and GET /api/games/{id}; an event never carries it; docs/api.md), drawn as a bar per player in the players' strip (felt.js),
// and kept by seq for the game this page shows: the live curve, until the game's analysis gives
// the whole one. A position the server did not judge (solitaire, no answer in time) carries no
// chances: the strip shows nothing before the first ones, and the last ones dimmed after.
// One tap on a bar tells whose play the chances assume (each seat's `plays_like`: a bot's level,
// a person's from their rating, or a newcomer's): the same words are its title on a desktop.
import { LANG, h, levelName, t, toast } from "./common.js";
// (game.js imports this module too: the game and its names are read only when a bar is drawn.)
import { game, playerName } from "./game.js";

/** @import { SeatView } from "../../typings/protocol" */

/** The chances of the newest position judged: its seq and one value per seat (summing to 1). */
/** @type {{ seq: number, values: number[] | null }} */
const latest = { seq: -1, values: null };

/** Every judged position this page was told of, by seq (oldest first). */
const history = /** @type {Map<number, number[]>} */ (new Map());
/** The most positions kept (a game has a few hundred events; a long tie-break a few more). */
const HISTORY_MAX = 4000;

const percentFormat = new Intl.NumberFormat(LANG === "pt" ? "pt-BR" : LANG, { style: "percent", maximumFractionDigits: 0 });

/**
 * A whole percentage in the page's language: 62%, 62 %.
 * @param {number} whole
 */
export function percent(whole) {
  return percentFormat.format(whole / 100);
}

/**
 * The chances a message carries, checked: one number in [0, 1] per seat, summing to about 1
 * (scaled to exactly 1); null for anything else (absent, malformed).
 * @param {unknown} value
 * @returns {number[] | null}
 */
export function readChances(value) {
  if (!Array.isArray(value) || value.length < 2) return null;
  if (!value.every((v) => typeof v === "number" && Number.isFinite(v) && v >= -1e-9 && v <= 1 + 1e-9)) return null;
  const values = value.map((v) => Math.min(1, Math.max(0, /** @type {number} */ (v))));
  const sum = values.reduce((a, b) => a + b, 0);
  if (!(sum > 0.98 && sum < 1.02)) return null;
  return values.map((v) => v / sum);
}

/**
 * Take the chances of the position at `seq` from a message's `win_probability` (if it has
 * any): the newest ones drawn, and one more point of the history.
 * @param {unknown} value
 * @param {number} seq
 * @returns {boolean} whether they were taken
 */
export function takeChances(value, seq) {
  const values = readChances(value);
  if (!values || typeof seq !== "number" || seq < 0) return false;
  if (seq >= latest.seq) {
    latest.seq = seq;
    latest.values = values;
  }
  history.delete(seq);
  history.set(seq, values);
  if (history.size > HISTORY_MAX) history.delete(history.keys().next().value ?? seq);
  return true;
}

/**
 * The chances this page was told of, by seq, oldest first: [{seq, values}] (a copy).
 * @returns {{ seq: number, values: number[] }[]}
 */
export function chanceHistory() {
  return [...history].sort((a, b) => a[0] - b[0]).map(([seq, values]) => ({ seq, values: [...values] }));
}

/**
 * Whole percentages summing to exactly 100 (largest remainders): the bars and their numbers
 * agree with each other, and with 100.
 * @param {number[]} values
 */
export function wholePercents(values) {
  const raw = values.map((v) => v * 100);
  const whole = raw.map((v) => Math.floor(v + 1e-9));
  let left = 100 - whole.reduce((a, b) => a + b, 0);
  const order = raw.map((v, i) => ({ rest: v - whole[i], i })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    whole[i] += 1;
    left -= 1;
  }
  return whole;
}

/**
 * What the strip shows of the chances of `players` seats with the game at `seq`: per seat the
 * whole percentage, its short text ("62%", "<1%") and its words, and whether they are of an
 * earlier position than the one shown (dimmed); null: nothing to show.
 * @param {number} players
 * @param {number} seq
 */
export function shownChances(players, seq) {
  const values = latest.values;
  if (players < 2 || !values || values.length !== players) return null;
  const whole = wholePercents(values);
  const texts = whole.map((n, i) => (n === 0 && values[i] > 0 ? `<${percent(1)}` : n === 100 && values[i] < 1 ? `>${percent(99)}` : percent(n)));
  const words = whole.map((n, i) =>
    n === 0 && values[i] > 0 ? t("less than {pct}", { pct: percent(1) }) : n === 100 && values[i] < 1 ? t("more than {pct}", { pct: percent(99) }) : percent(n),
  );
  const lead = Math.max(...whole);
  return { whole, texts, words, leader: whole.map((n) => n === lead && n > 0), stale: latest.seq < seq };
}

/** @typedef {NonNullable<ReturnType<typeof shownChances>>} ShownChances */

/**
 * The words of a seat's chance, for a title or a screen reader: "Chance of winning: 62%",
 * "… (before the last move)" when the newest position was not judged.
 * @param {ShownChances} shown
 * @param {number} seat
 */
export function chanceWords(shown, seat) {
  const words = t("Chance of winning: {pct}", { pct: shown.words[seat] });
  return shown.stale ? `${words} (${t("before the last move")})` : words;
}

/** A small cup before a chance (desktop): what the percentage is, at a glance. */
export function cup() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "chance-cup");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", "M6 2h12v2h4v3a5 5 0 0 1-5 5h-.4A6 6 0 0 1 13 14.9V18h4v4H7v-4h4v-3.1A6 6 0 0 1 7.4 12H7a5 5 0 0 1-5-5V4h4zm0 4H4v1a3 3 0 0 0 2 2.8zm12 0v3.8A3 3 0 0 0 20 7V6z");
  svg.appendChild(path);
  return svg;
}

/**
 * What one seat's chances assume: "Casual bot", "Ana plays like a newcomer (no rated games)",
 * "Ana plays like Advanced (rating 1,810)"; null where the server did not say.
 * @param {SeatView | undefined} info
 * @param {string} name
 */
export function assumedPlay(info, name) {
  const like = info && info.plays_like;
  if (!like) return null;
  const level = levelName(like.level);
  if (like.basis === "bot") return t("{level} bot", { level });
  if (like.basis === "rating" && like.rating !== null) return t("{name} plays like {level} (rating {rating})", { name, level, rating: like.rating });
  return t("{name} plays like a newcomer (no rated games)", { name });
}

/**
 * The words of what every seat's chances assume: "Chances assume: Ana plays like a newcomer
 * (no rated games), Casual bot, Intermediate bot"; null where the server did not say.
 * @param {(SeatView | undefined)[]} seats
 * @param {(seat: number) => string} nameOf
 */
export function assumptionWords(seats, nameOf) {
  const parts = seats.map((info, seat) => assumedPlay(info, nameOf(seat)));
  if (!parts.length || parts.some((part) => part === null)) return null;
  return t("Chances assume: {seats}", { seats: parts.join(", ") });
}

/** A bar's tap: tell what the chances assume. */
function tellAssumptions() {
  const words = assumptionWords(game.seats, playerName);
  if (words) toast(words);
}

/**
 * Paint the bar of `seat` in `meter` (made if null): a meter (role="meter") whose fill moves
 * to the new width (a CSS transition: the element stays in the page from one drawing to the
 * next). Hidden when there is nothing to show.
 * @param {HTMLElement | null} meter
 * @param {ShownChances | null} shown
 * @param {number} seat
 * @param {string} name the player's name (the meter's accessible name says whose it is)
 */
export function paintMeter(meter, shown, seat, name) {
  let bar = meter;
  if (!bar) {
    bar = h("div", { class: "chance", role: "meter", "aria-valuemin": "0", "aria-valuemax": "100" }, h("span", { class: "chance-fill" }));
    bar.addEventListener("click", tellAssumptions);
  }
  const fill = /** @type {HTMLElement} */ (bar.firstElementChild);
  if (!shown) {
    bar.hidden = true;
    bar.removeAttribute("aria-valuenow");
    fill.style.width = "0%";
    return bar;
  }
  bar.hidden = false;
  bar.classList.toggle("stale", shown.stale);
  bar.classList.toggle("leader", shown.leader[seat]);
  bar.setAttribute("aria-label", t("{name}: chance of winning", { name }));
  bar.setAttribute("aria-valuenow", String(shown.whole[seat]));
  bar.setAttribute("aria-valuetext", shown.stale ? `${shown.words[seat]} (${t("before the last move")})` : shown.words[seat]);
  const assumed = assumptionWords(game.seats, playerName);
  bar.title = assumed ? `${chanceWords(shown, seat)}\n${assumed}` : chanceWords(shown, seat);
  fill.style.width = `${shown.whole[seat]}%`;
  return bar;
}
