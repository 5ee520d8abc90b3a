"""Bots behind one interface, found by level name (like python-chess variants by name)."""

from __future__ import annotations

from collections.abc import Callable

from dicepoker.bots.base import Bot
from dicepoker.bots.basic import BasicBot
from dicepoker.bots.expert import ExpertBot
from dicepoker.bots.greedy import GreedyBot
from dicepoker.bots.random_bot import RandomBot

LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": lambda seed: GreedyBot(),
    "basic": lambda seed: BasicBot(),
    "expert": lambda seed: ExpertBot(),
}


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of `level` (`random`, `greedy`, `basic`, `expert`); `seed` makes a randomised bot
    reproducible."""
    try:
        factory = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})") from None
    return factory(seed)


__all__ = ["LEVELS", "BasicBot", "Bot", "ExpertBot", "GreedyBot", "RandomBot", "make_bot"]
