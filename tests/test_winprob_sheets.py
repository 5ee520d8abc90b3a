"""Win probability of the single-sheet variants (dicepoker.winprob.sheets) and the expert that
plays for it (dicepoker.bots.winseeker): the distributions agree with the solver, the last turn
is exact, and the seeker's values are chances of winning that agree with the forecast."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from dicepoker.bots.expert import seeks_win
from dicepoker.bots.winseeker import WinSeeker
from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import ROLL, GameState, Move, Roll, apply, new_game, ranking
from dicepoker.rules import get_rules
from dicepoker.solver import Solver
from dicepoker.winprob import win_probability
from dicepoker.winprob.sheets import prepare, sheet_distributions

POKER = get_rules("poker-dice", {})


@pytest.fixture(scope="module")
def solver() -> Solver:
    return prepare(POKER)


def play_to(state: GameState, moves: int, seed: int, solver: Solver) -> GameState:
    """`moves` cell moves of the expert from `state`."""
    dice = SeededDice(seed)
    while moves > 0 and not state.finished:
        action = solver.best_action(state)
        state = apply(state, action, dice)
        moves -= isinstance(action, Move)
    return state


def test_each_seat_s_mean_is_its_points_plus_the_solver_s_value(solver: Solver) -> None:
    state = play_to(new_game(POKER, ["A", "B", "C"]), 7, 4, solver)
    state = apply(state, ROLL, SeededDice(9))  # the mover mid-turn
    dists = sheet_distributions(state)
    for seat, dist in enumerate(dists):
        assert dist is not None
        view = state._replace(seat=seat)
        if seat == state.seat:
            expected = solver.value(view)
        else:
            pos = solver.position(view)
            expected = pos.points + solver.state_value(pos.filled, pos.flag, pos.upper)
        assert dist.mean == pytest.approx(expected, abs=1e-6)


def test_the_last_turn_is_exact(solver: Solver) -> None:
    """Both seats have one row left: the chances are those of enumerating every throw."""
    state = play_to(new_game(POKER, ["A", "B"]), len(POKER.rows) * 2 - 1, 11, solver)
    assert state.seat == 1 and state.sheets[1].filled == len(POKER.rows) - 1
    state = apply(state, ROLL, SeededDice(3))
    chances = win_probability(state)
    assert chances is not None
    # Enumerate the mover's last rerolls under the expert's play: every reroll of the dice it
    # drops, as the solver plays them, and its final total against seat 0's (known).
    totals: dict[int, Fraction] = {}
    faces = POKER.faces

    def finish(position: GameState, weight: Fraction) -> None:
        if position.finished or position.seat != 1:
            total = ranking_total(position, 1)
            totals[total] = totals.get(total, Fraction(0)) + weight
            return
        action = solver.best_action(position)
        if isinstance(action, Move):
            finish(apply(position, action, FixedDice(())), weight)
            return
        assert isinstance(action, Roll)
        count = POKER.dice - len(action.keep)
        for throw in itertools.product(range(1, faces + 1), repeat=count):
            after = apply(position, action, FixedDice(throw))
            finish(after, weight / faces**count)

    finish(state, Fraction(1))
    theirs = ranking_total(state, 0)
    win = sum((w for t, w in totals.items() if t > theirs), Fraction(0))
    tie = totals.get(theirs, Fraction(0))
    assert chances[1] == pytest.approx(float(win + tie / 2), abs=1e-9)


def ranking_total(state: GameState, seat: int) -> int:
    return next(s.total for s in ranking(state) if s.seat == seat)


def test_the_seeker_values_options_by_the_chance_they_leave(solver: Solver) -> None:
    seeker = WinSeeker(solver)
    state = play_to(new_game(POKER, ["A", "B"]), 9, 21, solver)
    state = apply(state, ROLL, SeededDice(5))
    assert seeks_win(state)
    values = dict(seeker.action_values(state))
    chances = win_probability(state)
    assert chances is not None
    # The expert's own choice is valued at about the forecast's chance of the mover (both
    # model the rest of the game alike; the forecast plays on for points, the seeker to win).
    best = max(values.values())
    assert best >= values[solver.best_action(state)] - 1e-12
    assert abs(best - chances[state.seat]) < 0.03
    for action, value in values.items():
        if isinstance(action, Move):
            after = win_probability(apply(state, action, FixedDice(())))
            assert after is not None
            assert value == pytest.approx(after[state.seat], abs=0.02), str(action)
    assert not seeks_win(new_game(POKER, ["A"]))


def test_a_keep_s_chances_are_the_average_over_its_reroll(solver: Solver) -> None:
    """Before the rerolled dice land, the chances are the mean of the chances after them (so the
    luck of a roll, what it changes, is zero on average)."""
    from dicepoker.engine import legal_actions
    from dicepoker.winprob import chances_after

    state = apply(play_to(new_game(POKER, ["A", "B"]), 5, 8, solver), ROLL, SeededDice(2))
    keeps = [a for a in legal_actions(state) if isinstance(a, Roll) and len(a.keep) >= 2]
    for action in keeps[:3]:
        before = chances_after(state, action)
        assert before is not None
        count = POKER.dice - len(action.keep)
        mean = np.zeros(2)
        for throw in itertools.product(range(1, POKER.faces + 1), repeat=count):
            after = win_probability(apply(state, action, FixedDice(throw)))
            assert after is not None
            mean += np.array(after) / POKER.faces**count
        assert before == pytest.approx(tuple(mean), abs=1e-9)
    fresh = new_game(POKER, ["A", "B"])
    assert chances_after(fresh, ROLL) == win_probability(fresh)
