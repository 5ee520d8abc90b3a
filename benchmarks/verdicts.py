"""Where the bots' levels fall on the analysis's verdicts (`dicepoker.review.VERDICTS`).

    .venv/bin/python benchmarks/verdicts.py --variants yahtzee yahtzee15 poker-dice --games 20
    .venv/bin/python benchmarks/verdicts.py --variants school --games 4

For every preset (default options) and level, plays `--games` solitaire games (the dice of
`--seed + g`) and analyses each (`dicepoker.review.analyse`); prints the mean loss per decision
over the games, as points and as a share of a turn's points (`bots.fallible.points_per_turn`,
the verdict's scale), its range over the games, and the verdict of the mean. A game's own verdict
varies around its level's: the range says how much.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dicepoker.bots import LADDER, make_bot
from dicepoker.bots.fallible import points_per_turn
from dicepoker.dice import SeededDice
from dicepoker.review import analyse, verdict
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game

PRESETS = ("yahtzee", "yahtzee15", "poker-dice", "school")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(PRESETS), choices=PRESETS)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5000)
    args = parser.parse_args()
    for variant in args.variants:
        rules = get_rules(variant, {})
        turn = points_per_turn(rules)
        print(f"\n{variant}: a turn is worth {turn:.2f} points to the expert")
        print(f"  {'level':<13} {'loss/decision':>13} {'share':>7} {'range':>15}  verdict")
        for level in ("random", "greedy", *LADDER):
            start = time.perf_counter()
            means = []
            for g in range(args.games):
                bot = make_bot(level, seed=args.seed + g)
                game = play_game(rules, [bot], SeededDice(args.seed + g))
                means.append(analyse(game.to_record()).players[0].mean_loss)
            mean = float(np.mean(means))
            low, high = float(np.min(means)) / turn, float(np.max(means)) / turn
            print(
                f"  {level:<13} {mean:13.3f} {mean / turn:7.1%} {low:6.1%} - {high:6.1%}"
                f"  {verdict(mean, turn)}  ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
