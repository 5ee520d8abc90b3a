// The rematch of a finished game: the end screen's "Rematch" asks the server for it (POST
// /api/games/{id}/rematch with one of this browser's seat tokens); every connection of the game
// is then offered it (a `rematch` message), each seat's with its own token there, which this
// page keeps before it goes to the new table. A spectator is offered the new table to watch.
/** @import { ErrorResponse, RematchCreated } from "../../typings/protocol" */
import { $, errorText, loadTokens, saveToken, t, toast } from "./common.js";
import { game, gameId } from "./game.js";
import { mySeats, onMessage } from "./socket.js";

/** The rematch once known: its address, and the seats this browser holds there. */
const offer = { url: "", seats: /** @type {Set<number>} */ (new Set()) };
let asking = false;
/** @type {(() => void) | null} called when an offer arrives (the page waits for its seats) */
let offered = null;

/** Listen for the offers (before the sockets open). */
export function setUpRematch() {
  onMessage("rematch", (message) => {
    offer.url = message.url;
    if (message.seat !== null && message.seat !== undefined && message.token) {
      saveToken(message.game, message.seat, message.token);
      offer.seats.add(message.seat);
    }
    renderRematch();
    if (offered) offered();
  });
  $("#rematch-button", HTMLButtonElement).addEventListener("click", rematch);
}

/** The end screen's rematch button and note, from what is known of the rematch. */
export function renderRematch() {
  const button = $("#rematch-button", HTMLButtonElement);
  const note = $("#rematch-note");
  const seated = mySeats().length > 0;
  const finished = game.status === "finished" || Boolean(game.state && game.state.finished);
  button.hidden = !finished || (!seated && !offer.url);
  button.disabled = asking;
  button.textContent = offer.url ? (seated ? t("Join the rematch") : t("Watch the rematch")) : t("Rematch");
  note.textContent = offer.url ? t("A rematch is ready: same players, same rules.") : asking ? t("Starting the rematch…") : "";
}

/** Go to the rematch, asking for it first when nobody has yet. */
async function rematch() {
  if (offer.url) {
    location.assign(offer.url);
    return;
  }
  const seats = mySeats();
  const tokens = loadTokens(gameId);
  const token = seats.map((seat) => tokens[String(seat)]).find((value) => typeof value === "string");
  if (typeof token !== "string") return;
  asking = true;
  renderRematch();
  const result = await ask(token);
  asking = false;
  const made = /** @type {RematchCreated | null} */ (result.ok ? result.data : null);
  if (!made || !made.url) {
    renderRematch();
    toast(errorText(result), "error");
    return;
  }
  saveToken(made.id, made.seat, made.token);
  offer.seats.add(made.seat);
  offer.url = made.url;
  // A hot-seat browser holds other seats: their offers come on their own sockets.
  await allOffered(seats);
  location.assign(made.url);
}

/**
 * POST the rematch with a seat's token as a bearer token.
 * @param {string} token
 * @returns {Promise<ApiResult<RematchCreated | ErrorResponse>>}
 */
async function ask(token) {
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/rematch`, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json", Authorization: `Bearer ${token}` },
    });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    return { ok: response.ok, status: response.status, data };
  } catch {
    return { ok: false, status: 0, data: { error: { code: "network", message: t("error.network") } } };
  }
}

/**
 * Wait (a moment at most) until every seat of this browser was offered its place.
 * @param {number[]} seats
 */
function allOffered(seats) {
  return new Promise((resolve) => {
    const state = { timer: /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined) };
    const finish = () => {
      offered = null;
      clearTimeout(state.timer);
      resolve(undefined);
    };
    const done = () => {
      if (seats.every((seat) => offer.seats.has(seat))) finish();
    };
    state.timer = setTimeout(finish, 3000);
    offered = done;
    done();
  });
}
