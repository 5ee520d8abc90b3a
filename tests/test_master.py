"""The game master without any transport: intents, refusals, commits, bots, clocks, auto-play.

The races are made exact, not timed: a store that holds a commit until the test lets it go keeps
one intent in flight while another is chosen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

from dicepoker.bots import make_bot
from dicepoker.bots.base import Bot
from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import Action, GameState, autoplay_action, legal_actions, parse_action
from dicepoker.master import (
    BotDriver,
    GameMaster,
    LiveGame,
    MemoryStore,
    Refusal,
    StoredEvent,
    TurnClock,
)
from dicepoker.master.broadcast import QUEUE_SIZE
from dicepoker.master.messages import RESYNC
from test_workers import killed

T = TypeVar("T")
HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


class HeldStore(MemoryStore):
    """A memory store whose next commit waits, when held, until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Event | None = None
        self.held = asyncio.Event()
        self.entered = asyncio.Event()
        self.fail: Exception | None = None

    def hold(self) -> None:
        """Hold the next commit (only the next one) until `release`."""
        self.gate = asyncio.Event()
        self.held = self.gate
        self.entered.clear()

    def release(self) -> None:
        self.held.set()

    async def append(
        self,
        game_id: str,
        expected_seq: int,
        stored: StoredEvent,
        status: str,
        *,
        person: bool = False,
    ) -> None:
        gate, self.gate = self.gate, None
        if gate is not None:
            self.entered.set()
            await gate.wait()
        if self.fail is not None:
            raise self.fail
        await super().append(game_id, expected_seq, stored, status, person=person)


