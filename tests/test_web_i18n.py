"""The web pages in English, Spanish and Portuguese: catalogs, negotiation, rendering."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.testclient import TestClient

from dicepoker import i18n
from dicepoker.bots import LEVELS
from dicepoker.engine.errors import IllegalActionError
from dicepoker.protocol import CODES
from dicepoker.rules import get_rules
from dicepoker.rules.variants import VARIANTS
from dicepoker.web import pages

WEB = Path(pages.__file__).resolve().parent
LANGS = ("en", "es", "pt")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: Message ids that name a thing (a row, a variant, a refusal, ...) rather than say an English text.
SYMBOLIC = ("row.", "variant.", "level.", "option.", "error.", "reason.", "site.")
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The real app when the server package is there, else an app with just the pages."""
    try:
        from dicepoker.site import Settings, create_app
    except ImportError:
        app = FastAPI()
        app.include_router(pages.router)
        app.mount("/static", StaticFiles(directory=pages.STATIC_DIR), name="static")
        with TestClient(app) as test_client:
            yield test_client
        return
    database = str(tmp_path_factory.mktemp("web") / "games.db")
    with TestClient(create_app(Settings(database=database, bot_delay=0))) as test_client:
        yield test_client


# --- catalogs ------------------------------------------------------------------------------


def used_msgids() -> set[str]:
    """Every literal message id the templates (`_('…')`) and page scripts (`t("…")`) use."""
    found: set[str] = set()
    for template in (WEB / "templates").glob("*.html"):
        text = template.read_text(encoding="utf-8")
        found |= set(re.findall(r"_\(\s*'([^'\\]*)'\s*[,)]", text))
        found |= set(re.findall(r'_\(\s*"([^"\\]*)"\s*[,)]', text))
    for script in (WEB / "static" / "js").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        found |= set(re.findall(r'\bt\(\s*"([^"\\]*)"', text))
    # The section titles of every variant's sheet are message ids of the rules data.
    for name in VARIANTS:
        found |= {title for _section, title in get_rules(name).section_titles}
    return found


def test_every_message_is_translated_in_spanish_and_portuguese() -> None:
    english = i18n.raw_catalog("en")
    assert len(english) > 150
    for lang in ("es", "pt"):
        catalog = i18n.raw_catalog(lang)
        assert set(catalog) == set(english), lang
        empty = [msgid for msgid, text in catalog.items() if not text.strip()]
        assert empty == [], (lang, empty)


def test_symbolic_ids_have_english_text() -> None:
    english = i18n.raw_catalog("en")
    for msgid, text in english.items():
        if msgid.startswith(SYMBOLIC):
            assert text.strip() and text != msgid, msgid


def test_placeholders_survive_translation() -> None:
    english = i18n.raw_catalog("en")
    for lang in LANGS:
        for msgid, text in i18n.raw_catalog(lang).items():
            source = english[msgid] if msgid.startswith(SYMBOLIC) else msgid
            wanted = sorted(PLACEHOLDER.findall(source))
            assert sorted(PLACEHOLDER.findall(text or source)) == wanted, (lang, msgid)


def test_every_text_the_pages_use_is_in_the_catalog() -> None:
    used = used_msgids()
    assert {"Roll", "Game over", "reserve", "strike", "doubled"} <= used
    missing = sorted(used - set(i18n.raw_catalog("en")))
    assert missing == []


#: The refusals of the REST API (the project's error shape, `{"error": {"code", "message"}}`):
#: those the WebSocket never sends, and these.
REST_CODES = {code for code, known in CODES.items() if not known.socket} | {
    "bad_request",
    "bad_options",
    "bad_seats",
    "no_open_seat",
    "seat_taken",
    "not_found",
    "not_finished",
    "bad_record",
    "too_large",
    "rate_limited",
    "internal",
}


