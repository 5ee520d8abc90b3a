"""Every phrase the terminal shows is in its catalogs for Spanish and Portuguese: the msgids its
code passes to its words function (`words("...")`, `self.words(...)`, `table.words(...)`), says
in the status line (`say("...")`) or sends as a session's notice (`Update("notice", "...")`),
each with a translation in the terminal's catalog (`tui`) or the shared one (`messages`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dicepoker.i18n import translations
from dicepoker.tui.i18n import TUI_DOMAIN

TUI = Path(__file__).resolve().parents[1] / "src" / "dicepoker" / "tui"
#: The callables whose first argument is a msgid.
SAYERS = {"words", "say"}


def _callee(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def shown_msgids() -> dict[str, str]:
    """msgid -> where it is shown (file:line), for every phrase of the terminal's code."""
    found: dict[str, str] = {}
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            callee = _callee(node)
            args = node.args
            if callee == "Update" and len(args) > 1:
                args = args[1:]
            elif callee not in SAYERS:
                continue
            first = args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.setdefault(first.value, f"{path.relative_to(TUI)}:{node.lineno}")
    return found


def test_the_collector_finds_the_terminal_phrases() -> None:
    msgids = shown_msgids()
    # Phrases of each way of showing words: the keys, the status line, a notice, the hints.
    for msgid in ("key.language", "R rolls the dice.", "Connected again.", "Hints"):
        assert msgid in msgids, msgid
    assert len(msgids) > 60


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_every_phrase_the_terminal_shows_is_translated(lang: str) -> None:
    catalog = {**translations(lang, "messages"), **translations(lang, TUI_DOMAIN)}
    missing = {
        msgid: where
        for msgid, where in shown_msgids().items()
        if not catalog.get(msgid, "").strip()
    }
    assert not missing, f"untranslated in {lang}: {missing}"
