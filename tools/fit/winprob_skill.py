"""The handicaps of the bots' levels for the win probability (`dicepoker.winprob.skill`),
run by `tools/fit/winprob.py --fit-skill`:

    .venv/bin/python tools/fit/winprob.py --fit-skill --skill-games 300 --games 0 --workers 2

`--fit-skill` first measures, per preset (its rating pool, `dicepoker.ratings.pool_of`), the
handicap (`winprob/skill.py`) of `greedy` and of every ladder level below the expert from
`--skill-games` 2-player games of the expert against that level (seats alternating, the dice of
`--seed + SKILL_SEEDS + g`): the deficit, the mean points per turn the level scores fewer than
the expert in those games, and the spread factor, the standard deviation of the level's totals
over the expert's. Those moments alone leave the weaker seat's chances too high (its outcomes
are not normal around the expert's: a long tail of misses), so the handicap is then chosen on a
grid around them (`DEFICIT_STEPS` x `SPREAD_STEPS`) as the one whose predictions of the level's
chances on positions of those same games (every `SAMPLE_EVERY`-th) are best calibrated: the
least sum over the deciles of the squared gap between prediction and outcome over its squared
standard error (`calibration_error`, the games as the units). `--skill-levels` fits only the
levels named. Then the level's own rest (`winprob.skill.rest_mixture`): at each sampled
position, the level's final total less the expert's expected final total from there, gathered
by the level's turns left (with the nearest numbers of turns left while fewer than
`REST_COUNT`), cut into `REST_SLICES` slices. A level with a rest is judged by it (the deficit
and spread remain for a sheet longer than the rest measured). It writes
`src/dicepoker/winprob/data/skill.json` (the levels and pools of the file that this run did not
measure are kept; `measured` says how many games each level had and which levels were chosen
for calibration). The expert-against-greedy calibration reads those figures, on other dice.
"""

from __future__ import annotations

import datetime
import json
import math
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dicepoker.winprob as winprob
from dicepoker.bots import LADDER, make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, ranking, totals
from dicepoker.ratings import pool_of
from dicepoker.simulate import play_game
from dicepoker.winprob.skill import Rest, rest_mixture
from winprob import (
    EXPERT,
    SKILL,
    SKILL_SEEDS,
    WEAK,
    FloatArray,
    reliability,
    rules_for,
)

#: The handicaps tried around the moments' fit, as multipliers of its deficit and of its spread.
DEFICIT_STEPS = (0.9, 1.0, 1.15, 1.3, 1.5)
SPREAD_STEPS = (1.15, 1.0, 0.85, 0.7, 0.55)
#: Every how many decision points of a skill game a position is kept for the refinement.
SAMPLE_EVERY = 3
#: The fewest predictions a decile needs to count in the refinement's calibration error.
FIT_COUNT = 100
#: A level's rest: the slices of its residuals per number of turns left, and the fewest
#: residuals a number of turns left takes (its neighbours' are added while it has fewer).
REST_SLICES = 10
REST_COUNT = 400


@dataclass
class SkillGames:
    """Skill games of the expert against a level: both totals per game (in the order expert,
    level), and sampled positions with the level's seat and its share of first place."""

    pairs: list[tuple[int, int]]
    samples: list[tuple[GameState, int, float]]
    game: list[int]  # each sample's game (its seed)
    finals: list[int]  # each sample's final total of the level's seat


def _keeper(into: list[GameState]) -> Callable[[GameState, str], None]:
    """An `on_action` that keeps every position reached."""
    return lambda state, _action: into.append(state)


def play_skill(variant: str, levels: tuple[str, str], seeds: list[int]) -> SkillGames:
    """Games of `levels[0]` against `levels[1]` (seats alternating by seed)."""
    rules = rules_for(variant)
    out = SkillGames([], [], [], [])
    for seed in seeds:
        first = seed % 2 == 0
        order = levels if first else levels[::-1]
        bots = [make_bot(level, seed * 31 + seat) for seat, level in enumerate(order)]
        seen: list[GameState] = []
        end = play_game(rules, bots, SeededDice(seed), on_action=_keeper(seen)).state
        seen = [state for state in seen if not state.finished and state.stage == 0]
        scores = totals(end)
        out.pairs.append((scores[0], scores[1]) if first else (scores[1], scores[0]))
        seat = 1 if first else 0
        places = [standing.seat for standing in ranking(end) if standing.place == 1]
        share = 1.0 / len(places) if seat in places else 0.0
        sampled = seen[::SAMPLE_EVERY]
        out.samples.extend((state, seat, share) for state in sampled)
        out.game.extend([seed] * len(sampled))
        out.finals.extend([scores[seat]] * len(sampled))
    return out


