// The daily challenge (/daily, docs/api.md "Daily challenge"): each preset's challenge of the day
// with its par, "Play" (or "Resume" your game), your result against par, the day's leaderboard
// and the commitment to the day's dice (the seed, once the day is over). A past day: ?date=.
// Today's challenge is played by logged-in accounts only, once a day, ranked; the other players'
// games of the day open when it is over (docs/fair-play.md): a visitor is asked to log in.
/** @import { DailyChallenge, DailyLeaderboard, DailyStarted, ErrorResponse } from "../../typings/protocol" */
import { $, LANG, ago, api, clear, errorText, h, loadCatalog, num, saveToken, signed, t } from "./common.js";
import { shortHex } from "./fair.js";

/** How often a card asks again while its par is being worked out. */
const PAR_POLL_MS = 2000;
const PAR_POLL_TRIES = 60;
/** The UTC day of the page, YYYY-MM-DD (null: today). */
const asked = new URL(window.location.href).searchParams.get("date");
const DAY = asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : null;

/** The logged-in account's name (its games are ranked), as the server said; null: anonymous. */
/** @type {string | null} */
let account = null;
/** Whether the day and the player are drawn (from the first card's answer). */
let painted = false;

/** @param {string} preset */
function query(preset) {
  const day = DAY ? `?date=${encodeURIComponent(DAY)}` : "";
  return `/api/daily/${encodeURIComponent(preset)}${day}`;
}

/**
 * A day written YYYY-MM-DD, in words of the page's language (the UTC calendar day).
 * @param {string} day
 */
function dayWords(day) {
  const format = new Intl.DateTimeFormat(LANG === "pt" ? "pt-BR" : LANG, { dateStyle: "full", timeZone: "UTC" });
  return format.format(new Date(`${day}T12:00:00Z`));
}

/**
 * The day `days` after `day` (YYYY-MM-DD).
 * @param {string} day
 * @param {number} days
 */
function shifted(day, days) {
  const moment = new Date(`${day}T12:00:00Z`);
  moment.setUTCDate(moment.getUTCDate() + days);
  return moment.toISOString().slice(0, 10);
}

/**
 * The header: the day, when it ends, the links to the days around it.
 * @param {DailyChallenge} challenge
 */
function paintDay(challenge) {
  $("#daily-date").textContent = t("{date} (UTC)", { date: dayWords(challenge.date) });
  $("#daily-ends").textContent = challenge.over
    ? t("This day is over: its seeds are revealed.")
    : t("The day ends {when}.", { when: ago(challenge.ends_at) });
  const before = $("#day-before", HTMLAnchorElement);
  before.href = `/daily?date=${shifted(challenge.date, -1)}`;
  const after = $("#day-after", HTMLAnchorElement);
  after.hidden = !DAY || !challenge.over;
  after.href = `/daily?date=${shifted(challenge.date, 1)}`;
  $("#day-today").hidden = !DAY;
}

/**
 * Who plays: the account (ranked); a visitor is asked to log in (the page's template drew the
 * prompt), except on a day that is over, which nobody plays any more.
 * @param {boolean} over
 */
function paintPlayer(over) {
  const who = $("#daily-who");
  who.textContent = account ? t("Playing as {name}: your games are ranked, one a day for each game.", { name: account }) : "";
  who.hidden = !account;
  const login = document.getElementById("daily-login");
  if (login) login.hidden = over;
}

/**
 * A score against par: "+4", "−12", "0", or "" when either is unknown.
 * @param {number | null} toPar
 */
