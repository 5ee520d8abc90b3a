// The replay viewer (/replay/g/{id} and /replay/r/{id}): a game or an imported record, turn by
// turn and roll by roll, from GET /api/{games|records}/{id}/position?turn=T&roll=R.
/** @import { Analysis, Position, RulesView, Record as GameRecord } from "../../typings/protocol" */
/** @import { PlacedDecision } from "./analysis.js" */
import { $, api, clear, errorText, h, loadCatalog, minus, num, variantName, rowLabel, shownName, t } from "./common.js";
import { codeOf } from "./accountforms.js";
import { MISTAKE, actionNode, closedAnalysisText, decisionNode, placeDecisions, renderAnalysis, renderAnalysisMessage, rollOf } from "./analysis.js";
import { markCurvePosition } from "./curve.js";
import { DiceTray } from "./dice.js";
import { loadVerification } from "./fair.js";
import { drawSheets } from "./sheet.js";
import { roundsOf, turnCount, turnLabel } from "./turns.js";

const main = $("#main");
const source = main.dataset.source || "games"; // "games" or "records"
const itemId = main.dataset.itemId || "";
const base = `/api/${source}/${encodeURIComponent(itemId)}`;

/** @type {Map<string, Position>} */
const cache = new Map();
/** @type {GameRecord | null} */
let record = null;
/** @type {Position | null} the position shown */
let current = null;
/** @type {ReturnType<typeof setInterval> | null} */
let playing = null;
const tray = new DiceTray($("#dice"), null);
let loading = false;
/** @type {{ data: Analysis, placed: PlacedDecision[] } | null} the analysis of the game, once loaded */
let analysis = null;

/**
 * The position after `turn` turns and `roll` rolls of the next (asked once, then kept).
 * @param {number} turn
 * @param {number} roll
 * @returns {Promise<Position>}
 */
async function position(turn, roll) {
  const key = `${turn}:${roll}`;
  const known = cache.get(key);
  if (known) return known;
  const result = await api("GET", `${base}/position?turn=${turn}&roll=${roll}`);
  if (!result.ok || !result.data) throw new Error(errorText(result));
  const data = /** @type {Position} */ (result.data);
  cache.set(`${data.turn ?? turn}:${data.roll ?? roll}`, data);
  cache.set(key, data);
  return data;
}

/**
 * Show the position after `turn` turns and `roll` rolls of the next.
 * @param {number} turn
 * @param {number} roll
 */
async function go(turn, roll) {
  if (loading) return;
  loading = true;
  try {
    const data = await position(Math.max(0, turn), Math.max(0, roll));
    current = data;
    render();
  } catch (error) {
    $("#replay-error").textContent = error instanceof Error ? error.message : String(error);
    stop();
  } finally {
    loading = false;
  }
}

/** @param {number} turn */
function rollsOf(turn) {
  if (record && Array.isArray(record.turns) && record.turns[turn]) return (record.turns[turn].rolls || []).length;
  return 99; // the server clamps
}

function next() {
  if (!current) return;
  if (current.roll < current.rolls) go(current.turn, current.roll + 1);
  else if (current.turn < current.turns) go(current.turn + 1, 0);
  else stop();
}

function prev() {
  if (!current) return;
  if (current.roll > 0) go(current.turn, current.roll - 1);
  else if (current.turn > 0) go(current.turn - 1, rollsOf(current.turn - 1));
}

const nextTurn = () => current && go(Math.min(current.turn + 1, current.turns), 0);
const prevTurn = () => current && go(current.roll > 0 ? current.turn : Math.max(0, current.turn - 1), 0);
const first = () => go(0, 0);
const last = () => current && go(current.turns, 0);

function play() {
  if (playing) {
    stop();
    return;
  }
  if (current && current.turn >= current.turns) first();
  playing = setInterval(next, 900);
  $("#rp-play").classList.add("playing");
  $("#rp-play").setAttribute("aria-label", t("Pause"));
}

function stop() {
  if (playing !== null) clearInterval(playing);
  playing = null;
  $("#rp-play").classList.remove("playing");
  $("#rp-play").setAttribute("aria-label", t("Play"));
}

/**
 * @param {string} variant
 * @param {string | null | undefined} move
 */
