"""The `school` preset: reserve, doubling, strikes and zeros, filling order, stars, totals."""

from __future__ import annotations

import random

import pytest

from dicepoker.engine import (
    Bonus,
    GameState,
    Mark,
    Move,
    MoveError,
    apply,
    breakdown,
    new_game,
    parse_action,
    star_status,
    totals,
)
from dicepoker.rules import RulesError, get_rules
from support import (
    SCHOOL_COMBOS,
    SCHOOL_ROWS,
    act,
    cell,
    filled,
    held_roll,
    held_turn,
    move_texts,
    previews,
    random_play,
    reroll,
    roll,
    start,
    turn,
)


def _status(state: GameState, seat: int) -> dict[tuple[str, str | int], tuple[str, int | None]]:
    return {(s.kind, s.key): (s.status, s.value) for s in star_status(state, seat)}


def _refused(state: GameState, text: str) -> MoveError:
    with pytest.raises(MoveError) as info:
        apply(state, parse_action(text))
    assert info.value.reason
    return info.value


# --- the reserve -------------------------------------------------------------------------------


def test_four_fours_note_4_then_two_threes_note_1() -> None:
    state = turn(start("school"), [4, 4, 4, 4, 1], "score fours")
    fours = filled(state, 0, "fours")
    assert fours.mark is Mark.CLOSED
    assert fours.points == 0
    assert fours.note == 4
    assert fours.used_reserve is False
    assert state.sheets[0].reserve == 4
    assert state.sheets[0].note_at == 3 * 3 + 0  # row fours, column 0, 3 columns

    state = turn(state, [3, 3, 1, 2, 5], "score threes")
    threes = filled(state, 0, "threes")
    assert threes.mark is Mark.CLOSED
    assert threes.note == 1
    assert threes.used_reserve is True
    assert state.sheets[0].reserve == 1
    # The newest note is in the threes cell; the 4 stays written but is now the struck one.
    assert state.sheets[0].note_at == 2 * 3 + 0
    assert filled(state, 0, "fours").note == 4
    assert breakdown(state, 0).reserve == 1
    assert totals(state) == (1,)


def test_four_twos_close_the_row_and_add_two() -> None:
    state = roll(start("school"), [2, 2, 2, 2, 5])
    shown = previews(state)["score twos"]
    assert (shown.points, shown.reserve, shown.gain, shown.doubled) == (0, 2, 2, False)
    state = act(state, "score twos")
    twos = filled(state, 0, "twos")
    assert twos.mark is Mark.CLOSED
    assert twos.note == 2
    assert twos.used_reserve is False
    assert state.sheets[0].reserve == 2
    assert totals(state) == (2,)


def test_five_dice_add_two_faces() -> None:
    state = turn(start("school"), [6, 6, 6, 6, 6], "score sixes")
    assert state.sheets[0].reserve == 12
    assert filled(state, 0, "sixes").note == 12


def _reserve_seven() -> GameState:
    """The reserve story of the sheet sketch: twos 2, fours 6, ones 7 (3 columns)."""
    state = turn(start("school"), [2, 2, 2, 2, 3], "score twos")
    state = turn(state, [4, 4, 4, 4, 1], "score fours")
    state = turn(state, [1, 1, 1, 1, 2], "score ones")
    assert state.sheets[0].reserve == 7
    assert [filled(state, 0, r).note for r in ("twos", "fours", "ones")] == [2, 6, 7]
    assert state.sheets[0].note_at == 0
    return state


def test_one_one_with_reserve_seven_spends_two() -> None:
    state = roll(_reserve_seven(), [1, 2, 3, 4, 6])
    shown = previews(state)
    assert shown["score ones"].reserve == 5
    assert shown["score ones"].points == 0
    state = act(state, "score ones")
    second = filled(state, 0, "ones", 1)
    assert second.mark is Mark.CLOSED
    assert second.used_reserve is True
    assert second.note == 5
    assert state.sheets[0].reserve == 5
    assert state.sheets[0].note_at == 0 * 3 + 1


def test_at_least_one_die_is_needed() -> None:
    state = roll(_reserve_seven(), [2, 3, 4, 5, 6])
    assert "score ones" not in move_texts(state)
    _refused(state, "score ones")
    assert "zero ones" in move_texts(state)


