"""The web pages in a real browser (Chromium through Playwright): the three languages, a phone,
a name that looks like markup (and the Content-Security-Policy), and the replay viewer.

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a browser context per
person, the server's own answers as the reference.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_support import (
    GOLDEN,
    WORDS,
    Api,
    OpenPerson,
    Person,
    Seat,
    TurnPlayer,
    box_of,
    create_in_lobby,
    end_screen,
    number,
    people,
    screenshot,
    shown_dice,
    shown_totals,
    totals,
    urlpath,
)
from dicepoker.record import replay
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")
XSS = "<script>alert(1)</script>"
#: Records every Content-Security-Policy violation of a page in window.__csp.
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


# --- 5. languages ----------------------------------------------------------------------------


def check_lobby_language(page: Page, lang: str) -> None:
    words = WORDS[lang]
    expect(page.locator("html")).to_have_attribute("lang", words["html_lang"])
    expect(page.get_by_role("heading", name=words["new_game"])).to_be_visible()
    school = page.get_by_role("radio", name=re.compile("^" + re.escape(words["school"])))
    expect(school).to_be_visible()
    expect(page.get_by_role("link", name=words["lobby"], exact=True)).to_be_visible()
    current = page.locator(".lang-switch a[aria-current=true]")
    expect(current).to_have_attribute("hreflang", lang)


def check_table_language(page: Page, lang: str) -> None:
    words = WORDS[lang]
    expect(page.locator("html")).to_have_attribute("lang", words["html_lang"])
    expect(page.locator("#status-chip")).to_have_text(words["playing"])
    expect(page.locator("#main-sheet .row-label").first).to_have_text(words["ones"])
    expect(page.locator("#roll-button")).to_have_text(words["roll"])


def roll_and_hold_in(page: Page, lang: str) -> None:
    """Roll and hold die 1; the controls speak `lang`."""
    words = WORDS[lang]
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text(words["rolls_left"].format(n=2))
    page.locator("#dice button.die").first.click()
    expect(page.locator("#roll-button")).to_have_text(words["roll_n"].format(n=4))


def check_hold_kept_in(page: Page, lang: str) -> None:
    """A page opened again mid-turn shows the turn as it was: two rolls left, die 1 held."""
    words = WORDS[lang]
    expect(page.locator("#rolls-left")).to_have_text(words["rolls_left"].format(n=2))
    expect(page.locator("#dice button.die").first).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#roll-button")).to_have_text(words["roll_n"].format(n=4))


def test_language_switch_and_accept_language(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person(locale="en-US")
    page = person.page
    page.goto(server.url + "/")
    check_lobby_language(page, "en")

    page.get_by_role("link", name="Español").click()
    check_lobby_language(page, "es")
    expect(page).to_have_url(server.url + "/")  # ?lang= is tidied away
    game_id = create_in_lobby(
        page, server.url, [Seat("human", "Gil"), Seat("human", "Hana")], lang="es"
    )
    check_table_language(page, "es")
    roll_and_hold_in(page, "es")
    # The hold has reached the server (it is the turn's, kept for a page opened again).
    api.wait_for_game(game_id, lambda game: game["state"]["turn"].get("held") == [0])
    screenshot(page, "lang-table-es")

    page.get_by_role("link", name="Português").click()
    expect(page).to_have_url(re.compile(rf"/g/{game_id}$"))
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    expect(page.locator("#main-sheet .row-label").first).to_have_text("Escola 1")
    check_hold_kept_in(page, "pt")
    screenshot(page, "lang-table-pt")
    page.get_by_role("link", name="Salão", exact=True).click()
    check_lobby_language(page, "pt")  # the choice is remembered

    page.get_by_role("link", name="English").click()
    check_lobby_language(page, "en")
    page.goto(f"{server.url}/g/{game_id}")
    expect(page.locator("#main-sheet .row-label").first).to_have_text("School 1")
    check_hold_kept_in(page, "en")

    # A new visitor: the browser's language decides (Accept-Language).
    for locale, lang in (("es-ES", "es"), ("pt-BR", "pt")):
        visitor = open_person(locale=locale)
        visitor.page.goto(server.url + "/")
        check_lobby_language(visitor.page, lang)
        create_in_lobby(
            visitor.page, server.url, [Seat("human", "Ines"), Seat("human", "Joao")], lang=lang
        )
        check_table_language(visitor.page, lang)
        roll_and_hold_in(visitor.page, lang)
        visitor.assert_clean()
    person.assert_clean()


# --- 6. a phone ---------------------------------------------------------------------------------


def assert_no_horizontal_overflow(page: Page, width: int = 375) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert isinstance(scroll_width, int)
    wide = page.evaluate(
        """w => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > w + 1)
            .slice(0, 5).map(e => `${e.tagName}#${e.id}.${e.className}`)""",
        width,
    )
    assert scroll_width <= width + 1, f"the page is {scroll_width}px wide on a {width}px: {wide}"


def test_phone_sized_table(server: LiveServer, api: Api, open_person: OpenPerson) -> None:
    person = open_person(
        viewport={"width": 375, "height": 667},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page = person.page
    page.goto(server.url + "/")
    assert_no_horizontal_overflow(page)
    game_id = create_in_lobby(page, server.url, [Seat("human", "Kai"), Seat("bot", "greedy")])
    expect(page.locator("#roll-button")).to_be_enabled()
    assert_no_horizontal_overflow(page)
    screenshot(page, "phone-table-start", full_page=False)

    players = TurnPlayer(api, game_id, touch=True)
    players.play(page, "Kai", rolls=2)
    assert_no_horizontal_overflow(page)

    # A turn step by step: the controls and a highlighted cell can be reached and tapped.
    players.expect_my_turn(page, "Kai")
    button = page.locator("#roll-button")
    button.scroll_into_view_if_needed()
    expect(button).to_be_in_viewport()
    button.tap()
    # A phone shows the rolls left as lit pips only.
    expect(page.locator("#rolls-left .rp.on")).to_have_count(2)
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    first_die = page.locator("#dice button.die").first
    expect(first_die).to_be_in_viewport()
    first_die.tap()
    expect(first_die).to_have_attribute("aria-pressed", "true")
    assert_no_horizontal_overflow(page)
    screenshot(page, "phone-table-rolled", full_page=False)
    # The last highlighted cell's main button (the small strike beside a score is narrower).
    cell = page.locator("#main-sheet td.legal button.move:not(.side)").last
    cell.scroll_into_view_if_needed()
    expect(cell).to_be_in_viewport()
    box = box_of(cell)
    assert box is not None and box["width"] >= 24 and box["height"] >= 24, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375 + 1, box
    action = cell.get_attribute("data-action")
    seq = api.game(game_id)["seq"]
    cell.tap()
    if (action or "").split()[0] in ("zero", "strike"):  # asked twice: the first tap arms it
        expect(cell).to_have_class(re.compile(r"\barmed\b"))
        assert api.game(game_id)["seq"] == seq
        cell.tap()
    api.wait_for_game(game_id, lambda g: g["seq"] > seq)
    record = api.record(game_id)
    assert [t["move"] for t in record["turns"] if "move" in t][2] == action
    players.expect_my_turn(page, "Kai")
    assert_no_horizontal_overflow(page)
    screenshot(page, "phone-table-full")
    person.assert_clean()


# --- 7. a name that looks like markup ------------------------------------------------------------


def check_csp(response: Any) -> None:
    """The page came with the Content-Security-Policy: own scripts only, never framed."""
    assert response is not None
    csp = response.headers.get("content-security-policy", "")
    assert "default-src 'self'" in csp, csp
    assert "script-src 'self';" in csp, csp
    assert "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers.get("x-frame-options") == "DENY"


def no_csp_violations(person: Person) -> None:
    assert person.page.evaluate("window.__csp") == []


def test_markup_in_a_name_is_shown_as_text(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    created = api.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 1},
            "seats": [{"kind": "human"}, {"kind": "human", "name": "Lia"}],
        },
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    # Another game, still open, made by the same name.
    waiting = api.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 1},
            "seats": [{"kind": "human", "name": XSS}, {"kind": "human"}],
        },
    )
    assert waiting.status_code == 201, waiting.text

    # Any alert, confirm or prompt is recorded by Person and fails assert_clean() below.
    mallory = open_person()
    page = mallory.page
    page.add_init_script(CSP_WATCH)
    check_csp(page.goto(f"{server.url}/g/{game_id}"))
    page.get_by_label("Your name").fill(XSS)
    page.get_by_role("button", name="Join the game").click()
    expect(page.locator("#status-chip")).to_have_text("Playing")
    expect(page.locator("#players .player-name").first).to_have_text(XSS)
    expect(page.locator("#main-sheet .sheet-name")).to_have_text(XSS)
    expect(page.get_by_role("article", name=f"Score sheet of {XSS}")).to_be_visible()
    assert page.locator("#main script, #players script").count() == 0
    assert api.game(game_id)["state"]["players"][0]["name"] == XSS
    screenshot(page, "markup-name-table")

    watcher = open_person()
    watcher.page.add_init_script(CSP_WATCH)
    check_csp(watcher.page.goto(f"{server.url}/g/{game_id}"))
    expect(watcher.page.locator("#turn-msg")).to_have_text(f"{XSS} is playing…")
    expect(watcher.page.locator("#players .player-name")).to_have_text([XSS, "Lia"])

    # The open game's waiting room lists the name as text too.
    watcher.page.goto(f"{server.url}/g/{waiting.json()['id']}")
    expect(watcher.page.locator("#waiting-seats .wseat-name").first).to_have_text(XSS)

    lobby = watcher.page
    check_csp(lobby.goto(server.url + "/"))
    open_item = lobby.locator("#list-open .game-players", has_text=XSS)
    expect(open_item).to_have_text(XSS)
    lobby.get_by_role("tab", name=re.compile("^Playing")).click()
    running = lobby.locator("#list-running .game-players", has_text=XSS)
    expect(running).to_have_text(f"{XSS} · Lia")
    assert lobby.locator("#main script").count() == 0
    screenshot(lobby, "markup-name-lobby")
    no_csp_violations(watcher)

    # The name still shows as text when it is the other side's turn.
    TurnPlayer(api, game_id).play(page, XSS, rolls=1)
    expect(page.locator("#turn-msg")).to_have_text("Lia is playing…")

    # The rest of the game is played over the protocol (Mallory's seat with the token her
    # browser keeps); her page and a spectator's follow it to the end screen.
    watcher.page.goto(f"{server.url}/g/{game_id}")
    stored = page.evaluate(f"() => localStorage.getItem('dicepoker:tokens:{game_id}')")
    seats = {
        0: Player(server.ws_url, game_id, json.loads(stored)["0"]),
        1: Player(server.ws_url, game_id, created.json()["seats"][1]["token"]),
    }
    while True:
        data = api.game(game_id)
        if data["status"] == "finished":
            break
        player = seats[data["state"]["turn"]["seat"]]
        while player.seq < data["seq"]:
            player.recv()
        player.play_turn()
    for player in seats.values():
        player.close()
    end_screen(page, api, game_id, XSS)
    end_screen(watcher.page, api, game_id, None)
    expect(watcher.page.locator("#ranking .rank-name", has_text=XSS)).to_have_text(XSS)
    assert page.locator("#end script, #ranking script").count() == 0
    screenshot(watcher.page, "markup-name-end")
    lobby.goto(server.url + "/")
    lobby.get_by_role("tab", name=re.compile("^Finished")).click()
    finished = lobby.locator("#list-finished .game-players", has_text=XSS)
    expect(finished.first).to_have_text(f"{XSS} · Lia")
    for person in (mallory, watcher):
        no_csp_violations(person)
        person.assert_clean()

    # The policy is enforced: a script injected into the page does not run.
    probe = open_person()
    probe.page.add_init_script(CSP_WATCH)
    probe.page.goto(server.url + "/")
    probe.page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.__ran = true";
          document.body.appendChild(script);
        }"""
    )
    assert probe.page.evaluate("window.__ran === undefined")
    assert any(v.startswith("script-src") for v in probe.page.evaluate("window.__csp"))


