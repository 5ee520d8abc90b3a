"""The spread of the points to come, and how the current turn can end, under the optimal policy.

Win probabilities need more than the expected score: the spread of each player's final total, and
the ways the current turn can end. Both are computed for the policy the solver plays (the one that
maximises the expected score, `kernels.play_turn`), with its tie-breaking: stopping over
rerolling on a tie, then the first keep in `proper_subs` order, then the first row.

- **Second moments.** `second[filled, flag, upper] = E[R^2]`, R the points still to come from the
  start of a turn in that state (same shape and NaN pattern as the value table; 0 at the full
  sheet). A cell move that gains g and leads to s' contributes g^2 + 2 g V(s') + M2(s') (R = g +
  R', and E[R'] = V(s')); throws average linearly; a hand with rolls left takes the second moment
  of the option that the value levels choose. The build mirrors `kernels.build_table` (layers of
  filled sets, one column per state of a set, the same arithmetic): alongside the second moments it
  recomputes the values of the policy's choices, which must equal the value table bit for bit; a
  difference would mean that the choices mirrored here are not the ones the policy makes, and the
  build refuses it. The table is cached on disk next to the value table (`<name>.moments`, the
  same header scheme, `kind` "moments").
- **Third moments**, the same way from the second: g^3 + 3 g^2 V(s') + 3 g M2(s') + M3(s') for a
  cell move, averaged and chosen like the second (`<name>.moments3`). Win probabilities use them
  for the skew of the points to come: most of a sheet's upper tail is a Yahtzee or a bonus, rare
  and large.
- **How a turn ends.** `turn_outcomes` pushes probability mass through the keep graph of `dice.py`
  (a keep plus one random die at a time, like `avg_pass` read backwards), choosing at each hand
  what the policy chooses from the state's `turn_levels`, and returns the exact distribution of
  (points gained, state after the move), aggregated per distinct outcome.

The numba kernels are in `moment_kernels.py`; this module holds their drivers and the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from dicepoker.solver.dice import FloatArray, IntArray
from dicepoker.solver.kernels import PARALLEL_LOCK
from dicepoker.solver.moment_kernels import build_second, turn_outcome_kernel
from dicepoker.solver.spec import SolverSpec, upper_columns
from dicepoker.solver.table import Loaded, _layers, load_table, save_table, table_path

#: The file suffix and header `kind` of a second-moment table.
KIND = "moments"
#: The same for the third moments.
THIRD_KIND = "moments3"
#: Bumped whenever the meaning of the second moments changes (the policy's tie-breaking, say);
#: stored in the header and checked on load, next to the value table's format and digest.
MOMENTS_FORMAT = 1
_HEADER = {"moments_format": MOMENTS_FORMAT}


class PolicyMismatchError(RuntimeError):
    """The second-moment build did not retrace the value table's choices (a bug, never data)."""


