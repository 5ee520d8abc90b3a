"""The public view of a position (`dicepoker.protocol.GameView`): what every interface draws.

The web page, the terminal client and the API all render this one structure, built only from the
engine's own answers (cells, star status, breakdowns, previews), so no interface re-implements a
rule. It holds nothing secret: seat tokens and dice seeds never appear here.

The server builds a view after every event of every game, from data the engine has typed
already: the models are made with `Wire.build` (no validation, see `dicepoker.protocol.base`) and
written with `to_json()`; tests/test_view.py checks that every view validates and reads back the
same.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from dicepoker.engine import (
    Action,
    Breakdown,
    Cell,
    Forfeit,
    GameState,
    Mark,
    Move,
    Sheet,
    breakdown,
    claimed_stars,
    preview,
    preview_move,
    ranking,
    sheet_breakdown,
    star_status,
    upper_total,
    winner,
)
from dicepoker.protocol.view import (
    BreakdownView,
    CellView,
    ClockRule,
    GameView,
    LastMoveView,
    LegalMoveView,
    PlayerView,
    RuleRowView,
    RulesView,
    SectionView,
    SheetRowView,
    SheetView,
    StarView,
    TieBreakView,
    TurnView,
    UpperBonusRule,
    UpperView,
    ViewChanges,
)
from dicepoker.rules import Pattern, Rules

_cell = CellView.build


#: Distinct cell views shared (by their values) between rows, sheets and games.
SHARED_CELLS = 4096
#: Distinct rows shared the same way: a server keeps every live game's sheets, and most of a
#: game's rows are empty or filled as some other game's are.
SHARED_ROWS = 16384

#: Distinct legal moves' views shared the same way (a move, its points and its gain).
SHARED_LEGAL = 4096

#: A cell's values (`_shared_cell`'s key), None for an empty cell.
CellKey = tuple[tuple[str, Any], ...] | None


@lru_cache(maxsize=SHARED_CELLS)
def _shared_cell(values: tuple[tuple[str, Any], ...]) -> CellView:
    """The one view of a cell with these values. Views are never changed once built, and a
    server keeps every live game's sheets: a cell's own model (its fields, and the set of those
    given) took about 0.5 KiB, for a few hundred distinct cells in all (benchmarks/memory.py)."""
    return _cell(**dict(values))


@lru_cache(maxsize=SHARED_CELLS)
def _shared_star(status: str, value: int | None) -> StarView:
    """The one view of a star's status and value, shared like the cells' (a few dozen
    distinct)."""
    return StarView.build(status=status, value=value)


@lru_cache(maxsize=SHARED_ROWS)
def _shared_row(
    row_id: str,
    section: str,
    school: bool,
    cells: tuple[CellKey, ...],
    star: tuple[str, int | None] | None,
) -> SheetRowView:
    """The one view of a row with these cells and star. At 4,000 games a server's collector
    walked about 46,000 rows, 52,000 stars and a list and a dict for each row, a fifth of the
    objects a collection of its older generations pauses the loop for
    (dicepoker.server.runtime.collector)."""
    return SheetRowView.build(
        id=row_id,
        section=section,
        school=school,
        cells=[None if key is None else _shared_cell(key) for key in cells],
        star=None if star is None else _shared_star(*star),
    )


def _cell_key(sheet: Sheet, index: int, cell: Cell | None) -> CellKey:
    """What a cell's view shows: its mark and points, and for School cells the reserve note
    (struck or not)."""
    if cell is None:
        return None
    values: dict[str, Any] = {"mark": cell.mark.value, "points": cell.points}
    if cell.doubled:
        values["doubled"] = True
    if cell.joker:
        values["joker"] = True
    if cell.mark is Mark.CLOSED:
        values["used_reserve"] = cell.used_reserve
        if cell.note is not None:
            values["note"] = cell.note
            values["note_struck"] = sheet.note_at != index
    return tuple(values.items())


def sheet_view(
    state: GameState,
    seat: int,
    sheet: Sheet | None = None,
    before: tuple[Sheet, SheetView] | None = None,
    *,
    parts: Breakdown | None = None,
) -> SheetView:
    """A player's sheet row by row, with stars, the legal cells highlighted by the caller.
    `before`: an earlier sheet of the same seat and its view, whose rows are reused where the
    row's cells are the very same and its star says the same (a move changes one row).
    `parts`: the sheet's `sheet_breakdown`, when the caller has it already."""
    rules = state.rules
    sheet = state.sheets[seat] if sheet is None else sheet
    stars = {(s.kind, s.key): s for s in star_status(state, seat)} if rules.stars else {}

    def star(kind: str, key: str | int) -> StarView | None:
        status = stars.get((kind, key))
        if status is None:
            return None
        return _shared_star(status.status, status.value)

    old_cells: tuple[Cell | None, ...] | None = None
    old_rows: list[SheetRowView] = []
    if before is not None and before[0].note_at == sheet.note_at:
        old_cells, old_rows = before[0].cells, before[1].rows
    rows = []
    columns = rules.columns
    cells = sheet.cells
    for index, row in enumerate(rules.rows):
        start = index * columns
        kind = "school_row" if row.school else "combination_row"
        status = stars.get((kind, row.id)) if row.star else None
        end = start + columns
        # (the tuples compare each pair of cells by identity first: the same objects, or equal)
        if old_cells is not None and cells[start:end] == old_cells[start:end]:
            old = old_rows[index]
            shown = old.star
            if (status is None and shown is None) or (
                status is not None
                and shown is not None
                and (status.status, status.value) == (shown.status, shown.value)
            ):
                rows.append(old)
                continue
        rows.append(
            _shared_row(
                row.id,
                row.section,
                row.school,
                tuple(_cell_key(sheet, at, cells[at]) for at in range(start, end)),
                None if status is None else (status.status, status.value),
            )
        )
    if parts is None:
        parts = sheet_breakdown(rules, sheet)
    values: dict[str, Any] = {
        "rows": rows,
        "column_stars": [star("column", column) for column in range(columns)]
        if rules.stars and rules.stars.columns
        else [],
        "breakdown": BreakdownView.build(
            cells=parts.cells,
            stars=parts.stars,
            upper_bonus=parts.upper_bonus,
            yahtzee_bonus=parts.yahtzee_bonus,
            reserve=parts.reserve,
            zeros=parts.zeros,
            zero_penalty=parts.zero_penalty,
            strikes=parts.strikes,
            total=parts.total,
        ),
        "bonuses": [(bonus.kind, bonus.key, bonus.value) for bonus in sheet.stars],
        "jokers": sheet.jokers,
    }
    if rules.upper_bonus:
        values["upper"] = UpperView.build(
            total=upper_total(rules, sheet),
            threshold=rules.upper_bonus.threshold,
            bonus=rules.upper_bonus.points,
        )
    return SheetView.build(**values)


