"""The languages the project speaks, and reading a language out of a tag."""

from __future__ import annotations

import re
from typing import Final

LANGS: Final = ("en", "es", "pt")
DEFAULT_LANG: Final = "en"
LANG_NAMES: Final = {"en": "English", "es": "Español", "pt": "Português"}
#: The BCP 47 tag for `<html lang>`: our Portuguese is Brazilian.
HTML_LANG: Final = {"en": "en", "es": "es", "pt": "pt-BR"}

TAG: Final = re.compile(r"^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$")


def lang_of(tag: str | None) -> str | None:
    """`es`, `pt` or `en` for a tag such as `pt-BR`, `es_AR` or `EN`; None otherwise."""
    if not tag:
        return None
    tag = tag.strip()
    if not TAG.match(tag):
        return None
    primary = tag.replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGS else None
