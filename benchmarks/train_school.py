"""Fit the School expert's value tables by simulation (approximate policy iteration).

    .venv/bin/python benchmarks/train_school.py --columns 3 --iterations 8 --games 400 --workers 2
    .venv/bin/python benchmarks/train_school.py --columns 3 --games 1500 --init FILE   (continue)

Each iteration plays `--games` solitaire games with the expert as it stands (the within-turn
expectimax over the current tables; the first iteration starts from empty tables, which is the
`basic` level, or from `--init`), records at the start of every turn the table cell that each part
of the sheet reads (`school_value.features`) and what each part went on to bring until the end of
the game, and refits every table as the mean of those outcomes (or TD(lambda) returns, `--lam`),
shrunk toward coarser tables where few positions were seen (`--shrink`; see
`dicepoker.bots.school_value`). Older iterations count `--decay` times less each. The tables of
the iteration that played best are kept and written, for every width trained, to
`src/dicepoker/bots/data/school_value.json` (other widths already in the file are kept). Games
are split over `--workers` processes (one per core); more games give a finer fit.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from dicepoker.bots.planner import BoolArray, FloatArray, IntArray, Planner
from dicepoker.bots.school_value import (
    DATA,
    MAX_POINTS,
    MAX_RESERVE,
    O_LUT,
    P_LUT,
    T_LUT,
    Features,
    SchoolModel,
    SchoolValue,
    cover_lut,
    features,
    layout,
    load_models,
)
from dicepoker.dice import SeededDice
from dicepoker.engine import Mark, Move, Sheet, apply, new_game, totals
from dicepoker.rules import Rules, get_rules

TABLES = ("combo", "combo_star", "school", "school_star", "column_star")
# Axes of each table (after its first, the row or column) merged, in order, to make the coarser
# tables that a sparse cell is shrunk toward.
BACKOFF: dict[str, tuple[int, ...]] = {
    "combo": (1,),
    "combo_star": (2, 1),
    "school": (4, 3, 2, 1),
    "school_star": (3, 2, 1),
    "column_star": (3, 1, 2),
}
SHRINK = 20.0


def blocks(rules: Rules) -> list[tuple[str, int]]:
    """The value's parts: (table, row or column) pairs, in the order of a sample's slots."""
    lay = layout(rules)
    nc, ns = len(lay.combo_rows), len(lay.school_rows)
    return (
        [("combo", j) for j in range(nc)]
        + [("combo_star", j) for j in range(nc)]
        + [("school", n) for n in range(ns)]
        + [("school_star", n) for n in range(ns)]
        + [("column_star", c) for c in range(rules.columns)]
    )


def slots(rules: Rules, f: Features) -> list[int]:
    """For every part: the flat index of the table cell the position reads (-1: none)."""
    lay = layout(rules)
    shapes = lay.shapes
    tb = int(T_LUT[f.turns])
    reserve = min(f.reserve, MAX_RESERVE)
    open_school = sum(f.school_empty)
    out: list[int] = []

    def flat(name: str, index: tuple[int, ...]) -> int:
        return int(np.ravel_multi_index(index, shapes[name][1:]))

    nc, ns = len(lay.combo_rows), len(lay.school_rows)
    # A part that is over reads its table's first cell (see `school_value._Parts`).
    for j in range(nc):
        out.append(flat("combo", (f.combo_empty[j], tb)))
    for j in range(nc):
        e = f.combo_empty[j]
        pb = int(P_LUT[min(f.combo_best[j], MAX_POINTS)])
        live = e and f.combo_alive[j]
        out.append(flat("combo_star", (e, pb, tb) if live else (0, 0, tb)))
    for n in range(ns):
        e = f.school_empty[n]
        alive = int(f.school_alive[n])
        cover = int(cover_lut(lay.faces[n])[reserve])
        ob = int(O_LUT[open_school - e])
        out.append(flat("school", (e, alive, cover, ob, tb) if e else (0, 0, 0, 0, tb)))
    for n in range(ns):
        e = f.school_empty[n]
        live = e and f.school_alive[n]
        cover = int(cover_lut(lay.faces[n])[reserve])
        ob = int(O_LUT[open_school - e])
        out.append(flat("school_star", (e, cover, ob, tb) if live else (0, 0, 0, tb)))
    for c in range(rules.columns):
        e = f.column_empty[c]
        pb = int(P_LUT[min(f.column_best[c], MAX_POINTS)])
        key = (e, f.column_hard[c], int(f.column_five[c]), pb)
        out.append(flat("column_star", key if e and f.column_alive[c] else (0, 0, 0, 0)))
    return out


@dataclass
class Samples:
    """Positions at the start of turns: the table cell each part reads (`index`), the points the
    turn brought each part (`gain`), whether the game ended with that turn, and the final scores."""

    index: IntArray  # (positions, parts)
    gain: FloatArray  # (positions, parts)
    last: BoolArray  # (positions,)
    scores: list[int]

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        return cls(
            np.concatenate([p.index for p in parts]),
            np.concatenate([p.gain for p in parts]),
            np.concatenate([p.last for p in parts]),
            [score for p in parts for score in p.scores],
        )


def gains(rules: Rules, before: Sheet, after: Sheet) -> list[float]:
    """What one move brought each part (in `blocks` order)."""
    lay = layout(rules)
    nc, ns = len(lay.combo_rows), len(lay.school_rows)
    out = [0.0] * (2 * nc + 2 * ns + rules.columns)
    row = next(i for i in range(lay.n_rows) if after.row_fill[i] != before.row_fill[i])
    cell = after.cells[row * rules.columns + before.row_fill[row]]
    assert cell is not None
    if row in lay.combo_rows:
        out[lay.combo_rows.index(row)] += cell.points
    else:
        penalty = rules.reserve.zero_penalty if rules.reserve and cell.mark is Mark.ZERO else 0
        out[2 * nc + lay.school_rows.index(row)] += after.reserve - before.reserve - penalty
    for star in after.stars[len(before.stars) :]:
        if star.kind == "combination_row":
            out[nc + lay.combo_rows.index(rules.row_index[str(star.key)])] += star.value
        elif star.kind == "school_row":
            out[2 * nc + ns + lay.school_rows.index(rules.row_index[str(star.key)])] += star.value
        else:
            out[2 * nc + 2 * ns + int(star.key)] += star.value
    return out


def play(columns: int, model_json: dict[str, Any], seeds: list[int]) -> Samples:
    """Play one solitaire game per seed with the expert on `model_json`; keep every turn's
    position and what it brought each part of the sheet."""
    rules = get_rules("school", {"columns": columns})
    model = SchoolModel.from_json(model_json)
    index: list[list[int]] = []
    gain: list[list[float]] = []
    last: list[bool] = []
    scores: list[int] = []
    for seed in seeds:
        planner = Planner(SchoolValue(model))
        dice = SeededDice(seed)
        state = new_game(rules, ["trainee"])
        while not state.finished:
            if state.rolls == 0:
                index.append(slots(rules, features(rules, state.sheet, {})))
            action = planner.choose(state)
            after = apply(state, action, dice)
            if isinstance(action, Move):
                gain.append(gains(rules, state.sheet, after.sheets[0]))
                last.append(after.finished)
            state = after
        scores.append(totals(state)[0])
    width = len(blocks(rules))
    return Samples(
        np.array(index, dtype=np.int64).reshape(-1, width),
        np.array(gain, dtype=np.float64).reshape(-1, width),
        np.array(last, dtype=np.bool_),
        scores,
    )


def part_values(rules: Rules, model: SchoolModel, index: IntArray) -> FloatArray:
    """Each part's value at every sample position (solitaire: stars fully counted)."""
    out = np.zeros(index.shape)
    for b, (name, j) in enumerate(blocks(rules)):
        out[:, b] = getattr(model, name)[j].ravel()[index[:, b]]
    return out


