"""`yahtzee` and `yahtzee15`: the upper bonus, the plain page, further Yahtzees and the forced
Joker, the 15-row sheet, the number of players."""

from __future__ import annotations

import random

import pytest

from dicepoker.engine import (
    GameState,
    Move,
    MoveError,
    apply,
    breakdown,
    new_game,
    parse_action,
    totals,
)
from dicepoker.rules import get_rules
from support import (
    YAHTZEE15_ROWS,
    YAHTZEE_ROWS,
    Script,
    act,
    filled,
    move_texts,
    play_script,
    previews,
    random_play,
    roll,
    start,
    turn,
)

UPPER_63: Script = [
    ((1, 1, 1, 2, 3), "score ones"),  # 3
    ((2, 2, 2, 1, 3), "score twos"),  # 6
    ((3, 3, 3, 1, 2), "score threes"),  # 9
    ((4, 4, 4, 1, 2), "score fours"),  # 12
    ((5, 5, 5, 1, 2), "score fives"),  # 15
    ((6, 6, 6, 1, 2), "score sixes"),  # 18 -> 63
]


UPPER_62: Script = [((1, 1, 2, 3, 4), "score ones"), *UPPER_63[1:]]  # 2 + 60 = 62


def _refused(state: GameState, text: str) -> None:
    before = state
    with pytest.raises(MoveError) as info:
        apply(state, parse_action(text))
    assert info.value.reason
    assert state == before


@pytest.mark.parametrize("variant", ["yahtzee", "yahtzee15"])
def test_upper_bonus_35_at_exactly_63(variant: str) -> None:
    state = play_script(start(variant), UPPER_63[:-1])
    assert breakdown(state, 0).upper_bonus == 0
    state = play_script(state, UPPER_63[-1:])
    # Counted as soon as it is reached, not at the end of the game.
    assert not state.finished
    parts = breakdown(state, 0)
    assert (parts.cells, parts.upper_bonus, parts.total) == (63, 35, 98)


@pytest.mark.parametrize("variant", ["yahtzee", "yahtzee15"])
def test_no_upper_bonus_at_62(variant: str) -> None:
    state = play_script(start(variant), UPPER_62)
    parts = breakdown(state, 0)
    assert (parts.cells, parts.upper_bonus, parts.total) == (62, 0, 62)


def test_upper_bonus_option_off() -> None:
    state = play_script(start("yahtzee", upper_bonus=False), UPPER_63)
    assert breakdown(state, 0).upper_bonus == 0
    assert totals(state) == (63,)


def test_options_default_on() -> None:
    for variant in ("yahtzee", "yahtzee15"):
        assert get_rules(variant).option_dict == {"upper_bonus": True, "yahtzee_bonus": True}


def test_both_options_off_is_the_plain_page() -> None:
    rules = get_rules("yahtzee", {"upper_bonus": False, "yahtzee_bonus": False})
    assert [row.id for row in rules.rows] == list(YAHTZEE_ROWS)
    assert rules.rolls_per_turn == 3
    state = turn(start("yahtzee", upper_bonus=False, yahtzee_bonus=False), [3] * 5, "score yahtzee")
    state = roll(state, [4] * 5)
    # A second Yahtzee is nothing special: every open row, by its own rule.
    assert move_texts(state) == [f"score {r}" for r in YAHTZEE_ROWS if r != "yahtzee"]
    shown = previews(state)
    assert shown["score full_house"].points == 0
    assert shown["score small_straight"].points == 0
    assert shown["score fours"].points == 20
    assert shown["score chance"].points == 20
    assert shown["score full_house"].joker is False
    state = act(state, "score full_house")
    assert filled(state, 0, "full_house").joker is False
    assert state.sheets[0].jokers == 0
    assert breakdown(state, 0).yahtzee_bonus == 0
    assert totals(state) == (50,)


