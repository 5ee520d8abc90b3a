// The replay viewer (/replay/g/{id} and /replay/r/{id}): a game or an imported record, turn by
// turn and roll by roll, from GET /api/{games|records}/{id}/position?turn=T&roll=R.
import { $, api, clear, errorText, h, loadCatalog, minus, num, presetName, rowLabel, t } from "./common.js";
import { MISTAKE, actionNode, placeDecisions, renderAnalysis, renderAnalysisMessage } from "./analysis.js";
import { DiceTray } from "./dice.js";
import { loadVerification } from "./fair.js";
import { drawSheets } from "./sheet.js";

const main = document.getElementById("main");
const source = main.dataset.source; // "games" or "records"
const itemId = main.dataset.itemId;
const base = `/api/${source}/${encodeURIComponent(itemId)}`;

const cache = new Map();
let record = null;
let current = null; // the position shown
let playing = null;
let dice = null;
let loading = false;
let analysis = null; // {data, placed}: the analysis of the game, once loaded

async function position(turn, roll) {
  const key = `${turn}:${roll}`;
  if (cache.has(key)) return cache.get(key);
  const result = await api("GET", `${base}/position?turn=${turn}&roll=${roll}`);
  if (!result.ok || !result.data) throw new Error(errorText(result));
  const data = result.data;
  cache.set(`${data.turn ?? turn}:${data.roll ?? roll}`, data);
  cache.set(key, data);
  return data;
}

async function go(turn, roll) {
  if (loading) return;
  loading = true;
  try {
    const data = await position(Math.max(0, turn), Math.max(0, roll));
    current = data;
    render();
  } catch (error) {
    $("#replay-error").textContent = error.message;
    stop();
  } finally {
    loading = false;
  }
}

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
  clearInterval(playing);
  playing = null;
  $("#rp-play").classList.remove("playing");
  $("#rp-play").setAttribute("aria-label", t("Play"));
}

function moveText(preset, move) {
  if (!move) return "";
  const [verb, row] = String(move).split(/\s+/);
  const label = row ? rowLabel(preset, row) : "";
  if (verb === "score") return t("score {row}", { row: label });
  if (verb === "strike") return t("strike {row}", { row: label });
  if (verb === "zero") return t("zero in {row}", { row: label });
  return move;
}

function turnMove(turn) {
  const entry = record && record.turns && record.turns[turn];
  if (!entry) return "";
  if (entry.forfeit) return t("out of time");
  return entry.move || "";
}

