"""The gettext catalogs, read with Babel when first asked for (no compile step).

One folder per language, `locales/{lang}/LC_MESSAGES/{domain}.po`, with two domains:
`messages`, the words the web pages and the terminal share (the game's vocabulary: rows,
variants, levels, options, the sheet), and `tui`, the few phrases only the terminal needs (key
help, the save prompt, short row labels). Message ids are English sentences, except the game's
vocabulary, which has symbolic ids: `row.{variant}.{row_id}`, `variant.{name}`, `level.{name}`,
`option.{name}`, `error.{code}` and `reason.{key}` (why the engine refused a move).

Words that follow a number are plural messages (`msgid_plural`, one `msgstr[i]` per plural form
of the language, in the order of CLDR's categories: one, many, other). The server picks a form
with `ngettext`; the page script gets each form under `{msgid}|{category}` and picks one with
`Intl.PluralRules`, which speaks the same CLDR categories.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

from babel import Locale
from babel.messages.pofile import read_po

from dicepoker.i18n.languages import DEFAULT_LANG, LANGS

LOCALES_DIR: Final = Path(__file__).resolve().parent / "locales"
#: The shared domain; `tui` is the terminal's own.
MESSAGES: Final = "messages"


def catalog_path(lang: str, domain: str = MESSAGES) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def raw_catalog(lang: str, domain: str = MESSAGES) -> dict[str, str]:
    """msgid -> translation as written in the language's .po file (untranslated: empty); an
    empty mapping for a domain the language has no file for."""
    path = catalog_path(lang, domain)
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    return {
        message.id: message.string if isinstance(message.string, str) else ""
        for message in catalog
        if message.id and isinstance(message.id, str)
    }


#: CLDR's plural categories, in the order gettext numbers a language's forms (Babel's order).
PLURAL_ORDER: Final = ("zero", "one", "two", "few", "many", "other")


def plural_categories(lang: str) -> tuple[str, ...]:
    """The plural categories of `lang` in the order of its `msgstr[i]` forms."""
    tags = Locale.parse(lang).plural_form.tags | {"other"}
    return tuple(tag for tag in PLURAL_ORDER if tag in tags)


@cache
def raw_plurals(lang: str, domain: str = MESSAGES) -> dict[str, tuple[str, ...]]:
    """singular msgid -> (msgid_plural, form 0, form 1, ...) of each plural message as written
    (untranslated forms: empty)."""
    path = catalog_path(lang, domain)
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    return {
        message.id[0]: (message.id[1], *(text or "" for text in message.string))
        for message in catalog
        if isinstance(message.id, tuple) and isinstance(message.string, tuple)
    }


def ngettext(lang: str, singular: str, plural: str, n: int) -> str:
    """The form of a plural message for the count `n` in `lang` (English's, then the msgids, as
    fallbacks), its `{n}` not yet filled."""
    for choice in (lang, DEFAULT_LANG):
        forms = raw_plurals(choice).get(singular) if choice in LANGS else None
        if forms:
            category = Locale.parse(choice).plural_form(abs(n))
            order = plural_categories(choice)
            index = order.index(category) if category in order else len(order) - 1
            if index + 1 < len(forms) and forms[index + 1]:
                return forms[index + 1]
    return singular if n == 1 else plural


def _plural_keys(lang: str) -> dict[str, str]:
    """`{msgid}|{category}` -> form, for the page script's `Intl.PluralRules`."""
    keys: dict[str, str] = {}
    order = plural_categories(lang)
    for singular, (plural, *forms) in raw_plurals(lang).items():
        for index, category in enumerate(order):
            text = forms[index] if index < len(forms) else ""
            keys[f"{singular}|{category}"] = text or (singular if category == "one" else plural)
    return keys


def _read_catalog(lang: str) -> dict[str, str]:
    """msgid -> text to show: an empty translation falls back to the (English) msgid."""
    return {msgid: text or msgid for msgid, text in raw_catalog(lang).items()}


CATALOGS: Final[dict[str, dict[str, str]]] = {lang: _read_catalog(lang) for lang in LANGS}


def gettext(lang: str, msgid: str) -> str:
    """The translation of `msgid` in `lang` (English, then the msgid itself, as fallbacks)."""
    catalog = CATALOGS.get(lang, CATALOGS[DEFAULT_LANG])
    text = catalog.get(msgid)
    if text is None:
        text = CATALOGS[DEFAULT_LANG].get(msgid, msgid)
    return text


@cache
def translations(lang: str, domain: str) -> dict[str, str]:
    """msgid -> translation of `domain` in `lang`, the empty translations left out (the caller
    chooses its fallback)."""
    return {msgid: text for msgid, text in raw_catalog(lang, domain).items() if text}


def catalog_json(lang: str) -> dict[str, str]:
    """The whole shared catalog of `lang` for the page script: English fills any gap."""
    if lang not in CATALOGS:
        raise KeyError(lang)
    merged = dict(CATALOGS[DEFAULT_LANG])
    merged.update(CATALOGS[lang])
    merged.update(_plural_keys(lang))
    return merged
