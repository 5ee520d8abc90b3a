"""Which language to speak: for a web request (query, cookie, Accept-Language) or for the user
at a terminal (the locale's environment variables)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache

from babel import negotiate_locale

from dicepoker.i18n.languages import DEFAULT_LANG, LANGS, TAG, lang_of


def parse_accept_language(header: str | None) -> list[str]:
    """The language tags of an Accept-Language header, most preferred first (q=0 dropped)."""
    if not header:
        return []
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:32]):
        pieces = part.strip().split(";")
        tag = pieces[0].strip()
        if not tag or tag == "*" or not TAG.match(tag):
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
