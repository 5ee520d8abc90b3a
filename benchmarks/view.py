"""What a view costs the server: building the position view and writing it as JSON.

The server builds and sends the view after every event of every game (benchmarks/load.py). For
every position of one seeded random game of each kind below, this measures, in microseconds per
position (CPU time, the best of `--repeat` runs, the least disturbed by other work):

- `build`: `game_view(state)` from scratch (no cache);
- `build+write`: the same, then `to_json()`;
- `event`: what the game master does per event, with the game's `ViewCache` (the sheet part
  reused while the sheets are the same objects, the sheets of the players who did not move
  reused) and the view written as JSON.

    python benchmarks/view.py [--repeat R] [--json]

`--against FILE` measures another `view.py` beside this one, in the same process, the two taking
turns (CPU time, the best of `--repeat` rounds: the fairest comparison on a busy machine), for
example the untyped view that came before `dicepoker.protocol`, whose views were dicts written
with orjson:

    git show 9427d09:src/dicepoker/view.py > old_view.py
    python benchmarks/view.py --against old_view.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from dicepoker import view as typed_view
from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, apply, legal_actions, new_game
from dicepoker.rules import get_rules
from dicepoker.view import ViewCache, game_view

GAMES = [("school", 4), ("yahtzee", 2), ("school", 2)]


def positions(variant: str, players: int, seed: int = 7) -> list[GameState]:
    rules = get_rules(variant)
    choose, dice = random.Random(seed).choice, SeededDice(seed)
    state = new_game(rules, [f"P{n + 1}" for n in range(players)])
    out = [state]
    while not state.finished:
        state = apply(state, choose(legal_actions(state)), dice)
        out.append(state)
    return out


def best(run: Callable[[], object], repeat: int) -> float:
    fastest = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        fastest = min(fastest, time.process_time() - start)
    return fastest


def measure(variant: str, players: int, repeat: int) -> dict[str, float | int | str]:
    states = positions(variant, players)
    count = len(states)

    def build() -> None:
        for state in states:
            game_view(state)

    def build_write() -> None:
        for state in states:
            game_view(state).to_json()

    def event() -> None:
        cache = ViewCache()
        for state in states:
            game_view(state, cache).to_json()

    middle = game_view(states[count // 2]).to_json()
    return {
        "game": f"{variant} {players}p",
        "positions": count,
        "build_us": round(best(build, repeat) / count * 1e6, 1),
        "build_write_us": round(best(build_write, repeat) / count * 1e6, 1),
        "event_us": round(best(event, repeat) / count * 1e6, 1),
        "bytes": len(middle.encode()),
    }


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("other_view", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(view: Any) -> object:
    return view.to_json() if hasattr(view, "to_json") else orjson.dumps(view)


def compare(other: ModuleType, variant: str, players: int, rounds: int) -> dict[str, Any]:
    """Both modules' build, build+write and event costs (us per position, CPU time)."""
    states = positions(variant, players)
    count = len(states)

    def runs(module: ModuleType) -> dict[str, Callable[[], None]]:
        def build() -> None:
            for state in states:
                module.game_view(state)

        def build_write() -> None:
            for state in states:
                _write(module.game_view(state))

        def event() -> None:
            cache = module.ViewCache()
            for state in states:
                _write(module.game_view(state, cache))

        return {"build": build, "build+write": build_write, "event": event}

    sides = {"before": runs(other), "after": runs(typed_view)}
    best_of: dict[tuple[str, str], float] = {}
    for _ in range(rounds):
        for name in ("build", "build+write", "event"):
            for side, measures in sides.items():
                start = time.process_time()
                measures[name]()
                spent = (time.process_time() - start) / count * 1e6
                best_of[(name, side)] = min(best_of.get((name, side), spent), spent)
    return {
        "game": f"{variant} {players}p",
        "positions": count,
        **{f"{name} {side}": round(value, 1) for (name, side), value in best_of.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--against", type=Path, help="Another view.py to measure beside this one.")
    args = parser.parse_args()
    if args.against is not None:
        other = _load(args.against)
        rows = [compare(other, variant, players, args.repeat) for variant, players in GAMES]
        if args.json:
            print(json.dumps(rows))
            return
        for row in rows:
            print(
                f"{row['game']:>11} ({row['positions']} positions), us per position, before -> "
                "after: "
                + "; ".join(
                    f"{name} {row[f'{name} before']:.0f} -> {row[f'{name} after']:.0f}"
                    for name in ("build", "build+write", "event")
                )
            )
        return
    results = [measure(variant, players, args.repeat) for variant, players in GAMES]
    if args.json:
        print(json.dumps(results))
        return
    for row in results:
        print(
            f"{row['game']:>11}: {row['positions']:4} positions, view of {row['bytes']} bytes;"
            f" build {row['build_us']:7.1f} us, build+write {row['build_write_us']:7.1f} us,"
            f" per event (cached, written) {row['event_us']:7.1f} us"
        )


if __name__ == "__main__":
    main()
