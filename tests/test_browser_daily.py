"""The daily challenge in a real browser: two people in separate browsers open /daily, play the
same challenge, see the same first roll, then the day's leaderboard with the par; the page in
three languages on a desktop and a phone (screenshots in test-artifacts/daily/).

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a browser context per
person, the server's own answers as the reference.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_support import (
    Api,
    OpenPerson,
    Person,
    TurnPlayer,
    artifacts_dir,
    number,
    people,
    screenshot,
    shown_dice,
    urlpath,
)
from dicepoker.rules import variant_names
from live_server import LiveServer

expect.set_options(timeout=30_000)

open_person = pytest.fixture(people, name="open_person")
PRESET = "yahtzee"  # 13 turns: the quickest to play by hand
ANA = "Ana_daily"
TURNS = 13
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
WORDS = {
    "en": {"title": "Daily challenge", "board": "Leaderboard", "play": "Play the challenge"},
    "es": {"title": "Desafío diario", "board": "Clasificación", "play": "Jugar el desafío"},
    "pt": {"title": "Desafio diário", "board": "Classificação", "play": "Jogar o desafio"},
}


def card(page: Page, preset: str = PRESET) -> Any:
    return page.locator(f'.daily-card[data-preset="{preset}"]')


def open_daily(person: Person, server: LiveServer, lang: str = "en") -> Page:
    page = person.page
    page.goto(f"{server.url}/daily?lang={lang}")
    expect(page.get_by_role("heading", name=WORDS[lang]["title"], exact=True)).to_be_visible()
    expect(page.locator(".daily-card[aria-busy='false']")).to_have_count(len(variant_names()))
    return page


def start_playing(page: Page, name: str | None) -> str:
    """Type the name (not logged in), press Play on the preset's card: the table of the new
    game opens."""
    if name is not None:
        page.locator("#daily-name").fill(name)
    else:
        expect(page.locator("#daily-name")).to_be_hidden()
    play = card(page).get_by_role("button", name="Play the challenge")
    expect(play).to_be_enabled()
    play.click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    return urlpath(page.url).rsplit("/", 1)[-1]


def first_roll(page: Page, api: Api, game_id: str, name: str) -> list[int]:
    """Roll the first dice of the game on the page; the dice it shows (the server's too)."""
    player = TurnPlayer(api, game_id)
    player.expect_my_turn(page, name)
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    dice = shown_dice(page)
    assert dice == api.game(game_id)["state"]["turn"]["dice"]
    return dice


def finish(page: Page, api: Api, game_id: str, name: str, *, rolled: bool) -> None:
    """Play the game to its end by hand: one roll a turn, then the best cell (the first turn's
    roll may be made already)."""
    player = TurnPlayer(api, game_id)
    if rolled:
        # The first turn: its roll is made; fill the best cell.
        legal = api.game(game_id)["state"]["turn"]["legal"]
        best = max(legal, key=lambda option: option["gain"])
        cell = page.locator(f'#main-sheet td.legal button.move[data-action="{best["action"]}"]')
        presses = 2 if best["verb"] in ("zero", "strike") else 1
        for _ in range(presses):
            cell.click()
        api.wait_for_game(game_id, lambda g: g["seq"] >= 2)
    while api.game(game_id)["status"] != "finished":
        player.play(page, name, rolls=1)


def sign_up(person: Person, server: LiveServer, name: str) -> None:
    """An account made from the person's browser (its session cookie kept there)."""
    answer = person.page.request.post(
        f"{server.url}/api/accounts",
        data={"name": name, "password": "correct horse"},
        headers={"origin": server.url},
    )
    assert answer.status == 201, answer.text()


def test_two_browsers_play_the_same_challenge_on_the_same_dice(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    """Ana has an account (her game is ranked, once a day); Bea plays as a guest, unranked."""
    ana = open_person(viewport=DESKTOP)
    sign_up(ana, server, ANA)
    ana_page = open_daily(ana, server)
    expect(ana_page.locator("#daily-who")).to_contain_text(f"Playing as {ANA}")
    bea_page = open_daily(open_person(viewport=DESKTOP), server)
    expect(bea_page.locator("#daily-who")).to_contain_text("Not logged in")
    expect(card(ana_page).locator(".daily-fair .fair-hex")).to_be_visible()
    challenge = api.get(f"/api/daily/{PRESET}")
    short = f"{challenge['commitment'][:8]}…{challenge['commitment'][-4:]}"
    for page in (ana_page, bea_page):
        expect(card(page).locator(".daily-fair .fair-hex").first).to_have_text(short)
        expect(card(page).locator(".daily-board")).to_contain_text("No finished games yet.")

    ana_game = start_playing(ana_page, None)
    bea_game = start_playing(bea_page, "Bea")
    assert ana_game != bea_game
    ana_dice = first_roll(ana_page, api, ana_game, ANA)
    bea_dice = first_roll(bea_page, api, bea_game, "Bea")
    assert ana_dice == bea_dice  # the same challenge: the same first roll

    # Away and back mid-game: the page offers to resume the game, with its seat.
    bea_page.goto(f"{server.url}/daily?lang=en")
    resume = card(bea_page).get_by_role("button", name="Resume")
    resume.click()
    bea_page.wait_for_url(re.compile(rf"/g/{bea_game}$"))
    expect(bea_page.locator("#rolls-left")).to_have_text("Rolls left: 2")

    finish(ana_page, api, ana_game, ANA, rolled=True)
    finish(bea_page, api, bea_game, "Bea", rolled=True)
    # The end screen: the day's seed is not shown (others play those dice until the day ends).
    for page in (ana_page, bea_page):
        expect(page.locator("#fair-result")).to_contain_text(
            "The seed of a daily challenge is revealed when its day is over."
        )
    records = [api.record(ana_game), api.record(bea_game)]
    assert records[0]["turns"] == records[1]["turns"]  # the same keeps: the same game
    assert len(records[0]["turns"]) == TURNS

    for page, name in ((ana_page, ANA), (bea_page, "Bea")):
        page.goto(f"{server.url}/daily?lang=en")
        box = card(page)
        expect(box.locator(".daily-par-value")).to_have_text(re.compile(r"^\d[\d,]*$"))
        shown_par = number(box.locator(".daily-par-value").inner_text())
        par = api.get(f"/api/daily/{PRESET}")["par"]
        assert shown_par == par
        board = api.get(f"/api/daily/{PRESET}/leaderboard")
        assert [row["name"] for row in board["ranked"]] == [ANA]
        assert [row["name"] for row in board["unranked"]] == ["Bea"]
        rows = box.locator(".daily-table tbody tr")
        expect(rows).to_have_count(2)
        # Ana's account is placed first; Bea's guest game is listed, unranked.
        expect(rows.nth(0).locator(".place")).to_have_text("1")
        expect(rows.nth(0).locator(".who")).to_have_text(ANA)
        expect(rows.nth(0).locator(".unranked")).to_have_count(0)
        expect(rows.nth(1).locator(".place")).to_have_text("–")
        expect(rows.nth(1).locator(".who")).to_contain_text("Bea")
        expect(rows.nth(1).locator(".unranked")).to_have_text("unranked")
        mine = rows.filter(has_text=name)
        expect(mine).to_have_class(re.compile(r"\bmine\b"))
        games = [*board["ranked"], *board["unranked"]]
        score = next(row["score"] for row in games if row["name"] == name)
        expect(mine.locator(".score")).to_have_text(f"{score:,}")
        to_par = score - par
        text = f"+{to_par:,}" if to_par > 0 else f"−{-to_par:,}" if to_par < 0 else "0"
        expect(mine.locator(".to-par")).to_have_text(text)
        expect(box.locator(".daily-result")).to_contain_text(f"Your score: {score:,}")
        expect(box.locator(".daily-result")).to_contain_text(f"{text} against par")
        # The game is over: its replay is linked; a guest may play again, unranked; an
        # account has played today's challenge.
        expect(mine.get_by_role("link", name="Replay")).to_have_attribute(
            "href", f"/replay/g/{ana_game if name == ANA else bea_game}"
        )
        again = box.get_by_role("button", name="Play again (unranked)")
        if name == ANA:
            expect(box.locator(".daily-play")).to_be_hidden()
        else:
            expect(again).to_be_visible()
        screenshot(page, f"daily/board-{name.lower()}-en-1280")


def test_the_page_in_three_languages_on_a_desktop_and_a_phone(
    server: LiveServer, open_person: OpenPerson
) -> None:
    (artifacts_dir() / "daily").mkdir(parents=True, exist_ok=True)
    for lang, words in WORDS.items():
        for size, viewport in (("1280", DESKTOP), ("375", PHONE)):
            person = open_person(viewport=viewport)
            page = open_daily(person, server, lang)
            expect(page.locator("html")).to_have_attribute("data-lang", lang)
            expect(page.get_by_role("heading", name=words["board"]).first).to_be_visible()
            expect(card(page).get_by_role("button", name=words["play"])).to_be_visible()
            expect(page.locator(".site-nav a[href='/daily']")).to_have_attribute(
                "aria-current", "page"
            )
            # Every preset has its card; nothing is wider than the screen.
            expect(page.locator(".daily-card")).to_have_count(len(variant_names()))
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= viewport["width"], (lang, size, wide)
            screenshot(page, f"daily/daily-{lang}-{size}")
            person.assert_clean()
