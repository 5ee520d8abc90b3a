// The table's move log: each event in words, in the page's language, as it comes (a polite live
// region, so a screen reader says it too): who rolled and kept what, who scored what where (×2,
// the reserve, a star taken first), who struck or took a zero, who ran out of time. Everything
// it says comes from the messages: the event's action and seat, the view after it (the dice, the
// seat's `last_moves` entry); no rule is worked out here. A turn's first roll opens it with
// where the game is ("Turn 7 of 15 · Ana", turns.js), as the table's header says it.
/** @import { EventMessage, GameView, LastMoveView, RulesView } from "../../typings/protocol" */
import { clear, h, num, roman, rowLabel, signed, t, zeroCost } from "./common.js";
import { faceLabel } from "./dice.js";
import { playerName } from "./game.js";
import { turnCount, turnLabel } from "./turns.js";

const KEEP = 60; // lines kept in the log

/** @type {{ seq: number, text: string, kind?: string }[]} */
const lines = [];
let started = false;

/** @type {HTMLElement | null} */
let box = null;

/**
 * The log's card, made once and put in `parent`.
 * @param {HTMLElement} parent
 */
export function mountLog(parent) {
  if (box) return box;
  box = h("div", { id: "move-log", class: "move-log", role: "log", "aria-live": "polite", "aria-labelledby": "move-log-title", tabindex: "0" });
  parent.appendChild(h("section", { class: "events-card log-card" }, h("h2", { id: "move-log-title", class: "events-title" }, t("Moves")), box));
  return box;
}

/**
 * The dice `positions` of `dice` as the page names their faces: "3 3 5", "K K A".
 * @param {number[]} dice
 * @param {number[]} positions
 * @param {RulesView} rules
 */
function faces(dice, positions, rules) {
  return positions.map((i) => faceLabel(dice[i], rules.face_labels)).join(" ");
}

/**
 * A cell's name: its row, and its column where the sheet has several.
 * @param {RulesView} rules
 * @param {string} row
 * @param {number | null} column
 */
export function cellName(rules, row, column) {
  const label = rowLabel(rules.variant, row);
  return rules.columns > 1 && column !== null ? `${label}, ${t("column {n}", { n: roman(column) })}` : label;
}

/**
 * A star's name: its row's, or its column's.
 * @param {RulesView} rules
 * @param {string | number} key
 */
export function starName(rules, key) {
  return typeof key === "number" ? t("column {n}", { n: roman(key) }) : rowLabel(rules.variant, key);
}

/**
 * What a move did, in words (a sentence or a few).
 * @param {LastMoveView} move
 * @param {RulesView} rules
 */
export function moveWords(move, rules) {
  const name = playerName(move.seat);
  if (move.verb === "timeout") return t("{name} ran out of time.", { name });
  const row = rules.rows.find((r) => r.id === move.row);
  const cell = cellName(rules, move.row || "", move.column);
  /** @type {string[]} */
  const words = [];
  if (move.verb === "strike") words.push(t("{name} struck {cell}.", { name, cell }));
  else if (move.verb === "zero") words.push(t("{name} took a zero in {cell}: {cost}.", { name, cell, cost: zeroCost(rules) }));
  else if (row && row.school) words.push(t("{name} closed {cell}.", { name, cell }));
  else if (move.doubled) words.push(t("{name} scored {points} in {cell}, doubled (×2).", { name, points: num(move.points), cell }));
  else words.push(t("{name} scored {points} in {cell}.", { name, points: num(move.points), cell }));
  if (move.reserve) words.push(t("Reserve {change}.", { change: signed(move.reserve) }));
  for (const [, key, value] of move.stars) words.push(t("{name} took the star of {star} first: {value}.", { name, star: starName(rules, key), value: signed(value) }));
  if (move.auto) words.push(t("Played automatically."));
  return words.join(" ");
}

