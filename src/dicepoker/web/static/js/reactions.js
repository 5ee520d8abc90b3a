// Quick reactions: a fixed set of phrases a seated player sends to the table ("Good game", "Nice
// roll", ...). Only the phrase's id travels; each reader sees it in their own language (the
// catalogs' `reaction.{id}`). A reaction shows for a few seconds over the top of the felt, never
// over the sheet; the server refuses reactions from spectators and rate-limits them.
/** @import { React } from "../../typings/protocol" */
import { $, clear, h, t, tk } from "./common.js";
import { game, playerName } from "./game.js";
import { connFor, mySeats, onMessage } from "./socket.js";

/** The reactions, in the order of the bar (the ids of `dicepoker.protocol.table_talk.REACTIONS`). */
export const REACTIONS = /** @type {const} */ (["good_game", "nice_roll", "well_played", "good_luck", "oops", "thanks"]);
const SHOWN_MS = 4000;
const MAX_SHOWN = 3;
/** A short pause after each reaction sent, so a tap held down does not flood the table. */
const PAUSE_MS = 1500;

/** @param {string} id */
export function reactionText(id) {
  return tk(`reaction.${id}`, id.replace(/_/g, " "));
}

/** The seat this browser reacts as: the one to move if it holds it, else its first. */
function reactingSeat() {
  const seats = mySeats();
  const turn = game.state && game.state.turn;
  if (turn && seats.includes(turn.seat)) return turn.seat;
  return seats.length ? seats[0] : null;
}

/** @param {React["reaction"]} reaction */
function send(reaction) {
  const seat = reactingSeat();
  const conn = seat === null ? null : connFor(seat);
  if (!conn) return;
  conn.send({ type: "react", reaction });
  // The open list drops over the dice on the felt: it folds again once one is sent.
  const details = /** @type {HTMLDetailsElement} */ ($("#reactions"));
  if (details.parentElement && details.parentElement.id === "felt-reactions") details.open = false;
  const bar = $("#reaction-buttons");
  for (const button of bar.querySelectorAll("button")) button.disabled = true;
  setTimeout(() => {
    for (const button of bar.querySelectorAll("button")) button.disabled = false;
  }, PAUSE_MS);
}

/** Build the bar once (its words are the catalog's, loaded before). */
export function setUpReactions() {
  const bar = clear($("#reaction-buttons"));
  for (const id of REACTIONS) {
    bar.appendChild(h("button", { type: "button", class: "btn small reaction-button", dataset: { reaction: id }, onclick: () => send(id) }, reactionText(id)));
  }
  onMessage("reaction", (message) => show(message.seat, message.reaction));
}

/** Offer the bar to seated players only (spectators watch). Once the game is over the felt is
 * gone: the bar and the reactions move to the end screen (where "Good game" is said). */
export function renderReactions() {
  const bar = $("#reactions");
  const feed = $("#reaction-feed");
  bar.hidden = mySeats().length === 0 || game.status === "open";
  const finished = game.status === "finished" || Boolean(game.state && game.state.finished);
  const home = finished ? $("#end-reactions") : $("#felt-reactions");
  if (bar.parentElement !== home) home.append(feed, bar);
}

/**
 * Show a reaction for a few seconds (the newest below the others, at most a few at once).
 * @param {number} seat
 * @param {string} reaction
 */
function show(seat, reaction) {
  const feed = $("#reaction-feed");
  const bubble = h("p", { class: "reaction-bubble" }, t("{name}: {reaction}", { name: playerName(seat), reaction: reactionText(reaction) }));
  feed.appendChild(bubble);
  while (feed.children.length > MAX_SHOWN && feed.firstElementChild) feed.firstElementChild.remove();
  setTimeout(() => bubble.remove(), SHOWN_MS);
}