async def settle() -> None:
    """Let every task that can run go as far as it can (a few turns of the event loop)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def _master(store: MemoryStore | None = None, seed: int = 1) -> GameMaster:
    master = GameMaster(store or MemoryStore(), dice=SeededDice(seed))
    await master.start()
    return master


async def _events(master: GameMaster, live: LiveGame) -> list[StoredEvent]:
    return await master.store.events(live.id)


# --- intents and refusals ---------------------------------------------------------------------


def test_refusals_carry_a_code_and_change_nothing() -> None:
    async def scenario() -> None:
        master = await _master()
        live, tokens = await master.create("school", {"columns": 1}, HUMANS, None)
        assert tokens[0] and tokens[1] and master.seat_of(live, tokens[1]) == 1
        assert master.seat_of(live, "not a token") is None
        before = live.game.state
        cases = [
            (1, "roll", None, "not_your_turn"),
            (0, "score pair", None, "bad_move"),
            (0, "keep 0 1", None, "bad_roll"),
            (0, "dance", None, "bad_move"),
            (0, "roll", 3, "stale"),
        ]
        for seat, action, seq, code in cases:
            with pytest.raises(Refusal) as refused:
                await master.act(live, seat, action, seq)
            assert refused.value.code == code and refused.value.message
            assert not hasattr(refused.value, "status")
        assert live.game.state is before and live.seq == 0
        assert await _events(master, live) == []
        assert await master.act(live, 0, "roll", 0) == 1
        with pytest.raises(Refusal, match="moved on") as stale:
            await master.act(live, 0, "roll", 0)
        assert stale.value.code == "stale"
        await master.close()

    run(scenario)


def test_an_intent_that_is_not_committed_is_not_applied_nor_told() -> None:
    async def scenario() -> None:
        store = HeldStore()
        master = await _master(store)
        live, _ = await master.create("school", {"columns": 1}, HUMANS, None)
        queue = master.broadcaster.subscribe(live)
        store.fail = RuntimeError("the database is gone")
        with pytest.raises(RuntimeError):
            await master.act(live, 0, "roll", 0)
        assert live.seq == 0 and live.game.state.rolls == 0 and queue.empty()
        store.fail = None
        assert await master.act(live, 0, "roll", 0) == 1
        told = queue.get_nowait()
        assert '"type":"event"' in told and '"seq":1' in told
        await master.close()

    run(scenario)


def test_a_game_with_an_open_seat_waits_for_it() -> None:
    async def scenario() -> None:
        master = await _master()
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "human"}]
        live, tokens = await master.create("school", {"columns": 1}, seats, None)
        assert live.status == "open" and tokens[1] is None
        for intent in (master.act(live, 0, "roll"), master.auto(live, 0)):
            with pytest.raises(Refusal) as refused:
                await intent
            assert refused.value.code == "waiting"
        queue = master.broadcaster.subscribe(live)
        seat, token = await master.join(live, None, "Bea")
        assert (seat, live.status) == (1, "running") and master.seat_of(live, token) == 1
        assert '"type":"seats"' in queue.get_nowait()
        assert live.game.state.players == ("Ana", "Bea")
        with pytest.raises(Refusal) as taken:
            await master.join(live, 1, "Caio")
        assert taken.value.code == "no_open_seat"
        await master.close()

    run(scenario)


def test_bad_creations_are_refused() -> None:
    async def scenario() -> None:
        master = await _master()
        cases: list[tuple[str, dict[str, Any], list[dict[str, Any]], str]] = [
            ("chess", {}, HUMANS, "bad_options"),
            ("school", {"columns": 9}, HUMANS, "bad_options"),
            ("school", {}, [{"kind": "human", "name": str(n)} for n in range(5)], "bad_seats"),
            ("school", {}, [{"kind": "bot", "level": "grandmaster"}], "bad_seats"),
        ]
        for variant, options, seats, code in cases:
            with pytest.raises(Refusal) as refused:
                await master.create(variant, options, seats, None)
            assert refused.value.code == code
        assert master.games == {} and await master.store.unfinished() == []
        await master.close()

    run(scenario)


# --- auto-play and the clock (the review's races) ---------------------------------------------


def test_auto_out_of_turn_is_refused_like_any_other_intent() -> None:
    async def scenario() -> None:
        master = await _master()
        live, _ = await master.create("poker-dice", {}, HUMANS, 0)
        with pytest.raises(Refusal) as refused:
            await master.auto(live, 1)  # Ana's turn
        assert refused.value.code == "not_your_turn"
        assert live.seq == 0
        await master.auto(live, 0)
        assert live.game.state.seat == 1 and live.seq >= 2
        await master.close()

    run(scenario)


def test_auto_never_throws_away_the_players_own_roll() -> None:
    """The player's roll is being committed when auto-play chooses its action: that action was
    chosen on the position before the roll, so it is refused as stale and chosen again on the
    position after it (the old hub applied it anyway: a full re-roll over the player's dice)."""

    async def scenario() -> None:
        store = HeldStore()
        master = await _master(store)
        live, _ = await master.create("poker-dice", {}, HUMANS, 0)
        live.dice = FixedDice([6, 6, 2, 3, 4] + [6, 1, 1] + [1] * 10)  # the player's, then auto's
        store.hold()
        roll = asyncio.create_task(master.act(live, 0, "roll", 0))
        await store.entered.wait()  # the roll is in flight, not yet committed
        auto = asyncio.create_task(master.auto(live, 0))
        await settle()  # auto-play has chosen on seq 0 and waits for the game
        store.release()
        assert await roll == 1
        await auto
        events = await _events(master, live)
        assert (events[0].action, events[0].auto) == ("roll", False)
        assert events[0].thrown == [6, 6, 2, 3, 4]
        after_roll = master_replay(live, events[:1])
        assert events[1].auto and events[1].action == str(autoplay_action(after_roll))
        assert events[1].action == "keep 0 1"  # the player's two sixes, kept
        record = live.game.to_record()
        assert record["turns"][0]["rolls"][0]["dice"] == [6, 6, 2, 3, 4]
        assert record["turns"][0]["rolls"][1]["keep"] == [0, 1]
        await master.close()

    run(scenario)


def master_replay(live: LiveGame, events: list[StoredEvent]) -> GameState:
    """The state of `live`'s game after `events`, replayed through the engine."""
    from dicepoker.engine import apply, new_game

    state = new_game(live.rules, list(live.game.state.players))
    for event in events:
        state = apply(state, parse_action(event.action), FixedDice(event.thrown or ()))
    return state


def test_the_clock_plays_on_from_the_position_it_finds() -> None:
    """The clock runs out while the player's roll is being committed: the clock's auto-play
    chooses again on the rolled dice instead of rolling them all again."""

    async def scenario() -> None:
        store = HeldStore()
        master = GameMaster(store, dice=FixedDice([6, 6, 6, 6, 1] + [6] * 20))
        ticks: asyncio.Queue[None] = asyncio.Queue()

        async def sleep(_seconds: float) -> None:
            await ticks.get()  # each clock runs out when the test says so

        TurnClock(master, sleep=sleep)
        await master.start()
        live, _ = await master.create("school", {"columns": 1}, HUMANS, 30)
        assert live.clock() is not None and live.clock_key == (0, 0)
        store.hold()
        roll = asyncio.create_task(master.act(live, 0, "roll", 0))
        await store.entered.wait()
        ticks.put_nowait(None)  # the clock runs out now
        await settle()
        store.release()
        assert await roll == 1
        for _ in range(1000):
            if live.game.state.seat == 1:
                break
            await asyncio.sleep(0)
        events = await _events(master, live)
        assert not events[0].auto and events[0].thrown == [6, 6, 6, 6, 1]
        after_roll = master_replay(live, events[:1])
        assert events[1].auto and events[1].action == str(make_bot("greedy").choose(after_roll))
        assert events[1].action != "roll"
        assert live.game.state.seat == 1 and live.clock_key is not None
        assert live.clock_key[1] == 1  # Bea's clock runs now
        await master.close()

    run(scenario)


# --- bots ------------------------------------------------------------------------------------


class BrokenBot(Bot):
    def choose(self, state: GameState) -> Action:
        raise RuntimeError("this bot is broken")


def test_a_failing_bot_is_replaced_by_greedy_for_the_action() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore())
        BotDriver(master, delay=0)
        seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("school", {"columns": 1}, seats, None)
        live.bots = {0: BrokenBot(), 1: live.bots[1]}
        queue = master.broadcaster.subscribe(live)
        while not live.game.state.finished:
            await asyncio.wait_for(queue.get(), timeout=30)
        assert live.status == "finished" and len(live.game.turns) == 30
        await master.close()

    run(scenario)


