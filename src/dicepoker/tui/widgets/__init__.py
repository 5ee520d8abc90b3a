"""The table's widgets: each draws its part of the game screen's state (see `base.TablePart`)."""

from dicepoker.tui.widgets.base import TablePart
from dicepoker.tui.widgets.dice import DiceBar, DicePanel, DiceView
from dicepoker.tui.widgets.hints_panel import HintsPanel
from dicepoker.tui.widgets.info import InfoPanel, RejoinPanel
from dicepoker.tui.widgets.sheets import OtherSheets, SheetBoard, SheetFoot
from dicepoker.tui.widgets.status import KeysLine, StatusLine

__all__ = [
    "DiceBar",
    "DicePanel",
    "DiceView",
    "HintsPanel",
    "InfoPanel",
    "KeysLine",
    "OtherSheets",
    "RejoinPanel",
    "SheetBoard",
    "SheetFoot",
    "StatusLine",
    "TablePart",
]
