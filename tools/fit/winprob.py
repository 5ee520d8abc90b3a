"""How well the win probability (`dicepoker.winprob`) predicts who wins: calibration on bots' games.

    .venv/bin/python tools/fit/winprob.py --fit-skill --skill-games 300 --games 0 --workers 2
    .venv/bin/python tools/fit/winprob.py --variants school --games 300 --workers 2

For every preset (`--variants`, default options), number of players (`--players`, 2 and 3) and
matchup (`--matchups`): `expert` is expert against expert (every seat); `greedy` is expert against
greedy with 2 players, and expert, expert, greedy with 3 (two experts race each other while the
handicap of a weak seat is tested too); `points`, only when named, is the expected-score player in
every seat: the play the model assumes, where the expert plays to win. Game g is played on the dice
of `--seed + g` (the same dice in every matchup) by the project's one game loop
(`dicepoker.simulate.play_game`), the lineup rotated by g seats. At every decision point (every
position where the mover is to act, the first roll of a turn included) it records
`win_probability(state, levels)`, each seat's level given (None for the expert, `greedy` for
greedy), and at the end each seat's share of first place (a tie shares it). It prints, per preset x
players x matchup and pooled per preset:

- the number of predictions (positions x seats) and their Brier score;
- a reliability table by decile of predicted probability: count, mean prediction, observed
  frequency, difference and its standard error; `!` marks a decile of at least `FLAG_COUNT`
  predictions whose difference is over `FLAG_GAP`. The positions of one game are not
  independent: a decile's count says how many predictions fell there, not how many games decided
  it, so the standard error takes the games as the units (their sums of observed less
  predicted); below it, how many deciles are flagged, and how many a model without bias would
  show by chance at those standard errors (and the chance of at least one): with 1,000 games a
  sparse decile's standard error is 0.012-0.020, so 0.03 is under two of them; and where the
  seats play at different levels, each level's worst decile (its own table is in `--json`);
- the Brier score of two baselines measured on the same games, logistic regressions of the win
  on the seat's current score difference to the best rival and to the mean of the rivals (the
  second also with those differences times the share of the game played), fitted on the even
  games and scored on the odd ones (where the model's Brier score is given too);
- p50 and p95 milliseconds per `win_probability` call on a new position (its position cache
  cleared before each call; a backend's caches of the turn are kept, as in a game being played).

`--fit-skill` measures the levels' handicaps first (`tools/fit/winprob_skill.py`).
"""

# ruff: noqa: E402 (the thread limits below must be set before numpy is imported)

from __future__ import annotations

import os

# One thread per process: the games run in parallel processes, and the products are small.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import math
import shlex
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import dicepoker.winprob as winprob
from dicepoker.bots import Bot, make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, ranking, totals
from dicepoker.rules import Rules, get_rules
from dicepoker.simulate import play_game

FloatArray = NDArray[np.float64]

PRESETS = ("yahtzee", "yahtzee15", "poker-dice", "school")
MATCHUPS = ("expert", "greedy")
#: A matchup run only when asked for: every seat the expected-score player (`points`), which is
#: what the model assumes of a seat; it tells the model's own error from the win-seeking expert's.
POINTS = "points"
EXPERT = "expert"
WEAK = "greedy"
FLAG_COUNT = 200
FLAG_GAP = 0.03
DECILES = 10
SKILL_SEEDS = 1_000_000  # the skill games' dice: away from the calibration games'
SKILL = (
    Path(__file__).resolve().parents[2] / "src" / "dicepoker" / "winprob" / "data" / "skill.json"
)


def lineup(matchup: str, players: int) -> tuple[str, ...]:
    """The seats' levels of a matchup (before rotation)."""
    if matchup == EXPERT:
        return (EXPERT,) * players
    if matchup == WEAK:
        return (EXPERT, WEAK) if players == 2 else (EXPERT,) * (players - 1) + (WEAK,)
    if matchup == POINTS:
        return (POINTS,) * players
    raise ValueError(f"unknown matchup {matchup!r}")