@lru_cache(maxsize=256)
def rules_view(rules: Rules) -> RulesView:
    """Everything an interface needs to lay out and play a game of these rules, so that no
    interface branches on a variant's name or assumes five dice: players, dice and faces, each
    row's face, the section titles (message ids), the zero's penalty, auto-play, the clock.
    Made once per rules (they are immutable, and so is the view)."""
    upper = rules.upper_bonus
    clock = rules.clock
    return RulesView(
        variant=rules.variant,
        options=rules.option_dict,
        min_players=rules.min_players,
        max_players=rules.max_players,
        rows=[
            RuleRowView(
                id=row.id,
                section=row.section,
                school=row.school,
                star=row.star,
                face=row.combo.n if row.combo.pattern is Pattern.FACE else None,
                strike=row.strike,
                doubles=row.doubles,
            )
            for row in rules.rows
        ],
        sections=[SectionView(id=section, title=title) for section, title in rules.section_titles],
        columns=rules.columns,
        dice=rules.dice,
        faces=rules.faces,
        face_labels=list(rules.face_labels),
        rolls_per_turn=rules.rolls_per_turn,
        stars=rules.stars is not None,
        column_stars=bool(rules.stars and rules.stars.columns),
        reserve=rules.reserve is not None,
        zero_penalty=rules.reserve.zero_penalty if rules.reserve else None,
        upper_bonus=UpperBonusRule(threshold=upper.threshold, points=upper.points)
        if upper
        else None,
        yahtzee_bonus=rules.extra_yahtzee is not None,
        autoplay=rules.autoplay is not None,
        clock=ClockRule(
            option=clock.option if clock else None,
            online_default=clock.online_default if clock else None,
            on_timeout="lose" if rules.timeout_loses else "autoplay",
        ),
        turn_seconds=rules.turn_seconds,
    )


