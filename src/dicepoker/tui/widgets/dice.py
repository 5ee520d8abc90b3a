"""The dice: in the side panel (`DicePanel`, with the keys under them, the roll button and the
last move) and on one line under the sheet in a narrow window (`DiceBar`).

A click on a die posts `DiceView.Toggled`, a click on the roll button `DiceView.RollPressed`; the
game screen decides what they do (only the player to move may keep dice or roll).
"""

from __future__ import annotations

from textual.content import Content
from textual.message import Message

from dicepoker.tui.i18n import action_words
from dicepoker.tui.sheet import MUTED, TITLE, dice_line, keys_line
from dicepoker.tui.table_layout import TableLayout
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.base import TablePart


class DiceView(TablePart):
    """A drawing of the dice whose clicks become messages to the screen."""

    class Toggled(Message):
        """The die at `position` (0-based) was clicked: keep it, or let it go."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    class RollPressed(Message):
        """The roll button was clicked."""

    def action_toggle_die(self, position: int) -> None:
        self.post_message(self.Toggled(position))

    def action_roll(self) -> None:
        self.post_message(self.RollPressed())


class DicePanel(DiceView):
    """The dice of the turn in the side panel: which roll it is, the dice (held ones in
    brackets), their keys, the roll button and the last move."""

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        turn = view.get("turn") if view else None
        if view is None or plan is None or table.finished or not turn:
            return Content("")
        words = table.words
        rules = view["rules"]
        rolls = int(turn.get("rolls", 0))
        head = (
            words("roll {n} of {total}", n=rolls, total=rules["rolls_per_turn"])
            if rolls
            else words("roll the dice")
        )
        lines = [Content.styled(words("Dice"), TITLE) + Content.styled(" · " + head, MUTED)]
        mine = table.my_turn
        slot = plan.dice_slot
        lines.append(dice_line(view, table.held, click=mine, slot=slot))
        if mine and rolls:
            lines.append(keys_line(table.dice, slot))
        if mine and turn.get("can_roll"):
            lines.append(Content.styled(f" R: {words('Roll')} ", "bold reverse @click=roll"))
        last = table.last_action
        if last is not None and last[0] < len(view["players"]):
            lines.append(
                Content.styled(f"{words('Last move')}: ", MUTED)
                + Content(f"{table.name(last[0])}: {action_words(words, view, last[1])}")
            )
        return Content("\n").join(lines)


class DiceBar(DiceView):
    """The dice on one line under the sheet, for windows too narrow for the side panel."""

    DEFAULT_CSS = """
    DiceBar { height: 1; }
    """

    def watch_table(self) -> None:
        self._show()

    def watch_plan(self) -> None:
        self._show()

    def _show(self) -> None:
        table = self.table
        plan = self.plan
        self.display = bool(
            table is not None
            and table.view is not None
            and table.view.get("turn")
            and not table.finished
            and plan is not None
            and plan.narrow
        )

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        turn = view.get("turn") if view else None
        if view is None or not turn or table.finished:
            return Content("")
        head = Content.styled(f"{table.words('Dice')} ", TITLE)
        dice = dice_line(view, table.held, click=table.my_turn, slot=3)
        count = f" {int(turn.get('rolls', 0))}/{view['rules']['rolls_per_turn']}"
        return head + dice + Content.styled(count, MUTED)
