"""Strength and speed of the bot levels, and the ladder's round-robin.

    .venv/bin/python tools/fit/bots.py --workers 2
    .venv/bin/python tools/fit/bots.py --games 2000 --school-games 400 --duel-games 200
    .venv/bin/python tools/fit/bots.py --games 0 --school-games 0 --duel-games 0 \
        --round-robin 1000 --school-round-robin 100 \
        --anchors src/dicepoker/bots/data/ladder_ratings.json

Prints, for every variant and level, the mean solitaire score +- its standard error (`--games`
games for the single-sheet variants, `--school-games` for `school` with 3 columns), the win rate of
`expert` against `greedy` and against `basic` in 2-player School games (`--duel-games` each, seats
alternating; a shared first place counts half), and the decision latency of each level, p50 and
p95 in milliseconds, over every decision with dice on the table (the first throw of a turn is not
a decision). Game g of a level uses the dice seeded with `--seed + g`, so levels meet the same
dice. `--json FILE` also writes the figures as JSON. `--compiled` makes the School expert's
features with numba's kernels, as a server's bot worker does (the same moves, faster).

`--round-robin N` plays N 2-player games between every two levels in every variant (seats
alternating, game g on the dice of `--seed + g`; `--school-round-robin` for School, on the
sheets of `--school-columns`), the ladder's neighbours `--steps-games` more, added to the games
of an earlier run's `--json` report with `--extend` (give that run's games as `--seed`), prints each
pairing's win rate, the ladder's neighbours' head-to-head with its standard error and whether
each step is clearly stronger (by at least 3 standard errors), and fits every level's anchor
rating (`dicepoker.ratings.fit_anchors`); `--anchors FILE` writes them, per rating pool, for
`dicepoker.ratings`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dicepoker.bots import LADDER, Bot, make_bot
from dicepoker.bots import LEVELS as ALL_LEVELS
from dicepoker.bots.school_features import compile_features
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, ranking, totals
from dicepoker.ratings import Pairing, Rating, fit_anchors, pool_of, shown
from dicepoker.rules import Rules, get_rules
from dicepoker.simulate import play_game

VARIANTS: dict[str, dict[str, object]] = {
    "yahtzee": {},
    "yahtzee15": {},
    "poker-dice": {},
    "school": {"columns": 3},
}
LEVELS = tuple(ALL_LEVELS)
# Clearly stronger: a step of the ladder wins its head-to-head by this many standard errors.
CLEAR = 3.0


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


def duel(
    level: str,
    rival: str,
    seeds: list[int],
    variant: str = "school",
    options: dict[str, object] | None = None,
) -> Outcome:
    """`level` against `rival` in 2-player games of `variant` (its benchmark options, or
    `options`); `level` sits first in even games."""
    rules = get_rules(variant, VARIANTS[variant] if options is None else options)
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


@dataclass
class Tally:
    """A pairing's games so far: `first`'s points (a win 1, a shared first place 1/2) and both
    sides' summed scores."""

    games: int = 0
    score: float = 0.0
    first_points: float = 0.0
    second_points: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.games += len(outcome.wins)
        self.score += float(sum(outcome.wins))
        self.first_points += float(sum(s[0] for s in outcome.scores))
        self.second_points += float(sum(s[1] for s in outcome.scores))

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.5

    @property
    def se(self) -> float:
        return math.sqrt(self.rate * (1 - self.rate) / self.games) if self.games else 0.0

    def means(self) -> list[float]:
        return [
            round(self.first_points / max(1, self.games), 2),
            round(self.second_points / max(1, self.games), 2),
        ]