class SheetsPart(NamedTuple):
    """What depends on the sheets only: players with totals and places, the sheets, ranking."""

    players: list[PlayerView]
    sheets: list[SheetView]
    winner: int | None
    ranking: list[int]
    tiebreak: TieBreakView | None
    # Each seat's main-game breakdown (the totals' and the mover's preview's).
    breakdowns: list[Breakdown]


class ViewCache:
    """Parts of the last view, reused while what they show has not changed: a roll changes only
    the dice, so the sheet part is reused while the position's sheets are the very same objects;
    a move changes one player's sheet, so the other players' sheet views are reused. A server
    that sends the view after every event renders one sheet per move instead of every sheet
    per event (and writes each sheet's JSON once, see `SheetView.keeps_json`)."""

    __slots__ = ("key", "part", "sheets")

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.part: SheetsPart | None = None
        # (which sheets, seat) -> (the sheet shown, the seat's current sheet, the stars claimed
        # in the (sub)game, the view of that sheet).
        self.sheets: dict[tuple[bool, int], tuple[Sheet, Sheet, Any, SheetView]] = {}

    def matches(self, key: tuple[Any, ...]) -> bool:
        old = self.key
        return (
            old is not None
            and old[0] is key[0]  # the very same sheets (tuples are never changed in place)
            and old[1] is key[1]
            and old[2:] == key[2:]
        )


def _sheet_view(
    state: GameState,
    seat: int,
    sheet: Sheet,
    claimed: Any,
    cache: ViewCache | None,
    main: bool,
    parts: Breakdown | None = None,
) -> SheetView:
    """`sheet_view`, reused from `cache` when its inputs are the same: the sheet shown, the seat's
    current sheet (its stars' status) and the stars claimed by anyone (a star one player earns
    is struck for the others). `parts`: the sheet's breakdown, when the caller has it."""
    if cache is None:
        return sheet_view(state, seat, sheet, parts=parts)
    current = state.sheets[seat]
    old = cache.sheets.get((main, seat))
    if old is not None and old[0] is sheet and old[1] is current and old[2] == claimed:
        return old[3]
    before = (old[0], old[3]) if old is not None else None
    view = sheet_view(state, seat, sheet, before, parts=parts)
    cache.sheets[(main, seat)] = (sheet, current, claimed, view)
    return view


def _sheets_part(state: GameState, cache: ViewCache | None) -> SheetsPart:
    # Each seat's breakdown once, for its total, its place and its sheet's view.
    parts = [breakdown(state, seat) for seat in range(len(state.players))]
    standings = ranking(state, [part.total for part in parts])
    places = {standing.seat: standing.place for standing in standings}
    players = [
        PlayerView.build(
            seat=seat,
            name=name,
            total=parts[seat].total,
            place=places[seat],
            forfeited=seat in state.forfeited,
        )
        for seat, name in enumerate(state.players)
    ]
    claimed = claimed_stars(state) if state.rules.stars else None
    tiebreak = None
    if state.stage:
        tiebreak = TieBreakView.build(
            game=state.stage,
            seats=list(state.contenders),
            sheets={
                str(seat): _sheet_view(state, seat, state.sheets[seat], claimed, cache, False)
                for seat in state.contenders
            },
        )
    finals = state.final_sheets
    return SheetsPart(
        players=players,
        sheets=[
            _sheet_view(state, seat, finals[seat], claimed, cache, True, parts[seat])
            for seat in range(len(state.players))
        ],
        winner=winner(state),
        ranking=[standing.seat for standing in standings],
        tiebreak=tiebreak,
        breakdowns=parts,
    )


class TurnCount(NamedTuple):
    """Where a game is, as every page says it ("Turn 12 of 15 · Ana · roll 2"): the round of the
    player to move (`round`, 1-based) of the game's `rounds`, and whose turn it is (`seat`)."""

    round: int
    rounds: int
    seat: int


