"""Exact solver of the single-sheet variants (`yahtzee`, `yahtzee15`, `poker-dice`).

Every score and rule is derived from the variant's `Rules` (see `spec.py`); the table of expected
future points for every state between turns is built with numba (`table.py`, `kernels.py`),
cached on disk with a hash of the game's definition in its header, and memory-mapped on load.
`Solver` (`policy.py`) values every legal action of an engine state and plays optimal games; for
win probabilities it also gives the spread of the points to come and how a turn can end
(`moments.py`). See docs/solver.md.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Which rules the solver covers is known from `spec` alone (numpy); the rest loads numba, which
# costs a process about 60 MiB and a second: it is imported on first use, so a School game's bot
# or advice, which only asks `supports`, never loads it.
from dicepoker.solver.spec import (
    FORMAT_VERSION,
    SolverSpec,
    UnsupportedRulesError,
    build_spec,
    supports,
    unsupported_reason,
)

if TYPE_CHECKING:
    from dicepoker.solver.command import SolveReport, solve, solve_rules
    from dicepoker.solver.moments import TurnOutcomes, build_moments, load_moments, moments_path
    from dicepoker.solver.policy import Position, Solver, SolverError, clear_solvers
    from dicepoker.solver.table import (
        build_table,
        cache_dir,
        load_table,
        save_table,
        table_path,
    )

_LAZY = {
    "SolveReport": "command",
    "solve": "command",
    "solve_rules": "command",
    "TurnOutcomes": "moments",
    "build_moments": "moments",
    "load_moments": "moments",
    "moments_path": "moments",
    "Position": "policy",
    "Solver": "policy",
    "SolverError": "policy",
    "clear_solvers": "policy",
    "build_table": "table",
    "cache_dir": "table",
    "load_table": "table",
    "save_table": "table",
    "table_path": "table",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FORMAT_VERSION",
    "Position",
    "SolveReport",
    "Solver",
    "SolverError",
    "SolverSpec",
    "TurnOutcomes",
    "UnsupportedRulesError",
    "build_moments",
    "build_spec",
    "build_table",
    "cache_dir",
    "clear_solvers",
    "load_moments",
    "load_table",
    "moments_path",
    "save_table",
    "solve",
    "solve_rules",
    "supports",
    "table_path",
    "unsupported_reason",
]
