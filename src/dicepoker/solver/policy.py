"""The optimal policy: expected final scores of every legal action, for bots and the advisor.

`Solver.for_rules(rules)` loads the game's table from the disk cache (building it the first time);
`action_values(state)` gives the expected final score (points so far plus the expected points to
come with optimal play) of every legal action of the player to move, seen as a solitaire game on
that player's sheet; `best_action(state)` picks the best. Within the turn the values come from an
expectimax over the 252 outcomes and 462 keeps on top of the table, computed with the same
arithmetic as the table itself.

For win probabilities the solver also gives the spread of the points to come (`moments`: mean
and variance, from a second-moment table cached next to the value table) and the exact
distribution of how a turn ends under its policy (`turn_outcomes`, `keep_outcomes`,
`cell_outcome`); see `moments.py`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from dicepoker.engine import (
    ROLL,
    Action,
    GameState,
    Move,
    Roll,
    further_yahtzee_bonus,
    legal_actions,
    sheet_breakdown,
    upper_total,
)
from dicepoker.rules.model import Rules
from dicepoker.solver import kernels
from dicepoker.solver.dice import FloatArray, IntArray
from dicepoker.solver.moments import TurnOutcomes, obtain_moments, turn_outcomes
from dicepoker.solver.spec import SolverSpec, build_spec
from dicepoker.solver.table import Loaded, obtain_table

_TURN_CACHE = 256
# Games that share one computation of a state's turn values in the simulator (at most).
_GROUP_SIZE = 1024


class SolverError(ValueError):
    """A state the solver cannot value (another game's state, or a move it does not allow)."""


@dataclass(frozen=True, slots=True)
class Position:
    """The solver's view of the player to move: the state between turns, and the points so far.

    `filled` is the bit set of filled rows, `flag` 1 when the extra-Yahtzee box holds a non-zero
    score, `upper` the upper total capped at the bonus threshold (0 without an upper bonus).
    """

    filled: int
    flag: int
    upper: int
    points: int


class Solver:
    """Exact optimal play of one single-sheet game (see `dicepoker.solver`)."""

    def __init__(
        self,
        spec: SolverSpec,
        table: FloatArray,
        *,
        built: bool = False,
        seconds: float = 0.0,
        path: Path | None = None,
    ) -> None:
        self.spec = spec
        self.table = table
        self.built = built
        self.seconds = seconds
        self.path = path
        self._turns: OrderedDict[tuple[int, int, int], FloatArray] = OrderedDict()
        self._lock = threading.Lock()
        self._score_f = spec.score.astype(np.float64)
        self._moments: Loaded | None = None
        self._third: Loaded | None = None
        self._moments_lock = threading.Lock()

    @classmethod
    def for_rules(
        cls,
        rules: Rules,
        *,
        cache: bool = True,
        cache_dir: Path | None = None,
        rebuild: bool = False,
    ) -> Solver:
        """The solver of `rules`: its table loaded from the cache, or built (and cached).

        Solvers are kept per process, so asking again for the same rules costs nothing.
        """
        key = (rules, str(cache_dir) if cache_dir is not None else None, cache)
        solver = _SOLVERS.get(key)
        if solver is not None and not rebuild:
            return solver
        spec = build_spec(rules)
        loaded = obtain_table(spec, cache=cache, directory=cache_dir, rebuild=rebuild)
        solver = cls(
            spec, loaded.table, built=loaded.built, seconds=loaded.seconds, path=loaded.path
        )
        _SOLVERS[key] = solver
        return solver

    @property
    def rules(self) -> Rules:
        return self.spec.rules

    @property
    def start_value(self) -> float:
        """Expected final score of a whole game with optimal play."""
        return float(self.table[0, 0, 0])

    def state_value(self, filled: int, flag: int = 0, upper: int = 0) -> float:
        """Expected points still to come from the start of a turn in this state."""
        cap = self.spec.upper_cap
        return float(self.table[filled, flag, min(upper, cap)])

    # --- reading an engine state ---------------------------------------------------------------

    def position(self, state: GameState) -> Position:
        """The solver's view of the player to move in `state`."""
        rules = state.rules
        if rules is not self.spec.rules and rules != self.spec.rules:
            raise SolverError(f"this solver plays {self.spec.rules.variant}, not {rules.variant}")
        sheet = state.sheet
        filled = 0
        for index, fill in enumerate(sheet.row_fill):
            if fill:
                filled |= 1 << index
        spec = self.spec
        flag = 0
        if spec.joker:
            flag = 1 if further_yahtzee_bonus(rules, sheet.cells[spec.box]) > 0 else 0
        upper = min(upper_total(rules, sheet), spec.upper_cap) if spec.upper_cap else 0
        return Position(filled, flag, upper, sheet_breakdown(rules, sheet).total)

    def turn_values(self, filled: int, flag: int, upper: int) -> FloatArray:
        """Within-turn values of a state (see `kernels.turn_levels`), cached per state."""
        key = (filled, flag, upper)
        with self._lock:
            levels = self._turns.get(key)
            if levels is not None:
                self._turns.move_to_end(key)
                return levels
        spec = self.spec
        space = spec.space
        levels = np.empty((spec.rerolls + 1, space.n_keeps), dtype=np.float64)
        work = np.empty(space.n_keeps, dtype=np.float64)
        scratch = np.empty(spec.max_score + 1, dtype=np.float64)
        kernels.turn_levels(
            levels,
            work,
            scratch,
            self._score_f,
            self.table,
            filled,
            flag,
            upper,
            spec.rerolls,
            *spec.kernel_rules(),
            space.add,
            space.sub_list,
            space.faces,
        )
        levels.setflags(write=False)
        with self._lock:
            self._turns[key] = levels
            if len(self._turns) > _TURN_CACHE:
                self._turns.popitem(last=False)
        return levels

    def cell_values(self, pos: Position, dice: tuple[int, ...]) -> tuple[FloatArray, IntArray]:
        """For each row: the expected points to come after filling it with `dice` (-inf where the
        rules forbid it), and the points the move gains now (bonuses included)."""
        spec = self.spec
        outcome = spec.space.outcome_index(dice)
        k = spec.kernel_rules()
        cells = np.empty(spec.n_rows, dtype=np.float64)
        gains = np.empty(spec.n_rows, dtype=np.int64)
        kernels.cell_values(
            cells,
            gains,
            self.table,
            pos.filled,
            pos.flag,
            pos.upper,
            outcome,
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
            k.n_rows,
        )
        return cells, gains

    # --- the policy ----------------------------------------------------------------------------

    def action_values(self, state: GameState) -> list[tuple[Action, float]]:
        """Every legal action of the player to move, in `legal_actions` order, with its expected
        final score (the sheet's total so far plus the expected points to come)."""
        if state.finished:
            return []
        pos = self.position(state)
        actions = legal_actions(state)
        if state.rolls == 0:
            return [(ROLL, pos.points + self.state_value(pos.filled, pos.flag, pos.upper))]
        space = self.spec.space
        cells, _ = self.cell_values(pos, state.dice)
        left = state.rules.rolls_per_turn - state.rolls
        levels = self.turn_values(pos.filled, pos.flag, pos.upper) if left > 0 else None
        rules = state.rules
        out: list[tuple[Action, float]] = []
        for action in actions:
            if isinstance(action, Roll):
                if levels is None:
                    raise SolverError("the engine offers a roll with no roll left")
                keep = space.keep_index[tuple(sorted(state.dice[p] for p in action.keep))]
                out.append((action, pos.points + float(levels[left, keep])))
            elif isinstance(action, Move):
                value = float(cells[rules.row_index[action.row]])
                if action.verb != "score" or value == -np.inf:
                    raise SolverError(f"the solver does not allow {action} here")
                out.append((action, pos.points + value))
            else:
                raise SolverError(f"the solver does not value {action}")
        return out

    def best_action(self, state: GameState) -> Action:
        """The action with the highest expected final score (on a tie: a cell move before a
        roll, then the first in `legal_actions` order)."""
        values = self.action_values(state)
        if not values:
            raise SolverError("the game is over")
        return max(values, key=lambda item: (item[1], isinstance(item[0], Move)))[0]

    def value(self, state: GameState) -> float:
        """Expected final score of the player to move with optimal play from `state`."""
        if state.finished:
            return float(self.position(state).points)
        return max(value for _, value in self.action_values(state))

    def simulate(self, games: int, seed: int = 0) -> IntArray:
        """Final totals of `games` optimal solitaire games (reproducible from `seed` >= 0; the
        scores do not depend on the number of threads)."""
        if games < 0 or seed < 0:
            raise ValueError("the number of games and the seed cannot be negative")
        spec = self.spec
        space = spec.space
        scores = np.zeros(games, dtype=np.int64)
        if games == 0:
            return scores
        threads = max(1, numba.get_num_threads())
        with kernels.PARALLEL_LOCK:
            kernels.simulate(
                scores,
                seed,
                threads * 4,
                _GROUP_SIZE,
                spec.max_score,
                self.table,
                space.proper_subs,
                space.dice,
                spec.rerolls,
                *spec.kernel_rules(),
                space.add,
                space.sub_list,
                space.faces,
            )
        return scores

    # --- the spread of the points to come, and how a turn ends ---------------------------------

    def moments_table(self) -> Loaded:
        """The second moments of the points to come (`moments.build_moments`), with where they
        came from: loaded from next to the value table, or built on first use and stored there
        (kept in memory only when the value table is: `cache=False` or a read-only cache).

        Built lazily because they cost a few times the value table's build and only win
        probabilities need them."""
        loaded = self._moments
        if loaded is None:
            with self._moments_lock:
                loaded = self._moments
                if loaded is None:
                    loaded = self._obtain_moments(None)
                    self._moments = loaded
        return loaded

    def _obtain_moments(self, second: FloatArray | None) -> Loaded:
        """The second moments (given them: the third), cached where the value table is."""
        path = self.path
        return obtain_moments(
            self.spec,
            self.table,
            second=second,
            cache=path is not None,
            directory=path.parent if path is not None else None,
        )

    def third_table(self) -> Loaded:
        """The third moments of the points to come, stored and loaded like `moments_table`."""
        loaded = self._third
        if loaded is None:
            second = self.moments_table().table
            with self._moments_lock:
                loaded = self._third
                if loaded is None:
                    loaded = self._obtain_moments(second)
                    self._third = loaded
        return loaded

    def shape(self, filled: int, flag: int = 0, upper: int = 0) -> tuple[float, float, float]:
        """(mean, variance, skewness) of the points still to come from the start of a turn in
        this state; the skewness is 0 where the variance is (next to) 0. NaN for a state that
        cannot occur."""
        one = np.array([filled]), np.array([flag]), np.array([upper])
        mean, variance, skew = self.shapes(*one)
        return float(mean[0]), float(variance[0]), float(skew[0])

    def shapes(
        self, filled: IntArray, flag: IntArray, upper: IntArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """`shape` of many states at once (arrays of equal length): their means, variances and
        skewnesses (a win probability looks up every state a turn can end in, some forty, at
        each position)."""
        u = np.minimum(upper, self.spec.upper_cap)
        mean = self.table[filled, flag, u]
        variance = self.moments_table().table[filled, flag, u] - mean * mean
        variance = np.where(variance < 0.0, 0.0, variance)  # (NaN stays NaN)
        raw3 = self.third_table().table[filled, flag, u]
        second = variance + mean * mean
        central3 = raw3 - 3.0 * mean * second + 2.0 * mean**3
        flat = ~(variance > 1e-9)
        with np.errstate(divide="ignore", invalid="ignore"):
            skew = central3 / np.where(flat, 1.0, variance) ** 1.5
        skew = np.where(np.isnan(variance), np.nan, np.where(flat, 0.0, skew))
        return mean, variance, skew

    def moments(self, filled: int, flag: int = 0, upper: int = 0) -> tuple[float, float]:
        """(mean, variance) of the points still to come from the start of a turn in this state,
        under the optimal (expected-score) policy; the variance is clipped at 0 against rounding.
        NaN for a state that cannot occur, like `state_value`."""
        u = min(upper, self.spec.upper_cap)
        second = self.moments_table().table
        mean = float(self.table[filled, flag, u])
        variance = float(second[filled, flag, u]) - mean * mean
        if variance < 0.0:  # (NaN stays NaN)
            variance = 0.0
        return mean, variance

    def _turn_state(self, pos: Position) -> tuple[int, int, int]:
        """`pos` as a state with a turn to play (the upper total capped), or SolverError."""
        spec = self.spec
        u = min(pos.upper, spec.upper_cap)
        if not (0 <= pos.filled < spec.full_mask and 0 <= pos.flag < spec.n_flags and u >= 0):
            raise SolverError(f"no turn to play from {pos}")
        if np.isnan(self.table[pos.filled, pos.flag, u]):
            raise SolverError(f"{pos} cannot occur in {spec.rules.variant}")
        return pos.filled, pos.flag, u

    def _outcomes(self, pos: Position, start: int, left: int) -> TurnOutcomes:
        filled, flag, upper = self._turn_state(pos)
        levels = self.turn_values(filled, flag, upper)
        return turn_outcomes(self.spec, self.table, levels, filled, flag, upper, start, left)

    def turn_outcomes(
        self, pos: Position, dice: tuple[int, ...] | None, rerolls_left: int
    ) -> TurnOutcomes:
        """How this turn ends under the optimal policy: the exact distribution of (points the
        cell move gains, state after it), each distinct outcome once.

        `dice=None`: the turn has not been rolled yet (the whole turn; `rerolls_left` is then
        ignored). Otherwise `dice` is the current roll and `rerolls_left` the rolls still
        allowed (0: the cell move is now). The policy's choices are `play_turn`'s, ties included,
        so `sum(prob * (gain + state_value(next)))` is the position's value."""
        spec = self.spec
        space = spec.space
        if dice is None:
            return self._outcomes(pos, space.empty_keep, spec.rerolls)
        if not 0 <= rerolls_left <= spec.rerolls:
            raise SolverError(
                f"{spec.rules.variant} allows 0..{spec.rerolls} rerolls, not {rerolls_left}"
            )
        return self._outcomes(pos, space.outcome_base + self._hand(dice), rerolls_left)

    def keep_outcomes(
        self, pos: Position, kept_dice: tuple[int, ...], rerolls_left_after: int
    ) -> TurnOutcomes:
        """How the turn ends when the player keeps `kept_dice`, rerolls the other dice now and then
        plays on optimally; `rerolls_left_after` is the rolls still allowed after this reroll.

        The value of that hold (`action_values`) is `sum(prob * (gain + state_value(next)))`."""
        spec = self.spec
        space = spec.space
        keep = space.keep_index.get(tuple(sorted(kept_dice)))
        if keep is None or len(kept_dice) >= space.dice:
            raise SolverError(f"cannot keep {kept_dice} and reroll the other dice")
        if not 0 <= rerolls_left_after < spec.rerolls:
            raise SolverError(
                f"after a reroll {spec.rules.variant} allows 0..{spec.rerolls - 1} more, "
                f"not {rerolls_left_after}"
            )
        return self._outcomes(pos, keep, rerolls_left_after)

    def cell_outcome(
        self, pos: Position, dice: tuple[int, ...], row_index: int
    ) -> tuple[int, Position]:
        """Filling row `row_index` with `dice` now: the points it gains (bonuses included, as
        `cell_values`) and the position after it (its points are `pos.points` plus the gain).
        SolverError where the rules forbid that row."""
        filled, flag, upper = self._turn_state(pos)
        spec = self.spec
        k = spec.kernel_rules()
        outcome = self._hand(dice)
        allowed, jok = kernels.allowed_rows(
            filled, outcome, k.yahtzee_face, k.joker_masks, k.box, k.joker, k.n_rows
        )
        if not (0 <= row_index < spec.n_rows and (allowed >> row_index) & 1):
            raise SolverError(f"row {row_index} may not be filled with {dice} here")
        _, gain, nflag, nupper = kernels.move_value(
            self.table,
            filled,
            flag,
            upper,
            row_index,
            outcome,
            jok,
            k.score,
            k.joker_score,
            k.is_upper,
            k.box,
            k.box_pays,
            k.joker_bonus,
            k.upper_cap,
            k.upper_gain,
            k.upper_next,
        )
        gain = int(gain)
        return gain, Position(filled | (1 << row_index), int(nflag), int(nupper), pos.points + gain)

    def _hand(self, dice: tuple[int, ...]) -> int:
        try:
            return self.spec.space.outcome_index(dice)
        except ValueError as error:
            raise SolverError(str(error)) from None


_SOLVERS: dict[tuple[Rules, str | None, bool], Solver] = {}


def clear_solvers() -> None:
    """Forget the solvers kept in this process (tests, or after changing the cache)."""
    _SOLVERS.clear()
