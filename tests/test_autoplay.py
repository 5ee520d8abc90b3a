"""Auto-play chooses among the moves the engine allows (dicepoker.engine.autoplay): in every
variant, with any priority, it takes only legal actions, and beside the forced Joker of a further
Yahtzee it follows the Joker instead of its priority. (Its choices in poker-dice, the variant that
ships it, are in tests/test_poker_dice.py.)"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import (
    ROLL,
    Action,
    GameState,
    IllegalActionError,
    Move,
    apply,
    autoplay_action,
    legal_actions,
    new_game,
)
from dicepoker.rules import Rules, get_rules
from dicepoker.rules.model import AutoPlay
from support import VARIANT_CASES, case_id

#: Every variant and option switch, School with one column and with six.
CASES: list[tuple[str, dict[str, Any]]] = [
    *VARIANT_CASES,
    ("school", {"columns": 6}),
    ("poker-dice", {"turn_seconds": 60}),
]


def with_autoplay(rules: Rules, *priority: str) -> Rules:
    """`rules` with auto-play by `priority` (fresh lookups: the engine's tables read the rule)."""
    return replace(rules, autoplay=AutoPlay(priority), row_index={}, memo={})


def thrown(state: GameState, dice: tuple[int, ...], action: Action = ROLL) -> GameState:
    return apply(state, action, FixedDice(dice))


#: Yahtzee with auto-play that prefers the lower rows: a further Yahtzee of fives must go to the
#: fives while they are open (the forced Joker), whatever the priority says.
JOKER_RULES = with_autoplay(get_rules("yahtzee"), "yahtzee", "four_of_a_kind", "three_of_a_kind")
FIVES = (5, 5, 5, 5, 5)


def further_yahtzee(*filled: str) -> GameState:
    """A one-player game whose Yahtzee box holds a Yahtzee of fives, the rows `filled` scored
    after it, and a further Yahtzee of fives just thrown."""
    moves = Move("score", "yahtzee"), *(Move("score", row) for row in filled)
    game = new_game(JOKER_RULES, ["Ana"])
    for move in moves:
        game = apply(thrown(game, FIVES), move)
    return thrown(game, FIVES)


def test_a_further_yahtzee_goes_where_the_forced_joker_sends_it() -> None:
    state = further_yahtzee()
    # The priority's first open row that the dice make is one the Joker refuses here.
    with pytest.raises(IllegalActionError, match="forced Joker"):
        apply(state, Move("score", "four_of_a_kind"))
    action = autoplay_action(state)
    assert action == Move("score", "fives")
    assert action in legal_actions(state)
    after = apply(state, action)
    assert after.sheets[0].cell(JOKER_RULES, JOKER_RULES.row_index["fives"], 0) is not None


def test_under_the_joker_the_priority_still_chooses_among_the_rows_it_allows() -> None:
    """With the fives filled the Joker allows every open lower row: the priority's first."""
    state = further_yahtzee("fives")
    action = autoplay_action(state)
    assert action == Move("score", "four_of_a_kind")
    assert action in legal_actions(state)


@pytest.mark.parametrize("case", CASES, ids=[case_id(case) for case in CASES])
def test_auto_play_alone_ends_every_variants_game(case: tuple[str, dict[str, Any]]) -> None:
    """Every turn played by auto-play (a priority of every row, the sheet's order), to the end."""
    name, options = case
    base = get_rules(name, options)
    rules = with_autoplay(base, *(row.id for row in base.rows))
    for seed in range(3):
        dice = SeededDice(seed)
        state = new_game(rules, [f"P{n}" for n in range(rules.min_players)])
        for _ in range(10 * rules.cells * (rules.rolls_per_turn + 1)):
            if state.finished:
                break
            action = autoplay_action(state)
            assert action in legal_actions(state), (str(action), state.dice)
            state = apply(state, action, dice)
        assert state.finished


class DrawnDice:
    """Dice whose faces hypothesis chooses (it likes equal faces: further Yahtzees come often)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        drawn = st.lists(st.integers(1, faces), min_size=count, max_size=count)
        return tuple(self.data.draw(drawn, label="dice"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), players=st.integers(1, 2), data=st.data())
def test_auto_plays_choice_is_legal_in_any_position(
    case: tuple[str, dict[str, Any]], players: int, data: st.DataObject
) -> None:
    """Positions reached by random legal actions and auto-play's own, with any priority: auto-
    play's choice is one of the engine's legal actions in each."""
    name, options = case
    base = get_rules(name, options)
    ids = [row.id for row in base.rows]
    priority = data.draw(st.lists(st.sampled_from(ids), min_size=1, unique=True), label="priority")
    rules = with_autoplay(base, *priority)
    count = max(rules.min_players, min(players, rules.max_players))
    state = new_game(rules, [f"P{n}" for n in range(count)])
    dice = DrawnDice(data)
    for _ in range(data.draw(st.integers(0, 120), label="actions")):
        if state.finished:
            break
        action = autoplay_action(state)
        legal = legal_actions(state)
        assert action in legal, (str(action), state.dice, [str(a) for a in legal])
        if not data.draw(st.booleans(), label="auto-play's own"):
            action = data.draw(st.sampled_from(legal), label="another legal action")
        state = apply(state, action, dice)