/**
 * What an event did, in words; null when there is nothing to say.
 * @param {EventMessage} event
 * @param {GameView | null} before the view before it
 * @param {GameView} state the view after it
 */
function eventWords(event, before, state) {
  const rules = state.rules;
  const name = playerName(event.seat);
  const words = event.action.trim().split(/\s+/);
  if (words[0] === "roll" || words[0] === "keep" || words[0] === "hold") {
    // The dice are the turn's after the roll (still in `state.turn`, the turn goes on after it).
    const turn = state.turn && state.turn.seat === event.seat ? state.turn : null;
    if (!turn) return null;
    const all = turn.dice.map((_, i) => i);
    const dice = faces(turn.dice, all, rules);
    if (words[0] === "roll") return t("{name} rolled {dice}.", { name, dice });
    const kept = words.slice(1).map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < turn.dice.length);
    return t("{name} kept {kept} and rolled again: {dice}.", { name, kept: faces(turn.dice, kept, rules), dice });
  }
  const move = state.last_moves ? state.last_moves[event.seat] : null;
  const earlier = before && before.last_moves ? before.last_moves[event.seat] : null;
  if (!move || (earlier && earlier.turn === move.turn && earlier.stage === move.stage)) return null;
  return moveWords(move, rules);
}

/**
 * Tell one event (the game.js hook): a line at the end of the log.
 * @param {EventMessage} event
 * @param {GameView | null} before the view before it
 * @param {GameView} after the view after it
 */
export function tellEvent(event, before, after) {
  const text = eventWords(event, before, after);
  if (!text) return;
  // A turn's first roll opens it with where the game is, as the table's header says it.
  const count = after.turn && after.turn.seat === event.seat && after.turn.rolls === 1 ? turnCount(after) : null;
  if (count) add(event.seq, turnLabel({ round: count.round, rounds: count.rounds, name: playerName(count.seat) }), "log-turn");
  add(event.seq, text);
}

/** @param {number} seq @param {string} text @param {string} [kind] a class of the line */
function add(seq, text, kind) {
  lines.push({ seq, text, kind });
  if (lines.length > KEEP) lines.splice(0, lines.length - KEEP);
  if (!box) return;
  box.appendChild(h("p", { class: kind ? `log-line ${kind}` : "log-line", dataset: { seq: String(seq) } }, text));
  while (box.childElementCount > KEEP && box.firstElementChild) box.firstElementChild.remove();
  box.scrollTop = box.scrollHeight;
}

/**
 * The moves a page missed (its connection was lost a while, or it fell behind): each player
 * whose last move is not the one the page knew has it told, in the order they were made.
 * @param {GameView} before
 * @param {GameView} after
 * @param {number} seq
 */
export function tellMissed(before, after, seq) {
  const known = before.last_moves || [];
  /** @type {LastMoveView[]} */
  const moves = [];
  (after.last_moves || []).forEach((move, seat) => {
    const old = known[seat];
    if (move && !(old && old.turn === move.turn && old.stage === move.stage)) moves.push(move);
  });
  moves.sort((a, b) => a.stage - b.stage || a.turn - b.turn);
  for (const move of moves) add(seq, moveWords(move, after.rules));
}

/**
 * The log of a page that arrives mid-game: each player's last move, in the order they were
 * made (said once, before the live events).
 * @param {GameView} state
 */
export function startLog(state) {
  if (started || !box) return;
  started = true;
  const moves = (state.last_moves || []).filter((m) => m !== null);
  moves.sort((a, b) => a.stage - b.stage || a.turn - b.turn);
  const earlier = moves.map((m) => ({ seq: -1, text: moveWords(m, state.rules) }));
  lines.unshift(...earlier);
  clear(box);
  for (const line of lines) box.appendChild(h("p", { class: ["log-line", line.seq < 0 ? "earlier" : "", line.kind || ""].join(" ").trim(), dataset: { seq: String(line.seq) } }, line.text));
  box.scrollTop = box.scrollHeight;
}