def round_robin(
    pool: ProcessPoolExecutor,
    variant: str,
    games: int,
    seed: int,
    workers: int,
    options: dict[str, object] | None = None,
    steps_games: int = 0,
    earlier: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every two levels of LEVELS in `games` 2-player games of `variant` (with `options`, else
    its benchmark options), the ladder's neighbours in `steps_games` more, added to the games of
    an `earlier` run of the same pool (its report): the pairings, the ladder's steps and the
    fitted anchors."""
    options = VARIANTS[variant] if options is None else options
    rules = get_rules(variant, options)
    name = pool_of(rules)
    pairs = [(a, b) for i, a in enumerate(LEVELS) for b in LEVELS[i + 1 :]]
    neighbours = {tuple(sorted(step)) for step in itertools.pairwise(LADDER)}
    tallies = {pair: Tally() for pair in pairs}
    for row in (earlier or {}).get("pairings", []):
        tally = tallies[(row["first"], row["second"])]
        tally.games, tally.score = int(row["games"]), float(row["score"])
        tally.first_points = float(row["means"][0]) * tally.games
        tally.second_points = float(row["means"][1]) * tally.games
    jobs = {}
    for pair in pairs:
        count = games + (steps_games if tuple(sorted(pair)) in neighbours else 0)
        seeds = list(range(seed, seed + count))
        jobs[pair] = [
            pool.submit(duel, pair[0], pair[1], chunk, variant, options)
            for chunk in _chunks(seeds, workers)
        ]
    start = time.perf_counter()
    for pair, parts in jobs.items():
        tallies[pair].add(_merge([job.result() for job in parts]))
    pairings = [Pairing(a, b, t.games, t.score) for (a, b), t in tallies.items() if t.games]
    anchors = fit_anchors(list(LEVELS), pairings, centre=list(LADDER))
    steps = []
    for weaker, stronger in itertools.pairwise(LADDER):
        if (stronger, weaker) in tallies:
            tally = tallies[(stronger, weaker)]
            rate, (mine, theirs) = tally.rate, tally.means()
        else:
            tally = tallies[(weaker, stronger)]
            rate, (theirs, mine) = 1 - tally.rate, tally.means()
        clear = rate - 0.5 >= CLEAR * tally.se
        steps.append(
            {
                "stronger": stronger,
                "weaker": weaker,
                "games": tally.games,
                "win_rate": round(rate, 4),
                "se": round(tally.se, 4),
                "means": [mine, theirs],
                "clear": bool(clear),
            }
        )
        print(
            f"{name:<11} {stronger:>12} beats {weaker:<12} {100 * rate:5.1f}%"
            f" +- {100 * tally.se:4.1f} of {tally.games} (means {mine:.1f} vs {theirs:.1f})"
            f" {'clear' if clear else 'NOT CLEAR'}",
            flush=True,
        )
    for level in LEVELS:
        entry = anchors[level]
        entry["shown"] = shown(Rating(entry["mu"], entry["sigma"]))
        print(
            f"{name:<11} anchor {level:<12} mu {entry['mu']:7.2f} +- {entry['se']:.2f}"
            f"  shown {entry['shown']}",
            flush=True,
        )
    print(
        f"{name:<11} round-robin of {len(pairs)} pairings: {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    return {
        "pool": name,
        "pairings": [
            {
                "first": a,
                "second": b,
                "games": t.games,
                "score": t.score,
                "win_rate": round(t.rate, 4),
                "se": round(t.se, 4),
                "means": t.means(),
            }
            for (a, b), t in tallies.items()
        ],
        "steps": steps,
        "anchors": anchors,
    }


def win_duels(args: argparse.Namespace) -> dict[str, Any]:
    """`--win-duel N`: the expert, which plays to win, against the expected-score player."""
    import win_duel

    report: dict[str, Any] = {"win_duels": [], "args": vars(args) | {"json": str(args.json)}}
    print(
        f"{'variant':<11} {'players':>7} {'games':>7} {'expert wins':>11} {'fair':>6} "
        f"{'+-se':>7} {'(indep.)':>8} {'margin/se':>9} {'seconds':>8}"
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for variant in args.variants:
            for players in args.win_duel_players:
                seeds = list(range(args.seed, args.seed + args.win_duel // players))
                result = win_duel.run(
                    variant, VARIANTS[variant], players, seeds, pool, args.workers
                )
                fair = 1 / players
                # Groups that all came out the same (the two players agreed everywhere) have no
                # spread: the margin is then no measure at all.
                margin = (result.rate - fair) / result.se if result.se > 0 else math.nan
                print(
                    f"{variant:<11} {players:>7} {result.games:>7} {result.rate:>11.4f} "
                    f"{fair:>6.3f} {result.se:>7.4f} {result.naive_se:>8.4f} "
                    f"{margin:>9.1f} {result.seconds:>8.0f}",
                    flush=True,
                )
                report["win_duels"].append(
                    {
                        "variant": variant,
                        "players": players,
                        "games": result.games,
                        "rate": result.rate,
                        "se": result.se,
                        "naive_se": result.naive_se,
                        "seconds": result.seconds,
                    }
                )
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1))
    return report


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
    parser.add_argument("--round-robin", type=int, default=0, help="games per pairing")
    parser.add_argument(
        "--school-round-robin", type=int, default=None, help="School's (default: --round-robin)"
    )
    parser.add_argument("--anchors", type=Path, default=None, help="write the fitted anchors here")
    parser.add_argument(
        "--school-columns", type=int, nargs="+", default=[3], help="School sheets to round-robin"
    )
    parser.add_argument(
        "--steps-games", type=int, default=0, help="more games for the ladder's neighbours"
    )
    parser.add_argument(
        "--extend", type=Path, default=None, help="add this run's games to a report's (--json)"
    )
    parser.add_argument(
        "--win-duel",
        type=int,
        default=0,
        help="games of expert against points (tools/fit/win_duel.py)",
    )
    parser.add_argument("--win-duel-players", type=int, nargs="+", default=[2, 3])
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="the School features from numba's kernels, as a server's bot worker makes them",
    )
    args = parser.parse_args(argv)
    if args.win_duel:
        return win_duels(args)

    report: dict[str, Any] = {
        "solitaire": [],
        "duels": [],
        "round_robin": [],
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
    }
    start_worker = compile_features if args.compiled else None
    with ProcessPoolExecutor(max_workers=args.workers, initializer=start_worker) as pool:
        print(
            f"{'variant':<11} {'level':<7} {'games':>6} {'mean':>9} {'+-se':>6} "
            f"{'p50 ms':>7} {'p95 ms':>7} {'seconds':>8}"
        )
        for variant in args.variants:
            games = args.school_games if variant == "school" else args.games
            seeds = list(range(args.seed, args.seed + games))
            for level in args.levels if games > 0 else ():
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
        school_rr = args.round_robin if args.school_round_robin is None else args.school_round_robin
        earlier: dict[str, dict[str, Any]] = (
            {run["pool"]: run for run in json.loads(args.extend.read_text("utf-8"))["round_robin"]}
            if args.extend is not None
            else {}
        )
        for variant in args.variants:
            games = school_rr if variant == "school" else args.round_robin
            sheets: list[dict[str, object]] = (
                [{"columns": columns} for columns in args.school_columns]
                if variant == "school"
                else [VARIANTS[variant]]
            )
            for options in sheets if games > 0 or args.steps_games > 0 else []:
                name = pool_of(get_rules(variant, options))
                report["round_robin"].append(
                    round_robin(
                        pool,
                        variant,
                        games,
                        args.seed,
                        args.workers * 2,
                        options,
                        args.steps_games,
                        earlier.get(name),
                    )
                )
    if args.anchors is not None and report["round_robin"]:
        write_anchors(args.anchors, report["round_robin"])
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def write_anchors(path: Path, runs: list[dict[str, Any]]) -> None:
    """The anchors file `dicepoker.ratings` reads: per pool, each level's mu and sigma (and the
    fit's standard error, the shown number and the ladder's measured steps, for people). The
    pools of an existing file that this run did not measure are kept."""
    old: dict[str, Any] = (
        json.loads(path.read_text("utf-8")) if path.exists() else {"pools": {}, "steps": {}}
    )
    data = {
        "about": (
            "Anchor ratings of the bot levels, per rating pool, from a round-robin of 2-player "
            "games between every two levels (tools/fit/bots.py --round-robin; the games per "
            "pairing are in each step), fitted by dicepoker.ratings.fit_anchors. A pool not "
            "measured takes its variant's nearest measured pool."
        ),
        "ladder": list(LADDER),
        "pools": old["pools"] | {run["pool"]: run["anchors"] for run in runs},
        "steps": old["steps"] | {run["pool"]: run["steps"] for run in runs},
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"anchors written to {path}", flush=True)


if __name__ == "__main__":
    main()