def turn_count(state: GameState) -> TurnCount | None:
    """The turn count of a position, None once the game is over. A turn fills one cell, so the
    round is the cells the mover has filled on the sheet they play now (a tie-break's fresh one
    while it lasts) plus one, of as many rounds as a sheet has cells: the record's turn index
    counts every player's turns, which no page shows. The pages' own helper
    (web/static/js/turns.js, `turnCount`) reads the same from the view."""
    if state.finished:
        return None
    rounds = state.rules.cells
    filled = sum(1 for cell in state.sheet.cells if cell is not None)
    return TurnCount(min(filled + 1, rounds), rounds, state.seat)


def last_move_view(before: GameState, action: Action, *, auto: bool = False) -> LastMoveView | None:
    """What the move `action` of the player to move in `before` did, from the engine's own
    preview of it (the cell it fills, its points, the change of the total and of the reserve,
    the stars it earns first); a timeout did nothing but end the turn. None for a roll."""
    common = {"seat": before.seat, "turn": before.turn, "stage": before.stage, "auto": auto}
    if isinstance(action, Forfeit):
        return LastMoveView.build(
            **common,
            verb="timeout",
            row=None,
            column=None,
            points=0,
            doubled=False,
            gain=0,
            reserve=0,
            stars=[],
        )
    if not isinstance(action, Move):
        return None
    option = preview_move(before, action)
    if option is None:
        return None  # not a legal move here (the caller's mistake): nothing to tell
    rules = before.rules
    sheet = before.sheet
    return LastMoveView.build(
        **common,
        verb=action.verb,
        row=action.row,
        column=sheet.next_column(rules, rules.row_index[action.row]),
        points=option.points,
        doubled=option.doubled,
        gain=option.gain,
        reserve=option.reserve - sheet.reserve,
        stars=[(bonus.kind, bonus.key, bonus.value) for bonus in option.stars],
    )


@lru_cache(maxsize=SHARED_LEGAL)
def _shared_legal(move: Move, points: int, doubled: bool, gain: int) -> LegalMoveView:
    """The one view of a legal move with these points and gain, shared (like the cells') by
    every view that offers it, and written as JSON once (`LegalMoveView.keeps_json`): a view
    offers a few to some thirty, each built and written anew took a tenth of a view's cost."""
    return LegalMoveView.build(
        action=str(move), verb=move.verb, row=move.row, points=points, doubled=doubled, gain=gain
    )


def _turn_view(
    state: GameState, kept: Sequence[int] | None, held: Sequence[int] | None, part: SheetsPart
) -> TurnView:
    # The mover's breakdown is the sheet part's while the mover plays the main game's sheet.
    seat = state.seat
    before = part.breakdowns[seat] if state.final_sheets[seat] is state.sheet else None
    legal = [
        _shared_legal(option.move, option.points, option.doubled, option.gain)
        for option in preview(state, before)
    ]
    values: dict[str, Any] = {
        "seat": state.seat,
        "dice": list(state.dice),
        "rolls": state.rolls,
        "rolls_left": state.rolls_left,
        "thrown_all": state.thrown_all,
        "can_roll": state.rolls_left > 0,
        "can_keep": 0 < state.rolls < state.rules.rolls_per_turn,
        "legal": legal,
    }
    if kept is not None:
        values["kept"] = list(kept)
    if held is not None:
        values["held"] = list(held)
    return TurnView.build(**values)


def game_view(
    state: GameState,
    cache: ViewCache | None = None,
    *,
    kept: Sequence[int] | None = None,
    held: Sequence[int] | None = None,
    last_moves: Sequence[LastMoveView | None] | None = None,
) -> GameView:
    """The whole position: rules, players with totals and places, sheets, the turn and its
    legal moves with what each would score now. What the state does not hold, the caller adds
    when it knows it: `kept` (the dice the last roll kept: the record knows), `held` (the dice
    the roller holds now: the live game knows) and `last_moves` (each seat's, `last_move_view`).
    With a `cache`, the sheet part of the previous call is reused when the sheets have not
    changed since."""
    part = _current_part(state, cache)
    values: dict[str, Any] = {
        "rules": rules_view(state.rules),
        "players": part.players,
        "sheets": part.sheets,
        "finished": state.finished,
        "turn_number": state.turn,
        "winner": part.winner,
        "ranking": part.ranking,
    }
    if part.tiebreak is not None:
        values["tiebreak"] = part.tiebreak
    if not state.finished:
        values["turn"] = _turn_view(state, kept, held, part)
    if last_moves is not None:
        values["last_moves"] = list(last_moves)
    return GameView.build(**values)


