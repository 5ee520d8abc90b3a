"""A game of the web app, joined through its WebSocket protocol (docs/api.md).

`RemoteSession` connects to `/ws/games/{id}` with a seat's token (a player) or without one (a
spectator), draws every `state` the server sends, and sends intents as `act` messages. When the
connection drops it reconnects by itself, with growing pauses, and asks for what it missed with
`{"type": "sync", "last_seq": N}`. A refused token or an unknown game ends the session instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast
from urllib.parse import quote, urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

from dicepoker.fair import verify_record
from dicepoker.server.protocol import socket_protocols
from dicepoker.tui.session import ActionRefused, Session, Update

#: Pauses between reconnection attempts (the last one repeats).
BACKOFF: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 4.0)

#: Error codes of the protocol and the web catalog's sentence for each.
ERROR_WORDS: dict[str, str] = {
    "not_your_turn": "It is not your turn.",
    "spectator": "Spectators cannot play.",
    "stale": "The game moved on: look again and retry.",
    "bad_roll": "You cannot roll now.",
    "bad_move": "That cell cannot be filled with these dice.",
    "game_over": "The game is over.",
    "rate_limited": "Slow down a little.",
    "waiting": "The game starts when every seat is taken.",
    "too_large": "That was too large.",
    "bad_message": "The server did not understand that.",
}


class RemoteError(Exception):
    """The server cannot be used: a wrong address, an unknown game, a refused token."""


@dataclass(frozen=True, slots=True)
class GameAddress:
    """Where a game lives: the server's base URL and the game's id."""

    server: str
    game: str

    @property
    def ws_url(self) -> str:
        parts = urlsplit(self.server)
        scheme = "wss" if parts.scheme == "https" else "ws"
        base = parts.path.rstrip("/")
        return f"{scheme}://{parts.netloc}{base}/ws/games/{quote(self.game, safe='')}"

    def api(self, path: str) -> str:
        return f"{self.server.rstrip('/')}/api/games/{quote(self.game, safe='')}{path}"


def game_address(server: str | None, game: str) -> GameAddress:
    """Read `--server URL --game ID`, or a share link such as `http://host:8000/g/ID` as the game
    (then `--server` may be left out)."""
    game = game.strip()
    if "://" in game:
        parts = urlsplit(game)
        pieces = [piece for piece in parts.path.split("/") if piece]
        if len(pieces) < 2 or pieces[-2] not in {"g", "games"}:
            raise RemoteError(f"not a link to a game: {game!r} (expected …/g/ID)")
        return GameAddress(f"{parts.scheme}://{parts.netloc}", pieces[-1])
    if not server:
        raise RemoteError("--game needs --server URL (or give the game's link)")
    parts = urlsplit(server if "://" in server else f"http://{server}")
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise RemoteError(f"--server must be an http:// or https:// address, not {server!r}")
    if not game or "/" in game:
        raise RemoteError(f"not a game id: {game!r}")
    return GameAddress(f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}", game)


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
        return str(body["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


async def join_seat(
    address: GameAddress, name: str, seat: int | None = None, *, timeout: float = 10.0
) -> tuple[int, str]:
    """Take an open seat of a game (`POST /api/games/{id}/join`): its number and its token."""
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.post(address.api("/join"), json=body)
    except httpx.HTTPError as exc:
        raise RemoteError(f"cannot reach {address.server}: {exc}") from None
    if response.status_code != 200:
        raise RemoteError(f"cannot take a seat: {_error_text(response)}")
    data = response.json()
    return int(data["seat"]), str(data["token"])


async def fetch_record(address: GameAddress, *, timeout: float = 10.0) -> dict[str, Any]:
    """The game's record so far (`GET /api/games/{id}/record`)."""
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(address.api("/record"))
    except httpx.HTTPError as exc:
        raise RemoteError(f"cannot reach {address.server}: {exc}") from None
    if response.status_code != 200:
        raise RemoteError(f"cannot fetch the record: {_error_text(response)}")
    record: dict[str, Any] = response.json()
    return record


