"""The terminal client's local games (`LocalSession`): on the web app's game master, in memory,
with its bot driver; refusals in words, bots that fail or are refused reported."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, parse_action
from dicepoker.master import LocalMaster
from dicepoker.record import replay
from dicepoker.rules import get_rules
from dicepoker.tui.session import ActionRefused, LocalSession, Update, parse_seats


async def until(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait for `condition` (polling a condition, not timing)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


def _session(seats: str = "human:Ana,bot:greedy") -> tuple[LocalSession, list[Update]]:
    session = LocalSession.new(
        get_rules("school", {"columns": 1}),
        parse_seats(seats),
        dice=SeededDice(3),
        bot_delay=0,
        bot_seed=1,
    )
    updates: list[Update] = []
    session.subscribe(updates.append)
    return session, updates


def test_a_local_game_runs_on_the_master_with_its_bot_driver() -> None:
    async def scenario() -> None:
        session, updates = _session()
        assert isinstance(session.master, LocalMaster) and session.live.game is session.game
        await session.start()
        assert updates[0] == Update("view") and session.my_turn and not session.dirty
        await session.act("roll")
        assert session.last_action == (0, "roll") and session.dirty
        move = session.view["turn"]["legal"][0]["action"] if session.view else ""
        await session.act(move)
        assert session.seat_to_move == 1 and not session.my_turn
        with pytest.raises(ActionRefused) as refused:
            await session.act("roll")  # the bot's turn
        assert (refused.value.code, refused.value.message) == (
            "not_your_turn",
            "It is not your turn.",
        )
        await until(lambda: session.seat_to_move == 0)  # the bot played its turn
        bot_moves = [u for u in updates if u.kind == "view" and u.seat == 1]
        assert session.last_action is not None
        assert bot_moves and bot_moves[-1].action == session.last_action[1]
        record = await session.record()
        assert replay(record).state == session.state
        assert record["bots"] == [None, "greedy"]
        await session.close()

    asyncio.run(scenario())


def test_refusals_are_words_and_change_nothing() -> None:
    async def scenario() -> None:
        session, updates = _session("human:Ana,human:Bea")
        await session.start()
        before, seen = session.state, len(updates)
        for action, code in [
            ("score pair", "bad_move"),
            ("keep 0 1", "bad_roll"),
            ("fly", "bad_move"),
        ]:
            with pytest.raises(ActionRefused) as refused:
                await session.act(action)
            assert refused.value.code == code and refused.value.message
        assert session.state is before and len(updates) == seen and not session.dirty
        await session.close()

    asyncio.run(scenario())


def test_a_bots_refused_intent_is_reported_and_the_game_waits() -> None:
    class Cheat:
        level = "cheat"

        def choose(self, state: GameState) -> Action:
            return parse_action("score yahtzee")  # no such row in School

    async def scenario() -> None:
        session, updates = _session("bot:greedy,human:Ana")
        session.live.bots[0] = Cheat()  # type: ignore[assignment]
        await session.start()
        await until(lambda: any(u.kind == "error" for u in updates))
        error = next(u for u in updates if u.kind == "error")
        assert error.message.startswith("Greedy 1: ")
        # The turn's first throw was the engine's only action (played without asking the bot);
        # the game waits at the refused one after it.
        assert session.seat_to_move == 0 and session.state.rolls == 1
        await session.close()

    asyncio.run(scenario())


def test_a_saved_game_goes_on_where_it_stopped() -> None:
    async def scenario() -> None:
        first, _ = _session()
        await first.start()
        await first.act("roll")
        record = await first.record()
        await first.close()
        again = LocalSession.load(record, dice=SeededDice(9), bot_delay=0)
        await again.start()
        assert again.state == first.state and again.seats[1].level == "greedy"
        assert again.view is not None and again.view["turn"]["rolls"] == 1
        await again.act(again.view["turn"]["legal"][0]["action"])
        await until(lambda: again.seat_to_move == 0)
        assert replay(await again.record()).state == again.state
        await again.close()

    asyncio.run(scenario())
