"""The web application: REST API, WebSocket protocol and pages (see docs/api.md)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from platformdirs import user_data_path
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from dicepoker.bots import LEVELS
from dicepoker.engine import GameState
from dicepoker.fair import verify_record
from dicepoker.record import (
    RecordError,
    RecordTurnError,
    load_record,
    replay,
)
from dicepoker.rules import PRESETS, get_rules
from dicepoker.server import protocol
from dicepoker.server.botpool import BotPool
from dicepoker.server.bus import make_bus
from dicepoker.server.hub import RESYNC, Hub, LiveGame, Refusal
from dicepoker.server.models import iso_utc
from dicepoker.server.protocol import CreateGame, JoinGame
from dicepoker.server.security import (
    CLOSE_RATE_LIMITED,
    SECURITY_HEADERS,
    ClientLimiter,
    RateLimited,
    SecurityHeaders,
    SocketLimiter,
    Verdict,
)
from dicepoker.server.store import Store
from dicepoker.view import game_view, rules_view

log = logging.getLogger("dicepoker.server")

MAX_BODY_BYTES = 1024 * 1024
ANALYSES_KEPT = 256  # finished games' and records' analyses kept in memory

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def default_database() -> str:
    """`DATABASE_URL` when set, else a SQLite file in the user's data folder."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    folder = user_data_path("dicepoker")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "dicepoker.db")


SETTINGS_ENV = "DICEPOKER_SERVER_SETTINGS"
GC_YOUNG = 20_000  # allocations between collections of the youngest generation (default 700)


@dataclass
class Settings:
    database: str
    bot_delay: float = 0.6
    # Redis for several processes on one PostgreSQL database (docs/deploy.md); None: one process.
    redis_url: str | None = None
    # Processes in which bots think (0: a thread of the server process itself).
    bot_workers: int = 1
    # Rate limits (security.py; 0 switches one off): messages per WebSocket connection, and
    # requests that create something (games, joins, record imports) per client address.
    ws_rate: float = 10.0
    ws_burst: int = 20
    http_rate: float = 0.5
    http_burst: int = 20
    # The advisor and the analyses (CPU-heavy) a second per client address, and at once.
    analysis_rate: float = 2.0
    analysis_burst: int = 30
    # Imported records: at most this many bytes and turns.
    max_record_bytes: int = 1024 * 1024
    max_record_turns: int = 2000

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settings:
        return cls(**json.loads(text))


def app_from_environment() -> FastAPI:
    """The app of one worker process of `dicepoker serve --workers N` (settings in the env)."""
    return create_app(Settings.from_json(os.environ[SETTINGS_ENV]))


