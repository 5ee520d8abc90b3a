"""The WebSocket of a game (docs/api.md): who connects, what they send, what they are told.

One connection has one reader (this route's loop) and one outbox (server/http/outbox.py), which
sends what the broadcaster and the reader give it, in order: at once when nothing waits before it,
else by its writer task. Replies go to this connection only. The route feeds the metrics of what it
sees (dicepoker.server.runtime.metrics): open connections, refusals by code, and each accepted
intent's time from arrival to its event handed to the broadcaster.
A client address has at most `--ws-connections` connections open (server/runtime/limits.py,
`SocketCap`): the one over the cap is accepted only to be closed with 1013 ("try again later") and a
reason.
"""

from __future__ import annotations

import asyncio
import logging
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from dicepoker import protocol
from dicepoker.master import LiveGame, Refusal, messages
from dicepoker.master.broadcast import reply
from dicepoker.master.seats import ABANDONED
from dicepoker.server.http.origin import origin_matches
from dicepoker.server.http.outbox import Outbox
from dicepoker.server.http.security import (
    CLOSE_RATE_LIMITED,
    CLOSE_TRY_AGAIN_LATER,
    SocketLimiter,
    Verdict,
)
from dicepoker.server.services import Services, socket_services

log = logging.getLogger("dicepoker.server")

router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
    app = socket_services(websocket)
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host", "")
    if origin and not origin_matches(origin, host, str(websocket.scope.get("scheme", "ws"))):
        await websocket.close(code=protocol.CLOSE_FORBIDDEN, reason="origin not allowed")
        return
    address = websocket.client.host if websocket.client else "unknown"
    slot = await app.sockets.open(address)
    if slot is None:  # accepted to be closed with a code and reason the client can read
        await websocket.accept(subprotocol=_subprotocol(websocket))
        await websocket.close(CLOSE_TRY_AGAIN_LATER, "too many connections from this address")
        return
    try:
        await _serve(websocket, app, game_id, token)
    finally:
        await app.sockets.close(slot)


def _subprotocol(websocket: WebSocket) -> str | None:
    """The newest of our subprotocols the client offered (a browser drops a socket whose offer
    goes unanswered), never the token; None when it offered none of them (a simple client: it
    is spoken `dicepoker.v1`, whose events carry the whole view)."""
    offered = [str(p) for p in websocket.scope.get("subprotocols") or []]
    return next((known for known in protocol.SUBPROTOCOLS if known in offered), None)


async def _serve(websocket: WebSocket, app: Services, game_id: str, token: str | None) -> None:
    """The connection, from finding its game and seat until it closes."""
    live = await app.master.load(game_id)
    if live is None:
        await websocket.close(code=protocol.CLOSE_NOT_FOUND, reason="no such game")
        return
    if live.status == ABANDONED:
        # Closed for good: no seat plays it and nothing happens to watch (its replay stays).
        # Accepted first, so that the client reads the close code (a socket closed before it
        # is accepted is answered an HTTP 403, with no code).
        app.master.release(live)
        await websocket.accept(subprotocol=_subprotocol(websocket))
        await websocket.close(code=protocol.CLOSE_ABANDONED, reason="the game was abandoned")
        return
    # The token travels in the Sec-WebSocket-Protocol header (the web and terminal clients),
    # or in the query (`?token=`, kept for simple clients).
    offered = [str(p) for p in websocket.scope.get("subprotocols") or []]
    token = protocol.token_of(offered) or token
    seat = None
    if token:
        seat = app.master.seat_of(live, token)
        if seat is None:
            await websocket.close(code=protocol.CLOSE_FORBIDDEN, reason="wrong token")
            return
    if seat is None and live.private_now():
        # Another player's daily challenge game: nothing of it is shown before its day is over
        # (docs/fair-play.md). Accepted first, so that the client reads why.
        app.master.release(live)
        await websocket.accept(subprotocol=_subprotocol(websocket))
        await websocket.close(code=protocol.CLOSE_FORBIDDEN, reason="daily_private")
        return
    spoken = _subprotocol(websocket)
    await websocket.accept(subprotocol=spoken)
    # The game in memory now: one nobody watched here may have been forgotten meanwhile
    # (`Upkeep.forget_idle`), and a forgotten copy hears of no move.
    live = await app.master.load(game_id) or live
    broadcaster = app.master.broadcaster
    outbox = Outbox(websocket)
    broadcaster.subscribe(
        live,
        (seat, token) if seat is not None and token else None,
        whole=spoken != protocol.SUBPROTOCOL,
        queue=outbox,
    )
    outbox.put_nowait(messages.welcome(live, seat).to_json())
    rematch = await app.master.known_rematch(live)
    if rematch is not None:  # arrived after the rematch was made: offered it too
        outbox.put_nowait(messages.rematch(rematch, seat, token).to_json())
    writer = asyncio.create_task(outbox.pump())
    app.metrics.sockets.inc()
    try:
        await _read(websocket, app, live, seat, outbox, writer)
    except WebSocketDisconnect:
        pass
    finally:
        app.metrics.sockets.dec()
        writer.cancel()
        outbox.stop()
        broadcaster.unsubscribe(live, outbox)
        app.master.release(live)


