"""The planner: its move table against the engine's `preview`, its expectimax against brute force
and against the exact solver, the one dice space."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bot_positions import (
    VARIANTS,
    made_up_position,
    played_position,
    positions,
    throws,
)
from dicepoker.bots import ExpertBot
from dicepoker.bots.expert import planner_for
from dicepoker.bots.planner import (
    FloatArray,
    MoveTable,
    Planner,
    dice_space,
    rule_tables,
    solve_turn,
)
from dicepoker.dice import SeededDice
from dicepoker.engine import (
    GameState,
    Move,
    Roll,
    apply,
    legal_actions,
    new_game,
    positions_of,
    preview,
)
from dicepoker.rules import Rules, get_rules


def assert_gains_match(state: GameState) -> None:
    table = MoveTable.build(state)
    space = rule_tables(state.rules).space
    for o, hand in enumerate(space.hands):
        for doubled in (0, 1):
            probe = state._replace(dice=hand, thrown_all=bool(doubled))
            expected = {p.move: p.gain for p in preview(probe)}
            got = {
                move: float(table.gain[m, o, doubled])
                for m, move in enumerate(table.moves)
                if np.isfinite(table.gain[m, o, doubled])
            }
            assert got == expected, (hand, doubled)


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_gains_equal_the_engine_preview(variant: str, options: dict[str, object]) -> None:
    """Every hand and both doubling flags, on random positions of every variant."""
    for state in positions(variant, options, 6):
        assert_gains_match(state)


def test_made_up_positions_earn_column_and_row_stars() -> None:
    """The made-up School positions do exercise the stars the gains must include."""
    rules = get_rules("school")
    rng = random.Random(7)
    kinds: set[str] = set()
    space = rule_tables(rules).space
    for _ in range(30):
        state = made_up_position(rules, rng)
        for hand in space.hands[::5]:
            for option in preview(state._replace(dice=hand, thrown_all=True)):
                kinds.update(star.kind for star in option.stars)
    assert kinds == {"column", "school_row", "combination_row"}


def test_dice_space() -> None:
    space = dice_space(5, 6)
    assert space.n_hands == 252
    assert len(space.keeps) == 462
    np.testing.assert_allclose(space.trans.sum(axis=1), 1.0)
    hand = space.hand_index[(1, 1, 2, 3, 3)]
    subs = {space.keeps[int(k)] for k in space.subkeeps[hand]}
    assert len(subs) == 3 * 2 * 3 - 1  # every sub-multiset but the whole hand
    assert positions_of((3, 1, 3, 2, 1), (1, 3)) == (0, 1)


def brute_force_keep(state: GameState, keep: tuple[int, ...]) -> float:
    """Throw every positional outcome of the dice not held; take the best cell move (last roll)."""
    best: dict[tuple[tuple[int, ...], bool], float] = {}
    total = 0.0
    for dice in throws(state, keep):
        key = (tuple(sorted(dice)), not keep)
        if key not in best:
            probe = state._replace(dice=tuple(dice), thrown_all=not keep, rolls=state.rolls + 1)
            best[key] = max(option.gain for option in preview(probe))
        total += best[key]
    return float(total / 6 ** (5 - len(keep)))


@pytest.mark.parametrize("variant", ["school", "yahtzee"])
def test_expectimax_against_brute_force(variant: str) -> None:
    """With one roll left, the value of every keep equals the brute-force average."""
    rules = get_rules(variant)
    rng = random.Random(3)
    for _ in range(2):
        state = played_position(rules, 1, rng)
        state = state._replace(rolls=rules.rolls_per_turn - 1)
        plan = solve_turn(MoveTable.build(state), np.zeros((1, 1, 1)), rules.rolls_per_turn - 1)
        space = plan.space
        for size in (0, 2, 4):
            keep = tuple(range(size))
            value = plan.keep_value[1][space.keep_index[tuple(sorted(state.dice[:size]))]]
            assert value == pytest.approx(brute_force_keep(state, keep), abs=1e-9)


class SolverAfter:
    """The exact solver's table as an after-value: the planner must then play like the solver."""

    def __init__(self, rules: Rules) -> None:
        from dicepoker.solver import Solver

        self.solver = Solver.for_rules(rules)

    def after_values(self, table: MoveTable) -> FloatArray:
        state = table.state
        pos = self.solver.position(state)
        spec = self.solver.spec
        rules = state.rules
        out = np.zeros(table.gain.shape)
        for m, r in enumerate(table.rows):
            row = int(r)
            for o in range(table.gain.shape[1]):
                points = int(table.points[m, o, 0])
                flag = pos.flag or int(row == spec.box and points > 0)
                upper = pos.upper
                if spec.upper_cap and rules.rows[row].section == "upper":
                    upper = min(upper + points, spec.upper_cap)
                out[m, o, :] = self.solver.state_value(pos.filled | 1 << row, flag, upper)
        return out


@pytest.mark.parametrize("variant", ["yahtzee", "poker-dice"])
def test_planner_with_the_solver_table_is_the_solver(variant: str) -> None:
    """The expectimax over the solver's own table of between-turn values gives the solver's
    values of every action (an independent implementation of the same turn)."""
    rules = get_rules(variant)
    after = SolverAfter(rules)
    rng = random.Random(11)
    for _ in range(3):
        state = played_position(rules, 1, rng)
        state = state._replace(rolls=1)
        planner = Planner(after)
        plan = planner.plan(state)
        space = plan.space
        hand = space.hand_index[tuple(sorted(state.dice))]
        points = after.solver.position(state).points
        left = rules.rolls_per_turn - 1
        for action, value in after.solver.action_values(state):
            if isinstance(action, Roll):
                keep = tuple(sorted(state.dice[p] for p in action.keep))
                mine = plan.keep_value[left][space.keep_index[keep]]
            else:
                assert isinstance(action, Move)
                m = plan.table.moves.index(action)
                mine = plan.table.gain[m, hand, 0] + after.after_values(plan.table)[m, hand, 0]
            assert points + mine == pytest.approx(value, rel=1e-9, abs=1e-6)


def test_nothing_follows_a_players_last_cell() -> None:
    rules = get_rules("school", {"columns": 1})
    planner = planner_for(rules)
    state, dice = new_game(rules, ["a"]), SeededDice(3)
    bot = ExpertBot()
    while rules.cells - state.sheet.filled > 1:
        state = apply(state, bot.choose(state), dice)
    state = apply(state, Roll(), dice)
    for move in legal_actions(state):
        if isinstance(move, Move):
            assert planner.next_turn_value(state, move) == 0.0
