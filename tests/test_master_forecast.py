"""The master judges who is winning after every event (dicepoker.winprob), before it tells
anyone: every message about a position of a game with rivals carries `win_probability`, or, when
the forecast comes after TELL_WITHIN (a busy worker), a `chances` message follows the event; a
forecast that fails or is later than FORECAST_SECONDS never holds up or loses the move."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState
from dicepoker.master import GameMaster, MemoryStore, Refusal
from dicepoker.master import forecast as master_module
from dicepoker.master.messages import welcome
from dicepoker.master.store import StoredEvent
from dicepoker.rules import get_rules
from dicepoker.server.services import forecast_in_thread
from dicepoker.winprob import forecast, prepare, ready, win_probability

TWO = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_a_forecast_is_none_until_the_tables_are_ready_then_judged() -> None:
    rules = get_rules("poker-dice", {"turn_seconds": 45})  # rules of their own: not ready yet
    from dicepoker.engine import new_game

    state = new_game(rules, ["A", "B"])
    if not ready(rules):
        assert forecast(state) is None
    prepare(rules)
    assert ready(rules) and forecast(state) == win_probability(state)


def test_every_event_carries_each_seat_s_chance_of_winning() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast_in_thread)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        prepare(live.rules)  # the tables, built once (a server gets them ready itself)
        queue = master.broadcaster.subscribe(live)
        seen: list[list[float]] = []
        for _step in range(12):  # four turns: roll, keep three dice and reroll, fill a row
            state = live.game.state
            if state.rolls == 0:
                action = "roll"
            elif state.rolls == 1:
                action = "keep 0 1 2"
            else:
                action = _first_move(state)
            seq = await master.act(live, state.seat, action, live.seq)
            message = json.loads(queue.get_nowait())
            assert message["type"] == "event" and message["seq"] == seq
            if "win_probability" not in message:  # judged after TELL_WITHIN: told after it
                message = json.loads(await asyncio.wait_for(queue.get(), 10))
                assert message["type"] == "chances" and message["seq"] == seq
            chances = message["win_probability"]
            assert len(chances) == 2 and sum(chances) == pytest.approx(1.0)
            assert tuple(chances) == win_probability(live.game.state)
            seen.append(chances)
        assert len({tuple(c) for c in seen}) > 1  # it moves with the game
        hello = json.loads(welcome(live, None).to_json())
        assert hello["win_probability"] == seen[-1]
        await master.close()

    asyncio.run(scenario())


def _first_move(state: GameState) -> str:
    from dicepoker.engine import cell_moves

    return str(cell_moves(state)[0])


def test_a_solitaire_game_has_no_win_probability() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast_in_thread)
        await master.start()
        live, _ = await master.create("yahtzee", {}, TWO[:1], None)
        queue = master.broadcaster.subscribe(live)
        await master.act(live, 0, "roll", 0)
        assert "win_probability" not in json.loads(queue.get_nowait())
        await master.close()

    asyncio.run(scenario())


def test_a_failing_or_late_forecast_leaves_it_out_and_the_move_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def failing(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        raise RuntimeError("no tables here")

    never = asyncio.Event()

    async def late(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        await never.wait()
        return (0.5, 0.5)

    async def scenario(forecast: Any) -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        assert await master.act(live, 0, "roll", 0) == 1
        message = json.loads(queue.get_nowait())
        assert message["seq"] == 1 and "win_probability" not in message
        assert [e.seq for e in await master.store.events(live.id)] == [1]
        await master.close()

    asyncio.run(scenario(failing))
    monkeypatch.setattr(master_module, "FORECAST_SECONDS", 0.01)
    asyncio.run(scenario(late))


def test_a_forecast_later_than_its_event_is_told_in_a_message_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    gates: list[asyncio.Event] = []

    async def slow(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        gate = asyncio.Event()
        gates.append(gate)
        await gate.wait()
        return (0.25, 0.75)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=slow)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        made = len(gates)  # (the start was judged with the whole wait: released below)
        assert await master.act(live, 0, "roll", 0) == 1  # not held up by its forecast
        event = json.loads(queue.get_nowait())
        assert event["seq"] == 1 and "win_probability" not in event
        assert live.win_probability() is None and queue.empty()
        gates[made].set()
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told == {"type": "chances", "seq": 1, "win_probability": [0.25, 0.75]}
        assert live.win_probability() == [0.25, 0.75]
        assert json.loads(welcome(live, None).to_json())["win_probability"] == [0.25, 0.75]
        # A forecast that comes after the game moved on is not news: nothing is told.
        await master.act(live, 0, "keep 0 1 2", 1)
        await master.act(live, 0, _first_move(live.game.state), 2)
        assert [json.loads(queue.get_nowait())["seq"] for _ in range(2)] == [2, 3]
        gates[made + 1].set()
        gates[made + 2].set()
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told["type"] == "chances" and told["seq"] == 3 and queue.empty()
        for gate in gates:
            gate.set()
        await master.close()

    asyncio.run(scenario())


def test_a_position_left_unjudged_by_a_busy_worker_is_judged_when_it_frees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One forecast at a time: the move made while it runs is shed (not judged then), and the
    position the game rests at is judged as soon as the worker is free, and told."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    gates: list[asyncio.Event] = []
    judged: list[int] = []

    async def slow(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        gate = asyncio.Event()
        gates.append(gate)
        await gate.wait()
        judged.append(state.rolls)
        return (0.5, 0.5) if state.rolls == 1 else (0.3, 0.7)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        live, _ = await master.create("poker-dice", {}, TWO, None)
        master.forecast = master_module.shedding(slow, at_once=1)
        queue = master.broadcaster.subscribe(live)
        await master.act(live, 0, "roll", 0)  # judged in the background
        await master.act(live, 0, "keep 0 1 2", 1)  # the worker is busy: shed
        assert [json.loads(queue.get_nowait())["seq"] for _ in range(2)] == [1, 2]
        assert len(gates) == 1 and live.win_probability() is None
        gates[0].set()  # seq 1's answer: no longer news; seq 2 is judged now
        for _ in range(1000):  # (yield until the second forecast is asked: no timing)
            if len(gates) == 2:
                break
            await asyncio.sleep(0)
        assert len(gates) == 2
        assert queue.empty() and judged == [1]
        gates[1].set()
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told == {"type": "chances", "seq": 2, "win_probability": [0.3, 0.7]}
        assert judged == [1, 2] and live.win_probability() == [0.3, 0.7]
        await master.close()

    asyncio.run(scenario())


def test_chances_another_process_judged_late_are_kept_and_told_at_their_seq() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        here = GameMaster(store, dice=SeededDice(3))
        there = GameMaster(store)
        live, _ = await here.create("poker-dice", {}, TWO, None)
        other = await there.load(live.id)
        assert other is not None
        queue = there.broadcaster.subscribe(other)
        await here.act(live, 0, "roll", 0)
        stored = (await store.events(live.id))[0]
        event = {"kind": "event", "seq": 1, "seat": 0, "action": "roll", "thrown": stored.thrown}
        await there.follow(live.id, {**event, "chances": None})
        assert json.loads(queue.get_nowait())["seq"] == 1 and other.win_probability() is None
        told = '{"type":"chances","seq":1,"win_probability":[0.4,0.6]}'
        late = {"kind": "chances", "seq": 1, "chances": [0.4, 0.6], "told": told}
        await there.follow(live.id, {**late, "seq": 0})  # about an older position: not news
        assert queue.empty() and other.win_probability() is None
        await there.follow(live.id, late)
        assert other.win_probability() == [0.4, 0.6] and queue.get_nowait() == told

    asyncio.run(scenario())


def test_bot_seats_are_judged_at_their_level() -> None:
    async def scenario() -> None:
        asked: list[tuple[str | None, ...]] = []

        async def forecast(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            asked.append(levels)
            found = await forecast_in_thread(state, levels)
            assert found is not None
            return found

        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast)
        await master.start()
        seats = [TWO[0], {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("poker-dice", {}, seats, None)
        prepare(live.rules)
        await master.act(live, 0, "roll", 0)
        # Judged when made (the start) and after the roll, each time with the seats' levels.
        assert asked == [(None, "greedy")] * 2
        await master.close()

    asyncio.run(scenario())


def test_an_event_of_another_process_keeps_its_chances_instead_of_judging_again() -> None:
    """With several processes, the one that committed an event judged it: the others take its
    chances from the bus message (none when it had none) and judge only for an older process's
    message that does not say."""

    async def scenario() -> None:
        asked: list[int] = []

        async def counted(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            asked.append(len(state.players))
            return (0.5, 0.5)

        store = MemoryStore()
        here = GameMaster(store, dice=SeededDice(3))
        there = GameMaster(store, forecast=counted)
        live, _ = await here.create("poker-dice", {}, TWO, None)
        other = await there.load(live.id)
        assert other is not None and asked == [2]  # judged when loaded
        queue = there.broadcaster.subscribe(other)

        async def followed(seq: int, **extra: Any) -> None:
            stored = (await store.events(live.id))[seq - 1]
            message = {"kind": "event", "seq": seq, "seat": stored.seat, "action": stored.action}
            await there.follow(live.id, {**message, "thrown": stored.thrown, **extra})

        await here.act(live, 0, "roll", 0)
        await followed(1, chances=[0.25, 0.75])
        assert other.seq == 1 and other.win_probability() == [0.25, 0.75] and asked == [2]
        assert json.loads(queue.get_nowait())["win_probability"] == [0.25, 0.75]
        await here.act(live, 0, "keep 0 1 2", 1)
        await followed(2, chances=None)  # the committer had none: none here either
        assert other.seq == 2 and other.win_probability() is None and asked == [2]
        await here.act(live, 0, _first_move(live.game.state), 2)
        await followed(3)  # an older process's message: judged here
        assert other.seq == 3 and other.win_probability() == [0.5, 0.5] and asked == [2, 2]

    asyncio.run(scenario())


def test_forecasts_beyond_those_being_judged_are_left_out_at_once() -> None:
    async def scenario() -> None:
        release = asyncio.Event()
        asked: list[int] = []

        async def slow(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            asked.append(state.seat)
            await release.wait()
            return (0.5, 0.5)

        from dicepoker.engine import new_game

        state = new_game(get_rules("poker-dice", {}), ["A", "B"])
        shed = master_module.shedding(slow, at_once=2)
        first = asyncio.ensure_future(shed(state, (None, None)))
        second = asyncio.ensure_future(shed(state, (None, None)))
        await asyncio.sleep(0)  # both started and waiting on their forecasts
        assert await shed(state, (None, None)) is None  # a third: left out, not asked
        assert len(asked) == 2
        release.set()
        assert await first == (0.5, 0.5) and await second == (0.5, 0.5)
        assert await shed(state, (None, None)) == (0.5, 0.5)  # free again
        assert len(asked) == 3

    asyncio.run(scenario())


class _SlowCommits(MemoryStore):
    """A store whose commits wait for `release` (as a database under load does)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()

    async def append(self, *args: Any, **kwargs: Any) -> None:
        self.waiting.set()
        await self.release.wait()
        await super().append(*args, **kwargs)


