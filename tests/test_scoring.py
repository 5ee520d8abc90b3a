"""Every combination of every variant, valued by hand from the rules contract.

Each case is checked twice: on the row's `Combo` with `combo_value` (the one scoring function), and
through the engine (dice thrown with `FixedDice`, read back with `preview`).
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    MoveError,
    apply,
    cell_moves,
    legal_actions,
    new_game,
    parse_action,
    ranking,
    totals,
)
from dicepoker.rules import get_rules
from dicepoker.rules.combos import combo_value, face_counts
from support import (
    POKER_ROWS,
    SCHOOL_COMBOS,
    SCHOOL_ROWS,
    YAHTZEE15_ROWS,
    YAHTZEE_ROWS,
    held_roll,
    previews,
    roll,
    start,
)

Case = tuple[str, tuple[int, int, int, int, int], int | None]

# --- school: a combination scores the dice it uses (None: the dice do not make it) -------------

SCHOOL_CASES: list[Case] = [
    # pair: 2v for the highest pair
    ("pair", (5, 5, 3, 3, 1), 10),  # seed example: the 5s, never the 3s
    ("pair", (2, 2, 4, 4, 4), 8),
    ("pair", (1, 1, 2, 3, 4), 2),
    ("pair", (6, 6, 6, 6, 6), 12),
    ("pair", (1, 2, 3, 4, 6), None),
    # three of a kind: 3v, only the matching dice
    ("three_of_a_kind", (4, 4, 4, 2, 6), 12),  # seed example (trío 12)
    ("three_of_a_kind", (3, 3, 3, 3, 1), 9),
    ("three_of_a_kind", (5, 5, 5, 5, 5), 15),
    ("three_of_a_kind", (3, 3, 3, 5, 5), 9),
    ("three_of_a_kind", (2, 2, 3, 3, 1), None),
    # two pairs: 2a + 2b, two different faces
    ("two_pairs", (5, 5, 3, 3, 1), 16),  # seed example
    ("two_pairs", (3, 3, 3, 5, 5), 16),  # a full house is two pairs
    ("two_pairs", (6, 1, 6, 1, 2), 14),
    ("two_pairs", (4, 4, 4, 4, 2), None),  # four equal dice are not two pairs
    ("two_pairs", (6, 6, 6, 6, 6), None),  # five equal dice are not two pairs
    ("two_pairs", (1, 1, 2, 3, 4), None),
    # full house: three plus two, the sum of the five dice
    ("full_house", (3, 3, 3, 5, 5), 19),  # seed example
    ("full_house", (6, 6, 2, 2, 2), 18),
    ("full_house", (5, 5, 5, 5, 5), None),  # five equal dice are not a full house
    ("full_house", (4, 4, 4, 4, 2), None),
    ("full_house", (2, 2, 3, 3, 1), None),
    # four of a kind: 4v + 20 (five equal qualify)
    ("four_of_a_kind", (6, 6, 6, 6, 2), 44),  # seed example (póker 24 + 20)
    ("four_of_a_kind", (3, 3, 3, 3, 3), 32),
    ("four_of_a_kind", (1, 1, 1, 2, 2), None),
    # five of a kind: 5v + 50
    ("five_of_a_kind", (2, 2, 2, 2, 2), 60),  # seed example (repóker 10 + 50)
    ("five_of_a_kind", (1, 1, 1, 1, 1), 55),
    ("five_of_a_kind", (6, 6, 6, 6, 5), None),
    # straights: exactly 1-2-3-4-5 (15) and 2-3-4-5-6 (20)
    ("small_straight", (1, 2, 3, 4, 5), 15),  # seed example
    ("small_straight", (5, 3, 1, 4, 2), 15),
    ("small_straight", (2, 3, 4, 5, 6), None),
    ("small_straight", (1, 2, 3, 3, 4), None),
    ("small_straight", (1, 2, 3, 4, 4), None),
    ("small_straight", (1, 2, 3, 5, 6), None),
    ("large_straight", (2, 3, 4, 5, 6), 20),  # seed example
    ("large_straight", (6, 5, 4, 3, 2), 20),
    ("large_straight", (1, 2, 3, 4, 5), None),
    ("large_straight", (1, 2, 3, 5, 6), None),
    ("large_straight", (2, 3, 4, 5, 5), None),
    # sum: always, the five dice
    ("sum", (4, 4, 4, 4, 4), 20),  # seed example (suma 20)
    ("sum", (1, 2, 3, 5, 6), 17),
    ("sum", (1, 1, 1, 1, 1), 5),
]

# --- yahtzee (13 rows): standard American scoring; unmade rows score 0 ------------------------

YAHTZEE_CASES: list[Case] = [
    ("ones", (1, 1, 2, 3, 1), 3),
    ("ones", (1, 3, 2, 4, 4), 1),  # seed 003 example 1-3-2-4-4
    ("twos", (1, 1, 2, 3, 1), 2),
    ("threes", (3, 3, 3, 3, 1), 12),
    ("fours", (1, 3, 2, 4, 4), 8),  # seed 003 example
    ("fives", (5, 5, 5, 5, 5), 25),
    ("sixes", (6, 6, 6, 2, 2), 18),
    ("sixes", (1, 2, 3, 4, 5), None),
    ("three_of_a_kind", (3, 3, 3, 5, 6), 20),  # all five dice
    ("three_of_a_kind", (2, 2, 2, 2, 6), 14),
    ("three_of_a_kind", (4, 4, 4, 4, 4), 20),
    ("three_of_a_kind", (1, 1, 2, 2, 3), None),
    ("four_of_a_kind", (5, 5, 5, 5, 1), 21),
    ("four_of_a_kind", (6, 6, 6, 6, 6), 30),
    ("four_of_a_kind", (5, 5, 5, 1, 1), None),
    ("full_house", (2, 2, 2, 3, 3), 25),
    ("full_house", (5, 6, 5, 6, 6), 25),
    ("full_house", (4, 4, 4, 4, 4), None),  # five equal without the Joker: not a full house
    ("full_house", (4, 4, 4, 4, 2), None),
    ("full_house", (1, 1, 2, 2, 3), None),
    ("small_straight", (1, 2, 3, 3, 4), 30),  # duplicate die inside the run
    ("small_straight", (1, 3, 2, 4, 4), 30),  # seed 003 example
    ("small_straight", (2, 3, 4, 5, 5), 30),
    ("small_straight", (6, 1, 3, 4, 5), 30),
    ("small_straight", (1, 2, 3, 4, 5), 30),
    ("small_straight", (2, 3, 4, 5, 6), 30),
    ("small_straight", (1, 2, 3, 5, 6), None),  # false straight
    ("small_straight", (1, 2, 4, 5, 6), None),
    ("small_straight", (1, 1, 3, 4, 5), None),
    ("large_straight", (1, 2, 3, 4, 5), 40),
    ("large_straight", (6, 2, 4, 3, 5), 40),
    ("large_straight", (1, 2, 3, 4, 6), None),
    ("large_straight", (1, 2, 3, 3, 4), None),
    ("large_straight", (1, 2, 3, 5, 6), None),
    ("yahtzee", (3, 3, 3, 3, 3), 50),
    ("yahtzee", (3, 3, 3, 3, 2), None),
    ("chance", (2, 3, 5, 6, 6), 22),
    ("chance", (1, 1, 1, 1, 1), 5),
]

# --- yahtzee15 (15 rows): the same plus pair and two pairs, and the seed 001 examples ---------

YAHTZEE15_CASES: list[Case] = [
    *YAHTZEE_CASES,
    ("pair", (5, 5, 3, 2, 1), 16),  # seed 001 example
    ("pair", (6, 6, 6, 6, 6), 30),
    ("pair", (1, 2, 3, 4, 6), None),
    ("two_pairs", (2, 2, 5, 5, 1), 15),  # seed 001 example
    ("two_pairs", (2, 2, 2, 3, 3), 12),  # a full house counts as two pairs
    ("two_pairs", (4, 4, 4, 4, 1), None),  # four equal are not two pairs
    ("two_pairs", (5, 5, 5, 5, 5), None),  # five equal are one value
    ("two_pairs", (1, 1, 2, 3, 4), None),
    ("three_of_a_kind", (5, 5, 5, 2, 5), 22),  # seed says 21; the dice add up to 22
    ("four_of_a_kind", (1, 1, 1, 1, 3), 7),  # seed 001 example
    ("full_house", (2, 2, 2, 3, 3), 25),  # seed 001 example
    ("small_straight", (2, 3, 4, 5, 5), 30),  # seed 001 example
    ("large_straight", (2, 3, 4, 5, 6), 40),  # seed 001 example
    ("yahtzee", (3, 3, 3, 3, 3), 50),  # seed 001 example
    ("chance", (2, 3, 5, 6, 6), 22),  # seed 001 example
]

# --- poker-dice: faces 1..6 are 9 10 J Q K A; a category scores the dice that form it ----------

POKER_CASES: list[Case] = [
    ("nines", (1, 1, 2, 3, 1), 3),
    ("tens", (2, 3, 4, 5, 3), 1),
    ("jacks", (2, 3, 4, 5, 3), 2),  # seed 002: 10 J Q K and a J, "two points in jacks"
    ("jacks", (3, 3, 3, 3, 4), 4),  # seed 002: four jacks and a queen, "four points"
    ("queens", (4, 4, 1, 2, 3), 2),
    ("kings", (1, 2, 3, 4, 6), None),
    ("kings", (5, 5, 2, 5, 1), 3),
    ("aces", (6, 6, 6, 6, 6), 5),
    ("pair", (4, 4, 1, 2, 3), 2),
    ("pair", (6, 6, 6, 6, 6), 2),  # five equal may be a pair
    ("pair", (1, 2, 3, 4, 6), None),
    ("two_pairs", (3, 3, 5, 5, 1), 4),
    ("two_pairs", (2, 2, 2, 4, 4), 4),  # a full house counts as two pairs
    ("two_pairs", (4, 4, 4, 4, 2), None),
    ("two_pairs", (5, 5, 5, 5, 5), None),
    ("three_of_a_kind", (3, 3, 3, 1, 2), 3),
    ("three_of_a_kind", (3, 3, 3, 3, 2), 3),  # four equal may be three
    ("three_of_a_kind", (2, 2, 2, 2, 2), 3),
    ("three_of_a_kind", (2, 2, 2, 4, 4), 3),  # a full house counts as three
    ("three_of_a_kind", (1, 1, 2, 2, 3), None),
    ("straight", (1, 2, 3, 4, 5), 5),  # 9 10 J Q K
    ("straight", (2, 3, 4, 5, 6), 5),  # 10 J Q K A
    ("straight", (6, 5, 4, 3, 2), 5),
    ("straight", (1, 2, 3, 4, 6), None),  # 9 10 J Q A
    ("straight", (1, 3, 4, 5, 6), None),  # 9 J Q K A
    ("straight", (2, 3, 4, 5, 5), None),
    ("full_house", (3, 3, 3, 6, 6), 5),
    ("full_house", (4, 4, 4, 4, 4), None),  # five equal are not a full house
    ("full_house", (4, 4, 4, 4, 1), None),
    ("four_of_a_kind", (3, 3, 3, 3, 4), 4),  # seed 002: "four points for the poker"
    ("four_of_a_kind", (6, 6, 6, 6, 6), 4),
    ("four_of_a_kind", (3, 3, 3, 4, 4), None),
    ("five_of_a_kind", (5, 5, 5, 5, 5), 5),
    ("five_of_a_kind", (5, 5, 5, 5, 4), None),
]

TABLES: dict[str, tuple[dict[str, object], list[Case], tuple[str, ...]]] = {
    "school": ({}, SCHOOL_CASES, SCHOOL_COMBOS),
    "yahtzee": ({}, YAHTZEE_CASES, YAHTZEE_ROWS),
    "yahtzee-plain": (
        {"upper_bonus": False, "yahtzee_bonus": False},
        YAHTZEE_CASES,
        YAHTZEE_ROWS,
    ),
    "yahtzee15": ({}, YAHTZEE15_CASES, YAHTZEE15_ROWS),
    "poker-dice": ({}, POKER_CASES, POKER_ROWS),
}


def _variant(table: str) -> str:
    return "yahtzee" if table == "yahtzee-plain" else table


def _params() -> list[tuple[str, str, tuple[int, ...], int | None]]:
    return [
        (table, row, dice, value)
        for table, (_, cases, _) in TABLES.items()
        for row, dice, value in cases
    ]


PARAMS = _params()
IDS = [f"{table}-{row}-{''.join(map(str, dice))}" for table, row, dice, _ in PARAMS]


@pytest.mark.parametrize("table", list(TABLES))
def test_every_row_of_the_variant_is_covered(table: str) -> None:
    options, cases, rows = TABLES[table]
    rules = get_rules(_variant(table), options)
    made = {row for row, _, value in cases if value is not None}
    unmade = {row for row, _, value in cases if value is None and row != "sum"}
    if table == "school":
        assert [r.id for r in rules.rows[6:]] == list(rows)
        assert made == set(rows)
        assert unmade == set(rows) - {"sum"}
    else:
        assert [r.id for r in rules.rows] == list(rows)
        assert made == set(rows)


@pytest.mark.parametrize(("table", "row", "dice", "value"), PARAMS, ids=IDS)
def test_combo_value(table: str, row: str, dice: tuple[int, ...], value: int | None) -> None:
    options = TABLES[table][0]
    rules = get_rules(_variant(table), options)
    assert combo_value(rules.row(row).combo, face_counts(dice)) == value


@pytest.mark.parametrize(("table", "row", "dice", "value"), PARAMS, ids=IDS)
def test_value_through_the_engine(
    table: str, row: str, dice: tuple[int, ...], value: int | None
) -> None:
    """The points `preview` shows for `score ROW` with these dice thrown."""
    options = TABLES[table][0]
    variant = _variant(table)
    if variant == "school":
        # A held roll: no doubling.
        state = held_roll(start(variant, 1, **options), dice)
        shown = previews(state)
        if value is None:
            assert f"score {row}" not in shown
            assert f"strike {row}" in shown
            with pytest.raises(MoveError):
                apply(state, parse_action(f"score {row}"))
        else:
            assert shown[f"score {row}"].points == value
            assert shown[f"score {row}"].doubled is False
            assert shown[f"score {row}"].gain == value
        # Thrown with all five dice at once: doubled, extra points included.
        first = roll(start(variant, 1, **options), dice)
        shown = previews(first)
        if value is not None:
            assert shown[f"score {row}"].points == 2 * value
            assert shown[f"score {row}"].doubled is True
        else:
            assert f"score {row}" not in shown
    else:
        state = roll(start(variant, 1, **options), dice)
        shown = previews(state)
        assert shown[f"score {row}"].points == (value or 0)
        # Only `score` in these variants: an unmade row is still playable, for 0.
        assert f"strike {row}" not in shown
        assert f"zero {row}" not in shown
        after = apply(state, parse_action(f"score {row}"))
        filled_cell = after.sheets[0].cell(after.rules, after.rules.row_index[row], 0)
        assert filled_cell is not None
        assert filled_cell.points == (value or 0)


@pytest.mark.parametrize(
    ("variant", "dice", "moves"),
    [
        # 1-2-3-3-4: a small straight in yahtzee only; in school no straight at all.
        ("yahtzee", (1, 2, 3, 3, 4), {"small_straight": 30, "large_straight": 0}),
        ("school", (1, 2, 3, 3, 4), {"small_straight": None, "pair": 6, "sum": 13}),
        # 1-2-3-5-6: no straight anywhere.
        ("yahtzee", (1, 2, 3, 5, 6), {"small_straight": 0, "large_straight": 0, "chance": 17}),
        ("yahtzee15", (1, 2, 3, 5, 6), {"small_straight": 0, "large_straight": 0, "pair": 0}),
        ("poker-dice", (1, 2, 3, 5, 6), {"straight": 0, "pair": 0}),
        # three and four of a kind: all five dice in yahtzee, the matching dice in school.
        ("yahtzee", (3, 3, 3, 3, 6), {"three_of_a_kind": 18, "four_of_a_kind": 18}),
        ("school", (3, 3, 3, 3, 6), {"three_of_a_kind": 9, "four_of_a_kind": 32}),
        # full house counts as two pairs in yahtzee15 and poker-dice.
        ("yahtzee15", (2, 2, 6, 6, 6), {"two_pairs": 22, "full_house": 25, "pair": 22}),
        ("poker-dice", (2, 2, 6, 6, 6), {"two_pairs": 4, "full_house": 5, "pair": 2}),
        # five equal: not a full house (school, yahtzee without Joker), not two pairs.
        ("school", (4, 4, 4, 4, 4), {"full_house": None, "two_pairs": None, "pair": 8}),
        ("yahtzee", (4, 4, 4, 4, 4), {"full_house": 0, "yahtzee": 50, "chance": 20}),
        ("yahtzee15", (4, 4, 4, 4, 4), {"full_house": 0, "two_pairs": 0, "pair": 20}),
        ("poker-dice", (4, 4, 4, 4, 4), {"full_house": 0, "two_pairs": 0, "five_of_a_kind": 5}),
        # four equal dice are not two pairs.
        ("yahtzee15", (4, 4, 4, 4, 1), {"two_pairs": 0, "four_of_a_kind": 17}),
        ("poker-dice", (4, 4, 4, 4, 1), {"two_pairs": 0, "four_of_a_kind": 4}),
    ],
)
def test_classic_cases(variant: str, dice: tuple[int, ...], moves: dict[str, int | None]) -> None:
    state = held_roll(start(variant), dice)
    shown = previews(state)
    for row, value in moves.items():
        if value is None:
            assert f"score {row}" not in shown, row
        else:
            assert shown[f"score {row}"].points == value, row


def test_school_straights_are_exact() -> None:
    rules = get_rules("school")
    small = rules.row("small_straight").combo
    large = rules.row("large_straight").combo
    made_small = []
    made_large = []
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                for d in range(1, 7):
                    for e in range(1, 7):
                        counts = face_counts((a, b, c, d, e))
                        if combo_value(small, counts) is not None:
                            made_small.append(tuple(sorted((a, b, c, d, e))))
                            assert combo_value(small, counts) == 15
                        if combo_value(large, counts) is not None:
                            made_large.append(tuple(sorted((a, b, c, d, e))))
                            assert combo_value(large, counts) == 20
    assert set(made_small) == {(1, 2, 3, 4, 5)}
    assert set(made_large) == {(2, 3, 4, 5, 6)}
    assert len(made_small) == 120
    assert len(made_large) == 120


def test_school_unmade_combination_cannot_be_scored() -> None:
    # 1 2 3 4 6 with an empty reserve: no combination but sum; no School row can be closed
    # (one die of a face needs 2 x face from the reserve, and there are no 5s).
    state = roll(start("school"), (1, 2, 3, 4, 6))
    moves = {str(m) for m in cell_moves(state)}
    assert {m for m in moves if m.startswith("score ")} == {"score sum"}
    assert {m for m in moves if m.startswith("strike ")} == {f"strike {r}" for r in SCHOOL_COMBOS}
    assert {m for m in moves if m.startswith("zero ")} == {f"zero {r}" for r in SCHOOL_ROWS}


# --- every hand: an independent reading of the contract, checked on all 252 hands --------------


def _reference(variant: str, row: str, dice: tuple[int, ...]) -> int | None:
    """The contract's value of `row` for `dice`, written out directly (None: not made)."""
    counts = {face: dice.count(face) for face in range(1, 7)}
    total = sum(dice)
    shape = sorted(c for c in counts.values() if c)
    pairs = [face for face in range(1, 7) if counts[face] >= 2]
    faces = set(dice)
    upper = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    cards = {"nines": 1, "tens": 2, "jacks": 3, "queens": 4, "kings": 5, "aces": 6}
    small_runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
    large = faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})

    def best(at_least: int) -> int | None:
        made = [face for face in range(1, 7) if counts[face] >= at_least]
        return max(made) if made else None

    if variant == "school":
        if row == "pair":
            v = best(2)
            return None if v is None else 2 * v
        if row == "three_of_a_kind":
            v = best(3)
            return None if v is None else 3 * v
        if row == "two_pairs":
            return 2 * pairs[0] + 2 * pairs[1] if len(pairs) == 2 else None
        if row == "full_house":
            return total if shape == [2, 3] else None
        if row == "four_of_a_kind":
            v = best(4)
            return None if v is None else 4 * v + 20
        if row == "five_of_a_kind":
            v = best(5)
            return None if v is None else 5 * v + 50
        if row == "small_straight":
            return 15 if sorted(dice) == [1, 2, 3, 4, 5] else None
        if row == "large_straight":
            return 20 if sorted(dice) == [2, 3, 4, 5, 6] else None
        assert row == "sum"
        return total
    if variant in ("yahtzee", "yahtzee15"):
        if row in upper:
            return upper[row] * counts[upper[row]]
        scores = {
            "pair": total if pairs else 0,
            "two_pairs": total if len(pairs) == 2 else 0,
            "three_of_a_kind": total if best(3) else 0,
            "four_of_a_kind": total if best(4) else 0,
            "full_house": 25 if shape == [2, 3] else 0,
            "small_straight": 30 if any(run <= faces for run in small_runs) else 0,
            "large_straight": 40 if large else 0,
            "yahtzee": 50 if shape == [5] else 0,
            "chance": total,
        }
        return scores[row]
    assert variant == "poker-dice"
    if row in cards:
        return counts[cards[row]]
    scores = {
        "pair": 2 if pairs else 0,
        "two_pairs": 4 if len(pairs) == 2 else 0,
        "three_of_a_kind": 3 if best(3) else 0,
        "straight": 5 if large else 0,
        "full_house": 5 if shape == [2, 3] else 0,
        "four_of_a_kind": 4 if best(4) else 0,
        "five_of_a_kind": 5 if shape == [5] else 0,
    }
    return scores[row]


