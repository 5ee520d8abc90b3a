"""Helpers shared by the test modules: build positions with exact dice, read cells, check parts.

Expected values in the tests are worked out by hand from the rules contract (our own words of it:
docs/rules/ and docs/record.md); these helpers only drive the engine, they never compute scores.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path

from dicepoker.dice import DiceSource, FixedDice, SeededDice
from dicepoker.engine import (
    FORFEIT,
    ROLL,
    Action,
    Cell,
    GameState,
    Mark,
    Move,
    MovePreview,
    Roll,
    apply,
    breakdown,
    cell_moves,
    keep,
    legal_actions,
    new_game,
    parse_action,
    preview,
)
from dicepoker.rules import Rules, get_rules

REPO = Path(__file__).resolve().parents[1]
# The project's own copies of the rules contract's example records, with their expected results.
LOCAL_EXAMPLES = Path(__file__).resolve().parent / "golden" / "spec_examples"

# (variant, options) pairs that cover every variant and the option switches that change the rules.
VARIANT_CASES: list[tuple[str, dict[str, object]]] = [
    ("school", {}),
    ("school", {"columns": 1}),
    ("yahtzee", {}),
    ("yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}),
    ("yahtzee15", {}),
    ("poker-dice", {}),
]

SCHOOL_ROWS = ("ones", "twos", "threes", "fours", "fives", "sixes")
SCHOOL_COMBOS = (
    "pair",
    "three_of_a_kind",
    "two_pairs",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
    "small_straight",
    "large_straight",
    "sum",
)
YAHTZEE_ROWS = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
YAHTZEE15_ROWS = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
POKER_ROWS = (
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
    "aces",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "straight",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
)


def case_id(case: tuple[str, dict[str, object]]) -> str:
    name, options = case
    if not options:
        return name
    return name + "[" + ",".join(f"{k}={v}" for k, v in options.items()) + "]"


def start(name: str, players: int = 1, **options: object) -> GameState:
    """A fresh game of variant `name` for `players` players named P0, P1, ..."""
    return new_game(get_rules(name, options), [f"P{i}" for i in range(players)])


def roll(state: GameState, dice: Sequence[int]) -> GameState:
    """The first roll of the turn (all five dice), showing exactly `dice`."""
    return apply(state, ROLL, FixedDice(dice))


def reroll(state: GameState, kept: Sequence[int], fresh: Sequence[int]) -> GameState:
    """A later roll keeping `kept`; the thrown dice show `fresh` (in position order)."""
    action = keep(*kept) if kept else ROLL
    return apply(state, action, FixedDice(fresh))


def held_roll(state: GameState, dice: Sequence[int]) -> GameState:
    """Reach `dice` on a second roll that held dice 0..3 (so a School score does not double).

    The first roll shows `dice` with die 4 changed; the second throws only die 4.
    """
    first = [*dice[:4], 1 if dice[4] != 1 else 2]
    return reroll(roll(state, first), (0, 1, 2, 3), [dice[4]])


def act(state: GameState, text: str) -> GameState:
    """Apply an action given in notation (moves only: rolls need dice)."""
    return apply(state, parse_action(text))


def turn(state: GameState, dice: Sequence[int], move: str) -> GameState:
    """A whole one-roll turn: throw `dice`, then play `move`."""
    return act(roll(state, dice), move)


#: Turns to play: the dice of each turn's only roll and the move that ends it.
Script = list[tuple[tuple[int, ...], str]]


def play_script(state: GameState, script: Script) -> GameState:
    """Play `script`'s turns in order (each a single roll and its move)."""
    for dice, move in script:
        state = turn(state, dice, move)
    return state


def held_turn(state: GameState, dice: Sequence[int], move: str) -> GameState:
    """A whole turn reaching `dice` with a held roll (no School doubling), then `move`."""
    return act(held_roll(state, dice), move)


def cell(state: GameState, seat: int, row: str, column: int = 0) -> Cell | None:
    rules = state.rules
    return state.sheets[seat].cell(rules, rules.row_index[row], column)


