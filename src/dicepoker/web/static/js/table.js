// The table of one game (/g/{id}): players, spectators, hot-seat and the end screen.
//
// The page opens one WebSocket per seat token this browser holds for the game (hot-seat: the
// page acts for whichever of those seats is to move), or one spectator socket when it holds none.
// It only ever draws the newest `state` the server sent; every rule stays on the server.
import {
  $, api, clear, copyText, dec, errorText, ERROR_TEXT, forgetToken, h, levelName, loadCatalog,
  loadTokens, minus, num, prefersReducedMotion, presetName, rememberName, saveToken, savedName, t,
  toast,
} from "./common.js";
import { actionNode, isCellAction, keptPositions, renderAnalysis, renderAnalysisMessage } from "./analysis.js";
import { DiceTray } from "./dice.js";
import { loadVerification, paintCommitment } from "./fair.js";
import { drawSheets } from "./sheet.js";

const main = document.getElementById("main");
const gameId = main.dataset.gameId;

const game = {
  seq: -1,
  status: null,
  clock: null,
  seats: [],
  state: null,
  fair: null, // {scheme, commitment, seed once the game is over} (docs/fair-dice.md)
  turnKey: null,
};
const held = new Set();
let pending = null; // {ref, at}: an intent sent, waiting for its event or refusal
let conns = [];
let dice = null;
let clockTimer = null;
let lastRolled = null;
let notFound = false;
let drawnOnce = false;
let fairAsked = false; // the end screen's dice check, asked once

// --- connections -------------------------------------------------------------------------------

