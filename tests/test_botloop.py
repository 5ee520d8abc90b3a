"""The one bot loop's core (dicepoker.master.botloop), driven synchronously: what it decides."""

from __future__ import annotations

import logging

import pytest

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, legal_actions, parse_action
from dicepoker.master import Refusal
from dicepoker.master.botloop import Act, Think, bot_loop, run
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game


class Table:
    """A one-seat game that a test moves as it likes (the seat's bot is to move until the end)."""

    def __init__(self) -> None:
        self.game = Game(get_rules("yahtzee"), ["p"], SeededDice(4))
        self.seq = 0

    @property
    def state(self) -> GameState:
        return self.game.state

    def bot_to_move(self) -> int | None:
        return None if self.game.state.finished else 0

    def play(self, action: Action) -> None:
        self.game.play(action)
        self.seq += 1


def test_a_stale_intent_is_chosen_again_and_a_refusal_ends_the_loop() -> None:
    table = Table()
    refusals = [Refusal("stale", "moved on"), None, Refusal("bad_move", "no")]
    acted: list[tuple[str, int]] = []

    def act(seat: int, action: Action, seq: int) -> Refusal | None:
        acted.append((str(action), seq))
        refused = refusals.pop(0)
        if refused is None:
            table.play(action)
        return refused

    greedy = make_bot("greedy")
    result = run(table, lambda seat, state: greedy.choose(state), act)
    assert result is not None and result.code == "bad_move"
    # The stale intent was chosen again at the same position (seq 0), then the next one at 1.
    assert [seq for _, seq in acted] == [0, 0, 1]
    assert table.seq == 1


def test_a_choice_made_on_a_position_the_game_left_is_dropped() -> None:
    table = Table()
    loop = bot_loop(table)
    step = next(loop)
    assert isinstance(step, Think) and step.state is table.state
    table.play(parse_action("roll"))  # the game moves while the bot thinks
    step = loop.send(parse_action("roll"))
    assert isinstance(step, Think) and step.state is table.state  # asked again, not applied
    step = loop.send(parse_action("keep 0"))
    assert isinstance(step, Act) and (str(step.action), step.seq) == ("keep 0", 1)


def test_a_failing_bot_plays_greedily_and_no_lease_stops_the_loop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    table = Table()
    loop = bot_loop(table, "g1")
    step = next(loop)
    with caplog.at_level(logging.ERROR, logger="dicepoker.master"):
        step = loop.send(RuntimeError("broken"))
    assert isinstance(step, Act) and step.action in legal_actions(table.state)
    assert step.action == make_bot("greedy").choose(table.state)
    assert "greedy plays" in caplog.text and "g1" in caplog.text
    table.play(step.action)
    assert isinstance(loop.send(None), Think)
    with pytest.raises(StopIteration) as stopped:
        loop.send(None)  # the runner lost the game's lease: the loop ends quietly
    assert stopped.value.value is None


def test_simulations_play_through_the_loop_and_raise_a_bots_bug() -> None:
    class Cheat:
        level = "cheat"

        def choose(self, state: GameState) -> Action:
            return parse_action("score yahtzee")

    rules = get_rules("yahtzee")
    seen: list[str] = []
    game = play_game(
        rules, [make_bot("greedy", 1)], SeededDice(2), on_action=lambda s, a: seen.append(a)
    )
    assert game.state.finished and len(seen) == sum(len(t["rolls"]) + 1 for t in game.turns)
    with pytest.raises(Exception, match="roll"):
        play_game(rules, [Cheat()], SeededDice(2))  # type: ignore[list-item]
