"""Full random games per second for every variant, and `yahtzee` against the PyPI engine pyhtzee.

Each game is played from the empty sheet to the end by picking uniformly among the legal actions
the engine lists, and applying the choice through `apply`, which validates every action (full
validation on). pyhtzee plays the same number of games the same way (`sample_action` over
`get_possible_actions`, then `take_action`, which also checks the action) in the same run, so the
ratio is measured on the same machine at the same moment.

    python benchmarks/engine.py [--games N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from functools import partial

from dicepoker.dice import SeededDice
from dicepoker.engine import apply, legal_actions, new_game
from dicepoker.rules import get_rules, variant_names


def play_ours(variant: str, games: int, seed: int) -> None:
    rules = get_rules(variant)
    choose = random.Random(seed).choice
    dice = SeededDice(seed + 1)
    for _ in range(games):
        state = new_game(rules, ["a"])
        while not state.finished:
            state = apply(state, choose(legal_actions(state)), dice)


def play_pyhtzee(games: int, seed: int) -> None:
    from pyhtzee import Pyhtzee

    for number in range(games):
        game = Pyhtzee(seed=seed + number + 1)
        while not game.is_finished():
            game.take_action(game.sample_action())


def rate(run: Callable[[], None], games: int, repeat: int) -> float:
    """Best games-per-second over `repeat` runs (the least disturbed by other work)."""
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = max(best, games / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    games, repeat = args.games, args.repeat
    results: dict[str, float] = {}
    for variant in variant_names():
        results[variant] = rate(partial(play_ours, variant, games, 7), games, repeat)
        print(f"{variant:<11} {results[variant]:9.0f} games/s")
    theirs = rate(lambda: play_pyhtzee(games, 7), games, repeat)
    ratio = results["yahtzee"] / theirs
    print(f"{'pyhtzee':<11} {theirs:9.0f} games/s   (yahtzee, same number of games)")
    print(f"yahtzee / pyhtzee: {ratio:.2f}x   (target >= 2.0)")
    print(
        json.dumps(
            {
                "games": games,
                "games_per_second": results,
                "pyhtzee": theirs,
                "ratio_yahtzee_vs_pyhtzee": round(ratio, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