def test_reserve_never_below_zero() -> None:
    state = roll(start("school"), [3, 3, 1, 2, 5])
    before = state
    assert "score threes" not in move_texts(state)
    error = _refused(state, "score threes")
    assert "reserve" in error.reason
    assert state == before
    # Reserve 2 cannot pay 3 either.
    state = roll(turn(start("school"), [2, 2, 2, 2, 5], "score twos"), [3, 3, 1, 2, 5])
    _refused(state, "score threes")
    assert "zero threes" in move_texts(state)


def test_reserve_may_reach_exactly_zero() -> None:
    state = turn(start("school"), [3, 3, 3, 3, 1], "score threes")
    assert state.sheets[0].reserve == 3
    state = roll(state, [3, 3, 1, 2, 5])
    assert "score threes" in move_texts(state)
    assert "zero threes" not in move_texts(state)
    _refused(state, "zero threes")
    state = act(state, "score threes")
    assert state.sheets[0].reserve == 0
    assert filled(state, 0, "threes", 1).note == 0
    assert filled(state, 0, "threes", 1).used_reserve is True


def test_zero_only_when_the_row_cannot_be_closed() -> None:
    state = roll(start("school"), [5, 5, 5, 1, 2])
    assert "zero fives" not in move_texts(state)
    _refused(state, "zero fives")
    state = roll(start("school"), [5, 1, 2, 3, 4])
    assert "score fives" not in move_texts(state)
    assert "zero fives" in move_texts(state)
    state = act(state, "zero fives")
    zero = filled(state, 0, "fives")
    assert zero.mark is Mark.ZERO
    assert zero.points == 0


def test_zero_costs_200() -> None:
    state = turn(start("school"), [2, 3, 4, 5, 6], "zero ones")
    parts = breakdown(state, 0)
    assert parts.zeros == 1
    assert parts.zero_penalty == 200
    assert parts.total == -200
    state = turn(state, [1, 1, 1, 1, 2], "score ones")  # column II: reserve 1
    state = turn(state, [2, 3, 4, 5, 6], "zero threes")
    assert breakdown(state, 0).zeros == 2
    assert totals(state) == (1 - 400,)


def test_exactly_three_dice_write_no_note() -> None:
    state = turn(start("school"), [4, 4, 4, 4, 1], "score fours")
    state = turn(state, [5, 5, 5, 1, 2], "score fives")
    fives = filled(state, 0, "fives")
    assert fives.mark is Mark.CLOSED
    assert fives.note is None
    assert fives.used_reserve is False
    assert state.sheets[0].reserve == 4
    assert state.sheets[0].note_at == 3 * 3  # still the fours cell


# --- doubling ----------------------------------------------------------------------------------


def test_first_roll_doubles() -> None:
    state = turn(start("school"), [6, 6, 6, 6, 2], "score four_of_a_kind")
    four = filled(state, 0, "four_of_a_kind")
    assert four.points == 88
    assert four.doubled is True


def test_score_after_a_hold_does_not_double() -> None:
    state = reroll(roll(start("school"), [6, 6, 6, 1, 2]), (0, 1, 2), [6, 2])
    assert state.dice == (6, 6, 6, 6, 2)
    assert previews(state)["score four_of_a_kind"].points == 44
    state = act(state, "score four_of_a_kind")
    four = filled(state, 0, "four_of_a_kind")
    assert four.points == 44
    assert four.doubled is False


def test_later_roll_of_all_five_doubles_again() -> None:
    state = roll(start("school"), [1, 2, 3, 4, 6])
    state = reroll(state, (0,), [1, 2, 3, 4])
    assert state.dice == (1, 1, 2, 3, 4)
    assert previews(state)["score pair"].points == 2  # held: single value
    state = reroll(state, (), [1, 1, 1, 1, 1])
    assert state.rolls == 3
    shown = previews(state)
    assert shown["score five_of_a_kind"].points == 110
    assert shown["score five_of_a_kind"].doubled is True
    state = act(state, "score five_of_a_kind")
    assert filled(state, 0, "five_of_a_kind").points == 110


def test_five_ones_at_once_is_110() -> None:
    state = turn(start("school"), [1, 1, 1, 1, 1], "score five_of_a_kind")
    assert filled(state, 0, "five_of_a_kind").points == 110
    assert totals(state) == (110,)


