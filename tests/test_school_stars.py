"""The `school` variant's first-player stars: School rows, combination rows and columns, what
breaks them, and who gets them."""

from __future__ import annotations

from dicepoker.engine import (
    Bonus,
    GameState,
    breakdown,
    star_status,
    totals,
)
from support import (
    SCHOOL_COMBOS,
    SCHOOL_ROWS,
    act,
    filled,
    held_turn,
    previews,
    roll,
    start,
    turn,
)


def _status(state: GameState, seat: int) -> dict[tuple[str, str | int], tuple[str, int | None]]:
    return {(s.kind, s.key): (s.status, s.value) for s in star_status(state, seat)}


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