function moveText(variant, move) {
  if (!move) return "";
  const [verb, row] = String(move).split(/\s+/);
  const label = row ? rowLabel(variant, row) : "";
  if (verb === "score") return t("score {row}", { row: label });
  if (verb === "strike") return t("strike {row}", { row: label });
  if (verb === "zero") return t("zero in {row}", { row: label });
  return move;
}

/** @param {number} turn */
function turnMove(turn) {
  const entry = record && record.turns && record.turns[turn];
  if (!entry) return "";
  if (entry.forfeit) return t("out of time");
  return entry.move || "";
}

function render() {
  const data = current;
  if (!data) return;
  const state = data.state;
  const rules = state.rules;
  const players = state.players;
  $("#replay-error").textContent = "";
  $("#replay-title").textContent = `${t("Replay")}: ${variantName(rules.variant)}`;
  document.title = `${t("Replay")} · ${variantName(rules.variant)} · ${t("site.name")}`;
  const turn = state.turn;
  const seat = turn ? turn.seat : null;

  // Players.
  const list = clear($("#players"));
  players.forEach((player, index) => {
    list.appendChild(
      h("li", { class: `player ${index === seat ? "turn" : ""}`, "aria-current": index === seat ? "true" : null },
        h("span", { class: "player-avatar", "aria-hidden": "true" }, (Array.from(player.name || "?")[0] || "?").toUpperCase()),
        h("span", { class: "player-text" }, h("span", { class: "player-name" }, shownName(player.name))),
        h("span", { class: "player-total" }, num(player.total))),
    );
  });

  // Where we are, as the table and the analysis say it (turns.js): the mover's round.
  const count = data.turn < data.turns ? turnCount(state) : null;
  const where = count
    ? turnLabel({ round: count.round, rounds: count.rounds, name: shownName(players[count.seat].name), roll: data.roll })
    : state.finished ? t("End of the game") : t("End of the record");
  const tie = state.tiebreak && !state.finished ? ` · ${t("Tie-break game {n}", { n: num(state.tiebreak.game) })}` : "";
  $("#replay-position").textContent = `${where}${tie}`;

  // Dice: the ones kept from the previous roll are shown held.
  /** @type {Set<number>} */
  const keep = new Set();
  const entry = record && record.turns && record.turns[data.turn];
  const before = entry && entry.rolls && data.roll >= 2 ? entry.rolls[data.roll - 1] : null;
  if (before) for (const i of before.keep || []) keep.add(i);
  tray.paint({ count: rules.dice, values: turn && turn.rolls > 0 ? turn.dice : [], faceLabels: rules.face_labels, held: keep, canHold: false, rolled: null });
  $("#dice").classList.toggle("idle", !turn || turn.rolls === 0);

  // The move: the one just made (at the start of a turn) or the one to come (after the last roll).
  const moveBox = $("#replay-move");
  if (data.turn < data.turns && data.roll === data.rolls && data.rolls > 0) {
    const upcoming = data.move || turnMove(data.turn);
    moveBox.textContent = upcoming ? `${t("Next")}: ${moveText(rules.variant, upcoming)}` : "";
  } else if (data.roll === 0 && data.turn > 0) {
    moveBox.textContent = `${t("Last move")}: ${moveText(rules.variant, turnMove(data.turn - 1))}`;
  } else {
    moveBox.textContent = "";
  }

  // Sheets: the seat to move big, the others small; the next move's row marked.
  const big = seat !== null ? seat : state.ranking && state.ranking.length ? state.ranking[0] : 0;
  drawSheets(state, { mainBox: $("#main-sheet"), othersBox: $("#other-sheets"), big, turnSeat: state.finished ? null : seat });
  const upcomingRow = data.roll === data.rolls && data.move ? String(data.move).split(/\s+/)[1] : null;
  if (upcomingRow) {
    const row = $("#main-sheet").querySelector(`tr[data-row="${CSS.escape(upcomingRow)}"]`);
    if (row) row.classList.add("next-move");
  }

  // Controls.
  const slider = $("#rp-slider", HTMLInputElement);
  slider.max = String(data.turns);
  slider.value = String(data.turn);
  slider.setAttribute("aria-valuetext", where);
  const atStart = data.turn === 0 && data.roll === 0;
  const atEnd = data.turn >= data.turns;
  for (const id of ["#rp-first", "#rp-prev", "#rp-prev-turn"]) $(id, HTMLButtonElement).disabled = atStart;
  for (const id of ["#rp-next", "#rp-next-turn", "#rp-last"]) $(id, HTMLButtonElement).disabled = atEnd;
  renderLog(rules.variant);
  renderTurnAnalysis(rules);
  markCurvePosition($("#analysis"), data.turn, data.roll);
}