class Conn {
  constructor(token, seat) {
    this.token = token;
    this.seat = seat; // from the token store; confirmed by "welcome"
    this.ws = null;
    this.retry = 0;
    this.closed = false;
    this.everOpen = false;
    this.pinger = null;
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/games/${encodeURIComponent(gameId)}`;
  }

  // The seat token goes in the Sec-WebSocket-Protocol header, not in the URL (which proxies log).
  protocols() {
    return this.token ? ["dicepoker.v1", `token.${this.token}`] : ["dicepoker.v1"];
  }

  connect() {
    if (this.closed) return;
    const ws = new WebSocket(this.url(), this.protocols());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retry = 0;
      if (this.everOpen && game.seq >= 0) this.send({ type: "sync", last_seq: game.seq });
      this.everOpen = true;
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
      showConnection();
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      handle(message, this);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (event.code === 4403) {
        if (this.token) {
          forgetToken(gameId, this.seat);
          toast(t("This browser's seat token was refused."), "error");
          this.closed = true;
          conns = conns.filter((c) => c !== this);
          if (!conns.length) openConnections();
        } else {
          this.closed = true;
        }
        showConnection();
        return;
      }
      if (event.code === 4404) {
        this.closed = true;
        showNotFound();
        return;
      }
      if (this.closed) return;
      const delay = Math.min(10000, 500 * 2 ** this.retry) + Math.random() * 300;
      this.retry += 1;
      showConnection();
      setTimeout(() => this.connect(), delay);
    });
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closed = true;
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}

function openConnections() {
  const tokens = loadTokens(gameId);
  const entries = Object.entries(tokens).filter(([, token]) => typeof token === "string" && token);
  for (const conn of conns) conn.close();
  conns = entries.length ? entries.map(([seat, token]) => new Conn(token, Number(seat))) : [new Conn(null, null)];
  showConnection();
}

function mySeats() {
  return conns.filter((c) => c.token && c.seat !== null).map((c) => c.seat);
}

function connFor(seat) {
  return conns.find((c) => c.token && c.seat === seat && c.open) || null;
}

function showConnection() {
  const box = $("#conn");
  if (notFound) return;
  const anyOpen = conns.some((c) => c.open);
  const waiting = conns.some((c) => !c.closed && !c.open);
  box.className = `conn ${anyOpen && !waiting ? "ok" : "lost"}`;
  if (!anyOpen && conns.some((c) => c.everOpen)) box.textContent = t("Connection lost, reconnecting…");
  else if (!anyOpen) box.textContent = t("Connecting…");
  else if (waiting) box.textContent = t("Reconnecting…");
  else box.textContent = "";
}

// --- messages ----------------------------------------------------------------------------------

function handle(message, conn) {
  switch (message.type) {
    case "welcome":
      if (message.seat !== null && message.seat !== undefined) conn.seat = message.seat;
      accept(message, null);
      break;
    case "event":
      accept(message, message);
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
      render();
      break;
    case "resync":
      conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
      break;
    case "error":
      if (!pending || !message.ref || message.ref === pending.ref) pending = null;
      if (message.code === "stale") conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
      toast(ERROR_TEXT[message.code] ? t(ERROR_TEXT[message.code]) : message.message || message.code, "error");
      render();
      break;
    default:
      break;
  }
}

/** Take a full state from the server if it is newer than the one drawn. */
function accept(message, event) {
  if (typeof message.seq === "number" && message.seq < game.seq) return;
  if (typeof message.seq === "number" && message.seq === game.seq && event) return; // a twin
  game.seq = typeof message.seq === "number" ? message.seq : game.seq;
  if (message.status) game.status = message.status;
  if ("clock" in message) game.clock = message.clock;
  if ("fair_dice" in message) game.fair = message.fair_dice;
  if (message.seats) game.seats = message.seats;
  if (message.state) game.state = message.state;
  pending = null;
  lastRolled = null;
  if (event && typeof event.action === "string") {
    const words = event.action.trim().split(/\s+/);
    if (words[0] === "roll") lastRolled = new Set([0, 1, 2, 3, 4]);
    else if (words[0] === "hold") {
      const kept = new Set(words.slice(1).map(Number));
      lastRolled = new Set([0, 1, 2, 3, 4].filter((i) => !kept.has(i)));
    }
    if (event.auto) toast(t("{name} was played automatically.", { name: playerName(event.seat) }), "info", 2200);
  }
  render();
}

// --- actions -----------------------------------------------------------------------------------

let refCounter = 0;
function act(action) {
  const turn = game.state && game.state.turn;
  if (!turn || game.status !== "running") return;
  const conn = connFor(turn.seat);
  if (!conn) {
    toast(t(ERROR_TEXT.not_your_turn), "error");
    return;
  }
  if (pending && Date.now() - pending.at < 4000) return;
  refCounter += 1;
  const ref = `r${refCounter}`;
  if (conn.send({ type: "act", action, seq: game.seq, ref })) {
    pending = { ref, at: Date.now() };
    render();
  } else {
    toast(t("Connection lost, reconnecting…"), "error");
  }
}

function roll() {
  const turn = myTurn();
  if (!turn || !turn.can_roll) return;
  const kept = [...held].filter((i) => i >= 0 && i < 5).sort();
  if (turn.rolls === 0 || kept.length === 0) act("roll");
  else if (kept.length < 5) act(`hold ${kept.join(" ")}`);
  else toast(t("Release at least one die to roll."), "error");
}

function toggle(index) {
  const turn = myTurn();
  if (!turn || !turn.can_hold || turn.rolls === 0) return;
  if (held.has(index)) held.delete(index);
  else held.add(index);
  render();
}

function autoPlay() {
  const turn = myTurn();
  if (!turn) return;
  const conn = connFor(turn.seat);
  if (conn) conn.send({ type: "auto", ref: "auto" });
}

/** The turn if one of this browser's seats is to move now. */
function myTurn() {
  const state = game.state;
  if (!state || state.finished || game.status !== "running" || !state.turn) return null;
  return mySeats().includes(state.turn.seat) ? state.turn : null;
}

// --- drawing -----------------------------------------------------------------------------------

function playerName(seat) {
  const state = game.state;
  const info = game.seats[seat];
  if (info && !info.taken && info.kind === "human") return t("Open seat");
  if (state && state.players[seat]) return state.players[seat].name;
  return (info && info.name) || t("Seat {n}", { n: seat + 1 });
}

function render() {
  if (notFound) return;
  const state = game.state;
  const focused = document.activeElement;
  const focusedAction = focused && focused.dataset ? focused.dataset.action : null;
  document.body.classList.toggle("my-turn", Boolean(myTurn()));
  if (state) {
    const rules = state.rules;
    $("#game-title").textContent = title(rules);
    $("#rules-link").href = `/rules/${rules.preset}`;
    document.title = `${title(rules)} · ${t("Dice poker")}`;
  }
  renderStatus();
  paintCommitment($("#fair-chip"), game.fair);
  renderWaiting();
  if (!state) return;
  syncHeld(state);
  renderPlayers(state);
  renderTurn(state);
  renderSheets(state);
  renderAdvice(state);
  renderEnd(state);
  drawnOnce = true;
  // Keep keyboard focus where it was when the element it was on was redrawn.
  if (focused && !focused.isConnected) {
    const again = focusedAction && document.querySelector(`[data-action="${CSS.escape(focusedAction)}"]`);
    const fallback = again || (myTurn() ? $("#roll-button") : null);
    if (fallback && !fallback.disabled) fallback.focus({ preventScroll: true });
    else if (fallback && firstMove()) firstMove().focus({ preventScroll: true });
  }
}

function title(rules) {
  let text = presetName(rules.preset);
  if (rules.preset === "school" && rules.columns) text += ` · ${t("Columns: {n}", { n: rules.columns })}`;
  return text;
}

function renderStatus() {
  const chip = $("#status-chip");
  const status = game.status;
  chip.className = `chip chip-${status || "none"}`;
  chip.textContent = status === "open" ? t("Waiting for players") : status === "running" ? t("Playing") : status === "finished" ? t("Finished") : t("Connecting…");
}

/** Forget the held dice when a new turn (or a new roll count of zero) begins. */
function syncHeld(state) {
  const turn = state.turn;
  const key = turn ? `${state.tiebreak ? state.tiebreak.game : 0}:${state.turn_number}:${turn.seat}` : "done";
  if (key !== game.turnKey || !turn || turn.rolls === 0) {
    held.clear();
    // A page that arrives mid-turn (a reload, a reconnection) shows the dice the last roll kept.
    if (key !== game.turnKey && turn && turn.rolls > 0 && Array.isArray(turn.kept)) {
      for (const index of turn.kept) held.add(index);
    }
    game.turnKey = key;
  }
}

function renderWaiting() {
  const box = $("#waiting");
  const open = game.status === "open";
  box.hidden = !open;
  $("#table-layout").hidden = open;
  if (!open) return;
  const url = `${location.origin}/g/${gameId}`;
  $("#share-url").value = url;
  const list = clear($("#waiting-seats"));
  const mine = mySeats();
  for (const seat of game.seats) {
    const taken = seat.taken;
    list.appendChild(
      h("li", { class: `wseat ${taken ? "taken" : "free"}` },
        h("span", { class: "wseat-n" }, num(seat.seat + 1)),
        h("span", { class: "wseat-name" }, taken ? seat.name || "" : t("Open seat")),
        seat.kind === "bot" ? h("span", { class: "tag" }, `${t("Bot")} · ${levelName(seat.level)}`) : null,
        mine.includes(seat.seat) ? h("span", { class: "tag you" }, t("you")) : null),
    );
  }
  const free = game.seats.filter((s) => s.kind === "human" && !s.taken);
  const form = $("#join-form");
  form.hidden = free.length === 0 || mine.length > 0;
  const select = $("#join-seat");
  const before = select.value;
  clear(select);
  for (const seat of free) select.appendChild(h("option", { value: String(seat.seat) }, t("Seat {n}", { n: seat.seat + 1 })));
  if (free.some((s) => String(s.seat) === before)) select.value = before;
  const name = $("#join-name");
  if (!name.value) name.value = savedName();
  $("#watch-hint").hidden = mine.length > 0;
}

function renderPlayers(state) {
  const list = clear($("#players"));
  const turnSeat = state.turn ? state.turn.seat : null;
  const mine = mySeats();
  state.players.forEach((player, seat) => {
    const info = game.seats[seat] || {};
    const isTurn = seat === turnSeat && !state.finished && game.status === "running";
    const bot = info.kind === "bot";
    list.appendChild(
      h("li", {
        class: ["player", isTurn ? "turn" : "", mine.includes(seat) ? "mine" : "", player.forfeited ? "forfeited" : ""].join(" ").trim(),
        "aria-current": isTurn ? "true" : null,
      },
        h("span", { class: "player-avatar", "aria-hidden": "true" }, bot ? botIcon() : initials(playerName(seat))),
        h("span", { class: "player-text" },
          h("span", { class: "player-name" }, playerName(seat)),
          h("span", { class: "player-sub" }, bot ? `${t("Bot")} · ${levelName(info.level)}` : mine.includes(seat) ? t("you") : info.taken === false ? t("waiting") : t("Player"))),
        h("span", { class: "player-total", "aria-label": `${t("Total")}: ${num(player.total)}` }, num(player.total)),
        isTurn ? h("span", { class: "sr-only" }, t("to move")) : null),
    );
  });
}

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

function renderTurn(state) {
  const rules = state.rules;
  const turn = state.turn;
  const mine = myTurn();
  const msg = $("#turn-msg");
  const running = game.status === "running" && !state.finished;
  if (state.finished || game.status === "finished") {
    msg.textContent = t("Game over");
  } else if (game.status === "open") {
    msg.textContent = t("Waiting for players");
  } else if (turn && mine) {
    const who = mySeats().length > 1 ? t("{name}, your turn", { name: playerName(turn.seat) }) : t("Your turn");
    const what = turn.rolls === 0 ? t("roll the dice") : turn.can_roll ? t("tap dice to hold them, roll again or choose a cell") : t("choose a cell");
    msg.textContent = `${who}: ${what}.`;
  } else if (turn) {
    const info = game.seats[turn.seat] || {};
    msg.textContent = info.kind === "bot" ? t("{name} (bot) is playing…", { name: playerName(turn.seat) }) : t("{name} is playing…", { name: playerName(turn.seat) });
  } else {
    msg.textContent = "";
  }
  if (state.tiebreak && running) msg.textContent += ` ${t("Tie-break game {n}.", { n: state.tiebreak.game })}`;

  dice.paint({
    values: turn && turn.rolls > 0 ? turn.dice : [],
    faceLabels: rules.face_labels,
    held,
    canHold: Boolean(mine && mine.can_hold && !pending),
    rolled: prefersReducedMotion() ? null : lastRolled,
  });
  lastRolled = null;
  $("#dice").classList.toggle("idle", !turn || turn.rolls === 0);
  $("#dice").hidden = !turn && Boolean(state.finished);

  // Rolls left: one pip per roll of the turn, lit while still available.
  const rollsBox = clear($("#rolls-left"));
  if (turn && running) {
    const pips = h("span", { class: "roll-pips", "aria-hidden": "true" });
    for (let i = 0; i < rules.rolls_per_turn; i += 1) pips.appendChild(h("span", { class: i < turn.rolls_left ? "rp on" : "rp" }));
    rollsBox.appendChild(pips);
    rollsBox.appendChild(h("span", { class: "rolls-text" }, t("Rolls left: {n}", { n: num(turn.rolls_left) })));
  }

  const button = $("#roll-button");
  const kept = held.size;
  button.disabled = !(mine && mine.can_roll && !pending && kept < 5);
  if (mine && mine.rolls > 0 && kept > 0 && kept < 5) button.textContent = t("Roll {n} dice", { n: 5 - kept });
  else if (mine && mine.rolls > 0 && kept === 5) button.textContent = t("All dice held");
  else button.textContent = t("Roll");
  button.classList.toggle("pulse", Boolean(mine && mine.rolls === 0 && !pending));
  // Spectators see the dice, not the controls.
  const player = mySeats().length > 0;
  button.hidden = !running || !player;
  $("#keys-hint").hidden = !running || !player;

  const auto = $("#auto-button");
  auto.hidden = !(mine && rules.preset === "poker-dice");
  auto.disabled = Boolean(pending);
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
    box.setAttribute("aria-label", t("{n} seconds left for {name}", { n: seconds, name: playerName(clock.seat) }));
    const arc = $("#clock-arc");
    const length = 2 * Math.PI * 15;
    arc.style.strokeDasharray = `${length}`;
    arc.style.strokeDashoffset = `${length * (1 - Math.min(1, left / total))}`;
    box.classList.toggle("urgent", seconds <= 10);
    if (left <= 0) clearInterval(clockTimer);
  };
  tick();
  clockTimer = setInterval(tick, 250);
}

function renderSheets(state) {
  const turnSeat = state.turn && !state.finished && game.status === "running" ? state.turn.seat : null;
  const mine = mySeats();
  const mineTurn = myTurn();
  // The big sheet: the seat to move if it is ours; else our first seat; spectators follow the turn.
  let big = turnSeat;
  if (mine.length && !mine.includes(turnSeat)) big = mine[0];
  if (big === null || big === undefined) big = state.ranking && state.ranking.length ? state.ranking[0] : 0;
  if (state.finished) big = mine.length ? mine[0] : state.ranking[0];
  drawSheets(state, {
    mainBox: $("#main-sheet"),
    othersBox: $("#other-sheets"),
    big,
    turnSeat,
    legal: mineTurn && !pending && mineTurn.rolls > 0 && big === turnSeat ? mineTurn.legal : null,
    onMove: act,
    mine,
    nameOf: playerName,
  });
}

function renderEnd(state) {
  const box = $("#end");
  const finished = state.finished || game.status === "finished";
  $("#table-layout").classList.toggle("finished", finished);
  const wasHidden = box.hidden;
  box.hidden = !finished;
  if (!finished) return;
  const list = clear($("#ranking"));
  const order = state.ranking && state.ranking.length ? state.ranking : state.players.map((_, i) => i);
  for (const seat of order) {
    const player = state.players[seat];
    list.appendChild(
      h("li", { class: `rank place-${player.place} ${state.winner === seat ? "winner" : ""}` },
        h("span", { class: "rank-place", "aria-label": t("Place {n}", { n: player.place }) }, num(player.place)),
        h("span", { class: "rank-name" }, playerName(seat)),
        player.forfeited ? h("span", { class: "tag" }, t("out of time")) : null,
        h("span", { class: "rank-total" }, num(player.total))),
    );
  }
  const winner = state.winner;
  if (winner === null || winner === undefined) {
    $("#end-title").textContent = t("A tie for first place!");
  } else {
    $("#end-title").textContent = mySeats().includes(winner) && mySeats().length === 1 ? t("You win!") : t("{name} wins!", { name: playerName(winner) });
  }
  $("#record-link").href = `/api/games/${encodeURIComponent(gameId)}/record`;
  $("#record-link").setAttribute("download", `dicepoker-${gameId}.json`);
  $("#replay-link").href = `/replay/g/${encodeURIComponent(gameId)}`;
  if (!analysisAsked) loadAnalysis(state);
  if (!fairAsked) {
    fairAsked = true;
    loadVerification($("#fair-result"), `/api/games/${encodeURIComponent(gameId)}/verify`);
  }
  // Announce the end to keyboard and screen reader users when it happens in front of them.
  if (wasHidden && drawnOnce) box.focus({ preventScroll: false });
}

// --- the analysis of a finished game (GET /api/games/{id}/analysis) -------------------------

let analysisAsked = false;

async function loadAnalysis(state) {
  analysisAsked = true;
  const box = $("#analysis");
  box.hidden = false;
  renderAnalysisMessage(box, t("Loading the analysis…"));
  const base = `/api/games/${encodeURIComponent(gameId)}`;
  const [result, record] = await Promise.all([api("GET", `${base}/analysis`), api("GET", `${base}/record`)]);
  if (!result.ok || !result.data || !Array.isArray(result.data.players)) {
    renderAnalysisMessage(box, t("The analysis is not available."));
    return;
  }
  renderAnalysis(box, result.data, {
    preset: state.rules.preset,
    faceLabels: state.rules.face_labels,
    record: record.ok ? record.data : null,
    href: (turn, roll) => `/replay/g/${encodeURIComponent(gameId)}?turn=${turn}&roll=${roll}`,
  });
}

// --- the hint: the advisor's values for the seat to move (GET /api/games/{id}/advice) --------

const HINT_KEY = "dicepoker:hint";
const hint = { on: savedHint(), data: null, asked: -1, failed: false, drawn: null };

function savedHint() {
  try {
    return localStorage.getItem(HINT_KEY) === "1";
  } catch {
    return false;
  }
}

function toggleHint() {
  if (!mySeats().length) return;
  hint.on = !hint.on;
  try {
    localStorage.setItem(HINT_KEY, hint.on ? "1" : "0");
  } catch {
    /* private mode: the choice lasts as long as the page */
  }
  hint.asked = -1;
  hint.failed = false;
  render();
}

/** Ask for the advice of the position drawn now; answers for an older position are dropped. */
async function fetchAdvice() {
  const seq = game.seq;
  hint.asked = seq;
  hint.failed = false;
  const result = await api("GET", `/api/games/${encodeURIComponent(gameId)}/advice`);
  if (hint.asked !== seq) return; // asked again since
  const data = result.ok ? result.data : null;
  if (data && typeof data.seq === "number" && Array.isArray(data.options)) {
    if (data.seq >= game.seq) hint.data = data;
  } else if (seq === game.seq) {
    hint.failed = true;
  }
  render();
}

/** The action that rolls the dice not held now: "roll", "hold 0 3", or null (all five held). */
function heldAction() {
  const kept = [...held].filter((i) => i >= 0 && i < 5).sort((a, b) => a - b);
  if (kept.length === 5) return null;
  return kept.length ? `hold ${kept.join(" ")}` : "roll";
}

/** The advisor's measure of an option: its expected final score, or in a School game with rivals
 * (a margin for risk; in the last turns also the chance of winning) the `worth` it ranks by. */
function worth(option) {
  return option.worth ?? option.value;
}

function bestOf(options, prefer) {
  let best = null;
  for (const option of options) {
    if (!best || worth(option) > worth(best) + 1e-9) best = option;
    else if (prefer && option.action === prefer && Math.abs(worth(option) - worth(best)) <= 1e-9) best = option;
  }
  return best;
}

/** " · 87% to win": an option's chance of winning, where the advisor gives one. */
function chanceNode(option) {
  if (!option || option.win === undefined) return null;
  const percent = `${Math.round(option.win * 100)}%`;
  return h("span", { class: "adv-win" }, ` · ${t("{percent} chance to win", { percent })}`);
}

/** "(−4.1)": how far `value` falls below the best option (nothing when it is as good). */
function gapBelow(best, value) {
  const gap = best === null ? 0 : best - value;
  return gap > 0.05 ? h("span", { class: "adv-gap", title: t("{points} below the best option", { points: dec(gap) }) }, ` (${minus(gap)})`) : null;
}

function adviceLine(cls, label, content, value, extra) {
  return h("p", { class: `adv-line ${cls}` },
    cls.includes("top") ? h("span", { class: "adv-star", "aria-hidden": "true" }, "★") : null,
    h("span", { class: "adv-label" }, label),
    " ",
    content,
    value === null ? null : h("span", { class: "adv-arrow", "aria-hidden": "true" }, " → "),
    value === null ? null : h("span", { class: "sr-only" }, `, ${t("expected final score")} `),
    value === null ? null : h("span", { class: "adv-value" }, dec(value)),
    extra || null);
}

function renderAdvice(state) {
  const turn = myTurn();
  const player = mySeats().length > 0 && game.status === "running" && !state.finished;
  const button = $("#hint-button");
  button.hidden = !player;
  button.setAttribute("aria-pressed", hint.on ? "true" : "false");
  const panel = $("#advice");
  const on = hint.on && Boolean(turn);
  panel.hidden = !on;
  $("#table-layout").classList.toggle("hinting", on);
  for (const die of document.querySelectorAll("#dice .die.advised")) die.classList.remove("advised");
  $("#dice").classList.remove("stop-best");
  if (!on) {
    hint.drawn = null;
    return;
  }
  if ((!hint.data || hint.data.seq !== game.seq) && hint.asked !== game.seq) fetchAdvice();
  const data = hint.data && hint.data.seq === game.seq && hint.data.seat === turn.seat ? hint.data : null;
  const rules = state.rules;
  const preset = rules.preset;
  const faces = rules.face_labels;
  const options = data ? data.options : [];
  const rolls = options.filter((o) => !isCellAction(o.action));
  const cells = options.filter((o) => isCellAction(o.action));
  const chosen = turn.rolls > 0 ? heldAction() : "roll";
  const bestRoll = bestOf(rolls, chosen);
  const bestCell = bestOf(cells, null);
  const stop = data && data.best ? isCellAction(data.best.action) : false;
  const top = data && data.best ? worth(data.best) : null; // the best option's worth (★)

  // The dice the best hold keeps, and the value of every cell that may be filled now.
  if (bestRoll && turn.rolls > 0) {
    $("#dice").classList.toggle("stop-best", stop); // the best hold, though stopping is better
    const dice = document.querySelectorAll("#dice .die");
    for (const index of keptPositions(bestRoll.action)) {
      const die = dice[index];
      if (!die) continue;
      die.classList.add("advised");
      die.setAttribute("aria-label", `${die.getAttribute("aria-label")}, ${t("the hint keeps it")}`);
    }
  }
  if (bestCell) {
    const byAction = new Map(cells.map((o) => [o.action, o]));
    for (const move of document.querySelectorAll("#main-sheet td.legal button.move")) {
      const action = move.dataset.action;
      if (!byAction.has(action)) continue;
      const option = byAction.get(action);
      const value = option.value;
      const best = action === bestCell.action;
      const gap = worth(bestCell) - worth(option);
      move.classList.add("advised-cell");
      move.classList.toggle("advised-best", best);
      move.appendChild(h("span", { class: "adv", "aria-hidden": "true" }, best ? "★" : minus(gap)));
      const said = best
        ? `${t("best cell")}, ${t("expected final score")} ${dec(value)}`
        : `${t("expected final score")} ${dec(value)}, ${t("{points} below the best cell", { points: dec(gap) })}`;
      move.setAttribute("aria-label", `${move.getAttribute("aria-label") || ""}; ${said}`);
      const chance = option.win === undefined ? "" : ` · ${t("{percent} chance to win", { percent: `${Math.round(option.win * 100)}%` })}`;
      move.title = `${t("expected final score")}: ${dec(value)}${chance}`;
      move.dataset.value = String(value);
    }
  }

  // The panel, redrawn only when what it says changes.
  const key = JSON.stringify([game.seq, data ? data.seq : null, hint.failed, chosen, turn.rolls, pending ? 1 : 0]);
  if (key === hint.drawn) return;
  hint.drawn = key;
  clear(panel);
  const head = h("p", { class: "adv-head" }, h("span", { class: "adv-title" }, t("Hint")), h("span", { class: "adv-caption" }, t("expected final score")));
  panel.appendChild(head);
  if (!data) {
    panel.appendChild(h("p", { class: "adv-line muted-line" }, hint.failed ? t("The hint is not available now.") : t("Thinking…")));
    return;
  }
  if (turn.rolls === 0) {
    if (bestRoll) panel.appendChild(adviceLine("adv-roll top", t("Roll"), null, bestRoll.value, chanceNode(bestRoll)));
    return;
  }
  if (bestRoll) {
    const canApply = turn.can_hold && !pending && bestRoll.action !== chosen;
    const apply = canApply
      ? h("button", {
        type: "button",
        class: "btn small adv-apply",
        title: t("Hold the dice the hint keeps"),
        onclick: () => {
          held.clear();
          for (const index of keptPositions(bestRoll.action)) held.add(index);
          render();
        },
      }, t("Apply"))
      : null;
    const gap = stop ? gapBelow(top, worth(bestRoll)) : null;
    panel.appendChild(adviceLine(`adv-hold ${stop ? "" : "top"}`, t("Best roll:"), actionNode(preset, bestRoll.action, turn.dice, faces), bestRoll.value, [chanceNode(bestRoll), gap, apply]));
    const mine = chosen === null ? null : rolls.find((o) => o.action === chosen);
    if (chosen === null) {
      panel.appendChild(h("p", { class: "adv-line adv-mine" }, h("span", { class: "adv-label" }, t("Your choice:")), " ", t("All dice held")));
    } else if (mine) {
      panel.appendChild(adviceLine("adv-mine", t("Your choice:"), actionNode(preset, mine.action, turn.dice, faces), mine.value, [chanceNode(mine), gapBelow(top, worth(mine))]));
    }
  }
  if (bestCell) {
    panel.appendChild(adviceLine(`adv-cell ${stop ? "top" : ""}`, t("Best cell:"), actionNode(preset, bestCell.action, turn.dice, faces), bestCell.value, [chanceNode(bestCell), stop ? null : gapBelow(top, worth(bestCell))]));
    if (bestRoll) {
      const gap = worth(bestRoll) - worth(bestCell);
      const text = gap > 0.05
        ? t("Rolling again beats stopping by {points}.", { points: dec(gap) })
        : gap < -0.05
          ? t("Stopping beats rolling again by {points}.", { points: dec(-gap) })
          : t("Stopping and rolling again are worth the same.");
      panel.appendChild(h("p", { class: `adv-line adv-verdict ${gap > 0.05 ? "roll" : "stop"}` }, text));
    }
  }
}

function showNotFound() {
  notFound = true;
  $("#status-chip").textContent = t("Not found");
  const layout = $("#table-layout");
  clear(layout);
  layout.appendChild(h("section", { class: "card notfound" }, h("h2", null, t("This game does not exist.")), h("p", null, h("a", { class: "btn primary", href: "/" }, t("Back to the lobby")))));
  $("#waiting").hidden = true;
}

// --- keyboard ----------------------------------------------------------------------------------

function moves() {
  return [...document.querySelectorAll("#main-sheet button.move")];
}

function firstMove() {
  return moves()[0] || null;
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable)) return;
  const key = event.key;
  if (key === "h" || key === "H") {
    if (mySeats().length) {
      toggleHint();
      event.preventDefault();
    }
    return;
  }
  if (/^[1-5]$/.test(key)) {
    toggle(Number(key) - 1);
    event.preventDefault();
    return;
  }
  if (key === "r" || key === "R" || key === " " || key === "Spacebar") {
    if (key === " " && target && target.classList && target.classList.contains("move")) return;
    if (myTurn()) {
      roll();
      event.preventDefault();
    }
    return;
  }
  if (key === "ArrowUp" || key === "ArrowDown" || key === "ArrowLeft" || key === "ArrowRight") {
    const list = moves();
    if (!list.length) return;
    event.preventDefault();
    const index = list.indexOf(document.activeElement);
    if (index < 0) {
      list[key === "ArrowUp" || key === "ArrowLeft" ? list.length - 1 : 0].focus();
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowRight") {
      list[(index + (key === "ArrowRight" ? 1 : -1) + list.length) % list.length].focus();
      return;
    }
    // Up and down jump to the previous or next row that has a move.
    const rowOf = (el) => el.closest("tr");
    const here = rowOf(list[index]);
    const step = key === "ArrowDown" ? 1 : -1;
    let i = index;
    for (let n = 0; n < list.length; n += 1) {
      i = (i + step + list.length) % list.length;
      if (rowOf(list[i]) !== here) {
        // the first move of that row
        const row = rowOf(list[i]);
        const first = list.find((el) => rowOf(el) === row);
        first.focus();
        first.scrollIntoView({ block: "nearest" });
        return;
      }
    }
  }
  if (key === "Enter" && target === document.body) {
    const first = firstMove();
    if (first) {
      first.focus();
      event.preventDefault();
    }
  }
}

// --- joining and sharing ---------------------------------------------------------------------

async function join(event) {
  event.preventDefault();
  const name = $("#join-name").value.trim();
  const seat = Number($("#join-seat").value);
  const error = $("#join-error");
  error.textContent = "";
  if (!name) {
    error.textContent = t("Please write your name.");
    $("#join-name").focus();
    return;
  }
  const result = await api("POST", `/api/games/${encodeURIComponent(gameId)}/join`, { seat, name });
  if (!result.ok || !result.data || !result.data.token) {
    error.textContent = errorText(result);
    return;
  }
  rememberName(name);
  saveToken(gameId, result.data.seat, result.data.token);
  openConnections();
  toast(t("You took seat {n}.", { n: result.data.seat + 1 }), "ok");
}

async function share() {
  const url = `${location.origin}/g/${gameId}`;
  if (navigator.share && matchMedia("(pointer: coarse)").matches) {
    try {
      await navigator.share({ title: t("Dice poker"), url });
      return;
    } catch {
      /* fall back to copying */
    }
  }
  toast((await copyText(url)) ? t("Link copied.") : url, "ok");
}

// --- start -------------------------------------------------------------------------------------

async function start() {
  await loadCatalog();
  dice = new DiceTray($("#dice"), toggle);
  $("#roll-button").addEventListener("click", roll);
  $("#auto-button").addEventListener("click", autoPlay);
  $("#hint-button").addEventListener("click", toggleHint);
  $("#join-form").addEventListener("submit", join);
  $("#share-button").addEventListener("click", share);
  $("#share-copy").addEventListener("click", share);
  document.addEventListener("keydown", onKey);
  // A first look over HTTP so the page draws at once, even before the socket answers.
  const first = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
  if (first.status === 404) {
    showNotFound();
    return;
  }
  if (first.ok && first.data && game.seq < 0) {
    game.seq = first.data.seq ?? -1;
    game.status = first.data.status;
    game.seats = first.data.seats || [];
    game.clock = first.data.clock || null;
    game.state = first.data.state || null;
    game.fair = first.data.fair_dice || null;
    render();
  }
  openConnections();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") {
      for (const conn of conns) if (conn.open) conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
    }
  });
}

start();
