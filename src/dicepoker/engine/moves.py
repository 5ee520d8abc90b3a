"""What the player to move may do: the legal actions, and why a cell move is refused."""

from __future__ import annotations

from dicepoker.engine.actions import ROLL, Action, Move
from dicepoker.engine.errors import Reason
from dicepoker.engine.semantics import (
    joker_applies,
    joker_rows,
    school_closable,
    school_refusal,
    scorable,
    score_refusal,
    yahtzee_face,
)
from dicepoker.engine.state import GameState
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import Counts, face_counts


def dice_counts(state: GameState) -> Counts:
    """The face counts of the dice in play."""
    return face_counts(state.dice, state.rules.faces)


def joker_choice(state: GameState, counts: Counts) -> frozenset[int] | None:
    """The rows the forced Joker allows for the dice in play (a further Yahtzee), or None when the
    Joker is not in play."""
    rules = state.rules
    if not joker_applies(rules, state.sheet):
        return None
    face = yahtzee_face(rules, counts)
    if face is None:
        return None
    return joker_rows(rules, face, state.sheet.open_rows(rules))


def refusal(
    state: GameState, move: Move, counts: Counts, joker: frozenset[int] | None
) -> str | None:
    """Why `move` is not allowed now (its row known and not full), or None when it is."""
    rules = state.rules
    index = rules.row_index[move.row]
    row = rules.rows[index]
    if move.verb == "strike":
        if row.strike:
            return None
        text = f"row {row.id} cannot be struck in {rules.variant}"
        return Reason("no_strike", text, row=row.id, variant=rules.variant)
    if move.verb == "zero":
        if not row.school:
            text = f"only School rows take a zero; {row.id} is not one"
            return Reason("no_zero", text, row=row.id, variant=rules.variant)
        # A zero only where the row cannot be closed with these dice and the reserve.
        if not school_closable(rules, index, counts[row.combo.n], state.sheet.reserve):
            return None
        text = f"row {row.id} can be closed with these dice, so it cannot take a zero"
        return Reason("zero_closable", text, row=row.id, variant=rules.variant)
    if row.school:
        return school_refusal(rules, index, counts[row.combo.n], state.sheet.reserve)
    if joker is not None and index not in joker:
        allowed = ", ".join(rules.rows[i].id for i in sorted(joker))
        return Reason("joker", f"forced Joker: this Yahtzee must go in {allowed}")
    return score_refusal(rules, index, counts)


def cell_moves(state: GameState) -> tuple[Move, ...]:
    """Every cell move allowed now, in sheet order (score, then strike, then zero per row)."""
    if state.finished or state.rolls == 0:
        return ()
    rules = state.rules
    found = tables(rules)
    counts = dice_counts(state)
    joker = joker_choice(state, counts)
    open_rows = state.sheet.open_rows(rules)
    if joker is None and found.always_scorable:
        # Every open row may be scored (0 when not made) and nothing else: the common case.
        scores = found.score
        return tuple([scores[index] for index in open_rows])
    moves: list[Move] = []
    for index in open_rows:
        score, strike, zero = found.score[index], found.strike[index], found.zero[index]
        row = rules.rows[index]
        if row.school:
            # A closing or a zero, decided once for both (whether, not why: a refusal's words
            # were a tenth of a view's legal moves).
            closable = school_closable(rules, index, counts[row.combo.n], state.sheet.reserve)
            if closable:
                moves.append(score)
            if strike is not None:
                moves.append(strike)
            if zero is not None and not closable:
                moves.append(zero)
            continue
        # A combination row: whether, not why, again (the words of "not made" were most of
        # its refusals); `refusal` says the same of each move.
        if (joker is None or index in joker) and scorable(rules, index, counts):
            moves.append(score)
        if strike is not None:  # (a row that may not be struck has none)
            moves.append(strike)
        # (only a School row has a zero)
    return tuple(moves)


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action of the player to move: the rolls and holds, then the cell moves."""
    if state.finished:
        return ()
    if state.rolls == 0:
        return (ROLL,)
    found = tables(state.rules)
    can_roll = state.rolls < state.rules.rolls_per_turn
    if found.always_scorable and (found.box is None or len(set(state.dice)) > 1):
        # The common case (no Yahtzee in play, so no Joker) depends only on which rows are open:
        # answer from a cache.
        key = (can_roll, state.sheet.row_fill)
        actions = found.cached.get(key)
        if actions is None:
            holds = found.holds if can_roll else ()
            score = found.score
            actions = holds + tuple(score[i] for i in state.sheet.open_rows(state.rules))
            found.cached[key] = actions
        return actions
    return (found.holds if can_roll else ()) + cell_moves(state)


def forced_action(state: GameState) -> Action | None:
    """The player to move's only legal action, when there is just one (a turn's first throw,
    the last open cell after the last roll), else None: nothing to think about."""
    actions = legal_actions(state)
    return actions[0] if len(actions) == 1 else None
