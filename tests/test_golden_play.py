"""Pinned play: the bots' games and the solver's tables, move for move and bit for bit.

`golden/bot_games.json` holds seeded games of every variant played by every bot level, written
once from a version of the project whose play was measured (docs/bots.md); `golden/solver.json`
holds the solver's start values (as exact floats) and a SHA-256 of every table. A refactoring of
the engine, the planner, the School value or the solver must leave both exactly as they are:
these tests replay every game with the same seeds and compare every action, and rebuild every
table and compare its bytes.

To write the files again after a change that is *meant* to change play (and is measured):
`python tests/test_golden_play.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game

GOLDEN = Path(__file__).resolve().parent / "golden"
GAMES = GOLDEN / "bot_games.json"
SOLVER = GOLDEN / "solver.json"

# (name, variant, options, bot levels by seat, seeds): every variant, every level, 1-4 players.
CASES: list[tuple[str, str, dict[str, Any], list[str], list[int]]] = [
    ("school-3c-duel", "school", {}, ["expert", "greedy"], [11, 12]),
    ("school-3c-trio", "school", {}, ["expert", "basic", "expert"], [21]),
    ("school-1c-four", "school", {"columns": 1}, ["random", "greedy", "basic", "expert"], [31]),
    ("school-2c-solo", "school", {"columns": 2}, ["expert"], [41]),
    ("school-6c-solo", "school", {"columns": 6}, ["expert"], [51]),
    ("yahtzee-duel", "yahtzee", {}, ["expert", "greedy"], [61, 62]),
    ("yahtzee-pair", "yahtzee", {}, ["basic", "random"], [63]),
    ("yahtzee-plain", "yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}, ["expert"], [64]),
    ("yahtzee15-duel", "yahtzee15", {}, ["expert", "basic"], [71]),
    ("poker-dice-duel", "poker-dice", {}, ["expert", "greedy"], [81, 82, 83]),
    ("poker-dice-trio", "poker-dice", {}, ["basic", "random", "expert"], [84]),
]

# The solver's games: (name, variant, options).
TABLES: list[tuple[str, str, dict[str, Any]]] = [
    ("yahtzee", "yahtzee", {}),
    ("yahtzee-no-yahtzee-bonus", "yahtzee", {"yahtzee_bonus": False}),
    ("yahtzee-no-upper-bonus", "yahtzee", {"upper_bonus": False}),
    ("yahtzee-plain", "yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}),
    ("yahtzee15", "yahtzee15", {}),
    ("poker-dice", "poker-dice", {}),
]


def actions_of(record: dict[str, Any]) -> list[str]:
    """Every action of a record in order, in the notation (rolls as the dice they kept)."""
    out: list[str] = []
    for turn in record["turns"]:
        for index, roll in enumerate(turn["rolls"]):
            keep = roll.get("keep", [])
            out.append(f"roll {roll['dice']}" if index == 0 else f"keep {keep} {roll['dice']}")
        out.append(turn.get("move") or turn.get("forfeit") or "")
    return out


def play_case(variant: str, options: dict[str, Any], levels: list[str], seed: int) -> list[str]:
    rules = get_rules(variant, options)
    bots = [make_bot(level, seed * 31 + seat) for seat, level in enumerate(levels)]
    game = play_game(rules, bots, SeededDice(seed))
    return actions_of(game.to_record())


def table_facts(variant: str, options: dict[str, Any]) -> dict[str, Any]:
    from dicepoker.solver import Solver

    solver = Solver.for_rules(get_rules(variant, options), cache=False)
    table = np.ascontiguousarray(solver.table)
    return {
        "start_value": solver.start_value.hex(),
        "table_sha256": hashlib.sha256(table.tobytes()).hexdigest(),
        "shape": list(table.shape),
    }


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


GAME_IDS = [(name, seed) for name, _, _, _, seeds in CASES for seed in seeds]


@pytest.mark.parametrize(("name", "seed"), GAME_IDS, ids=[f"{n}-{s}" for n, s in GAME_IDS])
def test_bots_play_the_pinned_games(name: str, seed: int) -> None:
    case = next(case for case in CASES if case[0] == name)
    _, variant, options, levels, _ = case
    pinned = _load(GAMES)[f"{name}-{seed}"]
    played = play_case(variant, options, levels, seed)
    first = next(
        (i for i, (a, b) in enumerate(zip(played, pinned, strict=False)) if a != b),
        min(len(played), len(pinned)),
    )
    assert played == pinned, f"play differs at action {first}: {played[first : first + 3]}"


@pytest.mark.parametrize(("name", "variant", "options"), TABLES, ids=[t[0] for t in TABLES])
def test_solver_tables_are_bit_identical(name: str, variant: str, options: dict[str, Any]) -> None:
    assert table_facts(variant, options) == _load(SOLVER)[name]


def test_published_start_value_exactly() -> None:
    """254.5877287344962 (forced Joker), as an exact float, not to a tolerance."""
    assert float.fromhex(_load(SOLVER)["yahtzee"]["start_value"]) == 254.5877287344962


def _write() -> None:
    games = {
        f"{name}-{seed}": play_case(variant, options, levels, seed)
        for name, variant, options, levels, seeds in CASES
        for seed in seeds
    }
    GAMES.write_text(json.dumps(games, separators=(",", ":")) + "\n", encoding="utf-8")
    tables = {name: table_facts(variant, options) for name, variant, options in TABLES}
    SOLVER.write_text(json.dumps(tables, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/test_golden_play.py --write")
    _write()
