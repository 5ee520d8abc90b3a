"""The words pages in a real browser: the rules page, the 404 page and the record picker in
every language and at desktop and phone sizes (screenshots under test-artifacts/words/), a
refused import said in the page's language, and the replay log naming who moved; a School
row's closing named for what the reserve gains, and one finished game's chip in the singular."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_support import Api, OpenPerson, artifacts_dir, people, screenshot, with_tokens
from dicepoker import i18n
from live_server import LiveServer

open_person = pytest.fixture(people, name="open_person")

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 667}}
BAD_RECORD = {
    "variant": "school",
    "players": ["Ana"],
    "turns": [
        {"rolls": [{"dice": [4, 4, 4, 4, 2]}], "move": "score fours"},
        {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score five_of_a_kind"},
    ],
}


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_rules_404_and_picker_pages(
    server: LiveServer, open_person: OpenPerson, tmp_path: Path, lang: str, size: str
) -> None:
    (artifacts_dir() / "words").mkdir(exist_ok=True)
    person = open_person(viewport=SIZES[size], locale=i18n.HTML_LANG[lang])
    page = person.page
    words = {msgid: i18n.gettext(lang, msgid) for msgid in ("Page not found", "No file chosen")}

    page.goto(f"{server.url}/rules/school?lang={lang}")
    expect(page.locator(".rules-doc h1")).to_have_text(i18n.gettext(lang, "variant.school"))
    expect(page.locator(".rules-doc table").first).to_be_visible()
    assert no_sideways_scroll(page)
    screenshot(page, f"words/rules-{lang}-{size}")

    missing = page.goto(f"{server.url}/no/such/page?lang={lang}")
    assert missing is not None and missing.status == 404
    expect(page.get_by_role("heading", name=words["Page not found"])).to_be_visible()
    expect(page.get_by_role("link", name=i18n.gettext(lang, "Go to the lobby"))).to_be_visible()
    screenshot(page, f"words/404-{lang}-{size}")

    page.goto(f"{server.url}/?lang={lang}")
    name = page.locator("#import-file-name")
    expect(name).to_have_text(words["No file chosen"])
    button = page.locator("label.file-button")
    expect(button).to_be_visible()
    expect(button).to_contain_text(i18n.gettext(lang, "Choose a file"))
    box = page.locator("#import-file").bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1  # the native one, hidden
    record = tmp_path / "partida-de-ana.json"
    record.write_text(json.dumps(BAD_RECORD), encoding="utf-8")
    page.locator("#import-file").set_input_files(str(record))
    expect(name).to_have_text("partida-de-ana.json")
    page.locator(".import-card").scroll_into_view_if_needed()
    page.get_by_role("button", name=i18n.gettext(lang, "Open in the viewer")).click()
    error = page.locator("#import-error")
    row = i18n.gettext(lang, "row.school.five_of_a_kind")
    expect(error).to_contain_text(row)
    expect(error).to_contain_text(re.compile(r"\b2\b"))
    if lang != "en":
        assert "five_of_a_kind" not in error.inner_text()
        assert "the dice" not in error.inner_text()
    shot = artifacts_dir() / "words" / f"import-{lang}-{size}.png"
    page.locator(".import-card").screenshot(path=str(shot))
    assert shot.stat().st_size > 0


def test_the_replay_log_names_who_moved(server: LiveServer, open_person: OpenPerson) -> None:
    import httpx

    record = {
        "variant": "school",
        "players": ["Ana", "Greedy 2"],
        "turns": [
            {"rolls": [{"dice": [4, 4, 4, 4, 2]}], "move": "score fours"},
            {"rolls": [{"dice": [1, 2, 3, 4, 5]}], "move": "score small_straight"},
        ],
    }
    stored = httpx.post(f"{server.url}/api/records", json=record, timeout=10)
    assert stored.status_code == 201
    page = open_person().page
    page.goto(f"{server.url}{stored.json()['url']}?lang=es")
    who = page.locator("#replay-log .log-who")
    expect(who).to_have_count(2)
    expect(who.nth(0)).to_have_text("Ana")
    expect(who.nth(1)).to_have_text("Codicioso 2")  # a bot's default name, in the page's words


def test_a_school_closing_is_named_for_what_the_reserve_gains(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    """A screen reader hears closing a School row as the reserve's change ("close: the reserve
    +6"), never as the row's "score 0" (a School row holds no points of its own). A row can be
    closed once three dice show its face (the reserve is empty at first): the dice are rolled,
    in new games if need be, until one can."""
    person = open_person()
    page = person.page
    closings = page.locator("#main-sheet tbody.section-upper button.move-score")
    for _ in range(15):
        seats = [{"kind": "human", "name": "Sol"}]
        response = api.post(
            "/api/games", {"variant": "school", "options": {"columns": 1}, "seats": seats}
        )
        assert response.status_code == 201, response.text
        game = response.json()
        with_tokens(person, game, 0)
        page.goto(f"{server.url}/g/{game['id']}")
        for left in (2, 1, 0):
            page.locator("#roll-button").click()
            expect(page.locator("#rolls-left")).to_have_text(f"Rolls left: {left}")
            expect(page.locator("#main-sheet td.legal").first).to_be_visible()
            if closings.count():
                break
        if closings.count():
            break
    labels = closings.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert labels, "no School row could be closed in 15 games of three rolls"
    for label in labels:
        assert re.search(r": close: the reserve (stays|[+−]\d+)$", label), label
        assert "score" not in label, label
    person.assert_clean()


@pytest.mark.parametrize(
    ("lang", "word"), [("en", "Finished"), ("es", "Terminada"), ("pt", "Terminada")]
)
def test_one_finished_game_is_said_in_the_singular(
    server: LiveServer, api: Api, open_person: OpenPerson, lang: str, word: str
) -> None:
    seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}]
    response = api.post("/api/games", {"variant": "yahtzee", "options": {}, "seats": seats})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    api.wait_for_game(game_id, lambda g: g["status"] == "finished", timeout=60.0)
    person = open_person()
    person.page.goto(f"{server.url}/g/{game_id}?lang={lang}")
    expect(person.page.locator("#status-chip")).to_have_text(word)
    person.assert_clean()
