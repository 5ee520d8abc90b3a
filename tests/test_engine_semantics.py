"""The engine's rule primitives (`dicepoker.engine.semantics`), against values worked out by hand
from the rules pages (docs/rules/en/*.md): the forced Joker in every situation, the upper bonus
crossing exactly at its threshold, School closings with 0 to 5 dice and various reserves, a
combination cell's points, and the positions of the dice that hold a multiset."""

from __future__ import annotations

import pytest

from dicepoker.engine import (
    Cell,
    Closing,
    Mark,
    Sheet,
    further_yahtzee_bonus,
    joker_applies,
    joker_box,
    joker_points,
    joker_rows,
    joker_tiers,
    positions_of,
    school_closing,
    school_refusal,
    scorable,
    score_cell,
    score_refusal,
    upper_bonus_gain,
    upper_bonus_points,
    upper_rows,
    yahtzee_face,
    zero_penalty,
)
from dicepoker.rules import Rules, get_rules
from dicepoker.rules.combos import face_counts

YAHTZEE = get_rules("yahtzee")
YAHTZEE15 = get_rules("yahtzee15")
SCHOOL = get_rules("school")
POKER = get_rules("poker-dice")


def rows(rules: Rules, *ids: str) -> frozenset[int]:
    return frozenset(rules.row_index[name] for name in ids)


def counts(*dice: int) -> tuple[int, ...]:
    return face_counts(dice)


UPPER_IDS = ("ones", "twos", "threes", "fours", "fives", "sixes")
YAHTZEE_LOWER = (
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)


# --- the forced Joker --------------------------------------------------------------------------


def test_joker_tiers_are_the_matching_upper_box_then_lower_then_upper() -> None:
    """The yahtzee page: the dice must go in the matching upper box if it is empty; if it is
    filled, in any open lower box; if every lower box is filled, 0 in any open upper box."""
    upper = tuple(range(6))
    lower = tuple(range(6, 13))
    for face in range(1, 7):
        assert joker_tiers(YAHTZEE, face) == ((face - 1,), lower, upper)
    lower15 = tuple(range(6, 15))  # pair and two pairs too
    assert joker_tiers(YAHTZEE15, 6) == ((5,), lower15, upper)