/**
 * The decisions of the turn shown, each with what it lost; the one made at this roll marked, and
 * said in full above them: the move played, the expert's choice, the points and chance lost.
 * @param {RulesView} rules
 */
function renderTurnAnalysis(rules) {
  const box = $("#turn-analysis");
  const data = current;
  const mine = analysis && data && data.turn < data.turns ? analysis.placed.filter((d) => d.turn === data.turn + 1) : [];
  box.hidden = !mine.length;
  clear(box);
  if (!mine.length) return;
  box.appendChild(h("p", { class: "ta-title" }, t("Analysis of this turn")));
  const now = data ? mine.find((d) => rollOf(d) === data.roll) : undefined;
  if (now) box.appendChild(h("p", { class: `ta-decision ${now.loss > MISTAKE ? "mistake" : ""}` }, decisionNode(rules.variant, now, now.dice, rules.face_labels)));
  const list = h("ol", { class: "ta-list" });
  for (const d of mine) {
    const k = rollOf(d) - 1;
    const mistake = d.loss > MISTAKE;
    const here = d === now;
    const best = d.loss <= 0;
    list.appendChild(
      h("li", { class: ["ta-item", mistake ? "mistake" : "", best ? "best" : "", here ? "here" : ""].join(" ").trim(), "aria-current": here ? "step" : null },
        h("span", { class: "ta-when" }, t("after roll {n}", { n: num(k + 1) })),
        h("span", { class: "ta-played" }, actionNode(rules.variant, d.action, d.dice, rules.face_labels)),
        best
          ? h("span", { class: "ta-verdict" }, t("best move"))
          : h("span", { class: "ta-verdict" }, `${t("best")}: `, actionNode(rules.variant, d.best, d.dice, rules.face_labels)),
        h("span", { class: "ta-loss" }, minus(d.loss)),
        mistake ? h("span", { class: "tag ta-tag" }, t("mistake")) : null),
    );
  }
  box.appendChild(list);
}

/** The analysis of the whole game (GET …/analysis) under the viewer, and per turn in it. */
async function loadAnalysis() {
  const box = $("#analysis");
  box.hidden = false;
  renderAnalysisMessage(box, t("Loading the analysis…"));
  const result = await api("GET", `${base}/analysis`);
  const data = /** @type {Analysis | null} */ (result.ok ? result.data : null);
  if (result.status === 403 && codeOf(result) === "competitive") {
    renderAnalysisMessage(box, closedAnalysisText(false));
    return;
  }
  if (!data || !Array.isArray(data.players)) {
    renderAnalysisMessage(box, t("The analysis is not available."));
    return;
  }
  analysis = { data, placed: placeDecisions(data, record) };
  const rules = current ? current.state.rules : null;
  renderAnalysis(box, data, {
    variant: rules ? rules.variant : data.variant,
    faceLabels: rules ? rules.face_labels : null,
    rules,
    record,
    href: (turn, roll) => `${location.pathname}?turn=${turn}&roll=${roll}`,
    onJump: (turn, roll) => {
      stop();
      go(turn, roll);
      $("#replay-position").scrollIntoView({ block: "center", behavior: "smooth" });
    },
  });
  markLog();
  if (current) render();
}

/** A turn of the log in which a mistake was made shows what its decisions lost. */
function markLog() {
  if (!analysis) return;
  for (const item of $("#replay-log").children) {
    if (!(item instanceof HTMLElement)) continue;
    const turn = Number(item.dataset.turn) + 1;
    const lost = analysis.placed.filter((d) => d.turn === turn).reduce((sum, d) => sum + d.loss, 0);
    const button = item.querySelector(".log-item");
    if (!button || button.querySelector(".log-loss")) continue;
    if (lost > MISTAKE) button.appendChild(h("span", { class: "log-loss", title: t("Expected points lost") }, minus(lost)));
  }
}

