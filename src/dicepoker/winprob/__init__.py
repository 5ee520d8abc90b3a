"""Who is winning: each seat's chance of finishing first, from any position of a game with rivals.

A backend describes each seat's final total as a distribution (`ScoreDistribution`, a mixture of
normals): `sheets` for the variants the exact solver plays (the points the sheet holds, exactly how
the current turn can end under the expert's play, then the mean and spread of the rest from the
solver's tables), `school` for School (the value network and its measured spread). `win_chances`
compares the seats' distributions; ties are shared. Each seat is assumed to play like the expert
from here on, unless `skill` says otherwise (docs/analysis.md, "Win probability").

Solitaire games have no win probability (None). A finished game gives its winner 1 (seats
sharing first place, in the variants without a tie-break, share it); a tie-break
game, played on fresh sheets until a round ends with someone ahead, gives each contender an equal
share. Results are cached per position.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import OrderedDict
from collections.abc import Sequence
from threading import Lock

import numpy as np

from dicepoker.dice import FixedDice
from dicepoker.engine import Action, GameState, Roll, apply, ranking
from dicepoker.rules import Rules
from dicepoker.winprob.mixture import ScoreDistribution, normal_cdf, win_chances
from dicepoker.winprob.skill import Handicap, handicap, handicapped

#: Per seat, the level it plays at (None: like the expert); a bot seat's level, say.
Levels = Sequence[str | None]

log = logging.getLogger("dicepoker.winprob")

_CACHE_SIZE = 4096
_cache: OrderedDict[tuple[GameState, tuple[str | None, ...]], tuple[float, ...]] = OrderedDict()
_lock = Lock()


class NoModelError(LookupError):
    """No backend can judge these rules (a variant neither the solver nor a School network
    covers)."""


def seat_distributions(state: GameState) -> list[ScoreDistribution | None]:
    """Each seat's final total as a distribution (None: a seat that forfeited)."""
    from dicepoker import solver

    if solver.supports(state.rules):
        from dicepoker.winprob.sheets import sheet_distributions

        return sheet_distributions(state)
    from dicepoker.winprob.school import school_distributions

    return school_distributions(state)


def turns_left(state: GameState, seat: int) -> int:
    """The turns `seat` still plays in the main game (the mover's current turn included)."""
    return state.rules.cells - state.sheets[seat].filled


def chances_after(
    state: GameState, action: Action, levels: Levels | None = None
) -> tuple[float, ...] | None:
    """Each seat's chance of finishing first once the mover has chosen `action` and before any
    dice it throws land: the position's own chances for the turn's first roll (nothing is
    chosen), those after a cell move, and for a keep, the average over the reroll of the
    chances after it (the luck of that roll is then its chances less these). None in a
    solitaire game."""
    if len(state.players) < 2:
        return None
    if isinstance(action, Roll) and state.rolls == 0:
        return win_probability(state, levels)
    if not isinstance(action, Roll):
        return win_probability(apply(state, action, FixedDice(())), levels)
    from dicepoker import solver

    played = tuple(levels) if levels is not None else (None,) * len(state.players)
    if state.stage > 0 or state.finished:
        return _averaged_over_reroll(state, action, played)
    kept = tuple(sorted(state.dice[p] for p in action.keep))
    if solver.supports(state.rules):
        from dicepoker.winprob.sheets import keep_distributions as sheet_keeps

        dists = sheet_keeps(state, kept)
    else:
        from dicepoker.winprob.school import keep_distributions as school_keeps

        dists = school_keeps(state, kept)
    return tuple(win_chances(_handicapped(state, dists, played)))


def _averaged_over_reroll(
    state: GameState, action: Roll, levels: tuple[str | None, ...]
) -> tuple[float, ...]:
    """The chances after every way the rerolled dice can land, weighed by its chance (each
    multiset of faces once, with its multinomial weight)."""
    count = state.rules.dice - len(action.keep)
    faces = state.rules.faces
    total = np.zeros(len(state.players))
    for throw in itertools.combinations_with_replacement(range(1, faces + 1), count):
        weight = math.factorial(count) / faces**count
        for face in set(throw):
            weight /= math.factorial(throw.count(face))
        chances = win_probability(apply(state, action, FixedDice(throw)), levels)
        assert chances is not None
        total += weight * np.asarray(chances)
    return tuple(float(value) for value in total)


def ready(rules: Rules) -> bool:
    """Whether a position of these rules is judged at once (the backend's tables are loaded in
    this process); `prepare` loads them."""
    from dicepoker import solver

    if solver.supports(rules):
        from dicepoker.winprob.sheets import ready as sheets_ready

        return sheets_ready(rules)
    return True


def prepare(rules: Rules) -> None:
    """Load (the first time: build) what judging positions of these rules needs."""
    from dicepoker import solver

    if solver.supports(rules):
        from dicepoker.winprob.sheets import prepare as prepare_sheets

        prepare_sheets(rules)


def forecast(state: GameState, levels: Levels | None = None) -> tuple[float, ...] | None:
    """`win_probability` for the live table: None also where no backend covers the rules (a
    variant being added), so that its games go on without chances instead of an error at
    every move. The first position of a variant loads (or builds) its tables."""
    try:
        return win_probability(state, levels)
    except NoModelError:
        return None


def _chances(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
    seats = len(state.players)
    if state.finished:
        first = [standing.seat for standing in ranking(state) if standing.place == 1]
        return tuple(1.0 / len(first) if seat in first else 0.0 for seat in range(seats))
    if state.stage > 0:
        live = [seat for seat in state.contenders if seat not in state.forfeited]
        return tuple(1.0 / len(live) if seat in live else 0.0 for seat in range(seats))
    return tuple(win_chances(_handicapped(state, seat_distributions(state), levels)))


def _handicapped(
    state: GameState, dists: list[ScoreDistribution | None], levels: tuple[str | None, ...]
) -> list[ScoreDistribution | None]:
    """The seats' distributions, each seat of a known level handicapped for it."""
    for seat, level in enumerate(levels):
        dist = dists[seat]
        if dist is not None and level is not None:
            hand = handicap(state.rules, level)
            dists[seat] = handicapped(dist, turns_left(state, seat), hand)
    return dists


def win_probability(state: GameState, levels: Levels | None = None) -> tuple[float, ...] | None:
    """Each seat's chance of finishing first (summing to 1), or None in a solitaire game.
    `levels`: the level each seat plays at, where known (see `skill.py`)."""
    if len(state.players) < 2:
        return None
    played = tuple(levels) if levels is not None else (None,) * len(state.players)
    if len(played) != len(state.players):
        raise ValueError("one level per seat")
    key = (state, played)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    chances = _chances(state, played)
    with _lock:
        _cache[key] = chances
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return chances


__all__ = [
    "Handicap",
    "Levels",
    "NoModelError",
    "ScoreDistribution",
    "chances_after",
    "forecast",
    "normal_cdf",
    "prepare",
    "ready",
    "seat_distributions",
    "turns_left",
    "win_chances",
    "win_probability",
]