async def _read(
    websocket: WebSocket,
    app: Services,
    live: LiveGame,
    seat: int | None,
    outbox: Outbox,
    writer: asyncio.Task[None],
) -> None:
    """Answer the connection's messages until it closes (or floods and is closed)."""
    limiter = SocketLimiter(app.settings.ws_rate, app.settings.ws_burst)
    while True:
        message = await websocket.receive()
        received = time.perf_counter()
        if message["type"] == "websocket.disconnect":
            return
        verdict = limiter.check()
        if verdict is Verdict.CLOSE:
            writer.cancel()
            outbox.stop()
            await websocket.close(CLOSE_RATE_LIMITED, "too many messages")
            return
        text = message.get("text")
        answer: protocol.Wire | None
        if verdict is Verdict.REFUSE:
            answer = messages.refused("rate_limited", "too many messages: slow down")
        elif text is None:
            answer = messages.refused("bad_message", "messages are JSON text")
        else:
            try:
                answer = await _handle(app, live, seat, text, received)
            except Exception:
                log.exception("internal error in game %s", live.id)
                answer = messages.refused("internal", "something went wrong on the server")
        if isinstance(answer, protocol.ErrorMessage):
            app.metrics.refusals.labels(code=answer.code).inc()
        if answer is not None:
            reply(outbox, answer.to_json())


async def _handle(
    app: Services, live: LiveGame, seat: int | None, text: str, received: float
) -> protocol.Wire | None:
    """Answer one client message (arrived at `received`, `time.perf_counter`); returns the
    reply for this client only (None if none). The message is read strictly
    (`protocol.parse_client_message`: size, duplicate keys, types)."""
    message = protocol.parse_client_message(text)
    if isinstance(message, protocol.ErrorMessage):
        return message
    if isinstance(message, protocol.Ping):
        return messages.PONG
    if isinstance(message, protocol.Sync):
        events = await app.master.events_after(live, message.last_seq)
        return messages.sync(live, events)
    if isinstance(message, protocol.React):
        return await _react(app, live, seat, message.reaction)
    ref = message.ref
    if seat is None:
        return messages.refused("spectator", "spectators cannot play", ref)
    try:
        if isinstance(message, protocol.Keep):
            await app.master.hold(live, seat, message.seq, message.keep)
        elif isinstance(message, protocol.Auto):
            await app.master.auto(live, seat, person=True)
        else:
            await app.master.act(live, seat, message.action, message.seq, person=True)
    except Refusal as exc:
        return messages.refused(exc.code, exc.message, ref, exc.extra)
    if not isinstance(message, protocol.Keep):  # an event (a kept selection is no event)
        app.metrics.intent_seconds.observe(time.perf_counter() - received)
    return None


async def _react(
    app: Services, live: LiveGame, seat: int | None, reaction: protocol.ReactionId
) -> protocol.Wire | None:
    """A quick reaction: seated players only, a few at a time per seat (one bucket per game
    seat, however many connections it has)."""
    if seat is None:
        return messages.refused("spectator", "spectators cannot send reactions")
    if await app.reacting.check(f"{live.id}:{seat}") is not None:
        return messages.refused("rate_limited", "too many reactions: wait a moment")
    try:
        await app.master.react(live, seat, reaction)
    except Refusal as exc:
        return messages.refused(exc.code, exc.message)
    return None