def refusal_codes() -> set[str]:
    """The error codes the server sends: those docs/api.md lists for the WebSocket, those of the
    REST API, and those of the engine's refusals."""
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    listed = re.search(r"Codes: (.*?)\. `ref` echoes", text, re.S)
    assert listed, "docs/api.md lists the WebSocket's error codes"
    named = re.sub(r"\([^)]*\)", "", listed.group(1))  # the asides in brackets name no code
    codes = set(re.findall(r"`([a-z_]+)`", named)) | REST_CODES

    def engine(cls: type[IllegalActionError]) -> set[str]:
        return {cls.code}.union(*(engine(sub) for sub in cls.__subclasses__()))

    return codes | engine(IllegalActionError)


def test_every_refusal_has_words_in_every_language() -> None:
    codes = refusal_codes()
    assert {"not_your_turn", "stale", "bad_move", "illegal", "bad_record", "rate_limited"} <= codes
    for lang in LANGS:
        catalog = i18n.raw_catalog(lang)
        missing = sorted(code for code in codes if not catalog.get(f"error.{code}"))
        assert missing == [], (lang, missing)
    # Where the server's own message says why, the text has a place for it.
    english = i18n.raw_catalog("en")
    assert "{reason}" in english["error.bad_record"]
    assert "{reason}" not in english["error.not_your_turn"]


@pytest.mark.parametrize(
    ("lang", "code", "text"),
    [
        ("en", "not_your_turn", "It is not your turn."),
        ("es", "not_your_turn", "No es tu turno."),
        ("pt", "not_your_turn", "Não é a sua vez."),
        ("es", "stale", "La partida ha avanzado: mira de nuevo y vuelve a intentarlo."),
        ("pt", "bad_record", "Não dá para ler esta partida: {reason}"),
    ],
)
def test_refusal_words(lang: str, code: str, text: str) -> None:
    assert i18n.gettext(lang, f"error.{code}") == text


def test_every_row_variant_option_and_bot_level_has_a_label() -> None:
    for lang in LANGS:
        catalog = i18n.raw_catalog(lang)
        for name, variant in VARIANTS.items():
            assert catalog[f"variant.{name}"]
            assert catalog[f"variant.{name}.desc"]
            for spec in variant.options:
                assert catalog[f"option.{spec.name}"], (lang, spec.name)
            for row in get_rules(name).rows:
                assert catalog[f"row.{name}.{row.id}"], (lang, name, row.id)
        for level in LEVELS:
            assert catalog[f"level.{level}"], (lang, level)


@pytest.mark.parametrize(
    ("lang", "msgid", "text"),
    [
        ("es", "row.school.ones", "Escuela 1"),
        ("pt", "row.school.ones", "Escola 1"),
        ("es", "reserve", "reserva"),
        ("pt", "reserve", "reserva"),
        ("es", "row.school.pair", "Pareja"),
        ("pt", "row.school.pair", "Par"),
        ("es", "row.school.three_of_a_kind", "Trío"),
        ("pt", "row.school.three_of_a_kind", "Trinca"),
        ("es", "row.school.two_pairs", "Doble pareja"),
        ("pt", "row.school.two_pairs", "Dois pares"),
        ("es", "row.school.full_house", "Full"),
        ("pt", "row.school.full_house", "Full house"),
        ("es", "row.school.four_of_a_kind", "Póker"),
        ("pt", "row.school.four_of_a_kind", "Quadra"),
        ("es", "row.school.five_of_a_kind", "Repóker"),
        ("pt", "row.school.five_of_a_kind", "Quina"),
        ("es", "row.school.small_straight", "Escalera menor"),
        ("pt", "row.school.small_straight", "Sequência menor"),
        ("es", "row.school.large_straight", "Escalera mayor"),
        ("pt", "row.school.large_straight", "Sequência maior"),
        ("es", "row.school.sum", "Suma"),
        ("pt", "row.school.sum", "Soma"),
        ("es", "strike", "tachar"),
        ("pt", "strike", "riscar"),
        ("pt", "doubled", "de boca"),
        ("es", "School", "Escuela"),
        ("pt", "School", "Escola"),
        ("es", "row.poker-dice.nines", "Nueves"),
        ("es", "row.poker-dice.tens", "Dieces"),
        ("es", "row.poker-dice.jacks", "Jotas"),
        ("es", "row.poker-dice.queens", "Damas"),
        ("es", "row.poker-dice.kings", "Reyes"),
        ("es", "row.poker-dice.aces", "Ases"),
        ("en", "row.yahtzee.chance", "Chance"),
        ("en", "Roll", "Roll"),
    ],
)
def test_the_game_words_of_the_rules_pages(lang: str, msgid: str, text: str) -> None:
    assert i18n.gettext(lang, msgid) == text


