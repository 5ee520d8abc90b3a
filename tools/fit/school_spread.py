"""Fit the spread of the School win probability (`dicepoker.winprob.school`): per sheet width,
number of players and turns left, the standard deviation of a seat's final total around what the
value network expects of its sheet, as it matters for who wins.

    .venv/bin/python tools/fit/school_spread.py --columns 3 --players 2 3 4 --games 400 --workers 2

Plays `--games` games of experts only for every width (`--columns`) and number of players
(`--players`) on the dice of `--seed + g` (away from the calibration games of
`tools/fit/winprob.py`, which start at 0) by the project's one game loop. At the start of every
turn it notes each seat's expected final total as the backend sees it between turns (what the
sheet holds + the network's value of it, with the duel correction: `school.rest_values`) and its
turns left; at the end, what each seat's total was. The error of a seat is its final total minus
that expectation.

The seats' errors are not independent (a star one seat takes is lost to the others), and the
backend compares seats as if they were. So the spread is fitted on the margins: for every two
seats of a noted position, with `t` and `u` turns left, the squared error of their margin is
`s[t]**2 + s[u]**2` on average (a least-squares fit of `s**2` over all such pairs, less the mean
error of the margin by seat order), then made non-decreasing in the turns left (pool adjacent
violators, weighted by the pairs) and smoothed over neighbouring turns. The table is written,
per width and number of players, to `src/dicepoker/winprob/data/school_spread.json` (the tables
this run did not fit are kept), with what the run measured beside it. `--dry-run` prints only.
"""

# ruff: noqa: E402 (the thread limits below must be set before numpy is imported)

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import datetime
import json
import math
import shlex
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dicepoker.bots import Bot, make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, sheet_breakdown, totals
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game
from dicepoker.winprob.school import rest_values

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
OUT = (
    Path(__file__).resolve().parents[2] / "src" / "dicepoker" / "winprob" / "data"
) / "school_spread.json"
SMOOTH = 2  # the running mean's half width (turns)


@dataclass
class Pairs:
    """Two seats of a noted position each: their turns left `t` and `u`, the error of their
    margin (`e_t - e_u`), whether the first seat is the one to move (`first`; the mover is
    always first where it is one of the two) and the game."""

    t: IntArray
    u: IntArray
    margin: FloatArray
    first: NDArray[np.bool_]
    game: IntArray

    @classmethod
    def join(cls, parts: list[Pairs]) -> Pairs:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__annotations__))


class _TurnStarts(Bot):
    def __init__(self, bot: Bot, seen: list[GameState]) -> None:
        self.bot, self.seen, self.level = bot, seen, bot.level

    def choose(self, state: GameState) -> Action:
        if state.rolls == 0:
            self.seen.append(state)
        return self.bot.choose(state)


def collect(columns: int, players: int, seeds: list[int]) -> Pairs:
    """The pairs of every turn start of the experts' games of `seeds`."""
    rules = get_rules("school", {"columns": columns})
    rows: list[tuple[int, int, float, bool, int]] = []
    for seed in seeds:
        seen: list[GameState] = []
        bots = [_TurnStarts(make_bot("expert", seed), seen) for _ in range(players)]
        final = np.array(totals(play_game(rules, bots, SeededDice(seed)).state), dtype=float)
        for state in seen:
            seats = list(range(players))
            now = [float(sheet_breakdown(rules, sheet).total) for sheet in state.sheets]
            left = [rules.cells - sheet.filled for sheet in state.sheets]
            playing = [s for s in seats if left[s] > 0]
            values = dict(zip(playing, rest_values(state, playing), strict=True))
            error = [final[s] - now[s] - values.get(s, 0.0) for s in seats]
            for i in seats:
                for j in seats[i + 1 :]:
                    if not (left[i] or left[j]):
                        continue
                    a, b = (j, i) if j == state.seat else (i, j)  # the mover first
                    mover = a == state.seat
                    rows.append((left[a], left[b], error[a] - error[b], mover, seed))
    t, u, margin, first, game = zip(*rows, strict=True) if rows else ((),) * 5
    return Pairs(
        np.array(t, dtype=np.int64),
        np.array(u, dtype=np.int64),
        np.array(margin, dtype=np.float64),
        np.array(first, dtype=np.bool_),
        np.array(game, dtype=np.int64),
    )