def test_a_bot_choice_made_on_a_position_the_game_left_is_never_applied() -> None:
    """While the bot thinks, another process moves the game (here: the same seat's intent
    committed meanwhile); the driver looks again instead of applying the old choice."""

    class MovedMeanwhile:
        def __init__(self, master: GameMaster) -> None:
            self.master = master
            self.choices: list[tuple[int, str]] = []

        async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
            action = make_bot("greedy").choose(state)
            self.choices.append((live.seq, str(action)))
            if len(self.choices) == 1:
                await self.master.act(live, seat, "roll", live.seq)
            return action

        def close(self) -> None:
            return None

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        thinker = MovedMeanwhile(master)
        driver = BotDriver(master, thinker, delay=0)
        live, _ = await master.create("yahtzee", {}, [{"kind": "bot", "level": "greedy"}], None)
        await driver.drive(live)
        events = await master.store.events(live.id)
        assert live.game.state.finished and [e.action for e in events[:2]] == ["roll", "roll"]
        # The turn's first throw needs no thought. The first choice (made at seq 1, after it)
        # was dropped; every later one applied at its seq.
        assert thinker.choices[0][0] == 1 and thinker.choices[1][0] == 2
        chosen = dict(thinker.choices[1:])
        # (the others: each turn's first throw, and the last open cell after the last roll)
        unasked = [e for e in events[2:] if e.seq - 1 not in chosen]
        assert all(e.action == "roll" for e in unasked[:-1]) and len(unasked) >= 12
        assert all(chosen[e.seq - 1] == e.action for e in events[2:] if e not in unasked)
        await master.close()

    run(scenario)


def test_a_bot_is_not_asked_when_the_engine_leaves_it_one_action() -> None:
    """A turn's first throw (and any position with a single legal action) is played without
    the thinker: in a server it would be a worker's round trip for nothing."""

    class Asked:
        def __init__(self) -> None:
            self.states: list[GameState] = []

        async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
            self.states.append(state)
            return make_bot("greedy").choose(state)

        def close(self) -> None:
            return None

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(5))
        thinker = Asked()
        driver = BotDriver(master, thinker, delay=0)
        seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("school", {"columns": 1}, seats, None)
        await driver.drive(live)
        events = await master.store.events(live.id)
        assert live.game.state.finished and len(live.game.turns) == 30
        assert all(len(legal_actions(state)) > 1 for state in thinker.states)
        assert all(state.rolls > 0 for state in thinker.states)
        # Every turn's first throw was played, unasked: a roll in each of the 30 turns.
        asked = len(thinker.states)
        assert len(events) - asked >= 30
        await master.close()

    run(scenario)


def test_a_bot_thinks_while_its_delay_runs_and_moves_only_after_it() -> None:
    """The bot is asked at once, not once its delay is over (its thinking is hidden in the
    delay), but its action waits for the delay; a driver that closes meanwhile drops the
    thought (a thinker that has not answered is cancelled) and moves nothing."""

    class Thinker:
        def __init__(self, answers: bool) -> None:
            self.answers = answers
            self.asked = asyncio.Event()
            self.answered = False
            self.cancelled = False

        async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
            self.asked.set()
            try:
                if not self.answers:
                    await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
            self.answered = True
            return make_bot("greedy").choose(state)

        def close(self) -> None:
            return None

    async def scenario(thinker: Thinker) -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(5))
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("school", {"columns": 1}, seats, None)
        while live.game.state.seat == 0:  # Ana's turn
            await master.act(live, 0, str(make_bot("greedy").choose(live.game.state)), live.seq)
        await master.act(live, 1, "roll", live.seq)  # the bot's turn, thrown: one to think on
        seq = live.seq
        driver = BotDriver(master, thinker, delay=3600)
        driver.look(live)
        await asyncio.wait_for(thinker.asked.wait(), timeout=30)
        for _ in range(10):
            await asyncio.sleep(0)
        assert thinker.answered == thinker.answers
        assert live.seq == seq  # thought (or thinking), but waits out its delay
        await driver.close()
        assert live.seq == seq and thinker.cancelled != thinker.answers
        await master.close()

    asyncio.run(scenario(Thinker(answers=True)))
    asyncio.run(scenario(Thinker(answers=False)))


