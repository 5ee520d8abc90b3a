"""School: each seat's final total as a distribution, assuming the expert's play from here on.

A seat's final total is what its sheet holds now (`sheet_breakdown`: cells, stars, the reserve, the
zeros) plus what its turns left will bring. The expert's value network says how much that is on
average (`bots/school_value.py`: the network over the sheet's features, which see the rivals'
sheets in the race for the stars, with the duel fit's correction in games with rivals); around it
the total has a spread measured on the expert's own games with rivals (`data/school_spread.json`,
fitted by `tools/fit/school_spread.py`), with the heavy tails measured there too: not one normal
but two around the same mean, one draw in five from the wide one (`rest_kurtosis`,
`ScoreDistribution.heavy`).

Why a spread of its own: the committed spread of `school_net` is what one seat's own turns bring
beyond the network's estimate, measured on games against mixed rivals, but who wins depends on the
margins between seats, and the seats of one table are not independent (a star one of them takes
is lost to the others; all of them race the same rivals). `win_chances` compares the seats as
independent, so the fitted spread of a seat is the one that gives the margins their measured
variance: per number of players and turns left, `s[t]**2` is fitted so that the squared error of
the margin between two seats with `t` and `u` turns left is `s[t]**2 + s[u]**2` on average. With
2 players it is close to the committed spread (91 points against 97 with 12 turns left, 176 for
both at the start); with 3 and 4 it is smaller (77 and 77 with 12 turns left, 165 and 152 at the
start), and the committed one would leave the chances of 3- and 4-player games too timid. Without
a fit for a sheet width the committed spread is used.

The player to move is valued where it stands, not between turns: its turn is played out exactly
under the expert's own plan (`Planner.plan`, the within-turn expectimax the `expert` bot plays):
from the dice on the table (or from the first throw), every way the turn can end (the hand and
doubling it stops with, and the cell move the plan writes with it), with its chance. Each end is
a normal component: what the sheet holds now, the move's gain and the expected points of the sheet
it leaves (the plan's own `score_after`, the points of the expert's play where its objective is
not the points), with the spread of the turns left after it. A hand of five sixes with a roll left
is then worth what it is, not what an average turn is. Where the plan stops on the current dice,
the cell is the one the expert would write (`Planner.cell_values`, its two-turn search).

Forfeited seats are out of the race (None); a seat with no turn left has its total exactly.
Everything that does not change during a turn (the other seats' values, the mover's plan) is
cached, so that the decisions of a turn after its first cost little.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from dicepoker.bots.expert import planner_for
from dicepoker.bots.planner import TIE, FloatArray, IntArray, Planner, TurnPlan
from dicepoker.bots.school_features import Position, encode, layout, state_position
from dicepoker.bots.school_net import DuelFit, SchoolNet, duel_fit_for, model_for, spread_for
from dicepoker.bots.school_value import SchoolValue
from dicepoker.engine import GameState, sheet_breakdown
from dicepoker.rules import Rules
from dicepoker.winprob.mixture import ScoreDistribution

SPREAD_FILE = "school_spread.json"

# A turn's ends are merged into components this fraction of the spread after them wide (the
# mixture is compared on whole points: finer components would only cost time, not accuracy).
BIN = 0.25
_VALUE_CACHE = 2048


@dataclass(frozen=True, slots=True, eq=False)
class _Backend:
    """What the School backend needs for one set of rules: the network, the duel fit (games with
    rivals) and the expert's planner (used under `lock`: it keeps the turn's plan)."""

    rules: Rules
    model: SchoolNet
    duel: DuelFit | None
    planner: Planner
    lock: threading.Lock


@functools.lru_cache(maxsize=16)
def _backend(rules: Rules) -> _Backend:
    from dicepoker.winprob import NoModelError

    if rules.reserve is None:
        raise NoModelError(f"{rules.variant}: not a School game")
    model = model_for(rules)
    planner = planner_for(rules)
    if model is None or not isinstance(planner.after, SchoolValue):
        raise NoModelError(f"{rules.variant} with {rules.columns} columns: no value network")
    return _Backend(rules, model, duel_fit_for(rules), planner, threading.Lock())


# --- the spread -----------------------------------------------------------------------------


@functools.cache
def _spread_data() -> dict[str, Any]:
    try:
        text = resources.files("dicepoker.winprob.data").joinpath(SPREAD_FILE).read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, Any] = json.loads(text)
    return data


@functools.lru_cache(maxsize=64)
def spread_table(rules: Rules, players: int) -> tuple[float, ...]:
    """The spread (points) of a seat's final total around its expected value, per turns left (0
    to every cell), in a game of `players` seats: the fitted table of this sheet width for the
    nearest number of players fitted, else the committed spread of `school_net` (one seat's own),
    else a rough `26 * sqrt(t)`."""
    fitted: dict[str, list[float]] = _spread_data().get("columns", {}).get(str(rules.columns), {})
    tables = {int(key): value for key, value in fitted.items() if len(value) == rules.cells + 1}
    if tables:
        nearest = min(tables, key=lambda n: (abs(n - players), n))
        return tuple(float(v) for v in tables[nearest])
    committed = spread_for(rules)
    if committed is not None:
        return committed
    return tuple(26.0 * float(np.sqrt(t)) for t in range(rules.cells + 1))


def live_seats(state: GameState) -> int:
    """The seats still in the race (not forfeited)."""
    return sum(1 for seat in range(len(state.players)) if seat not in state.forfeited)


@functools.lru_cache(maxsize=64)
def rest_kurtosis(rules: Rules, players: int) -> float:
    """The kurtosis of a seat's rest of the game around its expected value, in a game of
    `players` seats: from the kurtosis of the margins between two seats that the spread's fit
    measured (`measured.scaled_kurtosis`, the nearest number of players), as the seats are
    compared independent, each with the same share: a margin of two independent seats of equal
    spread has half their excess kurtosis, so a seat's is 3 + 2 (K - 3). 3 (normal) where
    nothing was measured. Why: the margins' tails are heavy (kurtosis 4.2 to 5.0), and a
    normal of the same variance makes a lead of a third to one spread less safe than it is
    (docs/analysis.md)."""
    measured: dict[str, dict[str, Any]] = (
        _spread_data().get("measured", {}).get(str(rules.columns), {})
    )
    found = {
        int(key): float(info["scaled_kurtosis"])
        for key, info in measured.items()
        if "scaled_kurtosis" in info
    }
    if not found:
        return 3.0
    margin = found[min(found, key=lambda n: (abs(n - players), n))]
    return 3.0 + 2.0 * max(0.0, margin - 3.0)


# --- the seats between turns ----------------------------------------------------------------


_values: OrderedDict[tuple[object, ...], FloatArray] = OrderedDict()
_values_lock = threading.Lock()


def _views(state: GameState, seats: list[int]) -> FloatArray:
    """The network's features of each seat's sheet (from its own place at the table)."""
    rules = state.rules
    positions = [state_position(state._replace(seat=seat)) for seat in seats]
    return encode(layout(rules), Position.stack(positions))


def rest_values(state: GameState, seats: list[int]) -> FloatArray:
    """What the turns left of each of `seats` will bring, by the expert's play, as the network
    (and in a game with rivals its duel correction) sees each seat's sheet between turns."""
    if not seats:
        return np.zeros(0)
    key = (state.rules, state.sheets, tuple(seats), state.contenders, state.forfeited)
    with _values_lock:
        found = _values.get(key)
        if found is not None:
            _values.move_to_end(key)
            return found
    backend = _backend(state.rules)
    x = _views(state, seats)
    values = backend.model(x)
    live = [seat for seat in state.contenders if seat not in state.forfeited]
    if backend.duel is not None and len(live) > 1:
        values = values + backend.duel.correction_of(layout(state.rules), x)
    with _values_lock:
        _values[key] = values
        if len(_values) > _VALUE_CACHE:
            _values.popitem(last=False)
    return values


# --- the player to move: its turn played out ------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnEnds:
    """Every way the mover's turn can end under the expert's plan: per (hand, doubled), the
    chance `weight` that the turn stops there, and the `points` (the move's gain + the expected
    points of the sheet it leaves) of the move the plan writes with it."""

    weight: FloatArray  # (hands, 2)
    points: FloatArray  # (hands, 2)

    @property
    def mean(self) -> float:
        return float((self.weight * self.points).sum())


def _policy(plan: TurnPlan, rerolls: int) -> tuple[list[IntArray], list[FloatArray]]:
    """Per rolls left j (1 to `rerolls`): the keep the plan holds from each hand and whether it
    rolls at all (per hand and doubling flag), exactly as `Planner.choose` decides."""
    space = plan.space
    hands = np.arange(len(space.subkeeps))
    picks: list[IntArray] = [hands]
    rolls: list[FloatArray] = [np.zeros(plan.stop.shape)]
    for left in range(1, rerolls + 1):
        options = plan.keep_value[left][space.subkeeps]
        best = options.argmax(axis=1)
        picks.append(space.subkeeps[hands, best])
        rolls.append((options[hands, best][:, None] > plan.stop + TIE).astype(np.float64))
    return picks, rolls


def turn_ends(planner: Planner, state: GameState, kept: tuple[int, ...] | None = None) -> TurnEnds:
    """How the mover's turn ends from `state` (dice on the table, or none yet) when the expert
    plays it: the chances of every stopping hand, by the plan's keeps and the dice's odds. With
    `kept` (faces), from the moment the mover keeps those dice and throws the others, before they
    land (the turn must have a roll left)."""
    plan = planner.plan(state)
    space = plan.space
    rules = state.rules
    rerolls = rules.rolls_per_turn - 1
    picks, rolls = _policy(plan, rerolls)
    after = plan.score_after if plan.score_after is not None else plan.after
    gain = plan.table.gain
    points_all = gain if after is None else gain + np.broadcast_to(after, gain.shape)
    move = plan.best_move
    points = np.take_along_axis(points_all, move[None], axis=0)[0]
    reach = np.zeros(plan.stop.shape)
    if kept is not None:
        if not 0 < state.rolls < rules.rolls_per_turn:
            raise ValueError("no dice to keep, or no roll left")
        keep = space.keep_index[tuple(sorted(kept))]
        reach[:, 1 if keep == space.empty_keep else 0] = space.trans[keep]
        left = rules.rolls_per_turn - state.rolls - 1
    elif state.rolls == 0:
        reach[:, 1] = space.trans[space.empty_keep]
        left = rerolls
    else:
        hand = space.hand_index[tuple(sorted(state.dice))]
        doubled = 1 if state.thrown_all else 0
        reach[hand, doubled] = 1.0
        left = rules.rolls_per_turn - state.rolls
        if left == 0 or not rolls[left][hand, doubled]:
            # The expert stops on these dice: the cell it writes is its two-turn search's choice.
            chosen = int(np.argmax(planner.cell_values(state)))
            points = points.copy()
            points[hand, doubled] = points_all[chosen, hand, doubled]
    ended = np.zeros(plan.stop.shape)
    empty = space.empty_keep
    for j in range(left, 0, -1):
        ended += reach * (1.0 - rolls[j])
        thrown = (reach * rolls[j]).sum(axis=1)
        mass = np.bincount(picks[j], weights=thrown, minlength=len(space.keeps))
        reach = np.zeros(plan.stop.shape)
        reach[:, 1] = mass[empty] * space.trans[empty]
        mass[empty] = 0.0
        reach[:, 0] = mass @ space.trans
    ended += reach
    return TurnEnds(ended, np.where(ended > 0, points, 0.0))


def _merge(
    weights: FloatArray, means: FloatArray, sd: float, kurtosis: float = 3.0
) -> ScoreDistribution:
    """The turn's ends as a few components: ends within `BIN` spreads of each other are one
    component with their weight, mean and spread (the variance within it added); the spread of
    the turns after, `sd`, with the tails of `kurtosis` (`rest_kurtosis`)."""
    keep = weights > 1e-12
    w, m = weights[keep], means[keep]
    width = max(1.0, BIN * sd)
    bins = np.floor((m - m.min()) / width).astype(np.int64)
    if sd == 0:  # no turn after this one: the totals are whole numbers, exact
        bins = np.rint(m - m.min()).astype(np.int64)
    total = np.asarray(np.bincount(bins, weights=w), dtype=np.float64)
    used = total > 0
    first = np.bincount(bins, weights=w * m)[used] / total[used]
    second = np.bincount(bins, weights=w * m * m)[used] / total[used]
    within = np.maximum(second - first * first, 0.0)
    spreads = np.sqrt(sd * sd + within)
    return ScoreDistribution.heavy(total[used], first, spreads, np.full(len(first), sd), kurtosis)


def _mover(
    state: GameState,
    total: float,
    left: int,
    spread: tuple[float, ...],
    kept: tuple[int, ...] | None = None,
) -> ScoreDistribution:
    backend = _backend(state.rules)
    with backend.lock:
        ends = turn_ends(backend.planner, state, kept)
    kurtosis = rest_kurtosis(state.rules, live_seats(state))
    return _merge(ends.weight.ravel(), total + ends.points.ravel(), spread[left - 1], kurtosis)


# --- the seats' distributions ---------------------------------------------------------------


def school_distributions(state: GameState) -> list[ScoreDistribution | None]:
    """Each seat's final total in a School game as a distribution: None for a seat that
    forfeited, the exact total for a seat with no turn left, the mover's turn played out (see the
    module doc) and a normal around the network's value for the others. Raises
    `NoModelError` for rules without a School network."""
    rules = state.rules
    _backend(rules)
    seats = len(state.players)
    live = [seat for seat in range(seats) if seat not in state.forfeited]
    spread = spread_table(rules, len(live))
    out: list[ScoreDistribution | None] = [None] * seats
    between: list[int] = []
    for seat in live:
        sheet = state.sheets[seat]
        total = float(sheet_breakdown(rules, sheet).total)
        left = rules.cells - sheet.filled
        if left <= 0:
            out[seat] = ScoreDistribution.exact(total)
        elif seat == state.seat and not state.finished:
            out[seat] = _mover(state, total, left, spread)
        else:
            between.append(seat)
    values = rest_values(state, between)
    kurtosis = rest_kurtosis(rules, len(live))
    for seat, value in zip(between, values, strict=True):
        sheet = state.sheets[seat]
        total = float(sheet_breakdown(rules, sheet).total)
        sd = spread[rules.cells - sheet.filled]
        out[seat] = ScoreDistribution.heavy([1.0], [total + float(value)], [sd], [sd], kurtosis)
    return out


def keep_distributions(state: GameState, kept: tuple[int, ...]) -> list[ScoreDistribution | None]:
    """Each seat's final total once the mover keeps the dice `kept` (faces) and throws the
    others, before they land: its turn goes on under the expert's plan. The other seats' are
    those of `state`, so the chances of winning from these are the average, over the throw, of
    the chances after it (a seat's chance is linear in the mover's distribution)."""
    out = school_distributions(state)
    rules = state.rules
    sheet = state.sheet
    live = [seat for seat in range(len(state.players)) if seat not in state.forfeited]
    spread = spread_table(rules, len(live))
    total = float(sheet_breakdown(rules, sheet).total)
    out[state.seat] = _mover(state, total, rules.cells - sheet.filled, spread, kept)
    return out


def clear_caches() -> None:
    """Forget the cached seat values (the planners' turn plans are let go at their next turn)."""
    with _values_lock:
        _values.clear()


__all__ = [
    "SPREAD_FILE",
    "TurnEnds",
    "clear_caches",
    "keep_distributions",
    "rest_values",
    "school_distributions",
    "spread_table",
    "turn_ends",
]
