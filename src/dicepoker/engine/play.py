"""Starting a game and applying an action: the next state, or a refusal that says why.

Dice come from an injected `DiceSource`; nothing here does I/O or keeps hidden state. What a cell
move writes (points, the reserve, stars, bonuses) comes from the rule primitives of
`semantics.py` and `stars.py`.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import NamedTuple

from dicepoker.dice import DiceSource
from dicepoker.engine.actions import Action, Forfeit, Move, Roll
from dicepoker.engine.errors import (
    GameOverError,
    IllegalActionError,
    MoveError,
    NotYourTurnError,
    Reason,
    RollError,
)
from dicepoker.engine.moves import dice_counts, joker_choice, refusal
from dicepoker.engine.scoring import sheet_breakdown
from dicepoker.engine.semantics import further_yahtzee_bonus, school_closing, score_cell
from dicepoker.engine.stars import StarKey, claimed_stars, earned_stars
from dicepoker.engine.state import Bonus, Cell, GameState, Mark, Sheet
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import Counts
from dicepoker.rules.model import Rules


def new_game(rules: Rules, players: Sequence[str]) -> GameState:
    """A fresh game for `players` (names, in seat order)."""
    names = tuple(players)
    if not rules.min_players <= len(names) <= rules.max_players:
        raise ValueError(
            f"{rules.variant} is played by {rules.min_players} to {rules.max_players} players, "
            f"not {len(names)}"
        )
    if not all(isinstance(name, str) for name in names):
        raise ValueError("player names must be text")
    empty = Sheet.empty(rules)
    return GameState(
        rules=rules,
        players=names,
        sheets=(empty,) * len(names),
        contenders=tuple(range(len(names))),
    )


def apply(
    state: GameState,
    action: Action,
    dice: DiceSource | None = None,
    *,
    seat: int | None = None,
) -> GameState:
    """The state after `action` by the player to move (or by `seat`, which must be that player).

    Raises an `IllegalActionError` subclass that says why when the action is not allowed; the
    given state is immutable, so a refusal changes nothing.
    """
    if state.finished:
        raise GameOverError("the game is over")
    if seat is not None and seat != state.seat:
        raise NotYourTurnError(f"it is {state.players[state.seat]}'s turn, not seat {seat}'s")
    if isinstance(action, Roll):
        return _roll(state, action, dice)
    if isinstance(action, Move):
        return _move(state, action)
    if isinstance(action, Forfeit):
        return _forfeit(state, action)
    raise IllegalActionError(f"not an action: {action!r}")


def _roll(state: GameState, action: Roll, source: DiceSource | None) -> GameState:
    rules = state.rules
    if state.rolls >= rules.rolls_per_turn:
        text = f"no rolls left: {rules.rolls_per_turn} rolls a turn"
        raise RollError(Reason("no_rolls", text, rolls=rules.rolls_per_turn))
    keep = action.keep
    free = tables(rules).thrown.get(keep)
    if free is None:
        keep = tuple(sorted(keep))
        free = tables(rules).thrown.get(keep)
        if free is None:
            if len(keep) >= rules.dice and set(keep) == set(range(rules.dice)):
                raise RollError("every die is held: a roll must throw at least one die")
            raise RollError(f"dice to hold must be distinct positions 0..{rules.dice - 1}")
    if keep and state.rolls == 0:
        raise RollError("nothing to hold before the first roll of the turn")
    if source is None:
        raise ValueError("rolling needs a dice source")
    thrown = source.roll(len(free), rules.faces)
    if keep:
        new_dice = list(state.dice)
        for position, face in zip(free, thrown, strict=True):
            new_dice[position] = face
        dice = tuple(new_dice)
    else:
        dice = tuple(thrown)
    # Positional, in field order: this is the hottest line of a simulation.
    return GameState(
        rules,
        state.players,
        state.sheets,
        state.seat,
        state.turn,
        dice,
        state.rolls + 1,
        not keep,
        state.stage,
        state.contenders,
        state.main_sheets,
        state.forfeited,
        state.winner,
        False,
    )


class Written(NamedTuple):
    """What a cell move writes on the mover's sheet: the cell, at `row` (its index) and `column`,
    and the sheet's reserve, note, stars (`earned`: the move's own), Yahtzee bonus and Jokers
    after it. `fill` makes the sheet of it; a preview of every legal move needs no more than this
    (making a whole sheet for each of them cost a preview a quarter of its time)."""

    cell: Cell
    row: int
    column: int
    reserve: int
    note_at: int | None
    earned: tuple[Bonus, ...]
    yahtzee_bonus: int
    jokers: int


def written(
    state: GameState,
    move: Move,
    legal: tuple[Counts, frozenset[int] | None] | None = None,
    claimed: Container[StarKey] | None = None,
) -> Written:
    """What `move` (validated) writes on the mover's sheet (see `fill`)."""
    rules = state.rules
    index = rules.row_index.get(move.row) if isinstance(move.row, str) else None
    if index is None:
        raise MoveError(f"{rules.variant} has no row {move.row!r}")
    if state.rolls == 0:
        raise MoveError(Reason("roll_first", "roll the dice before filling a cell"))
    sheet = state.sheet
    column = sheet.next_column(rules, index)
    if column is None:
        text = f"row {move.row} is already full"
        raise MoveError(Reason("row_full", text, row=move.row, variant=rules.variant))
    if legal is None:
        counts = dice_counts(state)
        joker = joker_choice(state, counts)
        reason = refusal(state, move, counts, joker)
        if reason is not None:
            raise MoveError(reason)
    else:
        counts, joker = legal

    row = rules.rows[index]
    reserve = sheet.reserve
    note_at = sheet.note_at
    yahtzee_bonus = sheet.yahtzee_bonus
    jokers = sheet.jokers
    if move.verb == "strike":
        cell = Cell(Mark.STRIKE)
    elif move.verb == "zero":
        cell = Cell(Mark.ZERO)
    elif row.school:
        closing = school_closing(rules, index, counts[row.combo.n])
        note = None
        if closing.change:
            reserve += closing.change
            note, note_at = reserve, index * rules.columns + column
        cell = Cell(Mark.CLOSED, used_reserve=closing.used_reserve, note=note)
    else:
        thrown_all = state.thrown_all
        cell = score_cell(rules, index, counts, thrown_all=thrown_all, joker=joker is not None)
    if joker is not None:
        box = tables(rules).box
        assert box is not None
        jokers += 1
        yahtzee_bonus += further_yahtzee_bonus(rules, sheet.cells[box * rules.columns])
    earned: tuple[Bonus, ...] = ()
    if rules.stars is not None:
        taken = claimed_stars(state) if claimed is None else claimed
        earned = earned_stars(rules, sheet, index, cell, taken)
    return Written(cell, index, column, reserve, note_at, earned, yahtzee_bonus, jokers)


