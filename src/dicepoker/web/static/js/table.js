// The table of one game (/g/{id}): players, spectators, hot-seat and the end screen.
//
// This module starts the page and draws it from the game state; the parts live beside it:
// game.js (the state the server sent), socket.js (the sockets and their reconnection),
// actions.js (the player's intents), felt.js (the table itself), sheet.js and dice.js,
// advice.js (the hint), keys.js, joining.js (the waiting room) and endscreen.js; pace.js (the
// turn counter, the title, sound and notification of the player's turn), reactions.js,
// rematch.js and chances.js (who is winning).
/** @import { GameInfo } from "../../typings/protocol" */
import { $, api, clear, h, loadCatalog, onSubmit, t, variantName } from "./common.js";
import { codeOf } from "./accountforms.js";
import { autoPlay, myTurn, roll } from "./actions.js";
import { takeChances } from "./chances.js";
import { renderAdvice, renderBadge, toggleHint } from "./advice.js";
import { renderEnd } from "./endscreen.js";
import { paintCommitment } from "./fair.js";
import { renderPlayers, renderSheets, renderStatus, renderTurn, title, titleDetail } from "./felt.js";
import { game, gameId, onRedraw, syncHeld, takeAssistance } from "./game.js";
import { join, renderWaiting, share } from "./joining.js";
import { firstMove, onKey } from "./keys.js";
import { renderPace, setUpPace } from "./pace.js";
import { renderReactions, setUpReactions } from "./reactions.js";
import { setUpRematch } from "./rematch.js";
import { openConnections, syncAll } from "./socket.js";

let drawnOnce = false;
let shownMissing = false;
let shownPrivate = false;

/** Draw the whole page from the game state. */
function render() {
  if (game.missing) {
    if (!shownMissing) showNotFound();
    return;
  }
  if (game.private) {
    if (!shownPrivate) showPrivate();
    return;
  }
  const state = game.state;
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const focusedAction = focused ? focused.dataset.action : null;
  const focusedSpot = spotOf(focused);
  document.body.classList.toggle("my-turn", Boolean(myTurn()));
  if (state) {
    const rules = state.rules;
    const heading = clear($("#game-title"));
    heading.append(variantName(rules.variant), h("span", { class: "title-detail" }, titleDetail(rules)));
    $("#rules-link", HTMLAnchorElement).href = `/rules/${rules.variant}`;
    document.title = `${title(rules)} · ${t("site.name")}`;
  }
  renderStatus();
  renderBadge();
  paintCommitment($("#fair-chip"), game.fair);
  renderWaiting();
  if (!state) return;
  syncHeld(state);
  renderPlayers(state);
  renderTurn(state);
  renderSheets(state);
  renderAdvice(state);
  renderEnd(state, drawnOnce);
  renderReactions();
  renderPace(state);
  drawnOnce = true;
  if (focused && !focused.isConnected) keepFocus(focusedAction, focusedSpot);
}

/**
 * Where `element` is on the big sheet: its sheet's seat, its row and its cell's place there.
 * @param {HTMLElement | null} element
 */
function spotOf(element) {
  const cell = element ? element.closest("#main-sheet td") : null;
  const row = cell ? cell.closest("tr") : null;
  const sheet = cell ? cell.closest("[data-seat]") : null;
  if (!(cell instanceof HTMLTableCellElement) || !(row instanceof HTMLElement) || !(sheet instanceof HTMLElement)) return null;
  return { seat: sheet.dataset.seat || "", row: row.dataset.row || "", index: cell.cellIndex };
}

/**
 * The element the focus was on was redrawn: put the focus back on the table, never the body (a
 * screen reader's user keeps their place). The same control if it is there again; else the
 * roll button when it may be pressed; else the cell just filled (where the move was); else the
 * first cell that may be filled, else the dice.
 * @param {string | null | undefined} action
 * @param {{ seat: string, row: string, index: number } | null} spot
 */
