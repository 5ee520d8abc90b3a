"""First-player stars: which cells keep a star in reach, when one is earned, and what it is worth.

A row star is earned by the first player to fill every cell of the row with cells that keep it
(School rows: closed without using the reserve; combination rows: scored, not struck); a column
star by the first to fill a column with no stroke and no zero. Its value is 5 x the face for a
School row (`Stars.school_factor`), the row's best cell for a combination row, the column's best
`column_best` cell for a column. These are the only definitions of the rule: the engine earns and
reports stars with them, the planner's gains and the School value's features are built from them.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

from dicepoker.engine.state import Bonus, Cell, GameState, Mark, Sheet
from dicepoker.rules.model import Rules

#: A star's identity: its kind (`school_row`, `combination_row` or `column`) and its key (the
#: row's id or the column's index), as in `Bonus`.
StarKey = tuple[str, str | int]


def row_star_key(rules: Rules, index: int) -> StarKey | None:
    """The star of row `index`, or None when the row (or the variant) has none."""
    row = rules.rows[index]
    if rules.stars is None or not row.star:
        return None
    return ("school_row" if row.school else "combination_row", row.id)


def column_star_key(rules: Rules, column: int) -> StarKey | None:
    """The star of `column`, or None when the variant has no column stars."""
    stars = rules.stars
    return ("column", column) if stars is not None and stars.columns else None


def claimed_stars(state: GameState) -> dict[StarKey, int]:
    """Star keys already earned in the current (sub)game, with the seat that earned each."""
    return {
        (bonus.kind, bonus.key): seat
        for seat, sheet in enumerate(state.sheets)
        for bonus in sheet.stars
    }


# --- cells -------------------------------------------------------------------------------------


def keeps_row_star(rules: Rules, index: int, cell: Cell) -> bool:
    """Whether `cell` in row `index` keeps the row's star in reach: a School cell closed without
    using the reserve, a combination cell scored (a stroke or a zero breaks it)."""
    if rules.rows[index].school:
        return cell.mark is Mark.CLOSED and not cell.used_reserve
    return cell.mark is Mark.SCORE


def keeps_column_star(rules: Rules, cell: Cell) -> bool:
    """Whether `cell` keeps its column's star in reach: anything but a stroke or a zero (using
    the reserve does not matter to a column)."""
    return cell.mark is not Mark.STRIKE and cell.mark is not Mark.ZERO


def row_star_value(rules: Rules, index: int, cells: Sequence[Cell | None]) -> int:
    """What row `index`'s star is worth with these cells: `school_factor` x the face for a School
    row, the best cell as scored (doubling included) for a combination row."""
    row = rules.rows[index]
    stars = rules.stars
    if row.school:
        assert stars is not None, f"{rules.variant} has no stars"
        return stars.school_factor * row.combo.n
    return max((cell.points for cell in cells if cell is not None), default=0)


def column_star_value(rules: Rules, cells: Sequence[Cell | None]) -> int:
    """What a column's star is worth with these cells (in row order): its best combination, the
    best cell of the rows that count for it (`column_best`), 0 when none has points."""
    return max(
        (c.points for c, row in zip(cells, rules.rows, strict=True) if row.column_best and c),
        default=0,
    )


# --- a sheet -----------------------------------------------------------------------------------


def row_star_broken(rules: Rules, sheet: Sheet, index: int) -> bool:
    """Whether a filled cell of row `index` has broken the row's star."""
    return any(
        cell is not None and not keeps_row_star(rules, index, cell)
        for cell in sheet.row_cells(rules, index)
    )


def column_star_broken(rules: Rules, sheet: Sheet, column: int) -> bool:
    """Whether a filled cell of `column` has broken the column's star."""
    return any(
        cell is not None and not keeps_column_star(rules, cell)
        for cell in sheet.column_cells(rules, column)
    )


def row_star_open(rules: Rules, sheet: Sheet, index: int, claimed: Container[StarKey]) -> bool:
    """Whether row `index`'s star can still be earned on `sheet`: the row has one and an empty
    cell, nobody holds it (`claimed`: the keys of the stars taken, as in `claimed_stars`) and no
    cell has broken it."""
    key = row_star_key(rules, index)
    return (
        key is not None
        and key not in claimed
        and sheet.row_fill[index] < rules.columns
        and not row_star_broken(rules, sheet, index)
    )


