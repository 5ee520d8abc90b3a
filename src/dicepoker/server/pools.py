"""The rating pools and the number a rating is shown as, for the player pages and leaderboards.

A pool is one preset: a variant, and for a variant whose options change the number of columns
on the sheet, one pool per column count (`school-3`, `yahtzee`). The pools are derived from the
variants' data, never from their names.

This module is the one place that the pages and the leaderboards learn both from: when
`dicepoker.ratings` (the rating updates) defines its own pools and display number, these
functions become thin calls to it, and nothing else changes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final

from dicepoker.rules import DEFAULT_VARIANT, VARIANTS, OptionSpec, get_rules

#: How many standard deviations below its mean a rating is shown (openskill's "ordinal": a
#: new player with a wide uncertainty is not shown above a proven one).
SIGMAS: Final = 3.0
#: The shown number: OFFSET + SCALE x ordinal, rounded (a new player's ordinal is 0: 1000).
OFFSET: Final = 1000.0
SCALE: Final = 40.0


@dataclass(frozen=True)
class Pool:
    """One pool: its id, its variant, and the sheet's columns where the options choose them."""

    id: str
    variant: str
    columns: int | None = None


def ordinal(mu: Any, sigma: Any) -> Any:
    """What ratings are ranked by, mu - 3 sigma: for floats, and for SQL columns alike (the
    leaderboard orders by it in the database)."""
    return mu - SIGMAS * sigma


def shown_rating(mu: float, sigma: float) -> int:
    """The number a person reads for an openskill rating (mu, sigma): increasing in `ordinal`."""
    return round(OFFSET + SCALE * float(ordinal(mu, sigma)))


@functools.cache
def _column_option(name: str) -> OptionSpec | None:
    """The variant's option that sets the number of columns on the sheet, if it has one."""
    variant = VARIANTS[name]
    for spec in variant.options:
        if spec.kind is int and spec.minimum is not None and spec.maximum is not None:
            low = get_rules(variant.name, {spec.name: spec.minimum}).columns
            high = get_rules(variant.name, {spec.name: spec.maximum}).columns
            if low != high:
                return spec
    return None


@functools.cache
def rating_pools() -> dict[str, Pool]:
    """Every pool by id, in the variants' order (and by column count within a variant)."""
    pools: dict[str, Pool] = {}
    for name in VARIANTS:
        spec = _column_option(name)
        if spec is None or spec.minimum is None or spec.maximum is None:
            pools[name] = Pool(name, name)
            continue
        values = range(spec.minimum, spec.maximum + 1)
        counts = sorted({get_rules(name, {spec.name: value}).columns for value in values})
        for columns in counts:
            pools[f"{name}-{columns}"] = Pool(f"{name}-{columns}", name, columns)
    return pools


def pool_of(variant: str, options: dict[str, Any]) -> str:
    """The pool id of a game of `variant` with `options` (RulesError for unknown ones)."""
    rules = get_rules(variant, options)
    if _column_option(variant) is None:
        return variant
    return f"{variant}-{rules.columns}"


def default_pool() -> Pool:
    """The pool a leaderboard shows first: the default game's, with its default options."""
    return rating_pools()[pool_of(DEFAULT_VARIANT, {})]
