"""Every word in the player's language: plural forms, refusals said as data, bot and site
names, the 404 page, English left in the es/pt pages, the rules written for players, and how
the static files are sent (gzip, versioned URLs kept for ever)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dicepoker import i18n
from dicepoker.rules.variants import VARIANTS
from dicepoker.server.http.caching import IMMUTABLE, SHORT
from dicepoker.site import Settings, create_app
from dicepoker.web import pages
from test_web_i18n import WEB, used_msgids

LANGS = ("en", "es", "pt")
#: Words of the interface in English that a Spanish or Portuguese page must not show.
ENGLISH = {
    "roll",
    "rolls",
    "rules",
    "lobby",
    "player",
    "players",
    "game",
    "games",
    "turn",
    "turns",
    "score",
    "dice",
    "die",
    "open",
    "new",
    "join",
    "watch",
    "import",
    "choose",
    "file",
    "back",
    "next",
    "previous",
    "replay",
    "language",
    "skip",
    "content",
    "the",
    "and",
    "your",
    "you",
    "with",
    "not",
    "page",
    "found",
    "seed",
    "variant",
    "preset",
    "strike",
    "sheet",
    "seat",
    "play",
    "now",
    "first",
    "last",
    "pause",
    "analysis",
    "loading",
    "record",
    "row",
    "rows",
    # the words of the rules pages
    "box",
    "boxes",
    "upper",
    "lower",
    "section",
    "points",
    "kind",
    "bonus",
    "hold",
    "joker",
    "tie",
    "clock",
    "worked",
    "example",
    "category",
    "round",
    "rounds",
    "wins",
}
BAD_RECORD = {
    "variant": "school",
    "players": ["Ana"],
    "turns": [{"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score five_of_a_kind"}],
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = str(tmp_path_factory.mktemp("words") / "games.db")
    with TestClient(create_app(Settings(database=database, bot_delay=0))) as test_client:
        yield test_client


def visible_text(page: str) -> str:
    """The words a reader sees: the body without scripts, tags and the language names."""
    body = page.split("<body", 1)[1].split(">", 1)[1]
    body = re.sub(r"<(script|style|noscript)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r'<nav class="lang-switch".*?</nav>', " ", body, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return html.unescape(body)


def attribute_text(page: str) -> str:
    """The words of labels read out: aria-label, title, placeholder, alt."""
    return " ".join(re.findall(r'(?:aria-label|title|placeholder|alt)="([^"]*)"', page))


# --- catalogs ------------------------------------------------------------------------------


def plural_ids() -> set[str]:
    found: set[str] = set()
    for script in (WEB / "static" / "js").glob("*.js"):
        found |= set(re.findall(r'\btn\(\s*"([^"\\]*)"', script.read_text(encoding="utf-8")))
    return found


def test_every_message_id_used_is_in_every_catalog() -> None:
    used = used_msgids() | {"site.name", "Page not found", "Choose a file", "No file chosen"}
    for lang in LANGS:
        catalog = i18n.raw_catalog(lang)
        missing = sorted(msgid for msgid in used if not catalog.get(msgid))
        assert missing == [], (lang, missing)


def test_plural_messages_have_every_form_of_each_language() -> None:
    used = plural_ids()
    assert {"Roll {n} die", "{n} second left for {name}"} <= used
    for lang in LANGS:
        plurals = i18n.raw_plurals(lang)
        for msgid in used:
            forms = plurals[msgid][1:]
            assert len(forms) == len(i18n.plural_categories(lang)), (lang, msgid)
            assert all(form.strip() for form in forms), (lang, msgid)
            assert all("{n}" in form for form in forms), (lang, msgid)


@pytest.mark.parametrize(
    ("lang", "n", "text"),
    [
        ("en", 1, "Roll {n} die"),
        ("en", 4, "Roll {n} dice"),
        ("es", 1, "Tirar {n} dado"),
        ("es", 2, "Tirar {n} dados"),
        ("pt", 1, "Rolar {n} dado"),
        ("pt", 3, "Rolar {n} dados"),
        ("fr", 1, "Roll {n} die"),
    ],
)
def test_ngettext_picks_the_form_of_the_count(lang: str, n: int, text: str) -> None:
    assert i18n.ngettext(lang, "Roll {n} die", "Roll {n} dice", n) == text


def test_the_page_gets_each_plural_form_under_its_cldr_category() -> None:
    spanish = i18n.catalog_json("es")
    assert spanish["Roll {n} die|one"] == "Tirar {n} dado"
    assert spanish["Roll {n} die|other"] == "Tirar {n} dados"
    assert spanish["Roll {n} die|many"] == "Tirar {n} dados"
    assert "Roll {n} die|many" not in i18n.catalog_json("en")


def test_every_engine_reason_has_words_in_every_language() -> None:
    keys = set(
        re.findall(
            r"`([a-z_]+)`",
            (pages.HERE.parents[2] / "docs" / "api.md")
            .read_text()
            .split("the\nkeys are", 1)[1]
            .split(".", 1)[0],
        )
    )
    assert {"not_made", "reserve_short", "no_die", "row_full"} <= keys
    for lang in LANGS:
        catalog = i18n.raw_catalog(lang)
        assert [key for key in sorted(keys) if not catalog.get(f"reason.{key}")] == [], lang


def test_the_site_is_named_apart_from_every_variant() -> None:
    for lang in LANGS:
        site = i18n.gettext(lang, "site.name")
        names = {i18n.gettext(lang, f"variant.{name}") for name in VARIANTS}
        assert site not in names, lang
        assert len(names) == len(VARIANTS), lang


def test_the_15_round_variant_is_named_alike_in_spanish_and_portuguese() -> None:
    assert i18n.gettext("es", "variant.yahtzee15") == "Yahtzee de 15 rondas"
    assert i18n.gettext("pt", "variant.yahtzee15") == "Yahtzee de 15 rodadas"
    for lang in LANGS:
        title = (
            (pages.RULES_DIR / lang / "yahtzee15.md").read_text(encoding="utf-8").splitlines()[0]
        )
        assert title == f"# {i18n.gettext(lang, 'variant.yahtzee15')}", lang


# --- refusals ------------------------------------------------------------------------------


def test_a_refused_record_says_why_as_data(client: TestClient) -> None:
    response = client.post("/api/records", json=BAD_RECORD)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "bad_record"
    assert error["turn"] == 1
    assert error["reason"] == "not_made_strike"
    assert error["params"] == {"row": "five_of_a_kind", "variant": "school"}
    assert "five_of_a_kind" in error["message"]  # the English message is kept for logs and tools
    spanish = i18n.gettext("es", f"reason.{error['reason']}").format(
        row=i18n.gettext("es", f"row.school.{error['params']['row']}")
    )
    assert spanish == "los dados no forman Repóker (táchala)"


def test_a_reason_without_data_adds_no_fields(client: TestClient) -> None:
    response = client.post("/api/records", json={"variant": "school", "players": "Ana"})
    assert response.status_code == 422
    assert set(response.json()["error"]) == {"code", "message"}


# --- pages ---------------------------------------------------------------------------------

PAGES = (
    "/",
    "/g/abc123",
    "/replay/g/abc123",
    "/replay/r/abc123",
    "/daily",
    "/puzzles",
    "/puzzles/abc123",
    *(f"/rules/{name}" for name in VARIANTS),
    "/no/such/page",
    "/leaderboard",
    "/players/nobody",
)


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("lang", ["es", "pt"])
def test_no_english_words_left_in_spanish_and_portuguese_pages(
    client: TestClient, path: str, lang: str
) -> None:
    page = client.get(path, params={"lang": lang}).text
    words = re.findall(r"[A-Za-z]+", f"{visible_text(page)} {attribute_text(page)}")
    left = sorted({word for word in words if word.lower() in ENGLISH})
    assert left == [], (path, lang, left)


def test_the_english_word_check_finds_english() -> None:
    """The check above is not blind: the English pages fail it."""
    english = {i18n.gettext("en", msgid).lower() for msgid in ("Rules", "Lobby", "Roll")}
    assert english <= ENGLISH


@pytest.mark.parametrize("lang", LANGS)
def test_an_unknown_page_answers_a_page_in_the_visitors_language(
    client: TestClient, lang: str
) -> None:
    response = client.get("/no/such/page", params={"lang": lang})
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert i18n.gettext(lang, "Page not found") in response.text
    assert 'href="/"' in response.text
    assert client.get("/rules/chess", params={"lang": lang}).status_code == 404


def test_the_api_keeps_its_json_404(client: TestClient) -> None:
    response = client.get("/api/no/such/thing")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "no such page"}}
    assert client.get("/static/no-such.js").headers["content-type"].startswith("application/json")


@pytest.mark.parametrize("lang", LANGS)
def test_the_record_picker_is_a_labelled_button_with_the_chosen_name(
    client: TestClient, lang: str
) -> None:
    page = client.get("/", params={"lang": lang}).text
    assert 'class="file-input"' in page
    assert re.search(r'<label for="import-file" class="btn file-button">', page)
    assert i18n.gettext(lang, "Choose a file") in page
    chosen = i18n.gettext(lang, "No file chosen")
    assert f'id="import-file-name" class="file-name" aria-live="polite">{chosen}<' in page


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_pages_are_written_for_players(variant: str, lang: str) -> None:
    text = (pages.RULES_DIR / lang / f"{variant}.md").read_text(encoding="utf-8")
    assert "`" not in text  # no ids, options or commands in code
    for word in ("seed", "semilla", "semente", "variant", "preset", "score LINHA", "score FILA"):
        assert word not in text, (lang, variant, word)
    for heading in ("Where the page", "Donde la página", "Onde a página"):
        assert heading not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_school_rules_have_an_example_per_row_and_a_worked_sheet(lang: str) -> None:
    from dicepoker.rules import get_rules

    text = (pages.RULES_DIR / lang / "school.md").read_text(encoding="utf-8")
    for row in get_rules("school").rows:
        if not row.school:
            label = i18n.gettext(lang, f"row.school.{row.id}")
            assert re.search(rf"^\| {re.escape(label)} \|.*\| [0-9 +=]+ \|$", text, re.M), label
    assert text.count("\n| ") >= 10 + 7  # the rows' table and the worked sheet
    assert i18n.gettext(lang, "reserve") in text.lower()


# --- how the files are sent ----------------------------------------------------------------


def test_pages_load_their_static_files_from_versioned_paths(client: TestClient) -> None:
    page = client.get("/").text
    assert f'src="{pages.STATIC_PREFIX}/js/lobby.js"' in page
    assert re.fullmatch(r"[0-9a-f]{12}", pages.STATIC_VERSION)
    for url in re.findall(r'(?:href|src)="(/static/[^"]+)"', page):
        assert url.startswith(pages.STATIC_PREFIX), url
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == IMMUTABLE


def test_relative_imports_of_a_versioned_script_are_versioned_too(client: TestClient) -> None:
    module = client.get(f"{pages.STATIC_PREFIX}/js/lobby.js")
    assert 'from "./common.js"' in module.text
    common = client.get(f"{pages.STATIC_PREFIX}/js/common.js")
    assert common.status_code == 200 and common.headers["cache-control"] == IMMUTABLE
    assert client.get("/static/js/common.js").headers["cache-control"] == SHORT


def test_text_answers_are_gzipped(client: TestClient) -> None:
    for url in ("/", f"{pages.STATIC_PREFIX}/js/common.js", "/i18n/es.json", "/api/variants"):
        response = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.headers.get("content-encoding") == "gzip", url
    plain = client.get("/", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers


def test_the_catalog_is_kept_for_ever_only_at_this_version(client: TestClient) -> None:
    versioned = client.get("/i18n/pt.json", params={"v": pages.STATIC_VERSION})
    assert versioned.headers["cache-control"] == IMMUTABLE
    assert client.get("/i18n/pt.json", params={"v": "old"}).headers["cache-control"] == SHORT


# --- who moved -----------------------------------------------------------------------------


def test_a_position_says_which_seat_played_each_turn(client: TestClient) -> None:
    record = {
        "variant": "school",
        "players": ["Ana", "Bea"],
        "turns": [
            {"rolls": [{"dice": [4, 4, 4, 4, 2]}], "move": "score fours"},
            {"rolls": [{"dice": [1, 2, 3, 4, 5]}], "move": "score small_straight"},
            {"rolls": [{"dice": [6, 6, 6, 6, 2]}], "move": "score four_of_a_kind"},
        ],
    }
    stored = client.post("/api/records", json=record)
    assert stored.status_code == 201, stored.text
    position = client.get(f"/api/records/{stored.json()['id']}/position", params={"turn": 1})
    assert position.status_code == 200
    assert position.json()["seats"] == [0, 1, 0]
