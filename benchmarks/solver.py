"""Exact solver figures: table build times and optimal games per second, against yatzy-solver.

- `yahtzee` (forced Joker) built by ours and by the PyPI `yatzy-solver` (variant
  `american+forced-joker`, the same game) in the same run, numba's compiled code already cached:
  both times and the ratio ours / theirs (target <= 0.25). Each is timed `--repeat` times,
  interleaved, and the best time counts (the run least disturbed by other work).
- `yahtzee15` and `poker-dice` build times.
- The first build after a fresh install: a new Python process with an empty NUMBA_CACHE_DIR, so
  every kernel is compiled; import, compilation and build timed together (and the build alone).
- Optimal games simulated per second: `Solver.simulate` against yatzy-solver's `simulate`
  (optimal policy), the same number of games (target ours / theirs >= 2.0).
- The mean of `--check-games` optimal games (default 100,000) +- its standard error against the
  start value (within 3 standard errors).
- The second-moment tables (`build_moments`) of `yahtzee`, `yahtzee15` and `poker-dice`: build
  times (best of `--repeat`), and the mean time of one `Solver.turn_outcomes` call on random
  positions (random states, hands and rolls left), with the state's turn levels cached and with
  them computed in the call (`--moments-only`: these figures alone, without yatzy-solver).

Both sides use every core of the machine. Tables are built in memory (no disk cache involved).

    python benchmarks/solver.py [--repeat R] [--games N] [--check-games N] [--skip-fresh]
                                [--moments-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numba
import numpy as np

from dicepoker.rules import get_rules
from dicepoker.solver import Position, Solver, build_moments, build_spec, build_table

FRESH_SCRIPT = """
import json, time
start = time.perf_counter()
from dicepoker.rules import get_rules
from dicepoker.solver import build_spec, build_table
spec = build_spec(get_rules("yahtzee"))
ready = time.perf_counter()
table = build_table(spec)
first = time.perf_counter()
table = build_table(spec)
second = time.perf_counter()
print(json.dumps({"import": ready - start, "first_build": first - ready,
                  "total": first - start, "second_build": second - first,
                  "value": float(table[0, 0, 0])}))
"""


def best_time(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def build_ours(variant: str) -> Callable[[], object]:
    spec = build_spec(get_rules(variant))
    return lambda: build_table(spec)


def fresh_build() -> dict[str, float]:
    """Build `yahtzee` in a new process whose numba cache is empty (compilation included)."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        done = subprocess.run(
            [sys.executable, "-c", FRESH_SCRIPT],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_turn_outcomes(solver: Solver, calls: list[tuple[Position, Any, int]]) -> None:
    for pos, dice, left in calls:
        solver.turn_outcomes(pos, dice, left)