def isotonic(values: FloatArray, weights: FloatArray) -> FloatArray:
    """The non-decreasing sequence nearest `values` in weighted least squares (pool adjacent
    violators)."""
    blocks: list[list[float]] = []  # [value, weight, count]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([float(value), float(weight), 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            w = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / w if w > 0 else v1, w, n1 + n2])
    out = [value for value, _, count in blocks for _ in range(int(count))]
    return np.array(out)


def fit_table(pairs: Pairs, cells: int) -> tuple[list[float], dict[str, Any]]:
    """The spread per turns left (0 to `cells`) from `pairs` (see the module doc), and what was
    measured on the way."""
    # The margin's mean error by who moves next (the seat-order effect), taken out first.
    bias = {
        flag: float(pairs.margin[pairs.first == flag].mean())
        if (pairs.first == flag).any()
        else 0.0
        for flag in (True, False)
    }
    centred = pairs.margin - np.where(pairs.first, bias[True], bias[False])
    squared = centred**2
    design = np.zeros((len(squared), cells + 1))
    np.add.at(design, (np.arange(len(squared)), pairs.t), 1.0)
    np.add.at(design, (np.arange(len(squared)), pairs.u), 1.0)
    design = design[:, 1:]  # s[0] = 0: a seat with no turn left has its total
    counts = design.sum(axis=0)
    gram = design.T @ design + 1e-6 * np.eye(cells)
    var: FloatArray = np.linalg.solve(gram, design.T @ squared).astype(np.float64)
    var = np.maximum(isotonic(var, counts), 0.0)
    spread = np.sqrt(var)
    smooth = np.array(
        [spread[max(0, k - SMOOTH) : k + SMOOTH + 1].mean() for k in range(len(spread))]
    )
    table = [0.0, *(round(float(v), 2) for v in np.maximum.accumulate(smooth))]
    scaled = centred / np.sqrt(np.array(table)[pairs.t] ** 2 + np.array(table)[pairs.u] ** 2)
    info = {
        "pairs": len(squared),
        "margin_bias_mover_first": round(bias[True], 2),
        "margin_bias_mover_second": round(bias[False], 2),
        "scaled_sd": round(float(scaled.std()), 4),
        "scaled_kurtosis": round(float(np.mean(scaled**4) / np.mean(scaled**2) ** 2), 3),
    }
    return table, info


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--columns", nargs="+", type=int, default=[3])
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--dry-run", action="store_true", help="print the tables, write nothing")
    args = parser.parse_args(argv)
    print("$ " + shlex.join(["python", *(sys.argv if argv is None else ["spread", *argv])]))
    seeds = list(range(args.seed, args.seed + args.games))
    size = max(1, math.ceil(len(seeds) / (args.workers * 3)))
    chunks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
    data: dict[str, Any] = (
        json.loads(args.out.read_text("utf-8")) if args.out.exists() else {"columns": {}}
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        jobs = {
            (columns, players): [pool.submit(collect, columns, players, c) for c in chunks]
            for columns in args.columns
            for players in args.players
        }
        for (columns, players), parts in jobs.items():
            pairs = Pairs.join([job.result() for job in parts])
            cells = get_rules("school", {"columns": columns}).cells
            table, info = fit_table(pairs, cells)
            info |= {"games": args.games, "seed": args.seed}
            print(f"columns {columns}, {players} players: {info}\n  spread {table}", flush=True)
            data["columns"].setdefault(str(columns), {})[str(players)] = table
            data.setdefault("measured", {}).setdefault(str(columns), {})[str(players)] = info
    data["about"] = (
        "Spread (points) of a seat's final School total around the value network's expectation "
        "(dicepoker.winprob.school), per sheet width, number of players and turns left, fitted "
        "on the margins between seats of experts' games (tools/fit/school_spread.py)."
    )
    data["date"] = datetime.date.today().isoformat()
    if not args.dry_run:
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"written to {args.out.name}")


if __name__ == "__main__":
    main()