HANDS = list(combinations_with_replacement(range(1, 7), 5))


@pytest.mark.parametrize(
    ("variant", "rows"),
    [
        ("school", SCHOOL_COMBOS),
        ("yahtzee", YAHTZEE_ROWS),
        ("yahtzee15", YAHTZEE15_ROWS),
        ("poker-dice", POKER_ROWS),
    ],
)
def test_every_hand_matches_the_contract(variant: str, rows: tuple[str, ...]) -> None:
    assert len(HANDS) == 252
    rules = get_rules(variant)
    for dice in HANDS:
        counts = face_counts(dice)
        for row in rows:
            expected = _reference(variant, row, dice)
            value = combo_value(rules.row(row).combo, counts)
            if variant == "school":
                assert value == expected, (row, dice)
            else:
                assert (value or 0) == expected, (row, dice)


@pytest.mark.parametrize("variant", ["school", "yahtzee", "yahtzee15", "poker-dice"])
def test_every_hand_through_the_engine(variant: str) -> None:
    rows = {
        "school": SCHOOL_COMBOS,
        "yahtzee": YAHTZEE_ROWS,
        "yahtzee15": YAHTZEE15_ROWS,
        "poker-dice": POKER_ROWS,
    }[variant]
    fresh = start(variant)
    for dice in HANDS:
        shown = previews(held_roll(fresh, dice))
        for row in rows:
            expected = _reference(variant, row, dice)
            preview_of = shown.get(f"score {row}")
            if expected is None:
                assert preview_of is None, (row, dice)
            else:
                assert preview_of is not None, (row, dice)
                assert preview_of.points == expected, (row, dice)


def test_a_ranking_from_the_totals_given_is_the_same() -> None:
    """`ranking(state, scores)` (a view's, which has each seat's breakdown already) ranks as
    `ranking(state)` does, and reads the totals it is given."""
    rules = get_rules("school")
    state = new_game(rules, ["A", "B", "C"])
    assert [s.seat for s in ranking(state, [1, 3, 2])] == [1, 2, 0]
    dice = SeededDice(5)
    rng = random.Random(5)
    for _ in range(200):
        if state.finished:
            break
        assert ranking(state, totals(state)) == ranking(state)
        state = apply(state, rng.choice(legal_actions(state)), dice)
