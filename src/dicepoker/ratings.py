"""Ratings: openskill's Plackett-Luce model over whole games, bots as anchored players.

- **Pools.** A rating means something only among games of one kind: one pool per variant, and
  per sheet size where a variant's option changes the sheet (School's columns): `school-3`,
  `yahtzee`. `pool_of` derives it from the rules' own option specs, by no variant's name.
- **One ranking per game.** Plackett-Luce rates a 2-4 player game as one ranking (ties
  included: equal places), not as pairs.
- **Anchors.** A bot level plays at a fixed strength, so its rating is fixed too: measured once
  by a round-robin of every level (`tools/fit/bots.py --round-robin`, the file
  `bots/data/ladder_ratings.json`, fitted by `fit_anchors`), never moved by a game. A small
  site's numbers then mean the same as a big one's: beating `expert` is worth what it is worth
  everywhere. A pool not measured takes its variant's nearest measured sheet.
- **Provisional anchors.** A variant with no measured pool at all (a new one, before its
  round-robin) still rates games against bots: each level is rated where it stands on average
  over the measured pools, with the spread between those pools added to its sigma, and the pool
  is `provisional` until measured. Every pool's anchors are fitted on one scale, with the
  ladder's mean where a new player starts (`fit_anchors`' centre), and the ladder's temperatures
  are chosen so that its levels stand apart alike in every variant: a level's average over the
  variants is the best guess for one not measured, and their disagreement is how far off that
  guess may be. The wider sigma makes a result against a provisional anchor move a person's
  rating less (Plackett-Luce weighs a game by the players' uncertainties). Borrowing one other
  variant's anchors instead would pick a neighbour with nothing to measure "near" by.
- **Shown.** People see `shown(rating)`: 1500 + 50 x (mu - 25), rounded (a new player is 1500;
  openskill's mu starts at 25).
- **Provisional players.** A person's rating in a pool is provisional until they have played
  `ESTABLISHED_GAMES` rated games there (`provisional_rating`): shown with a question mark
  ("1874?", as lichess does) and listed below every established rating on the leaderboard, since
  a few lucky or arranged games say little. (A pool's `provisional` anchors are another matter:
  the bots' ratings of a variant not measured yet.)
- **Repeated opponents.** Only the first `RATED_GAMES_A_DAY_TOGETHER` rated games of a UTC day
  between the same two accounts move their ratings; later ones that day are played as asked but
  change nothing, so that losing on purpose to a second account of one's own pays little.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from openskill.models import PlackettLuce

from dicepoker.rules import Rules, find_variant, variant_names

SHOWN_BASE = 1500
SHOWN_SCALE = 50.0
ANCHORS_FILE = "ladder_ratings.json"
#: Rated games in a pool after which a person's rating there is no longer provisional.
ESTABLISHED_GAMES = 10
#: Rated games of a UTC day between the same two accounts that move their ratings.
RATED_GAMES_A_DAY_TOGETHER = 3
# An anchor's sigma: its strength is fixed, but a sigma of 0 would make every game against it
# count as if the person's own uncertainty were all there is; 1 is that of a well-known player.
ANCHOR_SIGMA = 1.0


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float


@dataclass(frozen=True)
class RatedSeat:
    """A seat of a finished game: its place (1 = first), and its rating (a person) or its
    bot level (an anchor)."""

    place: int
    rating: Rating | None = None
    level: str | None = None


@functools.cache
def _model() -> PlackettLuce:
    return PlackettLuce()


def default_rating() -> Rating:
    """Where a person starts in a pool."""
    start = _model().rating()
    return Rating(float(start.mu), float(start.sigma))


def shown(rating: Rating) -> int:
    """The number people see."""
    return round(SHOWN_BASE + SHOWN_SCALE * (rating.mu - default_rating().mu))


def provisional_rating(games: int) -> bool:
    """Whether a person's rating after `games` rated games in its pool is still provisional."""
    return games < ESTABLISHED_GAMES


def pool_of(rules: Rules) -> str:
    """The rating pool of games of these rules: the variant, and the value of each option that
    changes the sheet's size (the rules declare which: `OptionSpec.pool`)."""
    variant = find_variant(rules.variant)
    parts = [rules.variant]
    for spec in variant.options:
        if spec.pool:
            parts.append(str(rules.option_dict[spec.name]))
    return "-".join(parts)


