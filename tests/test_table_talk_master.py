"""Rematches and quick reactions in the game master and the protocol, without any transport."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from dicepoker.master import Broadcaster, GameMaster, LiveGame, MemoryStore, Refusal, events
from dicepoker.master.bus import LocalBus
from dicepoker.master.rematch import rematch_id
from dicepoker.protocol import REACTIONS, ErrorMessage, React, parse_client_message, server_message

SEATS = [
    {"kind": "human", "name": "Ana"},
    {"kind": "bot", "level": "greedy"},
    {"kind": "human", "name": "Bea"},
]


async def _finished(master: GameMaster) -> tuple[LiveGame, list[str | None]]:
    live, tokens = await master.create("school", {"columns": 1}, SEATS, None)
    while not live.game.state.finished:
        await master.auto(live, live.game.state.seat)
    return live, tokens


def _texts(queue: asyncio.Queue[str]) -> list[dict[str, Any]]:
    found = []
    while not queue.empty():
        found.append(json.loads(queue.get_nowait()))
    return found


def test_a_rematch_has_the_same_rules_clock_and_seats_and_is_made_once() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        master = GameMaster(store)
        live, _tokens = await master.create("school", {"columns": 2}, SEATS, 45)
        with pytest.raises(Refusal) as refused:
            await master.rematch(live)
        assert refused.value.code == "not_finished"
        while not live.game.state.finished:
            await master.auto(live, live.game.state.seat)
        made, created = await master.rematch(live)
        again, created_again = await master.rematch(live)
        assert created and not created_again
        assert again is made and made.id == rematch_id(live.id) != live.id
        assert made.rules.option_dict == live.rules.option_dict
        assert made.turn_seconds == live.turn_seconds == 45
        assert made.seats == [
            {k: v for k, v in seat.items() if k in ("kind", "name", "level", "token_hash")}
            for seat in live.seats
        ]
        assert made.seats[1] == {"kind": "bot", "name": live.seats[1]["name"], "level": "greedy"}
        assert made.status == "running" and made.seq == 0 and not made.game.state.finished
        # Another process (a master on the same store) finds the same game, not a new one.
        other = GameMaster(store)
        copy = await other.load(live.id)
        assert copy is not None
        found, created_there = await other.rematch(copy)
        assert (found.id, created_there) == (made.id, False)

    asyncio.run(scenario())


def test_each_seat_s_connection_is_offered_its_own_seat_and_token() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore())
        live, tokens = await _finished(master)
        ana, bea = tokens[0], tokens[2]
        assert ana and bea
        broadcaster = master.broadcaster
        queues = {
            "ana": broadcaster.subscribe(live, (0, ana)),
            "bea": broadcaster.subscribe(live, (2, bea)),
            "watcher": broadcaster.subscribe(live),
        }
        made, _ = await master.rematch(live)
        offers = {name: _texts(queue) for name, queue in queues.items()}
        assert offers["ana"] == [
            {"type": "rematch", "game": made.id, "url": f"/g/{made.id}", "seat": 0, "token": ana}
        ]
        assert offers["bea"][0]["seat"] == 2 and offers["bea"][0]["token"] == bea
        assert offers["watcher"] == [
            {"type": "rematch", "game": made.id, "url": f"/g/{made.id}", "seat": None}
        ]
        for found in offers.values():
            server_message.validate_python(found[0])
        # The tokens hold the same seats in the rematch; no one else's.
        assert master.seat_of(made, ana) == 0 and master.seat_of(made, bea) == 2
        assert master.seat_of(made, "not-a-token") is None
        # Asked again: nobody is offered it twice; a late connection learns of it on its own.
        await master.rematch(live)
        assert all(queue.empty() for queue in queues.values())
        assert await master.known_rematch(live) == made.id

    asyncio.run(scenario())


class SharedLocalBus(LocalBus):
    """A bus of one process among several (what it publishes goes nowhere by itself)."""

    shared = True


class Recorder(Broadcaster):
    """A broadcaster whose bus messages are kept (what the other processes would hear)."""

    def __init__(self) -> None:
        super().__init__(SharedLocalBus())
        self.published: list[tuple[str, events.BusMessage]] = []
        recorded = self.published

        async def publish(game_id: str, message: events.BusMessage) -> None:
            recorded.append((game_id, message.model_copy(update={"origin": "here"})))

        self.bus.publish = publish  # type: ignore[method-assign]


def test_the_other_processes_offer_the_rematch_and_tell_reactions_to_their_own_table() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        here = GameMaster(store, Recorder())
        live, tokens = await _finished(here)
        there = GameMaster(store)
        copy = await there.load(live.id)
        assert copy is not None and tokens[0]
        far = there.broadcaster.subscribe(copy, (0, tokens[0]))
        assert isinstance(here.broadcaster, Recorder)
        # Its news goes on the bus once another process is known to hold it: the copy's
        # announcement (which the bus would bring) is answered with where the game is.
        await here.react(live, 2, "good_game")
        assert here.broadcaster.published == []  # (held here alone: nobody to tell)
        await here.follow(live.id, events.Holding(origin="there"))
        made, _ = await here.rematch(live)
        await here.react(live, 2, "good_game")
        published = here.broadcaster.published
        kinds = [message.kind for game_id, message in published if game_id == live.id]
        assert kinds == ["holding", "rematch", "reaction"]
        answer = events.Holding(origin="here", reply=True, seq=live.seq)
        assert published[0] == (live.id, answer)
        # (The rematch was looked for in the store before it was made: announced as loaded.)
        announced = events.Holding(origin="here")
        assert [p for p in published if p[0] != live.id] == [(made.id, announced)]
        for game_id, message in published:
            await there.follow(game_id, message)
        heard = _texts(far)
        assert heard[0] == {
            "type": "rematch",
            "game": made.id,
            "url": f"/g/{made.id}",
            "seat": 0,
            "token": tokens[0],
        }
        assert heard[1] == {"type": "reaction", "seat": 2, "reaction": "good_game"}
        # A bus message naming another game as the rematch is not offered.
        await there.follow(live.id, events.Rematch(origin="here", game="elsewhere"))
        assert far.empty()

    asyncio.run(scenario())


def test_reactions_are_read_strictly() -> None:
    assert set(REACTIONS) >= {"good_game", "nice_roll", "well_played"}
    for reaction in REACTIONS:
        parsed = parse_client_message(json.dumps({"type": "react", "reaction": reaction}))
        assert isinstance(parsed, React) and parsed.reaction == reaction
    for text in [
        '{"type": "react", "reaction": "you are bad"}',
        '{"type": "react"}',
        '{"type": "react", "reaction": "good_game", "text": "hi"}',
        '{"type": "react", "reaction": 1}',
    ]:
        refused = parse_client_message(text)
        assert isinstance(refused, ErrorMessage) and refused.code == "bad_message", text
