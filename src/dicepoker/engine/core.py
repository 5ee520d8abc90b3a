"""The engine: one set of pure functions that plays every preset from its `Rules` data.

`new_game` makes a state, `legal_actions` lists what the player to move may do, `apply` returns
the next state or raises an `IllegalActionError` that says why, `preview` tells what each legal
cell move would score now, `breakdown` and `ranking` read the result. Dice come from an injected
`DiceSource`; nothing here does I/O or keeps hidden state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from dicepoker.dice import DiceSource
from dicepoker.engine.actions import FORFEIT, ROLL, Action, Forfeit, Move, Roll
from dicepoker.engine.errors import (
    GameOverError,
    IllegalActionError,
    MoveError,
    NotYourTurnError,
    RollError,
)
from dicepoker.engine.state import Bonus, Cell, GameState, Mark, Sheet
from dicepoker.rules.combos import Counts, combo_value, face_counts
from dicepoker.rules.model import Rules

# --- per-rules tables (built once, kept in `rules.memo`) -----------------------------------------


@dataclass(frozen=True, slots=True)
class _Tables:
    holds: tuple[Roll, ...]  # ROLL and every proper non-empty hold
    score: tuple[Move, ...]  # per row
    strike: tuple[Move | None, ...]
    zero: tuple[Move | None, ...]
    upper: tuple[int, ...]  # row indices of the upper section
    box: int | None  # the extra-Yahtzee box
    joker_points: dict[int, int]
    autoplay: tuple[int, ...]
    always_scorable: bool  # every open row can be scored and has no other move
    thrown: dict[tuple[int, ...], tuple[int, ...]]  # valid keep -> positions thrown
    cached: dict[tuple[bool, tuple[int, ...]], tuple[Action, ...]]  # legal actions by open rows


def _tables(rules: Rules) -> _Tables:
    tables: _Tables | None = rules.memo.get("tables")
    if tables is None:
        holds = [ROLL]
        for size in range(1, rules.dice):
            holds.extend(Roll(keep) for keep in combinations(range(rules.dice), size))
        extra = rules.extra_yahtzee
        tables = _Tables(
            holds=tuple(holds),
            score=tuple(Move("score", row.id) for row in rules.rows),
            strike=tuple(Move("strike", row.id) if row.strike else None for row in rules.rows),
            zero=tuple(Move("zero", row.id) if row.school else None for row in rules.rows),
            upper=tuple(i for i, row in enumerate(rules.rows) if row.section == "upper"),
            box=rules.row_index[extra.box] if extra else None,
            joker_points=(
                {rules.row_index[name]: pts for name, pts in extra.joker_points} if extra else {}
            ),
            autoplay=tuple(rules.row_index[name] for name in rules.autoplay.priority)
            if rules.autoplay
            else (),
            always_scorable=rules.unmade_scores_zero
            and not any(row.school or row.strike for row in rules.rows),
            thrown={
                hold.keep: tuple(p for p in range(rules.dice) if p not in hold.keep)
                for hold in holds
            },
            cached={},
        )
        rules.memo["tables"] = tables
    return tables


# --- starting a game ---------------------------------------------------------------------------


def new_game(rules: Rules, players: Sequence[str]) -> GameState:
    """A fresh game for `players` (names, in seat order)."""
    names = tuple(players)
    if not rules.min_players <= len(names) <= rules.max_players:
        raise ValueError(
            f"{rules.preset} is played by {rules.min_players} to {rules.max_players} players, "
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


# --- what may be done --------------------------------------------------------------------------


def _counts(state: GameState) -> Counts:
    return face_counts(state.dice, state.rules.faces)


def _joker_rows(state: GameState, counts: Counts) -> frozenset[int] | None:
    """Rows the forced Joker allows for a further Yahtzee, or None when the Joker is not in play."""
    rules = state.rules
    tables = _tables(rules)
    if tables.box is None or rules.dice not in counts:
        return None
    sheet = state.sheet
    if sheet.cells[tables.box * rules.columns] is None:
        return None
    face = counts.index(rules.dice)
    open_rows = sheet.open_rows(rules)
    matching = [i for i in tables.upper if rules.rows[i].combo.n == face and i in open_rows]
    if matching:
        return frozenset(matching)
    lower = [i for i in open_rows if rules.rows[i].section == "lower"]
    if lower:
        return frozenset(lower)
    return frozenset(i for i in open_rows if rules.rows[i].section == "upper")


def _school_refusal(state: GameState, row_index: int, counts: Counts) -> str | None:
    rules = state.rules
    assert rules.reserve is not None
    row = rules.rows[row_index]
    face = row.combo.n
    label = rules.face_labels[face - 1]
    have = counts[face]
    if have == 0:
        return f"no die shows {label}: closing row {row.id} needs at least one"
    cost = (rules.reserve.target - have) * face
    if state.sheet.reserve < cost:
        missing = rules.reserve.target - have
        return (
            f"the reserve ({state.sheet.reserve}) cannot cover {missing} missing {label}s "
            f"({cost} points)"
        )
    return None


def _refusal(
    state: GameState, move: Move, counts: Counts, joker: frozenset[int] | None
) -> str | None:
    """Why `move` is not allowed now (its row known and not full), or None when it is."""
    rules = state.rules
    index = rules.row_index[move.row]
    row = rules.rows[index]
    if move.verb == "strike":
        return None if row.strike else f"row {row.id} cannot be struck in {rules.preset}"
    if move.verb == "zero":
        if not row.school:
            return f"only School rows take a zero; {row.id} is not one"
        if _school_refusal(state, index, counts) is None:
            return f"row {row.id} can be closed with these dice, so it cannot take a zero"
        return None
    if row.school:
        return _school_refusal(state, index, counts)
    if joker is not None and index not in joker:
        allowed = ", ".join(rules.rows[i].id for i in sorted(joker))
        return f"forced Joker: this Yahtzee must go in {allowed}"
    if not rules.unmade_scores_zero and combo_value(row.combo, counts) is None:
        return f"the dice do not make {row.id}" + (" (strike it instead)" if row.strike else "")
    return None


def cell_moves(state: GameState) -> tuple[Move, ...]:
    """Every cell move allowed now, in sheet order (score, then strike, then zero per row)."""
    if state.finished or state.rolls == 0:
        return ()
    rules = state.rules
    tables = _tables(rules)
    counts = _counts(state)
    joker = _joker_rows(state, counts)
    open_rows = state.sheet.open_rows(rules)
    if joker is None and tables.always_scorable:
        # Every open row may be scored (0 when not made) and nothing else: the common case.
        score = tables.score
        return tuple([score[index] for index in open_rows])
    moves: list[Move] = []
    for index in open_rows:
        for move in (tables.score[index], tables.strike[index], tables.zero[index]):
            if move is not None and _refusal(state, move, counts, joker) is None:
                moves.append(move)
    return tuple(moves)


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action of the player to move: the rolls and holds, then the cell moves."""
    if state.finished:
        return ()
    if state.rolls == 0:
        return (ROLL,)
    tables = _tables(state.rules)
    can_roll = state.rolls < state.rules.rolls_per_turn
    if tables.always_scorable and (tables.box is None or len(set(state.dice)) > 1):
        # The common case depends only on which rows are open: answer from a cache.
        key = (can_roll, state.sheet.row_fill)
        actions = tables.cached.get(key)
        if actions is None:
            holds = tables.holds if can_roll else ()
            score = tables.score
            actions = holds + tuple(score[i] for i in state.sheet.open_rows(state.rules))
            tables.cached[key] = actions
        return actions
    return (tables.holds if can_roll else ()) + cell_moves(state)


