"""The neutral words package, `dicepoker.i18n`: what both interfaces build on."""

from __future__ import annotations

import ast
from pathlib import Path

from dicepoker import i18n

PACKAGE = Path(i18n.__file__).resolve().parent


def test_the_package_depends_on_no_interface() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found += [
                f"{path.name}: {module}"
                for module in modules
                if module.startswith(("dicepoker.server", "dicepoker.web", "dicepoker.tui"))
            ]
    assert found == []


def test_both_domains_live_in_the_package_for_every_language() -> None:
    for lang in i18n.LANGS:
        for domain in (i18n.MESSAGES, "tui"):
            path = i18n.catalog_path(lang, domain)
            assert path.is_file() and PACKAGE in path.parents, path
    assert i18n.raw_catalog("en", "no-such-domain") == {}
    assert i18n.translations("es", "tui")["key.save"] == "grabar"


def test_lookups_fall_back_to_english_then_to_the_id() -> None:
    assert i18n.gettext("pt", "Players") == "Jogadores"
    assert i18n.gettext("fr", "Players") == i18n.gettext("en", "Players")
    assert i18n.gettext("es", "no such message") == "no such message"
    assert i18n.lang_of("pt_BR") == "pt" and i18n.lang_of("fr-FR") is None
    assert i18n.detect_lang({"LANGUAGE": "de:es"}) == "es"
