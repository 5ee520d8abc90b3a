"""Seat distributions of the single-sheet variants, from the exact solver.

Each sheet is independent of the others, so a seat's final total is its own: the points its sheet
holds, plus how its next turn (the mover: the rest of its current turn) ends, plus what the turns
after bring. The solver gives the first two exactly under the expert's play (`turn_outcomes`: the
probability of each gain and the state it leaves); for the rest, its tables give the mean, the
variance and the skewness of the points to come from that state (`Solver.shape`), taken as a
pair of normals with those three moments (`ScoreDistribution.skewed`: a sheet's rest leans
right, its upper tail mostly a Yahtzee or a bonus, rare and large). So the near future, where
the chance of a Yahtzee or of reaching the upper bonus makes the distribution lumpy, is exact,
and the rest is described by its first three moments. The relative part of a seat between
turns depends only on its state, so it is kept per state.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from dicepoker.engine import GameState
from dicepoker.rules import Rules
from dicepoker.winprob.mixture import ScoreDistribution

if TYPE_CHECKING:
    from dicepoker.solver import Position, Solver
    from dicepoker.solver.moments import TurnOutcomes

_KEEP = 8192
_between: OrderedDict[tuple[object, int, int, int], ScoreDistribution] = OrderedDict()
_lock = threading.Lock()
_loading = threading.Lock()


_ready: set[object] = set()


def _solver(state: GameState) -> Solver:
    return prepare(state.rules)


def prepare(rules: Rules) -> Solver:
    """The solver of `rules` with its value and second-moment tables loaded (built the first
    time, which takes seconds: one thread does it, the others wait for it)."""
    from dicepoker.solver import Solver

    with _loading:
        solver = Solver.for_rules(rules)
        solver.moments_table()
        solver.third_table()
        _ready.add(rules)
        return solver


def ready(rules: Rules) -> bool:
    """Whether `prepare(rules)` has been done in this process (a position then takes
    milliseconds)."""
    return rules in _ready


def _ending(
    solver: Solver, pos: Position, dice: tuple[int, ...] | None, left: int
) -> ScoreDistribution:
    """The points to come from `pos` (relative to its points now): how this turn ends, exactly,
    then the moments of the state it leaves."""
    return _after(solver, solver.turn_outcomes(pos, dice, left))


def _after(solver: Solver, ends: TurnOutcomes) -> ScoreDistribution:
    """The points to come, given how the turn ends: each ending's gain, then the mean and
    spread of what the state it leaves brings."""
    mean, var, skews = solver.shapes(ends.filled, ends.flag, ends.upper)
    means = ends.gain.astype(np.float64) + mean
    sds = np.sqrt(np.maximum(var, 0.0))
    return ScoreDistribution.skewed(ends.prob, means, sds, skews)


def _shifted(dist: ScoreDistribution, points: float) -> ScoreDistribution:
    return ScoreDistribution(dist.weights, dist.means + points, dist.sds)


def between_turns(solver: Solver, filled: int, flag: int, upper: int) -> ScoreDistribution:
    """The points still to come from the start of a turn in a state (kept per state)."""
    key = (solver.rules, filled, flag, upper)
    with _lock:
        found = _between.get(key)
        if found is not None:
            _between.move_to_end(key)
            return found
    from dicepoker.solver import Position

    found = _ending(solver, Position(filled, flag, upper, 0), None, 0)
    with _lock:
        _between[key] = found
        if len(_between) > _KEEP:
            _between.popitem(last=False)
    return found


def keep_distributions(state: GameState, kept: tuple[int, ...]) -> list[ScoreDistribution | None]:
    """Each seat's final total once the mover keeps the dice `kept` (faces) and rerolls the
    others, before they land: its turn goes on under the expert's play."""
    solver = _solver(state)
    out = sheet_distributions(state)
    pos = solver.position(state)
    ends = solver.keep_outcomes(pos, kept, state.rolls_left - 1)
    out[state.seat] = _shifted(_after(solver, ends), pos.points)
    return out


def sheet_distributions(state: GameState) -> list[ScoreDistribution | None]:
    """Each seat's final total (None: a seat that forfeited)."""
    solver = _solver(state)
    rules = state.rules
    out: list[ScoreDistribution | None] = []
    for seat in range(len(state.players)):
        if seat in state.forfeited:
            out.append(None)
            continue
        pos = solver.position(state._replace(seat=seat))
        if state.sheets[seat].filled >= rules.cells:
            out.append(ScoreDistribution.exact(pos.points))
            continue
        if seat == state.seat and state.rolls > 0:
            rest = _ending(solver, pos, tuple(state.dice), state.rolls_left)
        else:
            rest = between_turns(solver, pos.filled, pos.flag, pos.upper)
        out.append(_shifted(rest, pos.points))
    return out
