"""Bots behind one interface, found by level name (like python-chess variants by name)."""

from __future__ import annotations

from collections.abc import Callable

from dicepoker.bots.base import Bot
from dicepoker.bots.basic import BasicBot
from dicepoker.bots.expert import ExpertBot
from dicepoker.bots.fallible import FallibleBot
from dicepoker.bots.greedy import GreedyBot
from dicepoker.bots.ladder import fallible_levels, ladder
from dicepoker.bots.random_bot import RandomBot


def _fallible(level: str) -> Callable[[int | None], Bot]:
    return lambda seed: FallibleBot(level, seed)


# The reference players beside the ladder: not steps of it (see `bots/ladder.py`). `points` is
# the expert playing for its expected score even against rivals.
REFERENCE: dict[str, Callable[[int | None], Bot]] = {
    "points": lambda seed: ExpertBot(seek_win=False),
    "random": RandomBot,
    "greedy": lambda seed: GreedyBot(),
    "basic": lambda seed: BasicBot(),
}

# Every level by name: the ladder's, weakest first, then the reference players.
LEVELS: dict[str, Callable[[int | None], Bot]] = {
    **{level: _fallible(level) for level in fallible_levels()},
    "expert": lambda seed: ExpertBot(),
    **REFERENCE,
}
LADDER: tuple[str, ...] = ladder()


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of `level` (the ladder's `beginner` ... `expert`, or `random`, `greedy`, `basic`);
    `seed` makes a randomised bot reproducible."""
    try:
        factory = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})") from None
    return factory(seed)


__all__ = [
    "LADDER",
    "LEVELS",
    "REFERENCE",
    "BasicBot",
    "Bot",
    "ExpertBot",
    "FallibleBot",
    "GreedyBot",
    "RandomBot",
    "make_bot",
]