# --- 8. the replay viewer ------------------------------------------------------------------------


def test_replay_viewer_of_an_imported_record(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    source = GOLDEN / "school-3c-1p.json"
    record = json.loads(source.read_text(encoding="utf-8"))
    expected = json.loads((GOLDEN / "school-3c-1p.expected.json").read_text(encoding="utf-8"))
    turns = len(record["turns"])  # alone, a player's rounds are the record's turns
    name = record["players"][0]

    person = open_person()
    page = person.page
    page.goto(server.url + "/")
    page.get_by_label("Record file").set_input_files(str(source))
    page.get_by_role("button", name="Open in the viewer").click()
    page.wait_for_url(re.compile(r"/replay/r/[A-Za-z0-9_-]+$"))
    position = page.locator("#replay-position")
    rolls0 = len(record["turns"][0]["rolls"])
    expect(position).to_have_text(f"Turn 1 of {turns} · {name}")
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()

    step = page.get_by_role("button", name="Next step")
    step.click()
    expect(position).to_have_text(f"Turn 1 of {turns} · {name} · roll 1")
    assert shown_dice(page) == record["turns"][0]["rolls"][0]["dice"]
    for _ in range(rolls0):
        step.click()
    expect(position).to_have_text(f"Turn 2 of {turns} · {name}")
    expect(page.locator("#replay-move")).to_have_text("Last move: score Four of a kind")
    step.click()
    expect(position).to_have_text(f"Turn 2 of {turns} · {name} · roll 1")
    page.get_by_role("button", name="Previous step").click()
    page.get_by_role("button", name="Previous step").click()
    expect(position).to_have_text(f"Turn 1 of {turns} · {name} · roll {rolls0}")

    # Three turns on with the keyboard: the total is that of the first three turns.
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Turn 1 of {turns} · {name}")
    for n in range(3):
        page.keyboard.press("PageDown")
        expect(position).to_contain_text(f"Turn {n + 2} of {turns}")
    partial = totals(replay({**record, "turns": record["turns"][:3]}).state)[0]
    assert number(page.locator("#players .player-total").inner_text()) == partial
    screenshot(page, "replay-turn-4")

    page.get_by_role("button", name="Last position").click()
    expect(position).to_have_text("End of the game")
    expect(step).to_be_disabled()
    total = expected["totals"][0]
    assert number(page.locator("#players .player-total").inner_text()) == total
    assert number(page.locator("#main-sheet .sheet-total").inner_text()) == total
    assert shown_totals(page) == {name: total}
    screenshot(page, "replay-end")

    page.keyboard.press("ArrowLeft")
    expect(position).to_contain_text(f"Turn {turns} of {turns}")
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text("End of the game")
    assert urlpath(page.url).startswith("/replay/r/")
    person.assert_clean()
