"""Numbers for learning agents: action indices and observation arrays, read from the engine.

Everything is derived from a `Rules` value and the engine's own lookups (the holds and cell moves
of `engine.tables`, `legal_actions`, `score_cell`, `school_closing`, `star_status`), so no rule
is written here a second time and no variant is named. This module needs numpy only; the
Gymnasium spaces that describe these arrays are built in `dicepoker.envs.solitaire`.

Actions: index `m` < 2**dice is a hold: bit i set keeps the i-th die of the observation's dice
(sorted by face, ties in position order) and throws the others, so `0` throws them all and the
all-ones index (keep every die) is never legal. Then one index per cell move the sheet has, row
by row in sheet order: `score ROW`, then `strike ROW` where the row can be struck, then
`zero ROW` where it is a School row. A cell move fills the leftmost empty cell of its row (the
engine's rule), so a row, not a column, is what the player chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from dicepoker.engine import (
    Action,
    GameState,
    Mark,
    Move,
    Roll,
    legal_actions,
    school_closing,
    score_cell,
    star_status,
)
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import face_counts
from dicepoker.rules.model import Rules

IntArray = npt.NDArray[np.int64]
MaskArray = npt.NDArray[np.int8]

#: The code of each cell in the observation's `marks` (0: empty).
MARK_CODES: dict[tuple[Mark, bool], int] = {
    (Mark.SCORE, False): 1,
    (Mark.CLOSED, False): 2,
    (Mark.CLOSED, True): 3,  # closed using the reserve (the row's star is lost)
    (Mark.STRIKE, False): 4,
    (Mark.ZERO, False): 5,
}
N_MARKS = 6
#: The code of each star in the observation's `stars`.
STAR_CODES = {"open": 0, "earned": 1, "struck": 2}


@dataclass(frozen=True, slots=True)
class Layout:
    """The sizes and bounds of one game's actions and observations."""

    rules: Rules
    n_holds: int
    moves: tuple[Move, ...]
    move_index: dict[Move, int]
    max_points: int
    max_reserve: int
    stars: int
    doubles: bool  # some row doubles a score thrown with all the dice at once

    @property
    def n_actions(self) -> int:
        return self.n_holds + len(self.moves)


def layout(rules: Rules) -> Layout:
    """The layout of `rules`, built once and kept with the rules."""
    return rules.memoized("envs_layout", _build)


def _build(rules: Rules) -> Layout:
    found = tables(rules)
    moves: list[Move] = []
    for index in range(len(rules.rows)):
        for move in (found.score[index], found.strike[index], found.zero[index]):
            if move is not None:
                moves.append(move)
    n_holds = 2**rules.dice
    return Layout(
        rules=rules,
        n_holds=n_holds,
        moves=tuple(moves),
        move_index={move: n_holds + i for i, move in enumerate(moves)},
        max_points=_max_points(rules),
        max_reserve=_max_reserve(rules),
        stars=_star_count(rules),
        doubles=any(row.doubles for row in rules.rows),
    )


def _max_points(rules: Rules) -> int:
    """The most one cell can hold: the engine's score of every hand in every combination row,
    thrown all at once (doubling) and, where further Yahtzees play, under the Joker."""
    jokers = (False, True) if rules.extra_yahtzee is not None else (False,)
    best = 0
    for hand in combinations_with_replacement(range(1, rules.faces + 1), rules.dice):
        counts = face_counts(hand, rules.faces)
        for index, row in enumerate(rules.rows):
            if row.school:
                continue
            for joker in jokers:
                cell = score_cell(rules, index, counts, thrown_all=True, joker=joker)
                best = max(best, cell.points)
    return best


def _max_reserve(rules: Rules) -> int:
    """The most the School reserve can reach: every School cell closed with all the dice."""
    if rules.reserve is None:
        return 0
    gains = (
        school_closing(rules, index, rules.dice).change
        for index, row in enumerate(rules.rows)
        if row.school
    )
    return max(1, rules.columns * sum(max(0, gain) for gain in gains))


def _star_count(rules: Rules) -> int:
    if rules.stars is None:
        return 0
    from dicepoker.engine import new_game

    return len(star_status(new_game(rules, ["agent"]), 0))


# --- actions -------------------------------------------------------------------------------------


def dice_order(state: GameState) -> list[int]:
    """The dice positions in the observation's order: by face, ties by position."""
    dice = state.dice
    return sorted(range(len(dice)), key=lambda position: (dice[position], position))


def encode(lay: Layout, state: GameState, action: Action, order: list[int] | None = None) -> int:
    """The index of an engine action in `state` (a hold's bits follow `dice_order`)."""
    if isinstance(action, Roll):
        order = dice_order(state) if order is None else order
        kept = set(action.keep)
        return sum(1 << rank for rank, position in enumerate(order) if position in kept)
    if isinstance(action, Move):
        index = lay.move_index.get(action)
        if index is not None:
            return index
    raise ValueError(f"{action} has no action index in {lay.rules.variant}")


def decode(lay: Layout, state: GameState, index: int) -> Action:
    """The engine action of index `index` in `state` (a hold keeps the dice its bits name)."""
    if index < lay.n_holds:
        if not state.dice:
            return Roll()
        order = dice_order(state)
        return Roll(
            tuple(sorted(order[rank] for rank in range(lay.rules.dice) if index >> rank & 1))
        )
    return lay.moves[index - lay.n_holds]


def describe(lay: Layout, index: int) -> str:
    """What action index `index` means, in words, for error messages and docs."""
    if index < lay.n_holds:
        kept = [str(rank) for rank in range(lay.rules.dice) if index >> rank & 1]
        return "roll every die" if not kept else "keep the sorted dice " + " ".join(kept)
    return str(lay.moves[index - lay.n_holds])


def action_mask(lay: Layout, state: GameState) -> MaskArray:
    """1 for each index whose action the engine allows now (`legal_actions`), else 0."""
    mask = np.zeros(lay.n_actions, dtype=np.int8)
    if state.finished:
        return mask
    order = dice_order(state)
    for action in legal_actions(state):
        mask[encode(lay, state, action, order)] = 1
    return mask


# --- observations --------------------------------------------------------------------------------


def observation(lay: Layout, state: GameState, seat: int = 0) -> dict[str, IntArray | int]:
    """The observation of `seat`'s sheet and the dice in play (see `docs/research.md`)."""
    rules = lay.rules
    sheet = state.final_sheets[seat] if state.finished else state.sheets[seat]
    marks = np.zeros(rules.cells, dtype=np.int64)
    points = np.zeros(rules.cells, dtype=np.int64)
    for i, cell in enumerate(sheet.cells):
        if cell is not None:
            marks[i] = MARK_CODES[(cell.mark, cell.used_reserve)]
            points[i] = cell.points
    dice = np.zeros(rules.dice, dtype=np.int64)
    if state.dice:
        dice[:] = sorted(state.dice)
    counts = np.array(face_counts(state.dice, rules.faces)[1:], dtype=np.int64)
    out: dict[str, IntArray | int] = {
        "dice": dice,
        "face_counts": counts,
        "marks": marks,
        "points": points,
        "rolls_left": int(state.rolls_left),
    }
    if lay.doubles:
        out["thrown_all"] = int(state.thrown_all)
    if rules.reserve is not None:
        out["reserve"] = np.array([sheet.reserve], dtype=np.int64)
    if lay.stars:
        status = star_status(state, seat)
        out["stars"] = np.array([STAR_CODES[star.status] for star in status], dtype=np.int64)
    return out
