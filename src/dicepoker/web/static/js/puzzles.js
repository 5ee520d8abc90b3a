// The puzzles (/puzzles, /puzzles/{id}): a position of a real game where a player lost a lot
// (GET /api/puzzles/next?preset=…&after=…, GET /api/puzzles/{id}), drawn with the table's own
// dice tray and sheets. The visitor holds dice and rolls, or fills a cell; the server's answer
// (POST /api/puzzles/{id}, the advisor's values computed then) is a list of every option, best
// first, with the one chosen marked. The page never knows the values before it answers.
/** @import { ErrorResponse, Puzzle, PuzzleAnswer, PuzzleOption } from "../../typings/protocol" */
import { $, api, clear, dec, errorText, h, loadCatalog, minus, num, range, refusalText, t, tn, variantName } from "./common.js";
import { actionNode, isCellAction, keptPositions } from "./analysis.js";
import { DiceTray } from "./dice.js";
import { drawSheets } from "./sheet.js";
import { turnCount, turnLabel } from "./turns.js";

const PRESET_KEY = "dicepoker:puzzles:preset";
/** Options listed before "Show every option" (the chosen one and the player's are always shown). */
const FIRST_ROWS = 8;
const main = $("#main");
const select = $("#puzzle-preset", HTMLSelectElement);

/**
 * What the page shows: the puzzle, the answer to the visitor's guess once it came, the dice held
 * for the next roll, the zero or strike waiting for its second tap, a request under way, and
 * whether every option is listed.
 * @type {{ puzzle: Puzzle | null, answer: PuzzleAnswer | null, held: Set<number>, armed: string | null, busy: boolean, all: boolean }}
 */
const shown = { puzzle: null, answer: null, held: new Set(), armed: null, busy: false, all: false };
const tray = new DiceTray($("#dice"), toggle);

/** The turn of the position shown (a puzzle always has one: someone is to move). */
function turnOf() {
  const state = shown.puzzle ? shown.puzzle.state : null;
  return state && state.turn ? state.turn : null;
}

/** Whether the visitor may still answer. */
function open() {
  return Boolean(shown.puzzle) && !shown.answer && !shown.busy;
}

/**
 * A seat's name: the puzzle's players are nobody in particular (the server keeps no names).
 * @param {number} seat
 */
function nameOf(seat) {
  return t("Player {n}", { n: num(seat + 1) });
}

/** @param {number} index */
function toggle(index) {
  const turn = turnOf();
  if (!open() || !turn || !turn.can_keep) return;
  if (shown.held.has(index)) shown.held.delete(index);
  else shown.held.add(index);
  shown.armed = null;
  render();
}

/** Roll the dice not held: the guess "roll" (every die) or "keep i j". */
function roll() {
  const turn = turnOf();
  if (!open() || !turn || !turn.can_roll || !shown.puzzle) return;
  const kept = [...shown.held].sort((a, b) => a - b);
  if (kept.length >= shown.puzzle.state.rules.dice) return;
  guess(kept.length ? `keep ${kept.join(" ")}` : "roll");
}

/**
 * A cell of the sheet: a score is the guess at once; a zero or a strike asks for a second tap,
 * as at the table.
 * @param {string} action
 */
function choose(action) {
  const turn = turnOf();
  if (!open() || !turn) return;
  const option = turn.legal.find((o) => o.action === action);
  if (!option) return;
  if ((option.verb === "zero" || option.verb === "strike") && shown.armed !== action) {
    shown.armed = action;
    render();
    return;
  }
  guess(action);
}

/**
 * Send the guess; the answer lists every option's value.
 * @param {string} action
 */
async function guess(action) {
  const puzzle = shown.puzzle;
  if (!puzzle) return;
  shown.busy = true;
  shown.armed = null;
  $("#puzzle-error").textContent = "";
  render();
  const result = await api("POST", `/api/puzzles/${encodeURIComponent(puzzle.id)}`, { action });
  shown.busy = false;
  if (shown.puzzle !== puzzle) return; // another puzzle since
  const data = /** @type {PuzzleAnswer | null} */ (result.ok ? result.data : null);
  if (data && Array.isArray(data.options)) {
    shown.answer = data;
    shown.all = false;
    render();
    const box = $("#puzzle-result");
    box.focus({ preventScroll: true });
    box.scrollIntoView({ block: "start", behavior: "smooth" });
  } else {
    $("#puzzle-error").textContent = refusal(result);
    render();
  }
}

/**
 * The words of a refused request: the engine's reason where it said one as data.
 * @param {ApiResult<unknown>} result
 */
function refusal(result) {
  const data = /** @type {ErrorResponse | null} */ (result.data);
  const error = data && data.error;
  if (error && error.code && error.reason) return refusalText(error.code, error.message, error.reason, error.params);
  if (result.status === 404 && error && error.code === "not_found") return t("This puzzle does not exist.");
  return errorText(result);
}

