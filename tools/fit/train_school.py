"""Fit the School expert's value network by simulation (approximate value iteration).

    .venv/bin/python tools/fit/train_school.py --columns 3 --iterations 12 --games 600 --workers 2

(docs/bots.md gives the commands that fitted the committed networks.)

Each iteration plays `--games` games with the expert as it stands (the within-turn expectimax over
the current network; the first iteration starts from the value 0, the `basic` level, or from the
network in `--init`): solitaire games, and a share `--duels` of 2-player games against the
`--rivals` in turn (`self` is the expert itself; both its seats learn), seats alternating. At the
start of each of the expert's turns it records the sheet's features (`school_value.encode`, the
rivals' sheets included), the turn's expected value under the current network (the exact
expectimax of the turn: `E = E_dice[best move's gain + value after it]`) and what the turn
actually brought. The target of a position is the lambda-return

    G_t = (1 - lambda) * E_t + lambda * (gain_t + G_t+1)      (G after the last turn = 0)

which mixes the one-turn expected backup (no dice noise, but the current network's bias) with what
the rest of the game actually brought (no bias, but the dice's noise). The network is refitted
(Adam, mean squared error, warm-started from the previous weights) on the positions of the last
`--keep` iterations. The network of the iteration that played best (its solitaire mean; `--select
duels` ranks by the win rate against the first rival, then the solitaire mean; `--select last`
takes the last) is kept and written
for every width trained to `src/dicepoker/bots/data/school_value.json` (`--out`; other widths
already in the file are kept), after every iteration that improves on it, so that a run cut short
still leaves its best network. Games are split over `--workers` processes (one per core).

`--spread` trains nothing: it plays `--games` games with the networks in `--out` and writes, per
width, the spread the expert's race at the end of a game uses (`school_value.SchoolValue`): the
standard deviation of what a player's last t turns bring beyond the network's estimate.

`--duel-fit` trains no value network either: it plays `--games` games with the networks in `--out`
(use `--duels 1.0`: only the expert's turns in games with rivals are used) and fits, per width, the
`school_value.DuelFit` the expert uses in games with rivals: a ridge regression (`--ridge`) of what
the rest of the game brought beyond the network's value on `duel_features`, and a small network
(`--hidden`, `--epochs`) of the squared deviation of what it brought from the turn's expected
value.
"""

# ruff: noqa: E402 (the thread limits below must be set before numpy is imported)

from __future__ import annotations

import os

# One thread per process: the games run in parallel processes, and the network's products are
# small (set before numpy is imported, so that the worker processes inherit it).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dicepoker.bots.planner import FloatArray
from dicepoker.bots.school_net import flushed
from dicepoker.bots.school_value import (
    DATA,
    DuelFit,
    SchoolNet,
    duel_features,
    layout,
    load_models,
)
from dicepoker.rules import get_rules
from school_samples import F32, Samples, play


def returns(samples: Samples, lam: float) -> FloatArray:
    """The lambda-returns of every recorded turn (see the module doc)."""
    out = np.zeros(len(samples.gain))
    following = 0.0
    for t in range(len(out) - 1, -1, -1):
        if samples.last[t]:
            following = 0.0
        following = (1 - lam) * samples.expect[t] + lam * (samples.gain[t] + following)
        out[t] = following
    return out


# --- the network's fit (numpy, Adam) -----------------------------------------------------------


