// The table drawn from the state: the title and status, the players, whose turn it is, the dice
// tray and its controls, the turn clock and the score sheets. Everything the layout depends on
// (the number of dice, auto-play, the columns) comes from the rules of the view.
/** @import { GameView, RulesView } from "../../typings/protocol" */
import { $, clear, h, levelName, num, prefersReducedMotion, range, roman, rowLabel, signed, t, tn, variantName, zeroCost } from "./common.js";
import { armed, choose, disarm, myTurn, toggle } from "./actions.js";
import { chanceWords, cup, paintMeter, shownChances } from "./chances.js";
import { DiceTray } from "./dice.js";
import { game, gameId, held, onCatchUp, onEvent, onSeats, playerName } from "./game.js";
import { mountLog, startLog, tellEvent, tellMissed } from "./movelog.js";
import { drawSheets } from "./sheet.js";
import { mySeats } from "./socket.js";
import { mountStars, renderStars } from "./starboard.js";

const tray = new DiceTray($("#dice"), toggle);
onSeats((seat) => mySeats().includes(seat));
onEvent(tellEvent);
onCatchUp(tellMissed);
// The what-happened cards: the move log and the stars overview, in the felt under the controls
// (made at the first drawing, once the catalog is there).
const events = h("div", { class: "events" });
$("#advice").after(events);
// An armed zero or strike is disarmed by a tap anywhere but on a cell, and by Escape.
document.addEventListener("click", (click) => {
  if (!(click.target instanceof Element && click.target.closest("button.move"))) disarm();
});
document.addEventListener("keydown", (press) => {
  if (press.key === "Escape") disarm();
});
/** @type {ReturnType<typeof setInterval> | undefined} */
let clockTimer;

/**
 * The game's title: its variant, and its columns where the variant has that option.
 * @param {RulesView} rules
 */
export function title(rules) {
  return variantName(rules.variant) + titleDetail(rules);
}

/**
 * The part of the title a phone leaves out (the sheet's own head shows its columns): " · Columns: 3".
 * @param {RulesView} rules
 */
export function titleDetail(rules) {
  return rules.options.columns !== undefined ? ` · ${t("Columns: {n}", { n: rules.columns })}` : "";
}

export function renderStatus() {
  const chip = $("#status-chip");
  const status = game.status;
  chip.className = `chip chip-${status || "none"}`;
  chip.textContent = status === "open" ? t("Waiting for players") : status === "running" ? t("Playing") : status === "finished" ? t("status.finished") : status === "abandoned" ? t("Abandoned") : t("Connecting…");
}

/**
 * The players' strip: a card per seat (its name, role or last move, total, and its chance of
 * winning where the server judged the position: chances.js). The cards stay from one drawing to
 * the next and only their content is drawn afresh, so that the bars of the chances move.
 * @param {GameView} state
 */
export function renderPlayers(state) {
  const list = $("#players");
  const turnSeat = state.turn ? state.turn.seat : null;
  const mine = mySeats();
  const seats = state.players.length;
  while (list.children.length > seats) list.lastElementChild?.remove();
  // Games with rivals keep the bars' room from the start: the strip never grows when they come.
  list.classList.toggle("with-chances", seats > 1);
  const shown = shownChances(seats, game.seq);
  state.players.forEach((player, seat) => {
    const info = game.seats[seat];
    const isTurn = seat === turnSeat && !state.finished && game.status === "running";
    const bot = Boolean(info) && info.kind === "bot";
    // A person's seat says whether an account plays it (a name nobody else can take) or a
    // guest (a name typed for this game).
    const person = info && info.account ? t("Account") : t("Guest");
    const sub = bot ? `${t("Bot")} · ${levelName(info.level)}` : mine.includes(seat) ? t("you") : info && info.taken === false ? t("waiting") : person;
    const card = /** @type {HTMLElement} */ (list.children[seat] || list.appendChild(h("li")));
    card.className = ["player", isTurn ? "turn" : "", mine.includes(seat) ? "mine" : "", player.forfeited ? "forfeited" : ""].join(" ").trim();
    if (isTurn) card.setAttribute("aria-current", "true");
    else card.removeAttribute("aria-current");
    const name = playerName(seat);
    const old = card.querySelector(":scope > .chance");
    // (A solitaire game has no chances: no bar.)
    const meter = seats > 1 ? paintMeter(old instanceof HTMLElement ? old : null, shown, seat, name) : null;
    for (const child of [...card.childNodes]) if (child !== meter) child.remove();
    const parts = [
      h("span", { class: "player-avatar", "aria-hidden": "true" }, bot ? botIcon() : initials(name)),
      h("span", { class: "player-text" },
        h("span", { class: "player-name" }, name),
        h("span", { class: "player-sub" }, sub),
        lastMoveChip(state, seat)),
      h("span", { class: "player-score" },
        h("span", { class: "player-total", "aria-label": `${t("Total")}: ${num(player.total)}` }, num(player.total)),
        shown
          ? h("span", { class: `player-chance${shown.stale ? " stale" : ""}`, "aria-hidden": "true", title: chanceWords(shown, seat) }, cup(), shown.texts[seat])
          : null),
      isTurn ? h("span", { class: "sr-only" }, t("to move")) : null,
    ];
    card.prepend(...parts.filter((part) => part !== null));
    if (meter && meter.parentNode !== card) card.appendChild(meter);
  });
}