class BodyLimit:
    """Refuses request bodies over `limit` bytes with 413 before the app reads them."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(send)


class _TooLarge(Exception):
    pass


async def _too_large(send: Send) -> None:
    body = json.dumps({"error": {"code": "too_large", "message": "request body too large"}})
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)


def tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses short for a server holding many live games.

    A full collection walks every tracked object, and with a thousand games and their sockets
    that is a pause of most of a second for everyone. What exists at start-up (modules, tables,
    loaded games) is moved out of its reach (`gc.freeze`), and young objects are collected less
    often, so that the many short-lived objects of a move die by reference counting before they
    are promoted to the old generation that full collections walk (benchmarks/load.py).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 20)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings(database=default_database())
    store = Store(settings.database)
    hub = Hub(
        store,
        bot_delay=settings.bot_delay,
        bus=make_bus(settings.redis_url),
        bot_pool=BotPool(settings.bot_workers) if settings.bot_workers > 0 else None,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.migrate()
        await hub.start()
        tune_garbage_collector()
        yield
        await hub.close()
        await store.close()

    app = FastAPI(title="dicepoker", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.hub = hub
    app.state.store = store
    app.add_middleware(BodyLimit, limit=max(MAX_BODY_BYTES, settings.max_record_bytes))
    app.add_middleware(SecurityHeaders)  # outermost: on every response, 413s included
    # Per-address limits: what creates games, seats and records; what costs the server CPU (the
    # advisor and the analyses).
    creating = [Depends(_per_address(ClientLimiter(settings.http_rate, settings.http_burst)))]
    analysing = [
        Depends(_per_address(ClientLimiter(settings.analysis_rate, settings.analysis_burst)))
    ]
    # A finished game's or a stored record's analysis never changes: computed once, kept a while.
    analyses: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def cached_analysis(key: str | None, record: dict[str, Any]) -> dict[str, Any]:
        if key is not None and key in analyses:
            analyses.move_to_end(key)
            return analyses[key]
        result = await asyncio.to_thread(_analyse, record)
        if key is not None:
            analyses[key] = result
            while len(analyses) > ANALYSES_KEPT:
                analyses.popitem(last=False)
        return result

    @app.exception_handler(Refusal)
    async def on_refusal(_request: Request, exc: Refusal) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Unknown routes and methods answer in the API's error shape too."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        message = {404: "no such page", 405: "method not allowed here"}.get(
            exc.status_code, str(exc.detail)
        )
        response = _error(exc.status_code, code, message)
        response.headers.update(exc.headers or {})
        return response

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        message = f"{where}: {first.get('msg', 'invalid')}" if where else "invalid request"
        return _error(400, "bad_request", message)

    @app.exception_handler(RateLimited)
    async def on_rate_limited(_request: Request, exc: RateLimited) -> JSONResponse:
        response = _error(
            429, "rate_limited", f"too many requests: try again in {exc.retry_after} s"
        )
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(Exception)
    async def on_crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error", exc_info=exc)
        response = _error(500, "internal", "something went wrong on the server")
        # This handler answers outside the middleware stack: add the headers here.
        response.headers.update(SECURITY_HEADERS)
        return response

    async def live_or_404(game_id: str) -> LiveGame:
        live = await hub.load(game_id)
        if live is None:
            raise Refusal("not_found", "no such game", 404)
        return live

    # --- games ---------------------------------------------------------------------------

    @app.post("/api/games", status_code=201, dependencies=creating)
    async def create_game(body: CreateGame) -> dict[str, Any]:
        seats = [seat.model_dump() for seat in body.seats]
        live, tokens = await hub.create(body.variant, body.options, seats, body.turn_seconds)
        return {
            "id": live.id,
            "url": f"/g/{live.id}",
            "seats": [
                {**seat, "token": token}
                for seat, token in zip(live.public_seats(), tokens, strict=True)
            ],
        }

    @app.post("/api/games/{game_id}/join", dependencies=creating)
    async def join_game(game_id: str, body: JoinGame) -> dict[str, Any]:
        live = await live_or_404(game_id)
        seat, token = await hub.join(live, body.seat, body.name)
        return {"seat": seat, "token": token}

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> dict[str, Any]:
        live = await live_or_404(game_id)
        return {
            "id": live.id,
            "seq": live.seq,
            "created_at": live.created_at,
            "turn_seconds": live.turn_seconds,
            **live.meta(),
            "state": live.state_view,
        }

    @app.get("/api/games")
    async def list_games(status: str | None = None, limit: int = 50) -> dict[str, Any]:
        if status not in (None, "open", "running", "finished"):
            raise Refusal("bad_request", "status is open, running or finished")
        rows = await store.list_games(status, max(1, min(limit, 200)))
        return {
            "games": [
                {
                    "id": row.id,
                    "variant": row.variant,
                    "options": row.options,
                    "status": row.status,
                    "seq": row.seq,
                    "players": [seat.get("name") for seat in row.seats],
                    "created_at": iso_utc(row.created_at),
                    "updated_at": iso_utc(row.updated_at),
                }
                for row in rows
            ]
        }

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str) -> JSONResponse:
        live = await live_or_404(game_id)
        return JSONResponse(
            live.game.to_record(),
            headers={"content-disposition": f'attachment; filename="dicepoker-{live.id}.json"'},
        )

    @app.get("/api/games/{game_id}/position")
    async def game_position(game_id: str, turn: int = 0, roll: int = 0) -> dict[str, Any]:
        live = await live_or_404(game_id)
        return position(live.game.to_record(), turn, roll)

    @app.get("/api/games/{game_id}/advice", dependencies=analysing)
    async def game_advice(game_id: str) -> dict[str, Any]:
        """The advisor's values for the player to move now (the table's hint toggle)."""
        live = await live_or_404(game_id)
        state = live.game.state
        if state.finished:
            raise Refusal("game_over", "the game is over", 409)
        advice = await asyncio.to_thread(_advise, state)
        return {"seq": live.seq, **advice}

    @app.get("/api/games/{game_id}/analysis", dependencies=analysing)
    async def game_analysis(game_id: str) -> dict[str, Any]:
        """Every decision of the game so far against the best option (the finished-game page)."""
        live = await live_or_404(game_id)
        key = f"game:{live.id}" if live.game.state.finished else None
        return await cached_analysis(key, live.game.to_record())

    @app.get("/api/games/{game_id}/verify")
    async def game_verify(game_id: str) -> dict[str, Any]:
        """The fair-dice check of a finished game (its seed is revealed only at the end)."""
        live = await live_or_404(game_id)
        if not live.game.state.finished:
            raise Refusal("not_finished", "the dice seed is revealed when the game is over", 409)
        return (await asyncio.to_thread(verify_record, live.game.to_record())).as_json()

    # --- records ---------------------------------------------------------------------------

    @app.post("/api/records", status_code=201, response_model=None, dependencies=creating)
    async def import_record(request: Request) -> dict[str, Any] | JSONResponse:
        body = await request.body()
        if len(body) > settings.max_record_bytes:
            raise Refusal(
                "too_large", f"a record is at most {settings.max_record_bytes} bytes", 413
            )
        try:
            record = load_record(body)
            turns = record.get("turns")
            if isinstance(turns, list) and len(turns) > settings.max_record_turns:
                limit = settings.max_record_turns
                message = f"a record has at most {limit} turns, not {len(turns)}"
                raise Refusal("bad_record", message, 422)
            replay(record)
        except RecordTurnError as exc:
            return _error(422, "bad_record", str(exc), turn=exc.turn)
        except RecordError as exc:
            raise Refusal("bad_record", str(exc), 422) from None
        record_id = secrets.token_urlsafe(8)
        await store.save_record(record_id, json.dumps(record))
        return {"id": record_id, "url": f"/replay/r/{record_id}"}

    async def stored_record(record_id: str) -> dict[str, Any]:
        text = await store.record(record_id)
        if text is None:
            raise Refusal("not_found", "no such record", 404)
        data: dict[str, Any] = json.loads(text)
        return data

    @app.get("/api/records/{record_id}")
    async def get_record(record_id: str) -> dict[str, Any]:
        return await stored_record(record_id)

    @app.get("/api/records/{record_id}/analysis", dependencies=analysing)
    async def record_analysis(record_id: str) -> dict[str, Any]:
        return await cached_analysis(f"record:{record_id}", await stored_record(record_id))

    @app.get("/api/records/{record_id}/verify")
    async def record_verify(record_id: str) -> dict[str, Any]:
        record = await stored_record(record_id)
        return (await asyncio.to_thread(verify_record, record)).as_json()

    @app.get("/api/records/{record_id}/position")
    async def record_position(record_id: str, turn: int = 0, roll: int = 0) -> dict[str, Any]:
        return position(await stored_record(record_id), turn, roll)

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {
            "levels": list(LEVELS),
            "presets": [
                {
                    "name": preset.name,
                    "title": preset.title,
                    "min_players": get_rules(preset.name).min_players,
                    "max_players": get_rules(preset.name).max_players,
                    "options": [
                        {
                            "name": spec.name,
                            "type": spec.kind.__name__,
                            "default": spec.default,
                            "minimum": spec.minimum,
                            "maximum": spec.maximum,
                            "help": spec.help,
                        }
                        for spec in preset.options
                    ],
                    "rules": rules_view(get_rules(preset.name)),
                }
                for preset in PRESETS.values()
            ],
        }

    # --- the WebSocket ---------------------------------------------------------------------

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
        origin = websocket.headers.get("origin")
        if origin and urlsplit(origin).netloc != websocket.headers.get("host"):
            await websocket.close(code=4403, reason="origin not allowed")
            return
        live = await hub.load(game_id)
        if live is None:
            await websocket.close(code=4404, reason="no such game")
            return
        # The token travels in the Sec-WebSocket-Protocol header (the web and terminal clients),
        # or in the query (`?token=`, kept for simple clients).
        offered = [str(p) for p in websocket.scope.get("subprotocols") or []]
        token = protocol.token_of(offered) or token
        seat = None
        if token:
            seat = hub.seat_of(live, token)
            if seat is None:
                await websocket.close(code=4403, reason="wrong token")
                return
        # Echo our subprotocol when offered (a browser drops a socket whose offer goes
        # unanswered), never the token.
        chosen = protocol.SUBPROTOCOL if protocol.SUBPROTOCOL in offered else None
        await websocket.accept(subprotocol=chosen)
        queue = hub.subscribe(live)
        welcome = {
            "type": "welcome",
            "seat": seat,
            "seq": live.seq,
            **live.meta(),
            "state": live.state_view,
        }
        queue.put_nowait(protocol.dumps(welcome))
        writer = asyncio.create_task(_pump(queue, websocket))
        limiter = SocketLimiter(settings.ws_rate, settings.ws_burst)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                verdict = limiter.check()
                if verdict is Verdict.CLOSE:
                    writer.cancel()
                    await websocket.close(CLOSE_RATE_LIMITED, "too many messages")
                    break
                text = message.get("text")
                if verdict is Verdict.REFUSE:
                    reply: dict[str, Any] | None = protocol.error(
                        "rate_limited", "too many messages: slow down"
                    )
                elif text is None:
                    reply = protocol.error("bad_message", "messages are JSON text")
                elif len(text.encode()) > protocol.MAX_MESSAGE_BYTES:
                    reply = protocol.error("too_large", "message too large")
                else:
                    try:
                        reply = await _handle(hub, store, live, seat, text)
                    except Exception:
                        log.exception("internal error in game %s", live.id)
                        reply = protocol.error("internal", "something went wrong on the server")
                if reply is not None:
                    _reply(queue, protocol.dumps(reply))
        except WebSocketDisconnect:
            pass
        finally:
            writer.cancel()
            hub.unsubscribe(live, queue)

    static = _web_static()
    if static is not None:
        from dicepoker.web.pages import router as pages

        app.include_router(pages)
        app.mount("/static", StaticFiles(directory=static), name="static")
    return app


def _per_address(limiter: ClientLimiter) -> Callable[[Request], Awaitable[None]]:
    """A route dependency that takes a token of `limiter`'s bucket for the client's address."""

    async def limit(request: Request) -> None:
        wait = limiter.check(request.client.host if request.client else "unknown")
        if wait is not None:
            raise RateLimited(wait)

    return limit


def _web_static() -> Path | None:
    try:
        from dicepoker.web.pages import STATIC_DIR
    except ImportError:
        return None
    return Path(STATIC_DIR)


def _reply(queue: asyncio.Queue[str], text: str) -> None:
    """Queue an answer for this connection only. A client that reads nothing while it sends
    is treated like one that fell behind the broadcasts: what it has not read is replaced by
    `resync`, so the server's memory does not grow."""
    try:
        queue.put_nowait(text)
    except asyncio.QueueFull:
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(RESYNC)
        queue.put_nowait(text)