def test_gettext_falls_back_to_english_then_to_the_msgid() -> None:
    assert i18n.gettext("es", "Roll") == "Tirar"
    assert i18n.gettext("pt", "Roll") == "Rolar"
    assert i18n.gettext("fr", "Roll") == "Roll"
    assert i18n.gettext("es", "no such message") == "no such message"


def test_catalog_json_is_complete_for_each_language() -> None:
    def words(catalog: dict[str, str]) -> set[str]:
        return {key for key in catalog if "|" not in key}  # plural forms: per language

    english = i18n.catalog_json("en")
    for lang in LANGS:
        catalog = i18n.catalog_json(lang)
        assert words(catalog) == words(english)
        assert {key for key in catalog if "|" in key} == {
            f"{msgid}|{category}"
            for msgid in i18n.raw_plurals("en")
            for category in i18n.plural_categories(lang)
        }
        assert all(isinstance(value, str) and value for value in catalog.values())
    with pytest.raises(KeyError):
        i18n.catalog_json("fr")


# --- negotiation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "cookie", "query", "expected"),
    [
        (None, None, None, "en"),
        ("", "", "", "en"),
        ("es-ES,es;q=0.9,en;q=0.8", None, None, "es"),
        ("es-AR", None, None, "es"),
        ("pt-BR,pt;q=0.9", None, None, "pt"),
        ("pt_BR", None, None, "pt"),
        ("fr-FR,fr;q=0.9,pt;q=0.5,es;q=0.4", None, None, "pt"),
        ("en;q=0.3,es;q=0.7", None, None, "es"),
        ("es;q=0", None, None, "en"),
        ("de-DE,fr;q=0.8", None, None, "en"),
        ("*", None, None, "en"),
        ("es-ES", "pt", None, "pt"),
        ("es-ES", "pt", "en", "en"),
        (None, None, "pt-BR", "pt"),
        ("pt-BR", "xx", None, "pt"),
        ("pt-BR", None, "klingon", "pt"),
        ("garbage;;;q=abc,,", None, None, "en"),
    ],
)
def test_negotiate(
    accept: str | None, cookie: str | None, query: str | None, expected: str
) -> None:
    assert i18n.negotiate(accept, cookie, query) == expected


def test_parse_accept_language_orders_by_quality() -> None:
    assert i18n.parse_accept_language("en;q=0.2, pt-BR, es;q=0.5") == ["pt-BR", "es", "en"]


# --- pages ---------------------------------------------------------------------------------

PAGES = ("/", "/g/abc123", "/replay/g/abc123", "/replay/r/abc123", "/rules/school", "/daily")
WORDS = {
    "/": {"en": "New game", "es": "Nueva partida", "pt": "Nova partida"},
    "/g/abc123": {"en": "Roll", "es": "Tirar", "pt": "Rolar"},
    "/replay/g/abc123": {"en": "Next turn", "es": "Turno siguiente", "pt": "Próxima vez"},
    "/replay/r/abc123": {"en": "Previous step", "es": "Paso anterior", "pt": "Passo anterior"},
    "/rules/school": {"en": "Small straight", "es": "Escalera menor", "pt": "Sequência menor"},
    "/daily": {"en": "Leaderboard", "es": "Clasificación", "pt": "Classificação"},
    "/leaderboard": {"en": "Leaderboard", "es": "Clasificación", "pt": "Classificação"},
}
HTML_LANG = {"en": "en", "es": "es", "pt": "pt-BR"}


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("lang", LANGS)
def test_pages_render_in_each_language(client: TestClient, path: str, lang: str) -> None:
    response = client.get(path, params={"lang": lang})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert f'<html lang="{HTML_LANG[lang]}"' in html
    assert WORDS[path][lang] in html
    for code in LANGS:  # the language switcher
        assert f'href="{path}?lang={code}"' in html
    assert response.cookies.get("lang") == lang
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


