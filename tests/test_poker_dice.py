"""`poker-dice`: its rows and two rolls, the upper bonus, auto-play, the tie-break game and the
turn clock."""

from __future__ import annotations

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    FORFEIT,
    ROLL,
    GameOverError,
    GameState,
    IllegalActionError,
    Move,
    NotYourTurnError,
    Roll,
    RollError,
    apply,
    autoplay_action,
    breakdown,
    keep,
    legal_actions,
    ranking,
    totals,
)
from dicepoker.rules import get_rules
from dicepoker.view import game_view
from support import (
    POKER_ROWS,
    YAHTZEE_ROWS,
    Script,
    held_roll,
    play_script,
    reroll,
    roll,
    start,
    turn,
)


def test_poker_dice_rows_and_labels() -> None:
    rules = get_rules("poker-dice")
    assert [row.id for row in rules.rows] == list(POKER_ROWS)
    assert rules.face_labels == ("9", "10", "J", "Q", "K", "A")
    assert rules.rolls_per_turn == 2


def test_poker_dice_two_rolls_a_turn() -> None:
    state = roll(start("poker-dice", 2), [1, 2, 3, 4, 6])
    assert any(isinstance(a, Roll) for a in legal_actions(state))
    state = reroll(state, (0, 1), [3, 3, 3])
    assert state.rolls == 2
    assert state.rolls_left == 0
    assert not any(isinstance(a, Roll) for a in legal_actions(state))
    before = state
    for action in (ROLL, keep(0), keep(0, 1, 2, 3)):
        with pytest.raises(RollError):
            apply(state, action, SeededDice(1))
    assert state == before
    assert list(legal_actions(state)) == [Move("score", r) for r in POKER_ROWS]


UPPER_15: Script = [
    ((1, 1, 1, 2, 3), "score nines"),  # 3
    ((2, 2, 2, 1, 3), "score tens"),  # 3
    ((3, 3, 3, 1, 2), "score jacks"),  # 3
    ((4, 4, 1, 2, 3), "score queens"),  # 2
    ((5, 5, 1, 2, 3), "score kings"),  # 2
    ((6, 6, 1, 2, 3), "score aces"),  # 2 -> 15
]


def test_poker_dice_bonus_3_at_15() -> None:
    state = play_script(start("poker-dice"), UPPER_15)
    parts = breakdown(state, 0)
    assert (parts.cells, parts.upper_bonus, parts.total) == (15, 3, 18)


def test_poker_dice_no_bonus_at_14() -> None:
    state = play_script(start("poker-dice"), [*UPPER_15[:-1], ((6, 1, 2, 3, 4), "score aces")])
    parts = breakdown(state, 0)
    assert (parts.cells, parts.upper_bonus, parts.total) == (14, 0, 14)


def test_poker_dice_seed_bonus_example() -> None:
    # "From ace to king": 3, 3, 3, 4, 5, 2 in the six upper categories, 20 points: bonus 3.
    script: Script = [
        ((6, 6, 6, 1, 2), "score aces"),
        ((5, 5, 5, 1, 2), "score kings"),
        ((4, 4, 4, 1, 2), "score queens"),
        ((3, 3, 3, 3, 2), "score jacks"),
        ((2, 2, 2, 2, 2), "score tens"),
        ((1, 1, 2, 3, 4), "score nines"),
    ]
    state = play_script(start("poker-dice"), script)
    assert breakdown(state, 0).upper_bonus == 3
    assert totals(state) == (23,)


def test_autoplay_rolls_first() -> None:
    assert autoplay_action(start("poker-dice", 2)) == ROLL


@pytest.mark.parametrize(
    ("dice", "keep"),
    [
        ((2, 5, 5, 3, 3), (1, 2)),  # two kings beat two jacks
        ((4, 1, 4, 4, 6), (0, 2, 3)),  # the largest group
        ((6, 1, 6, 2, 2), (0, 2)),
        ((1, 2, 3, 4, 6), (4,)),  # all different: keep the ace
        ((3, 3, 3, 3, 1), (0, 1, 2, 3)),
        ((2, 2, 2, 6, 6), (0, 1, 2)),
    ],
)
def test_autoplay_keeps_the_largest_group(dice: tuple[int, ...], keep: tuple[int, ...]) -> None:
    state = roll(start("poker-dice", 2), dice)
    action = autoplay_action(state)
    assert action == Roll(keep)
    assert action in legal_actions(state)