def policy_moments(
    spec: SolverSpec, table: FloatArray, second: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """The first and second moments of the points to come under the policy of `table`; given the
    second moments (`second`), the first and the third.

    The first must equal `table` bit for bit (`build_moments` checks it); the tests use both.
    """
    shape = spec.table_shape
    if tuple(table.shape) != shape:
        raise ValueError(f"a value table of shape {shape} is needed, not {table.shape}")
    if second is not None and tuple(second.shape) != shape:
        raise ValueError(f"second moments of shape {shape} are needed, not {second.shape}")
    values = np.ascontiguousarray(table, dtype=np.float64)
    lower = values if second is None else np.ascontiguousarray(second, dtype=np.float64)
    first = np.full(shape, np.nan, dtype=np.float64)
    moment = np.full(shape, np.nan, dtype=np.float64)
    first[spec.full_mask] = 0.0
    moment[spec.full_mask] = 0.0
    order, layer_start = _layers(spec)
    n_uppers, live_lo, n_cols = upper_columns(spec)
    masks = np.arange(shape[0], dtype=np.int64)
    n_flags = np.ones(shape[0], dtype=np.int64)
    if spec.joker:
        n_flags[((masks >> spec.box) & 1) == 1] = 2
    space = spec.space
    workers = max(1, numba.get_num_threads()) * 4
    with PARALLEL_LOCK:
        build_second(
            first,
            moment,
            values,
            lower,
            2 if second is None else 3,
            order,
            layer_start,
            n_flags,
            n_uppers,
            live_lo,
            n_cols,
            workers,
            spec.max_score,
            spec.rerolls,
            space.proper_subs,
            *spec.kernel_rules(),
            space.add,
            space.probs,
            space.faces,
        )
    return first, moment


def build_moments(
    spec: SolverSpec, table: FloatArray, second: FloatArray | None = None
) -> FloatArray:
    """`second[filled, flag, upper]`: E[(points to come)^2] under the policy of `table`; given
    `second`, the third moments E[(points to come)^3] instead.

    Raises `PolicyMismatchError` when the values retraced along the policy's choices differ from
    `table` (the choices would then not be the policy's).
    """
    first, moment = policy_moments(spec, table, second)
    if not np.array_equal(first, table, equal_nan=True):
        raise PolicyMismatchError(f"{spec.rules.variant}: the moments' policy is not the table's")
    return moment


def _kind(third: bool) -> str:
    return THIRD_KIND if third else KIND


def moments_path(spec: SolverSpec, directory: Path | None = None, *, third: bool = False) -> Path:
    """Where a game's second moments are cached: next to its table, suffix `.moments` (the
    third moments: `.moments3`)."""
    return table_path(spec, directory, kind=_kind(third))


def load_moments(spec: SolverSpec, path: Path, *, third: bool = False) -> FloatArray | None:
    """The second (or third) moments at `path`, memory-mapped, if built for exactly these
    rules."""
    return load_table(spec, path, kind=_kind(third), expect=_HEADER)


def obtain_moments(
    spec: SolverSpec,
    table: FloatArray,
    *,
    second: FloatArray | None = None,
    cache: bool = True,
    directory: Path | None = None,
    rebuild: bool = False,
) -> Loaded:
    """Load the game's second moments from the cache, or build them (and store them); given the
    second moments (`second`), the same for the third."""
    third = second is not None
    path = moments_path(spec, directory, third=third) if cache else None
    if path is not None and not rebuild:
        start = time.perf_counter()
        found = load_moments(spec, path, third=third)
        if found is not None:
            return Loaded(found, False, time.perf_counter() - start, path)
    start = time.perf_counter()
    built = build_moments(spec, table, second)
    seconds = time.perf_counter() - start
    if path is not None:
        try:
            save_table(spec, built, path, seconds, kind=_kind(third), extra=_HEADER)
        except OSError:
            path = None  # a read-only cache: keep them in memory only
    return Loaded(built, True, seconds, path)


# --- how one turn ends ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class TurnOutcomes:
    """The exact distribution of how a turn ends under the optimal policy.

    Entry i: with probability `prob[i]` the turn ends with a cell move gaining `gain[i]` points
    (bonuses included, as `Solver.cell_values`) that leads to the state (`filled[i]`, `flag[i]`,
    `upper[i]`). Each distinct (gain, filled, flag, upper) appears once, sorted by gain, then
    filled, flag and upper; the probabilities sum to 1.
    """

    prob: FloatArray
    gain: IntArray
    filled: IntArray
    flag: IntArray
    upper: IntArray

    def __len__(self) -> int:
        return int(self.prob.shape[0])


def turn_outcomes(
    spec: SolverSpec,
    table: FloatArray,
    levels: FloatArray,
    filled: int,
    flag: int,
    upper: int,
    start: int,
    left: int,
) -> TurnOutcomes:
    """`turn_outcome_kernel` for a state: the free dice of keep `start` are thrown next, and
    `left` rolls remain after that throw (`start` a hand: nothing is thrown)."""
    space = spec.space
    prob, gain, nfilled, nflag, nupper = turn_outcome_kernel(
        start,
        left,
        levels,
        table,
        filled,
        flag,
        upper,
        space.proper_subs,
        *spec.kernel_rules(),
        space.add,
        space.faces,
    )
    return TurnOutcomes(prob, gain, nfilled, nflag, nupper)


__all__ = [
    "KIND",
    "MOMENTS_FORMAT",
    "THIRD_KIND",
    "PolicyMismatchError",
    "TurnOutcomes",
    "build_moments",
    "load_moments",
    "moments_path",
    "obtain_moments",
    "policy_moments",
    "turn_outcomes",
]
