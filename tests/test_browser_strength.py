"""Whose play the chances assume, in a real browser: a tap on a chance bar tells it, in the page's
language ("Chances assume: Ana plays like a newcomer (no rated games), Casual bot, Intermediate
bot"), and the bar's title says the same.

As in test_browser_winprob.py: one `dicepoker serve` (bots instant) and one Chromium per module;
Ana's seat is played over the WebSocket (tests/ws_client.py) so that the game waits at her turn.
"""

from __future__ import annotations

from typing import Final

import pytest
from playwright.sync_api import expect

from browser_support import Api, OpenPerson, people
from dicepoker import i18n
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")

METERS: Final = "#players [role=meter]"


def assumptions(lang: str) -> str:
    """The words the page should show, from the catalog of `lang` (level names included)."""

    def say(msgid: str, **values: str) -> str:
        return i18n.gettext(lang, msgid).format(**values)

    seats = ", ".join(
        [
            say("{name} plays like a newcomer (no rated games)", name="Ana"),
            say("{level} bot", level=i18n.gettext(lang, "level.casual")),
            say("{level} bot", level=i18n.gettext(lang, "level.intermediate")),
        ]
    )
    return say("Chances assume: {seats}", seats=seats)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_a_tap_on_a_bar_tells_whose_play_the_chances_assume(
    server: LiveServer, api: Api, open_person: OpenPerson, lang: str
) -> None:
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "bot", "level": "casual"},
        {"kind": "bot", "level": "intermediate"},
    ]
    response = api.post("/api/games", {"variant": "yahtzee", "seats": seats})
    assert response.status_code == 201, response.text
    game = response.json()
    assert [seat["plays_like"]["basis"] for seat in game["seats"]] == ["newcomer", "bot", "bot"]
    ana = Player(server.ws_url, game["id"], game["seats"][0]["token"])
    try:
        ana.act("roll", 0)  # a position the server judges, and the game waits at Ana's turn
        person = open_person(has_touch=True, is_mobile=True, viewport={"width": 390, "height": 800})
        page = person.page
        page.goto(f"{server.url}/g/{game['id']}?lang={lang}")
        meter = page.locator(METERS).first
        expect(meter).to_be_visible(timeout=60_000)
        words = assumptions(lang)
        assert "Ana" in words
        assert (meter.get_attribute("title") or "").endswith(words)
        meter.tap()
        expect(page.locator("#toasts")).to_contain_text(words)
        person.assert_clean()
    finally:
        ana.close()
