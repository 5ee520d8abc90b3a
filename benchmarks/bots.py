"""Strength and speed of the bot levels.

    .venv/bin/python benchmarks/bots.py --workers 2
    .venv/bin/python benchmarks/bots.py --games 2000 --school-games 400 --duel-games 200

Prints, for every variant and level, the mean solitaire score +- its standard error (`--games`
games for the single-sheet variants, `--school-games` for `school` with 3 columns), the win rate of
`expert` against `greedy` and against `basic` in 2-player School games (`--duel-games` each, seats
alternating; a shared first place counts half), and the decision latency of each level, p50 and
p95 in milliseconds, over every decision with dice on the table (the first throw of a turn is not
a decision). Game g of a level uses the dice seeded with `--seed + g`, so levels meet the same
dice. `--json FILE` also writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicepoker.bots import Bot, make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, ranking, totals
from dicepoker.rules import Rules, get_rules
from dicepoker.simulate import play_game

VARIANTS: dict[str, dict[str, object]] = {
    "yahtzee": {},
    "yahtzee15": {},
    "poker-dice": {},
    "school": {"columns": 3},
}
LEVELS = ("random", "greedy", "basic", "expert")


@dataclass
class Outcome:
    scores: list[list[int]] = field(default_factory=list)  # per game, per seat
    wins: list[float] = field(default_factory=list)  # per game: seat 0's share of first place
    latency: list[float] = field(default_factory=list)  # seconds, seat 0's decisions


class _Timed(Bot):
    """A bot whose decisions (with dice on the table) are timed into `outcome.latency`."""

    def __init__(self, bot: Bot, outcome: Outcome) -> None:
        self.bot, self.outcome, self.level = bot, outcome, bot.level

    def choose(self, state: GameState) -> Action:
        if state.rolls == 0:
            return self.bot.choose(state)
        start = time.perf_counter()
        action = self.bot.choose(state)
        self.outcome.latency.append(time.perf_counter() - start)
        return action


def play(
    rules: Rules, bots: list[Bot], seed: int, timed: int | None, outcome: Outcome
) -> GameState:
    """One game, played by the one bot loop (`dicepoker.simulate.play_game`); the decisions of
    seat `timed` (if any) are timed into `outcome.latency`."""
    seats = [_Timed(bot, outcome) if seat == timed else bot for seat, bot in enumerate(bots)]
    return play_game(rules, seats, SeededDice(seed)).state


def solitaire(variant: str, level: str, seeds: list[int]) -> Outcome:
    rules = get_rules(variant, VARIANTS[variant])
    outcome = Outcome()
    bot = make_bot(level, seeds[0] if seeds else 0)
    if seeds:  # load tables (the exact solver's) before timing
        play(rules, [bot], seeds[0], None, Outcome())
    for seed in seeds:
        state = play(rules, [bot], seed, 0, outcome)
        outcome.scores.append(list(totals(state)))
    return outcome


def duel(level: str, rival: str, seeds: list[int]) -> Outcome:
    """`level` against `rival` in 2-player School games; `level` sits first in even games."""
    rules = get_rules("school", VARIANTS["school"])
    outcome = Outcome()
    for seed in seeds:
        mine, theirs = make_bot(level, seed), make_bot(rival, seed + 1)
        first = seed % 2 == 0
        bots = [mine, theirs] if first else [theirs, mine]
        state = play(rules, bots, seed, None, outcome)
        seat = 0 if first else 1
        places = ranking(state)
        winners = [s.seat for s in places if s.place == 1]
        scores = totals(state)
        outcome.scores.append([scores[seat], scores[1 - seat]])
        outcome.wins.append(1 / len(winners) if seat in winners else 0.0)
    return outcome


def _chunks(seeds: list[int], parts: int) -> Iterator[list[int]]:
    size = max(1, math.ceil(len(seeds) / parts))
    for start in range(0, len(seeds), size):
        yield seeds[start : start + size]


def _merge(parts: list[Outcome]) -> Outcome:
    out = Outcome()
    for part in parts:
        out.scores.extend(part.scores)
        out.wins.extend(part.wins)
        out.latency.extend(part.latency)
    return out


def mean_se(values: list[float] | list[int]) -> tuple[float, float]:
    array = np.asarray(values, dtype=np.float64)
    if len(array) < 2:
        return float(array.mean()) if len(array) else 0.0, 0.0
    return float(array.mean()), float(array.std(ddof=1) / math.sqrt(len(array)))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="single-sheet solitaire games")
    parser.add_argument("--school-games", type=int, default=2_000, help="School solitaire games")
    parser.add_argument("--duel-games", type=int, default=1_000, help="2-player School games")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=list(LEVELS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"solitaire": [], "duels": [], "args": vars(args) | {"json": None}}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        print(
            f"{'variant':<11} {'level':<7} {'games':>6} {'mean':>9} {'+-se':>6} "
            f"{'p50 ms':>7} {'p95 ms':>7} {'seconds':>8}"
        )
        for variant in args.variants:
            games = args.school_games if variant == "school" else args.games
            seeds = list(range(args.seed, args.seed + games))
            for level in args.levels:
                start = time.perf_counter()
                jobs = [
                    pool.submit(solitaire, variant, level, chunk)
                    for chunk in _chunks(seeds, args.workers * 4)
                ]
                outcome = _merge([job.result() for job in jobs])
                mean, se = mean_se([s[0] for s in outcome.scores])
                p50, p95 = (
                    (float(np.percentile(outcome.latency, q)) * 1000 for q in (50, 95))
                    if outcome.latency
                    else (0.0, 0.0)
                )
                seconds = time.perf_counter() - start
                row = {
                    "variant": variant,
                    "level": level,
                    "games": len(outcome.scores),
                    "mean": round(mean, 3),
                    "se": round(se, 3),
                    "p50_ms": round(p50, 3),
                    "p95_ms": round(p95, 3),
                    "seconds": round(seconds, 1),
                }
                report["solitaire"].append(row)
                print(
                    f"{variant:<11} {level:<7} {row['games']:>6} {mean:>9.2f} {se:>6.2f} "
                    f"{p50:>7.2f} {p95:>7.2f} {seconds:>8.0f}",
                    flush=True,
                )
        if "school" in args.variants and "expert" in args.levels and args.duel_games > 0:
            seeds = list(range(args.seed, args.seed + args.duel_games))
            for rival in ("greedy", "basic"):
                start = time.perf_counter()
                jobs = [
                    pool.submit(duel, "expert", rival, chunk)
                    for chunk in _chunks(seeds, args.workers * 4)
                ]
                outcome = _merge([job.result() for job in jobs])
                rate, rate_se = mean_se(outcome.wins)
                mine, _ = mean_se([s[0] for s in outcome.scores])
                theirs, _ = mean_se([s[1] for s in outcome.scores])
                row = {
                    "rival": rival,
                    "games": len(outcome.wins),
                    "win_rate": round(rate, 4),
                    "se": round(rate_se, 4),
                    "expert_mean": round(mine, 1),
                    "rival_mean": round(theirs, 1),
                    "seconds": round(time.perf_counter() - start, 1),
                }
                report["duels"].append(row)
                print(
                    f"school 2-player: expert wins {100 * rate:.1f}% +- {100 * rate_se:.1f} "
                    f"of {row['games']} games against {rival} (means {mine:.1f} vs {theirs:.1f})",
                    flush=True,
                )
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
