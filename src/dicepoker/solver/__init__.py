"""Exact solver of the single-sheet presets (`yahtzee`, `yahtzee15`, `poker-dice`).

Every score and rule is derived from the preset's `Rules` (see `spec.py`); the table of expected
future points for every state between turns is built with numba (`table.py`, `kernels.py`),
cached on disk with a hash of the game's definition in its header, and memory-mapped on load.
`Solver` (`policy.py`) values every legal action of an engine state and plays optimal games.
See docs/solver.md.
"""

from dicepoker.solver.command import SolveReport, solve, solve_rules
from dicepoker.solver.policy import Position, Solver, SolverError, clear_solvers
from dicepoker.solver.spec import (
    FORMAT_VERSION,
    SolverSpec,
    UnsupportedRulesError,
    build_spec,
    supports,
    unsupported_reason,
)
from dicepoker.solver.table import build_table, cache_dir, load_table, save_table, table_path

__all__ = [
    "FORMAT_VERSION",
    "Position",
    "SolveReport",
    "Solver",
    "SolverError",
    "SolverSpec",
    "UnsupportedRulesError",
    "build_spec",
    "build_table",
    "cache_dir",
    "clear_solvers",
    "load_table",
    "save_table",
    "solve",
    "solve_rules",
    "supports",
    "table_path",
    "unsupported_reason",
]