def rules_for(variant: str) -> Rules:
    return get_rules(variant, {})


@dataclass
class GameRecord:
    """One game's predictions: per decision point (rows) and seat (columns) the predicted chance,
    the seat's score difference to its best rival and to the mean of its rivals, the share of the
    game played; per seat its share of first place; the seconds of each call."""

    levels: tuple[str, ...]
    preds: FloatArray  # (positions, seats)
    best: FloatArray
    mean: FloatArray
    progress: FloatArray  # (positions,)
    seconds: FloatArray  # (positions,)
    shares: FloatArray  # (seats,)
    totals: tuple[int, ...]


class _Recorder(Bot):
    """A bot whose every decision point is noted (the chances are computed after the game, so
    that a failure is raised, not played around by the bot loop's fallback)."""

    def __init__(self, bot: Bot, seen: list[GameState]) -> None:
        self.bot, self.seen, self.level = bot, seen, bot.level

    def choose(self, state: GameState) -> Action:
        self.seen.append(state)
        return self.bot.choose(state)


def shares_of(state: GameState) -> FloatArray:
    """Each seat's share of first place (1 / the number of seats sharing it)."""
    first = [standing.seat for standing in ranking(state) if standing.place == 1]
    out = np.zeros(len(state.players))
    out[first] = 1.0 / len(first)
    return out


def differences(state: GameState) -> tuple[FloatArray, FloatArray]:
    """Per seat: its total minus the best rival's, and minus the rivals' mean."""
    now = np.array(totals(state), dtype=np.float64)
    n = len(now)
    best = np.array([now[i] - max(now[j] for j in range(n) if j != i) for i in range(n)])
    mean = np.array([now[i] - (now.sum() - now[i]) / (n - 1) for i in range(n)])
    return best, mean


def play_recorded(variant: str, levels: Sequence[str], seed: int) -> GameRecord:
    """One game of `levels` (seat order) on the dice of `seed`, with every decision point's
    win probability."""
    rules = rules_for(variant)
    seen: list[GameState] = []
    bots = [_Recorder(make_bot(level, seed * 31 + seat), seen) for seat, level in enumerate(levels)]
    end = play_game(rules, bots, SeededDice(seed)).state
    given = [None if level in (EXPERT, POINTS) else level for level in levels]
    preds, best, mean, progress, seconds = [], [], [], [], []
    for state in seen:
        with winprob._lock:  # a new position: none of its chances is cached
            winprob._cache.clear()
        start = time.perf_counter()
        chances = winprob.win_probability(state, given)
        seconds.append(time.perf_counter() - start)
        assert chances is not None
        preds.append(chances)
        b, m = differences(state)
        best.append(b)
        mean.append(m)
        progress.append(sum(sheet.filled for sheet in state.sheets) / (rules.cells * len(levels)))
    return GameRecord(
        tuple(levels),
        np.array(preds),
        np.array(best),
        np.array(mean),
        np.array(progress),
        np.array(seconds),
        shares_of(end),
        totals(end),
    )


def play_chunk(variant: str, base: tuple[str, ...], seeds: list[int]) -> list[GameRecord]:
    """The games of `seeds`, the lineup `base` rotated by each seed's number of seats."""
    n = len(base)
    return [play_recorded(variant, base[seed % n :] + base[: seed % n], seed) for seed in seeds]


def run_games(
    variant: str, base: tuple[str, ...], seeds: list[int], workers: int
) -> list[GameRecord]:
    """`play_chunk` over `workers` processes (in this one with a single worker), in seed order."""
    if workers <= 1 or len(seeds) < 2:
        return play_chunk(variant, base, seeds)
    size = max(1, math.ceil(len(seeds) / (workers * 3)))
    chunks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        jobs = [pool.submit(play_chunk, variant, base, chunk) for chunk in chunks]
        return [record for job in jobs for record in job.result()]


