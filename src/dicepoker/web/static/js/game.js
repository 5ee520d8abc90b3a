// The table's game state: the newest position and seats the server sent, the dice this page
// holds, the intent waiting for its answer. The page only ever draws the newest view the
// server sent: a whole `state`, or an event's `changes` applied to the view of the event before
// it (dicepoker.v2, docs/api.md); every rule stays on the server.
/** @import { ClientMessage, ClockView, EventMessage, FairDiceView, GameInfo, GameView, HeldMessage, SeatView, ServerMessage, SheetView, SyncMessage, ViewChanges, WelcomeMessage } from "../../typings/protocol" */
/** @typedef {GameInfo["status"]} GameStatus */
/** @typedef {NonNullable<GameInfo["competition"]>} Competition */
import { $, range, refusalText, shownName, t, toast } from "./common.js";
import { takeChances } from "./chances.js";

export const gameId = $("#main").dataset.gameId || "";

/**
 * What this page knows of the game.
 * @type {{
 *   seq: number,
 *   status: GameStatus | null,
 *   clock: ClockView | null,
 *   seats: SeatView[],
 *   state: GameView | null,
 *   fair: FairDiceView | null,
 *   turnKey: string | null,
 *   pending: { ref: string, at: number } | null,
 *   lastRolled: Set<number> | null,
 *   missing: boolean,
 *   assisted: boolean,
 *   competition: Competition | null,
 *   private: boolean,
 * }}
 */
export const game = {
  seq: -1,
  status: null,
  clock: null,
  seats: [],
  state: null,
  fair: null, // {scheme, commitment, seed once the game is over} (docs/fair-dice.md)
  turnKey: null,
  pending: null, // {ref, at}: an intent sent, waiting for its event or refusal
  lastRolled: null, // the positions the last event rolled (animated once)
  missing: false, // the server has no such game
  // Whether the expert's help is open at this table, and why not (rated, daily, casual): decided
  // when the game was made, told by the server (docs/fair-play.md); the page never asks for
  // help the server would refuse.
  assisted: true,
  competition: null,
  private: false, // another player's daily challenge game, not shown before its day is over
};

/**
 * Take what the server says of the game's help (its first answer, a welcome).
 * @param {{ assisted?: boolean, competition?: Competition | null }} told
 */
export function takeAssistance(told) {
  if (typeof told.assisted === "boolean") game.assisted = told.assisted;
  if (told.competition !== undefined) game.competition = told.competition;
  if (!game.assisted && !game.competition) game.competition = "casual";
}

/** The positions of the dice this page holds for the next roll. */
export const held = /** @type {Set<number>} */ (new Set());

/** The connection a message came on: it can answer, and knows its seat. */
/** @typedef {{ seat: number | null, send(message: ClientMessage): boolean }} Link */

let redrawer = () => {};
let redrawing = false;
/** @type {(seat: number) => boolean} whether this browser plays `seat` (set by the table) */
let playsSeat = () => false;
/** @type {(event: EventMessage, before: GameView | null, after: GameView) => void} what tells each event */
let teller = () => {};

/** Say how to know this browser's seats (the sockets know them). */
export function onSeats(/** @type {(seat: number) => boolean} */ plays) {
  playsSeat = plays;
}

/** @type {(before: GameView, after: GameView, seq: number) => void} what tells missed moves */
let catchUpTeller = () => {};

/** Say what tells each event as it comes (the move log). */
export function onEvent(/** @type {(event: EventMessage, before: GameView | null, after: GameView) => void} */ tell) {
  teller = tell;
}

/** Say what tells the moves a page missed (a lost connection, a resync): it gets the position
 * it had and the newer one it is given at once. */
export function onCatchUp(/** @type {(before: GameView, after: GameView, seq: number) => void} */ tell) {
  catchUpTeller = tell;
}

/** Set what draws the page (the table's `render`). */
export function onRedraw(/** @type {() => void} */ draw) {
  redrawer = draw;
}

