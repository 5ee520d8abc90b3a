"""How a seat that does not play like the expert changes its distribution: a handicap per level.

The backends model every seat as playing like the expert from here on. A seat known to play at
another level (a bot of the ladder, or a reference bot) scores less on average each turn and
spreads its results differently; `Handicap` says by how much: `deficit` points fewer than the
expert per turn left, and the spread of the turns left times `spread`. The figures are measured
by `benchmarks/winprob.py --fit-skill` from games of each level, per rating pool (or variant),
and kept in `data/skill.json`; a level with no figure is taken to play like the expert.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from dicepoker.rules import Rules
from dicepoker.winprob.mixture import ScoreDistribution

SKILL_FILE = "skill.json"


@dataclass(frozen=True, slots=True)
class Handicap:
    deficit: float = 0.0
    spread: float = 1.0

    @property
    def none(self) -> bool:
        return self.deficit == 0.0 and self.spread == 1.0


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

    pools: dict[str, dict[str, list[float]]] = _data().get("pools", {})
    found = pools.get(pool_of(rules)) or pools.get(rules.variant) or {}
    figures = found.get(level)
    if figures is None:
        return EXPERT
    return Handicap(float(figures[0]), float(figures[1]))


def handicapped(dist: ScoreDistribution, turns_left: int, hand: Handicap) -> ScoreDistribution:
    """`dist` (the expert's play) for a seat with `turns_left` turns to play at `hand`'s level."""
    if hand.none or turns_left <= 0:
        return dist
    return ScoreDistribution(
        dist.weights,
        dist.means - hand.deficit * turns_left,
        dist.sds * hand.spread,
    )


__all__ = ["EXPERT", "Handicap", "handicap", "handicapped"]
