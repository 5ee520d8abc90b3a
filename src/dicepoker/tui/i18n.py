"""The terminal client's words in English, Spanish and (Brazilian) Portuguese.

The game's own vocabulary (row labels, preset and level names, the sheet's words) comes from the
web app's gettext catalogs through `dicepoker.web.i18n.gettext`, so the terminal and the browser
speak with one set of words. The few phrases only a terminal needs (key help, the save prompt)
live in this package's own small catalogs, `locales/{lang}/LC_MESSAGES/tui.po`, read the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Final

from babel.messages.pofile import read_po

from dicepoker.web.i18n import DEFAULT_LANG, LANG_NAMES, LANGS, gettext, lang_of

LOCALES_DIR: Final = Path(__file__).resolve().parent / "locales"

__all__ = [
    "LANGS",
    "LANG_NAMES",
    "Words",
    "detect_lang",
    "lang_of",
    "next_lang",
    "tui_catalog",
]


@cache
def tui_catalog(lang: str) -> dict[str, str]:
    """msgid -> translation of this package's catalog for `lang` (empty translations dropped)."""
    path = LOCALES_DIR / lang / "LC_MESSAGES" / "tui.po"
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    return {
        message.id: message.string
        for message in catalog
        if isinstance(message.id, str)
        and message.id
        and isinstance(message.string, str)
        and message.string
    }


def detect_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language of the user's locale (LC_ALL, LC_MESSAGES, LANG, LANGUAGE), else English."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name, "")
        for tag in value.split(":"):
            lang = lang_of(tag.split(".", 1)[0].split("@", 1)[0])
            if lang is not None:
                return lang
    return DEFAULT_LANG


def next_lang(lang: str) -> str:
    """The language after `lang` in the order the L key cycles through: es, pt, en."""
    order = ("es", "pt", "en")
    return order[(order.index(lang) + 1) % len(order)] if lang in order else order[0]


class Words:
    """Translations for one language: `words("Roll {n} dice", n=3)`."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else DEFAULT_LANG

    def __call__(self, msgid: str, **params: object) -> str:
        text = tui_catalog(self.lang).get(msgid) or gettext(self.lang, msgid)
        return text.format(**params) if params else text

    def row(self, preset: str, row_id: str) -> str:
        """A row's label as the web sheet writes it (`row.school.pair` -> Pair, Pareja, Par)."""
        msgid = f"row.{preset}.{row_id}"
        text = gettext(self.lang, msgid)
        return row_id.replace("_", " ").capitalize() if text == msgid else text

    def short_row(self, preset: str, row_id: str, width: int) -> str:
        """A row's label in at most `width` characters: the label, else its short form from this
        package's catalog (`short.{row_id}`), else the label cut with an ellipsis."""
        label = self.row(preset, row_id)
        if len(label) <= width:
            return label
        short = tui_catalog(self.lang).get(f"short.{row_id}") or tui_catalog(DEFAULT_LANG).get(
            f"short.{row_id}"
        )
        if short and len(short) <= width:
            return short
        return label[: max(1, width - 1)] + "…"

    def preset(self, name: str) -> str:
        msgid = f"preset.{name}"
        text = gettext(self.lang, msgid)
        return name if text == msgid else text

    def level(self, name: str) -> str:
        msgid = f"level.{name}"
        text = gettext(self.lang, msgid)
        return name.capitalize() if text == msgid else text

    def option(self, name: str) -> str:
        msgid = f"option.{name}"
        text = gettext(self.lang, msgid)
        return name.replace("_", " ") if text == msgid else text
