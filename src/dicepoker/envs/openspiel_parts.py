"""The pieces of the OpenSpiel games that need no `pyspiel`: the dice's chance outcomes, the
returns, the bounds of a game, and the observation tensor (see `dicepoker.envs.openspiel`).

Everything is read from a `Rules` value and the engine (its turn structure, `ranking`,
`breakdown`, the codec's observation of a sheet), so no rule is written here a second time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any

import numpy as np
import numpy.typing as npt

from dicepoker.engine import (
    GameState,
    Roll,
    breakdown,
    further_yahtzee_bonus,
    legal_actions,
    ranking,
    row_star_value,
    sheet_breakdown,
    upper_bonus_points,
    zero_penalty,
)
from dicepoker.engine.state import Cell, Mark
from dicepoker.engine.tables import tables
from dicepoker.envs.codec import (
    N_MARKS,
    STAR_CODES,
    Layout,
    dice_order,
    encode,
    layout,
    observation,
)
from dicepoker.rules import Rules, get_rules
from dicepoker.rules.combos import face_counts

FloatArray = npt.NDArray[np.float32]

#: What a game's returns are: "win" (zero-sum, from the engine's ranking) or "score" (totals).
RETURNS = ("win", "score")
#: Full tie-break games counted in a game's maximum length (where the rules play tie-breaks): a
#: further one needs every round of two whole tie-break games tied, so it is practically never.
TIEBREAK_GAMES = 2


# --- chance outcomes -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Throws:
    """Every throw of 1..dice dice as a chance outcome: the sorted faces (a multiset), numbered
    by how many dice are thrown and then in lexicographic order, with its probability."""

    faces: tuple[tuple[int, ...], ...]  # outcome index -> the thrown faces, sorted
    by_count: dict[int, list[tuple[int, float]]]  # dice thrown -> (outcome, probability)
    exact: dict[int, Fraction]  # outcome -> its probability, exactly

    @property
    def count(self) -> int:
        return len(self.faces)


@cache
def throws(dice: int, faces: int) -> Throws:
    """The chance outcomes of throwing up to `dice` dice of `faces` faces (computed once)."""
    found: list[tuple[int, ...]] = []
    by_count: dict[int, list[tuple[int, float]]] = {}
    exact: dict[int, Fraction] = {}
    for count in range(1, dice + 1):
        outcomes = by_count.setdefault(count, [])
        for hand in combinations_with_replacement(range(1, faces + 1), count):
            ways = factorial(count) // prod(factorial(n) for n in face_counts(hand, faces))
            chance = Fraction(ways, faces**count)
            exact[len(found)] = chance
            outcomes.append((len(found), float(chance)))
            found.append(hand)
    return Throws(tuple(found), by_count, exact)


def thrown(rules: Rules, roll: Roll) -> int:
    """How many dice `roll` throws (the engine's table of the dice a hold leaves free)."""
    free = tables(rules).thrown.get(roll.keep)
    if free is None:
        raise ValueError(f"{roll} is not a throw of {rules.variant}")
    return len(free)


# --- legal actions -------------------------------------------------------------------------------


def legal_indices(lay: Layout, state: GameState) -> list[int]:
    """The engine's legal actions in `state` as sorted action indices: the codec's `encode` of
    each of `legal_actions`, as `codec.action_mask` has them. A search asks at every step, so
    the translation is kept: the engine hands out the same tuple of actions for the same open
    rows (its cell moves translate alike whatever the dice), and a hold's index depends only on
    the order of the dice."""
    if state.finished:
        return []
    actions = legal_actions(state)
    memo: dict[object, Any] = lay.rules.memo.setdefault("openspiel_legal", {})
    split = memo.get(id(actions))
    if split is None or split[0] is not actions:
        keeps = tuple(action.keep for action in actions if isinstance(action, Roll))
        moves = sorted(encode(lay, state, a) for a in actions if not isinstance(a, Roll))
        split = (actions, keeps, moves)
        if len(memo) < _LEGAL_MEMO:
            memo[id(actions)] = split  # keeps `actions` alive, so its id stays its own
    _, keeps, moves = split
    if not keeps:
        return list(moves)
    order = tuple(dice_order(state))
    holds: dict[tuple[int, ...], int] | None = memo.get(order)
    if holds is None:
        holds = memo[order] = {}
    indices = []
    for keep in keeps:
        index = holds.get(keep)
        if index is None:
            index = holds[keep] = encode(lay, state, Roll(keep), list(order))
        indices.append(index)
    indices.sort()
    return indices + moves  # every hold's index is below every cell move's


#: The most translations kept per rules (the engine's distinct tuples are far fewer).
_LEGAL_MEMO = 20_000


# --- a game's set-up -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """One game's constants: the rules, the player count, what returns mean, the action layout
    and the throws. Shared by every state of the game, and by states that are deserialized."""

    variant: str
    options: tuple[tuple[str, bool | int], ...]
    players: int
    returns: str
    rules: Rules = field(compare=False)
    layout: Layout = field(compare=False)
    throws: Throws = field(compare=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"player_{seat}" for seat in range(self.players))


@cache
def setup(
    variant: str, options: tuple[tuple[str, bool | int], ...], players: int, returns: str
) -> Setup:
    """The set-up of a game (one per distinct game, so the engine's per-rules tables are built
    once); refuses an unknown variant or option with the rules' own error."""
    rules = get_rules(variant, dict(options))
    return Setup(
        variant,
        options,
        players,
        returns,
        rules,
        layout(rules),
        throws(rules.dice, rules.faces),
    )


def max_length(rules: Rules, players: int) -> int:
    """The most player decisions a game can have: each turn is at most `rolls_per_turn`
    decisions (the holds, then a cell move), one turn per cell of every sheet, and where the
    rules play tie-breaks `TIEBREAK_GAMES` whole tie-break games more."""
    games = 1 + (TIEBREAK_GAMES if rules.tiebreak else 0)
    return games * players * rules.cells * rules.rolls_per_turn


# --- returns -------------------------------------------------------------------------------------


def win_returns(state: GameState) -> list[float]:
    """Zero-sum returns from the engine's ranking: with n players and k sharing first place,
    each of the k gets (n - k) / (k (n - 1)) and every other player -1 / (n - 1) (two players:
    +1 and -1, a tie 0 each; a tie of everyone 0 each)."""
    players = len(state.players)
    first = {standing.seat for standing in ranking(state) if standing.place == 1}
    shared = len(first)
    win = (players - shared) / (shared * (players - 1))
    return [win if seat in first else -1 / (players - 1) for seat in range(players)]


def score_returns(state: GameState) -> list[float]:
    """Each player's final total, as the engine counts it."""
    return [float(breakdown(state, seat).total) for seat in range(len(state.players))]


def score_bounds(lay: Layout) -> tuple[float, float]:
    """Bounds of any total (not attained): every cell a zero, against every cell at the most a
    cell can hold, every star at the most a star is worth, the upper bonus, a further-Yahtzee
    bonus on every cell and the fullest reserve."""
    rules = lay.rules
    cells = rules.cells
    star = lay.max_points
    for index, row in enumerate(rules.rows):
        if rules.stars is not None and row.star and row.school:
            star = max(star, row_star_value(rules, index, ()))
    best = (
        cells * lay.max_points
        + lay.stars * star
        + upper_bonus_points(rules, cells * lay.max_points)
        + cells * further_yahtzee_bonus(rules, Cell(Mark.SCORE, points=1))
        + lay.max_reserve
    )
    return float(-cells * zero_penalty(rules)), float(best)


# --- the observation tensor ----------------------------------------------------------------------


def pieces(setup: Setup) -> list[tuple[str, tuple[int, ...]]]:
    """The named parts of the observation tensor and their shapes, in tensor order. Categories
    are one-hot (as `gymnasium.spaces.flatten` makes them), amounts are as they are."""
    rules, lay, players = setup.rules, setup.layout, setup.players
    out: list[tuple[str, tuple[int, ...]]] = [
        ("dice", (rules.dice, rules.faces + 1)),
        ("face_counts", (rules.faces, rules.dice + 1)),
        ("rolls_left", (rules.rolls_per_turn + 1,)),
    ]
    if lay.doubles:
        out.append(("thrown_all", (2,)))
    out += [
        ("throwing", (1,)),
        ("held", (rules.dice,)),
        ("to_move", (players,)),
        ("marks", (players, rules.cells, N_MARKS)),
        ("points", (players, rules.cells)),
    ]
    if rules.reserve is not None:
        out.append(("reserve", (players,)))
    if lay.stars:
        out.append(("stars", (players, lay.stars, len(STAR_CODES))))
    out += [("totals", (players,)), ("contenders", (players,)), ("tiebreak", (1,))]
    return out


def one_hot(out: FloatArray, values: object) -> None:
    """Set `out[..., v] = 1` for each value `v` of `values` (shaped as `out` without its last
    axis)."""
    codes = np.asarray(values, dtype=np.int64)
    np.put_along_axis(out, codes[..., None], 1.0, axis=-1)


def fill(
    views: dict[str, FloatArray],
    setup: Setup,
    state: GameState,
    pending: Roll | None,
    player: int,
) -> None:
    """Write `state` as `player` sees it into the zeroed `views`: the dice in play, then every
    sheet, seats ordered from `player` (itself first, then the next seats round the table)."""
    lay = setup.layout
    order = [(player + offset) % setup.players for offset in range(setup.players)]
    sheets = [observation(lay, state, seat) for seat in order]
    mine = sheets[0]
    one_hot(views["dice"], mine["dice"])
    one_hot(views["face_counts"], mine["face_counts"])
    one_hot(views["rolls_left"], mine["rolls_left"])
    if "thrown_all" in views:
        one_hot(views["thrown_all"], mine["thrown_all"])
    if pending is not None:
        views["throwing"][0] = 1.0
        ranks = [
            rank for rank, position in enumerate(dice_order(state)) if position in pending.keep
        ]
        views["held"][ranks] = 1.0
    if not state.finished:
        views["to_move"][order.index(state.seat)] = 1.0
    one_hot(views["marks"], [sheet["marks"] for sheet in sheets])
    views["points"][:] = [sheet["points"] for sheet in sheets]
    if "reserve" in views:
        views["reserve"][:] = [np.asarray(sheet["reserve"])[0] for sheet in sheets]
    if "stars" in views:
        one_hot(views["stars"], [sheet["stars"] for sheet in sheets])
    shown = state.final_sheets if state.finished else state.sheets
    views["totals"][:] = [sheet_breakdown(setup.rules, shown[seat]).total for seat in order]
    views["contenders"][:] = [float(seat in state.contenders) for seat in order]
    views["tiebreak"][0] = float(state.stage > 0 and not state.finished)