// --- drawing ---------------------------------------------------------------------------------

function render() {
  const puzzle = shown.puzzle;
  $("#puzzle-layout").hidden = !puzzle;
  if (!puzzle) return;
  const state = puzzle.state;
  const rules = state.rules;
  const turn = turnOf();
  const mover = puzzle.seat;
  document.title = `${t("Puzzles")} · ${variantName(rules.variant)} · ${t("site.name")}`;

  // The players: the one to move is "you".
  const list = clear($("#players"));
  state.players.forEach((player, seat) => {
    const me = seat === mover;
    list.appendChild(
      h("li", { class: `player ${me ? "turn mine" : ""}`, "aria-current": me ? "true" : null },
        h("span", { class: "player-avatar", "aria-hidden": "true" }, num(seat + 1)),
        h("span", { class: "player-text" },
          h("span", { class: "player-name" }, nameOf(seat)),
          me ? h("span", { class: "player-sub" }, t("you")) : null),
        h("span", { class: "player-total" }, num(player.total))),
    );
  });

  // The question, and where in the game it is asked.
  const answer = shown.answer;
  $("#puzzle-question").textContent = answer ? verdictWords(answer) : t("What would you do?");
  const count = turnCount(state);
  const where = [variantName(rules.variant)];
  if (rules.columns > 1) where.push(t("Columns: {n}", { n: num(rules.columns) }));
  if (count) where.push(turnLabel({ round: count.round, rounds: count.rounds, name: nameOf(count.seat), roll: puzzle.roll }));
  $("#puzzle-where").textContent = where.join(" · ");

  // The dice and the roll: the best hold marked once the answer came.
  const best = answer ? answer.best.action : null;
  const canHold = open() && Boolean(turn && turn.can_keep);
  tray.paint({ count: rules.dice, values: turn ? turn.dice : [], faceLabels: rules.face_labels, held: shown.held, canHold, rolled: null });
  const advised = best && !isCellAction(best) ? new Set(keptPositions(best)) : null;
  document.querySelectorAll("#dice .die").forEach((die, index) => die.classList.toggle("advised", Boolean(advised && advised.has(index))));
  const left = clear($("#rolls-left"));
  if (turn) {
    const pips = h("span", { class: "roll-pips", "aria-hidden": "true" });
    for (const i of range(rules.rolls_per_turn)) pips.appendChild(h("span", { class: i < turn.rolls_left ? "rp on" : "rp" }));
    left.append(pips, h("span", { class: "rolls-text" }, t("Rolls left: {n}", { n: num(turn.rolls_left) })));
  }
  const button = $("#roll-button", HTMLButtonElement);
  const kept = shown.held.size;
  button.disabled = !open() || !turn || !turn.can_roll || kept >= rules.dice;
  button.textContent = kept > 0 && kept < rules.dice ? tn("Roll {n} die", rules.dice - kept) : kept >= rules.dice ? t("All dice held") : t("Roll");
  $("#puzzle-how").hidden = !open();

  // The sheets: the mover's big, with the cells that may be filled (until answered).
  drawSheets(state, {
    mainBox: $("#main-sheet"),
    othersBox: $("#other-sheets"),
    big: mover,
    turnSeat: mover,
    legal: open() && turn ? turn.legal : null,
    onMove: choose,
    armed: shown.armed,
    mine: [mover],
    nameOf,
  });
  if (answer) markCells(answer);
  renderAnswer();
}

/**
 * The best cell and the cell chosen, marked on the big sheet once the answer came.
 * @param {PuzzleAnswer} answer
 */
function markCells(answer) {
  for (const [action, cls] of [[answer.best.action, "puzzle-best"], [answer.action, "puzzle-chosen"]]) {
    if (!isCellAction(action)) continue;
    const row = action.split(/\s+/)[1] || "";
    const tr = $("#main-sheet").querySelector(`tr[data-row="${CSS.escape(row)}"]`);
    if (tr) tr.classList.add(cls);
  }
}

/**
 * Whether the answer grades by the chance of winning (the server's rule, `puzzles.by_chance`):
 * a position with rivals where every option's chance is known; else by expected points.
 * @param {PuzzleAnswer} answer
 */
function byChance(answer) {
  const puzzle = shown.puzzle;
  return Boolean(puzzle && puzzle.state.players.length > 1) && answer.options.length > 0 && answer.options.every((o) => typeof o.win === "number");
}

/**
 * A chance of winning as the answer shows it: 47.6%.
 * @param {number} win 0 to 1
 */
function pct(win) {
  return `${dec(win * 100, 1)}%`;
}