def targets(rules: Rules, model: SchoolModel, samples: Samples, lam: float) -> FloatArray:
    """Per part, TD(lambda) returns: the turn's points plus the part's value at the next
    position, mixed with what actually followed (lambda = 1: the plain future points)."""
    value = part_values(rules, model, samples.index)
    out = np.zeros(samples.gain.shape)
    following = np.zeros(samples.gain.shape[1])
    for t in range(len(out) - 1, -1, -1):
        if samples.last[t]:
            following = samples.gain[t].copy()
        else:
            following = samples.gain[t] + (1 - lam) * value[t + 1] + lam * following
        out[t] = following
    return out


def _shrunk(sums: FloatArray, counts: FloatArray, axes: tuple[int, ...], k: float) -> FloatArray:
    levels = [(sums, counts)]
    for axis in axes:
        s, n = levels[-1]
        levels.append((s.sum(axis=axis, keepdims=True), n.sum(axis=axis, keepdims=True)))
    value: FloatArray = np.zeros_like(levels[-1][0])
    for s, n in reversed(levels):
        value = (s + k * value) / (n + k)
    return np.broadcast_to(value, sums.shape).copy()


def fit(
    rules: Rules, index: IntArray, target: FloatArray, weight: FloatArray, shrink: float = SHRINK
) -> dict[str, FloatArray]:
    """Every part's table: the weighted mean of that part's returns in each cell, shrunk toward
    coarser tables where few positions were seen."""
    shapes = layout(rules).shapes
    tables = {name: np.zeros(shape) for name, shape in shapes.items()}
    for b, (name, j) in enumerate(blocks(rules)):
        sub = shapes[name][1:]
        size = int(np.prod(sub))
        cells = index[:, b]
        sums = np.bincount(cells, weights=target[:, b] * weight, minlength=size)
        counts = np.bincount(cells, weights=weight, minlength=size)
        tables[name][j] = _shrunk(
            sums.astype(np.float64).reshape(sub),
            counts.astype(np.float64).reshape(sub),
            BACKOFF[name],
            shrink,
        )
    return tables


