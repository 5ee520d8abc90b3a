"""`dicepoker solve VARIANT [--option k=v] [--json]`: build (or load) a table and report it.

The command line calls `solve_rules(rules)` (or `solve(variant, options)`) and prints
`report.as_json()` (with `--json`) or `report.text()`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dicepoker.rules import Rules, get_rules
from dicepoker.solver.policy import Solver


@dataclass(frozen=True, slots=True)
class SolveReport:
    variant: str
    options: dict[str, bool | int]
    expected_score: float
    seconds: float
    built: bool
    path: Path | None

    def as_dict(self) -> dict[str, object]:
        """The `--json` object: variant, options, expected_score, seconds."""
        return {
            "variant": self.variant,
            "options": self.options,
            "expected_score": self.expected_score,
            "seconds": self.seconds,
        }

    def as_json(self) -> str:
        return json.dumps(self.as_dict())

    def text(self) -> str:
        options = ", ".join(f"{name}={_show(value)}" for name, value in self.options.items())
        head = f"{self.variant}" + (f" ({options})" if options else "")
        how = "solved" if self.built else "loaded"
        where = f"; table {self.path}" if self.path is not None else ""
        return (
            f"{head}: expected score {self.expected_score:.7f} with optimal play "
            f"({how} in {self.seconds:.2f} s{where})"
        )


def _show(value: bool | int) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def solve_rules(
    rules: Rules, *, rebuild: bool = False, cache_dir: Path | None = None
) -> SolveReport:
    """Build the table of `rules` (or load it from the cache) and report its start value.

    Raises `dicepoker.solver.UnsupportedRulesError` for rules the solver does not cover (`school`).
    """
    start = time.perf_counter()
    solver = Solver.for_rules(rules, cache_dir=cache_dir, rebuild=rebuild)
    seconds = time.perf_counter() - start
    return SolveReport(
        variant=rules.variant,
        options=rules.option_dict,
        expected_score=solver.start_value,
        seconds=round(seconds, 6),
        built=solver.built,
        path=solver.path,
    )


def solve(
    variant: str,
    options: Mapping[str, object] | None = None,
    *,
    rebuild: bool = False,
    cache_dir: Path | None = None,
) -> SolveReport:
    """`solve_rules` for a variant and options (raises `dicepoker.rules.RulesError` for an unknown
    variant or option)."""
    return solve_rules(get_rules(variant, options), rebuild=rebuild, cache_dir=cache_dir)
