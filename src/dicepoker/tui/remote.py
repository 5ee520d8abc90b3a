"""A game of the web app, joined through its WebSocket protocol (docs/api.md).

`RemoteSession` connects to `/ws/games/{id}` with a seat's token (a player) or without one (a
spectator) speaking `dicepoker.v2`, draws every view the server sends (a whole `state`, or an
event's `changes` applied to the view of the event before it), and sends intents as `act`
messages. When the
connection drops it reconnects by itself, with growing pauses, and asks for what it missed with
`{"type": "sync", "last_seq": N}`. A refused token, an unknown game, or a server that cannot be
reached on the first try ends the session instead (it never connected: there is nothing to come
back to). `contact` tries a game once before the table opens, so that `dicepoker play` can say
what is wrong in one line and stop.

Every message is read with the protocol's own models (`dicepoker.protocol.server_message`, the
schema of docs/ws-schema.json) and every intent is written with them; what a refusal code means
to a person comes from the protocol's one table (`refusal_words`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlsplit

import httpx
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

from dicepoker.fair import verify_record
from dicepoker.protocol import (
    CLOSE_ABANDONED,
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    Act,
    ChancesMessage,
    ErrorMessage,
    ErrorResponse,
    EventEntry,
    EventMessage,
    GameAdvice,
    GameView,
    HeldMessage,
    PongMessage,
    React,
    ReactionId,
    ReactionMessage,
    Record,
    RematchCreated,
    RematchMessage,
    ResyncMessage,
    SeatsMessage,
    SeatTaken,
    SeatView,
    Sync,
    SyncMessage,
    WelcomeMessage,
    apply_changes,
    refusal_words,
    server_message,
    socket_protocols,
)
from dicepoker.protocol.base import Wire
from dicepoker.tui.session import ActionRefused, RematchOffer, Session, Update

if TYPE_CHECKING:
    from dicepoker.tui.rejoin import Rejoin

log = logging.getLogger("dicepoker.tui")

#: Pauses between reconnection attempts (the last one repeats).
BACKOFF: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 4.0)

OFFLINE = "No connection to the server."
#: The refusal (REST 403, WebSocket close reason) of another player's daily challenge game.
PRIVATE = "daily_private"

#: A message with the game's state: everything but errors, pongs and resyncs.
StateMessage = WelcomeMessage | EventMessage | SyncMessage | SeatsMessage
Incoming = StateMessage | ErrorMessage | PongMessage | ResyncMessage


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

    def root(self, path: str) -> str:
        """An address of the server's API outside the game (`/api/session`)."""
        return f"{self.server.rstrip('/')}{path}"

    @property
    def origin(self) -> str:
        """The server's origin, which a request carrying its session cookie must name."""
        parts = urlsplit(self.server)
        return f"{parts.scheme}://{parts.netloc}"


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
        return ErrorResponse.model_validate_json(response.content).error.message
    except ValidationError:
        return f"HTTP {response.status_code}"


def unreachable(address: GameAddress, exc: BaseException) -> str:
    """The one line for a server that does not answer (the same for every way of joining)."""
    return f"cannot reach {address.server}: {str(exc) or type(exc).__name__}"


def _proxy_for(address: GameAddress) -> Literal[True] | None:
    """No proxy for a server on this machine; the environment's proxy settings otherwise."""
    host = urlsplit(address.server).hostname or ""
    return None if host in {"localhost", "127.0.0.1", "::1"} else True


def _bearer(token: str | None) -> dict[str, str]:
    """The seat's token as the REST API reads it: a player's own daily challenge game is readable
    to its seat only until its day is over."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def _error_code(response: httpx.Response) -> str | None:
    try:
        return ErrorResponse.model_validate_json(response.content).error.code
    except ValidationError:
        return None


async def _game_exists(
    address: GameAddress, verb: str, timeout: float, token: str | None = None
) -> bool:
    """Whether the server knows the game (`GET /api/games/{id}`); `RemoteError` when it cannot
    be asked, or refuses it (another player's daily challenge game: in the refusal's words)."""
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(address.api(""), headers=_bearer(token))
    except httpx.HTTPError as exc:
        raise RemoteError(unreachable(address, exc)) from None
    if response.status_code == 404:
        return False
    if response.status_code != 200:
        if _error_code(response) == PRIVATE:
            raise RemoteError(refusal_words(PRIVATE, _error_text(response)))
        raise RemoteError(f"{verb}: {_error_text(response)}")
    return True


async def contact(address: GameAddress, token: str | None, *, timeout: float = 10.0) -> None:
    """Try the game once, as the table will: `RemoteError`, in the words `join_seat` uses, when
    the server cannot be reached, the game does not exist or the seat's token is refused."""
    verb = "cannot join the game" if token else "cannot watch the game"
    if not await _game_exists(address, verb, timeout, token):
        raise RemoteError(f"{verb}: no such game")
    protocols = [Subprotocol(p) for p in socket_protocols(token)]
    try:
        async with connect(
            address.ws_url, subprotocols=protocols, open_timeout=timeout, proxy=_proxy_for(address)
        ):
            pass
    except InvalidStatus as exc:
        code = exc.response.status_code
        if code == 403:
            why = "the seat token was refused" if token else "the server refused the connection"
            raise RemoteError(f"{verb}: {why}") from None
        raise RemoteError(f"{verb}: HTTP {code}") from None
    except InvalidURI as exc:
        raise RemoteError(f"not a WebSocket address: {exc}") from None
    except (TimeoutError, OSError, InvalidHandshake) as exc:
        raise RemoteError(unreachable(address, exc)) from None