def residual(
    state: GameState, seat: int, final: int, mine: winprob.ScoreDistribution | None
) -> tuple[int, float] | None:
    """(the level's turns left, its final total less the expert's expected final total from
    there, `mine`), or None when the level has no turn left."""
    left = winprob.turns_left(state, seat)
    return (left, final - mine.mean) if left > 0 and mine is not None else None


def residuals(
    samples: list[tuple[GameState, int, float]], finals: list[int]
) -> list[tuple[int, float]]:
    """Per sample with turns left: (the level's turns left, its final total less the expert's
    expected final total from there)."""
    found = (
        residual(state, seat, final, winprob.seat_distributions(state)[seat])
        for (state, seat, _share), final in zip(samples, finals, strict=True)
    )
    return [pair for pair in found if pair is not None]


def fit_rest(cells: int, found: Sequence[tuple[int, float]]) -> list[Rest]:
    """The level's rest per turns left 1 to `cells` (`winprob.skill.rest_mixture`) from its
    residuals (`residuals`, or those `refine` met): the residuals with that many turns left, and
    those of the nearest numbers of turns left while fewer than `REST_COUNT`."""
    by_left: dict[int, list[float]] = {}
    for left, value in found:
        by_left.setdefault(left, []).append(value)
    rest = []
    for left in range(1, cells + 1):
        near_here = list(by_left.get(left, []))
        near = 1
        while len(near_here) < REST_COUNT and near < cells:
            near_here += by_left.get(left - near, []) + by_left.get(left + near, [])
            near += 1
        rest.append(rest_mixture(near_here, REST_SLICES))
    return rest


def level_chances(
    samples: list[tuple[GameState, int, float]], finals: list[int], hands: list[winprob.Handicap]
) -> tuple[FloatArray, list[tuple[int, float]]]:
    """The chance of the level's seat at every sample under every handicap (hands x samples),
    and the level's residuals (`residual`) on the way: the seats' distributions are made once
    per sample."""
    from dicepoker.winprob.skill import handicapped

    out = np.zeros((len(hands), len(samples)))
    found = []
    for j, ((state, seat, _share), final) in enumerate(zip(samples, finals, strict=True)):
        dists = winprob.seat_distributions(state)
        mine = dists[seat]
        assert mine is not None
        pair = residual(state, seat, final, mine)
        if pair is not None:
            found.append(pair)
        left = winprob.turns_left(state, seat)
        for i, hand in enumerate(hands):
            dists[seat] = handicapped(mine, left, hand)
            out[i, j] = winprob.win_chances(dists)[seat]
    return out, found


def calibration_error(
    predicted: FloatArray, observed: FloatArray, game: NDArray[np.int64]
) -> float:
    """How far predictions are from calibrated, each decile by its evidence: the sum over the
    deciles (of at least `FIT_COUNT` predictions) of the squared gap between mean prediction and
    observed frequency over its squared standard error, the games as the units. A count-weighted
    gap would be ruled by the many sure positions and leave the close ones, which few games
    decide, far off."""
    rows = reliability(predicted, observed, game)
    return float(
        sum(
            row["difference"] ** 2 / max(row["se"] ** 2, 1e-6)
            for row in rows
            if row["count"] >= FIT_COUNT
        )
    )


def refine(
    variant: str,
    games: SkillGames,
    moments: tuple[float, float],
    pool: ProcessPoolExecutor,
    workers: int,
) -> tuple[float, float, float, float, list[tuple[int, float]]]:
    """The handicap of the grid around the moments' fit whose predictions of the level's
    chances on its skill games are best calibrated: (deficit, spread, its error, the moments'
    fit's error, the level's residuals met on the way, for `fit_rest`)."""
    deficit, spread = moments
    grid = [(deficit * a, spread * b) for a in DEFICIT_STEPS for b in SPREAD_STEPS]
    hands = [winprob.Handicap(d, s) for d, s in grid]
    size = max(1, math.ceil(len(games.samples) / (workers * 3)))
    chunks = [games.samples[i : i + size] for i in range(0, len(games.samples), size)]
    finals = [games.finals[i : i + size] for i in range(0, len(games.samples), size)]
    parts = [
        pool.submit(level_chances, chunk, final, hands)
        for chunk, final in zip(chunks, finals, strict=True)
    ]
    answers = [part.result() for part in parts]
    predicted = np.concatenate([chances for chances, _found in answers], axis=1)
    found = [pair for _chances, pairs in answers for pair in pairs]
    observed = np.array([share for _state, _seat, share in games.samples])
    game = np.unique(np.array(games.game, dtype=np.int64), return_inverse=True)[1]
    errors = [calibration_error(row, observed, game) for row in predicted]
    best = int(np.argmin(errors))
    base = grid.index((deficit * 1.0, spread * 1.0))
    return grid[best][0], grid[best][1], errors[best], errors[base], found