# --- applying an action ------------------------------------------------------------------------


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
        return _forfeit(state)
    raise IllegalActionError(f"not an action: {action!r}")


def _roll(state: GameState, action: Roll, source: DiceSource | None) -> GameState:
    rules = state.rules
    if state.rolls >= rules.rolls_per_turn:
        raise RollError(f"no rolls left: {rules.rolls_per_turn} rolls a turn")
    keep = action.keep
    free = _tables(rules).thrown.get(keep)
    if free is None:
        keep = tuple(sorted(keep))
        free = _tables(rules).thrown.get(keep)
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


def _fill(
    state: GameState,
    move: Move,
    legal: tuple[Counts, frozenset[int] | None] | None = None,
) -> tuple[Sheet, int, int]:
    """The mover's sheet after `move` (validated), with the row and column it filled.

    `legal` is for callers that took `move` from `cell_moves(state)`: the dice's face counts and
    Joker rows, already computed, and the move known to be allowed."""
    rules = state.rules
    index = rules.row_index.get(move.row) if isinstance(move.row, str) else None
    if index is None:
        raise MoveError(f"{rules.preset} has no row {move.row!r}")
    if state.rolls == 0:
        raise MoveError("roll the dice before filling a cell")
    sheet = state.sheet
    column = sheet.next_column(rules, index)
    if column is None:
        raise MoveError(f"row {move.row} is already full")
    if legal is None:
        counts = _counts(state)
        joker = _joker_rows(state, counts)
        reason = _refusal(state, move, counts, joker)
        if reason is not None:
            raise MoveError(reason)
    else:
        counts, joker = legal

    row = rules.rows[index]
    tables = _tables(rules)
    reserve = sheet.reserve
    note_at = sheet.note_at
    yahtzee_bonus = sheet.yahtzee_bonus
    jokers = sheet.jokers
    cell_index = index * rules.columns + column
    if move.verb == "strike":
        cell = Cell(Mark.STRIKE)
    elif move.verb == "zero":
        cell = Cell(Mark.ZERO)
    elif row.school:
        assert rules.reserve is not None
        have = counts[row.combo.n]
        change = (have - rules.reserve.target) * row.combo.n
        note = None
        if change:
            reserve += change
            note, note_at = reserve, cell_index
        cell = Cell(Mark.CLOSED, used_reserve=have < rules.reserve.target, note=note)
    else:
        # Under the Joker, rows with a fixed Joker value score it; every other row as usual.
        joker_pts = tables.joker_points.get(index) if joker is not None else None
        points = joker_pts if joker_pts is not None else combo_value(row.combo, counts) or 0
        doubled = row.doubles and state.thrown_all and points > 0
        cell = Cell(Mark.SCORE, points * 2 if doubled else points, doubled, joker=joker is not None)
    if joker is not None:
        extra = rules.extra_yahtzee
        assert extra is not None and tables.box is not None
        box = sheet.cells[tables.box * rules.columns]
        jokers += 1
        if box is not None and box.points > 0:
            yahtzee_bonus += extra.bonus
    cells = (*sheet.cells[:cell_index], cell, *sheet.cells[cell_index + 1 :])
    row_fill = (*sheet.row_fill[:index], column + 1, *sheet.row_fill[index + 1 :])
    new_sheet = Sheet(
        cells=cells,
        row_fill=row_fill,
        reserve=reserve,
        note_at=note_at,
        stars=sheet.stars,
        yahtzee_bonus=yahtzee_bonus,
        jokers=jokers,
        filled=sheet.filled + 1,
    )
    if rules.stars is not None:
        earned = _earned_stars(state, new_sheet, index, column)
        if earned:
            new_sheet = new_sheet._replace(stars=sheet.stars + earned)
    return new_sheet, index, column