/**
 * A loss in the answer's measure: points (one decimal) or percentage points of chance.
 * @param {PuzzleAnswer} answer
 * @param {number} loss
 */
function lossWords(answer, loss) {
  return byChance(answer) ? t("{pct} chance of winning", { pct: pct(loss) }) : t("{points} points", { points: dec(loss) });
}

/** @param {PuzzleAnswer} answer */
function verdictWords(answer) {
  if (answer.verdict === "best") return t("The best move!");
  if (answer.verdict === "good") return t("Good: {points} below the best move.", { points: lossWords(answer, answer.loss) });
  return t("A mistake: {points} below the best move.", { points: lossWords(answer, answer.loss) });
}

/**
 * Options that are the same choice (holds of the same faces) are listed once.
 * @param {string} action
 * @param {number[]} dice
 */
function choiceKey(action, dice) {
  if (isCellAction(action)) return action;
  return `keep:${keptPositions(action).map((p) => dice[p]).sort((a, b) => a - b).join(",")}`;
}

function renderAnswer() {
  const box = $("#puzzle-result");
  const answer = shown.answer;
  const puzzle = shown.puzzle;
  box.hidden = !answer;
  if (!answer || !puzzle) return;
  const state = puzzle.state;
  const rules = state.rules;
  const dice = state.turn ? state.turn.dice : [];
  box.classList.remove("verdict-best", "verdict-good", "verdict-mistake");
  box.classList.add(`verdict-${answer.verdict}`);
  $("#puzzle-verdict").textContent = verdictWords(answer);
  const played = answer.played;
  const summary = clear($("#puzzle-summary"));
  // (The action is drawn with its dice where the sentence has its place.)
  const chance = byChance(answer);
  const bestWords = chance && typeof answer.best.win === "number"
    ? t("Best: {action}, chance of winning {pct}.", { pct: pct(answer.best.win) })
    : t("Best: {action}, expected final score {value}.", { value: dec(answer.best.value) });
  const [before, after] = bestWords.split("{action}");
  summary.append(before || "", actionNode(rules.variant, answer.best.action, dice, rules.face_labels), after || "");
  if (played) {
    const [one, two] = t("In the game, the player chose {action} and lost {points}.", { points: lossWords(answer, played.loss) }).split("{action}");
    summary.append(" ", one || "", actionNode(rules.variant, played.action, dice, rules.face_labels), two || "");
  }

  // Every option, best first; the same hold listed once.
  const chosenKey = choiceKey(answer.action, dice);
  const playedKey = played ? choiceKey(played.action, dice) : null;
  const bestKey = choiceKey(answer.best.action, dice);
  /** @type {Map<string, PuzzleOption>} */
  const groups = new Map();
  for (const option of answer.options) {
    const key = choiceKey(option.action, dice);
    if (!groups.has(key)) groups.set(key, option);
  }
  const withWin = answer.options.some((o) => o.win !== undefined);
  $("#puzzle-win-head").hidden = !withWin;
  const body = clear($("#puzzle-rows"));
  let rank = 0;
  let lastLoss = -1;
  let index = 0;
  let hiddenRows = 0;
  for (const [key, option] of groups) {
    index += 1;
    if (option.loss !== lastLoss) rank = index;
    lastLoss = option.loss;
    const chosen = key === chosenKey;
    const isPlayed = key === playedKey;
    const isBest = key === bestKey || option.loss <= 0;
    const listed = shown.all || index <= FIRST_ROWS || chosen || isPlayed;
    if (!listed) {
      hiddenRows += 1;
      continue;
    }
    // The chance of winning: its own column, or on a phone under the value (one is shown).
    const win = option.win === undefined ? "—" : chance ? pct(option.win) : `${Math.round(option.win * 100)}%`;
    const winInline = withWin ? h("span", { class: "po-win-inline", title: t("Chance to win") }, win) : null;
    const tags = [
      chosen ? h("span", { class: "tag you" }, t("your choice")) : null,
      isPlayed ? h("span", { class: "tag played" }, t("played in the game")) : null,
    ];
    body.appendChild(
      h("tr", { class: ["po-row", isBest ? "best" : "", chosen ? "chosen" : "", isPlayed ? "played" : ""].join(" ").trim(), "aria-current": chosen ? "true" : null },
        h("td", { class: "po-rank" }, isBest ? h("span", { class: "po-star", title: t("best move") }, "★", h("span", { class: "sr-only" }, ` ${t("best move")}`)) : num(rank)),
        h("th", { scope: "row", class: "po-action" }, actionNode(rules.variant, option.action, dice, rules.face_labels), ...tags),
        h("td", { class: "num po-value" }, dec(option.value), winInline),
        withWin ? h("td", { class: "num po-win" }, win) : null,
        h("td", { class: "num po-loss" }, option.loss > 0 ? (chance ? `${minus(option.loss * 100)}%` : minus(option.loss)) : "0")),
    );
  }
  if (hiddenRows) {
    body.appendChild(
      h("tr", { class: "po-more" },
        h("td", { colspan: withWin ? 5 : 4 },
          h("button", { type: "button", class: "btn small ghost", onclick: () => { shown.all = true; renderAnswer(); } }, t("Show every option ({n})", { n: num(groups.size) })))),
    );
  }
  $("#puzzle-link", HTMLAnchorElement).href = puzzle.url;
}