def _compiled_features() -> bool:
    """In a bot worker: whether the School expert's features come from the compiled kernels."""
    import sys

    from dicepoker.bots import school_features

    return school_features._COMPILED[0] and "dicepoker.bots.school_kernels" in sys.modules


def test_bots_think_in_a_worker_process_that_is_replaced_when_it_dies() -> None:
    """A bot's decisions come from a worker process (the School expert's features from the
    compiled kernels there: the server's own process never loads numba for them), and a worker
    that dies is replaced at the next decision."""

    async def scenario() -> None:
        from dicepoker.engine import apply, legal_actions, new_game
        from dicepoker.rules import get_rules
        from dicepoker.server.runtime.work import WorkQueue

        pool = WorkQueue(1)
        try:
            state = new_game(get_rules("school", {"columns": 2}), ["a", "b"])
            dice = SeededDice(7)
            for _ in range(12):  # whole turns: the worker keeps each seat's bot between them
                action = await pool.choose("g", state.seat, "expert", state)
                assert action in legal_actions(state)
                state = apply(state, action, dice)
            assert await pool.run(_compiled_features)
            assert not _compiled_features()
            # A worker that dies between decisions is replaced at the next one.
            first = pool.pool.pids
            for pid in first:
                killed(pool.pool, pid)
            action = await pool.choose("g", state.seat, "greedy", state)
            assert action in legal_actions(state)
            assert not set(pool.pool.pids) & set(first)
        finally:
            pool.close()

    run(scenario)


def test_the_work_queue_answers_chances_and_hints_from_its_first_call() -> None:
    """The chances and the advice are judged in the work queue's workers; a worker loads a
    variant's tables at its first call rather than answering nothing (nobody waits on the event
    loop for it)."""

    async def scenario() -> None:
        from dicepoker.engine import new_game
        from dicepoker.rules import get_rules
        from dicepoker.server.community.analysis import advise
        from dicepoker.server.runtime.work import WorkQueue
        from dicepoker.winprob import win_probability

        pool = WorkQueue(1)
        try:
            state = new_game(get_rules("poker-dice"), ["a", "b"])
            chances = await pool.chances(lambda: (state, (None, "greedy")))
            assert chances == win_probability(state, (None, "greedy"))
            advice = await pool.on_state(advise, state)
            assert advice
            await pool.drained()
            assert pool.pool.waiting() == 0
        finally:
            pool.close()

    run(scenario)


# --- subscribers and other processes ---------------------------------------------------------


def test_a_subscriber_that_falls_behind_is_told_to_resync() -> None:
    async def scenario() -> None:
        master = await _master()
        live, _ = await master.create("yahtzee", {}, [{"kind": "human", "name": "Ana"}], None)
        slow, quick = master.broadcaster.subscribe(live), master.broadcaster.subscribe(live)
        for n in range(QUEUE_SIZE + 1):
            master.broadcaster.send(live, f"message {n}")
            if n < QUEUE_SIZE:
                assert quick.get_nowait() == f"message {n}"
        # The slow one's unread messages were replaced by one resync; it then goes on.
        assert [slow.get_nowait() for _ in range(slow.qsize())] == [RESYNC]
        assert quick.get_nowait() == f"message {QUEUE_SIZE}"
        await master.close()

    run(scenario)


def test_loading_keeps_no_lock_once_done() -> None:
    """A game read from the store by several callers at once is read once, and the master keeps
    nothing of the loading afterwards (a lock a game ever loaded was memory that only grew)."""

    async def scenario() -> None:
        store = MemoryStore()
        first = await _master(store)
        second = await _master(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        loaded = await asyncio.gather(*(second.load(live.id) for _ in range(3)))
        assert loaded[0] is not None and all(other is loaded[0] for other in loaded)
        assert await second.load("no-such-game") is None
        assert len(second._loading) == 0 and second._early == {}
        for master in (first, second):
            await master.close()

    run(scenario)