def fit_skill(
    variants: Sequence[str],
    games: int,
    seed: int,
    workers: int,
    levels: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Each level's handicap per preset's pool (see the module doc), written to `SKILL`."""
    if levels is None:
        levels = [WEAK, *(level for level in LADDER if level != EXPERT)]
    seeds = list(range(seed + SKILL_SEEDS, seed + SKILL_SEEDS + games))
    size = max(1, math.ceil(games / (workers * 3)))
    chunks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
    pools: dict[str, dict[str, list[float]]] = {}
    rests: dict[str, dict[str, list[Rest]]] = {}
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        jobs = {
            (variant, level): [
                pool.submit(play_skill, variant, (EXPERT, level), chunk) for chunk in chunks
            ]
            for variant in variants
            for level in levels
        }
        for (variant, level), parts in jobs.items():
            rules = rules_for(variant)
            played = SkillGames([], [], [], [])
            for job in parts:
                part = job.result()
                played.pairs.extend(part.pairs)
                played.samples.extend(part.samples)
                played.game.extend(part.game)
                played.finals.extend(part.finals)
            pairs = np.array(played.pairs, dtype=np.float64)
            expert, theirs = pairs[:, 0], pairs[:, 1]
            deficit = float((expert - theirs).mean()) / rules.cells
            se = float((expert - theirs).std(ddof=1)) / math.sqrt(len(pairs)) / rules.cells
            spread = float(theirs.std(ddof=1) / max(expert.std(ddof=1), 1e-9))
            fitted, scaled, error, before, met = refine(
                variant, played, (deficit, spread), pool, workers
            )
            name = pool_of(rules)
            pools.setdefault(name, {})[level] = [round(fitted, 4), round(scaled, 4)]
            rests.setdefault(name, {})[level] = fit_rest(rules.cells, met)
            print(
                f"skill {name:<11} {level:<12} moments: deficit {deficit:7.3f} +- {se:.3f} "
                f"points a turn, spread x{spread:.3f} (means {expert.mean():.1f} vs "
                f"{theirs.mean():.1f}, {len(pairs)} games), calibration error {before:.4f}; "
                f"refined: deficit {fitted:.3f}, spread x{scaled:.3f}, error {error:.4f} "
                f"({len(played.samples)} positions)",
                flush=True,
            )
    old: dict[str, Any] = json.loads(SKILL.read_text("utf-8")) if SKILL.exists() else {}
    before_run = old.get("measured", {})
    counts: dict[str, Any] = dict(before_run.get("games", {}))
    refined: dict[str, list[str]] = dict(before_run.get("refined", {}))
    for name, found in pools.items():
        known = counts.get(name, {})
        if not isinstance(known, dict):  # one count for every level of the pool
            known = dict.fromkeys(old.get("pools", {}).get(name, {}), known)
        counts[name] = known | dict.fromkeys(found, games)
        refined[name] = sorted(set(refined.get(name, [])) | set(found))
    merged = {name: old.get("pools", {}).get(name, {}) | found for name, found in pools.items()}
    rests_merged = {
        name: old.get("rests", {}).get(name, {}) | found for name, found in rests.items()
    }
    data = {
        "about": (
            "Handicap of each level per rating pool (dicepoker.winprob.skill): [deficit, spread], "
            "the points per turn it scores fewer than the expert and the standard deviation of "
            "what its turns left bring over the expert's, from 2-player games against the "
            "expert: first by the moments of the totals, then chosen on a grid around them for "
            "the calibration of the level's chances of winning in those games "
            "(tools/fit/winprob.py --fit-skill; measured.games: the games per pool and level; "
            "measured.refined: the levels chosen for calibration, the others by the moments "
            "alone). rests: per pool and level, the level's rest per turns left 1 to the "
            "sheet's cells, [weights, offsets, spreads] of a mixture of normals around the "
            "expert's expected final total (slices of the residuals of those games)."
        ),
        "pools": old.get("pools", {}) | merged,
        "rests": old.get("rests", {}) | rests_merged,
        "measured": {
            "how": "2-player games expert against the level, seats alternating, default options",
            "date": datetime.date.today().isoformat(),
            "games": counts,
            "refined": refined,
            "seed": seed + SKILL_SEEDS,
        },
    }
    SKILL.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"skill written to {SKILL.name}", flush=True)
    return data