def test_plain_page_game_is_13_turns() -> None:
    state = start("yahtzee", 2, upper_bonus=False, yahtzee_bonus=False)
    moves = sum(isinstance(action, Move) for _, action, _ in random_play(state, random.Random(3)))
    assert moves == 26


def test_yahtzee_bonus_100_when_the_box_holds_50() -> None:
    state = turn(start("yahtzee"), [2] * 5, "score yahtzee")
    assert filled(state, 0, "yahtzee").points == 50
    state = roll(state, [5] * 5)
    assert move_texts(state) == ["score fives"]  # the matching upper box is the only move
    shown = previews(state)["score fives"]
    assert (shown.points, shown.joker, shown.gain) == (25, True, 125)
    state = act(state, "score fives")
    fives = filled(state, 0, "fives")
    assert (fives.points, fives.joker) == (25, True)
    parts = breakdown(state, 0)
    assert (parts.cells, parts.yahtzee_bonus, parts.total) == (75, 100, 175)
    assert state.sheets[0].jokers == 1


def test_two_further_yahtzees_earn_200() -> None:
    state = turn(start("yahtzee"), [2] * 5, "score yahtzee")
    state = turn(state, [5] * 5, "score fives")
    state = turn(state, [6] * 5, "score sixes")
    assert breakdown(state, 0).yahtzee_bonus == 200
    assert state.sheets[0].jokers == 2
    assert totals(state) == (50 + 25 + 30 + 200,)


def test_no_bonus_but_joker_still_forced_when_the_box_holds_0() -> None:
    state = turn(start("yahtzee"), [1, 2, 3, 4, 6], "score yahtzee")
    assert filled(state, 0, "yahtzee").points == 0
    state = roll(state, [5] * 5)
    assert move_texts(state) == ["score fives"]
    _refused(state, "score chance")
    assert previews(state)["score fives"].gain == 25
    state = act(state, "score fives")
    assert filled(state, 0, "fives").joker is True
    assert breakdown(state, 0).yahtzee_bonus == 0
    assert state.sheets[0].jokers == 1
    assert totals(state) == (25,)


def _joker_lower_position(variant: str, face: int) -> GameState:
    """Yahtzee box 50 and the upper box of `face` filled; then five dice of `face` thrown."""
    upper = ("ones", "twos", "threes", "fours", "fives", "sixes")[face - 1]
    other = 1 if face != 1 else 2
    state = turn(start(variant), [face] * 5, "score yahtzee")
    state = turn(state, [face, face, face, other, other], f"score {upper}")
    return roll(state, [face] * 5)


def test_joker_goes_to_any_open_lower_box_when_the_upper_box_is_full() -> None:
    state = _joker_lower_position("yahtzee", 5)
    lower = [
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "chance",
    ]
    assert move_texts(state) == [f"score {r}" for r in lower]
    shown = previews(state)
    points = {row: shown[f"score {row}"].points for row in lower}
    assert points == {
        "three_of_a_kind": 25,
        "four_of_a_kind": 25,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 25,
    }
    assert all(shown[f"score {row}"].joker for row in lower)
    for row in ("ones", "twos", "threes", "fours", "sixes"):
        _refused(state, f"score {row}")
    _refused(state, "score fives")  # full
    _refused(state, "score yahtzee")  # full
    state = act(state, "score large_straight")
    parts = breakdown(state, 0)
    assert (parts.cells, parts.yahtzee_bonus) == (50 + 15 + 40, 100)
    assert state.sheets[0].jokers == 1


