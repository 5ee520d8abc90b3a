"""The live win probability is a watcher of committed events (dicepoker.master.chances): an event
is told when it is committed, never carrying nor waiting for its chances; the position each game
rests at is judged afterwards and told in a `chances` message of its own, only while the game is
still there."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, cell_moves
from dicepoker.master import ChancesWatcher, GameMaster, LiveGame, MemoryStore, events
from dicepoker.master.chances import Position
from dicepoker.master.messages import welcome
from dicepoker.server.services import chances_in_thread
from dicepoker.winprob import prepare, win_probability
from dicepoker.winprob.strength import newcomer_level

TWO = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


class Gated:
    """A forecast that answers (0.25, 0.75) only when the test opens its gate; each position
    asked is noted."""

    def __init__(self, master: GameMaster) -> None:
        self.master = master
        self.asked: list[GameState] = []
        self.gates: list[asyncio.Event] = []

    async def __call__(self, position: Position) -> tuple[float, ...] | None:
        found = position()  # taken at once, as a free worker takes it
        if found is None:
            return None
        gate = asyncio.Event()
        self.asked.append(found[0])
        self.gates.append(gate)
        await gate.wait()
        return (0.25, 0.75)

    async def open_next(self) -> None:
        """Open the oldest closed gate, and let what it leads to happen."""
        gate = next(g for g in self.gates if not g.is_set())
        gate.set()
        await settle()


async def settle() -> None:
    """Let every task that can run now run to where it waits (the master's work is all on the
    loop: a few turns of it are enough; no time passes)."""
    for _ in range(20):
        await asyncio.sleep(0)


def told(queue: asyncio.Queue[str]) -> list[dict[str, Any]]:
    out = []
    while not queue.empty():
        out.append(json.loads(queue.get_nowait()))
    return out


def first_move(state: GameState) -> str:
    return str(cell_moves(state)[0])


async def next_message(queue: asyncio.Queue[str], kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(queue.get(), 30))
        if message["type"] == kind:
            return message


def test_every_event_is_told_at_once_and_its_chances_follow_in_a_message_of_their_own() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        ChancesWatcher(master, chances_in_thread)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        prepare(live.rules)  # the tables, built once (a server's workers get them themselves)
        queue = master.broadcaster.subscribe(live)
        first = await next_message(queue, "chances")  # the first position's too
        assert first["seq"] == 0
        seen: list[list[float]] = []
        for _step in range(12):  # four turns: roll, keep three dice and reroll, fill a row
            state = live.game.state
            action = {0: "roll", 1: "keep 0 1 2"}.get(state.rolls) or first_move(state)
            seq = await master.act(live, state.seat, action, live.seq)
            event = json.loads(queue.get_nowait())  # told when committed: no wait for a worker
            assert event["type"] == "event" and event["seq"] == seq
            assert "win_probability" not in event
            chances = await next_message(queue, "chances")
            assert chances["seq"] == seq
            judged = win_probability(live.game.state, live.levels())
            assert tuple(chances["win_probability"]) == judged
            assert sum(chances["win_probability"]) == pytest.approx(1.0)
            seen.append(chances["win_probability"])
        assert len({tuple(c) for c in seen}) > 1  # it moves with the game
        hello = json.loads(welcome(live, None).to_json())  # a snapshot carries them
        assert hello["win_probability"] == seen[-1]
        await master.close()

    asyncio.run(scenario())


def test_a_solitaire_game_and_a_finished_one_are_not_judged() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        gated = Gated(master)
        ChancesWatcher(master, gated)
        await master.start()
        live, _ = await master.create("yahtzee", {}, TWO[:1], None)
        await master.act(live, 0, "roll", 0)
        await settle()
        assert gated.asked == []
        await master.close()

    asyncio.run(scenario())


def test_a_failing_forecast_leaves_the_move_standing_and_says_so_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        calls: list[int] = []

        async def failing(position: Position) -> tuple[float, ...]:
            found = position()
            assert found is not None
            calls.append(found[0].rolls)
            raise RuntimeError("a worker process ended before answering")

        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        ChancesWatcher(master, failing)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        assert await master.act(live, 0, "roll", 0) == 1
        await settle()
        assert [m["type"] for m in told(queue)] == ["event"]
        assert [e.seq for e in await master.store.events(live.id)] == [1]
        await master.act(live, 0, "keep 0 1 2", 1)
        await settle()
        # The position the game rested at each time asked once (the start was left before its
        # turn came), the next despite the failure before it.
        assert calls == [1, 2]
        await master.close()

    with caplog.at_level(logging.WARNING, "dicepoker.master"):
        asyncio.run(scenario())
    failures = [r for r in caplog.records if "no win probability" in r.getMessage()]
    assert len(failures) == 2 and all(r.exc_info is None for r in failures)


def test_a_position_the_game_left_while_it_was_judged_is_not_told_and_its_newest_is() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        gated = Gated(master)
        ChancesWatcher(master, gated, at_once=1)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        await settle()
        assert [s.rolls for s in gated.asked] == [0]  # the first position, being judged
        await master.act(live, 0, "roll", 0)
        await master.act(live, 0, "keep 0 1 2", 1)
        await gated.open_next()  # seq 0's answer: the game left it, so not told
        assert [m["type"] for m in told(queue)] == ["event", "event"]
        assert live.win_probability() is None
        # Judged next at the position it rests at (seq 2), never at seq 1, which it passed.
        assert len(gated.asked) == 2 and gated.asked[1] == live.game.state
        await gated.open_next()
        assert told(queue) == [{"type": "chances", "seq": 2, "win_probability": [0.25, 0.75]}]
        await master.close()

    asyncio.run(scenario())


def test_games_are_judged_in_turn_however_often_one_of_them_moves() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        gated = Gated(master)
        ChancesWatcher(master, gated, at_once=1)
        await master.start()
        busy, _ = await master.create("poker-dice", {}, TWO, None)
        resting, _ = await master.create("poker-dice", {}, TWO, None)
        await settle()
        assert len(gated.asked) == 1  # the first game's start; the second waits its turn
        for action in ("roll", "keep 0 1 2"):
            await master.act(busy, 0, action, busy.seq)
        await gated.open_next()  # the first game moved on: the second's turn comes first
        assert len(gated.asked) == 2 and gated.asked[1] == resting.game.state
        await gated.open_next()
        assert resting.win_probability() == [0.25, 0.75]
        assert len(gated.asked) == 3 and gated.asked[2] == busy.game.state  # at its newest
        await gated.open_next()
        assert busy.win_probability() == [0.25, 0.75]
        await master.close()

    asyncio.run(scenario())


def test_a_position_is_taken_when_the_judging_starts_and_not_at_all_when_it_is_old_news() -> None:
    """The forecast is handed what gives the position: a job that waited (behind more urgent
    work) judges where the game rests when it starts, and one whose game needs no judging any
    more (over, forgotten, judged meanwhile) judges nothing."""

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        started = asyncio.Event()
        taken: list[GameState | None] = []

        async def waiting(position: Position) -> tuple[float, ...] | None:
            await started.wait()  # (a queue of more urgent jobs)
            found = position()
            taken.append(None if found is None else found[0])
            return None if found is None else (0.5, 0.5)

        ChancesWatcher(master, waiting)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        gone, _ = await master.create("poker-dice", {}, TWO, None)
        await settle()
        await master.act(live, 0, "roll", 0)  # while its judging waits
        master.unload(gone.id)  # forgotten while it waits
        started.set()
        await settle()
        assert taken == [live.game.state, None]  # the newest position; nothing of the other
        assert live.win_probability() == [0.5, 0.5] and live.chances == (1, (0.5, 0.5))
        await master.close()

    asyncio.run(scenario())


def test_bot_seats_are_judged_at_their_level_and_a_person_without_a_rating_as_a_newcomer() -> None:
    async def scenario() -> None:
        asked: list[tuple[str | None, ...]] = []

        async def noted(position: Position) -> tuple[float, ...]:
            found = position()
            assert found is not None
            asked.append(found[1])
            return (0.5, 0.5)

        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        ChancesWatcher(master, noted)
        await master.start()
        seats = [TWO[0], {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("poker-dice", {}, seats, None)
        await settle()
        await master.act(live, 0, "roll", 0)
        await settle()
        # its start, and after the roll
        assert asked == [(newcomer_level("poker-dice"), "greedy")] * 2
        await master.close()

    asyncio.run(scenario())


def test_the_process_that_commits_an_event_judges_it_and_the_others_keep_its_chances() -> None:
    """With several processes, the one that committed an event judges the position it leads to
    and tells the others (`events.Chances`), which keep them only at that position."""

    async def scenario() -> None:
        asked: list[str] = []

        def counted(who: str) -> Any:
            async def forecast(position: Position) -> tuple[float, ...]:
                assert position() is not None
                asked.append(who)
                return (0.5, 0.5)

            return forecast

        store = MemoryStore()
        here = GameMaster(store, dice=SeededDice(3))
        there = GameMaster(store)
        ChancesWatcher(here, counted("here"))
        ChancesWatcher(there, counted("there"))
        live, _ = await here.create("poker-dice", {}, TWO, None)
        other = await there.load(live.id)
        assert other is not None
        await settle()
        assert sorted(asked) == ["here", "there"]  # made here; loaded there (nobody told it)
        queue = there.broadcaster.subscribe(other)
        await here.act(live, 0, "roll", 0)
        stored = (await store.events(live.id))[0]
        committed = events.Committed(
            origin="here", seq=1, seat=0, action="roll", thrown=stored.thrown
        )
        await there.follow(live.id, committed)
        await settle()
        assert sorted(asked) == ["here", "here", "there"]  # not judged again there
        assert json.loads(queue.get_nowait())["seq"] == 1 and other.win_probability() is None
        words = '{"type":"chances","seq":1,"win_probability":[0.4,0.6]}'
        said = events.Chances(origin="here", seq=1, chances=(0.4, 0.6), told=words)
        await there.follow(live.id, said.model_copy(update={"seq": 0}))  # an older position
        assert queue.empty() and other.win_probability() is None
        await there.follow(live.id, said)
        assert other.win_probability() == [0.4, 0.6] and queue.get_nowait() == words
        await here.close()
        await there.close()

    asyncio.run(scenario())


def test_a_new_game_against_a_bot_gets_its_first_position_s_chances() -> None:
    """Found by a review: a new game with the person to move first never got the chances of
    its first position, nor of a roll made at once."""

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        ChancesWatcher(master, chances_in_thread)
        await master.start()
        seats = [TWO[0], {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("yahtzee", {}, seats, None)
        queue = master.broadcaster.subscribe(live)
        assert (await next_message(queue, "chances"))["seq"] == 0
        await master.act(live, 0, "roll", 0)  # at once
        assert (await next_message(queue, "chances"))["seq"] == 1
        await master.close()

    asyncio.run(scenario())


def test_a_loaded_game_is_judged_and_a_closing_master_judges_nothing_more() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        maker = GameMaster(store, dice=SeededDice(3))
        live, _ = await maker.create("poker-dice", {}, TWO, None)
        master = GameMaster(store)
        gated = Gated(master)
        watcher = ChancesWatcher(master, gated)
        await master.start()
        loaded = await master.load(live.id)
        assert isinstance(loaded, LiveGame)
        await settle()
        assert len(gated.asked) == 1 and watcher.holds(live.id)
        await master.close()  # the judging is cancelled, nothing is told after
        assert not watcher.holds(live.id) and loaded.win_probability() is None

    asyncio.run(scenario())


def test_a_variant_no_backend_covers_has_no_chances_and_no_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A variant being added, which neither the solver nor a School network covers: its games go
    on without chances (`winprob.forecast` answers None) instead of an error at every move."""
    from dicepoker import winprob

    def no_model(state: GameState, levels: Any = None) -> tuple[float, ...]:
        raise winprob.NoModelError("no backend")

    from dicepoker.engine import new_game
    from dicepoker.rules import get_rules

    state = new_game(get_rules("poker-dice"), ["a", "b"])
    assert winprob.forecast(state) == win_probability(state)
    monkeypatch.setattr(winprob, "win_probability", no_model)
    assert winprob.forecast(state) is None