def test_language_from_cookie_and_header(client: TestClient) -> None:
    client.cookies.clear()
    spanish = client.get("/", headers={"Accept-Language": "es-MX,es;q=0.9"})
    assert '<html lang="es"' in spanish.text
    assert "lang" not in spanish.cookies
    client.cookies.set("lang", "pt")
    try:
        portuguese = client.get("/", headers={"Accept-Language": "es-MX"})
        assert '<html lang="pt-BR"' in portuguese.text
        english = client.get("/?lang=en", headers={"Accept-Language": "es-MX"})
        assert '<html lang="en"' in english.text
    finally:
        client.cookies.clear()


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("lang", LANGS)
def test_rules_pages(client: TestClient, variant: str, lang: str) -> None:
    response = client.get(f"/rules/{variant}", params={"lang": lang})
    assert response.status_code == 200
    assert "<table>" in response.text
    source = (pages.RULES_DIR / lang / f"{variant}.md").read_text(encoding="utf-8")
    title = source.splitlines()[0].lstrip("# ").split(" (")[0]
    assert title in response.text


def test_rules_link_resolves() -> None:
    link = WEB / "rules"
    assert link.is_symlink()
    assert not Path(str(link.readlink())).is_absolute()
    for lang in LANGS:
        for variant in VARIANTS:
            assert (pages.RULES_DIR / lang / f"{variant}.md").is_file()


def test_unknown_pages_are_404(client: TestClient) -> None:
    assert client.get("/rules/chess").status_code == 404
    assert client.get("/replay/x/abc").status_code == 404
    assert client.get("/g/<script>").status_code == 404
    assert client.get("/i18n/fr.json").status_code == 404


def test_catalog_endpoint(client: TestClient) -> None:
    for lang in LANGS:
        response = client.get(f"/i18n/{lang}.json")
        assert response.status_code == 200
        assert response.json() == i18n.catalog_json(lang)
    assert client.get("/i18n/es.json").json()["row.school.five_of_a_kind"] == "Repóker"


def test_static_files_are_served_and_scripts_import_only_local_modules(
    client: TestClient,
) -> None:
    scripts = sorted((WEB / "static" / "js").glob("*.js"))
    assert {path.name for path in scripts} >= {"lobby.js", "table.js", "replay.js", "rules.js"}
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        # (a JSDoc `@import` of types is no import: the browser never loads it)
        for target in re.findall(r'^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"', text, re.M):
            assert target.startswith("./"), (path.name, target)
            assert (path.parent / target).is_file(), (path.name, target)
        assert "innerHTML = " not in text.replace("svg.innerHTML = '<rect", "")
        assert client.get(f"/static/js/{path.name}").status_code == 200
    sheets = sorted((WEB / "static" / "css").glob("*.css"))
    assert len(sheets) > 1
    base = (WEB / "templates" / "base.html").read_text(encoding="utf-8")
    for path in sheets:
        assert f'"{path.stem}"' in base, path.name  # base.html links every stylesheet
        response = client.get(f"/static/css/{path.name}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/css")
    for tag in re.findall(r'<link rel="stylesheet" href="([^"?]+)', client.get("/").text):
        assert client.get(tag).status_code == 200, tag


def test_templates_escape_what_they_are_given() -> None:
    template = pages.templates.from_string("{{ name }}")
    assert template.render(name="<b>Ana</b>") == "&lt;b&gt;Ana&lt;/b&gt;"
    for name in ("base.html", "lobby.html", "table.html", "replay.html", "rules.html"):
        source = (WEB / "templates" / name).read_text(encoding="utf-8")
        unsafe = [line for line in source.splitlines() if "|safe" in line]
        assert unsafe == ([] if name != "rules.html" else ["{{ content|safe }}"]), name