# --- the figures -----------------------------------------------------------------------------


@dataclass
class Flat:
    """Every prediction of a set of games, one row per (position, seat)."""

    p: FloatArray
    y: FloatArray
    best: FloatArray
    mean: FloatArray
    progress: FloatArray
    game: NDArray[np.int64]
    seconds: FloatArray  # per call (position), not per seat
    level: NDArray[np.str_]  # the level of the row's seat

    @classmethod
    def of(cls, records: Sequence[GameRecord]) -> Flat:
        parts: dict[str, list[Any]] = {k: [] for k in ("p", "y", "b", "m", "g", "t", "s", "l")}
        for number, rec in enumerate(records):
            rows, seats = rec.preds.shape
            parts["p"].append(rec.preds.ravel())
            parts["y"].append(np.tile(rec.shares, rows))
            parts["b"].append(rec.best.ravel())
            parts["m"].append(rec.mean.ravel())
            parts["g"].append(np.full(rows * seats, number))
            parts["t"].append(np.repeat(rec.progress, seats))
            parts["s"].append(rec.seconds)
            parts["l"].append(np.tile(np.array(rec.levels, dtype=np.str_), rows))

        def cat(key: str) -> Any:
            return np.concatenate(parts[key]) if parts[key] else np.zeros(0)

        level = np.concatenate(parts["l"]) if parts["l"] else np.zeros(0, dtype=np.str_)
        return cls(
            cat("p"),
            cat("y"),
            cat("b"),
            cat("m"),
            cat("t"),
            cat("g").astype(np.int64),
            cat("s"),
            level,
        )


def brier(p: FloatArray, y: FloatArray) -> float:
    return float(np.mean((p - y) ** 2)) if len(p) else float("nan")


def clustered_se(e: FloatArray, game: NDArray[np.int64]) -> float:
    """The standard error of the mean of `e` when the rows of one game move together (the
    positions of a game share its outcome): the games' sums are the independent units."""
    n = len(e)
    if n == 0:
        return float("nan")
    sums = np.bincount(game, weights=e)
    counts = np.bincount(game).astype(np.float64)
    mean = e.sum() / n
    return float(np.sqrt(np.sum((sums - counts * mean) ** 2)) / n)