def claimed_stars(state: GameState) -> dict[tuple[str, str | int], int]:
    """Star keys already earned in the current (sub)game, with the seat that earned each."""
    return {
        (bonus.kind, bonus.key): seat
        for seat, sheet in enumerate(state.sheets)
        for bonus in sheet.stars
    }


def _row_star(rules: Rules, sheet: Sheet, index: int) -> Bonus | None:
    """The row's star if `sheet` meets its condition now (row full, nothing broken)."""
    stars = rules.stars
    row = rules.rows[index]
    if stars is None or not row.star:
        return None
    cells = sheet.row_cells(rules, index)
    if row.school:
        if all(c is not None and c.mark is Mark.CLOSED and not c.used_reserve for c in cells):
            return Bonus("school_row", row.id, stars.school_factor * row.combo.n)
        return None
    if all(c is not None and c.mark is Mark.SCORE for c in cells):
        return Bonus("combination_row", row.id, max(c.points for c in cells if c is not None))
    return None


def _column_star(rules: Rules, sheet: Sheet, column: int) -> Bonus | None:
    stars = rules.stars
    if stars is None or not stars.columns:
        return None
    cells = sheet.column_cells(rules, column)
    if any(c is None or c.mark is Mark.STRIKE or c.mark is Mark.ZERO for c in cells):
        return None
    best = max(
        (c.points for c, row in zip(cells, rules.rows, strict=True) if row.column_best and c),
        default=0,
    )
    return Bonus("column", column, best)


def _earned_stars(state: GameState, sheet: Sheet, index: int, column: int) -> tuple[Bonus, ...]:
    claimed = claimed_stars(state)
    earned = []
    for bonus in (_row_star(state.rules, sheet, index), _column_star(state.rules, sheet, column)):
        if bonus is not None and (bonus.kind, bonus.key) not in claimed:
            earned.append(bonus)
    return tuple(earned)


def _move(state: GameState, move: Move) -> GameState:
    new_sheet, _, _ = _fill(state, move)
    sheets = (*state.sheets[: state.seat], new_sheet, *state.sheets[state.seat + 1 :])
    return _advance(state, sheets, state.forfeited)


