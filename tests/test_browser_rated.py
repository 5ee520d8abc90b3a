"""A newcomer's rated game in the browser: signed up, the lobby seats them under their account and
offers "Rated game"; they play a School game against a bot to the end and the end screen shows
their rating change, the one the server wrote."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from browser_support import WORDS, Api, OpenPerson, TurnPlayer, end_screen, people, screenshot
from live_server import LiveServer

open_person = pytest.fixture(people, name="open_person")

NAME = "Rated_Newcomer"


def test_a_newcomer_plays_a_rated_game_against_a_bot_and_sees_the_change(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person()
    page = person.page
    signed = page.request.post(
        f"{server.url}/api/accounts", data={"name": NAME, "password": "a newcomer's"}
    )
    assert signed.status == 201, signed.text()
    page.goto(server.url + "/")
    words = WORDS["en"]
    me = page.get_by_label(words["name_of"].format(n=1))
    expect(me).to_have_value(NAME)  # the first seat is the account's, named as it
    expect(me).not_to_be_editable()
    page.get_by_role("radio", name=re.compile("^" + re.escape(words["school"]))).check()
    page.get_by_label(words["columns"]).fill("1")
    # The bot picker: the ladder first, weakest first, each with its rating in the pool of the
    # game being made (school-1 now that the sheet has one column), then the reference bots
    # without one; a ladder level is chosen at first.
    listing = api.get("/api/variants")
    ratings = listing["level_ratings"]["school-1"]
    picker = page.locator("#seat-name-1")
    expect(picker.locator("optgroup").first).to_have_attribute("label", "Levels")
    for level in listing["ladder"]:
        expect(picker.locator(f'optgroup[label="Levels"] option[value="{level}"]')).to_have_text(
            f"{level.capitalize()} · {ratings[level]:,}"
        )
    expect(picker.locator('optgroup[label="Reference bots"] option[value="greedy"]')).to_have_text(
        "Greedy"
    )
    assert picker.input_value() in listing["ladder"]
    picker.select_option("greedy")
    rated = page.get_by_label("Rated game")
    expect(rated).to_be_enabled()
    rated.check()
    expect(page.locator("#rated-hint")).to_have_text(
        "Rated when it ends if every person plays under an account."
    )
    page.get_by_role("button", name=words["start"]).click()
    page.wait_for_url(re.compile(r"/g/([A-Za-z0-9_-]+)$"))
    game_id = page.url.rsplit("/", 1)[-1]
    info = api.game(game_id)
    assert info["rated"] is True and info["seats"][0]["account"] is True

    players = TurnPlayer(api, game_id)
    for turn in range(15):
        players.play(page, NAME, rolls=1 + turn % 3)
    end_screen(page, api, game_id, NAME)
    ratings = api.get(f"/api/games/{game_id}/ratings")
    assert ratings["status"] == "rated", ratings
    (change,) = ratings["changes"]
    box = page.locator("#end-ratings")
    expect(box).to_be_visible()
    sign = "+" if change["change"] > 0 else "−" if change["change"] < 0 else "±"
    expect(box).to_contain_text(
        f"{NAME} {change['before']:,} → {change['after']:,} ({sign}{abs(change['change']):,})"
    )
    screenshot(page, "rated/end-1280x900")
    # The game is on the newcomer's page, with its analysis, and the rating there is the new one.
    page.goto(f"{server.url}/players/{NAME}")
    expect(page.locator(f'a[href="/replay/g/{game_id}#analysis"]')).to_have_count(1)
    expect(page.locator("main")).to_contain_text(f"{change['after']:,}")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server.url}/g/{game_id}")
    expect(box).to_contain_text(f"{NAME} {change['before']:,} → {change['after']:,}")
    page.set_viewport_size({"width": 375, "height": 667})
    box.scroll_into_view_if_needed()
    screenshot(page, "rated/end-375x667", full_page=False)
    person.assert_clean()
