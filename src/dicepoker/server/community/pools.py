"""The rating pools and the number a rating is shown as, for the player pages and leaderboards:
`dicepoker.ratings`'s own (its `pool_of`, `pools` and `shown`), with what a page needs to name a
pool (its variant, and the sheet's columns where the pool is per sheet size).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

from dicepoker.ratings import Rating, pools, shown
from dicepoker.ratings import pool_of as rules_pool
from dicepoker.rules import DEFAULT_VARIANT, find_variant, get_rules, variant_names


@dataclass(frozen=True)
class Pool:
    """One pool: its id, its variant, and the sheet's columns where the options choose them."""

    id: str
    variant: str
    columns: int | None = None


def ordinal(mu: Any, sigma: Any) -> Any:
    """What ratings are ranked by, for floats and SQL columns alike (the leaderboard orders by
    it in the database): what `shown` grows with, the mean alone."""
    del sigma  # `shown` does not discount the uncertainty
    return mu


def shown_rating(mu: float, sigma: float) -> int:
    """The number a person reads for an openskill rating (mu, sigma)."""
    return shown(Rating(mu, sigma))


@functools.cache
def rating_pools() -> dict[str, Pool]:
    """Every pool by id, in the variants' order: each value of a variant's pool options (the
    options that change the sheet's size) makes a pool of its own."""
    found: dict[str, Pool] = {}
    for name in variant_names():
        specs = [spec for spec in find_variant(name).options if spec.pool]
        ranges = [range(int(spec.minimum or 0), int(spec.maximum or 0) + 1) for spec in specs]
        for values in itertools.product(*ranges):
            rules = get_rules(
                name, {spec.name: value for spec, value in zip(specs, values, strict=True)}
            )
            pool = rules_pool(rules)
            found[pool] = Pool(pool, name, rules.columns if specs else None)
    if set(found) != set(pools()):
        raise RuntimeError("the pools of the rules and of dicepoker.ratings differ")
    return found


def pool_of(variant: str, options: dict[str, Any]) -> str:
    """The pool id of a game of `variant` with `options` (RulesError for unknown ones)."""
    return rules_pool(get_rules(variant, options))


def default_pool() -> Pool:
    """The pool a leaderboard shows first: the default game's, with its default options."""
    return rating_pools()[pool_of(DEFAULT_VARIANT, {})]
