"""The fast solver against a brute-force expectimax in exact fractions, on reduced games.

The reference knows nothing of the solver: it plays the engine itself (`legal_actions`, `apply`,
the final `breakdown`), throws every positional outcome of the dice not held, and averages in
`Fraction`s. Only the memo key (sheet, sorted dice, rolls) uses the obvious symmetry that the order
of the dice does not matter. The reduced games are built from the rules vocabulary
(`dicepoker.rules.model`) and exercise the upper bonus, the extra-Yahtzee bonus with the forced
Joker (matching upper row, lower rows with Joker points, upper rows for 0), count scoring and a
two-roll turn.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from itertools import product

import pytest

from dicepoker.dice import FixedDice
from dicepoker.engine import (
    Action,
    GameState,
    Roll,
    apply,
    breakdown,
    legal_actions,
    new_game,
)
from dicepoker.rules.model import Combo, ExtraYahtzee, Pattern, Row, Rules, UpperBonus, Value
from dicepoker.solver import Solver

StateValue = Callable[[GameState], Fraction]
ActionValue = Callable[[GameState, Action], Fraction]

# The fast solver works in float64: agreement to this relative tolerance is exact up to rounding.
REL = 1e-12


def upper(row_id: str, face: int, value: Value = Value.MATCHING) -> Row:
    return Row(row_id, Combo(Pattern.FACE, value, n=face), "upper")


def lower(row_id: str, combo: Combo) -> Row:
    return Row(row_id, combo, "lower")


def kind(n: int, value: Value, points: int = 0) -> Combo:
    return Combo(Pattern.OF_A_KIND, value, n=n, points=points)


# Two dice, three faces: a Yahtzee is a pair. Face 2 has no upper row, so a further Yahtzee of 2s
# goes to a lower row (the run scores its Joker 20) or, with the lower rows full, 0 in an upper row.
JOKER_GAME = Rules(
    variant="test-joker",
    options=(),
    rows=(
        upper("ones", 1),
        upper("threes", 3),
        lower("yahtzee", kind(2, Value.FIXED, 50)),
        lower("run", Combo(Pattern.STRAIGHT, Value.FIXED, points=20, runs=((1, 2), (2, 3)))),
        lower("chance", Combo(Pattern.ANY, Value.ALL)),
    ),
    dice=2,
    faces=3,
    face_labels=("1", "2", "3"),
    upper_bonus=UpperBonus(4, 10),
    extra_yahtzee=ExtraYahtzee("yahtzee", 100, (("run", 20),)),
)

# Three dice, four faces, two rolls a turn, poker-dice style count scoring and bonus.
COUNT_GAME = Rules(
    variant="test-count",
    options=(),
    rows=(
        upper("fours", 4, Value.COUNT),
        upper("threes", 3, Value.COUNT),
        lower("pair", kind(2, Value.COUNT)),
        lower("triple", kind(3, Value.COUNT)),
    ),
    dice=3,
    faces=4,
    face_labels=("1", "2", "3", "4"),
    rolls_per_turn=2,
    upper_bonus=UpperBonus(3, 3),
)

# Two six-sided dice: the same keep graph shapes as the real game (six faces).
SIX_GAME = Rules(
    variant="test-six",
    options=(),
    rows=(
        upper("fives", 5),
        lower("yahtzee", kind(2, Value.FIXED, 50)),
        lower("chance", Combo(Pattern.ANY, Value.ALL)),
    ),
    dice=2,
    faces=6,
    upper_bonus=UpperBonus(10, 25),
    extra_yahtzee=ExtraYahtzee("yahtzee", 100, (("chance", 30),)),
)

# The same without any bonus (the extra-Yahtzee rule off, no upper bonus).
PLAIN_GAME = Rules(
    variant="test-plain",
    options=(),
    rows=SIX_GAME.rows,
    dice=2,
    faces=6,
)

GAMES = [JOKER_GAME, COUNT_GAME, SIX_GAME, PLAIN_GAME]


def brute_force(rules: Rules) -> tuple[StateValue, ActionValue]:
    """Exact expected final totals of states and actions, by full enumeration over the engine."""
    memo: dict[object, Fraction] = {}
    faces = rules.faces

    def state_value(state: GameState) -> Fraction:
        if state.finished:
            return Fraction(breakdown(state, 0).total)
        key = (state.sheet, tuple(sorted(state.dice)), state.rolls)
        value = memo.get(key)
        if value is None:
            value = max(action_value(state, action) for action in legal_actions(state))
            memo[key] = value
        return value

    def action_value(state: GameState, action: Action) -> Fraction:
        if not isinstance(action, Roll):
            return state_value(apply(state, action))
        free = [p for p in range(rules.dice) if p not in action.keep]
        total = Fraction(0)
        for thrown in product(range(1, faces + 1), repeat=len(free)):
            dice = list(state.dice) if action.keep else [0] * rules.dice
            for position, face in zip(free, thrown, strict=True):
                dice[position] = face
            key = (state.sheet, tuple(sorted(dice)), state.rolls + 1)
            value = memo.get(key)
            if value is None:
                # The engine's own roll, with these dice.
                value = state_value(apply(state, action, FixedDice(thrown)))
            total += value
        throws: int = faces ** len(free)
        return total / throws

    return state_value, action_value


@pytest.fixture(scope="module")
def references() -> dict[str, tuple[StateValue, ActionValue]]:
    return {rules.variant: brute_force(rules) for rules in GAMES}


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.variant)
def test_start_value_equals_exact_expectimax(
    rules: Rules, references: dict[str, tuple[StateValue, ActionValue]]
) -> None:
    state_value, _ = references[rules.variant]
    exact = state_value(new_game(rules, ["solo"]))
    solver = Solver.for_rules(rules, cache=False)
    assert solver.start_value == pytest.approx(float(exact), rel=REL, abs=0)


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.variant)
def test_action_values_equal_exact_expectimax(
    rules: Rules, references: dict[str, tuple[StateValue, ActionValue]]
) -> None:
    """Every action of every position met in random games, valued exactly and by the solver."""
    _, action_value = references[rules.variant]
    solver = Solver.for_rules(rules, cache=False)
    chooser = random.Random(7)
    checked = 0
    for game in range(12):
        state = new_game(rules, ["solo"])
        dice = random.Random(1000 + game)
        while not state.finished:
            values = solver.action_values(state)
            assert [action for action, _ in values] == list(legal_actions(state))
            for action, value in values:
                exact = action_value(state, action)
                assert value == pytest.approx(float(exact), rel=REL, abs=1e-12), (state, action)
                checked += 1
            best = solver.best_action(state)
            best_value = max(value for _, value in values)
            assert dict(values)[best] == best_value
            # Mostly the solver's choice, sometimes another action, to reach odd positions.
            action = chooser.choice([a for a, _ in values]) if chooser.random() < 0.3 else best
            if isinstance(action, Roll):
                thrown = rules.dice - len(action.keep)
                state = apply(
                    state,
                    action,
                    FixedDice([dice.randint(1, rules.faces) for _ in range(thrown)]),
                )
            else:
                state = apply(state, action)
    assert checked > 100