def _current_part(state: GameState, cache: ViewCache | None) -> SheetsPart:
    """The sheet part of the view of `state`: the cache's while the sheets are the same."""
    key = (
        state.sheets,
        state.main_sheets,
        state.players,
        state.forfeited,
        state.stage,
        state.contenders,
        state.winner,
        state.finished,
    )
    if cache is not None and cache.part is not None and cache.matches(key):
        part = cache.part
    else:
        part = _sheets_part(state, cache)
        if cache is not None:
            cache.key, cache.part = key, part
    return part


class ViewBase(NamedTuple):
    """What `view_changes` compares of a view: its top-level values but the rules (never
    changed) and the turn (sent whenever there is one). Parts of the view, not copies: a game
    keeps this much of its last view at no cost (the sheets are the cache's)."""

    players: list[PlayerView]
    sheets: list[SheetView]
    finished: bool
    turn_number: int
    winner: int | None
    ranking: list[int]
    tiebreak: TieBreakView | None
    has_turn: bool
    last_moves: list[LastMoveView | None] | None


def base_of(
    state: GameState, cache: ViewCache, last_moves: Sequence[LastMoveView | None] | None
) -> ViewBase:
    """The `ViewBase` of the view `game_view(state, cache, last_moves=last_moves)` would build,
    without building its turn (the legal moves' previews: most of a view's cost), for a process
    that told its clients another's words of an event and will tell the next in its own."""
    part = _current_part(state, cache)
    return ViewBase(
        players=part.players,
        sheets=part.sheets,
        finished=state.finished,
        turn_number=state.turn,
        winner=part.winner,
        ranking=part.ranking,
        tiebreak=part.tiebreak,
        has_turn=not state.finished,
        last_moves=None if last_moves is None else list(last_moves),
    )


def view_base(view: GameView) -> ViewBase:
    """The parts of `view` that `view_changes` compares."""
    return ViewBase(
        players=view.players,
        sheets=view.sheets,
        finished=view.finished,
        turn_number=view.turn_number,
        winner=view.winner,
        ranking=view.ranking,
        tiebreak=view.tiebreak,
        has_turn=view.turn is not None,
        last_moves=view.last_moves,
    )


def view_changes(before: ViewBase, view: GameView) -> ViewChanges:
    """What changed from the view `before` to `view` (`ViewChanges`), for a client that holds
    the view `before` was taken of. Parts are compared by identity first: views built with one
    `ViewCache` share the parts that did not change (the sheets of the players who did not move,
    the whole sheet part after a roll), so a roll's changes are its turn alone."""
    values: dict[str, Any] = {}
    if view.players is not before.players and view.players != before.players:
        values["players"] = view.players
    if view.sheets is not before.sheets:
        if len(view.sheets) != len(before.sheets):
            raise ValueError("a view's number of sheets never changes")
        sheets = {
            str(seat): sheet
            for seat, (sheet, old) in enumerate(zip(view.sheets, before.sheets, strict=True))
            if sheet is not old and sheet != old
        }
        if sheets:
            values["sheets"] = sheets
    if view.finished != before.finished:
        values["finished"] = view.finished
    if view.turn_number != before.turn_number:
        values["turn_number"] = view.turn_number
    if view.winner != before.winner:
        values["winner"] = view.winner
    if view.ranking is not before.ranking and view.ranking != before.ranking:
        values["ranking"] = view.ranking
    gone: list[str] = []
    if view.tiebreak is None:
        if before.tiebreak is not None:
            gone.append("tiebreak")
    elif view.tiebreak is not before.tiebreak and view.tiebreak != before.tiebreak:
        values["tiebreak"] = view.tiebreak
    if view.turn is not None:
        values["turn"] = view.turn
    elif before.has_turn:
        gone.append("turn")
    moves, old_moves = view.last_moves, before.last_moves
    if moves is not None and (
        old_moves is None
        or len(moves) != len(old_moves)
        or any(move is not old and move != old for move, old in zip(moves, old_moves, strict=True))
    ):
        values["last_moves"] = moves
    if gone:
        values["gone"] = gone
    return ViewChanges.build(**values)
