"""The sheets: the full sheet of the player shown (`SheetBoard`), its summary under it
(`SheetFoot`, always in sight: the reserve and the total), and the others, small
(`OtherSheets`), beside it in a wide window."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.message import Message

from dicepoker.tui.sheet import mini_sheet_lines, sheet_lines, sheet_of, summary_lines
from dicepoker.tui.table_layout import MINI_GAP, TableLayout
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.base import TablePart


class SheetBoard(TablePart):
    """The sheet of the seat shown, with the cells that may be filled now in brackets; a click
    on one of them posts `CellPicked` (the screen plays it, or asks again for a zero)."""

    class CellPicked(Message):
        """A cell was clicked: `row`, and which of its moves (index, main move first)."""

        def __init__(self, row: str, choice: int) -> None:
            super().__init__()
            self.row = row
            self.choice = choice

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        if view is None:
            return Content(table.waiting_words())
        if plan is None:
            return Content("")
        seat = table.shown
        lines = sheet_lines(
            view,
            seat,
            table.words,
            plan.sheet,
            legal=table.legal,
            selection=table.selection,
            current=seat == table.mover,
            mine=table.is_mine(seat),
            room=plan.room,
            summary=False,
        )
        return Content("\n").join(lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.plan is not None and self.table is not None and self.table.view is not None:
            return self.plan.sheet_width
        return super().get_content_width(container, viewport)

    def action_play_cell(self, row: str, choice: int) -> None:
        """What the brackets' `@click` runs."""
        self.post_message(self.CellPicked(row, choice))


class SheetFoot(TablePart):
    """The summary of the sheet shown (reserve, zeros, cells, bonuses, total), under the sheet
    and out of its scrolling, so that it stays in sight in a short window."""

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        if view is None or plan is None:
            return Content("")
        sheet, _ = sheet_of(view, table.shown)
        width = max(plan.sheet.width, plan.room)
        return Content("\n").join(summary_lines(sheet, view, table.words, width))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.plan is not None and self.table is not None and self.table.view is not None:
            return self.plan.sheet_width
        return super().get_content_width(container, viewport)


class OtherSheets(TablePart):
    """The other players' sheets that the layout puts beside the full one, small, side by side
    (their rows on the full sheet's lines)."""

    def watch_plan(self, plan: TableLayout | None) -> None:
        self.display = plan is not None and plan.show_others

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        seats = plan.beside if plan is not None else ()
        if view is None or plan is None or not seats:
            return Content("")
        blocks = [
            mini_sheet_lines(view, seat, table.words, plan.sheet, current=seat == table.mover)
            for seat in seats
        ]
        if not blocks:
            return Content("")
        width = plan.sheet.mini_width + MINI_GAP
        rows = []
        for y in range(max(len(block) for block in blocks)):
            row = Content("")
            for block in blocks:
                piece = block[y] if y < len(block) else Content("")
                row += piece.pad_right(width - piece.cell_length)
            rows.append(row)
        return Content("\n").join(rows)