/**
 * Who played turn `index` of the record (the server says each turn's seat), as a log item's part.
 * @param {number} index
 */
function whoMoved(index) {
  const seat = current && Array.isArray(current.seats) ? current.seats[index] : undefined;
  const name = seat !== undefined && current ? current.players[seat] : undefined;
  return name === undefined ? null : h("span", { class: "log-who" }, shownName(name));
}

/** @param {string} variant */
function renderLog(variant) {
  const log = $("#replay-log");
  if (!record || !Array.isArray(record.turns) || !current) return;
  const shown = current.turn;
  if (!log.childElementCount) {
    const rounds = roundsOf(current.state.rules);
    const seats = Array.isArray(current.seats) ? current.seats : [];
    /** @type {Map<number, number>} the turns each seat has played so far */
    const played = new Map();
    record.turns.forEach((entry, index) => {
      // The player's round, as the table counts it (a tie-break's turns go on counting).
      const seat = seats[index];
      const round = seat === undefined ? index + 1 : (played.get(seat) || 0) + 1;
      if (seat !== undefined) played.set(seat, round);
      const text = entry.forfeit ? t("out of time") : moveText(variant, entry.move) || "…";
      log.appendChild(
        h("li", { dataset: { turn: String(index) } },
          h("button", { type: "button", class: "log-item", onclick: () => { stop(); go(index, rollsOf(index)); } },
            h("span", { class: "log-n", title: turnLabel({ round: Math.min(round, rounds), rounds }) }, num(Math.min(round, rounds))),
            whoMoved(index),
            h("span", { class: "log-move" }, text),
            entry.auto ? h("span", { class: "tag" }, t("auto")) : null)),
      );
    });
  }
  for (const item of log.children) {
    if (!(item instanceof HTMLElement)) continue;
    const on = Number(item.dataset.turn) === shown;
    item.classList.toggle("current", on);
    if (on) item.scrollIntoView({ block: "nearest" });
  }
}

/** @param {KeyboardEvent} press */
function onKey(press) {
  if (press.altKey || press.ctrlKey || press.metaKey) return;
  const target = press.target instanceof HTMLElement ? press.target : null;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  /** @type {Record<string, () => unknown>} */
  const actions = {
    ArrowRight: () => (press.shiftKey ? nextTurn() : next()),
    ArrowLeft: () => (press.shiftKey ? prevTurn() : prev()),
    PageDown: nextTurn,
    PageUp: prevTurn,
    Home: first,
    End: last,
    p: play,
    P: play,
    " ": play,
  };
  const action = Object.prototype.hasOwnProperty.call(actions, press.key) ? actions[press.key] : null;
  if (!action) return;
  if (press.key === " " && target && target.tagName === "BUTTON") return;
  press.preventDefault();
  if (press.key !== " " && press.key !== "p" && press.key !== "P") stop();
  action();
}

async function start() {
  await loadCatalog();
  const result = await api("GET", source === "games" ? `${base}/record` : base);
  if (result.ok && result.data) record = /** @type {GameRecord} */ (result.data);
  $("#rp-first").addEventListener("click", () => { stop(); first(); });
  $("#rp-prev").addEventListener("click", () => { stop(); prev(); });
  $("#rp-next").addEventListener("click", () => { stop(); next(); });
  $("#rp-prev-turn").addEventListener("click", () => { stop(); prevTurn(); });
  $("#rp-next-turn").addEventListener("click", () => { stop(); nextTurn(); });
  $("#rp-last").addEventListener("click", () => { stop(); last(); });
  $("#rp-play").addEventListener("click", play);
  const slider = $("#rp-slider", HTMLInputElement);
  slider.addEventListener("input", () => { stop(); go(Number(slider.value), 0); });
  document.addEventListener("keydown", onKey);
  const params = new URLSearchParams(location.search);
  await go(Number(params.get("turn")) || 0, Number(params.get("roll")) || 0);
  if (!current && !result.ok) $("#replay-error").textContent = errorText(result);
  if (current) loadAnalysis();
  // An abandoned game never ends, so its dice seed stays secret: nothing to verify (no 409 asked for).
  const abandoned = record !== null && typeof record === "object" && "abandoned" in record;
  if (current && !abandoned) loadVerification($("#fair-result"), `${base}/verify`, { hideWithout: true });
}

start();
