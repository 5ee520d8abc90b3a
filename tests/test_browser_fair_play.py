"""Fair play in a real browser (issue 54, docs/fair-play.md): a game played without the expert's
help (rated, a daily challenge, a casual game made without hints) shows its badge and no hint
toggle, and its H key says why without ever asking the server for advice; practice against a bot
still has its hints; the lobby's form asks for hints as the kind of game wants; another player's
daily challenge game says when it can be seen instead of drawing an empty table.

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a browser context per
person, the server's own answers as the reference.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Request, expect

from browser_support import WORDS, Api, OpenPerson, Person, people, with_tokens
from live_server import LiveServer

open_person = pytest.fixture(people, name="open_person")

A_BOT = {"kind": "bot", "level": "greedy"}


def sign_up(person: Person, server: LiveServer, name: str) -> None:
    """An account made from the person's browser (its session cookie kept there)."""
    answer = person.page.request.post(
        f"{server.url}/api/accounts",
        data={"name": name, "password": "correct horse"},
        headers={"origin": server.url},
    )
    assert answer.status == 201, answer.text()


def create_as(person: Person, server: LiveServer, body: dict[str, Any]) -> dict[str, Any]:
    """A game made from the person's browser (as its account, where it has one), its seat 0's
    token kept there as the lobby keeps it."""
    answer = person.page.request.post(
        f"{server.url}/api/games", data=body, headers={"origin": server.url}
    )
    assert answer.status == 201, answer.text()
    created: dict[str, Any] = answer.json()
    with_tokens(person, created, 0)
    return created


def advice_asked(page: Page) -> list[str]:
    """The page's requests for the advice, from now on (a list that grows)."""
    asked: list[str] = []

    def seen(request: Request) -> None:
        if request.url.endswith("/advice"):
            asked.append(request.url)

    page.on("request", seen)
    return asked


def open_table(page: Page, server: LiveServer, game_id: str) -> None:
    page.goto(f"{server.url}/g/{game_id}?lang=en")
    expect(page.locator("#roll-button")).to_be_enabled()


def expect_no_hints(page: Page, badge: str, why: str) -> None:
    """The table of a game without hints: its badge, no toggle, the line that says why; H says
    the same in a toast and asks nothing of the server."""
    asked = advice_asked(page)
    expect(page.locator("#help-badge")).to_have_text(badge)
    expect(page.locator("#hint-button")).to_be_hidden()
    expect(page.locator("#hints-off")).to_have_text(why)
    page.keyboard.press("h")
    expect(page.locator(".toast").filter(has_text=why)).to_be_visible()
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    page.keyboard.press("h")
    expect(page.locator("#advice")).to_be_hidden()
    expect(page.locator("#main-sheet .move .adv")).to_have_count(0)
    assert asked == []


def test_a_rated_game_has_a_badge_and_no_hints(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person()
    sign_up(person, server, "Rated_NoHints")
    game = create_as(
        person,
        server,
        {"variant": "yahtzee", "seats": [{"kind": "human", "account": True}, A_BOT], "rated": True},
    )
    info = api.game(game["id"])
    assert info["assisted"] is False and info["competition"] == "rated"
    open_table(person.page, server, game["id"])
    expect_no_hints(person.page, "Rated", "Hints are off in this game: it is rated.")
    # The server refuses what the page no longer asks.
    assert api.client.get(f"/api/games/{game['id']}/advice").status_code == 403
    person.assert_clean()


def test_a_game_made_without_hints_has_none(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person()
    game = create_as(
        person,
        server,
        {
            "variant": "yahtzee",
            "seats": [{"kind": "human", "name": "Ana"}, A_BOT],
            "assisted": False,
        },
    )
    assert api.game(game["id"])["competition"] == "casual"
    open_table(person.page, server, game["id"])
    expect_no_hints(
        person.page, "No hints", "Hints are off in this game: it was made without them."
    )
    person.assert_clean()


def test_practice_against_a_bot_still_has_its_hints(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person()
    page = person.page
    game = create_as(
        person, server, {"variant": "yahtzee", "seats": [{"kind": "human", "name": "Ana"}, A_BOT]}
    )
    assert api.game(game["id"])["assisted"] is True
    open_table(page, server, game["id"])
    asked = advice_asked(page)
    expect(page.locator("#help-badge")).to_be_hidden()
    expect(page.locator("#hints-off")).to_be_hidden()
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    page.keyboard.press("h")
    expect(page.locator("#hint-button")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#main-sheet .move .adv").first).to_be_visible()
    assert asked, "the hint asks the server for advice"
    person.assert_clean()


def test_the_lobby_asks_for_hints_as_the_game_wants(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    """Practice: 'Play without hints', off by default; with another person: 'Allow hints', off by
    default; rated: no switch at all."""
    person = open_person()
    page = person.page
    sign_up(person, server, "Lobby_Hints")
    page.goto(f"{server.url}/?lang=en")
    words = WORDS["en"]
    switch = page.locator("#help-on")
    expect(page.locator("#help-label")).to_have_text("Play without hints")
    expect(switch).not_to_be_checked()
    # A second person: the game is played without hints unless its maker allows them.
    page.get_by_label("Player 2", exact=True).select_option("human")
    expect(page.locator("#help-label")).to_have_text(
        "Allow hints (the expert's advice) in this game"
    )
    expect(switch).not_to_be_checked()
    page.get_by_label("Rated game").check()
    expect(page.locator("#help-field")).to_be_hidden()
    page.get_by_label("Rated game").uncheck()
    page.get_by_label("Player 2", exact=True).select_option("bot")
    expect(page.locator("#help-label")).to_have_text("Play without hints")
    page.get_by_label("Play without hints").check()
    page.get_by_role("button", name=words["start"]).click()
    page.wait_for_url(re.compile(r"/g/([A-Za-z0-9_-]+)$"))
    info = api.game(page.url.rsplit("/", 1)[-1])
    assert info["assisted"] is False and info["competition"] == "casual"
    expect(page.locator("#help-badge")).to_have_text("No hints")
    person.assert_clean()


def test_another_players_daily_game_says_when_it_opens(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    player = open_person()
    sign_up(player, server, "Daily_Private")
    started = player.page.request.post(
        f"{server.url}/api/daily/yahtzee", headers={"origin": server.url}
    )
    assert started.status == 201, started.text()
    game_id = started.json()["id"]
    # Its player sees her table, with the daily's badge.
    player.page.goto(f"{server.url}/g/{game_id}?lang=en")
    expect(player.page.locator("#help-badge")).to_have_text("Daily challenge")
    # Anyone else: the page says when the game can be seen, in their language.
    for lang, text in (
        ("en", "This daily challenge game can be seen when its day is over."),
        ("es", "Esta partida del desafío diario se podrá ver cuando termine su día."),
        ("pt", "Esta partida do desafio diário poderá ser vista quando o dia dela terminar."),
    ):
        page = open_person().page
        page.goto(f"{server.url}/g/{game_id}?lang={lang}")
        expect(page.locator(".daily-private h2")).to_have_text(text)
        expect(page.locator("#main-sheet")).to_have_count(0)
        expect(page.locator("#conn")).to_have_text("")