@pytest.mark.parametrize(
    ("dice", "row", "value"),
    [
        ((1, 2, 3, 5, 6), "sum", 17),
        ((5, 5, 3, 3, 1), "pair", 10),
        ((5, 5, 3, 3, 1), "two_pairs", 16),
        ((3, 3, 3, 5, 5), "full_house", 19),
        ((4, 4, 4, 2, 6), "three_of_a_kind", 12),
        ((1, 2, 3, 4, 5), "small_straight", 15),
        ((2, 3, 4, 5, 6), "large_straight", 20),
        ((2, 2, 2, 2, 2), "five_of_a_kind", 60),
    ],
)
def test_doubling_of_every_combination(dice: tuple[int, ...], row: str, value: int) -> None:
    thrown = previews(roll(start("school"), dice))[f"score {row}"]
    assert (thrown.points, thrown.doubled) == (2 * value, True)
    held = previews(held_roll(start("school"), dice))[f"score {row}"]
    assert (held.points, held.doubled) == (value, False)


def test_school_rows_never_double() -> None:
    state = roll(start("school"), [4, 4, 4, 4, 4])
    assert previews(state)["score fours"].reserve == 8
    state = act(state, "score fours")
    fours = filled(state, 0, "fours")
    assert fours.points == 0
    assert fours.doubled is False
    assert state.sheets[0].reserve == 8
    assert totals(state) == (8,)


# --- strike and zero ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dice", [(1, 2, 3, 4, 6), (6, 6, 6, 6, 6), (1, 2, 3, 4, 5), (3, 3, 3, 5, 5)]
)
def test_strike_is_always_legal_on_combination_rows_and_sum(dice: tuple[int, ...]) -> None:
    state = roll(start("school"), dice)
    moves = move_texts(state)
    for row in SCHOOL_COMBOS:
        assert f"strike {row}" in moves
        after = act(state, f"strike {row}")
        struck = filled(after, 0, row)
        assert struck.mark is Mark.STRIKE
        assert struck.points == 0
        assert breakdown(after, 0).strikes == 1


def test_strike_refused_on_school_rows_and_zero_on_combination_rows() -> None:
    state = roll(start("school"), [1, 2, 3, 4, 6])
    moves = move_texts(state)
    for row in SCHOOL_ROWS:
        assert f"strike {row}" not in moves
        _refused(state, f"strike {row}")
    for row in SCHOOL_COMBOS:
        assert f"zero {row}" not in moves
        _refused(state, f"zero {row}")


def test_strike_needs_a_roll_and_an_empty_cell() -> None:
    state = start("school", columns=1)
    _refused(state, "strike pair")
    state = turn(state, [1, 2, 3, 4, 6], "strike pair")
    state = roll(state, [1, 2, 3, 4, 6])
    assert "strike pair" not in move_texts(state)
    _refused(state, "strike pair")


# --- rows fill from the left -------------------------------------------------------------------


def test_rows_fill_left_to_right() -> None:
    state = start("school")
    state = turn(state, [1, 2, 3, 5, 6], "score sum")
    assert [cell(state, 0, "sum", c) is None for c in range(3)] == [False, True, True]
    state = turn(state, [1, 1, 1, 1, 1], "strike sum")
    assert [cell(state, 0, "sum", c) is None for c in range(3)] == [False, False, True]
    assert filled(state, 0, "sum", 1).mark is Mark.STRIKE
    state = held_turn(state, [6, 6, 6, 6, 6], "score sum")
    assert [filled(state, 0, "sum", c).points for c in range(3)] == [34, 0, 30]
    state = roll(state, [2, 2, 2, 2, 2])
    assert not any(m.endswith(" sum") for m in move_texts(state))
    _refused(state, "score sum")
    _refused(state, "strike sum")


def test_school_row_fills_left_to_right_with_zero_and_close() -> None:
    state = turn(start("school"), [2, 3, 4, 5, 6], "zero ones")
    state = turn(state, [1, 1, 1, 2, 3], "score ones")
    assert filled(state, 0, "ones", 0).mark is Mark.ZERO
    assert filled(state, 0, "ones", 1).mark is Mark.CLOSED
    assert cell(state, 0, "ones", 2) is None


# --- stars -------------------------------------------------------------------------------------


def test_school_row_star_without_reserve() -> None:
    state = turn(start("school", columns=2), [1, 1, 1, 2, 3], "score ones")
    assert state.sheets[0].stars == ()
    state = roll(state, [1, 1, 1, 1, 2])
    assert previews(state)["score ones"].stars == (Bonus("school_row", "ones", 5),)
    state = act(state, "score ones")
    assert state.sheets[0].stars == (Bonus("school_row", "ones", 5),)
    assert breakdown(state, 0).stars == 5
    assert totals(state) == (5 + 1,)
    assert _status(state, 0)[("school_row", "ones")] == ("earned", 5)