/** Draw the page again from the state, once before the next frame however many messages came
 * (a burst of events, a bot's quick turn, a reconnection's catch-up is drawn once). */
export function redraw() {
  if (redrawing) return;
  redrawing = true;
  requestAnimationFrame(() => {
    redrawing = false;
    redrawer();
  });
}

/** The number of dice of the game's rules (0 before the first state). */
export function diceCount() {
  return game.state ? game.state.rules.dice : 0;
}

/**
 * Handle one message of the server (docs/api.md, "Server → client").
 * @param {ServerMessage} message
 * @param {Link} conn
 */
export function handle(message, conn) {
  switch (message.type) {
    case "welcome":
      if (message.seat !== null && message.seat !== undefined) conn.seat = message.seat;
      takeAssistance(message);
      accept(message, null);
      break;
    case "event":
      takeEvent(message, conn);
      break;
    case "sync":
      accept(message, null);
      break;
    case "seats":
      game.seats = message.seats || game.seats;
      if (message.status) game.status = message.status;
      if (message.state) game.state = message.state;
      if ("clock" in message) game.clock = message.clock;
      if ("fair_dice" in message) game.fair = message.fair_dice;
      takeChances(message.win_probability, game.seq);
      redraw();
      break;
    case "held":
      takeHeld(message);
      break;
    case "chances":
      // Judged after the event of `seq` was told (a busy server): news only at that seq.
      if (message.seq === game.seq && takeChances(message.win_probability, message.seq)) redraw();
      break;
    case "resync":
      conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
      break;
    case "error":
      if (!game.pending || !message.ref || message.ref === game.pending.ref) game.pending = null;
      if (message.code === "stale") conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
      toast(refusalText(message.code, message.message, message.reason, message.params), "error");
      redraw();
      break;
    default:
      break;
  }
}

/**
 * The dice the player to move holds now, as another page of theirs (or another player) sent
 * them: news only at the seq the page is at; this browser's own seats keep their own taps.
 * @param {HeldMessage} message
 */
function takeHeld(message) {
  const turn = game.state && game.state.turn;
  if (message.seq !== game.seq || !turn || turn.seat !== message.seat) return;
  turn.held = message.held;
  if (!playsSeat(message.seat)) redraw();
}

/** The seq the page was at when it last asked for a sync because it missed an event (-1:
 * none asked), so that the events after the missed one ask only once. */
let syncAskedAt = -1;

/**
 * An event: what it changed in the view (`changes`, dicepoker.v2) applies to the view of the
 * event before it only; a page that missed that one asks for a sync instead (its answer brings
 * the whole view). An older event, or the twin of one taken (another seat's socket of this
 * page), changes nothing.
 * @param {EventMessage} event
 * @param {Link} conn
 */
function takeEvent(event, conn) {
  if (event.seq <= game.seq) return;
  if (event.changes) {
    if (!game.state || event.seq !== game.seq + 1) {
      if (syncAskedAt !== game.seq) {
        syncAskedAt = game.seq;
        conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
      }
      return;
    }
    accept(event, event, applyChanges(game.state, event.changes));
  } else {
    accept(event, event, event.state || null);
  }
}

/**
 * The view after an event: `view` with the event's `changes` (a new object; `view` stays as
 * it was, for the move log to compare).
 * @param {GameView} view
 * @param {ViewChanges} changes
 * @returns {GameView}
 */
export function applyChanges(view, changes) {
  /** @type {Record<string, unknown>} */
  const after = { ...view };
  for (const [key, value] of Object.entries(changes)) {
    if (key === "sheets") {
      const sheets = [...view.sheets];
      for (const [seat, sheet] of Object.entries(/** @type {Record<string, SheetView>} */ (value))) sheets[Number(seat)] = sheet;
      after.sheets = sheets;
    } else if (key === "gone") {
      for (const name of /** @type {string[]} */ (value)) delete after[name];
    } else {
      after[key] = value;
    }
  }
  return /** @type {GameView} */ (/** @type {unknown} */ (after));
}