def test_autoplay_five_equal_scores_at_once() -> None:
    state = roll(start("poker-dice", 2), [5] * 5)
    assert autoplay_action(state) == Move("score", "five_of_a_kind")


@pytest.mark.parametrize(
    ("filled_rows", "dice", "expected"),
    [
        ((), (3, 3, 3, 3, 1), "four_of_a_kind"),
        (("four_of_a_kind",), (3, 3, 3, 3, 1), "three_of_a_kind"),
        (("four_of_a_kind", "three_of_a_kind"), (3, 3, 3, 3, 1), "pair"),
        (("four_of_a_kind", "three_of_a_kind", "pair"), (3, 3, 3, 3, 1), "jacks"),
        ((), (2, 2, 2, 6, 6), "three_of_a_kind"),  # not full house: not in the priority list
        ((), (1, 2, 3, 4, 5), "kings"),  # straight is not in the list; all tie: higher face
        ((), (1, 2, 3, 4, 6), "aces"),
        (("aces",), (1, 2, 3, 4, 6), "queens"),
        (("pair",), (2, 2, 3, 4, 5), "tens"),  # most matching dice beats a higher face
        (("pair", "nines", "tens", "jacks", "queens"), (1, 1, 2, 3, 4), "kings"),  # first open
        (
            ("nines", "tens", "jacks", "queens", "kings", "aces", "pair"),
            (1, 1, 2, 3, 4),
            "two_pairs",
        ),
    ],
)
def test_autoplay_scoring_order(
    filled_rows: tuple[str, ...], dice: tuple[int, ...], expected: str
) -> None:
    state = start("poker-dice")
    for row in filled_rows:
        state = turn(state, [1, 2, 3, 4, 6], f"score {row}")
    state = held_roll(state, dice)
    assert state.rolls_left == 0
    action = autoplay_action(state)
    assert action == Move("score", expected)
    assert action in legal_actions(state)


def test_autoplay_plays_whole_games() -> None:
    for seed in range(5):
        dice = SeededDice(seed)
        state = start("poker-dice", 2)
        steps = 0
        while not state.finished:
            action = autoplay_action(state)
            assert action in legal_actions(state)
            state = apply(state, action, dice)
            steps += 1
            assert steps < 1000
        assert state.turn >= 26


def test_autoplay_only_where_the_variant_has_it() -> None:
    with pytest.raises(IllegalActionError):
        autoplay_action(start("yahtzee"))
    with pytest.raises(IllegalActionError):
        autoplay_action(start("school"))


POKER_FULL: Script = [
    ((1, 1, 1, 2, 3), "score nines"),  # 3
    ((2, 2, 2, 1, 3), "score tens"),  # 3
    ((3, 3, 3, 1, 2), "score jacks"),  # 3
    ((4, 4, 4, 1, 2), "score queens"),  # 3
    ((5, 5, 5, 1, 2), "score kings"),  # 3
    ((6, 6, 6, 1, 2), "score aces"),  # 3 -> 18, bonus 3
    ((1, 1, 2, 3, 4), "score pair"),  # 2
    ((1, 1, 2, 2, 3), "score two_pairs"),  # 4
    ((1, 1, 1, 2, 3), "score three_of_a_kind"),  # 3
    ((1, 2, 3, 4, 5), "score straight"),  # 5
    ((1, 1, 1, 2, 2), "score full_house"),  # 5
    ((1, 1, 1, 1, 2), "score four_of_a_kind"),  # 4
    ((1, 1, 1, 1, 1), "score five_of_a_kind"),  # 5
]


POKER_FULL_TOTAL = 18 + 3 + 2 + 4 + 3 + 5 + 5 + 4 + 5  # 49


POKER_WEAK: Script = [*POKER_FULL[:-1], ((1, 1, 1, 1, 2), "score five_of_a_kind")]  # 44


def _rounds(state: GameState, scripts: list[Script]) -> GameState:
    """Play the scripts round by round, one per seat in play order."""
    for step in range(len(scripts[0])):
        for script in scripts:
            dice, move = script[step]
            state = turn(state, dice, move)
    return state