def counted(table: Sequence[dict[str, Any]], seats: int) -> list[dict[str, Any]]:
    """The deciles of `table` that are events of their own: with 2 seats those above one half
    are the mirror of those below (one seat's chance is the other's complement)."""
    return [row for row in table if seats != 2 or row["decile"] < DECILES // 2]


def noise_flags(table: Sequence[dict[str, Any]], seats: int) -> tuple[float, float]:
    """What noise alone would flag in `table` (a `reliability` with standard errors): the
    expected number of flagged deciles, and the chance of at least one, were the model without
    bias and each decile's gap normal with its standard error. With 2 seats the deciles above
    one half mirror those below, so only the lower half counts (and their chances are taken as
    independent). Reported beside the flags: a few hundred or thousand games leave a decile's
    standard error near 0.015, where 0.03 is two of them."""
    expected, none = 0.0, 1.0
    for row in counted(table, seats):
        se = row["se"]
        if row["count"] < FLAG_COUNT or not se > 0:
            continue
        chance = math.erfc(FLAG_GAP / se / math.sqrt(2.0))
        expected += chance
        none *= 1.0 - chance
    return expected, 1.0 - none


def reliability(
    p: FloatArray, y: FloatArray, game: NDArray[np.int64] | None = None
) -> list[dict[str, Any]]:
    """Per decile of predicted probability: count, mean prediction, observed frequency, their
    difference, its standard error with the games as the units (given `game`, each row's game),
    and whether it is flagged (over `FLAG_GAP` in a decile of at least `FLAG_COUNT`)."""
    index = np.minimum((p * DECILES).astype(np.int64), DECILES - 1)
    rows = []
    for k in range(DECILES):
        chosen = index == k
        count = int(chosen.sum())
        predicted = float(p[chosen].mean()) if count else float("nan")
        observed = float(y[chosen].mean()) if count else float("nan")
        gap = observed - predicted if count else float("nan")
        flag = count >= FLAG_COUNT and abs(gap) > FLAG_GAP
        se = clustered_se(y[chosen] - p[chosen], game[chosen]) if game is not None else math.nan
        rows.append(
            {
                "decile": k,
                "count": count,
                "predicted": predicted,
                "observed": observed,
                "difference": gap,
                "se": se,
                "flag": bool(flag),
            }
        )
    return rows


def fit_logistic(x: FloatArray, y: FloatArray, ridge: float = 1e-3, steps: int = 50) -> FloatArray:
    """Weights of a logistic regression of `y` (shares in [0, 1]) on `x` (a constant column
    included), by Newton's method with a small ridge (the 2-player columns repeat each other)."""
    w = np.zeros(x.shape[1])
    penalty = ridge * np.eye(x.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + penalty @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + penalty + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w


def _design(flat: Flat, progress: bool, scale: float) -> FloatArray:
    cols = [np.ones(len(flat.p)), flat.best / scale, flat.mean / scale]
    if progress:
        cols += [flat.best * flat.progress / scale, flat.mean * flat.progress / scale]
    return np.stack(cols, axis=1)


def baselines(flat: Flat) -> dict[str, float]:
    """The Brier scores, on the odd games, of the model and of the logistic baselines fitted on
    the even games (nan where a half is empty or its outcomes never vary)."""
    fit, held = flat.game % 2 == 0, flat.game % 2 == 1
    out = {"model_held": brier(flat.p[held], flat.y[held])}
    for name, progress in (("baseline", False), ("baseline_progress", True)):
        if not fit.any() or not held.any() or np.ptp(flat.y[fit]) == 0:
            out[name] = float("nan")
            continue
        scale = float(np.std(flat.best[fit])) or 1.0
        x = _design(flat, progress, scale)
        w = fit_logistic(x[fit], flat.y[fit])
        out[name] = brier(1.0 / (1.0 + np.exp(-np.clip(x[held] @ w, -30, 30))), flat.y[held])
    return out


def summary(name: str, records: Sequence[GameRecord]) -> dict[str, Any]:
    """The figures of a set of games, printed and returned."""
    flat = Flat.of(records)
    table = reliability(flat.p, flat.y, flat.game)
    base = baselines(flat)
    ms = flat.seconds * 1000
    p50, p95 = (float(np.percentile(ms, q)) for q in (50, 95)) if len(ms) else (0.0, 0.0)
    same = len({len(rec.levels) for rec in records}) == 1
    seats = len(records[0].levels) if same and records else 0
    expected, some = noise_flags(table, seats)
    levels = sorted(set(flat.level.tolist()))
    by_seat_level: dict[str, list[dict[str, Any]]] = {}
    for level in levels if len(levels) > 1 else []:
        mine = flat.level == level
        by_seat_level[level] = reliability(flat.p[mine], flat.y[mine], flat.game[mine])
    by_seat = np.mean([rec.shares for rec in records], axis=0) if same else np.zeros(0)
    by_level: dict[str, float] = {}
    for rec in records:
        for level, share in zip(rec.levels, rec.shares, strict=True):
            by_level[level] = by_level.get(level, 0.0) + float(share) / len(records)
    out = {
        "name": name,
        "games": len(records),
        "wins_by_seat": [round(float(v), 4) for v in by_seat],
        "wins_by_level": {level: round(v, 4) for level, v in by_level.items()},
        "predictions": len(flat.p),
        "brier": brier(flat.p, flat.y),
        **base,
        "p50_ms": p50,
        "p95_ms": p95,
        "reliability": table,
        "flagged": sum(row["flag"] for row in counted(table, seats)),
        "noise_flags": expected,
        "noise_some_flag": some,
        "reliability_by_level": by_seat_level,
    }
    print(
        f"\n{name}: {len(records)} games, {len(flat.p)} predictions; Brier {out['brier']:.4f} "
        f"(odd games: model {base['model_held']:.4f}, baseline {base['baseline']:.4f}, "
        f"baseline with progress {base['baseline_progress']:.4f}); "
        f"ms per call p50 {p50:.2f} p95 {p95:.2f}"
    )
    if same:
        print(f"  wins by seat {out['wins_by_seat']}, by level {out['wins_by_level']}")
    print(f"  {'decile':<9} {'count':>8} {'predicted':>9} {'observed':>9} {'diff':>8} {'+-se':>7}")
    for row in table:
        mark = " !" if row["flag"] else ""
        print(
            f"  {row['decile'] / DECILES:.1f}-{(row['decile'] + 1) / DECILES:.1f}"
            f"   {row['count']:>8} {row['predicted']:>9.4f} {row['observed']:>9.4f}"
            f" {row['difference']:>+8.4f} {row['se']:>7.4f}{mark}"
        )
    for level, rows in by_seat_level.items():
        worst = max(
            (row for row in rows if row["count"] >= FLAG_COUNT),
            key=lambda row: abs(row["difference"]),
            default=None,
        )
        if worst is not None:
            print(
                f"  {level} seats' worst decile: {worst['decile'] / DECILES:.1f}-"
                f"{(worst['decile'] + 1) / DECILES:.1f} {worst['difference']:+.4f} "
                f"+- {worst['se']:.4f} ({worst['count']} predictions)"
            )
    print(
        f"  flagged deciles{' (below one half: the rest mirror them)' if seats == 2 else ''}: "
        f"{out['flagged']}; a model without bias would show "
        f"{expected:.2f} on average at these standard errors (at least one: {some:.0%})"
    )
    return out


def calibrate(
    variant: str, players: Sequence[int], matchups: Sequence[str], seeds: list[int], workers: int
) -> list[dict[str, Any]]:
    """The figures of every players x matchup set of `variant`, and of them pooled."""
    rows: list[dict[str, Any]] = []
    pooled: list[GameRecord] = []
    for count in players:
        for matchup in matchups:
            base = lineup(matchup, count)
            start = time.perf_counter()
            try:
                records = run_games(variant, base, seeds, workers)
            except (ImportError, winprob.NoModelError) as error:
                print(f"\n{variant}: no win probability ({error!r}): skipped", flush=True)
                return rows
            row = summary(f"{variant} {count}p {'-'.join(base)}", records)
            row["seconds"] = round(time.perf_counter() - start, 1)
            rows.append(row)
            pooled.extend(records)
            sys.stdout.flush()
    if len(rows) > 1:
        rows.append(summary(f"{variant} pooled", pooled))
    return rows


# --- the command -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3])
    parser.add_argument(
        "--matchups", nargs="+", default=list(MATCHUPS), choices=[*MATCHUPS, POINTS]
    )
    parser.add_argument(
        "--games", type=int, default=300, help="games per preset x players x matchup"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fit-skill", action="store_true", help="measure the levels' handicaps")
    parser.add_argument("--skill-games", type=int, default=200)
    parser.add_argument(
        "--skill-levels", nargs="+", default=None, help="the levels to fit (default: all)"
    )
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    print("$ " + shlex.join(["python", *(sys.argv if argv is None else ["winprob.py", *argv])]))

    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}, "sets": []}
    if args.fit_skill:
        from winprob_skill import fit_skill

        report["skill"] = fit_skill(
            args.variants, args.skill_games, args.seed, args.workers, args.skill_levels
        )
    seeds = list(range(args.seed, args.seed + args.games))
    for variant in args.variants if args.games > 0 else []:
        report["sets"].extend(calibrate(variant, args.players, args.matchups, seeds, args.workers))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