def test_school_row_star_lost_when_a_cell_used_the_reserve() -> None:
    state = turn(start("school", columns=2), [4, 4, 4, 4, 1], "score fours")
    state = turn(state, [1, 1, 1, 2, 3], "score ones")
    state = turn(state, [1, 1, 2, 3, 5], "score ones")  # two 1s: 4 - 1 = 3
    assert filled(state, 0, "ones", 1).used_reserve is True
    assert state.sheets[0].stars == ()
    assert _status(state, 0)[("school_row", "ones")] == ("struck", None)
    assert _status(state, 0)[("school_row", "fours")] == ("open", None)


def test_school_row_star_lost_with_a_zero() -> None:
    state = turn(start("school", columns=2), [2, 3, 4, 5, 6], "zero ones")
    assert _status(state, 0)[("school_row", "ones")] == ("struck", None)
    state = turn(state, [1, 1, 1, 1, 1], "score ones")
    assert state.sheets[0].stars == ()


def test_six_school_row_stars_are_five_times_the_face() -> None:
    state = start("school", columns=1)
    for face in range(1, 7):
        other = 1 if face != 1 else 2
        state = turn(state, [face, face, face, other, other], f"score {SCHOOL_ROWS[face - 1]}")
    assert [b.as_list() for b in state.sheets[0].stars] == [
        ["school_row", row, 5 * face] for face, row in enumerate(SCHOOL_ROWS, start=1)
    ]
    assert totals(state) == (105,)


def test_combination_row_star_is_the_best_cell() -> None:
    state = held_turn(start("school"), [6, 6, 6, 6, 2], "score four_of_a_kind")
    state = held_turn(state, [6, 6, 6, 6, 1], "score four_of_a_kind")
    state = turn(state, [2, 6, 6, 6, 6], "score four_of_a_kind")
    assert [filled(state, 0, "four_of_a_kind", c).points for c in range(3)] == [44, 44, 88]
    assert state.sheets[0].stars == (Bonus("combination_row", "four_of_a_kind", 88),)
    parts = breakdown(state, 0)
    assert (parts.cells, parts.stars, parts.total) == (176, 88, 264)


def test_combination_row_star_lost_with_a_strike() -> None:
    state = turn(start("school"), [5, 5, 1, 2, 3], "score pair")
    assert _status(state, 0)[("combination_row", "pair")] == ("open", None)
    state = turn(state, [1, 2, 3, 4, 6], "strike pair")
    assert _status(state, 0)[("combination_row", "pair")] == ("struck", None)
    state = turn(state, [6, 6, 1, 2, 3], "score pair")
    assert state.sheets[0].stars == ()
    assert breakdown(state, 0).total == 20 + 24


def test_sum_has_no_row_star() -> None:
    state = start("school")
    for _ in range(3):
        state = turn(state, [6, 6, 6, 6, 6], "score sum")
    assert state.sheets[0].stars == ()
    assert ("combination_row", "sum") not in _status(state, 0)
    assert totals(state) == (180,)


# A full single column, every score thrown with all five dice (doubled):
# cells 4 + 12 + 28 + 54 + 88 + 30 + 40 + 58 + 110 = 424; School stars 5 + ... + 30 = 105;
# combination row stars (one cell per row) 4 + 12 + 28 + 54 + 88 + 30 + 40 + 110 = 366;
# column star: the best combination or sum, 110. Total 424 + 105 + 366 + 110 = 1005.
COLUMN: list[tuple[tuple[int, ...], str]] = [
    ((1, 1, 1, 2, 3), "score ones"),
    ((2, 2, 2, 1, 3), "score twos"),
    ((3, 3, 3, 1, 2), "score threes"),
    ((4, 4, 4, 1, 2), "score fours"),
    ((5, 5, 5, 1, 2), "score fives"),
    ((6, 6, 6, 1, 2), "score sixes"),
    ((1, 1, 2, 3, 4), "score pair"),
    ((2, 2, 2, 1, 3), "score three_of_a_kind"),
    ((3, 3, 4, 4, 1), "score two_pairs"),
    ((5, 5, 5, 6, 6), "score full_house"),
    ((6, 6, 6, 6, 1), "score four_of_a_kind"),
    ((1, 2, 3, 4, 5), "score small_straight"),
    ((2, 3, 4, 5, 6), "score large_straight"),
    ((6, 6, 6, 6, 5), "score sum"),
    ((1, 1, 1, 1, 1), "score five_of_a_kind"),
]
COLUMN_BONUSES = [
    ["school_row", "ones", 5],
    ["school_row", "twos", 10],
    ["school_row", "threes", 15],
    ["school_row", "fours", 20],
    ["school_row", "fives", 25],
    ["school_row", "sixes", 30],
    ["combination_row", "pair", 4],
    ["combination_row", "three_of_a_kind", 12],
    ["combination_row", "two_pairs", 28],
    ["combination_row", "full_house", 54],
    ["combination_row", "four_of_a_kind", 88],
    ["combination_row", "small_straight", 30],
    ["combination_row", "large_straight", 40],
    ["combination_row", "five_of_a_kind", 110],
    ["column", 0, 110],
]