def _forfeit(state: GameState) -> GameState:
    rules = state.rules
    if not (rules.timeout_loses and rules.turn_seconds > 0):
        raise IllegalActionError(f"{rules.preset} without a turn clock has no timeout")
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
    elif stage > 0 and _round_complete(rules, sheets, active):
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


def _round_complete(rules: Rules, sheets: tuple[Sheet, ...], active: tuple[int, ...]) -> bool:
    return len({sheets[seat].filled for seat in active}) == 1


def _leaders(rules: Rules, sheets: tuple[Sheet, ...], seats: tuple[int, ...]) -> tuple[int, ...]:
    totals = {seat: sheet_breakdown(rules, sheets[seat]).total for seat in seats}
    best = max(totals.values())
    return tuple(seat for seat in seats if totals[seat] == best)


# --- reading a position ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A total and what it is made of: `total = cells + stars + upper_bonus + yahtzee_bonus +
    reserve - zero_penalty`."""

    cells: int
    stars: int
    upper_bonus: int
    yahtzee_bonus: int
    reserve: int
    zeros: int
    zero_penalty: int
    strikes: int

    @property
    def bonuses(self) -> int:
        return self.stars + self.upper_bonus + self.yahtzee_bonus

    @property
    def total(self) -> int:
        return self.cells + self.bonuses + self.reserve - self.zero_penalty


def upper_total(rules: Rules, sheet: Sheet) -> int:
    """Points in the upper-section rows (what the upper bonus counts)."""
    return sum(
        cell.points
        for index in _tables(rules).upper
        for cell in sheet.row_cells(rules, index)
        if cell is not None
    )


def sheet_breakdown(rules: Rules, sheet: Sheet) -> Breakdown:
    cells = zeros = strikes = 0
    for cell in sheet.cells:
        if cell is None:
            continue
        cells += cell.points
        if cell.mark is Mark.ZERO:
            zeros += 1
        elif cell.mark is Mark.STRIKE:
            strikes += 1
    bonus = rules.upper_bonus
    upper = bonus.points if bonus and upper_total(rules, sheet) >= bonus.threshold else 0
    penalty = rules.reserve.zero_penalty * zeros if rules.reserve else 0
    return Breakdown(
        cells=cells,
        stars=sum(star.value for star in sheet.stars),
        upper_bonus=upper,
        yahtzee_bonus=sheet.yahtzee_bonus,
        reserve=sheet.reserve,
        zeros=zeros,
        zero_penalty=penalty,
        strikes=strikes,
    )


def _breakdown_after(
    rules: Rules, before: Breakdown, sheet: Sheet, after: Sheet, cell: Cell, index: int
) -> Breakdown:
    """`sheet_breakdown(rules, after)` from `before` (that of `sheet`), when `after` is `sheet`
    with one more cell, `cell`, in row `index` (a preview's many candidate sheets)."""
    zeros = before.zeros + (cell.mark is Mark.ZERO)
    upper = before.upper_bonus
    bonus = rules.upper_bonus
    if bonus and not upper and index in _tables(rules).upper:
        upper = bonus.points if upper_total(rules, after) >= bonus.threshold else 0
    return Breakdown(
        cells=before.cells + cell.points,
        stars=before.stars + sum(star.value for star in after.stars[len(sheet.stars) :]),
        upper_bonus=upper,
        yahtzee_bonus=after.yahtzee_bonus,
        reserve=after.reserve,
        zeros=zeros,
        zero_penalty=rules.reserve.zero_penalty * zeros if rules.reserve else 0,
        strikes=before.strikes + (cell.mark is Mark.STRIKE),
    )


def breakdown(state: GameState, seat: int) -> Breakdown:
    """Seat's total and its parts in the main game (a tie-break does not change totals)."""
    return sheet_breakdown(state.rules, state.final_sheets[seat])


def totals(state: GameState) -> tuple[int, ...]:
    return tuple(breakdown(state, seat).total for seat in range(len(state.players)))


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    name: str
    total: int
    place: int
    forfeited: bool


def ranking(state: GameState) -> list[Standing]:
    """Players by place. Equal totals share a place, except where a tie-break or forfeit decided."""
    scores = totals(state)

    def key(seat: int) -> tuple[bool, bool, int]:
        return (seat not in state.forfeited, seat == state.winner, scores[seat])

    order = sorted(range(len(state.players)), key=key, reverse=True)
    standings: list[Standing] = []
    for position, seat in enumerate(order):
        place = position + 1
        if standings and key(order[position - 1]) == key(seat):
            place = standings[-1].place
        standings.append(
            Standing(seat, state.players[seat], scores[seat], place, seat in state.forfeited)
        )
    return standings


def winner(state: GameState) -> int | None:
    """The seat that won a finished game, or None (not finished, or first place shared)."""
    if not state.finished:
        return None
    if state.winner is not None:
        return state.winner
    first = [standing.seat for standing in ranking(state) if standing.place == 1]
    return first[0] if len(first) == 1 else None


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


def preview(state: GameState) -> list[MovePreview]:
    """Every legal cell move with what it would score now, in sheet order."""
    rules = state.rules
    before = sheet_breakdown(rules, state.sheet)
    out: list[MovePreview] = []
    moves = cell_moves(state)
    if not moves:
        return out
    counts = _counts(state)
    legal = (counts, _joker_rows(state, counts))
    for move in moves:
        sheet, index, column = _fill(state, move, legal)
        cell = sheet.cell(rules, index, column)
        assert cell is not None
        after = _breakdown_after(rules, before, state.sheet, sheet, cell, index)
        out.append(
            MovePreview(
                move=move,
                points=cell.points,
                doubled=cell.doubled,
                gain=after.total - before.total,
                reserve=sheet.reserve,
                stars=sheet.stars[len(state.sheet.stars) :],
                joker=cell.joker,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class StarStatus:
    kind: str
    key: str | int
    status: str  # "earned", "open" or "struck"
    value: int | None


def star_status(state: GameState, seat: int) -> list[StarStatus]:
    """Every star of seat's sheet: earned (with its value), still open, or struck."""
    rules = state.rules
    if rules.stars is None:
        return []
    sheet = state.sheets[seat]
    claimed = claimed_stars(state)
    mine = {(bonus.kind, bonus.key): bonus.value for bonus in sheet.stars}
    out = []
    for index, row in enumerate(rules.rows):
        if not row.star:
            continue
        kind = "school_row" if row.school else "combination_row"
        cells = sheet.row_cells(rules, index)
        broken = any(
            c is not None and (c.mark in (Mark.STRIKE, Mark.ZERO) or c.used_reserve) for c in cells
        )
        out.append(_status(kind, row.id, mine, claimed, broken))
    if rules.stars.columns:
        for column in range(rules.columns):
            cells = sheet.column_cells(rules, column)
            broken = any(c is not None and c.mark in (Mark.STRIKE, Mark.ZERO) for c in cells)
            out.append(_status("column", column, mine, claimed, broken))
    return out


def _status(
    kind: str,
    key: str | int,
    mine: dict[tuple[str, str | int], int],
    claimed: dict[tuple[str, str | int], int],
    broken: bool,
) -> StarStatus:
    if (kind, key) in mine:
        return StarStatus(kind, key, "earned", mine[(kind, key)])
    if broken or (kind, key) in claimed:
        return StarStatus(kind, key, "struck", None)
    return StarStatus(kind, key, "open", None)


def autoplay_action(state: GameState) -> Action:
    """The action auto-play takes now (presets with an auto-play rule): see `AutoPlay`."""
    rules = state.rules
    if rules.autoplay is None:
        raise IllegalActionError(f"{rules.preset} has no auto-play rule")
    if state.finished:
        raise GameOverError("the game is over")
    if state.rolls == 0:
        return ROLL
    counts = _counts(state)
    if state.rolls < rules.rolls_per_turn and rules.dice not in counts:
        face = max(range(1, rules.faces + 1), key=lambda f: (counts[f], f))
        return Roll(tuple(p for p, die in enumerate(state.dice) if die == face))
    sheet = state.sheet
    tables = _tables(rules)
    open_rows = sheet.open_rows(rules)
    for index in tables.autoplay:
        if index in open_rows and combo_value(rules.rows[index].combo, counts) is not None:
            return tables.score[index]
    upper = [i for i in tables.upper if i in open_rows and counts[rules.rows[i].combo.n] > 0]
    if upper:
        best = max(upper, key=lambda i: (counts[rules.rows[i].combo.n], rules.rows[i].combo.n))
        return tables.score[best]
    return tables.score[open_rows[0]]


__all__ = [
    "FORFEIT",
    "Breakdown",
    "MovePreview",
    "Standing",
    "StarStatus",
    "apply",
    "autoplay_action",
    "breakdown",
    "cell_moves",
    "claimed_stars",
    "legal_actions",
    "new_game",
    "preview",
    "ranking",
    "sheet_breakdown",
    "star_status",
    "totals",
    "upper_total",
    "winner",
]