def test_joker_scores_zero_in_an_upper_box_when_the_lower_boxes_are_full() -> None:
    script: Script = [
        ((5, 5, 5, 5, 5), "score yahtzee"),  # 50
        ((5, 5, 5, 1, 2), "score fives"),  # 15
        ((2, 2, 2, 1, 3), "score three_of_a_kind"),  # 10
        ((3, 3, 3, 3, 1), "score four_of_a_kind"),  # 13
        ((2, 2, 3, 3, 3), "score full_house"),  # 25
        ((1, 2, 3, 4, 6), "score small_straight"),  # 30
        ((1, 2, 3, 4, 5), "score large_straight"),  # 40
        ((6, 6, 6, 6, 5), "score chance"),  # 29
    ]
    state = roll(play_script(start("yahtzee"), script), [5] * 5)
    upper = ["ones", "twos", "threes", "fours", "sixes"]
    assert move_texts(state) == [f"score {r}" for r in upper]
    assert {p.points for p in previews(state).values()} == {0}
    state = act(state, "score ones")
    assert filled(state, 0, "ones").points == 0
    parts = breakdown(state, 0)
    assert (parts.cells, parts.yahtzee_bonus) == (50 + 15 + 10 + 13 + 25 + 30 + 40 + 29, 100)
    assert state.sheets[0].jokers == 1


def test_refused_joker_choice_changes_nothing() -> None:
    state = roll(turn(start("yahtzee"), [2] * 5, "score yahtzee"), [5] * 5)
    snapshot = hash(state)
    copy = roll(turn(start("yahtzee"), [2] * 5, "score yahtzee"), [5] * 5)
    for text in ("score chance", "score full_house", "score large_straight", "score sixes"):
        with pytest.raises(MoveError) as info:
            apply(state, parse_action(text))
        assert "Joker" in info.value.reason or "joker" in info.value.reason
    assert state == copy
    assert hash(state) == snapshot
    assert state.sheets[0].jokers == 0


def test_without_yahtzee_bonus_there_is_no_joker() -> None:
    state = turn(start("yahtzee", yahtzee_bonus=False), [2] * 5, "score yahtzee")
    state = roll(state, [5] * 5)
    assert move_texts(state) == [f"score {r}" for r in YAHTZEE_ROWS if r != "yahtzee"]
    shown = previews(state)
    assert shown["score full_house"].points == 0
    assert shown["score large_straight"].points == 0
    assert shown["score chance"].points == 25
    assert not any(p.joker for p in shown.values())
    state = act(state, "score chance")
    assert breakdown(state, 0).yahtzee_bonus == 0
    assert state.sheets[0].jokers == 0
    assert totals(state) == (75,)


def test_first_yahtzee_is_not_a_joker() -> None:
    state = roll(start("yahtzee"), [4] * 5)
    assert move_texts(state) == [f"score {r}" for r in YAHTZEE_ROWS]
    assert not any(p.joker for p in previews(state).values())


def test_yahtzee15_rows_and_length() -> None:
    rules = get_rules("yahtzee15")
    assert [row.id for row in rules.rows] == list(YAHTZEE15_ROWS)
    assert rules.cells == 15
    moves = sum(
        isinstance(action, Move)
        for _, action, _ in random_play(start("yahtzee15"), random.Random(15))
    )
    assert moves == 15


def test_yahtzee15_joker_values() -> None:
    state = _joker_lower_position("yahtzee15", 4)
    lower = [
        "pair",
        "two_pairs",
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "chance",
    ]
    assert move_texts(state) == [f"score {r}" for r in lower]
    shown = previews(state)
    assert {row: shown[f"score {row}"].points for row in lower} == {
        "pair": 20,
        "two_pairs": 0,
        "three_of_a_kind": 20,
        "four_of_a_kind": 20,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 20,
    }
    state = act(state, "score two_pairs")
    assert filled(state, 0, "two_pairs").points == 0
    assert breakdown(state, 0).yahtzee_bonus == 100
    assert state.sheets[0].jokers == 1


@pytest.mark.parametrize("variant", ["yahtzee", "yahtzee15"])
@pytest.mark.parametrize(("count", "ok"), [(1, True), (8, True), (0, False), (9, False)])
def test_yahtzee_players(variant: str, count: int, ok: bool) -> None:
    names = [f"P{i}" for i in range(count)]
    if ok:
        assert len(new_game(get_rules(variant), names).sheets) == count
    else:
        with pytest.raises(ValueError):
            new_game(get_rules(variant), names)
