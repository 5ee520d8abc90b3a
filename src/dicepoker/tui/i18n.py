"""The terminal client's words in English, Spanish and (Brazilian) Portuguese.

The game's own vocabulary (row labels, variant and level names, the sheet's words) comes from the
shared catalogs of `dicepoker.i18n` (domain `messages`, the ones the web pages read), so the
terminal and the browser speak with one set of words. The few phrases only a terminal needs (key
help, the save prompt, short row labels) are the catalogs' domain `tui`, read the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from dicepoker.bots import LEVELS
from dicepoker.engine.actions import KEEP_WORDS
from dicepoker.i18n import (
    DEFAULT_LANG,
    LANG_NAMES,
    LANGS,
    detect_lang,
    gettext,
    lang_of,
    translations,
)

#: The catalogs' domain of the terminal's own phrases.
TUI_DOMAIN: Final = "tui"
#: The order the L key cycles through.
LANG_CYCLE: Final = ("es", "pt", "en")

__all__ = [
    "LANGS",
    "LANG_NAMES",
    "Words",
    "action_words",
    "detect_lang",
    "lang_of",
    "next_lang",
    "tui_catalog",
]


def tui_catalog(lang: str) -> dict[str, str]:
    """msgid -> translation of the terminal's own catalog for `lang` (empty ones dropped)."""
    return translations(lang, TUI_DOMAIN)


def next_lang(lang: str) -> str:
    """The language after `lang` in the order the L key cycles through: es, pt, en."""
    order = LANG_CYCLE
    return order[(order.index(lang) + 1) % len(order)] if lang in order else order[0]


#: A bot's name as a server gives it: its level, capitalised, and its seat's number.
_LEVEL_NAME: Final = re.compile(r"([A-Z][a-z]+) (\d+)")


class Words:
    """Translations for one language: `words("Roll {n} dice", n=3)`. Two `Words` of the same
    language are equal (the table's state compares them to know whether to redraw)."""

    __slots__ = ("lang",)

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else DEFAULT_LANG

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and other.lang == self.lang

    def __hash__(self) -> int:
        return hash(self.lang)

    def __repr__(self) -> str:
        return f"Words({self.lang!r})"

    def __call__(self, msgid: str, **params: object) -> str:
        text = tui_catalog(self.lang).get(msgid) or gettext(self.lang, msgid)
        return text.format(**params) if params else text

    def reaction(self, reaction: str) -> str:
        """A quick reaction's words, the web table's (`reaction.good_game` -> Good game)."""
        msgid = f"reaction.{reaction}"
        text = gettext(self.lang, msgid)
        return reaction.replace("_", " ").capitalize() if text == msgid else text

    def row(self, variant: str, row_id: str) -> str:
        """A row's label as the web sheet writes it (`row.school.pair` -> Pair, Pareja, Par)."""
        msgid = f"row.{variant}.{row_id}"
        text = gettext(self.lang, msgid)
        return row_id.replace("_", " ").capitalize() if text == msgid else text

    def short_row(self, variant: str, row_id: str, width: int) -> str:
        """A row's label in at most `width` characters: the label, else its short form from the
        terminal's catalog (`short.{row_id}`), else the label cut with an ellipsis."""
        label = self.row(variant, row_id)
        if len(label) <= width:
            return label
        short = tui_catalog(self.lang).get(f"short.{row_id}") or tui_catalog(DEFAULT_LANG).get(
            f"short.{row_id}"
        )
        if short and len(short) <= width:
            return short
        return label[: max(1, width - 1)] + "…"

    def variant(self, name: str) -> str:
        msgid = f"variant.{name}"
        text = gettext(self.lang, msgid)
        return name if text == msgid else text

    def level(self, name: str) -> str:
        msgid = f"level.{name}"
        text = gettext(self.lang, msgid)
        return name.capitalize() if text == msgid else text

    def person_name(self, number: int) -> str:
        """An unnamed person's name at the table: `Player 2`, `Jugador 2`."""
        return self("Player {n}", n=number)

    def bot_name(self, level: str, number: int) -> str:
        """An unnamed bot's name at the table, its level in these words: `Codicioso 2`."""
        return self("{level} {n}", level=self.level(level), n=number)

    def shown_name(self, name: str) -> str:
        """A seat's name as the table says it: a bot a server named after its level (`Greedy
        2`) in these words (`Codicioso 2`), as the web pages say it; any other name as it is."""
        found = _LEVEL_NAME.fullmatch(name)
        if found is None or found[1].lower() not in LEVELS:
            return name
        return self.bot_name(found[1].lower(), int(found[2]))

    def option(self, name: str) -> str:
        msgid = f"option.{name}"
        text = gettext(self.lang, msgid)
        return name.replace("_", " ") if text == msgid else text


def action_words(words: Words, view: Mapping[str, Any], action: str) -> str:
    """An action in the player's words: `score pair` -> `score Pair`, `keep 0 1` -> `hold 1 2`."""
    variant = str(view["rules"]["variant"])
    verb, _, rest = action.partition(" ")
    if verb == "roll":
        return words("roll")
    if verb in KEEP_WORDS:
        return f"{words('hold')} " + " ".join(str(int(p) + 1) for p in rest.split())
    if verb == "score":
        return words("score {row}", row=words.row(variant, rest))
    if verb == "strike":
        return words("strike {row}", row=words.row(variant, rest))
    if verb == "zero":
        return words("zero in {row}", row=words.row(variant, rest))
    return action
