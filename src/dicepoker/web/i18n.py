"""The web app's words in English, Spanish and (Brazilian) Portuguese.

One gettext catalog per language, `locales/{lang}/LC_MESSAGES/messages.po`, read with Babel when
this module is imported (no compile step). The Jinja2 templates call `_()` and the page script
fetches the same catalog as JSON (`/i18n/{lang}.json`), so both speak with one set of words.

Message ids are English sentences, except the game's own vocabulary, which depends on the preset
and has symbolic ids: `row.{preset}.{row_id}` (a row label), `preset.{name}` (a game's name),
`level.{name}` (a bot level) and `option.{name}` (a preset option).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Final

from babel import negotiate_locale
from babel.messages.pofile import read_po

LANGS: Final = ("en", "es", "pt")
DEFAULT_LANG: Final = "en"
LANG_NAMES: Final = {"en": "English", "es": "Español", "pt": "Português"}
#: The BCP 47 tag for `<html lang>`: our Portuguese is Brazilian.
HTML_LANG: Final = {"en": "en", "es": "es", "pt": "pt-BR"}
LOCALES_DIR: Final = Path(__file__).resolve().parent / "locales"

_TAG = re.compile(r"^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$")


def raw_catalog(lang: str) -> dict[str, str]:
    """msgid -> translation as written in the language's .po file (untranslated: empty)."""
    path = LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    return {
        message.id: message.string if isinstance(message.string, str) else ""
        for message in catalog
        if message.id and isinstance(message.id, str)
    }


def _read_catalog(lang: str) -> dict[str, str]:
    """msgid -> text to show: an empty translation falls back to the (English) msgid."""
    return {msgid: text or msgid for msgid, text in raw_catalog(lang).items()}


CATALOGS: Final[dict[str, dict[str, str]]] = {lang: _read_catalog(lang) for lang in LANGS}


def lang_of(tag: str | None) -> str | None:
    """`es`, `pt` or `en` for a tag such as `pt-BR`, `es_AR` or `EN`; None otherwise."""
    if not tag:
        return None
    tag = tag.strip()
    if not _TAG.match(tag):
        return None
    primary = tag.replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGS else None


def parse_accept_language(header: str | None) -> list[str]:
    """The language tags of an Accept-Language header, most preferred first (q=0 dropped)."""
    if not header:
        return []
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:32]):
        pieces = part.strip().split(";")
        tag = pieces[0].strip()
        if not tag or tag == "*" or not _TAG.match(tag):
            continue
        quality = 1.0
        for param in pieces[1:]:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            weighted.append((-quality, index, tag))
    weighted.sort()
    return [tag for _, _, tag in weighted]


@lru_cache(maxsize=512)
def _from_header(header: str) -> str | None:
    preferred = parse_accept_language(header)
    found = negotiate_locale(preferred, list(LANGS), sep="-")
    if found is None:
        # Babel matches `pt-BR` to `pt`; also take `pt_BR` and odd casing.
        for tag in preferred:
            lang = lang_of(tag)
            if lang is not None:
                return lang
        return None
    return lang_of(found)


def negotiate(accept_language: str | None, cookie: str | None, query: str | None) -> str:
    """The page language: `?lang=` wins, then the `lang` cookie, then the Accept-Language
    header (Babel's negotiation), then English."""
    for choice in (query, cookie):
        lang = lang_of(choice)
        if lang is not None:
            return lang
    if accept_language:
        lang = _from_header(accept_language[:1000])
        if lang is not None:
            return lang
    return DEFAULT_LANG


def gettext(lang: str, msgid: str) -> str:
    """The translation of `msgid` in `lang` (English, then the msgid itself, as fallbacks)."""
    catalog = CATALOGS.get(lang, CATALOGS[DEFAULT_LANG])
    text = catalog.get(msgid)
    if text is None:
        text = CATALOGS[DEFAULT_LANG].get(msgid, msgid)
    return text


def catalog_json(lang: str) -> dict[str, str]:
    """The whole catalog of `lang` for the page script: English fills any gap."""
    if lang not in CATALOGS:
        raise KeyError(lang)
    merged = dict(CATALOGS[DEFAULT_LANG])
    merged.update(CATALOGS[lang])
    return merged