def _chunks(seeds: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(seeds), size):
        yield seeds[start : start + size]


def run(
    columns: int,
    iterations: int,
    games: int,
    workers: int,
    seed: int,
    decay: float,
    lam: float,
    log: bool = True,
    init: SchoolModel | None = None,
    shrink: float = SHRINK,
    checkpoint: Callable[[SchoolModel], None] | None = None,
) -> SchoolModel:
    rules = get_rules("school", {"columns": columns})
    model = init if init is not None and init.fits(rules) else SchoolModel.zeros(rules)
    warm = model is init
    history: list[dict[str, Any]] = []
    kept: list[tuple[IntArray, FloatArray, FloatArray]] = []
    best: tuple[float, SchoolModel] | None = None
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for iteration in range(iterations):
            seeds = list(range(seed + iteration * games, seed + (iteration + 1) * games))
            size = max(1, min(25, games // (workers * 4) or 1))
            payload = model.as_json()
            jobs = [pool.submit(play, columns, payload, chunk) for chunk in _chunks(seeds, size)]
            samples = Samples.join([job.result() for job in jobs])
            scores = np.array(samples.scores, dtype=np.float64)
            mean = float(scores.mean())
            stderr = float(scores.std(ddof=1) / np.sqrt(len(scores))) if len(scores) > 1 else 0.0
            history.append({"iteration": iteration, "games": games, "mean": round(mean, 2)})
            # Policy iteration need not improve every time: keep the tables that played best.
            if (iteration > 0 or warm) and (best is None or mean >= best[0]):
                best = (mean, model)
                if checkpoint is not None:  # a long run cut short still leaves its best tables
                    checkpoint(model)
            if log:
                print(
                    f"columns {columns} iteration {iteration}: {games} games, "
                    f"mean {mean:.1f} +- {stderr:.1f} ({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
            # The first tables know nothing yet: learn from what followed, not from them.
            target = targets(rules, model, samples, 1.0 if iteration == 0 and not warm else lam)
            kept = [(i, t, w * decay) for i, t, w in kept]
            kept.append((samples.index, target, np.ones(len(target))))
            kept = [item for item in kept if item[2][0] > 0.05]
            model = SchoolModel.from_tables(
                columns,
                fit(
                    rules,
                    np.concatenate([item[0] for item in kept]),
                    np.concatenate([item[1] for item in kept]),
                    np.concatenate([item[2] for item in kept]),
                    shrink,
                ),
                {
                    "iterations": iteration + 1,
                    "games_per_iteration": games,
                    "lambda": lam,
                    "history": history,
                },
            )
    if best is None:
        return model
    mean, chosen = best
    info = dict(chosen.info or {})
    info.update(history=history, selected_mean=round(mean, 2))
    return replace(chosen, info=info)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--columns", type=int, nargs="+", default=[3])
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--games", type=int, default=400, help="games per iteration")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1_000_000)
    parser.add_argument("--decay", type=float, default=0.7, help="weight of older iterations")
    parser.add_argument("--lam", type=float, default=1.0, help="TD(lambda) of the targets")
    parser.add_argument("--shrink", type=float, default=SHRINK, help="pull of coarser tables")
    parser.add_argument(
        "--init", type=Path, default=None, help="start from the tables in this file (warm start)"
    )
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {"models": {}}
    start = load_models(args.init) if args.init is not None else {}
    def save(columns: int, model: SchoolModel) -> None:
        data["models"][str(columns)] = model.as_json()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")

    for columns in args.columns:
        model = run(
            columns,
            args.iterations,
            args.games,
            args.workers,
            args.seed,
            args.decay,
            args.lam,
            init=start.get(columns),
            shrink=args.shrink,
            checkpoint=partial(save, columns),
        )
        save(columns, model)
        print(f"wrote {args.out} (columns {columns})", flush=True)


if __name__ == "__main__":
    main()