def column_star_open(rules: Rules, sheet: Sheet, column: int, claimed: Container[StarKey]) -> bool:
    """Whether `column`'s star can still be earned on `sheet`: column stars are played, nobody
    holds it, the column has an empty cell and no cell has broken it."""
    key = column_star_key(rules, column)
    if key is None or key in claimed:
        return False
    cells = sheet.column_cells(rules, column)
    return any(cell is None for cell in cells) and not any(
        cell is not None and not keeps_column_star(rules, cell) for cell in cells
    )


def stars_at_stake(
    rules: Rules, sheet: Sheet, index: int, claimed: Container[StarKey]
) -> tuple[StarKey | None, StarKey | None]:
    """The row star and the column star that the next cell of row `index` would complete (None
    for each that it does not complete, or that is out of reach): a cell that keeps a star at
    stake earns it."""
    if rules.stars is None:
        return None, None
    column = sheet.row_fill[index]
    row_key = None
    if column == rules.columns - 1 and row_star_open(rules, sheet, index, claimed):
        row_key = row_star_key(rules, index)
    column_key = None
    fills = sheet.row_fill
    # The last empty cell of `column` is this row's when every other row is past the column:
    # as this row's fill is `column`, when the least fill is `column` and only this row has it.
    last = min(fills) == column and fills.count(column) == 1
    if last and column_star_open(rules, sheet, column, claimed):
        column_key = column_star_key(rules, column)
    return row_key, column_key


def earned_stars(
    rules: Rules,
    sheet: Sheet,
    index: int,
    cell: Cell,
    claimed: Container[StarKey],
) -> tuple[Bonus, ...]:
    """The stars earned by writing `cell` in the next cell of row `index` of `sheet` (the row
    star first): those at stake that the cell keeps."""
    keeps_row = keeps_row_star(rules, index, cell)
    keeps_column = keeps_column_star(rules, cell)
    if not (keeps_row or keeps_column):
        return ()  # (a stroke, a zero: what is at stake does not matter)
    row_key, column_key = stars_at_stake(rules, sheet, index, claimed)
    earned: list[Bonus] = []
    column = sheet.row_fill[index]
    if row_key is not None and keeps_row:
        cells = (*sheet.row_cells(rules, index)[:column], cell)
        earned.append(Bonus(*row_key, row_star_value(rules, index, cells)))
    if column_key is not None and keeps_column:
        cells = sheet.column_cells(rules, column)
        cells = (*cells[:index], cell, *cells[index + 1 :])
        earned.append(Bonus(*column_key, column_star_value(rules, cells)))
    return tuple(earned)


# --- what a sheet shows ------------------------------------------------------------------------


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
    rows, columns = broken_stars(rules, sheet)
    out = []
    for index in range(len(rules.rows)):
        key = row_star_key(rules, index)
        if key is not None:
            out.append(_status(key, mine, claimed, index in rows))
    for column in range(rules.columns):
        key = column_star_key(rules, column)
        if key is not None:
            out.append(_status(key, mine, claimed, column in columns))
    return out


def broken_stars(rules: Rules, sheet: Sheet) -> tuple[set[int], set[int]]:
    """The rows and the columns of `sheet` whose star a filled cell has broken, as
    `row_star_broken` and `column_star_broken` say, in one pass over the cells (a sheet's view
    asks for every star: a pass per row and per column cost it a tenth of its time)."""
    rows: set[int] = set()
    columns: set[int] = set()
    width = rules.columns
    for at, cell in enumerate(sheet.cells):
        if cell is None:
            continue
        index, column = divmod(at, width)
        if index not in rows and not keeps_row_star(rules, index, cell):
            rows.add(index)
        if column not in columns and not keeps_column_star(rules, cell):
            columns.add(column)
    return rows, columns


def _status(
    key: StarKey, mine: dict[StarKey, int], claimed: dict[StarKey, int], broken: bool
) -> StarStatus:
    if key in mine:
        return StarStatus(*key, "earned", mine[key])
    if broken or key in claimed:
        return StarStatus(*key, "struck", None)
    return StarStatus(*key, "open", None)


__all__ = [
    "StarKey",
    "StarStatus",
    "broken_stars",
    "claimed_stars",
    "column_star_broken",
    "column_star_key",
    "column_star_open",
    "column_star_value",
    "earned_stars",
    "keeps_column_star",
    "keeps_row_star",
    "row_star_broken",
    "row_star_key",
    "row_star_open",
    "row_star_value",
    "star_status",
    "stars_at_stake",
]
