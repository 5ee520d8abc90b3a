"""Saving a game: the dialog that asks for the file (`SaveScreen`) and writing the record."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from dicepoker.tui.i18n import Words


def default_record_path(folder: Path, view: Mapping[str, Any] | None) -> Path:
    """`folder/dicepoker-<variant>-<time>.json`: the name the dialog offers."""
    variant = str(view["rules"]["variant"]) if view else "game"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return folder / f"dicepoker-{variant}-{stamp}.json"


def write_record(record: Mapping[str, Any], path: Path) -> None:
    """Write `record` as JSON to `path` (its folder made if missing); `OSError` if it cannot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class SaveScreen(ModalScreen[str | None]):
    """Asks where to write the record; Enter saves, Escape cancels."""

    DEFAULT_CSS = """
    SaveScreen { align: center middle; }
    SaveScreen > Vertical {
        width: 70; max-width: 100%; height: auto; padding: 1 2;
        border: round $accent; background: $surface;
    }
    SaveScreen Input { margin: 1 0 0 0; }
    SaveScreen #save-help { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, words: Words, default: str) -> None:
        super().__init__()
        self.words = words
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.words("Save the game as:"), id="save-title")
            yield Input(self.default, id="save-path", compact=True)
            yield Label(self.words("Enter saves, Escape cancels."), id="save-help")

    @on(Input.Submitted, "#save-path")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