function parWords(toPar) {
  return toPar === null || toPar === undefined ? "" : signed(toPar);
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * A game's replay (with its analysis), as a small play icon named "Replay".
 * @param {string} href
 */
function replayLink(href) {
  const icon = document.createElementNS(SVG, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("aria-hidden", "true");
  icon.setAttribute("class", "ico");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M7 4.5v15l12.5-7.5z");
  path.setAttribute("fill", "currentColor");
  icon.appendChild(path);
  return h("a", { href, class: "replay-link", "aria-label": t("Replay"), title: t("Replay") }, icon);
}

/**
 * The leaderboard's table.
 * @param {HTMLElement} card
 * @param {DailyLeaderboard} board
 * @param {string | null} mine
 * @param {boolean} over whether the day is over (every game's replay opens)
 * @param {boolean} mineOver whether your own game is over (its replay opens)
 */
function paintBoard(card, board, mine, over, mineOver) {
  const box = clear(/** @type {HTMLElement} */ (card.querySelector(".daily-board")));
  const rows = [...board.ranked, ...board.unranked];
  if (!rows.length) {
    box.appendChild(h("p", { class: "hint" }, t("No finished games yet.")));
  } else {
    const head = h("tr", null,
      h("th", { scope: "col" }, "#"),
      h("th", { scope: "col" }, t("Player")),
      h("th", { scope: "col", class: "num" }, t("Score")),
      h("th", { scope: "col", class: "num" }, t("Against par")),
      h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("Replay"))));
    const body = h("tbody", null, rows.map((entry) => h("tr", { class: entry.id === mine ? "mine" : null, dataset: { game: entry.id } },
      h("td", { class: "place" }, entry.place === null ? "–" : num(entry.place)),
      h("td", { class: "who" }, entry.name, entry.ranked ? null : h("span", { class: "unranked" }, t("unranked"))),
      h("td", { class: "num score" }, entry.score === null ? "" : num(entry.score)),
      h("td", { class: "num to-par" }, parWords(entry.to_par)),
      h("td", { class: "go" }, over || (mineOver && entry.id === mine) ? replayLink(entry.replay) : null))));
    box.appendChild(h("table", { class: "daily-table" }, h("thead", null, head), body));
  }
  if (board.playing > 0) box.appendChild(h("p", { class: "hint daily-playing" }, t("Still playing: {n}", { n: num(board.playing) })));
  const spoiler = /** @type {HTMLElement} */ (card.querySelector(".daily-spoiler"));
  spoiler.hidden = over || !rows.filter((entry) => entry.id !== mine).length;
}

/**
 * The commitment to the day's seed, and the seed once the day is over.
 * @param {HTMLElement} card
 * @param {DailyChallenge} challenge
 */
function paintFair(card, challenge) {
  const box = clear(/** @type {HTMLElement} */ (card.querySelector(".daily-fair")));
  box.appendChild(h("p", { class: "fair-line" },
    h("span", { class: "fair-key" }, `${t("Commitment")}: `),
    h("code", { class: "fair-hex", title: challenge.commitment }, shortHex(challenge.commitment))));
  if (challenge.seed) {
    box.appendChild(h("p", { class: "fair-line daily-seed" },
      h("span", { class: "fair-key" }, `${t("Seed")}: `),
      h("code", { class: "fair-hex full", title: challenge.seed }, challenge.seed)));
    const [before, after = ""] = t("Check any game of the day yourself: download its record and run {command}.").split("{command}");
    box.appendChild(h("p", { class: "hint" }, before, h("code", null, "dicepoker verify FILE"), after));
  } else {
    box.appendChild(h("p", { class: "hint" }, t("The seed of a daily challenge is revealed when its day is over.")));
  }
}

/**
 * Start your game of today's challenge, then go to its table.
 * @param {HTMLElement} card
 * @param {string} preset
 */
async function play(card, preset) {
  const error = /** @type {HTMLElement} */ (card.querySelector(".daily-error"));
  error.textContent = "";
  const button = /** @type {HTMLButtonElement} */ (card.querySelector(".daily-play"));
  button.disabled = true;
  const result = await api("POST", `/api/daily/${encodeURIComponent(preset)}`);
  if (result.ok && result.data) {
    const started = /** @type {DailyStarted} */ (result.data);
    saveToken(started.id, started.seat, started.token);
    window.location.assign(started.url);
    return;
  }
  const refusal = /** @type {ErrorResponse | null} */ (result.data)?.error;
  if (refusal && refusal.code === "daily_played" && typeof refusal.game === "string") {
    window.location.assign(`/g/${encodeURIComponent(refusal.game)}`);
    return;
  }
  button.disabled = false;
  error.textContent = errorText(result);
}

