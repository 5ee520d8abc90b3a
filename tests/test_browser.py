"""The web app in a real browser (Chromium through Playwright), played the way people play it.

One `dicepoker serve` and one Chromium per module; every test opens its own browser contexts (a
context is one person: own cookies and localStorage, hence own seat tokens). Clicks, taps and
keys go through the page; `GET /api/games/{id}` is the reference the page is checked against.
Screenshots go to $DICEPOKER_TEST_ARTIFACTS or test-artifacts/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from browser_support import (
    GOLDEN,
    WORDS,
    Api,
    Person,
    Seat,
    TurnPlayer,
    create_in_lobby,
    number,
    offered_moves,
    screenshot,
    shown_dice,
    shown_totals,
    urlpath,
)
from dicepoker.record import replay, summary
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

OpenPerson = Callable[..., Person]
XSS = "<script>alert(1)</script>"
#: Records every Content-Security-Policy violation of a page in window.__csp.
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def open_person(browser: Browser) -> Iterator[OpenPerson]:
    """open_person(**context_options) -> a Person on a fresh page of a fresh context."""
    contexts: list[BrowserContext] = []

    def make(**options: Any) -> Person:
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return Person(context.new_page())

    yield make
    for context in contexts:
        context.close()


def end_screen(page: Page, api: Api, game_id: str, me: str | None) -> dict[str, Any]:
    """The end screen shows the server's ranking and totals; returns the server's game."""
    end = page.locator("#end")
    expect(end).to_be_visible()
    data = api.game(game_id)
    assert data["status"] == "finished"
    state = data["state"]
    assert state["finished"] is True
    players = state["players"]
    expected = [(players[s]["name"], players[s]["total"]) for s in state["ranking"]]
    ranking = page.locator("#ranking li")
    expect(ranking).to_have_count(len(players))
    names = ranking.locator(".rank-name").all_inner_texts()
    totals = [number(text) for text in ranking.locator(".rank-total").all_inner_texts()]
    assert list(zip(names, totals, strict=True)) == expected
    places = [number(text) for text in ranking.locator(".rank-place").all_inner_texts()]
    assert places == [players[s]["place"] for s in state["ranking"]]
    assert shown_totals(page) == {p["name"]: p["total"] for p in players}
    # The view's `winner` stays null when a School game simply ends; the page names the sole
    # leader. (With a tie for first place it still names one player: not checked here.)
    leaders = [p["name"] for p in players if p["place"] == 1]
    if len(leaders) == 1:
        title = "You win!" if leaders[0] == me else f"{leaders[0]} wins!"
        expect(page.locator("#end-title")).to_have_text(title)
    expect(page.locator("#turn-msg")).to_have_text("Game over")
    expect(page.locator("#roll-button")).to_be_hidden()
    return data


def download_record(page: Page) -> dict[str, Any]:
    """Click "Download the record" on the end screen and read the file the browser saved."""
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the record").click()
    download = info.value
    assert download.suggested_filename.endswith(".json")
    record: dict[str, Any] = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    return record


def check_record(record: dict[str, Any], data: dict[str, Any]) -> None:
    replayed = summary(replay(record).state)
    assert replayed["finished"] is True
    assert replayed["totals"] == [p["total"] for p in data["state"]["players"]]


# --- 1. two people, two browsers -------------------------------------------------------------


def test_two_people_play_a_full_school_game(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    # Both prefer reduced motion (the dice do not tumble): quicker to play 30 turns.
    ana = open_person(reduced_motion="reduce")
    bea = open_person(reduced_motion="reduce")
    game_id = create_in_lobby(
        ana.page, server.url, [Seat("human", "Ana"), Seat("human", "")], columns=1
    )
    # Ana waits for a friend and shares the table's link.
    expect(ana.page.get_by_role("heading", name="Waiting for players")).to_be_visible()
    share = ana.page.get_by_label("Link to this table")
    expect(share).to_have_value(re.compile(rf"/g/{game_id}$"))
    link = share.input_value()
    opened = api.game(game_id)
    assert opened["status"] == "open"
    assert opened["state"]["rules"]["preset"] == "school"
    assert opened["state"]["rules"]["columns"] == 1
    assert [s["taken"] for s in opened["seats"]] == [True, False]

    bea.page.goto(link)
    expect(bea.page.get_by_text("You are watching as a spectator.")).to_be_visible()
    bea.page.get_by_label("Your name").fill("Bea")
    expect(bea.page.get_by_role("combobox", name="Seat")).to_have_value("1")
    bea.page.get_by_role("button", name="Join the game").click()

    for person in (ana, bea):
        expect(person.page.locator("#status-chip")).to_have_text("Playing")
        expect(person.page.locator("#players .player-name")).to_have_text(["Ana", "Bea"])
    expect(bea.page.locator("#turn-msg")).to_have_text("Ana is playing…")
    expect(bea.page.locator("#roll-button")).to_be_disabled()
    screenshot(ana.page, "two-people-start-ana")

    players = TurnPlayer(api, game_id)
    for turn in range(30):
        person, name, other = (ana, "Ana", bea) if turn % 2 == 0 else (bea, "Bea", ana)
        if turn == 9:
            # The other person sees whose turn it is, without the controls.
            players.expect_my_turn(person.page, name)
            expect(other.page.locator("#turn-msg")).to_have_text(f"{name} is playing…")
            expect(other.page.locator("#roll-button")).to_be_disabled()
            screenshot(other.page, "two-people-middle-ana")
        players.play(person.page, name, rolls=1 + (turn // 2) % 3)

    data = end_screen(ana.page, api, game_id, "Ana")
    end_screen(bea.page, api, game_id, "Bea")
    screenshot(ana.page, "two-people-end-ana")
    screenshot(bea.page, "two-people-end-bea")

    record = download_record(bea.page)
    assert record["players"] == ["Ana", "Bea"]
    assert len(record["turns"]) == 30
    check_record(record, data)

    # The end screen's replay link opens the viewer at the same result.
    bea.page.get_by_role("link", name="Watch the replay").click()
    bea.page.wait_for_url(re.compile(rf"/replay/g/{game_id}$"))
    expect(bea.page.locator("#replay-position")).to_contain_text("Turn 1 of 30")
    bea.page.get_by_role("button", name="Last position").click()
    expect(bea.page.locator("#replay-position")).to_have_text("End of the game")
    assert shown_totals(bea.page) == {p["name"]: p["total"] for p in data["state"]["players"]}
    ana.assert_clean()
    bea.assert_clean()


# --- 2. hot seat, with the keyboard ----------------------------------------------------------


def test_hot_seat_game_with_the_keyboard(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person(reduced_motion="reduce")
    page = person.page
    game_id = create_in_lobby(page, server.url, [Seat("human", "Cleo"), Seat("human", "Dario")])
    expect(page.locator("#status-chip")).to_have_text("Playing")
    expect(page.locator("#keys-hint")).to_be_visible()
    players = TurnPlayer(api, game_id, hot_seat=True)
    keyboard_turns = 0
    for turn in range(30):
        name = "Cleo" if turn % 2 == 0 else "Dario"
        keyboard = turn % 3 != 2
        keyboard_turns += keyboard
        players.play(page, name, rolls=1 + turn % 3 if turn % 5 else 3, keyboard=keyboard)
        if turn == 4:
            screenshot(page, "hot-seat-middle")
    assert keyboard_turns >= 15
    data = end_screen(page, api, game_id, None)
    screenshot(page, "hot-seat-end")
    check_record(download_record(page), data)
    person.assert_clean()


# --- 3. against a bot ---------------------------------------------------------------------------


def test_game_against_a_greedy_bot(server: LiveServer, api: Api, open_person: OpenPerson) -> None:
    person = open_person(reduced_motion="reduce")
    page = person.page
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    game_id = create_in_lobby(page, server.url, [Seat("human", "Eva"), Seat("bot", "greedy")])
    expect(page.locator("#players .player-sub").nth(1)).to_have_text("Bot · Greedy")
    players = TurnPlayer(api, game_id)
    for turn in range(15):
        players.play(page, "Eva", rolls=1 + turn % 3)
        if turn == 0:
            # The bot answered at once; the strip shows both totals as the server has them.
            data = players.expect_my_turn(page, "Eva")
            bot_sheet = data["state"]["sheets"][1]["rows"]
            assert sum(1 for row in bot_sheet for cell in row["cells"] if cell) == 1
            assert shown_totals(page) == {p["name"]: p["total"] for p in data["state"]["players"]}
            screenshot(page, "bot-after-first-turn")
            # Eva played through a seat's socket whose URL holds no token (it is in a header).
            assert sockets and all(url.endswith(f"/ws/games/{game_id}") for url in sockets)
    data = end_screen(page, api, game_id, "Eva")
    assert [s["kind"] for s in data["seats"]] == ["human", "bot"]
    screenshot(page, "bot-end")
    check_record(download_record(page), data)
    person.assert_clean()


# --- 4. a reload in the middle of a turn ------------------------------------------------------


def test_reload_in_the_middle_of_a_turn(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person()
    page = person.page
    game_id = create_in_lobby(page, server.url, [Seat("human", "Fay"), Seat("bot", "greedy")])
    players = TurnPlayer(api, game_id)
    players.play(page, "Fay", rolls=2)
    players.expect_my_turn(page, "Fay")

    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    page.get_by_role("button", name=re.compile(r"^die 1: ")).click()
    page.get_by_role("button", name=re.compile(r"^die 2: ")).click()
    expect(page.locator("#roll-button")).to_have_text("Roll 3 dice")
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 1")
    page.get_by_role("button", name=re.compile(r"^die 3: ")).click()
    expect(page.get_by_role("button", name=re.compile(r"^die 3: "))).to_have_attribute(
        "aria-pressed", "true"
    )

    def snapshot() -> dict[str, Any]:
        return {
            "dice": shown_dice(page),
            "rolls_left": page.locator("#rolls-left").inner_text(),
            "turn_msg": page.locator("#turn-msg").inner_text(),
            "players": page.locator("#players").inner_text(),
            "main_sheet": page.locator("#main-sheet").inner_text(),
            "other_sheets": page.locator("#other-sheets").inner_text(),
            "moves": offered_moves(page),
            "current": page.locator("#players li[aria-current=true] .player-name").inner_text(),
        }

    before = snapshot()
    server_before = api.game(game_id)
    screenshot(page, "reload-before")

    page.reload()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 1")
    expect(page.locator("#turn-msg")).to_have_text(before["turn_msg"])
    expect(page.locator("#roll-button")).to_be_enabled()
    after = snapshot()
    assert after == before
    server_after = api.game(game_id)
    assert server_after["seq"] == server_before["seq"]
    turn = server_after["state"]["turn"]
    assert after["dice"] == turn["dice"]
    assert turn["rolls_left"] == 1 and turn["seat"] == 0
    assert sorted(after["moves"]) == sorted(o["action"] for o in turn["legal"])
    assert after["current"] == "Fay"
    screenshot(page, "reload-after")

    # Play goes on: the last roll, a cell, and the bot's answer.
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 0")
    expect(page.locator("#roll-button")).to_be_disabled()
    page.locator("#main-sheet td.legal button.move").first.click()
    players.play(page, "Fay", rolls=1)
    # The bot answers: its turn, the record's sixth, begins (a condition wait: with no bot delay
    # the bot may or may not have started when Fay's move is recorded).
    api.wait_for_game(game_id, lambda _: len(api.record(game_id)["turns"]) >= 6)
    assert len(api.record(game_id)["turns"]) >= 6
    person.assert_clean()


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


def roll_and_hold_in(page: Page, lang: str, rolls_left: int) -> None:
    """Roll (when `rolls_left` is 3) and hold die 1; the controls speak `lang`."""
    words = WORDS[lang]
    if rolls_left == 3:
        page.locator("#roll-button").click()
        rolls_left = 2
    expect(page.locator("#rolls-left")).to_have_text(words["rolls_left"].format(n=rolls_left))
    page.locator("#dice button.die").first.click()
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
    roll_and_hold_in(page, "es", 3)
    screenshot(page, "lang-table-es")

    page.get_by_role("link", name="Português").click()
    expect(page).to_have_url(re.compile(rf"/g/{game_id}$"))
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    expect(page.locator("#rolls-left")).to_have_text("Rolagens restantes: 2")
    expect(page.locator("#main-sheet .row-label").first).to_have_text("Escola 1")
    roll_and_hold_in(page, "pt", 2)
    screenshot(page, "lang-table-pt")
    page.get_by_role("link", name="Salão", exact=True).click()
    check_lobby_language(page, "pt")  # the choice is remembered

    page.get_by_role("link", name="English").click()
    check_lobby_language(page, "en")
    page.goto(f"{server.url}/g/{game_id}")
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    expect(page.locator("#main-sheet .row-label").first).to_have_text("School 1")
    expect(page.locator("#roll-button")).to_have_text("Roll")

    # A new visitor: the browser's language decides (Accept-Language).
    for locale, lang in (("es-ES", "es"), ("pt-BR", "pt")):
        visitor = open_person(locale=locale)
        visitor.page.goto(server.url + "/")
        check_lobby_language(visitor.page, lang)
        create_in_lobby(
            visitor.page, server.url, [Seat("human", "Ines"), Seat("human", "Joao")], lang=lang
        )
        check_table_language(visitor.page, lang)
        roll_and_hold_in(visitor.page, lang, 3)
        visitor.assert_clean()
    person.assert_clean()


# --- 6. a phone ---------------------------------------------------------------------------------


def assert_no_horizontal_overflow(page: Page, width: int = 375) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert isinstance(scroll_width, int)
    assert scroll_width <= width + 1, f"the page is {scroll_width}px wide on a {width}px screen"


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
    box = cell.bounding_box()
    assert box is not None and box["width"] >= 24 and box["height"] >= 24, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375 + 1, box
    action = cell.get_attribute("data-action")
    seq = api.game(game_id)["seq"]
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
    turns = len(record["turns"])
    name = record["players"][0]

    person = open_person()
    page = person.page
    page.goto(server.url + "/")
    page.get_by_label("Record file").set_input_files(str(source))
    page.get_by_role("button", name="Open in the viewer").click()
    page.wait_for_url(re.compile(r"/replay/r/[A-Za-z0-9_-]+$"))
    position = page.locator("#replay-position")
    rolls0 = len(record["turns"][0]["rolls"])
    expect(position).to_have_text(f"Turn 1 of {turns} · roll 0 of {rolls0} · {name}")
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()

    step = page.get_by_role("button", name="Next step")
    step.click()
    expect(position).to_have_text(f"Turn 1 of {turns} · roll 1 of {rolls0} · {name}")
    assert shown_dice(page) == record["turns"][0]["rolls"][0]["dice"]
    for _ in range(rolls0):
        step.click()
    rolls1 = len(record["turns"][1]["rolls"])
    expect(position).to_have_text(f"Turn 2 of {turns} · roll 0 of {rolls1} · {name}")
    expect(page.locator("#replay-move")).to_have_text("Last move: score Four of a kind")
    step.click()
    expect(position).to_have_text(f"Turn 2 of {turns} · roll 1 of {rolls1} · {name}")
    page.get_by_role("button", name="Previous step").click()
    page.get_by_role("button", name="Previous step").click()
    expect(position).to_have_text(f"Turn 1 of {turns} · roll {rolls0} of {rolls0} · {name}")

    # Three turns on with the keyboard: the total is that of the first three turns.
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Turn 1 of {turns} · roll 0 of {rolls0} · {name}")
    for n in range(3):
        page.keyboard.press("PageDown")
        expect(position).to_contain_text(f"Turn {n + 2} of {turns}")
    partial = summary(replay({**record, "turns": record["turns"][:3]}).state)["totals"][0]
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
