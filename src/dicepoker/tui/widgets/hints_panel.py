"""The hint panel (`HintsPanel`, key H): the advisor's value of every option, best first.

A cell move is labelled as the sheet would write it in its cell (`Pair [4×2]`, `School 3 [✕+3]`,
`Two pairs [—]`), a roll or a hold in words (`hold 2 4 5`); each label is cut to the panel's
width (row labels take their short forms first), so that the value beside it always shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.content import Content

from dicepoker.tui.i18n import Words, action_words
from dicepoker.tui.sheet import EARNED, MUTED, TITLE, SheetLayout, option_content, sheet_of
from dicepoker.tui.table_layout import TableLayout
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.base import TablePart

#: Widest column of option labels.
LABEL_COLUMN = 26


def signed_number(value: float) -> str:
    """A gain as the panel writes it: `+12`, `−3`, `0`, `+1.5`."""
    if float(value).is_integer():
        number = int(value)
        return f"+{number}" if number > 0 else (f"−{-number}" if number < 0 else "0")
    return f"{value:+.1f}".replace("-", "−")


#: The sheet's compact writing of a cell (`4×2`), for the labels.
_CELL = SheetLayout(0, 0, 0, 1, compact=True)


def hint_label(words: Words, view: Mapping[str, Any], action: str, width: int) -> str:
    """The label of the option `action` in at most `width` cells: a cell move as its cell would
    show it after the row's label, else the action in words."""
    turn = view.get("turn") or {}
    option = next((o for o in turn.get("legal", []) if o.get("action") == action), None)
    if option is None or "row" not in option:
        text = action_words(words, view, action)
        return text if len(text) <= width else text[: max(1, width - 1)] + "…"
    sheet, _ = sheet_of(view, int(turn.get("seat", 0)))
    row: Mapping[str, Any] = next((r for r in sheet["rows"] if r.get("id") == option["row"]), {})
    cell = f"[{option_content(option, row, _CELL)}]"
    variant = str(view["rules"]["variant"])
    label = words.short_row(variant, str(option["row"]), max(1, width - len(cell) - 1))
    return f"{label} {cell}"


class HintsPanel(TablePart):
    """Shown while the table's state has hints (the panel is open)."""

    def watch_table(self, table: TableState | None) -> None:
        self.display = table is not None and table.hints is not None

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        panel = table.hints
        if view is None or panel is None or plan is None:
            return Content("")
        words = table.words
        lines = [
            Content.styled(words("Hints"), TITLE)
            + Content.styled(" · " + words(panel.title), MUTED)
        ]
        hints = panel.hints
        if not hints:
            turn = view.get("turn")
            lines.append(
                Content.styled(words("Nothing to value now: roll the dice."), MUTED)
                if turn and not turn.get("rolls")
                else Content.styled(words("No hints now."), MUTED)
            )
        # The advisor lists the best first (for the expert's advice, the web's best, which is
        # not always the highest expected score: with rivals the expert plays to win).
        best = hints[0] if hints else None
        texts = [value_text(hint.value, panel.signed) for hint in hints]
        widest = max((len(text) for text in texts), default=0)
        column = max(2, min(LABEL_COLUMN, self.line_width(plan) - widest - 1))
        for hint, text in zip(hints, texts, strict=True):
            label = hint_label(words, view, hint.action, column - 1)
            line = Content.styled(label, "bold" if hint is best else "")
            value = Content.styled(text.rjust(widest), EARNED if hint is best else "")
            lines.append(line.pad_right(max(1, column - line.cell_length)) + value)
        return Content("\n").join(lines)


def value_text(value: float, signed: bool) -> str:
    """A hint's value as shown: gains signed (+12), scores as they are (247.1)."""
    return signed_number(value) if signed else f"{value:.1f}".replace("-", "−")
