"""How a seat that does not play like the expert changes its distribution: a handicap per level.

The backends model every seat as playing like the expert from here on. A seat known to play at
another level (a bot of the ladder, or a reference bot) scores less on average each turn and
spreads its results differently. Where the level's own rest was measured (`rest`), the seat's
final total is the expert's expected final total from its position plus what the level's
games left it above or below that, with as many turns left: a mixture of normals per number of
turns left, one per slice of those residuals sorted (equal weights, each slice's mean and
spread), so the level's long tail of misses is its own and not a normal's. Otherwise `deficit`
points fewer than the expert per turn left, and the spread of the turns left times `spread`.
The figures are measured by `tools/fit/winprob.py --fit-skill` from games of each level, per
rating pool (or variant), and kept in `data/skill.json`; a level with no figure is taken to
play like the expert.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from dicepoker.rules import Rules
from dicepoker.winprob.mixture import ScoreDistribution

SKILL_FILE = "skill.json"


#: A level's rest with t turns left: (weights, offsets from the expert's expected final total,
#: spreads) of a mixture of normals.
Rest = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True, slots=True)
class Handicap:
    deficit: float = 0.0
    spread: float = 1.0
    #: Per turns left t (1 to the sheet's cells), `rest[t - 1]`; empty: not measured.
    rest: tuple[Rest, ...] = ()

    @property
    def none(self) -> bool:
        return self.deficit == 0.0 and self.spread == 1.0 and not self.rest


EXPERT = Handicap()


@functools.cache
def _data() -> dict[str, Any]:
    try:
        text = resources.files("dicepoker.winprob.data").joinpath(SKILL_FILE).read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, Any] = json.loads(text)
    return data


def handicap(rules: Rules, level: str | None) -> Handicap:
    """The handicap of a seat playing at `level` in games of `rules` (None: the expert's play)."""
    if level is None:
        return EXPERT
    from dicepoker.ratings import pool_of

    return _handicap(pool_of(rules), rules.variant, level)


@functools.cache
def _handicap(pool: str, variant: str, level: str) -> Handicap:
    pools: dict[str, dict[str, list[float]]] = _data().get("pools", {})
    found = pools.get(pool) or pools.get(variant) or {}
    figures = found.get(level)
    if figures is None:
        return EXPERT
    rests: dict[str, dict[str, list[list[list[float]]]]] = _data().get("rests", {})
    table = (rests.get(pool) or rests.get(variant) or {}).get(level, [])
    rest = tuple(
        (tuple(weights), tuple(offsets), tuple(spreads)) for weights, offsets, spreads in table
    )
    return Handicap(float(figures[0]), float(figures[1]), rest)


def rest_mixture(residuals: Sequence[float], slices: int) -> Rest:
    """The mixture of a level's residuals (its final total less the expert's expected one) with
    some number of turns left: the residuals sorted and cut into `slices` slices of equal size,
    each a normal of its mean and spread (at least a point, so that the slices overlap)."""
    ordered = np.sort(np.asarray(residuals, dtype=np.float64))
    parts = [part for part in np.array_split(ordered, slices) if len(part)]
    total = sum(len(part) for part in parts)
    return (
        tuple(round(len(part) / total, 6) for part in parts),
        tuple(round(float(part.mean()), 3) for part in parts),
        tuple(round(max(float(part.std()), 1.0), 3) for part in parts),
    )


def handicapped(dist: ScoreDistribution, turns_left: int, hand: Handicap) -> ScoreDistribution:
    """`dist` (the expert's play) for a seat with `turns_left` turns to play at `hand`'s level."""
    if hand.none or turns_left <= 0:
        return dist
    if turns_left <= len(hand.rest):
        weights, offsets, spreads = hand.rest[turns_left - 1]
        return ScoreDistribution.mixture(weights, np.asarray(offsets) + dist.mean, spreads)
    return ScoreDistribution(
        dist.weights,
        dist.means - hand.deficit * turns_left,
        dist.sds * hand.spread,
    )


__all__ = ["EXPERT", "Handicap", "Rest", "handicap", "handicapped", "rest_mixture"]
