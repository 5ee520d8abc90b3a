// What a player at the table does: roll, hold dice, fill a cell, ask for auto-play. Each intent
// goes to the server with the seq it was chosen at; the server answers with the event or a
// refusal (docs/api.md). A zero or a strike costs something for good, so it is asked twice: the
// first tap only arms it (the cell shows what it costs), a second tap on it confirms, and any
// other action disarms it. The dice a player holds are told to the table as they tap them.
import { refusalText, t, toast } from "./common.js";
import { diceCount, game, held, heldPositions, redraw } from "./game.js";
import { connFor, mySeats } from "./socket.js";

/** The turn if one of this browser's seats is to move now. */
export function myTurn() {
  const state = game.state;
  if (!state || state.finished || game.status !== "running" || !state.turn) return null;
  return mySeats().includes(state.turn.seat) ? state.turn : null;
}

let refCounter = 0;

/**
 * The zero or strike waiting for its second tap: its action and the seq it was armed at.
 * @type {{ action: string | null, seq: number }}
 */
export const arming = { action: null, seq: -1 };

/** The action armed now, if it still stands (the game has not moved since). */
export function armed() {
  return arming.action !== null && arming.seq === game.seq ? arming.action : null;
}

/** Forget an armed zero or strike (any other action, Escape, a tap elsewhere). */
export function disarm() {
  if (arming.action === null) return;
  arming.action = null;
  redraw();
}

/**
 * A tap (or Enter) on a cell that may be filled: a score is sent at once; a zero or a strike
 * is armed by the first tap and sent by a second tap on the same cell.
 * @param {string} action
 */
export function choose(action) {
  const turn = myTurn();
  if (!turn) return;
  const option = turn.legal.find((o) => o.action === action);
  if (!option) return;
  if ((option.verb === "zero" || option.verb === "strike") && armed() !== action) {
    arming.action = action;
    arming.seq = game.seq;
    redraw();
    return;
  }
  act(action);
}

/**
 * Send `action` for the seat to move, if this browser holds it.
 * @param {string} action
 */
export function act(action) {
  const turn = game.state && game.state.turn;
  if (!turn || game.status !== "running") return;
  const conn = connFor(turn.seat);
  if (!conn) {
    toast(refusalText("not_your_turn", null), "error");
    return;
  }
  if (game.pending && Date.now() - game.pending.at < 4000) return;
  arming.action = null;
  refCounter += 1;
  const ref = `r${refCounter}`;
  if (conn.send({ type: "act", action, seq: game.seq, ref })) {
    game.pending = { ref, at: Date.now() };
    redraw();
  } else {
    toast(t("Connection lost, reconnecting…"), "error");
  }
}

/** Roll the dice not held (all of them at the turn's first roll). */
export function roll() {
  const turn = myTurn();
  if (!turn || !turn.can_roll) return;
  disarm();
  const kept = heldPositions();
  if (turn.rolls === 0 || kept.length === 0) act("roll");
  else if (kept.length < diceCount()) act(`keep ${kept.join(" ")}`);
  else toast(t("Release at least one die to roll."), "error");
}

/**
 * Hold die `index` for the next roll, or let it go.
 * @param {number} index
 */
export function toggle(index) {
  const turn = myTurn();
  if (!turn || !turn.can_keep || turn.rolls === 0) return;
  arming.action = null;
  if (held.has(index)) held.delete(index);
  else held.add(index);
  const conn = connFor(turn.seat);
  if (conn) conn.send({ type: "keep", seq: game.seq, keep: heldPositions() });
  redraw();
}

/** Let the rules' auto-play make the turn (where the rules offer it). */
export function autoPlay() {
  const turn = myTurn();
  if (!turn) return;
  arming.action = null;
  const conn = connFor(turn.seat);
  if (conn) conn.send({ type: "auto", ref: "auto" });
}