def _play_column(script: list[tuple[tuple[int, ...], str]], players: int = 1) -> GameState:
    state = start("school", players, columns=1)
    for dice, move in script:
        for _ in range(players):
            state = turn(state, dice, move)
    return state


def test_column_star_and_two_stars_on_one_move() -> None:
    state = _play_column(COLUMN[:-1])
    assert _status(state, 0)[("column", 0)] == ("open", None)
    state = roll(state, [1, 1, 1, 1, 1])
    last = previews(state)["score five_of_a_kind"]
    assert last.points == 110
    # The row star first, then the column star.
    assert last.stars == (
        Bonus("combination_row", "five_of_a_kind", 110),
        Bonus("column", 0, 110),
    )
    assert last.gain == 330
    state = act(state, "score five_of_a_kind")
    assert state.finished
    assert [b.as_list() for b in state.sheets[0].stars] == COLUMN_BONUSES
    parts = breakdown(state, 0)
    assert (parts.cells, parts.stars, parts.reserve, parts.zeros) == (424, 105 + 366 + 110, 0, 0)
    assert totals(state) == (1005,)
    assert all(s.status == "earned" for s in star_status(state, 0))


def test_column_star_may_be_the_sum() -> None:
    script = list(COLUMN)
    # Held (not doubled): four 1s + 20 = 24, five 1s + 50 = 55; the sum thrown at once is 58,
    # the full house 54: the sum is the column's best value.
    script[10] = ((1, 1, 1, 1, 2), "held four_of_a_kind")
    script[14] = ((1, 1, 1, 1, 1), "held five_of_a_kind")
    state = start("school", columns=1)
    for dice, move in script:
        if move.startswith("held "):
            state = held_turn(state, dice, "score " + move.removeprefix("held "))
        else:
            state = turn(state, dice, move)
    assert state.finished
    stars = [b.as_list() for b in state.sheets[0].stars]
    assert stars[-1] == ["column", 0, 58]
    assert ["combination_row", "four_of_a_kind", 24] in stars
    assert ["combination_row", "five_of_a_kind", 55] in stars


def test_column_star_does_not_care_about_the_reserve() -> None:
    script = list(COLUMN)
    # fours first (reserve 4), then ones closed with one 1 (4 - 2 = 2): no ones star.
    script[0], script[3] = ((4, 4, 4, 4, 1), "score fours"), ((1, 2, 3, 5, 6), "score ones")
    state = _play_column(script)
    assert state.sheets[0].reserve == 2
    kinds = [tuple(b.as_list()) for b in state.sheets[0].stars]
    assert ("school_row", "ones", 5) not in kinds
    assert ("column", 0, 110) in kinds
    assert totals(state) == (1005 - 5 + 2,)


def test_column_star_lost_with_a_strike() -> None:
    script = [(d, "strike sum" if m == "score sum" else m) for d, m in COLUMN]
    state = _play_column(script)
    assert state.finished
    assert _status(state, 0)[("column", 0)] == ("struck", None)
    assert [b.kind for b in state.sheets[0].stars].count("column") == 0
    assert totals(state) == (424 - 58 + 105 + 366,)


def test_column_star_lost_with_a_zero() -> None:
    script = [((2, 3, 4, 5, 6), "zero ones"), *COLUMN[1:]]
    state = _play_column(script)
    assert _status(state, 0)[("column", 0)] == ("struck", None)
    assert _status(state, 0)[("school_row", "ones")] == ("struck", None)
    parts = breakdown(state, 0)
    assert (parts.zeros, parts.zero_penalty) == (1, 200)
    assert totals(state) == (424 + 100 + 366 - 200,)