/**
 * Take a state from the server if it is newer than the one drawn: a message's whole view, or
 * the view an event's changes made (`state`).
 * @param {WelcomeMessage | EventMessage | SyncMessage} message
 * @param {EventMessage | null} event
 * @param {GameView | null} [state] the view after the message (by default its `state`)
 */
function accept(message, event, state = "state" in message ? message.state || null : null) {
  if (typeof message.seq === "number" && message.seq < game.seq) return;
  if (typeof message.seq === "number" && message.seq === game.seq && event) return; // a twin
  const known = game.seq;
  game.seq = typeof message.seq === "number" ? message.seq : game.seq;
  if (message.status) game.status = message.status;
  if ("clock" in message) game.clock = message.clock;
  if ("fair_dice" in message) game.fair = message.fair_dice;
  if (message.seats) game.seats = message.seats;
  const before = game.state;
  if (state) game.state = state;
  // Who is winning at this seq: a snapshot carries the chances where the server judged them;
  // an event never does (they follow as a `chances` message), so until then the last chances
  // stay, dimmed.
  if (message.type !== "event") takeChances(message.win_probability, game.seq);
  if (event && game.state) teller(event, before, game.state);
  else if (before && state && known >= 0 && game.seq > known) catchUpTeller(before, state, game.seq);
  game.pending = null;
  game.lastRolled = null;
  if (event && typeof event.action === "string") {
    const words = event.action.trim().split(/\s+/);
    const positions = range(diceCount());
    if (words[0] === "roll") game.lastRolled = new Set(positions);
    else if (words[0] === "keep" || words[0] === "hold") {
      const kept = new Set(words.slice(1).map(Number));
      game.lastRolled = new Set(positions.filter((i) => !kept.has(i)));
    }
    if (event.auto) toast(t("{name} was played automatically.", { name: playerName(event.seat) }), "info", 2200);
  }
  redraw();
}

/**
 * The name the page shows for `seat`: the player's, or that the seat is open.
 * @param {number} seat
 */
export function playerName(seat) {
  const state = game.state;
  const info = game.seats[seat];
  if (info && !info.taken && info.kind === "human") return t("Open seat");
  if (state && state.players[seat]) return shownName(state.players[seat].name);
  return (info && info.name && shownName(info.name)) || t("Seat {n}", { n: seat + 1 });
}

/**
 * Forget the held dice when a new turn (or a new roll count of zero) begins.
 * @param {GameView} state
 */
export function syncHeld(state) {
  const turn = state.turn;
  const key = turn ? `${state.tiebreak ? state.tiebreak.game : 0}:${state.turn_number}:${turn.seat}` : "done";
  const shown = turn ? turn.held || turn.kept : null;
  if (turn && !playsSeat(turn.seat)) {
    // Another player's turn: show the dice they hold, as the server last told.
    held.clear();
    if (turn.rolls > 0 && Array.isArray(shown)) for (const index of shown) held.add(index);
    game.turnKey = key;
    return;
  }
  if (key !== game.turnKey || !turn || turn.rolls === 0) {
    held.clear();
    // A page that arrives mid-turn (a reload, a reconnection) shows the dice held then.
    if (key !== game.turnKey && turn && turn.rolls > 0 && Array.isArray(shown)) {
      for (const index of shown) held.add(index);
    }
    game.turnKey = key;
  }
}

/** The positions held now, lowest first. */
export function heldPositions() {
  const count = diceCount();
  return [...held].filter((i) => i >= 0 && i < count).sort((a, b) => a - b);
}

/** The action that rolls the dice not held now: "roll", "keep 0 3", or null (all of them held). */
export function heldAction() {
  const kept = heldPositions();
  if (kept.length === diceCount()) return null;
  return kept.length ? `keep ${kept.join(" ")}` : "roll";
}