async def _pump(queue: asyncio.Queue[str], websocket: WebSocket) -> None:
    """The connection's only writer: sends what the hub and the reader queue, in order."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while websocket.application_state == WebSocketState.CONNECTED:
            await websocket.send_text(await queue.get())


def _problem(exc: ValidationError) -> str:
    """The first problem of a message, short: where and what, never the whole value."""
    problems = exc.errors()
    if not problems:
        return "invalid"
    first = problems[0]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return "'type' is act, auto, sync or ping"
    where = ".".join(str(part) for part in first["loc"][1:])[:40]
    return f"{where}: {first['msg']}"[:160] if where else first["msg"][:160]


async def _handle(
    hub: Hub, store: Store, live: LiveGame, seat: int | None, text: str
) -> dict[str, Any] | None:
    """Answer one client message; returns the reply for this client only (None if none)."""
    try:
        message = protocol.client_message.validate_json(text)
    except ValidationError as exc:
        return protocol.error("bad_message", f"not a valid message: {_problem(exc)}")
    if isinstance(message, protocol.Ping):
        return {"type": "pong"}
    if isinstance(message, protocol.Sync):
        events = await store.events(live.id, after=message.last_seq)
        return {
            "type": "sync",
            "seq": live.seq,
            "events": [{"seq": e.seq, "seat": e.seat, "action": e.action} for e in events],
            **live.meta(),
            "state": live.state_view,
        }
    ref = message.ref
    if seat is None:
        return protocol.error("spectator", "spectators cannot play", ref)
    try:
        if isinstance(message, protocol.Auto):
            await hub.autoplay(live, seat)
        else:
            await hub.act(live, seat, message.action, message.seq)
    except Refusal as exc:
        return protocol.error(exc.code, exc.message, ref)
    return None


def _advise(state: GameState) -> dict[str, Any]:
    from dicepoker.advisor import advise

    return advise(state).as_json()


def _analyse(record: dict[str, Any]) -> dict[str, Any]:
    from dicepoker.advisor import analyse

    try:
        return analyse(record).as_json()
    except RecordError as exc:
        raise Refusal("bad_record", str(exc), 422) from None


def position(record: dict[str, Any], turn: int, roll: int) -> dict[str, Any]:
    """The view after `turn` complete turns of a record and `roll` rolls of the next one."""
    turns = record.get("turns") or []
    turn = max(0, min(turn, len(turns)))
    rolls_next = len(turns[turn].get("rolls") or []) if turn < len(turns) else 0
    roll = max(0, min(roll, rolls_next))
    partial = {**record, "turns": turns[:turn]}
    if roll:
        partial["turns"] = [*turns[:turn], {"rolls": turns[turn]["rolls"][:roll]}]
    try:
        game = replay(partial)
    except RecordError as exc:
        raise Refusal("bad_record", str(exc), 422) from None
    return {
        "turn": turn,
        "roll": roll,
        "turns": len(turns),
        "rolls": rolls_next,
        "move": turns[turn].get("move") if turn < len(turns) else None,
        "players": list(game.state.players),
        "state": game_view(game.state),
    }
