"""The project's words in English, Spanish and (Brazilian) Portuguese, for every interface.

The web pages (Jinja2's `_()` and the page script's `/i18n/{lang}.json`) and the terminal client
read the same gettext catalogs (`locales/{lang}/LC_MESSAGES/messages.po`, see `catalogs`), so
they speak with one set of words; the terminal adds its own few phrases (domain `tui`). This
package depends on nothing of the server, the web app or the terminal.
"""

from dicepoker.i18n.catalogs import (
    CATALOGS,
    LOCALES_DIR,
    MESSAGES,
    catalog_json,
    catalog_path,
    gettext,
    ngettext,
    plural_categories,
    raw_catalog,
    raw_plurals,
    translations,
)
from dicepoker.i18n.languages import DEFAULT_LANG, HTML_LANG, LANG_NAMES, LANGS, lang_of
from dicepoker.i18n.negotiation import detect_lang, negotiate, parse_accept_language

__all__ = [
    "CATALOGS",
    "DEFAULT_LANG",
    "HTML_LANG",
    "LANGS",
    "LANG_NAMES",
    "LOCALES_DIR",
    "MESSAGES",
    "catalog_json",
    "catalog_path",
    "detect_lang",
    "gettext",
    "lang_of",
    "negotiate",
    "ngettext",
    "parse_accept_language",
    "plural_categories",
    "raw_catalog",
    "raw_plurals",
    "translations",
]