def fill(
    state: GameState,
    move: Move,
    legal: tuple[Counts, frozenset[int] | None] | None = None,
    claimed: Container[StarKey] | None = None,
) -> tuple[Sheet, int, int]:
    """The mover's sheet after `move` (validated), with the row and column it filled.

    `legal` is for callers that took `move` from `cell_moves(state)`: the dice's face counts and
    Joker rows, already computed, and the move known to be allowed; `claimed`, for callers that
    fill many moves of one state: its `claimed_stars`."""
    rules = state.rules
    sheet = state.sheet
    w = written(state, move, legal, claimed)
    index, column = w.row, w.column
    cell_index = index * rules.columns + column
    cells = (*sheet.cells[:cell_index], w.cell, *sheet.cells[cell_index + 1 :])
    row_fill = (*sheet.row_fill[:index], column + 1, *sheet.row_fill[index + 1 :])
    new_sheet = Sheet(
        cells=cells,
        row_fill=row_fill,
        reserve=w.reserve,
        note_at=w.note_at,
        stars=sheet.stars + w.earned,
        yahtzee_bonus=w.yahtzee_bonus,
        jokers=w.jokers,
        filled=sheet.filled + 1,
    )
    return new_sheet, index, column


def _move(state: GameState, move: Move) -> GameState:
    new_sheet, _, _ = fill(state, move)
    sheets = (*state.sheets[: state.seat], new_sheet, *state.sheets[state.seat + 1 :])
    return _advance(state, sheets, state.forfeited)