@pytest.mark.parametrize(
    ("face", "filled", "allowed"),
    [
        # the matching upper box is open: only there, even with every lower box open
        (4, ("yahtzee",), ("fours",)),
        (1, ("yahtzee", "sixes", "chance"), ("ones",)),
        # the matching box is filled: any open lower box
        (4, ("yahtzee", "fours"), [r for r in YAHTZEE_LOWER if r != "yahtzee"]),
        (
            4,
            ("yahtzee", "fours", "full_house", "chance"),
            ("three_of_a_kind", "four_of_a_kind", "small_straight", "large_straight"),
        ),
        # every lower box filled: any open upper box (where a Yahtzee of another face scores 0)
        (4, ("fours", *YAHTZEE_LOWER), ("ones", "twos", "threes", "fives", "sixes")),
        (2, ("twos", "sixes", *YAHTZEE_LOWER), ("ones", "threes", "fours", "fives")),
        # ... but the matching box comes first even then
        (2, YAHTZEE_LOWER, ("twos",)),
    ],
)
def test_joker_rows_in_every_situation(
    face: int, filled: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    open_rows = [i for i, row in enumerate(YAHTZEE.rows) if row.id not in filled]
    assert joker_rows(YAHTZEE, face, open_rows) == rows(YAHTZEE, *allowed)


def test_joker_rows_of_a_full_sheet_are_none() -> None:
    assert joker_rows(YAHTZEE, 3, []) == frozenset()


def test_joker_applies_once_the_box_is_filled_with_50_or_0() -> None:
    box = YAHTZEE.row_index["yahtzee"]
    assert joker_box(YAHTZEE) == box
    empty = Sheet.empty(YAHTZEE)
    assert not joker_applies(YAHTZEE, empty)
    for points in (50, 0):
        cells = list(empty.cells)
        cells[box] = Cell(Mark.SCORE, points)
        assert joker_applies(YAHTZEE, empty._replace(cells=tuple(cells)))


def test_no_joker_without_the_extra_yahtzee_rule() -> None:
    for rules in (get_rules("yahtzee", {"yahtzee_bonus": False}), POKER, SCHOOL):
        assert joker_box(rules) is None
        assert not joker_applies(rules, Sheet.empty(rules))
        assert further_yahtzee_bonus(rules, Cell(Mark.SCORE, 50)) == 0


def test_further_yahtzee_bonus_only_while_the_box_holds_its_score() -> None:
    """100 while the box holds 50; with a 0 in the box no bonus (the Joker still applies)."""
    assert further_yahtzee_bonus(YAHTZEE, Cell(Mark.SCORE, 50)) == 100
    assert further_yahtzee_bonus(YAHTZEE, Cell(Mark.SCORE, 0)) == 0
    assert further_yahtzee_bonus(YAHTZEE, None) == 0


@pytest.mark.parametrize(
    ("rules", "row", "points"),
    [
        # 4 4 4 4 4 under the Joker (the yahtzee page's example)
        (YAHTZEE, "large_straight", 40),
        (YAHTZEE, "small_straight", 30),
        (YAHTZEE, "full_house", 25),
        (YAHTZEE, "three_of_a_kind", 20),
        (YAHTZEE, "four_of_a_kind", 20),
        (YAHTZEE, "chance", 20),
        (YAHTZEE, "fours", 20),
        (YAHTZEE, "ones", 0),  # 0 in an upper box of another face
        # yahtzee15: pair scores the dice as usual (the sum), two pairs 0
        (YAHTZEE15, "pair", 20),
        (YAHTZEE15, "two_pairs", 0),
        (YAHTZEE15, "full_house", 25),
    ],
)
def test_joker_points(rules: Rules, row: str, points: int) -> None:
    hand = counts(4, 4, 4, 4, 4)
    assert joker_points(rules, rules.row_index[row], hand) == points
    cell = score_cell(rules, rules.row_index[row], hand, thrown_all=True, joker=True)
    assert (cell.points, cell.joker, cell.doubled) == (points, True, False)


def test_without_the_joker_five_equal_dice_are_no_full_house() -> None:
    full_house = YAHTZEE.row_index["full_house"]
    assert score_cell(YAHTZEE, full_house, counts(4, 4, 4, 4, 4), thrown_all=False).points == 0


def test_yahtzee_face() -> None:
    assert yahtzee_face(YAHTZEE, counts(3, 3, 3, 3, 3)) == 3
    assert yahtzee_face(YAHTZEE, counts(6, 6, 6, 6, 6)) == 6
    assert yahtzee_face(YAHTZEE, counts(3, 3, 3, 3, 2)) is None


# --- the upper bonus ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "points", "gain"),
    [
        (60, 3, 35),  # reaches 63 exactly
        (60, 2, 0),  # 62
        (62, 0, 0),
        (0, 63, 35),
        (45, 30, 35),  # past it in one move
        (63, 5, 0),  # already earned
        (70, 0, 0),
    ],
)
def test_upper_bonus_crosses_exactly_at_the_threshold(before: int, points: int, gain: int) -> None:
    """35 once the upper boxes total 63 or more, counted on the move that reaches it."""
    assert upper_bonus_gain(YAHTZEE, before, points) == gain


def test_upper_bonus_points() -> None:
    assert [upper_bonus_points(YAHTZEE, t) for t in (0, 62, 63, 64, 105)] == [0, 0, 35, 35, 35]
    # poker-dice: 3 points at 15 or more
    assert [upper_bonus_points(POKER, t) for t in (14, 15, 30)] == [0, 3, 3]
    assert upper_bonus_gain(POKER, 14, 1) == 3 and upper_bonus_gain(POKER, 12, 2) == 0
    plain = get_rules("yahtzee", {"upper_bonus": False})
    assert upper_bonus_points(plain, 100) == 0 and upper_bonus_gain(plain, 60, 3) == 0


def test_upper_rows_are_the_upper_section() -> None:
    assert upper_rows(YAHTZEE) == tuple(range(6))
    assert [POKER.rows[i].id for i in upper_rows(POKER)] == [
        "nines",
        "tens",
        "jacks",
        "queens",
        "kings",
        "aces",
    ]
    assert [SCHOOL.rows[i].id for i in upper_rows(SCHOOL)] == list(UPPER_IDS)


# --- School closings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "changes"),
    [
        # k = 0..5 dice of the row's face: (k - 3) x face
        ("ones", (-3, -2, -1, 0, 1, 2)),
        ("threes", (-9, -6, -3, 0, 3, 6)),
        ("sixes", (-18, -12, -6, 0, 6, 12)),
    ],
)
def test_school_closing_with_zero_to_five_dice(row: str, changes: tuple[int, ...]) -> None:
    index = SCHOOL.row_index[row]
    for have, change in enumerate(changes):
        assert school_closing(SCHOOL, index, have) == Closing(have, change, have < 3)


