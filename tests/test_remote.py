"""The terminal client's remote session reads the server with the protocol's models: every message
typed, intents written as the server reads them, refusals in the protocol's words, and what is
not a message of the protocol skipped (a whole game against a real server: tests/test_tui.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.protocol import (
    CODES,
    Act,
    ClockView,
    EventEntry,
    EventMessage,
    FairDiceView,
    SeatsMessage,
    SeatView,
    Sync,
    SyncMessage,
    WelcomeMessage,
    error,
    parse_client_message,
)
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui.remote import RemoteSession, game_address
from dicepoker.tui.session import ActionRefused, Update
from dicepoker.view import game_view, view_base, view_changes


class FakeSocket:
    """The client's side of a connection: what it sent, and the server's texts to read."""

    def __init__(self, incoming: list[str] | None = None) -> None:
        self.sent: list[str] = []
        self.incoming = list(incoming or [])

    async def send(self, text: str) -> None:
        self.sent.append(text)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[str]:
        for text in self.incoming:
            yield text


SEATS = [
    SeatView(seat=0, kind="human", name="Ana", level=None, taken=True),
    SeatView(seat=1, kind="bot", name="Greedy 2", level="greedy", taken=True),
]


def positions() -> list[Any]:
    game = Game(get_rules("yahtzee"), ["Ana", "Greedy 2"], SeededDice(3))
    views = [game_view(game.state)]
    for action in ["roll", "keep 0 1", "score chance"]:
        game.play(action)
        views.append(game_view(game.state))
    return views


def meta(**change: Any) -> dict[str, Any]:
    return {"status": "running", "seats": SEATS, "clock": None, "fair_dice": None, **change}


def session_with(texts: list[str], token: str | None = "secret") -> tuple[RemoteSession, Any]:
    session = RemoteSession(game_address("http://127.0.0.1:9", "g1"), token)
    updates: list[Update] = []
    session.subscribe(updates.append)
    socket = FakeSocket(texts)
    asyncio.run(session._listen(socket))  # type: ignore[arg-type]
    return session, (socket, updates)


def test_every_message_is_read_typed() -> None:
    views = positions()
    clock = ClockView(seat=0, deadline=1764444000123, seconds=60)
    fair = FairDiceView(scheme="hmac-sha256-v1", commitment="cd" * 32)
    texts = [
        WelcomeMessage(seat=0, seq=0, **meta(status="open"), state=views[0]).to_json(),
        SeatsMessage(**meta(clock=clock, fair_dice=fair), state=views[0]).to_json(),
        EventMessage(seq=1, seat=0, action="roll", auto=False, **meta(), state=views[1]).to_json(),
    ]
    session, (socket, updates) = session_with(texts)
    assert session.seat == 0 and session.connected and session.connections == 1
    assert session.state == views[1]
    assert session.view == views[1].to_data()
    assert session.seq == 1
    assert session.status == "running"
    assert session.seats == SEATS and session.is_bot(1) and not session.is_bot(0)
    assert session.clock is None  # the event said so, after the seats message's clock
    assert session.fair_dice == fair.to_data()  # kept: the event had none to say
    assert session.last_action == (0, "roll")
    assert [u.kind for u in updates] == ["view", "view", "view"]
    assert updates[-1].seat == 0 and updates[-1].action == "roll"
    assert socket.sent == []


def test_a_reconnection_asks_for_what_it_missed_and_reads_the_answer() -> None:
    views = positions()
    welcome = WelcomeMessage(seat=0, seq=1, **meta(), state=views[1]).to_json()
    later = WelcomeMessage(seat=0, seq=3, **meta(), state=views[3]).to_json()
    missed = [EventEntry(seq=2, seat=0, action="keep 0 1"), EventEntry(seq=3, seat=0, action="x")]
    sync = SyncMessage(seq=3, events=missed, **meta(), state=views[3]).to_json()
    session, (socket, updates) = session_with([welcome, later, sync, '{"type": "resync"}'])
    asked = [parse_client_message(text) for text in socket.sent]
    assert asked == [Sync(type="sync", last_seq=1), Sync(type="sync", last_seq=3)]
    assert session.missed == missed
    assert session.last_action == (0, "x")
    assert session.seq == 3
    assert ("notice", "Connected again.") in [(u.kind, u.message) for u in updates]


def test_an_event_s_changes_make_the_next_view_and_a_missed_one_asks_for_a_sync() -> None:
    """`dicepoker.v2`: the changes apply to the view of the event before; an event after a
    missed one is not applied, and a sync is asked for once, however many such events come."""
    views = positions()

    def changed(seq: int) -> str:
        changes = view_changes(view_base(views[seq - 1]), views[seq])
        return EventMessage(
            seq=seq, seat=0, action="x", auto=False, **meta(), changes=changes
        ).to_json()

    welcome = WelcomeMessage(seat=0, seq=0, **meta(), state=views[0]).to_json()
    session, (socket, updates) = session_with([welcome, changed(1), changed(2)])
    assert session.state == views[2] and session.seq == 2 and socket.sent == []
    assert [u.kind for u in updates] == ["view"] * 3
    session, (socket, updates) = session_with([welcome, changed(1), changed(3), changed(3)])
    assert session.state == views[1] and session.seq == 1
    assert [u.kind for u in updates] == ["view"] * 2  # the events not applied are not drawn
    assert [parse_client_message(text) for text in socket.sent] == [Sync(type="sync", last_seq=1)]


@pytest.mark.parametrize("code", [code for code, known in CODES.items() if known.socket])
def test_refusals_are_shown_in_the_protocol_s_words(code: str) -> None:
    _session, (_socket, updates) = session_with([error(code, "the server's words", "1").to_json()])
    (update,) = updates
    assert update.kind == "error"
    assert update.message == (CODES[code].words or "the server's words")


def test_what_is_not_a_message_of_the_protocol_is_skipped() -> None:
    views = positions()
    texts = [
        "not json",
        '{"type": "event", "seq": "1"}',
        json.dumps({"type": "welcome", "seat": "zero"}),
        WelcomeMessage(seat=None, seq=0, **meta(), state=views[0]).to_json(),
    ]
    session, (_socket, updates) = session_with(texts, token=None)
    assert [u.kind for u in updates] == ["view"]
    assert session.seat is None and session.connected


def test_intents_are_written_as_the_server_reads_them() -> None:
    views = positions()
    session = RemoteSession(game_address("http://127.0.0.1:9", "g1"), "secret")
    socket = FakeSocket(
        [EventMessage(seq=4, seat=0, action="roll", auto=False, **meta(), state=views[1]).to_json()]
    )

    async def scenario() -> None:
        await session._listen(socket)  # type: ignore[arg-type]
        session._ws = socket  # type: ignore[assignment]
        session.connected = True
        await session.act("keep 0 1")
        await session.act("score chance")

    asyncio.run(scenario())
    intents = [parse_client_message(text) for text in socket.sent]
    assert intents == [
        Act(type="act", action="keep 0 1", seq=4, ref="1"),
        Act(type="act", action="score chance", seq=4, ref="2"),
    ]


def test_a_spectator_is_refused_before_sending() -> None:
    session = RemoteSession(game_address("http://127.0.0.1:9", "g1"), None)
    with pytest.raises(ActionRefused) as refused:
        asyncio.run(session.act("roll"))
    assert refused.value.message == CODES["spectator"].words
