"""The web app in a real browser (Chromium through Playwright), played the way people play it:
whole games by two people, hot seat with the keyboard, against a bot, and a reload mid-turn.

One `dicepoker serve` and one Chromium per module; every test opens its own browser contexts (a
context is one person: own cookies and localStorage, hence own seat tokens). Clicks, taps and
keys go through the page; `GET /api/games/{id}` is the reference the page is checked against.
Screenshots go to $DICEPOKER_TEST_ARTIFACTS or test-artifacts/. The languages, the phone, the
page's safety and the replay viewer are in test_browser_pages.py; the pages' reading of the rules
in test_browser_rules.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from browser_support import (
    Api,
    OpenPerson,
    Seat,
    TurnPlayer,
    check_record,
    create_in_lobby,
    download_record,
    end_screen,
    offered_moves,
    people,
    screenshot,
    shown_dice,
    shown_totals,
)
from live_server import LiveServer

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")


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
    assert opened["state"]["rules"]["variant"] == "school"
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
    # Where the replay is, counted as the table counts: 15 rounds of two players' 30 turns.
    expect(bea.page.locator("#replay-position")).to_have_text("Turn 1 of 15 · Ana")
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
    cell = page.locator("#main-sheet td.legal button.move").first
    verb = (cell.get_attribute("data-action") or "").split()[0]
    cell.click()
    if verb in ("zero", "strike"):
        cell.click()  # a zero or a strike is asked twice
    players.play(page, "Fay", rolls=1)
    # The bot answers: its turn, the record's sixth, begins (a condition wait: with no bot delay
    # the bot may or may not have started when Fay's move is recorded).
    api.wait_for_game(game_id, lambda _: len(api.record(game_id)["turns"]) >= 6)
    assert len(api.record(game_id)["turns"]) >= 6
    person.assert_clean()