def filled(state: GameState, seat: int, row: str, column: int = 0) -> Cell:
    found = cell(state, seat, row, column)
    assert found is not None, f"{row}[{column}] of seat {seat} is empty"
    return found


def previews(state: GameState) -> dict[str, MovePreview]:
    """`preview` keyed by the move's notation."""
    return {str(p.move): p for p in preview(state)}


def move_texts(state: GameState) -> list[str]:
    return [str(m) for m in cell_moves(state)]


def all_rolls(dice: int = 5) -> list[Roll]:
    """ROLL and every hold of 1..dice-1 positions: what a player may do while rolls remain."""
    out = [ROLL]
    for size in range(1, dice):
        out.extend(Roll(keep) for keep in combinations(range(dice), size))
    return out


def action_universe(rules: Rules) -> list[Action]:
    """A wide set of well-formed actions, legal or not, for refusal checks."""
    actions: list[Action] = []
    positions = range(-1, rules.dice + 1)
    for size in range(rules.dice + 2):
        actions.extend(Roll(keep) for keep in combinations(positions, size))
    for row in [*(r.id for r in rules.rows), "no_such_row"]:
        actions.extend(Move(verb, row) for verb in ("score", "strike", "zero"))
    actions.append(FORFEIT)
    return actions


def expected_total(state: GameState, seat: int) -> int:
    """A seat's total recomputed from its main-game sheet, independently of `Breakdown.total`.

    cells + stars + upper bonus + yahtzee bonus + reserve - penalty per zero.
    """
    rules = state.rules
    sheet = state.final_sheets[seat]
    cells = [c for c in sheet.cells if c is not None]
    points = sum(c.points for c in cells)
    zeros = sum(1 for c in cells if c.mark is Mark.ZERO)
    upper = 0
    if rules.upper_bonus is not None:
        upper_sum = 0
        for index, row in enumerate(rules.rows):
            if row.section == "upper":
                upper_sum += sum(c.points for c in sheet.row_cells(rules, index) if c is not None)
        upper = rules.upper_bonus.points if upper_sum >= rules.upper_bonus.threshold else 0
    penalty = 200 * zeros if rules.variant == "school" else 0
    stars = sum(b.value for b in sheet.stars)
    return points + stars + upper + sheet.yahtzee_bonus + sheet.reserve - penalty


def check_parts(state: GameState) -> None:
    """Every seat's breakdown adds up, and agrees with a hand recomputation from the sheet."""
    for seat in range(len(state.players)):
        parts = breakdown(state, seat)
        assert parts.total == (
            parts.cells
            + parts.stars
            + parts.upper_bonus
            + parts.yahtzee_bonus
            + parts.reserve
            - parts.zero_penalty
        )
        assert parts.total == expected_total(state, seat)
        if state.rules.variant == "school":
            assert parts.zero_penalty == 200 * parts.zeros
        assert parts.reserve >= 0


def check_sheet_shape(state: GameState) -> None:
    """Rows fill from the left and the fill counters agree with the cells."""
    rules = state.rules
    for sheet in state.sheets:
        assert sheet.filled == sum(1 for c in sheet.cells if c is not None)
        for index in range(len(rules.rows)):
            row = sheet.row_cells(rules, index)
            count = sum(1 for c in row if c is not None)
            assert all(c is not None for c in row[:count])
            assert all(c is None for c in row[count:])
            assert sheet.row_fill[index] == count


def random_play(
    state: GameState,
    rng: random.Random,
    dice_source: DiceSource | None = None,
    *,
    max_steps: int = 100_000,
) -> Iterable[tuple[GameState, Action, GameState]]:
    """Play random legal actions to the end, yielding (before, action, after) for each one."""
    dice = dice_source or SeededDice(rng.randrange(2**32))
    for _ in range(max_steps):
        if state.finished:
            return
        actions = legal_actions(state)
        action = rng.choice(actions)
        after = apply(state, action, dice)
        yield state, action, after
        state = after
    raise AssertionError("the game did not end")