def pools() -> list[str]:
    """Every pool a game can be rated in (each pool option over its allowed values)."""
    found: list[str] = []
    for name in variant_names():
        variant = find_variant(name)
        choices: list[list[str]] = [[name]]
        for spec in variant.options:
            if spec.pool:
                low, high = int(spec.minimum or 0), int(spec.maximum or 0)
                choices.append([str(value) for value in range(low, high + 1)])
        combos = [""]
        for options in choices:
            combos = [f"{done}-{value}" if done else value for done in combos for value in options]
        found.extend(combos)
    return found


@functools.cache
def _anchors() -> dict[str, dict[str, dict[str, Any]]]:
    text = resources.files("dicepoker.bots.data").joinpath(ANCHORS_FILE).read_text("utf-8")
    data: dict[str, dict[str, dict[str, Any]]] = json.loads(text)["pools"]
    return data


def _split_pool(pool: str) -> tuple[str, int | None]:
    """A pool's variant and sheet size (`school-3` -> school, 3; `poker-dice` -> poker-dice)."""
    head, _, tail = pool.rpartition("-")
    return (head, int(tail)) if head and tail.isdigit() else (pool, None)


def provisional(pool: str) -> bool:
    """Whether `pool`'s anchors are provisional: its variant has no measured pool yet."""
    variant = _split_pool(pool)[0]
    return all(_split_pool(name)[0] != variant for name in _anchors())


def provisional_pools() -> list[str]:
    """The pools whose bots are rated provisionally (variants whose round-robin is to come)."""
    return [pool for pool in pools() if provisional(pool)]


def _nearest_pool(pool: str) -> str:
    """The measured pool for `pool`: itself, or the same variant's measured pool whose sheet
    size is nearest (School with 5 columns takes the anchors of 3), else the variant alone.
    Only for pools that are not `provisional` (a variant with no measured pool has none)."""
    measured = _anchors()
    if pool in measured:
        return pool
    variant, size = _split_pool(pool)
    same = [name for name in measured if _split_pool(name)[0] == variant]
    if not same:
        raise ValueError(f"pool {pool!r} is provisional: its variant has no measured anchors")

    def distance(name: str) -> tuple[int, str]:
        other = _split_pool(name)[1]
        return (abs(other - size) if other is not None and size is not None else 99, name)

    return min(same, key=distance)


@functools.cache
def _provisional_anchors() -> dict[str, dict[str, Any]]:
    """Each level's provisional anchor: its mean mu over the measured pools, and a sigma that
    adds their spread (the population deviation of those mus) to `ANCHOR_SIGMA`."""
    mus: dict[str, list[float]] = {}
    for levels in _anchors().values():
        for level, entry in levels.items():
            mus.setdefault(level, []).append(float(entry["mu"]))
    return {
        level: {
            "mu": float(np.mean(values)),
            "sigma": float(np.sqrt(ANCHOR_SIGMA**2 + np.var(values))),
        }
        for level, values in mus.items()
    }


def _pool_anchors(pool: str) -> dict[str, dict[str, Any]]:
    """The anchors that rate `pool`'s bots: its nearest measured pool's, else provisional."""
    if provisional(pool):
        return _provisional_anchors()
    return _anchors()[_nearest_pool(pool)]


#: Levels rated as another until the round-robin measures them: `points` plays the expert's
#: moves except where the expert plays for the win against rivals (a difference of about a
#: game in a hundred, docs/bots.md), well inside the anchors' spread.
RATED_AS = {"points": "expert"}


def anchor(pool: str, level: str) -> Rating:
    """The fixed rating of a bot level in a pool (measured by the ladder's round-robin, or
    provisional where its variant is not measured yet)."""
    measured = _pool_anchors(pool)
    entry = measured.get(level) or measured.get(RATED_AS.get(level, ""))
    if entry is None:
        raise ValueError(f"no anchor for bot level {level!r} in pool {pool!r}")
    return Rating(float(entry["mu"]), float(entry["sigma"]))