def test_a_move_s_forecast_is_worked_out_while_the_move_is_committed() -> None:
    asked: list[tuple[int, bool]] = []

    async def scenario() -> None:
        store = _SlowCommits()
        store.release.set()  # the game's creation and start commit at once

        async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            asked.append((state.rolls, store.release.is_set()))
            return (0.4, 0.6)

        master = GameMaster(store, dice=SeededDice(3), forecast=judged)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        store.release.clear()
        store.waiting.clear()
        acting = asyncio.create_task(master.act(live, 0, "roll", 0))
        await store.waiting.wait()
        await asyncio.sleep(0)  # (the forecast task's first step)
        # The position the roll leads to is being judged while the roll is being committed.
        assert asked[-1] == (1, False)
        store.release.set()
        assert await acting == 1
        event = json.loads(queue.get_nowait())
        assert event["seq"] == 1 and event["win_probability"] == [0.4, 0.6]
        assert len(asked) == 2  # the start, then the roll: asked once, not again after
        await master.close()

    asyncio.run(scenario())


def test_a_move_whose_commit_fails_leaves_no_chances_of_its_position() -> None:
    async def scenario() -> None:
        store = _SlowCommits()
        store.release.set()

        never = asyncio.Event()

        async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            if state.dice == (1, 1, 1, 1, 1):
                return (0.9, 0.1)
            if state.rolls:
                await never.wait()  # the roll that will not be committed: still being judged
            return (0.4, 0.6)

        master = GameMaster(store, dice=SeededDice(3), forecast=judged)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        store.release.clear()
        store.waiting.clear()
        acting = asyncio.create_task(master.act(live, 0, "roll", 0))
        await store.waiting.wait()
        # Another process commits the game's next event meanwhile: this one's commit fails.
        stored = await store.game(live.id)
        assert stored is not None
        store._games[live.id].seq = 1
        store._events[live.id].append(StoredEvent(1, 0, "roll", [1, 1, 1, 1, 1], False))
        store.release.set()
        with pytest.raises(Refusal) as refused:
            await acting
        assert refused.value.code == "stale"
        assert live.seq == 1  # caught up with the other process's roll
        # The position is judged for the roll that was committed, not given the chances of the
        # one that was not (asked for the same seq).
        assert live.game.state.dice == (1, 1, 1, 1, 1)
        assert live.win_probability() == [0.9, 0.1]
        await master.close()

    asyncio.run(scenario())


