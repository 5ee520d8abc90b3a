// The table's WebSockets: one per seat token this browser holds for the game (hot-seat: the page
// acts for whichever of those seats is to move), or one spectator socket when it holds none.
// Each reconnects with a growing pause and asks for what it missed (`sync`).
/** @import { ClientMessage, ServerMessage } from "../../typings/protocol" */
import { $, forgetToken, loadTokens, t, toast } from "./common.js";
import { game, gameId, handle, redraw } from "./game.js";

/** @type {Conn[]} the sockets of this page */
let conns = [];

/**
 * Handlers of the messages that are not the game's position (a rematch offer, a reaction),
 * by type: a module registers its own (`onMessage`); every other message goes to `handle`.
 * @type {Map<string, (message: any, conn: Conn) => void>}
 */
const handlers = new Map();

/**
 * Handle the server's messages of `type` here instead of in the game state (game.js).
 * @template {ServerMessage["type"]} K
 * @param {K} type
 * @param {(message: Extract<ServerMessage, { type: K }>, conn: { seat: number | null, token: string | null }) => void} handler
 */
export function onMessage(type, handler) {
  handlers.set(type, handler);
}

/** One socket, for a seat (with its token) or a spectator (without). */
class Conn {
  /**
   * @param {string | null} token
   * @param {number | null} seat
   */
  constructor(token, seat) {
    this.token = token;
    this.seat = seat; // from the token store; confirmed by "welcome"
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 0;
    this.closed = false;
    this.everOpen = false;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/games/${encodeURIComponent(gameId)}`;
  }

  // The seat token goes in the Sec-WebSocket-Protocol header, not in the URL (which proxies log).
  protocols() {
    return this.token ? ["dicepoker.v2", `token.${this.token}`] : ["dicepoker.v2"];
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
    ws.addEventListener("message", (message) => {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (!data || typeof data !== "object" || typeof data.type !== "string") return;
      const own = handlers.get(data.type);
      if (own) own(data, this);
      else handle(data, this);
    });
    ws.addEventListener("close", (closing) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (closing.code === 4403 && closing.reason === "daily_private") {
        // Another player's daily challenge game: shown once its day is over.
        this.closed = true;
        game.private = true;
        redraw();
        return;
      }
      if (closing.code === 4403) {
        if (this.token) {
          if (this.seat !== null) forgetToken(gameId, this.seat);
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
      if (closing.code === 4410) {
        // The game was closed as abandoned: nothing more to play or watch live.
        this.closed = true;
        game.status = "abandoned";
        redraw();
        return;
      }
      if (closing.code === 4404) {
        this.closed = true;
        game.missing = true;
        redraw();
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

  /** @param {ClientMessage} message */
  send(message) {
    if (!this.ws || !this.open) return false;
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

/** (Re)open the sockets of the seat tokens this browser holds, or a spectator's. */
export function openConnections() {
  const tokens = loadTokens(gameId);
  /** @type {[string, string][]} */
  const entries = [];
  for (const [seat, token] of Object.entries(tokens)) if (typeof token === "string" && token) entries.push([seat, token]);
  for (const conn of conns) conn.close();
  conns = entries.length ? entries.map(([seat, token]) => new Conn(token, Number(seat))) : [new Conn(null, null)];
  showConnection();
}

/** The seats this browser plays. */
export function mySeats() {
  /** @type {number[]} */
  const seats = [];
  for (const conn of conns) if (conn.token && conn.seat !== null) seats.push(conn.seat);
  return seats;
}

/**
 * The open socket of `seat`, if this browser holds it.
 * @param {number} seat
 */
export function connFor(seat) {
  return conns.find((c) => c.token && c.seat === seat && c.open) || null;
}

/** Ask every open socket for what it missed (the page was hidden a while). */
export function syncAll() {
  for (const conn of conns) if (conn.open) conn.send({ type: "sync", last_seq: Math.max(0, game.seq) });
}

/** The connection line of the table: connecting, lost, reconnecting, or nothing when all is well. */
export function showConnection() {
  const box = $("#conn");
  if (game.missing) return;
  const anyOpen = conns.some((c) => c.open);
  const waiting = conns.some((c) => !c.closed && !c.open);
  box.className = `conn ${anyOpen && !waiting ? "ok" : "lost"}`;
  if (!anyOpen && conns.some((c) => c.everOpen)) box.textContent = t("Connection lost, reconnecting…");
  else if (!anyOpen) box.textContent = t("Connecting…");
  else if (waiting) box.textContent = t("Reconnecting…");
  else box.textContent = "";
}