def _tied_two() -> GameState:
    return _rounds(start("poker-dice", 2), [POKER_FULL, POKER_FULL])


def test_tie_starts_a_tiebreak_game() -> None:
    state = _tied_two()
    assert not state.finished
    assert state.stage == 1
    assert state.contenders == (0, 1)
    assert state.seat == 0
    assert all(sheet.filled == 0 for sheet in state.sheets)
    assert totals(state) == (POKER_FULL_TOTAL, POKER_FULL_TOTAL)
    assert legal_actions(state) == (ROLL,)
    tiebreak = game_view(state).tiebreak
    assert tiebreak is not None and tiebreak.game == 1


@pytest.mark.parametrize("winner", [0, 1])
def test_a_round_with_a_leader_ends_the_tiebreak(winner: int) -> None:
    state = _tied_two()
    good = ((1, 1, 1, 1, 1), "score five_of_a_kind")  # 5
    bad = ((1, 2, 3, 4, 6), "score kings")  # 0
    first, second = (good, bad) if winner == 0 else (bad, good)
    state = turn(state, *first)
    assert not state.finished
    assert state.seat == 1
    state = turn(state, *second)
    assert state.finished
    assert state.winner == winner
    # The main totals stand; the tie-break only decides who wins.
    assert totals(state) == (POKER_FULL_TOTAL, POKER_FULL_TOTAL)
    places = ranking(state)
    assert [s.seat for s in places] == [winner, 1 - winner]
    assert [s.place for s in places] == [1, 2]
    assert [s.total for s in places] == [POKER_FULL_TOTAL, POKER_FULL_TOTAL]
    assert game_view(state).winner == winner
    with pytest.raises(GameOverError):
        apply(state, ROLL, SeededDice(0))


def test_a_tied_tiebreak_round_goes_on() -> None:
    state = _tied_two()
    state = turn(state, [1, 1, 1, 1, 1], "score five_of_a_kind")  # 5
    state = turn(state, [2, 2, 2, 2, 2], "score five_of_a_kind")  # 5
    assert not state.finished
    assert (state.stage, state.seat) == (1, 0)
    state = turn(state, [1, 2, 3, 4, 6], "score aces")  # 1
    state = turn(state, [1, 2, 3, 4, 5], "score nines")  # 1
    assert not state.finished
    assert (state.stage, state.seat) == (1, 0)
    state = turn(state, [1, 2, 3, 4, 6], "score kings")  # 0
    assert not state.finished
    state = turn(state, [6, 6, 1, 2, 3], "score aces")  # 2
    assert state.finished
    assert state.winner == 1
    assert [s.seat for s in ranking(state)] == [1, 0]
    assert totals(state) == (POKER_FULL_TOTAL, POKER_FULL_TOTAL)


def test_a_tiebreak_still_tied_when_full_starts_another() -> None:
    state = _rounds(_tied_two(), [POKER_FULL, POKER_FULL])
    assert not state.finished
    assert state.stage == 2
    assert state.contenders == (0, 1)
    assert state.seat == 0
    assert all(sheet.filled == 0 for sheet in state.sheets)
    assert totals(state) == (POKER_FULL_TOTAL, POKER_FULL_TOTAL)


def test_only_the_players_tied_for_first_play_the_tiebreak() -> None:
    state = _rounds(start("poker-dice", 3), [POKER_FULL, POKER_WEAK, POKER_FULL])
    assert totals(state) == (49, 44, 49)
    assert state.stage == 1
    assert state.contenders == (0, 2)
    assert state.seat == 0
    state = turn(state, [1, 2, 3, 4, 6], "score kings")  # 0
    assert state.seat == 2
    with pytest.raises(NotYourTurnError):
        apply(state, ROLL, SeededDice(0), seat=1)
    state = turn(state, [3, 3, 1, 2, 4], "score jacks")  # 2
    assert state.finished
    assert state.winner == 2
    assert totals(state) == (49, 44, 49)
    places = ranking(state)
    assert [s.seat for s in places] == [2, 0, 1]
    assert [s.place for s in places] == [1, 2, 3]


