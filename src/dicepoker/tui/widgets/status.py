"""The two lines at the bottom: the status (`StatusLine`: whose turn, what to do, a notice for a
while) and the keys (`KeysLine`: the keys that do something now, as many as fit)."""

from __future__ import annotations

from textual.content import Content

from dicepoker.tui.sheet import EARNED, SELECTED
from dicepoker.tui.table_layout import TableLayout
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.base import TablePart

#: Keys that work whoever's turn it is.
ALWAYS = frozenset({"S", "Q", "L", "Tab", "H"})


class StatusLine(TablePart):
    """A notice while it lasts, else whose turn it is and what the keys do now."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        words = table.words
        if table.notice is not None:
            notice = table.notice
            return Content.styled(
                notice.text(words), "bold red" if notice.kind == "error" else "bold yellow"
            )
        view = table.view
        if view is None:
            return Content(table.waiting_words())
        if table.finished:
            return Content.styled(
                table.result_words() + "  " + words("S saves the record, Q quits."), EARNED
            )
        if table.status == "open":
            return Content(words("The game starts when every seat is taken."))
        mover = table.mover
        if mover is None:
            return Content("")
        name = table.name(mover)
        if table.my_turn:
            turn = view["turn"]
            if not turn.get("rolls"):
                help_text = words("R rolls the dice.")
            elif turn.get("can_roll"):
                help_text = words(
                    "1-{n} hold dice, R rolls again, arrows and Enter fill a cell.", n=table.dice
                )
            elif table.can_strike:
                help_text = words("Arrows and Enter fill a cell, X strikes it.")
            else:
                help_text = words("Arrows and Enter fill a cell.")
            return Content.assemble(
                (words("{name}, your turn", name=name), SELECTED), " ", help_text
            )
        if table.is_bot(mover):
            return Content(words("{name} (bot) is playing…", name=name))
        return Content(words("{name} is playing…", name=name))


class KeysLine(TablePart):
    """The keys and what they do: only the ones that work now (X only where the view's legal
    moves have a strike, holding and filling only once the dice are rolled, R and holding only
    while a roll is left), every one of them, on a second line where one is too narrow (at 80
    columns a language's words need it; a key left out would be a key nobody finds)."""

    DEFAULT_CSS = """
    KeysLine { height: auto; }
    """

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        width = self.content_size.width or (plan.room + 2 if plan is not None else 80)
        return Content("\n").join(key_lines(table, max(20, width)))


def key_lines(table: TableState, width: int) -> list[Content]:
    """The keys that work now with their words, in lines of at most `width` cells."""
    words = table.words
    keys = [
        ("R", words("key.roll")),
        (f"1-{table.dice}", words("key.hold")),
        ("↑↓ ↵", words("key.fill")),
        ("X", words("key.strike")),
        ("H", words("key.hints")),
        ("S", words("key.save")),
        ("Q", words("key.quit")),
        ("L", words("key.language")),
        ("Tab", words("key.sheets")),
    ]
    if table.view is None or table.finished or not table.my_turn:
        keys = [key for key in keys if key[0] in ALWAYS]
    else:
        turn = table.view.get("turn") or {}
        idle = set()  # the keys of the turn that do nothing at this point of it
        if not table.can_strike:
            idle.add("X")
        if not turn.get("rolls"):
            idle |= {keys[1][0], keys[2][0]}  # nothing to hold or fill before the first roll
        if not turn.get("can_roll"):
            idle |= {"R", keys[1][0]}  # no roll left: nothing to roll or hold for
        keys = [key for key in keys if key[0] not in idle]
    if table.competition is not None:
        keys = [key for key in keys if key[0] != "H"]  # hints are off in this game
    if table.rematch is not None:
        keys.insert(0, ("N", words("key.rematch")))
    if table.view is not None and not table.local and not table.spectator:
        keys.insert(len(keys) - 2, ("G", words("key.react")))
    lines: list[Content] = []
    line = Content("")
    for key, label in keys:
        piece = Content.assemble((key, "bold"), " ", label)
        candidate = piece if not line.cell_length else line + Content("  ") + piece
        if candidate.cell_length > width and line.cell_length:
            lines.append(line)
            line = piece
        else:
            line = candidate
    lines.append(line)
    return lines