/**
 * A player's last move, short, in the players' strip: "Full house II 25 ×2", "School 6 −200".
 * @param {GameView} state
 * @param {number} seat
 */
function lastMoveChip(state, seat) {
  const move = state.last_moves ? state.last_moves[seat] : null;
  if (!move) return null;
  const rules = state.rules;
  /** @type {string} */
  let what;
  if (move.verb === "timeout") what = t("out of time");
  else {
    const cell = `${rowLabel(rules.variant, move.row || "")}${rules.columns > 1 && move.column !== null ? ` ${roman(move.column)}` : ""}`;
    const row = rules.rows.find((r) => r.id === move.row);
    const mark = move.verb === "strike" ? "—" : move.verb === "zero" ? zeroCost(rules) : row && row.school ? "✕" : num(move.points);
    what = `${cell} ${mark}${move.doubled ? " ×2" : ""}${move.reserve ? ` · ${t("reserve")} ${signed(move.reserve)}` : ""}${move.stars.length ? " · ★" : ""}`;
  }
  return h("span", { class: `player-last last-${move.verb}` }, h("span", { class: "sr-only" }, `${t("Last move")}: `), what);
}

/** @param {string} name */
function initials(name) {
  const letters = Array.from((name || "?").trim());
  return (letters[0] || "?").toUpperCase();
}

function botIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.innerHTML = '<rect x="4" y="7" width="16" height="12" rx="3" fill="currentColor"/><circle cx="9" cy="13" r="1.8" fill="#0c3b25"/><circle cx="15" cy="13" r="1.8" fill="#0c3b25"/><rect x="11" y="3" width="2" height="4" fill="currentColor"/><circle cx="12" cy="3" r="1.6" fill="currentColor"/>';
  return svg;
}