def fit(
    net: SchoolNet,
    x: F32,
    y: FloatArray,
    epochs: float,
    rate: float,
    batch: int,
    seed: int,
    weight_decay: float = 1e-5,
) -> tuple[SchoolNet, float, float]:
    """Fit the network to the targets `y` (points) from its current weights; returns the network
    and the root mean squared errors (points) on the fit and on 5% of the positions held out."""
    rng = np.random.default_rng(seed)
    scale = net.scale
    target = (y / scale).astype(np.float32)
    order = rng.permutation(len(x))
    held = order[: len(x) // 20]
    train = order[len(x) // 20 :]
    params: list[F32] = []
    for w, b in net.layers:
        params += [w.astype(np.float32), b.astype(np.float32)]  # copies: the net stays as it was
    params.append(net.linear.astype(np.float32))
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    n_layers = len(net.layers)

    def forward(xb: F32) -> tuple[F32, list[F32]]:
        hs = [xb]
        h = xb
        for i in range(n_layers):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < n_layers - 1:
                h = np.maximum(h, 0)
            hs.append(h)
        return h[:, 0] + xb @ params[-1], hs

    per_epoch = max(1, len(train) // batch)
    steps = max(1, int(epochs * per_epoch))
    for step in range(steps):
        if step % per_epoch == 0:
            rng.shuffle(train)
        pick = train[(step % per_epoch) * batch : (step % per_epoch + 1) * batch]
        xb, yb = x[pick], target[pick]
        out, hs = forward(xb)
        d = (2 * (out - yb) / len(pick)).astype(np.float32)[:, None]
        grads: list[F32] = [np.zeros(0, np.float32)] * len(params)
        grads[-1] = xb.T @ d[:, 0]
        for i in range(n_layers - 1, -1, -1):
            grads[2 * i] = hs[i].T @ d
            grads[2 * i + 1] = d.sum(axis=0)
            if i > 0:
                d = (d @ params[2 * i].T) * (hs[i] > 0)
        lr = rate * (0.1 + 0.9 * (1 - step / steps))  # linear decay to a tenth
        t = step + 1
        for p, g, m, v in zip(params, grads, moments, squares, strict=True):
            if p.ndim == 2:
                g = g + weight_decay * p
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            p -= lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)

    def rmse(index: NDArray[np.int64]) -> float:
        if not len(index):
            return 0.0
        errors = []
        for start in range(0, len(index), 65536):
            part = index[start : start + 65536]
            errors.append(forward(x[part])[0] - target[part])
        return float(np.sqrt(np.mean(np.concatenate(errors) ** 2)) * scale)

    # Weight decay leaves weights at nothing (subnormal numbers, a slow path of the CPU): the
    # self-play of the next iteration reads them as 0, like the committed networks.
    layers = tuple((flushed(params[2 * i]), flushed(params[2 * i + 1])) for i in range(n_layers))
    fitted = replace(net, layers=layers, linear=flushed(params[-1]))
    return fitted, rmse(train[: len(held) * 4]), rmse(held)


# --- the iterations ----------------------------------------------------------------------------


def _chunks(seeds: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(seeds), size):
        yield seeds[start : start + size]


def mean_se(values: list[float] | list[int]) -> tuple[float, float]:
    array = np.asarray(values, dtype=np.float64)
    if len(array) < 2:
        return (float(array.mean()) if len(array) else 0.0), 0.0
    return float(array.mean()), float(array.std(ddof=1) / math.sqrt(len(array)))


@dataclass
class Settings:
    iterations: int = 12
    games: int = 600
    workers: int = 2
    seed: int = 1_000_000
    lam: float = 0.7
    keep: int = 3
    epochs: float = 3.0
    rate: float = 1e-3
    batch: int = 256
    hidden: tuple[int, ...] = (128, 64)
    duels: float = 0.36
    rivals: tuple[str, ...] = ("greedy", "basic", "self")
    select: str = "solitaire"
    minutes: float = 0.0  # stop starting new iterations after this many minutes (0: no limit)


def run(
    columns: int,
    settings: Settings,
    init: SchoolNet | None = None,
    checkpoint: Callable[[SchoolNet], None] | None = None,
    log: bool = True,
) -> SchoolNet:
    rules = get_rules("school", {"columns": columns})
    s = settings
    warm = init is not None and init.fits(rules)
    net = init if warm and init is not None else SchoolNet.initial(rules, s.hidden, s.seed)
    playing: SchoolNet | None = net if warm else None  # None: the value 0 (the `basic` play)
    origin = net.info if warm else None  # the record of the run this one continues
    history: list[dict[str, Any]] = []
    kept: list[tuple[F32, FloatArray]] = []
    best: tuple[tuple[float, float], SchoolNet] | None = None
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=s.workers) as pool:
        for iteration in range(s.iterations):
            if s.minutes and time.perf_counter() - start > s.minutes * 60:
                break
            seeds = list(range(s.seed + iteration * s.games, s.seed + (iteration + 1) * s.games))
            size = max(1, min(20, math.ceil(s.games / (s.workers * 4))))
            payload = playing.as_json() if playing is not None else None
            task = partial(
                play,
                columns,
                payload,
                duels=s.duels,
                rivals=list(s.rivals),
            )
            jobs = [pool.submit(task, chunk) for chunk in _chunks(seeds, size)]
            samples = Samples.join([job.result() for job in jobs])
            played = time.perf_counter() - start
            mean, se = mean_se(samples.scores)
            record: dict[str, Any] = {
                "iteration": iteration,
                "games": s.games,
                "solitaire": len(samples.scores),
                "mean": round(mean, 2),
                "se": round(se, 2),
            }
            for rival, results in samples.wins.items():
                record[f"wins_{rival}"] = round(float(np.mean(results)), 4)
                record[f"games_{rival}"] = len(results)
            first = s.rivals[0] if s.rivals else ""
            rank = {
                "duels": (record.get(f"wins_{first}", 0.0), mean),
                "last": (float(iteration), 0.0),
            }.get(s.select, (mean, 0.0))
            if playing is not None and (best is None or rank >= best[0]):
                best = (rank, playing)
                if checkpoint is not None:  # a run cut short still leaves its best network
                    checkpoint(_with_info(playing, [*history, record], rank, s, origin))
            # Refit on the last iterations' positions (warm start from the current weights).
            target = returns(samples, 1.0 if playing is None else s.lam)
            kept = [*kept, (samples.x, target)][-s.keep :]
            x = np.concatenate([k[0] for k in kept])
            y = np.concatenate([k[1] for k in kept])
            net, fit_error, held_error = fit(
                net, x, y, s.epochs, s.rate, s.batch, s.seed + iteration
            )
            record.update(rmse=round(fit_error, 1), held_rmse=round(held_error, 1))
            history.append(record)
            playing = net
            if log:
                duel_text = " ".join(
                    f"vs {k[5:]} {100 * v:.1f}%" for k, v in record.items() if k.startswith("wins_")
                )
                print(
                    f"columns {columns} iteration {iteration}: solitaire {mean:.1f} +- {se:.1f} "
                    f"({len(samples.scores)}) {duel_text}; fit rmse {fit_error:.1f} held "
                    f"{held_error:.1f} on {len(x)} positions ({played:.0f} s play, "
                    f"{time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    if best is None:
        return _with_info(net, history, (0.0, 0.0), s, origin)
    return _with_info(best[1], history, best[0], s, origin)


def _with_info(
    net: SchoolNet,
    history: list[dict[str, Any]],
    rank: tuple[float, float],
    s: Settings,
    origin: dict[str, Any] | None = None,
) -> SchoolNet:
    info: dict[str, Any] = {
        "method": "approximate value iteration, lambda-returns over the turn's expectimax",
        "settings": {k: v for k, v in vars(s).items() if k != "workers"},
        "selected": list(rank),
        "history": history,
    }
    if origin:
        info["init"] = origin
    return replace(net, info=info)


def rests(samples: Samples) -> FloatArray:
    """Per recorded turn: the points the player's turns from this one to its last brought."""
    rest = np.zeros(len(samples.gain))
    following = 0.0
    for t in range(len(rest) - 1, -1, -1):
        if samples.last[t]:
            following = 0.0
        following += samples.gain[t]
        rest[t] = following
    return rest


def spread_table(samples: Samples, cells: int) -> list[float]:
    """Per turns left t (0 to `cells`): the standard deviation of what a player's last t turns
    brought beyond the network's estimate at their start (the turn's expected value), around
    its mean."""
    rest = rests(samples)
    left = np.rint(samples.x[:, 0] * cells).astype(np.int64)
    error = rest - samples.expect
    table = [0.0] * (cells + 1)
    for t in range(1, cells + 1):
        chosen = error[left == t]
        table[t] = round(float(np.std(chosen)), 2) if len(chosen) else 0.0
    return table


def play_games(columns: int, model: SchoolNet, settings: Settings) -> Samples:
    """Play `settings.games` games with `model` (the `--duels` share against `--rivals`)."""
    payload = model.as_json()
    seeds = list(range(settings.seed, settings.seed + settings.games))
    size = max(1, min(20, math.ceil(settings.games / (settings.workers * 4))))
    task = partial(play, columns, payload, duels=settings.duels, rivals=list(settings.rivals))
    with ProcessPoolExecutor(max_workers=settings.workers) as pool:
        jobs = [pool.submit(task, chunk) for chunk in _chunks(seeds, size)]
        return Samples.join([job.result() for job in jobs])


def measure_spread(columns: int, model: SchoolNet, settings: Settings) -> list[float]:
    """Play games with `model` and measure its spread (`spread_table`)."""
    samples = play_games(columns, model, settings)
    return spread_table(samples, get_rules("school", {"columns": columns}).cells)


def fit_duel(
    columns: int, model: SchoolNet, samples: Samples, settings: Settings, ridge: float
) -> DuelFit:
    """The `DuelFit` of `model` from the expert's turns in `samples` (see the module doc)."""
    rules = get_rules("school", {"columns": columns})
    lay = layout(rules)
    x = samples.x.astype(np.float64)
    rest = rests(samples)
    features = duel_features(lay, x)
    error = rest - model(x)
    gram = features.T @ features + ridge * np.eye(features.shape[1])
    correction: FloatArray = np.linalg.solve(gram, features.T @ error).astype(np.float64)
    variance = replace(SchoolNet.initial(rules, settings.hidden, settings.seed), scale=10_000.0)
    variance, fit_error, held_error = fit(
        variance,
        samples.x,
        (rest - samples.expect) ** 2,
        settings.epochs,
        settings.rate,
        settings.batch,
        settings.seed,
    )
    print(
        f"columns {columns}: {len(x)} turns; value error {error.mean():+.1f} +- {error.std():.1f}, "
        f"after the correction {(error - features @ correction).std():.1f}; variance rmse "
        f"{fit_error:.0f} (held {held_error:.0f})",
        flush=True,
    )
    return DuelFit(correction, variance)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    d = Settings()
    parser.add_argument("--columns", type=int, nargs="+", default=[3])
    parser.add_argument("--iterations", type=int, default=d.iterations)
    parser.add_argument("--games", type=int, default=d.games, help="games per iteration")
    parser.add_argument("--workers", type=int, default=d.workers)
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--lam", type=float, default=d.lam, help="lambda of the returns")
    parser.add_argument("--keep", type=int, default=d.keep, help="iterations of positions fitted")
    parser.add_argument("--epochs", type=float, default=d.epochs, help="passes per refit")
    parser.add_argument("--rate", type=float, default=d.rate, help="Adam's step size")
    parser.add_argument("--batch", type=int, default=d.batch)
    parser.add_argument("--hidden", type=int, nargs="+", default=list(d.hidden))
    parser.add_argument("--duels", type=float, default=d.duels, help="share of 2-player games")
    parser.add_argument("--rivals", nargs="*", default=list(d.rivals), help="greedy basic self")
    parser.add_argument("--select", choices=("solitaire", "duels", "last"), default=d.select)
    parser.add_argument(
        "--minutes",
        type=float,
        nargs="+",
        default=[d.minutes],
        help="time limit of each width (one value for all, or one per width; 0: none)",
    )
    parser.add_argument("--init", type=Path, default=None, help="start from this file's networks")
    parser.add_argument(
        "--spread",
        action="store_true",
        help="do not train: measure the spread of the networks in --out over --games games",
    )
    parser.add_argument(
        "--duel-fit",
        action="store_true",
        help="do not train: fit the duel correction and spread of the networks in --out",
    )
    parser.add_argument("--ridge", type=float, default=10.0, help="--duel-fit's ridge penalty")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    settings = Settings(
        iterations=args.iterations,
        games=args.games,
        workers=args.workers,
        seed=args.seed,
        lam=args.lam,
        keep=args.keep,
        epochs=args.epochs,
        rate=args.rate,
        batch=args.batch,
        hidden=tuple(args.hidden),
        duels=args.duels,
        rivals=tuple(args.rivals),
        select=args.select,
    )
    if len(args.minutes) not in (1, len(args.columns)):
        parser.error("--minutes takes one value or one per width")
    minutes = args.minutes * len(args.columns) if len(args.minutes) == 1 else args.minutes
    try:
        data = json.loads(args.out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {"models": {}}
    start = load_models(args.init) if args.init is not None else {}
    if args.spread:
        models = load_models(args.out)
        for columns in args.columns:
            table = measure_spread(columns, models[columns], settings)
            data.setdefault("spread", {})[str(columns)] = table
            args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
            print(f"columns {columns} spread {table}; wrote {args.out}", flush=True)
        return
    if args.duel_fit:
        models = load_models(args.out)
        for columns in args.columns:
            samples = play_games(columns, models[columns], settings)
            duel = fit_duel(columns, models[columns], samples, settings, args.ridge)
            data.setdefault("duel", {})[str(columns)] = duel.as_json()
            args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
            print(f"columns {columns} duel fit; wrote {args.out}", flush=True)
        return

    def save(columns: int, model: SchoolNet) -> None:
        data["models"][str(columns)] = model.as_json()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")

    for columns, limit in zip(args.columns, minutes, strict=True):
        model = run(
            columns,
            replace(settings, minutes=limit),
            init=start.get(columns),
            checkpoint=partial(save, columns),
        )
        save(columns, model)
        print(f"wrote {args.out} (columns {columns})", flush=True)


if __name__ == "__main__":
    main()