def _forfeit(state: GameState, forfeit: Forfeit) -> GameState:
    """The player to move is out: ranked last (`ranking`), skipped from now on, and the game
    ends when one player is left. A `timeout` is the variant's own rule (its rules say that a
    run-out clock loses, and the game has one); `absent` needs someone else still in the game
    to lose to. When a player counts as absent (a rated game's missed turns) is the server's
    rule, not the position's: nothing in a game's state says who was at the keyboard."""
    rules = state.rules
    if forfeit.reason == "timeout":
        if not (rules.timeout_loses and rules.turn_seconds > 0):
            raise IllegalActionError(f"{rules.variant} without a turn clock has no timeout")
    elif len(_active(state.contenders, state.forfeited)) < 2:
        raise IllegalActionError("nobody else is in the game: there is no one to lose to")
    return _advance(state, state.sheets, (*state.forfeited, state.seat))


def _active(contenders: tuple[int, ...], forfeited: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(seat for seat in contenders if seat not in forfeited)


def _advance(state: GameState, sheets: tuple[Sheet, ...], forfeited: tuple[int, ...]) -> GameState:
    """Pass the turn after a move or a forfeit: next seat, the end of a (tie-break) game."""
    rules = state.rules
    stage, contenders, main_sheets = state.stage, state.contenders, state.main_sheets
    winner: int | None = None
    finished = False
    active = _active(contenders, forfeited)
    # The next seat after the mover, round-robin among active players with room on their sheet.
    order = contenders[contenders.index(state.seat) + 1 :] + contenders
    upcoming = [seat for seat in order if seat in active and not sheets[seat].is_full(rules)]
    seat = upcoming[0] if upcoming else state.seat

    if not active or (len(active) == 1 and len(contenders) > 1):
        # Everyone else lost on the clock: the one player left (if any) wins.
        finished = True
        winner = active[0] if active else None
    elif stage > 0 and _round_complete(sheets, active):
        leaders = _leaders(rules, sheets, active)
        if len(leaders) == 1:
            finished, winner = True, leaders[0]
        elif not upcoming:
            stage, contenders = stage + 1, leaders
            sheets = (Sheet.empty(rules),) * len(state.players)
            seat = leaders[0]
    elif not upcoming:
        leaders = _leaders(rules, sheets, active)
        if rules.tiebreak and stage == 0 and len(leaders) > 1:
            stage, contenders, main_sheets = 1, leaders, sheets
            sheets = (Sheet.empty(rules),) * len(state.players)
            seat = leaders[0]
        else:
            finished = True
    return GameState(
        rules=rules,
        players=state.players,
        sheets=sheets,
        seat=seat,
        turn=state.turn + 1,
        stage=stage,
        contenders=contenders,
        main_sheets=main_sheets,
        forfeited=forfeited,
        winner=winner,
        finished=finished,
    )


def _round_complete(sheets: tuple[Sheet, ...], active: tuple[int, ...]) -> bool:
    return len({sheets[seat].filled for seat in active}) == 1


def _leaders(rules: Rules, sheets: tuple[Sheet, ...], seats: tuple[int, ...]) -> tuple[int, ...]:
    totals = {seat: sheet_breakdown(rules, sheets[seat]).total for seat in seats}
    best = max(totals.values())
    return tuple(seat for seat in seats if totals[seat] == best)
