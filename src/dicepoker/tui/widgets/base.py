"""`TablePart`: a widget of the table that draws the game screen's state.

Every part has the two reactives the game screen has, `table` (a `TableState`) and `plan` (a
`TableLayout`), and is bound to them with `data_bind`: when the screen sets new ones, each part
takes them and Textual calls its `render` again; no one writes text into a part from outside.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import Reactive, reactive
from textual.widget import Widget

from dicepoker.tui.table_layout import TableLayout
from dicepoker.tui.table_state import TableState


class TablePart(Widget):
    """A part of the table: `draw` turns the state (and the layout) into lines of text."""

    DEFAULT_CSS = """
    TablePart { height: auto; }
    """

    table: reactive[TableState | None] = reactive(None, layout=True)
    plan: reactive[TableLayout | None] = reactive(None, layout=True)
    #: Clickable parts keep their own colours (no link styling).
    auto_links = Reactive(False)

    def render(self) -> Content:
        table = self.table
        return Content("") if table is None else self.draw(table, self.plan)

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        """The part's text for `table` laid out by `plan` (None until there is a view)."""
        raise NotImplementedError

    def line_width(self, plan: TableLayout) -> int:
        """The cells a line of the side panel may take: the plan's width, less what the panel
        really leaves once laid out (its scrollbar, when its parts overflow a short window)."""
        shown = self.content_size.width
        return min(plan.side_width, shown) if shown > 0 else plan.side_width

    def on_resize(self) -> None:
        self.refresh()
