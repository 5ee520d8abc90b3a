"""The bot ladder: levels from `beginner` to `expert`, each clearly stronger than the one below.

Every level below the expert is a `FallibleBot` (`bots/fallible.py`): the expert's values of
every option, chosen by a softmax at the level's temperature. The temperatures are data
(`bots/data/ladder.json`), per rating pool or variant where one needs its own ('*' for the rest),
chosen so that the levels stand apart everywhere; `tools/fit/bots.py` measures that they do
(solitaire means, and with `--round-robin` the head-to-head win rate of each step, docs/bots.md)
and fits the anchors the ratings give each level (`dicepoker.ratings`).

The older levels `random`, `greedy` and `basic` stay as reference players (scripts, benchmarks
and the API take them, and they are rated too) but are not steps of the ladder: `basic` is
weaker than `greedy` in School.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from dicepoker.rules import Rules

LADDER_FILE = "ladder.json"
TOP = "expert"


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files("dicepoker.bots.data").joinpath(LADDER_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def ladder() -> tuple[str, ...]:
    """The ladder's levels, weakest first; the last is the expert."""
    return tuple(_data()["levels"])


def fallible_levels() -> tuple[str, ...]:
    """The ladder's levels below the expert."""
    return tuple(level for level in ladder() if level != TOP)


def temperature(rules: Rules, level: str) -> float:
    """The temperature of a fallible `level` in games of `rules`: their rating pool's own (a
    1-column School sheet), else their variant's, else the common one."""
    from dicepoker.ratings import pool_of

    table: dict[str, dict[str, float]] = _data()["temperatures"]
    found = table.get(pool_of(rules)) or table.get(rules.variant) or table["*"]
    try:
        return float(found[level])
    except KeyError:
        raise ValueError(f"{level!r} is not a fallible level of the ladder") from None