/** @param {GameView} state */
export function renderTurn(state) {
  const rules = state.rules;
  const turn = state.turn;
  const mine = myTurn();
  const msg = $("#turn-msg");
  const running = game.status === "running" && !state.finished;
  if (game.status === "abandoned") {
    // Closed for good (nobody played it for too long): what is left is its replay.
    clear(msg);
    msg.append(t("Nobody played this game for too long: it was closed."), " ", h("a", { href: `/replay/g/${encodeURIComponent(gameId)}` }, t("Watch the replay")));
  } else if (state.finished || game.status === "finished") {
    msg.textContent = t("Game over");
  } else if (game.status === "open") {
    msg.textContent = t("Waiting for players");
  } else if (turn && mine) {
    const who = mySeats().length > 1 ? t("{name}, your turn", { name: playerName(turn.seat) }) : t("Your turn");
    const what = turn.rolls === 0 ? t("roll the dice") : turn.can_roll ? t("tap dice to hold them, roll again or choose a cell") : t("choose a cell");
    msg.textContent = `${who}: ${what}.`;
  } else if (turn) {
    const info = game.seats[turn.seat];
    msg.textContent = info && info.kind === "bot" ? t("{name} (bot) is playing…", { name: playerName(turn.seat) }) : t("{name} is playing…", { name: playerName(turn.seat) });
  } else {
    msg.textContent = "";
  }
  if (state.tiebreak && running) msg.textContent += ` ${t("Tie-break game {n}.", { n: state.tiebreak.game })}`;

  tray.paint({
    count: rules.dice,
    values: turn && turn.rolls > 0 ? turn.dice : [],
    faceLabels: rules.face_labels,
    held,
    canHold: Boolean(mine && mine.can_keep && !game.pending),
    rolled: prefersReducedMotion() ? null : game.lastRolled,
  });
  game.lastRolled = null;
  $("#dice").classList.toggle("idle", !turn || turn.rolls === 0);
  $("#dice").hidden = !turn && Boolean(state.finished);

  // Rolls left: one pip per roll of the turn, lit while still available.
  const rollsBox = clear($("#rolls-left"));
  if (turn && running) {
    const pips = h("span", { class: "roll-pips", "aria-hidden": "true" });
    for (const i of range(rules.rolls_per_turn)) pips.appendChild(h("span", { class: i < turn.rolls_left ? "rp on" : "rp" }));
    rollsBox.appendChild(pips);
    rollsBox.appendChild(h("span", { class: "rolls-text" }, t("Rolls left: {n}", { n: num(turn.rolls_left) })));
  }

  const button = $("#roll-button", HTMLButtonElement);
  const kept = held.size;
  const all = rules.dice;
  button.disabled = !(mine && mine.can_roll && !game.pending && kept < all);
  if (mine && mine.rolls > 0 && kept > 0 && kept < all) button.textContent = tn("Roll {n} die", all - kept);
  else if (mine && mine.rolls > 0 && kept === all) button.textContent = t("All dice held");
  else button.textContent = t("Roll");
  button.classList.toggle("pulse", Boolean(mine && mine.rolls === 0 && !game.pending));
  // Spectators see the dice, not the controls.
  const player = mySeats().length > 0;
  button.hidden = !running || !player;
  $("#keys-hint").hidden = !running || !player;
  $("#keys-last-die").textContent = String(rules.dice);

  const auto = $("#auto-button", HTMLButtonElement);
  auto.hidden = !(mine && rules.autoplay);
  auto.disabled = Boolean(game.pending);
  renderClock();
}

function renderClock() {
  const box = $("#clock");
  clearInterval(clockTimer);
  const clock = game.clock;
  if (!clock || !clock.deadline || game.status !== "running") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const tick = () => {
    const left = Math.max(0, clock.deadline - Date.now());
    const seconds = Math.ceil(left / 1000);
    const total = (clock.seconds || seconds || 1) * 1000;
    $("#clock-text").textContent = seconds >= 60 ? `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}` : String(seconds);
    box.setAttribute("aria-label", tn("{n} second left for {name}", seconds, { name: playerName(clock.seat) }));
    const arc = $("#clock-arc", SVGElement);
    const length = 2 * Math.PI * 15;
    arc.style.strokeDasharray = `${length}`;
    arc.style.strokeDashoffset = `${length * (1 - Math.min(1, left / total))}`;
    box.classList.toggle("urgent", seconds <= 10);
    if (left <= 0) clearInterval(clockTimer);
  };
  tick();
  clockTimer = setInterval(tick, 250);
}

/** @param {GameView} state */
export function renderSheets(state) {
  const turnSeat = state.turn && !state.finished && game.status === "running" ? state.turn.seat : null;
  const mine = mySeats();
  const mineTurn = myTurn();
  // The big sheet: the seat to move if it is ours; else our first seat; spectators follow the turn.
  let big = turnSeat;
  if (mine.length && (turnSeat === null || !mine.includes(turnSeat))) big = mine[0];
  if (big === null || big === undefined) big = state.ranking && state.ranking.length ? state.ranking[0] : 0;
  if (state.finished) big = mine.length ? mine[0] : state.ranking[0];
  drawSheets(state, {
    mainBox: $("#main-sheet"),
    othersBox: $("#other-sheets"),
    big,
    turnSeat,
    legal: mineTurn && !game.pending && mineTurn.rolls > 0 && big === turnSeat ? mineTurn.legal : null,
    onMove: choose,
    armed: armed(),
    mine,
    nameOf: playerName,
  });
  renderEvents(state);
}

/**
 * The move log (its first lines on arrival) and the stars overview of the position.
 * @param {GameView} state
 */
function renderEvents(state) {
  mountLog(events);
  mountStars(events);
  startLog(state);
  const mine = mySeats();
  const turn = state.turn;
  const me = turn && mine.includes(turn.seat) ? turn.seat : mine.length ? mine[0] : null;
  renderStars(state, me);
}
