"""The expert of the single-sheet variants in games with rivals: it plays for its chance of
finishing first, not for its expected score.

Its own sheet is the only thing a player controls, and the rivals' sheets are independent of it,
so the rivals' final totals have one distribution during the whole of its turn
(`dicepoker.winprob.sheets`: each rival between turns, how its next turn ends exactly, then the
mean and spread of the rest from the solver's tables). That gives a `WinCurve`: the share of
first place a final total x brings. The mover then runs the same within-turn expectimax as the
solver (the keep graph of `solver/dice.py`: a roll averages over the faces, a choice takes the
best), with the chance of winning in place of points at the leaves: filling row c with outcome o
gains g and leaves the state s', whose own final points are the distribution of `sheets`
(exact next turn, then normal), so the leaf is E[W(points + g + R(s'))]. Where the chance cannot
tell two options apart (a game already won or lost), the expected score decides.

Pawlewicz (2011) showed that near-optimal multi-player Yahtzee needs the distribution of the
final score, not its mean; this is that idea with the distribution the solver gives exactly for
one turn ahead and approximately beyond.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from dicepoker.engine import ROLL, Action, GameState, Move, Roll, legal_actions
from dicepoker.solver import kernels
from dicepoker.solver.dice import FloatArray, IntArray
from dicepoker.winprob.mixture import ScoreDistribution, WinCurve
from dicepoker.winprob.sheets import between_turns, sheet_distributions

if TYPE_CHECKING:
    from dicepoker.solver import Solver

#: Weight of the expected final score beside the chance of winning: only ever decides between
#: options whose chances are equal to a millionth.
POINTS_WEIGHT = 1e-9
_KEEP_PMFS = 4096


@kernels.jit
def all_moves(
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    gains: IntArray,
    flags: IntArray,
    uppers: IntArray,
    values: FloatArray,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    n_outcomes: int,
    n_rows: int,
) -> None:
    """For every outcome o and row c: the gain, the next flag and upper total, and the value
    (points now + expected points after) of filling c with o; -inf where the rules forbid it."""
    for o in range(n_outcomes):
        allowed, jok = kernels.allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
        for c in range(n_rows):
            if ((allowed >> c) & 1) == 0:
                values[o, c] = -np.inf
                gains[o, c] = 0
                flags[o, c] = flag
                uppers[o, c] = upper
                continue
            val, gain, nflag, nupper = kernels.move_value(
                table,
                mask,
                flag,
                upper,
                c,
                o,
                jok,
                score,
                joker_score,
                is_upper,
                box,
                box_pays,
                joker_bonus,
                upper_cap,
                upper_gain,
                upper_next,
            )
            values[o, c] = val
            gains[o, c] = gain
            flags[o, c] = nflag
            uppers[o, c] = nupper


class TurnPlan:
    """The mover's turn valued by its chance of winning: `leaf[o, c]` for every cell move and
    `levels[r, keep]` as in `kernels.turn_levels`."""

    def __init__(self, leaf: FloatArray, levels: FloatArray) -> None:
        self.leaf = leaf
        self.levels = levels


class WinSeeker:
    """Chooses, for the mover of a single-sheet game with rivals, the action with the highest
    chance of finishing first (see the module)."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self._pmfs: OrderedDict[tuple[int, int, int], tuple[int, FloatArray]] = OrderedDict()
        self._plan_key: object = None
        self._plan: TurnPlan | None = None

    # --- the rest of the game after a cell move, as whole-number probabilities -----------------

    def _after(self, filled: int, flag: int, upper: int) -> tuple[int, FloatArray]:
        """The points to come from a state between turns, on a grid starting at the first
        value returned."""
        key = (filled, flag, upper)
        found = self._pmfs.get(key)
        if found is not None:
            self._pmfs.move_to_end(key)
            return found
        dist = between_turns(self.solver, filled, flag, upper)
        low, high = dist.bounds()
        found = (low, dist.pmf(low, high))
        self._pmfs[key] = found
        if len(self._pmfs) > _KEEP_PMFS:
            self._pmfs.popitem(last=False)
        return found

    # --- a turn's plan -------------------------------------------------------------------------

    def plan(self, state: GameState) -> TurnPlan:
        key = (state.rules, state.turn, state.seat, state.sheets)
        if self._plan is not None and self._plan_key == key:
            return self._plan
        solver = self.solver
        spec = solver.spec
        space = spec.space
        k = spec.kernel_rules()
        pos = solver.position(state)
        dists = sheet_distributions(state)
        rivals: list[ScoreDistribution] = [
            dist for seat, dist in enumerate(dists) if seat != state.seat and dist is not None
        ]
        curve = WinCurve.against(rivals)
        n_out, n_rows = space.n_outcomes, spec.n_rows
        gains = np.empty((n_out, n_rows), dtype=np.int64)
        flags = np.empty((n_out, n_rows), dtype=np.int64)
        uppers = np.empty((n_out, n_rows), dtype=np.int64)
        points = np.empty((n_out, n_rows), dtype=np.float64)
        all_moves(
            solver.table,
            pos.filled,
            pos.flag,
            pos.upper,
            gains,
            flags,
            uppers,
            points,
            k.score,
            k.joker_score,
            k.yahtzee_face,
            k.is_upper,
            k.joker_masks,
            k.box,
            k.box_pays,
            k.joker_bonus,
            k.joker,
            k.upper_cap,
            k.upper_gain,
            k.upper_next,
            n_out,
            n_rows,
        )
        leaf = np.full((n_out, n_rows), -np.inf)
        full = (1 << n_rows) - 1
        for c in range(n_rows):
            if (pos.filled >> c) & 1:
                continue
            filled = pos.filled | (1 << c)
            rows = np.isfinite(points[:, c])
            if not rows.any():
                continue
            finals = pos.points + gains[rows, c]
            chance = np.empty(int(rows.sum()))
            if filled == full:
                chance = curve.at(finals)
            else:
                nf, nu = flags[rows, c], uppers[rows, c]
                for f, u in set(zip(nf.tolist(), nu.tolist(), strict=True)):
                    same = (nf == f) & (nu == u)
                    low, pmf = self._after(filled, f, u)
                    values, where = np.unique(finals[same], return_inverse=True)
                    grid = values[:, None] + (low + np.arange(len(pmf), dtype=np.int64))[None, :]
                    chance[same] = (curve.at(grid) @ pmf)[where]
            leaf[rows, c] = chance + POINTS_WEIGHT * (pos.points + points[rows, c])
        best = leaf.max(axis=1)
        levels = np.empty((spec.rerolls + 1, space.n_keeps))
        a = np.full(space.n_keeps, -np.inf)
        a[space.outcome_base :] = best
        levels[0] = a
        levels[0, : space.outcome_base] = -np.inf
        for r in range(1, spec.rerolls + 1):
            kernels.avg_pass_1(a, space.add, space.outcome_base, space.faces)
            levels[r, : space.outcome_base] = a[: space.outcome_base]
            if r < spec.rerolls:
                kernels.max_pass_1(a, space.sub_list)
                levels[r, space.outcome_base :] = a[space.outcome_base :]
            else:
                levels[r, space.outcome_base :] = np.nan
        self._plan_key, self._plan = key, TurnPlan(leaf, levels)
        return self._plan

    def action_values(self, state: GameState) -> list[tuple[Action, float]]:
        """Every legal action with its chance of finishing first (plus the tie-break's tiny
        share of the expected score)."""
        actions = legal_actions(state)
        if state.rolls == 0:
            return [(ROLL, float("nan"))] if ROLL in actions else []
        plan = self.plan(state)
        space = self.solver.spec.space
        o = space.outcome_index(state.dice)
        left = state.rules.rolls_per_turn - state.rolls
        rules = state.rules
        out: list[tuple[Action, float]] = []
        for action in actions:
            if isinstance(action, Roll):
                keep = space.keep_index[tuple(sorted(state.dice[p] for p in action.keep))]
                out.append((action, float(plan.levels[left, keep])))
            elif isinstance(action, Move) and action.verb == "score":
                out.append((action, float(plan.leaf[o, rules.row_index[action.row]])))
        return out

    def choose(self, state: GameState) -> Action:
        values = self.action_values(state)
        if state.rolls == 0:
            return ROLL
        return max(values, key=lambda item: (item[1], isinstance(item[0], Move)))[0]


__all__ = ["WinSeeker", "all_moves"]
