"""What each legal cell move would do now: its points, the reserve after it, the stars it earns,
and its gain (the change in the mover's total), as the interfaces and the `greedy` bot read it."""

from __future__ import annotations

from dataclasses import dataclass

from dicepoker.engine.actions import Move
from dicepoker.engine.moves import cell_moves, dice_counts, joker_choice
from dicepoker.engine.play import written
from dicepoker.engine.scoring import Breakdown, sheet_breakdown, total_after
from dicepoker.engine.stars import StarKey, claimed_stars
from dicepoker.engine.state import Bonus, GameState
from dicepoker.rules.combos import Counts


@dataclass(frozen=True, slots=True)
class MovePreview:
    """What a legal cell move would do now: the cell's points (doubling included), whether it
    doubles, the reserve after it, the stars it would earn, and `gain`, the change in the total."""

    move: Move
    points: int
    doubled: bool
    gain: int
    reserve: int
    stars: tuple[Bonus, ...]
    joker: bool


def preview(state: GameState, before: Breakdown | None = None) -> list[MovePreview]:
    """Every legal cell move with what it would score now, in sheet order. `before`: the
    mover's sheet's `sheet_breakdown`, when the caller has it already (a view does)."""
    rules = state.rules
    if before is None:
        before = sheet_breakdown(rules, state.sheet)
    out: list[MovePreview] = []
    moves = cell_moves(state)
    if not moves:
        return out
    counts = dice_counts(state)
    legal = (counts, joker_choice(state, counts))
    claimed = claimed_stars(state) if rules.stars is not None else None
    base = before.total
    return [_previewed(state, move, legal, before, base, claimed) for move in moves]


def preview_move(state: GameState, move: Move) -> MovePreview | None:
    """What the one cell move `move` would do now (the same as its entry of `preview`), or None
    when it is not legal here: a move's mark is told after every event, and previewing every
    legal move to find one cost the server a third of its view building."""
    if move not in cell_moves(state):
        return None
    counts = dice_counts(state)
    legal = (counts, joker_choice(state, counts))
    before = sheet_breakdown(state.rules, state.sheet)
    return _previewed(state, move, legal, before, before.total)


def _previewed(
    state: GameState,
    move: Move,
    legal: tuple[Counts, frozenset[int] | None],
    before: Breakdown,
    base: int,
    claimed: dict[StarKey, int] | None = None,
) -> MovePreview:
    # `base`: `before.total`, given (a property: summed once for all the moves of a position).
    rules = state.rules
    w = written(state, move, legal, claimed)
    cell = w.cell
    total = total_after(
        rules, before, state.sheet, cell, w.row, w.earned, w.yahtzee_bonus, w.reserve
    )
    return MovePreview(
        move=move,
        points=cell.points,
        doubled=cell.doubled,
        gain=total - base,
        reserve=w.reserve,
        stars=w.earned,
        joker=cell.joker,
    )