def test_no_tiebreak_for_a_tie_below_first() -> None:
    state = _rounds(start("poker-dice", 3), [POKER_FULL, POKER_WEAK, POKER_WEAK])
    assert state.finished
    assert state.stage == 0
    places = ranking(state)
    assert [s.seat for s in places] == [0, 1, 2]
    assert [s.place for s in places] == [1, 2, 2]


def test_no_tiebreak_in_yahtzee() -> None:
    script: Script = [((1, 2, 3, 4, 6), f"score {row}") for row in YAHTZEE_ROWS]
    state = _rounds(start("yahtzee", 2), [script, script])
    assert state.finished
    assert state.stage == 0
    assert [s.place for s in ranking(state)] == [1, 1]


@pytest.mark.parametrize(
    "state",
    [
        start("poker-dice", 2),
        start("poker-dice", 2, turn_seconds=0),
        start("yahtzee", 2),
        start("school", 2),
    ],
    ids=["poker-dice", "poker-dice-0s", "yahtzee", "school"],
)
def test_forfeit_refused_without_a_clock(state: GameState) -> None:
    before = state
    with pytest.raises(IllegalActionError):
        apply(state, FORFEIT)
    rolled = roll(state, [1, 2, 3, 4, 6])
    with pytest.raises(IllegalActionError):
        apply(rolled, FORFEIT)
    assert state == before


def test_forfeit_with_two_players_loses_the_game() -> None:
    state = start("poker-dice", 2, turn_seconds=60)
    state = turn(state, [1, 1, 1, 1, 1], "score five_of_a_kind")  # P0 leads, 5
    state = turn(state, [1, 2, 3, 4, 6], "score kings")  # P1 0
    state = roll(state, [2, 3, 4, 5, 6])
    state = apply(state, FORFEIT)
    assert state.finished
    assert state.winner == 1
    assert state.forfeited == (0,)
    assert totals(state) == (5, 0)
    places = ranking(state)
    assert [s.seat for s in places] == [1, 0]
    assert places[0].place == 1
    assert places[1].forfeited is True
    assert places[0].forfeited is False
    assert game_view(state).winner == 1
    with pytest.raises(GameOverError):
        apply(state, ROLL, SeededDice(0))


def test_forfeit_with_three_players_skips_the_seat() -> None:
    state = start("poker-dice", 3, turn_seconds=60)
    state = turn(state, *POKER_FULL[0])
    state = apply(roll(state, [1, 2, 3, 4, 6]), FORFEIT, seat=1)
    assert not state.finished
    assert state.forfeited == (1,)
    assert state.seat == 2
    state = turn(state, *POKER_WEAK[0])
    for full, weak in zip(POKER_FULL[1:], POKER_WEAK[1:], strict=True):
        assert state.seat == 0
        with pytest.raises(NotYourTurnError):
            apply(state, ROLL, SeededDice(0), seat=1)
        state = turn(state, *full)
        assert state.seat == 2
        state = turn(state, *weak)
    assert state.finished
    assert state.sheets[1].filled == 0
    assert totals(state) == (49, 0, 44)
    places = ranking(state)
    assert [s.seat for s in places] == [0, 2, 1]
    assert [s.forfeited for s in places] == [False, False, True]
    assert [s.place for s in places] == [1, 2, 3]


def test_forfeited_player_ranks_last_even_when_ahead() -> None:
    state = start("poker-dice", 3, turn_seconds=60)
    state = turn(state, [1, 1, 1, 1, 1], "score five_of_a_kind")  # P0: 5
    state = turn(state, [1, 2, 3, 4, 6], "score kings")  # P1: 0
    state = turn(state, [1, 2, 3, 4, 6], "score kings")  # P2: 0
    state = apply(state, FORFEIT)  # P0 runs out of time
    assert not state.finished
    assert state.seat == 1
    assert ranking(state)[-1].seat == 0


def test_forfeit_during_a_tiebreak_loses_it() -> None:
    state = _rounds(start("poker-dice", 2, turn_seconds=60), [POKER_FULL, POKER_FULL])
    assert state.stage == 1
    state = apply(state, FORFEIT)
    assert state.finished
    assert state.winner == 1
    assert totals(state) == (POKER_FULL_TOTAL, POKER_FULL_TOTAL)
    assert [(s.seat, s.place, s.forfeited) for s in ranking(state)] == [(1, 1, False), (0, 2, True)]
