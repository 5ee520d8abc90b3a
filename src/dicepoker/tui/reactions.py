"""Quick reactions from the terminal: the fixed phrases of the web table (no free text), each
on a number key; only the phrase's id travels, every reader sees it in their own language."""

from __future__ import annotations

from typing import ClassVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from dicepoker.protocol import REACTIONS, ReactionId
from dicepoker.tui.i18n import Words


class ReactionScreen(ModalScreen[ReactionId | None]):
    """The reactions, one per number key; a number sends it, Escape closes the list."""

    DEFAULT_CSS = """
    ReactionScreen { align: center middle; }
    ReactionScreen > Vertical {
        width: 40; max-width: 100%; height: auto; padding: 0 2;
        border: round $accent; background: $surface;
    }
    ReactionScreen #react-help { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,g", "pick(-1)", show=False),
        *[Binding(str(n + 1), f"pick({n})", show=False) for n in range(len(REACTIONS))],
    ]

    def __init__(self, words: Words) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.words("Say to the table:"), id="react-title")
            for number, reaction in enumerate(REACTIONS, start=1):
                yield Label(f"{number}  {self.words.reaction(reaction)}")
            yield Label(self.words("A number sends it, Escape closes."), id="react-help")

    def action_pick(self, index: int) -> None:
        chosen = REACTIONS[index] if 0 <= index < len(REACTIONS) else None
        self.dismiss(cast("ReactionId | None", chosen))