def test_a_move_whose_commit_errs_does_not_keep_its_position_from_being_judged() -> None:
    class FailsOnce(MemoryStore):
        def __init__(self) -> None:
            super().__init__()
            self.fail = False

        async def append(self, *args: Any, **kwargs: Any) -> None:
            if self.fail:
                self.fail = False
                raise ConnectionError("the database went away")
            await super().append(*args, **kwargs)

    async def scenario() -> None:
        store = FailsOnce()
        never = asyncio.Event()

        async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            if state.rolls and not store.fail and state.dice != (1, 1, 1, 1, 1):
                return (0.3, 0.7)
            if state.rolls:
                await never.wait()  # the failed move's position: still being judged
            return (0.5, 0.5)

        master = GameMaster(store, dice=SeededDice(3), forecast=judged)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        store.fail = True
        with pytest.raises(ConnectionError):
            await master.act(live, 0, "roll", 0)
        assert live.seq == 0  # nothing of it was kept
        queue = master.broadcaster.subscribe(live)
        assert await master.act(live, 0, "roll", 0) == 1  # the same seq, now committed
        event = json.loads(queue.get_nowait())
        assert event["win_probability"] == [0.3, 0.7]
        never.set()
        await master.close()

    asyncio.run(scenario())


def test_moves_wait_for_their_forecasts_only_while_the_forecasts_come_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A move waits for its forecast (up to TELL_WITHIN) while the forecasts come in time. Once
    most of the last TIMELY_WINDOW came late or were shed (a loaded server), moves are told at
    once and their chances follow in a message of their own; once they come in time again, the
    moves wait again. (TELL_WITHIN is a minute here: a wait is seen, not timed.)"""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 60.0)
    monkeypatch.setattr(master_module, "FORECAST_SECONDS", 120.0)
    gates: list[asyncio.Event] = []
    answer = ["gated"]

    async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...] | None:
        if answer[0] == "shed":
            return None
        if answer[0] == "gated":
            gate = asyncio.Event()
            gates.append(gate)
            await gate.wait()
        return (0.25, 0.75)

    def step(state: GameState) -> str:
        return "roll" if state.rolls == 0 else _first_move(state)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        live, _ = await master.create("poker-dice", {}, TWO, None)
        master.forecast = judged
        queue = master.broadcaster.subscribe(live)

        async def held_for_its_forecast() -> bool:
            """Make the next move with a gated forecast: was it held until the forecast came?"""
            answer[0] = "gated"
            acting = asyncio.create_task(
                master.act(live, live.game.state.seat, step(live.game.state), live.seq)
            )
            for _ in range(50):  # (the move's steps up to its forecast: no timing)
                await asyncio.sleep(0)
            held = not acting.done()
            gates[-1].set()
            seq = await asyncio.wait_for(acting, 10)
            event = json.loads(queue.get_nowait())
            assert event["seq"] == seq
            if held:
                assert event["win_probability"] == [0.25, 0.75]
            else:  # told at once; its chances follow
                assert "win_probability" not in event
                told = json.loads(await asyncio.wait_for(queue.get(), 10))
                assert told == {"type": "chances", "seq": seq, "win_probability": [0.25, 0.75]}
            return held

        async def moves(how: str, count: int) -> None:
            answer[0] = how
            for _ in range(count):
                state = live.game.state
                await asyncio.wait_for(master.act(live, state.seat, step(state), live.seq), 10)
            for _ in range(50):  # (the forecasts' answers noted)
                await asyncio.sleep(0)
            while not queue.empty():
                queue.get_nowait()

        assert await held_for_its_forecast()
        await moves("shed", master_module.TIMELY_WINDOW // 2)  # half of them late: still waits
        assert await held_for_its_forecast()
        await moves("shed", 1)  # now more than half
        assert not master.timely.waiting()
        assert not await held_for_its_forecast()
        await moves("at once", master_module.TIMELY_WINDOW // 2)
        assert master.timely.waiting()
        assert await held_for_its_forecast()
        await master.close()

    asyncio.run(scenario())


def test_a_new_game_is_not_held_up_by_its_first_forecast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating a game waits for its first position's forecast no longer than a move does
    (TELL_WITHIN, not FORECAST_SECONDS: a busy server's "new game" took up to 2 s); the chances
    are told when they come, and a welcome after that carries them."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    monkeypatch.setattr(master_module, "FORECAST_SECONDS", 120.0)
    gate = asyncio.Event()

    async def slow(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        await gate.wait()
        return (0.25, 0.75)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=slow)
        live, _ = await asyncio.wait_for(master.create("poker-dice", {}, TWO, None), 10)
        assert live.win_probability() is None
        queue = master.broadcaster.subscribe(live)
        gate.set()
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told == {"type": "chances", "seq": 0, "win_probability": [0.25, 0.75]}
        assert json.loads(welcome(live, None).to_json())["win_probability"] == [0.25, 0.75]
        await master.close()

    asyncio.run(scenario())


def test_a_failing_forecast_does_not_ask_for_every_position_left_unjudged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """When the forecasts fail (a stop closed the workers, one died), a failure does not start
    the forecast of the next position left unjudged, which would fail too, and so on through
    every such game, each with a warning (a thousand at a loaded server's graceful stop)."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    gate = asyncio.Event()
    asked: list[int] = []

    async def closing(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        asked.append(state.rolls)
        await gate.wait()
        raise RuntimeError("the worker pool is closed")

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        games = [(await master.create("poker-dice", {}, TWO, None))[0] for _ in range(6)]
        master.forecast = master_module.shedding(closing, at_once=1)
        for live in games:  # the first is judged; the worker busy, the others are left out
            await master.act(live, 0, "roll", 0)
        assert len(asked) == 1 and len(master_module._unjudged) >= 5
        gate.set()
        for _ in range(200):  # (the failure and whatever it starts: no timing)
            await asyncio.sleep(0)
        assert len(asked) == 1
        await master.close()
        for live in games:
            master_module.forget(live.id)

    with caplog.at_level(logging.WARNING, logger="dicepoker.master"):
        asyncio.run(scenario())
    assert sum("no win probability" in r.getMessage() for r in caplog.records) == 1