def moments_figures(repeat: int, calls: int = 2_000) -> dict[str, Any]:
    """Second-moment build times, and the mean time of a `turn_outcomes` call."""
    out: dict[str, Any] = {}
    for variant in ("yahtzee", "yahtzee15", "poker-dice"):
        solver = Solver.for_rules(get_rules(variant), cache=False)
        build = partial(build_moments, solver.spec, solver.table)
        build()  # warm up (compiles the kernels on a fresh install)
        seconds = best_time(build, repeat)
        print(f"{variant} moments build: {seconds:.3f} s (value table: {solver.seconds:.3f} s)")
        out[f"{variant}_moments_build"] = seconds
    for variant in ("yahtzee", "poker-dice"):
        solver = Solver.for_rules(get_rules(variant), cache=False)
        spec = solver.spec
        space = spec.space
        chooser = np.random.default_rng(1)
        states = np.argwhere(~np.isnan(solver.table[: spec.full_mask]))
        picks = states[chooser.integers(len(states), size=calls)]
        hands = chooser.integers(space.n_hands, size=calls)
        lefts = chooser.integers(-1, spec.rerolls + 1, size=calls)  # -1: the turn not rolled yet
        positions: list[tuple[Position, Any, int]] = []
        for (filled, flag, upper), hand, left in zip(picks, hands, lefts, strict=True):
            pos = Position(int(filled), int(flag), int(upper), 0)
            dice = None if left < 0 else space.hands[int(hand)]
            positions.append((pos, dice, max(int(left), 0)))
        # The solver keeps the turn levels of its last 256 states: a pass over all the random
        # positions computes them in every call, one over the last 200 finds them cached.
        cold_run = partial(run_turn_outcomes, solver, positions)
        cold_run()  # warm up (compiles)
        cold = best_time(cold_run, max(1, repeat // 2)) / len(positions)
        warm = best_time(partial(run_turn_outcomes, solver, positions[-200:]), repeat) / 200
        print(
            f"{variant} turn_outcomes: {warm * 1e6:.1f} us a call with the state's turn levels "
            f"cached, {cold * 1e6:.1f} us computing them too (mean of {len(positions)} random "
            "positions)"
        )
        out[f"{variant}_turn_outcomes_us"] = {"cached": warm * 1e6, "uncached": cold * 1e6}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each build")
    parser.add_argument("--games", type=int, default=20_000, help="games for the games/s figure")
    parser.add_argument("--check-games", type=int, default=100_000, help="games for the mean")
    parser.add_argument("--skip-fresh", action="store_true", help="skip the fresh-install build")
    parser.add_argument(
        "--moments-only", action="store_true", help="only the second moments and turn outcomes"
    )
    args = parser.parse_args()

    repeat: int = args.repeat
    out: dict[str, Any] = {"threads": numba.get_num_threads(), "cpus": os.cpu_count()}
    print(f"threads: numba {out['threads']}, cpus {out['cpus']}")
    if args.moments_only:
        out["moments"] = moments_figures(repeat)
        print(json.dumps(out))
        return
    import yatzy_solver as ys

    # Warm up: load every compiled kernel from numba's cache (or compile it once).
    ours_yahtzee = build_ours("yahtzee")
    ours_yahtzee()
    variant = ys.Variant("american+forced-joker")
    theirs_solver = ys.Solver.build(variant)

    ours_times: list[float] = []
    theirs_times: list[float] = []
    for _ in range(repeat):  # interleaved, so that both see the same machine
        ours_times.append(best_time(ours_yahtzee, 1))
        theirs_times.append(best_time(lambda: ys.Solver.build(variant), 1))
    ours_t, theirs_t = min(ours_times), min(theirs_times)
    ratio = ours_t / theirs_t
    print(f"yahtzee build: ours {ours_t:.3f} s, yatzy-solver {theirs_t:.3f} s (best of {repeat})")
    print(f"  all runs: ours {[round(t, 3) for t in ours_times]}")
    print(f"            yatzy-solver {[round(t, 3) for t in theirs_times]}")
    print(f"  ours / theirs = {ratio:.3f}   (target <= 0.25)")
    out["yahtzee_build"] = {"ours": ours_t, "yatzy_solver": theirs_t, "ratio": ratio}

    for variant in ("yahtzee15", "poker-dice"):
        build = build_ours(variant)
        build()
        seconds = best_time(build, repeat)
        print(f"{variant} build: {seconds:.3f} s")
        out[f"{variant}_build"] = seconds

    if not args.skip_fresh:
        fresh = fresh_build()
        print(
            f"first build after a fresh install (empty numba cache): {fresh['total']:.1f} s "
            f"(import {fresh['import']:.1f} s, compile + build {fresh['first_build']:.1f} s; "
            f"the next build in that process {fresh['second_build']:.3f} s)"
        )
        out["fresh_install"] = fresh

    solver = Solver.for_rules(get_rules("yahtzee"), cache=False)
    solver.simulate(100, seed=1)  # warm up
    games: int = args.games
    ours_sim = best_time(lambda: solver.simulate(games, seed=7), max(1, repeat // 2))
    theirs_sim = best_time(lambda: theirs_solver.simulate(games, seed=7), max(1, repeat // 2))
    ours_rate, theirs_rate = games / ours_sim, games / theirs_sim
    sim_ratio = ours_rate / theirs_rate
    print(
        f"optimal games/s ({games} games): ours {ours_rate:,.0f}, "
        f"yatzy-solver {theirs_rate:,.0f}; ours / theirs = {sim_ratio:.2f}   (target >= 2.0)"
    )
    out["games_per_second"] = {"ours": ours_rate, "yatzy_solver": theirs_rate, "ratio": sim_ratio}

    check: int = args.check_games
    start = time.perf_counter()
    scores = solver.simulate(check, seed=2024)
    seconds = time.perf_counter() - start
    mean = float(scores.mean())
    se = float(scores.std() / np.sqrt(len(scores)))
    z = (mean - solver.start_value) / se
    print(
        f"{check} optimal games: mean {mean:.4f} +- {se:.4f} (SE), start value "
        f"{solver.start_value:.7f}, {z:+.2f} SE ({seconds:.2f} s)"
    )
    out["check"] = {
        "games": check,
        "mean": mean,
        "se": se,
        "start_value": solver.start_value,
        "z": z,
        "within_3_se": abs(z) < 3,
    }
    out["moments"] = moments_figures(repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
