"""A game WebSocket's outbox (dicepoker.server.http.outbox): a message goes out at once when nothing
waits before it; one that must wait for the socket holds back everything after it, which the
writer then sends in order; a closed connection drops what comes; a real server's socket whose
reader stops reading gets its messages in order (or is told to resync), never out of order."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from starlette.websockets import WebSocketDisconnect, WebSocketState
from websockets.sync.client import connect
from websockets.typing import Subprotocol

from dicepoker.server.http.outbox import Outbox
from live_server import LiveServer
from security_support import catch_up, humans
from ws_client import Player

T = TypeVar("T")


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


class Socket:
    """Stands in for Starlette's WebSocket: a send ends at once unless the test holds the
    socket (`full`: its buffer is full until the event is set), and fails once closed."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.sent: list[str] = []
        self.full: asyncio.Event | None = None
        self.closed = False

    async def send_text(self, text: str) -> None:
        if self.full is not None:
            await self.full.wait()
        if self.closed:
            raise WebSocketDisconnect(1006)
        self.sent.append(text)


def outbox_of(sock: Socket, maxsize: int = 8) -> Outbox:
    return Outbox(sock, maxsize)  # type: ignore[arg-type]  # (the stand-in's sends are enough)


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def test_a_message_goes_out_at_once_when_nothing_waits_before_it() -> None:
    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        outbox.put_nowait("a")
        outbox.put_nowait("b")
        # Sent in the caller's own step: no writer ran, nothing was queued.
        assert sock.sent == ["a", "b"] and outbox.empty() and outbox.sent_at_once == 2

    run(scenario)


def test_a_send_that_waits_for_the_socket_holds_back_what_comes_after_it() -> None:
    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        writer = asyncio.ensure_future(outbox.pump())
        await settle()
        sock.full = asyncio.Event()
        outbox.put_nowait("1")  # starts, then waits for the socket
        outbox.put_nowait("2")
        outbox.put_nowait("3")
        await settle()
        assert sock.sent == [] and outbox.sent_at_once == 0
        sock.full.set()  # the socket drains
        sock.full = None
        outbox.put_nowait("4")  # "1" is not out yet: behind "2" and "3"
        await settle()
        assert sock.sent == ["1", "2", "3", "4"] and outbox.sent_at_once == 0
        outbox.put_nowait("5")  # nothing waits any more: at once again
        assert sock.sent[-1] == "5" and outbox.sent_at_once == 1
        writer.cancel()
        outbox.stop()

    run(scenario)


def test_a_message_taken_by_the_writer_is_not_overtaken() -> None:
    """While the writer has taken a message and waits to send it, a new one queues behind it
    even though the queue itself is empty."""

    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        sock.full = asyncio.Event()
        outbox.put_nowait("1")  # waits for the socket
        outbox.put_nowait("2")
        writer = asyncio.ensure_future(outbox.pump())
        await settle()  # the writer took "2" and waits for "1" to be out
        assert outbox.empty()
        outbox.put_nowait("3")
        sock.full.set()
        sock.full = None
        await settle()
        assert sock.sent == ["1", "2", "3"]
        writer.cancel()

    run(scenario)


def test_a_closed_connection_drops_what_comes_and_its_writer_ends() -> None:
    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        writer = asyncio.ensure_future(outbox.pump())
        sock.closed = True
        outbox.put_nowait("lost")
        outbox.put_nowait("also lost")
        await settle()
        assert sock.sent == [] and outbox.empty()
        await asyncio.wait_for(writer, timeout=5)  # ends by itself (its next get wakes it)

    async def ended_writer() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        sock.full = asyncio.Event()
        outbox.put_nowait("1")
        outbox.put_nowait("2")
        writer = asyncio.ensure_future(outbox.pump())
        await settle()
        sock.closed = True
        sock.full.set()
        await asyncio.wait_for(writer, timeout=5)
        assert sock.sent == []

    run(scenario)
    run(ended_writer)


def test_stopping_cancels_a_send_that_waits_for_the_socket() -> None:
    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock)
        sock.full = asyncio.Event()
        outbox.put_nowait("1")
        await settle()
        outbox.stop()
        await settle()
        sock.full.set()
        outbox.put_nowait("2")
        await settle()
        assert sock.sent == [] and outbox.empty()

    run(scenario)


def test_a_full_outbox_refuses_like_a_queue() -> None:
    """What the broadcaster reads as a client that fell behind (it then sends `resync`)."""

    async def scenario() -> None:
        sock = Socket()
        outbox = outbox_of(sock, maxsize=2)
        sock.full = asyncio.Event()
        outbox.put_nowait("1")
        outbox.put_nowait("2")
        outbox.put_nowait("3")
        with pytest.raises(asyncio.QueueFull):
            outbox.put_nowait("4")
        outbox.stop()

    run(scenario)


# --- a real server's socket whose reader stops reading ----------------------------------------


def test_a_socket_that_stops_reading_gets_its_messages_in_order(server: LiveServer) -> None:
    """A spectator that reads nothing while two people play a whole game (its receive buffer
    small, its client's queue one message): the server's sends come to wait for the socket and
    the rest queue behind them; what the spectator reads at the end is every event in order
    (or, where it fell too far behind, a `resync` and then the events after it), the game's end
    last."""
    made = server.post(
        "/api/games",
        {"variant": "school", "options": {"columns": 3}, "seats": humans("Ana", "Bea")},
    ).json()
    game_id = made["id"]
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    with connect(
        f"{server.ws_url}/ws/games/{game_id}",
        sock=sock,
        max_queue=1,
        subprotocols=[Subprotocol("dicepoker.v1")],
        open_timeout=30,
        ping_interval=None,
    ) as slow:
        players = [Player(server.ws_url, game_id, seat["token"]) for seat in made["seats"]]
        try:
            while True:
                mover = next((p for p in players if p.my_turn()), None)
                if mover is None:
                    break
                mover.play_turn()
                for other in players:
                    catch_up(other, mover.seq)
        finally:
            for player in players:
                player.close()
        last = players[0].seq
        kinds: list[str] = []
        seqs: list[int] = []
        received = 0
        while not seqs or seqs[-1] < last:
            text = slow.recv(timeout=30)
            received += len(text)
            message = json.loads(text)
            kinds.append(message["type"])
            if message["type"] == "event":
                assert not seqs or message["seq"] == seqs[-1] + 1 or kinds[-2] == "resync"
                seqs.append(message["seq"])
            elif message["type"] == "resync":
                slow.send(json.dumps({"type": "sync", "last_seq": seqs[-1] if seqs else 0}))
            elif message["type"] == "sync":
                seqs.append(message["seq"])
    assert kinds[0] == "welcome" and seqs[-1] == last
    assert received > 1_000_000, received  # more than the socket's buffers hold