async def join_seat(
    address: GameAddress,
    name: str | None,
    seat: int | None = None,
    *,
    login: tuple[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, str]:
    """Take an open seat of a game (`POST /api/games/{id}/join`): its number and its token.
    With `login` (an account's name and password) the seat is the account's: the client logs
    in, takes the seat and logs out again (the seat's token is what it plays with)."""
    body: dict[str, Any] = {} if name is None else {"name": name}
    if seat is not None:
        body["seat"] = seat
    origin = {"origin": address.origin}
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            if login is not None:
                credentials = {"name": login[0], "password": login[1]}
                logged = await client.post(
                    address.root("/api/session"), json=credentials, headers=origin
                )
                if logged.status_code != 200:
                    raise RemoteError(f"cannot log in: {_error_text(logged)}")
            try:
                response = await client.post(address.api("/join"), json=body, headers=origin)
            finally:
                if login is not None:
                    await client.delete(address.root("/api/session"), headers=origin)
    except httpx.HTTPError as exc:
        raise RemoteError(unreachable(address, exc)) from None
    if response.status_code != 200:
        raise RemoteError(f"cannot take a seat: {_error_text(response)}")
    try:
        taken = SeatTaken.model_validate_json(response.content)
    except ValidationError:
        raise RemoteError("cannot take a seat: the server's answer cannot be read") from None
    return taken.seat, taken.token


async def fetch_record(
    address: GameAddress, *, token: str | None = None, timeout: float = 10.0
) -> dict[str, Any]:
    """The game's record so far (`GET /api/games/{id}/record`), read as the seat of `token`
    where one is given."""
    return await _fetch(
        address, "/record", Record, "cannot fetch the record", "a record", token, timeout
    )


async def fetch_advice(
    address: GameAddress, *, token: str | None = None, timeout: float = 10.0
) -> dict[str, Any]:
    """The advisor's values for the player to move (`GET /api/games/{id}/advice`, the web
    table's hint), asked as the seat of `token`: the server's expert, so that the terminal's hint
    is the web's. A game without hints answers 403 `competitive` (a `RemoteError` here)."""
    return await _fetch(address, "/advice", GameAdvice, "no hints", "advice", token, timeout)


async def _fetch(
    address: GameAddress,
    path: str,
    model: type[Wire],
    failed: str,
    what: str,
    token: str | None,
    timeout: float,
) -> dict[str, Any]:
    """A game's REST answer read as `model` (as the seat of `token`), or a `RemoteError` that
    starts with `failed` and says why."""
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(address.api(path), headers=_bearer(token))
    except httpx.HTTPError as exc:
        raise RemoteError(unreachable(address, exc)) from None
    if response.status_code != 200:
        raise RemoteError(f"{failed}: {_error_text(response)}")
    try:
        return model.model_validate_json(response.content).to_data()
    except ValidationError:
        raise RemoteError(f"{failed}: the server's answer is not {what}") from None


class RemoteSession(Session):
    """A seat (with a token) or a spectator's place (without) at a game of the web app."""

    def __init__(
        self,
        address: GameAddress,
        token: str | None = None,
        *,
        backoff: Sequence[float] = BACKOFF,
        rejoin: Rejoin | None = None,
    ) -> None:
        super().__init__()
        self.address = address
        self.token = token
        #: How to come back to the seat (shown in the side panel).
        self.rejoin = rejoin
        self.spectator = token is None
        self.backoff = tuple(backoff) or (1.0,)
        self.seat: int | None = None
        self.seq = 0
        #: The typed view the server sent last (`view` holds its data, for the interface).
        self.state: GameView | None = None
        self.seats: list[SeatView] = []
        self.connected = False
        self.connections = 0
        self.missed: list[EventEntry] = []
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._refs = 0
        self._closed = False
        self._checking: asyncio.Task[None] | None = None
        # The seq this terminal was at when it asked for a sync after a missed event.
        self._sync_asked: int | None = None

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
        return _proxy_for(self.address)

    def controls(self, seat: int) -> bool:
        return self.seat is not None and seat == self.seat

    def is_bot(self, seat: int) -> bool:
        return 0 <= seat < len(self.seats) and self.seats[seat].kind == "bot"

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
            raise ActionRefused(refusal_words("spectator", "spectators cannot play"), "spectator")
        ws = self._ws
        if ws is None or not self.connected:
            raise ActionRefused(OFFLINE, "offline")
        self._refs += 1
        intent = Act(type="act", action=action, seq=self.seq, ref=str(self._refs))
        try:
            await ws.send(intent.model_dump_json())
        except ConnectionClosed:
            raise ActionRefused(OFFLINE, "offline") from None

    async def record(self) -> dict[str, Any]:
        try:
            return await fetch_record(self.address, token=self.token)
        except RemoteError as exc:
            raise ActionRefused(str(exc), "offline") from None

    async def advice(self) -> dict[str, Any]:
        """The server's advice for the position now (what the web table's hint shows)."""
        return await fetch_advice(self.address, token=self.token)

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
                    # The server refuses an unknown game and a wrong token alike (a socket
                    # closed before it is accepted answers 403): ask which it was.
                    self._stop(await self._refusal(code))
                    return
            except ConnectionClosed as exc:
                received = exc.rcvd.code if exc.rcvd is not None else None
                why = exc.rcvd.reason if exc.rcvd is not None else ""
                if received == CLOSE_FORBIDDEN and why == PRIVATE:
                    # Another player's daily challenge game: nothing of it before its day is over.
                    self._stop(refusal_words(PRIVATE, why))
                    return
                if received in (CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, CLOSE_ABANDONED):
                    self._stop(self._closing_words(received))
                    return
            except InvalidURI as exc:
                self._stop(f"not a WebSocket address: {exc}")
                return
            except (TimeoutError, OSError, InvalidHandshake, ValueError) as exc:
                if self.connections == 0 and not self._closed:
                    # Never connected: no "Reconnecting…" to a server that was never there.
                    self._stop(unreachable(self.address, exc))
                    return
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

    async def _refusal(self, status: int) -> str:
        """Why the handshake was refused (HTTP `status`): an unknown game, else the token."""
        if status == 404 or await self._missing():
            return "This game does not exist."
        return self._closing_words(CLOSE_FORBIDDEN)

    async def _missing(self) -> bool:
        try:
            return not await _game_exists(self.address, "", 10.0, self.token)
        except RemoteError:
            return False

    def _closing_words(self, code: int) -> str:
        if code == CLOSE_NOT_FOUND:
            return "This game does not exist."
        if code == CLOSE_ABANDONED:
            return "Nobody played this game for too long: it was closed."
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
                message = server_message.validate_json(raw)
            except ValidationError as exc:
                # Not a message of this protocol (a server of another version?): skip it.
                log.warning("unreadable message from the server: %s", exc.errors()[:1])
                continue
            if isinstance(message, ChancesMessage):
                continue  # the terminal shows no chances of winning
            if isinstance(message, HeldMessage | RematchMessage | ReactionMessage):
                self._table_talk(message)
                continue
            await self._handle(ws, message)

    def _table_talk(self, message: HeldMessage | RematchMessage | ReactionMessage) -> None:
        """What the table hears besides the game's moves: the dice the roller holds now, the
        rematch on offer, a player's quick reaction."""
        if isinstance(message, HeldMessage):
            if message.seq != self.seq:
                return  # about a position this terminal is not at
            self.live_held = (message.seq, message.seat, frozenset(message.held))
            self.emit(Update("view"))
        elif isinstance(message, RematchMessage):
            token = message.token if isinstance(message.token, str) else None
            self.rematch = RematchOffer(message.game, message.seat, token)
            self.emit(Update("rematch"))
        else:
            self.emit(Update("reaction", message.reaction, seat=message.seat))

    async def ask_rematch(self, *, timeout: float = 10.0) -> RematchOffer:
        """Ask the server for the rematch of this finished game (`POST .../rematch`, as this
        seat): the rematch and this seat's place there; `RemoteError` when refused."""
        if self.token is None:
            raise RemoteError(refusal_words("spectator", "spectators cannot ask for a rematch"))
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                response = await client.post(self.address.api("/rematch"), headers=headers)
        except httpx.HTTPError as exc:
            raise RemoteError(unreachable(self.address, exc)) from None
        if response.status_code not in (200, 201):
            raise RemoteError(_error_text(response))
        try:
            made = RematchCreated.model_validate_json(response.content)
        except ValidationError:
            raise RemoteError("the server's answer cannot be read") from None
        self.rematch = RematchOffer(made.id, made.seat, made.token)
        return self.rematch

    async def react(self, reaction: ReactionId) -> None:
        """Send a quick reaction to the table (a seat's only)."""
        ws = self._ws
        if self.spectator:
            raise ActionRefused(refusal_words("spectator", "spectators cannot play"), "spectator")
        if ws is None or not self.connected:
            raise ActionRefused(OFFLINE, "offline")
        try:
            await ws.send(React(type="react", reaction=reaction).model_dump_json())
        except ConnectionClosed:
            raise ActionRefused(OFFLINE, "offline") from None

    def _take(self, message: StateMessage, state: GameView) -> None:
        """Keep what a message says about the game: `state` (its view, or the view its changes
        made), status, seats, clock, seq."""
        self.state = state
        self.view = state.to_data()
        self.seats = list(message.seats)
        self.clock = message.clock.to_data() if message.clock is not None else None
        if message.fair_dice is not None:
            self.fair_dice = message.fair_dice.to_data()
        self.status = message.status
        if not isinstance(message, SeatsMessage) and message.seq >= self.seq:
            self.seq = message.seq
        if self.live_held is not None and self.live_held[0] != self.seq:
            self.live_held = None  # held before a move: the view says what is held since

    async def _event_view(self, ws: ClientConnection, event: EventMessage) -> GameView | None:
        """The view after `event`: its whole view, or (`dicepoker.v2`) the view its changes make
        of ours, which must be the view of the event before; None for an event already taken,
        or one after a missed event (a sync is asked for, once: its answer brings the view)."""
        if event.seq <= self.seq and self.state is not None:
            return None
        if event.changes is None:
            return event.state
        if self.view is None or event.seq != self.seq + 1:
            if self._sync_asked != self.seq:
                self._sync_asked = self.seq
                await self._sync(ws, self.seq)
            return None
        return GameView.model_validate(apply_changes(self.view, event.changes.to_data()))

    async def _sync(self, ws: ClientConnection, last_seq: int) -> None:
        await ws.send(Sync(type="sync", last_seq=last_seq).model_dump_json())

    def _check_dice(self) -> None:
        """Once the game is over (its seed revealed), check its dice here, not trusting the
        server's word: every roll of the record against the commitment shown during play."""
        if self.status != "finished" or self.fair_dice is None or self._checking is not None:
            return
        self._checking = asyncio.create_task(self._verify())

    async def _verify(self) -> None:
        try:
            record = await fetch_record(self.address, token=self.token)
        except RemoteError:
            self._checking = None  # try again with the next message
            return
        self.dice_check = await asyncio.to_thread(verify_record, record)
        self.emit(Update("view"))

    async def _handle(self, ws: ClientConnection, message: Incoming) -> None:
        await self._dispatch(ws, message)
        self._check_dice()

    async def _dispatch(self, ws: ClientConnection, message: Incoming) -> None:
        if isinstance(message, WelcomeMessage):
            again = self.connections > 0
            last_seq = self.seq
            self.connections += 1
            self.connected = True
            self.seat = message.seat
            self.competition = None if message.assisted else (message.competition or "casual")
            if again:
                # Ask for what happened while we were away; the welcome's state is already new.
                await self._sync(ws, last_seq)
            self._take(message, message.state)
            self.emit(Update("view"))
            if again:
                self.emit(Update("notice", "Connected again."))
        elif isinstance(message, EventMessage):
            state = await self._event_view(ws, message)
            if state is None:
                return
            self._take(message, state)
            self.last_action = (message.seat, message.action)
            self.emit(Update("view", seat=message.seat, action=message.action))
        elif isinstance(message, SyncMessage):
            self.missed = list(message.events)
            if self.missed:
                self.last_action = (self.missed[-1].seat, self.missed[-1].action)
            self._take(message, message.state)
            self.emit(Update("view"))
        elif isinstance(message, SeatsMessage):
            self._take(message, message.state)
            self.emit(Update("view"))
        elif isinstance(message, ResyncMessage):
            await self._sync(ws, self.seq)
        elif isinstance(message, ErrorMessage):
            self.emit(Update("error", refusal_words(message.code, message.message)))