/**
 * Draw one preset's card: par, your game, the button, the board, the commitment.
 * @param {HTMLElement} card
 * @param {number} tries
 */
async function paintCard(card, tries = 0) {
  const preset = card.dataset.preset || "";
  const answer = await api("GET", query(preset));
  const missing = /** @type {HTMLElement} */ (card.querySelector(".daily-missing"));
  const button = /** @type {HTMLButtonElement} */ (card.querySelector(".daily-play"));
  const parValue = /** @type {HTMLElement} */ (card.querySelector(".daily-par-value"));
  if (!answer.ok || !answer.data) {
    missing.hidden = answer.status !== 404;
    card.classList.add("daily-none");
    button.hidden = true;
    parValue.textContent = "–";
    if (answer.status !== 404) {
      /** @type {HTMLElement} */ (card.querySelector(".daily-error")).textContent = errorText(answer);
    }
    card.setAttribute("aria-busy", "false");
    return;
  }
  const challenge = /** @type {DailyChallenge} */ (answer.data);
  if (!painted) {
    painted = true;
    paintDay(challenge);
    account = challenge.account;
    paintPlayer(challenge.over);
  }
  parValue.textContent = challenge.par === null ? t("being worked out…") : num(challenge.par);
  parValue.classList.toggle("pending", challenge.par === null);
  parValue.title = t("The expert’s score on these dice");
  const mine = challenge.mine || null;
  const boardAnswer = await api("GET", `/api/daily/${encodeURIComponent(preset)}/leaderboard${DAY ? `?date=${DAY}` : ""}`);
  const board = /** @type {DailyLeaderboard | null} */ (boardAnswer.ok ? boardAnswer.data : null);
  const finished = mine && mine.status === "finished";
  const result = /** @type {HTMLElement} */ (card.querySelector(".daily-result"));
  result.hidden = !finished;
  clear(result);
  if (finished && mine.score !== null) {
    result.appendChild(h("span", null, t("Your score: {score}", { score: num(mine.score) })));
    if (mine.to_par !== null) {
      result.appendChild(document.createTextNode(" · "));
      result.appendChild(h("strong", { class: mine.to_par >= 0 ? "par-ahead" : "par-behind" },
        t("{diff} against par", { diff: parWords(mine.to_par) })));
    }
  }
  // The button: play today's challenge, resume your game, or nothing (a past day, played, or
  // a visitor not logged in: the prompt above asks them to log in).
  button.hidden = challenge.over || !challenge.account || Boolean(finished);
  button.disabled = false;
  button.textContent = mine && !finished ? t("Resume") : t("Play the challenge");
  if (mine && !finished) {
    button.onclick = () => window.location.assign(`/g/${encodeURIComponent(mine.id)}`);
  } else {
    button.onclick = () => { play(card, preset); };
  }
  if (board) paintBoard(card, board, mine ? mine.id : null, challenge.over, Boolean(finished));
  paintFair(card, challenge);
  card.setAttribute("aria-busy", "false");
  if (challenge.par === null && tries < PAR_POLL_TRIES) {
    setTimeout(() => { paintCard(card, tries + 1); }, PAR_POLL_MS);
  }
}

async function main() {
  await loadCatalog();
  const cards = [...document.querySelectorAll(".daily-card")].filter((card) => card instanceof HTMLElement);
  await Promise.all(cards.map((card) => paintCard(/** @type {HTMLElement} */ (card))));
  if (!painted) paintPlayer(Boolean(DAY));
  if (DAY && !painted) {
    // No challenge that day at all: still say which day it is, and lead to the others.
    $("#daily-date").textContent = t("{date} (UTC)", { date: dayWords(DAY) });
    $("#day-before", HTMLAnchorElement).href = `/daily?date=${shifted(DAY, -1)}`;
    $("#day-today").hidden = false;
  }
}

main();
