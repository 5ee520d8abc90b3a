"""Steps per second of the environments with random legal actions, against pyhtzee in the same run.

- the vectorized environment (`DicePokerVectorEnv`) with 1 and with 1,024 games: steps per
  second (one step = one decision of one game) and whole games per second, the random legal
  action of every game drawn at once with numpy (a uniform index among each mask row's ones);
- one `env.step` of the single environments (the engine-backed `DicePokerEnv` and the compiled
  `FastDicePokerEnv`): its p50 and p95 in microseconds, the action chosen outside the timing;
- pyhtzee's random Yahtzee games per second (`benchmarks/engine.py`'s `play_pyhtzee`), and the
  ratio of the 1,024-game vectorized Yahtzee to it (the target is 10x).

    python benchmarks/envs.py [--seconds S] [--repeat R] [--pyhtzee-games N] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import numpy as np

from dicepoker.envs.solitaire import DicePokerEnv
from dicepoker.envs.vector import DicePokerVectorEnv, FastDicePokerEnv
from dicepoker.rules import variant_names
from engine import play_pyhtzee, rate

BATCH = 1024


def sample(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row of `mask` (0 for a row without one: an ended game, whose
    action the next-step autoreset ignores): the first index whose running count of legal
    actions passes a uniform pick below the row's count."""
    running = np.cumsum(mask, axis=1, dtype=np.int16)
    pick = (rng.random(len(mask)) * running[:, -1]).astype(np.int16)
    chosen: np.ndarray = np.argmax(running > pick[:, None], axis=1)
    return chosen


def vector_rate(variant: str, num_envs: int, seconds: float, repeat: int) -> dict[str, float]:
    """Steps (decisions) and whole games per second of a batch of `num_envs` games: the best of
    `repeat` windows of `seconds` (the least disturbed by other work, as pyhtzee's figure)."""
    env = DicePokerVectorEnv(variant, num_envs)
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=1)
    for _ in range(50):  # compiled and warm
        _, _, _, _, info = env.step(sample(info["action_mask"], rng))
    best = {"steps_per_second": 0.0, "games_per_second": 0.0}
    for _ in range(repeat):
        steps = games = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(20):
                _, _, terminated, _, info = env.step(sample(info["action_mask"], rng))
                games += int(terminated.sum())
            steps += 20 * num_envs
        # Each ended game costs one autoreset step, which is not a decision.
        if games / elapsed > best["games_per_second"]:
            best = {
                "steps_per_second": (steps - games) / elapsed,
                "games_per_second": games / elapsed,
            }
    return best


def step_times(env: Any, steps: int) -> dict[str, float]:
    """p50 and p95 of one `env.step` in microseconds, over `steps` steps of random games."""
    choose = random.Random(2).choice
    times: list[int] = []
    _, info = env.reset(seed=2)
    while len(times) < steps:
        action = choose(np.flatnonzero(info["action_mask"]).tolist())
        begin = time.perf_counter_ns()
        _, _, done, _, info = env.step(action)
        times.append(time.perf_counter_ns() - begin)
        if done:
            _, info = env.reset()
    ordered = np.sort(np.array(times)) / 1000.0
    return {
        "p50_us": float(np.percentile(ordered, 50)),
        "p95_us": float(np.percentile(ordered, 95)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement window")
    parser.add_argument("--repeat", type=int, default=3, help="windows; the best is kept")
    parser.add_argument("--pyhtzee-games", type=int, default=500)
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args()
    results: dict[str, Any] = {"vector": {}, "single": {}}
    for variant in variant_names():
        for num_envs in (1, BATCH):
            found = vector_rate(variant, num_envs, args.seconds, args.repeat)
            results["vector"][f"{variant}/{num_envs}"] = found
            if not args.json:
                print(
                    f"vector {variant:<11} {num_envs:5d} games: "
                    f"{found['steps_per_second']:12,.0f} steps/s "
                    f"{found['games_per_second']:10,.0f} games/s"
                )
    for name, make, steps in (
        ("DicePokerEnv", DicePokerEnv, 3000),
        ("FastDicePokerEnv", FastDicePokerEnv, 20000),
    ):
        for variant in ("yahtzee", "school"):
            found = step_times(make(variant), steps)
            results["single"][f"{name}/{variant}"] = found
            if not args.json:
                print(
                    f"single {name:<17} {variant:<8} step p50 {found['p50_us']:7.1f} us   "
                    f"p95 {found['p95_us']:7.1f} us"
                )
    games = args.pyhtzee_games
    theirs = rate(lambda: play_pyhtzee(games, 7), games, args.repeat)
    ours = results["vector"][f"yahtzee/{BATCH}"]["games_per_second"]
    results["pyhtzee_games_per_second"] = theirs
    results["ratio_yahtzee_vector_vs_pyhtzee"] = ours / theirs
    with open("/proc/loadavg") as handle:
        results["loadavg"] = handle.read().split()[:3]
    if args.json:
        print(json.dumps(results))
        return
    print(f"pyhtzee random Yahtzee games: {theirs:,.0f} games/s (best of {args.repeat} x {games})")
    print(f"vector Yahtzee ({BATCH} games) / pyhtzee: {ours / theirs:.1f}x   (target >= 10)")
    print(f"load average: {' '.join(results['loadavg'])}")


if __name__ == "__main__":
    main()