function keepFocus(action, spot) {
  const again = action ? document.querySelector(`[data-action="${CSS.escape(action)}"]`) : null;
  if (again instanceof HTMLButtonElement) return again.focus({ preventScroll: true });
  const button = $("#roll-button", HTMLButtonElement);
  if (myTurn() && !button.disabled && !button.hidden) return button.focus({ preventScroll: true });
  const row = spot ? document.querySelector(`#main-sheet [data-seat="${CSS.escape(spot.seat)}"] tr[data-row="${CSS.escape(spot.row)}"]`) : null;
  const cell = row instanceof HTMLTableRowElement && spot ? row.cells[spot.index] : null;
  const target = cell || firstMove() || $("#dice");
  if (!target.matches("button")) target.tabIndex = -1; // focusable by script, not in the tab order
  target.focus({ preventScroll: true });
}

function showNotFound() {
  shownMissing = true;
  $("#status-chip").textContent = t("Not found");
  const layout = $("#table-layout");
  clear(layout);
  layout.appendChild(h("section", { class: "card notfound" }, h("h2", null, t("This game does not exist.")), h("p", null, h("a", { class: "btn primary", href: "/" }, t("Back to the lobby")))));
  $("#waiting").hidden = true;
}

/** Another player's game of today's daily challenge: nothing of it before its day is over. */
function showPrivate() {
  shownPrivate = true;
  $("#status-chip").textContent = t("Daily challenge");
  $("#conn").textContent = "";
  const layout = $("#table-layout");
  clear(layout);
  layout.appendChild(h("section", { class: "card notfound daily-private" },
    h("h2", null, t("This daily challenge game can be seen when its day is over.")),
    h("p", null, t("Everyone plays the same dice today: the games of the day open to all once it is over.")),
    h("p", null, h("a", { class: "btn primary", href: "/daily" }, t("Today's challenge")), " ", h("a", { class: "btn", href: "/" }, t("Back to the lobby")))));
  $("#waiting").hidden = true;
  $("#end").hidden = true;
}

/**
 * The table's menu on a phone (⋯): copy the link, sound, notifications, rules, the dice's
 * commitment. It opens under its button and closes on a choice, Escape or a tap elsewhere; on a
 * wider screen its items are in the line and the button is not shown.
 */
function setUpTableMenu() {
  const button = $("#more-button", HTMLButtonElement);
  const menu = $("#table-menu");
  /** @param {boolean} open */
  const show = (open) => {
    menu.classList.toggle("open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => show(!menu.classList.contains("open")));
  menu.addEventListener("click", (click) => {
    if (click.target instanceof Element && click.target.closest("a, button")) show(false);
  });
  document.addEventListener("click", (click) => {
    if (click.target instanceof Node && !menu.contains(click.target) && !button.contains(click.target)) show(false);
  });
  document.addEventListener("keydown", (press) => {
    if (press.key === "Escape" && menu.classList.contains("open")) {
      show(false);
      button.focus();
    }
  });
}

async function start() {
  onSubmit($("#join-form", HTMLFormElement), loadCatalog(), join);
  await loadCatalog();
  onRedraw(render);
  $("#roll-button").addEventListener("click", roll);
  $("#auto-button").addEventListener("click", autoPlay);
  $("#hint-button").addEventListener("click", toggleHint);
  $("#share-button").addEventListener("click", share);
  setUpTableMenu();
  $("#share-copy").addEventListener("click", share);
  document.addEventListener("keydown", onKey);
  setUpPace();
  setUpReactions();
  setUpRematch();
  // A first look over HTTP so the page draws at once, even before the socket answers.
  const first = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
  if (first.status === 404) {
    game.missing = true;
    render();
    return;
  }
  if (first.status === 403 && codeOf(first) === "daily_private") {
    game.private = true;
    render();
    return;
  }
  const data = /** @type {GameInfo | null} */ (first.data);
  if (first.ok && data && game.seq < 0) {
    game.seq = data.seq ?? -1;
    game.status = data.status;
    game.seats = data.seats || [];
    game.clock = data.clock || null;
    game.state = data.state || null;
    game.fair = data.fair_dice || null;
    takeAssistance(data);
    takeChances(data.win_probability, game.seq);
    render();
  }
  if (game.status === "abandoned") return; // closed for good: no socket to open
  openConnections();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") syncAll();
  });
}

start();
