"""The `school` variant: the reserve, doubling, strikes and zeros, filling order, totals and
options (its stars: test_school_stars.py)."""

from __future__ import annotations

import random

import pytest

from dicepoker.engine import (
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


def _refused(state: GameState, text: str) -> MoveError:
    with pytest.raises(MoveError) as info:
        apply(state, parse_action(text))
    assert info.value.reason
    return info.value


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