def test_stars_go_to_the_first_player_only() -> None:
    state = _play_column(COLUMN[:1], players=2)
    assert state.sheets[0].stars == (Bonus("school_row", "ones", 5),)
    assert state.sheets[1].stars == ()
    assert _status(state, 0)[("school_row", "ones")] == ("earned", 5)
    assert _status(state, 1)[("school_row", "ones")] == ("struck", None)
    assert _status(state, 1)[("school_row", "twos")] == ("open", None)


def test_second_player_meeting_every_condition_later_gets_nothing() -> None:
    state = _play_column(COLUMN, players=2)
    assert state.finished
    assert [b.as_list() for b in state.sheets[0].stars] == COLUMN_BONUSES
    assert state.sheets[1].stars == ()
    assert totals(state) == (1005, 424)
    assert all(s.status == "struck" for s in star_status(state, 1))
    assert all(s.status == "earned" for s in star_status(state, 0))


def test_star_claimed_by_another_player_is_struck_before_they_try() -> None:
    state = start("school", 2)
    state = held_turn(state, [6, 6, 6, 6, 1], "score four_of_a_kind")
    state = turn(state, [1, 2, 3, 4, 6], "strike sum")
    state = held_turn(state, [6, 6, 6, 6, 2], "score four_of_a_kind")
    state = turn(state, [1, 2, 3, 4, 6], "strike sum")
    state = held_turn(state, [5, 5, 5, 5, 2], "score four_of_a_kind")
    assert state.sheets[0].stars == (Bonus("combination_row", "four_of_a_kind", 44),)
    assert _status(state, 1)[("combination_row", "four_of_a_kind")] == ("struck", None)


def test_star_status_starts_open() -> None:
    state = start("school")
    status = _status(state, 0)
    expected = (
        [("school_row", r) for r in SCHOOL_ROWS]
        + [("combination_row", r) for r in SCHOOL_COMBOS if r != "sum"]
        + [("column", c) for c in range(3)]
    )
    assert sorted(status, key=str) == sorted(expected, key=str)
    assert all(value == ("open", None) for value in status.values())


# --- totals, length, options -------------------------------------------------------------------


def test_total_is_cells_bonuses_reserve_minus_zeros() -> None:
    state = turn(start("school"), [4, 4, 4, 4, 1], "score fours")
    state = turn(state, [1, 2, 4, 5, 6], "zero threes")
    state = turn(state, [6, 6, 6, 6, 2], "score four_of_a_kind")
    state = turn(state, [1, 2, 4, 5, 6], "strike pair")
    parts = breakdown(state, 0)
    assert (parts.cells, parts.stars, parts.reserve) == (88, 0, 4)
    assert (parts.zeros, parts.zero_penalty, parts.strikes) == (1, 200, 1)
    assert parts.upper_bonus == 0
    assert parts.yahtzee_bonus == 0
    assert parts.total == 88 + 4 - 200
    assert totals(state) == (-108,)


@pytest.mark.parametrize(
    ("columns", "players"),
    [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (3, 2), (1, 4), (2, 3)],
)
def test_game_length_is_15_turns_per_column_per_player(columns: int, players: int) -> None:
    state = start("school", players, columns=columns)
    assert state.rules.cells == 15 * columns
    moves = 0
    last = state
    for before, action, after in random_play(state, random.Random(columns * 10 + players)):
        if isinstance(action, Move):
            moves += 1
            assert after.finished == (moves == 15 * columns * players)
        assert not before.finished
        last = after
    assert last.finished
    assert last.turn == 15 * columns * players
    assert all(sheet.is_full(last.rules) for sheet in last.sheets)


@pytest.mark.parametrize("columns", [1, 2, 3, 4, 5, 6])
def test_columns_option(columns: int) -> None:
    rules = get_rules("school", {"columns": columns})
    assert rules.columns == columns
    assert rules.cells == 15 * columns
    assert len(star_status(new_game(rules, ["a"]), 0)) == 14 + columns


def test_columns_default_is_three() -> None:
    assert get_rules("school").columns == 3
    assert get_rules("school", {}).columns == 3


@pytest.mark.parametrize("bad", [0, 7, -1, "3", True, 2.5, None])
def test_columns_option_is_validated(bad: object) -> None:
    with pytest.raises(RulesError):
        get_rules("school", {"columns": bad})


@pytest.mark.parametrize("count", [0, 5])
def test_school_is_for_one_to_four_players(count: int) -> None:
    with pytest.raises(ValueError):
        new_game(get_rules("school"), [f"P{i}" for i in range(count)])


def test_school_unknown_option() -> None:
    with pytest.raises(RulesError):
        get_rules("school", {"rows": 3})