function render() {
  const data = current;
  const state = data.state;
  const rules = state.rules;
  const players = state.players;
  $("#replay-error").textContent = "";
  $("#replay-title").textContent = `${t("Replay")}: ${presetName(rules.preset)}`;
  document.title = `${t("Replay")} · ${presetName(rules.preset)} · ${t("Dice poker")}`;
  const turn = state.turn;
  const seat = turn ? turn.seat : null;

  // Players.
  const list = clear($("#players"));
  players.forEach((player, index) => {
    list.appendChild(
      h("li", { class: `player ${index === seat ? "turn" : ""}`, "aria-current": index === seat ? "true" : null },
        h("span", { class: "player-avatar", "aria-hidden": "true" }, (Array.from(player.name || "?")[0] || "?").toUpperCase()),
        h("span", { class: "player-text" }, h("span", { class: "player-name" }, player.name)),
        h("span", { class: "player-total" }, num(player.total))),
    );
  });

  // Where we are.
  const where = data.turn >= data.turns
    ? state.finished ? t("End of the game") : t("End of the record")
    : t("Turn {n} of {total}", { n: data.turn + 1, total: data.turns });
  const rollText = data.turn < data.turns ? ` · ${t("roll {n} of {total}", { n: data.roll, total: data.rolls })}` : "";
  const tie = state.tiebreak && !state.finished ? ` · ${t("Tie-break game {n}", { n: state.tiebreak.game })}` : "";
  $("#replay-position").textContent = `${where}${rollText}${seat !== null && data.turn < data.turns ? ` · ${players[seat].name}` : ""}${tie}`;

  // Dice: the ones kept from the previous roll are shown held.
  const keep = new Set();
  const entry = record && record.turns && record.turns[data.turn];
  if (entry && data.roll >= 2 && entry.rolls[data.roll - 1]) for (const i of entry.rolls[data.roll - 1].keep || []) keep.add(i);
  dice.paint({ values: turn && turn.rolls > 0 ? turn.dice : [], faceLabels: rules.face_labels, held: keep, canHold: false, rolled: null });
  $("#dice").classList.toggle("idle", !turn || turn.rolls === 0);

  // The move: the one just made (at the start of a turn) or the one to come (after the last roll).
  const moveBox = $("#replay-move");
  if (data.turn < data.turns && data.roll === data.rolls && data.rolls > 0) {
    const upcoming = data.move || turnMove(data.turn);
    moveBox.textContent = upcoming ? `${t("Next")}: ${moveText(rules.preset, upcoming)}` : "";
  } else if (data.roll === 0 && data.turn > 0) {
    moveBox.textContent = `${t("Last move")}: ${moveText(rules.preset, turnMove(data.turn - 1))}`;
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
  const slider = $("#rp-slider");
  slider.max = String(data.turns);
  slider.value = String(data.turn);
  slider.setAttribute("aria-valuetext", where);
  $("#rp-first").disabled = data.turn === 0 && data.roll === 0;
  $("#rp-prev").disabled = data.turn === 0 && data.roll === 0;
  $("#rp-prev-turn").disabled = data.turn === 0 && data.roll === 0;
  $("#rp-next").disabled = data.turn >= data.turns;
  $("#rp-next-turn").disabled = data.turn >= data.turns;
  $("#rp-last").disabled = data.turn >= data.turns;
  renderLog(rules.preset, players);
  renderTurnAnalysis(rules);
}

/** The decisions of the turn shown, each with what it lost; the one made at this roll marked. */
function renderTurnAnalysis(rules) {
  const box = $("#turn-analysis");
  const data = current;
  const mine = analysis && data.turn < data.turns ? analysis.placed.filter((d) => d.turn === data.turn + 1) : [];
  box.hidden = !mine.length;
  clear(box);
  if (!mine.length) return;
  box.appendChild(h("p", { class: "ta-title" }, t("Analysis of this turn")));
  const list = h("ol", { class: "ta-list" });
  for (const d of mine) {
    const mistake = d.loss > MISTAKE;
    const here = data.roll === d.k + 1;
    const best = d.loss <= 0;
    list.appendChild(
      h("li", { class: ["ta-item", mistake ? "mistake" : "", best ? "best" : "", here ? "here" : ""].join(" ").trim(), "aria-current": here ? "step" : null },
        h("span", { class: "ta-when" }, t("after roll {n}", { n: num(d.k + 1) })),
        h("span", { class: "ta-played" }, actionNode(rules.preset, d.action, d.dice, rules.face_labels)),
        best
          ? h("span", { class: "ta-verdict" }, t("best move"))
          : h("span", { class: "ta-verdict" }, `${t("best")}: `, actionNode(rules.preset, d.best, d.dice, rules.face_labels)),
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
  if (!result.ok || !result.data || !Array.isArray(result.data.players)) {
    renderAnalysisMessage(box, t("The analysis is not available."));
    return;
  }
  const data = result.data;
  analysis = { data, placed: placeDecisions(data, record) };
  const rules = current ? current.state.rules : null;
  renderAnalysis(box, data, {
    preset: rules ? rules.preset : data.variant,
    faceLabels: rules ? rules.face_labels : null,
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
    const turn = Number(item.dataset.turn) + 1;
    const lost = analysis.placed.filter((d) => d.turn === turn).reduce((sum, d) => sum + d.loss, 0);
    const button = item.querySelector(".log-item");
    if (!button || button.querySelector(".log-loss")) continue;
    if (lost > MISTAKE) button.appendChild(h("span", { class: "log-loss", title: t("Expected points lost") }, minus(lost)));
  }
}

function renderLog(preset, players) {
  const log = $("#replay-log");
  if (!record || !Array.isArray(record.turns)) return;
  if (!log.childElementCount) {
    record.turns.forEach((entry, index) => {
      const text = entry.forfeit ? t("out of time") : moveText(preset, entry.move) || "…";
      log.appendChild(
        h("li", { dataset: { turn: String(index) } },
          h("button", { type: "button", class: "log-item", onclick: () => { stop(); go(index, rollsOf(index)); } },
            h("span", { class: "log-n" }, num(index + 1)),
            h("span", { class: "log-move" }, text),
            entry.auto ? h("span", { class: "tag" }, t("auto")) : null)),
      );
    });
  }
  for (const item of log.children) {
    const on = Number(item.dataset.turn) === current.turn;
    item.classList.toggle("current", on);
    if (on) item.scrollIntoView({ block: "nearest" });
  }
  void players;
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  const actions = {
    ArrowRight: () => (event.shiftKey ? nextTurn() : next()),
    ArrowLeft: () => (event.shiftKey ? prevTurn() : prev()),
    PageDown: nextTurn,
    PageUp: prevTurn,
    Home: first,
    End: last,
    p: play,
    P: play,
    " ": play,
  };
  const action = actions[event.key];
  if (!action) return;
  if (event.key === " " && target && target.tagName === "BUTTON") return;
  event.preventDefault();
  if (event.key !== " " && event.key !== "p" && event.key !== "P") stop();
  action();
}

async function start() {
  await loadCatalog();
  dice = new DiceTray($("#dice"), null);
  const result = await api("GET", source === "games" ? `${base}/record` : base);
  if (result.ok && result.data) record = result.data;
  $("#rp-first").addEventListener("click", () => { stop(); first(); });
  $("#rp-prev").addEventListener("click", () => { stop(); prev(); });
  $("#rp-next").addEventListener("click", () => { stop(); next(); });
  $("#rp-prev-turn").addEventListener("click", () => { stop(); prevTurn(); });
  $("#rp-next-turn").addEventListener("click", () => { stop(); nextTurn(); });
  $("#rp-last").addEventListener("click", () => { stop(); last(); });
  $("#rp-play").addEventListener("click", play);
  $("#rp-slider").addEventListener("input", (e) => { stop(); go(Number(e.target.value), 0); });
  document.addEventListener("keydown", onKey);
  const params = new URLSearchParams(location.search);
  await go(Number(params.get("turn")) || 0, Number(params.get("roll")) || 0);
  if (!current && !result.ok) $("#replay-error").textContent = errorText(result);
  if (current) loadAnalysis();
  if (current) loadVerification($("#fair-result"), `${base}/verify`, { hideWithout: true });
}

start();