@pytest.mark.parametrize(
    ("row", "have", "reserve", "allowed"),
    [
        ("fours", 4, 0, True),  # four 4s: reserve 0 -> 4
        ("threes", 2, 4, True),  # then two 3s: 4 - 3 = 1
        ("fives", 3, 0, True),  # three 5s leave it as it is
        ("ones", 1, 7, True),  # reserve 7 and one 1: 7 - 2 = 5
        ("threes", 1, 1, False),  # reserve 1 and one 3: 1 - 6 < 0
        ("fives", 2, 5, True),  # exactly 0 left
        ("fives", 2, 4, False),
        ("sixes", 1, 12, True),
        ("sixes", 1, 11, False),
        ("twos", 0, 100, False),  # one die at least, whatever the reserve
        ("twos", 5, 0, True),
    ],
)
def test_school_refusal(row: str, have: int, reserve: int, allowed: bool) -> None:
    """The page's examples: k >= 1 and reserve + (k - 3) x n must not be below 0."""
    reason = school_refusal(SCHOOL, SCHOOL.row_index[row], have, reserve)
    assert (reason is None) == allowed
    if not allowed:
        assert reason


def test_school_refusals_say_why() -> None:
    threes = SCHOOL.row_index["threes"]
    assert school_refusal(SCHOOL, threes, 0, 9) == (
        "no die shows 3: closing row threes needs at least one"
    )
    assert school_refusal(SCHOOL, threes, 1, 1) == (
        "the reserve (1) cannot cover 2 missing 3s (6 points)"
    )


def test_zero_penalty() -> None:
    assert zero_penalty(SCHOOL) == 200
    assert zero_penalty(YAHTZEE) == 0


# --- a combination cell ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "dice", "thrown_all", "points", "doubled"),
    [
        ("four_of_a_kind", (6, 6, 6, 6, 2), False, 44, False),
        ("four_of_a_kind", (6, 6, 6, 6, 2), True, 88, True),  # 44 x 2
        ("five_of_a_kind", (1, 1, 1, 1, 1), True, 110, True),  # (5 + 50) x 2
        ("pair", (5, 5, 3, 3, 1), True, 20, True),  # the 5s, doubled
        ("sum", (5, 5, 3, 3, 1), False, 17, False),
        ("pair", (1, 2, 3, 4, 6), True, 0, False),  # not made: 0 is never doubled
    ],
)
def test_score_cell_in_school(
    row: str, dice: tuple[int, ...], thrown_all: bool, points: int, doubled: bool
) -> None:
    cell = score_cell(SCHOOL, SCHOOL.row_index[row], counts(*dice), thrown_all=thrown_all)
    assert cell == Cell(Mark.SCORE, points, doubled)


def test_score_refusal() -> None:
    """School refuses a combination the dice do not make; Yahtzee scores it 0."""
    hand = counts(1, 2, 3, 4, 6)
    reason = score_refusal(SCHOOL, SCHOOL.row_index["pair"], hand)
    assert reason == "the dice do not make pair (strike it instead)"
    assert score_refusal(SCHOOL, SCHOOL.row_index["sum"], hand) is None
    assert score_refusal(YAHTZEE, YAHTZEE.row_index["full_house"], hand) is None
    assert score_cell(YAHTZEE, YAHTZEE.row_index["full_house"], hand, thrown_all=True).points == 0
    # `scorable` (what the legal moves read) says whether, as the refusal does, for every row.
    for rules in (SCHOOL, YAHTZEE):
        for index, row in enumerate(rules.rows):
            if not row.school:
                for dice in ((1, 2, 3, 4, 6), (2, 2, 3, 3, 3), (5, 5, 5, 5, 5)):
                    made = counts(*dice)
                    allowed = score_refusal(rules, index, made) is None
                    assert scorable(rules, index, made) is allowed
    assert not scorable(SCHOOL, SCHOOL.row_index["pair"], hand)


# --- positions of a multiset -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "faces", "positions"),
    [
        ((3, 1, 3, 2, 1), (1, 3), (0, 1)),
        ((3, 1, 3, 2, 1), (3, 1), (0, 1)),  # the multiset's order does not matter
        ((3, 1, 3, 2, 1), (1, 1, 3, 3), (0, 1, 2, 4)),
        ((5, 5, 5, 2, 2), (5, 5), (0, 1)),  # the first dice showing each face
        ((6, 6, 6, 6, 6), (), ()),
    ],
)
def test_positions_of(
    dice: tuple[int, ...], faces: tuple[int, ...], positions: tuple[int, ...]
) -> None:
    assert positions_of(dice, faces) == positions


def test_positions_of_faces_the_dice_do_not_hold() -> None:
    with pytest.raises(ValueError, match="not part of the hand"):
        positions_of((1, 2, 3, 4, 5), (6,))
    with pytest.raises(ValueError, match="not part of the hand"):
        positions_of((1, 2, 3, 4, 5), (1, 1))