def anchored_levels(pool: str) -> dict[str, int]:
    """Each anchored bot level's shown rating in a pool (the lobby's bot picker)."""
    measured = _pool_anchors(pool)
    out = {
        level: shown(Rating(float(entry["mu"]), float(entry["sigma"])))
        for level, entry in measured.items()
    }
    for level, like in RATED_AS.items():
        if level not in out and like in out:
            out[level] = out[like]
    return out


@functools.cache
def level_ratings() -> dict[str, dict[str, int]]:
    """Every pool's anchored bot levels with their shown ratings (GET /api/variants)."""
    return {pool: anchored_levels(pool) for pool in pools()}


def rate_game(pool: str, seats: list[RatedSeat]) -> list[Rating]:
    """Every seat's rating after a finished game: people's updated by Plackett-Luce over the
    game's ranking, bots' their anchors, unchanged."""
    model = _model()
    teams = []
    for seat in seats:
        if seat.rating is not None:
            teams.append([model.rating(mu=seat.rating.mu, sigma=seat.rating.sigma)])
        elif seat.level is not None:
            fixed = anchor(pool, seat.level)
            teams.append([model.rating(mu=fixed.mu, sigma=fixed.sigma)])
        else:
            raise ValueError("a rated seat is a person with a rating or a bot with a level")
    if len(teams) < 2:
        return [seat.rating or anchor(pool, str(seat.level)) for seat in seats]
    rated = model.rate(teams, ranks=[float(seat.place) for seat in seats])
    after: list[Rating] = []
    for seat, team in zip(seats, rated, strict=True):
        if seat.rating is None:
            after.append(anchor(pool, str(seat.level)))
        else:
            after.append(Rating(float(team[0].mu), float(team[0].sigma)))
    return after


@dataclass(frozen=True)
class Pairing:
    """Games between two levels of a round-robin: `score` is `first`'s points in them (a win 1,
    a shared first place 1/2)."""

    first: str
    second: str
    games: int
    score: float


def fit_anchors(
    levels: list[str], pairings: list[Pairing], centre: list[str]
) -> dict[str, dict[str, float]]:
    """The anchors of `levels` from a round-robin between them: a Bradley-Terry fit (by
    Hunter's MM iterations, with half a win to each side of every pairing so that a level that
    never won keeps a finite rating), on openskill's own scale: with two players, Plackett-Luce
    says `first` wins with chance 1 / (1 + exp(-(mu1 - mu2) / c)), c = sqrt(2 beta^2 + 2
    ANCHOR_SIGMA^2), so the fitted strengths times c are the mus. The mean of the `centre` levels'
    mus is a new player's (25, shown 1500). `se` is each mu's standard error (Fisher
    information)."""
    index = {level: i for i, level in enumerate(levels)}
    n = len(levels)
    games = np.zeros((n, n))
    wins = np.zeros((n, n))
    for pairing in pairings:
        i, j = index[pairing.first], index[pairing.second]
        games[i, j] += pairing.games + 1.0
        games[j, i] += pairing.games + 1.0
        wins[i, j] += pairing.score + 0.5
        wins[j, i] += pairing.games - pairing.score + 0.5
    strength = np.ones(n)
    total = wins.sum(axis=1)
    for _ in range(10_000):
        pair = strength[:, None] + strength[None, :]
        updated = total / np.where(games > 0, games / pair, 0.0).sum(axis=1)
        updated /= np.exp(np.log(updated).mean())
        done = np.max(np.abs(np.log(updated) - np.log(strength))) < 1e-12
        strength = updated
        if done:
            break
    theta = np.log(strength)
    model = _model()
    c = float(np.sqrt(2 * model.beta**2 + 2 * ANCHOR_SIGMA**2))
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    info = -games * p * (1 - p)
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(info)), 0.0, None)) * c
    middle = float(np.mean([theta[index[level]] for level in centre]))
    start = default_rating().mu
    return {
        level: {
            "mu": round(start + c * float(theta[i] - middle), 4),
            "sigma": ANCHOR_SIGMA,
            "se": round(float(se[i]), 4),
        }
        for level, i in index.items()
    }