// --- loading ---------------------------------------------------------------------------------

/**
 * Show `puzzle` (a new one: nothing held, nothing answered), at its own address.
 * @param {Puzzle} puzzle
 * @param {boolean} push whether it is a new page of the history
 */
function show(puzzle, push) {
  shown.puzzle = puzzle;
  shown.answer = null;
  shown.held = new Set();
  shown.armed = null;
  shown.all = false;
  $("#puzzle-empty").hidden = true;
  $("#puzzle-error").textContent = "";
  if (select.value !== puzzle.preset) select.value = puzzle.preset;
  if (location.pathname !== puzzle.url) {
    if (push) history.pushState({ id: puzzle.id }, "", puzzle.url);
    else history.replaceState({ id: puzzle.id }, "", puzzle.url);
  }
  render();
}

/** Nothing to show: no puzzle of the preset yet, or an error. */
function showNothing() {
  shown.puzzle = null;
  shown.answer = null;
  render();
  $("#puzzle-result").hidden = true;
}

/**
 * A puzzle of the preset chosen, not the one shown.
 * @param {boolean} push
 */
async function next(push) {
  const preset = select.value;
  try {
    localStorage.setItem(PRESET_KEY, preset);
  } catch {
    /* private mode: the choice lasts as long as the page */
  }
  const after = shown.puzzle && shown.puzzle.preset === preset ? `&after=${encodeURIComponent(shown.puzzle.id)}` : "";
  $("#puzzle-skip", HTMLButtonElement).disabled = true;
  const result = await api("GET", `/api/puzzles/next?preset=${encodeURIComponent(preset)}${after}`);
  $("#puzzle-skip", HTMLButtonElement).disabled = false;
  const data = /** @type {Puzzle | null} */ (result.ok ? result.data : null);
  if (data && data.state) {
    if (shown.puzzle && data.id === shown.puzzle.id && !shown.answer) {
      $("#puzzle-error").textContent = t("This is the only puzzle of this game for now.");
      return;
    }
    show(data, push);
    window.scrollTo({ top: 0 });
    return;
  }
  const error = /** @type {ErrorResponse | null} */ (result.data);
  showNothing();
  if (error && error.error && error.error.code === "no_puzzle") {
    $("#puzzle-empty").hidden = false;
    $("#puzzle-error").textContent = "";
    const url = `/puzzles?preset=${encodeURIComponent(preset)}`;
    if (location.pathname + location.search !== url) history.replaceState(null, "", url);
  } else {
    $("#puzzle-error").textContent = refusal(result);
  }
}

/**
 * The puzzle of an address (its page).
 * @param {string} id
 */
async function openPuzzle(id) {
  const result = await api("GET", `/api/puzzles/${encodeURIComponent(id)}`);
  const data = /** @type {Puzzle | null} */ (result.ok ? result.data : null);
  if (data && data.state) {
    show(data, false);
    return;
  }
  showNothing();
  $("#puzzle-error").textContent = refusal(result);
}

/** The page's address says what to show: a puzzle's own, else a puzzle of the preset. */
async function route() {
  const match = /^\/puzzles\/([A-Za-z0-9_-]+)$/.exec(location.pathname);
  if (match) await openPuzzle(match[1]);
  else await next(false);
}

function savedPreset() {
  try {
    return localStorage.getItem(PRESET_KEY) || "";
  } catch {
    return "";
  }
}

async function start() {
  await loadCatalog();
  const asked = new URLSearchParams(location.search).get("preset");
  const saved = savedPreset();
  if (!asked && saved && [...select.options].some((o) => o.value === saved)) select.value = saved;
  else select.value = main.dataset.preset || select.value;
  select.addEventListener("change", () => next(true));
  $("#puzzle-skip").addEventListener("click", () => next(true));
  $("#puzzle-next").addEventListener("click", () => next(true));
  $("#roll-button").addEventListener("click", roll);
  document.addEventListener("click", (click) => {
    if (shown.armed && !(click.target instanceof Element && click.target.closest("button.move"))) {
      shown.armed = null;
      render();
    }
  });
  window.addEventListener("popstate", () => route());
  await route();
}

start();
