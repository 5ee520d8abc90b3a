"""The optimal policy: expected final scores of every legal action, for bots and the advisor.

`Solver.for_rules(rules)` loads the game's table from the disk cache (building it the first time);
`action_values(state)` gives the expected final score (points so far plus the expected points to
come with optimal play) of every legal action of the player to move, seen as a solitaire game on
that player's sheet; `best_action(state)` picks the best. Within the turn the values come from an
expectimax over the 252 outcomes and 462 keeps on top of the table, computed with the same
arithmetic as the table itself.
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
from dicepoker.solver.spec import SolverSpec, build_spec
from dicepoker.solver.table import obtain_table

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


_SOLVERS: dict[tuple[Rules, str | None, bool], Solver] = {}


def clear_solvers() -> None:
    """Forget the solvers kept in this process (tests, or after changing the cache)."""
    _SOLVERS.clear()