class RemoteSession(Session):
    """A seat (with a token) or a spectator's place (without) at a game of the web app."""

    def __init__(
        self,
        address: GameAddress,
        token: str | None = None,
        *,
        backoff: Sequence[float] = BACKOFF,
    ) -> None:
        super().__init__()
        self.address = address
        self.token = token
        self.spectator = token is None
        self.backoff = tuple(backoff) or (1.0,)
        self.seat: int | None = None
        self.seq = 0
        self.seats: list[dict[str, Any]] = []
        self.connected = False
        self.connections = 0
        self.missed: list[dict[str, Any]] = []
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._refs = 0
        self._closed = False
        self._checking: asyncio.Task[None] | None = None

    # --- the session interface ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.address.ws_url

    @property
    def subprotocols(self) -> list[Subprotocol]:
        """Our subprotocol and the seat's token, sent in a header rather than in the URL."""
        return [Subprotocol(p) for p in socket_protocols(self.token)]

    @property
    def _proxy(self) -> Literal[True] | None:
        """No proxy for a server on this machine; the environment's proxy settings otherwise."""
        host = urlsplit(self.address.server).hostname or ""
        return None if host in {"localhost", "127.0.0.1", "::1"} else True

    def controls(self, seat: int) -> bool:
        return self.seat is not None and seat == self.seat

    def is_bot(self, seat: int) -> bool:
        return 0 <= seat < len(self.seats) and self.seats[seat].get("kind") == "bot"

    @property
    def home_seat(self) -> int | None:
        return self.seat

    @property
    def title(self) -> str:
        return f"{self.address.game} @ {urlsplit(self.address.server).netloc}"

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    async def act(self, action: str) -> None:
        if self.spectator:
            raise ActionRefused(ERROR_WORDS["spectator"], "spectator")
        ws = self._ws
        if ws is None or not self.connected:
            raise ActionRefused("No connection to the server.", "offline")
        self._refs += 1
        message = {"type": "act", "action": action, "seq": self.seq, "ref": str(self._refs)}
        try:
            await ws.send(json.dumps(message))
        except ConnectionClosed:
            raise ActionRefused("No connection to the server.", "offline") from None

    async def record(self) -> dict[str, Any]:
        try:
            return await fetch_record(self.address)
        except RemoteError as exc:
            raise ActionRefused(str(exc), "offline") from None

    async def close(self) -> None:
        self._closed = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._checking is not None:
            self._checking.cancel()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.status = "closed"

    async def drop(self) -> None:
        """Close the connection as if the network had failed (reconnection follows)."""
        ws = self._ws
        if ws is not None:
            await ws.close(code=1011, reason="dropped")

    # --- the connection -------------------------------------------------------------------------

    async def _run(self) -> None:
        failures = 0
        while not self._closed:
            try:
                async with connect(
                    self.url, subprotocols=self.subprotocols, open_timeout=10, proxy=self._proxy
                ) as ws:
                    self._ws = ws
                    failures = 0
                    await self._listen(ws)
            except InvalidStatus as exc:
                code = exc.response.status_code
                if code in (403, 404):
                    self._stop(self._refusal(4403 if code == 403 else 4404))
                    return
            except ConnectionClosed as exc:
                received = exc.rcvd.code if exc.rcvd is not None else None
                if received in (4403, 4404):
                    self._stop(self._refusal(received))
                    return
            except InvalidURI as exc:
                self._stop(f"not a WebSocket address: {exc}")
                return
            except (TimeoutError, OSError, InvalidHandshake, ValueError):
                pass
            finally:
                self._ws = None
            if self._closed:
                return
            self.connected = False
            if self.status != "finished":
                self.status = "reconnecting"
            self.emit(Update("notice", "Connection lost, reconnecting…"))
            await asyncio.sleep(self.backoff[min(failures, len(self.backoff) - 1)])
            failures += 1

    def _refusal(self, code: int) -> str:
        if code == 4404:
            return "This game does not exist."
        if self.token:
            return "The seat token was refused."
        return "The server refused the connection."

    def _stop(self, message: str) -> None:
        self.fatal = message
        self.connected = False
        self.status = "closed"
        self.emit(Update("error", message))

    async def _listen(self, ws: ClientConnection) -> None:
        async for raw in ws:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                await self._handle(ws, cast(dict[str, Any], message))

    def _take(self, message: dict[str, Any]) -> None:
        """Keep what a message says about the game: state, status, seats, clock, seq."""
        if isinstance(message.get("state"), dict):
            self.view = message["state"]
        if isinstance(message.get("seats"), list):
            self.seats = message["seats"]
        if "clock" in message:
            clock = message["clock"]
            self.clock = clock if isinstance(clock, dict) else None
        if isinstance(message.get("fair_dice"), dict):
            self.fair_dice = message["fair_dice"]
        status = message.get("status")
        if status in ("open", "running", "finished"):
            self.status = status
        seq = message.get("seq")
        if isinstance(seq, int) and seq >= self.seq:
            self.seq = seq

    def _check_dice(self) -> None:
        """Once the game is over (its seed revealed), check its dice here, not trusting the
        server's word: every roll of the record against the commitment shown during play."""
        if self.status != "finished" or self.fair_dice is None or self._checking is not None:
            return
        self._checking = asyncio.create_task(self._verify())

    async def _verify(self) -> None:
        try:
            record = await fetch_record(self.address)
        except RemoteError:
            self._checking = None  # try again with the next message
            return
        self.dice_check = await asyncio.to_thread(verify_record, record)
        self.emit(Update("view"))

    async def _handle(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        await self._dispatch(ws, message)
        self._check_dice()

    async def _dispatch(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            again = self.connections > 0
            last_seq = self.seq
            self.connections += 1
            self.connected = True
            seat = message.get("seat")
            self.seat = seat if isinstance(seat, int) else None
            if again:
                # Ask for what happened while we were away; the welcome's state is already new.
                await ws.send(json.dumps({"type": "sync", "last_seq": last_seq}))
            self._take(message)
            self.emit(Update("view"))
            if again:
                self.emit(Update("notice", "Connected again."))
        elif kind == "event":
            self._take(message)
            seat = message.get("seat")
            action = message.get("action")
            if isinstance(seat, int) and isinstance(action, str):
                self.last_action = (seat, action)
                self.emit(Update("view", seat=seat, action=action))
            else:
                self.emit(Update("view"))
        elif kind == "sync":
            events = message.get("events")
            if isinstance(events, list):
                self.missed = [event for event in events if isinstance(event, dict)]
                if self.missed:
                    last = self.missed[-1]
                    if isinstance(last.get("seat"), int) and isinstance(last.get("action"), str):
                        self.last_action = (last["seat"], last["action"])
            self._take(message)
            self.emit(Update("view"))
        elif kind == "seats":
            self._take(message)
            self.emit(Update("view"))
        elif kind == "resync":
            await ws.send(json.dumps({"type": "sync", "last_seq": self.seq}))
        elif kind == "error":
            code = str(message.get("code", ""))
            text = ERROR_WORDS.get(code) or str(message.get("message", code))
            self.emit(Update("error", text))
