"""The daily challenge in a real browser: two people with accounts in separate browsers open
/daily, play the same challenge, see the same first roll, then the day's leaderboard with the par;
a visitor not logged in is asked to log in; the page in three languages on a desktop and a phone
(screenshots in test-artifacts/daily/).

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a browser context per
person, the server's own answers as the reference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
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
BEA = "Bea_daily"
TURNS = 13
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
WORDS = {
    "en": {
        "title": "Daily challenge",
        "board": "Leaderboard",
        "login": "Log in to play today's challenge",
        "log in": "Log in",
        "sign up": "Sign up",
    },
    "es": {
        "title": "Desafío diario",
        "board": "Clasificación",
        "login": "Inicia sesión para jugar el desafío de hoy",
        "log in": "Entrar",
        "sign up": "Crear cuenta",
    },
    "pt": {
        "title": "Desafio diário",
        "board": "Classificação",
        "login": "Entre para jogar o desafio de hoje",
        "log in": "Entrar",
        "sign up": "Criar conta",
    },
}


def card(page: Page, preset: str = PRESET) -> Any:
    return page.locator(f'.daily-card[data-preset="{preset}"]')


def open_daily(person: Person, server: LiveServer, lang: str = "en") -> Page:
    page = person.page
    page.goto(f"{server.url}/daily?lang={lang}")
    expect(page.get_by_role("heading", name=WORDS[lang]["title"], exact=True)).to_be_visible()
    expect(page.locator(".daily-card[aria-busy='false']")).to_have_count(len(variant_names()))
    return page


def start_playing(page: Page) -> str:
    """Press Play on the preset's card (logged in): the table of the new game opens."""
    expect(page.locator("#daily-login")).to_have_count(0)
    play = card(page).get_by_role("button", name="Play the challenge")
    expect(play).to_be_enabled()
    play.click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    return urlpath(page.url).rsplit("/", 1)[-1]


@contextmanager
def seat_api(server: LiveServer, page: Page, game_id: str) -> Iterator[Api]:
    """The REST API as the player of `game_id` on `page` (their seat's token, which the page
    kept): another player's daily game is not readable before its day is over."""
    kept = page.evaluate("(key) => localStorage.getItem(key)", f"dicepoker:tokens:{game_id}")
    token = json.loads(kept)["0"]
    api = Api(server)
    api.client.headers["Authorization"] = f"Bearer {token}"
    try:
        yield api
    finally:
        api.close()


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
    """Ana and Bea have accounts (today's challenge is played ranked, once a day); each sees her
    own game's replay once it is over, the other's only once the day is (docs/fair-play.md)."""
    ana = open_person(viewport=DESKTOP)
    sign_up(ana, server, ANA)
    ana_page = open_daily(ana, server)
    expect(ana_page.locator("#daily-who")).to_contain_text(f"Playing as {ANA}")
    bea = open_person(viewport=DESKTOP)
    sign_up(bea, server, BEA)
    bea_page = open_daily(bea, server)
    expect(bea_page.locator("#daily-who")).to_contain_text(f"Playing as {BEA}")
    expect(card(ana_page).locator(".daily-fair .fair-hex")).to_be_visible()
    challenge = api.get(f"/api/daily/{PRESET}")
    short = f"{challenge['commitment'][:8]}…{challenge['commitment'][-4:]}"
    for page in (ana_page, bea_page):
        expect(card(page).locator(".daily-fair .fair-hex").first).to_have_text(short)
        expect(card(page).locator(".daily-board")).to_contain_text("No finished games yet.")

    ana_game = start_playing(ana_page)
    bea_game = start_playing(bea_page)
    assert ana_game != bea_game
    with (
        seat_api(server, ana_page, ana_game) as ana_api,
        seat_api(server, bea_page, bea_game) as bea_api,
    ):
        ana_dice = first_roll(ana_page, ana_api, ana_game, ANA)
        bea_dice = first_roll(bea_page, bea_api, bea_game, BEA)
        assert ana_dice == bea_dice  # the same challenge: the same first roll
        # A daily challenge has no hints: the badge, the line where the toggle was.
        expect(ana_page.locator("#help-badge")).to_have_text("Daily challenge")
        expect(ana_page.locator("#hint-button")).to_be_hidden()
        expect(ana_page.locator("#hints-off")).to_have_text(
            "Hints are off in this game: it is a daily challenge."
        )

        # Away and back mid-game: the page offers to resume the game, with its seat.
        bea_page.goto(f"{server.url}/daily?lang=en")
        resume = card(bea_page).get_by_role("button", name="Resume")
        resume.click()
        bea_page.wait_for_url(re.compile(rf"/g/{bea_game}$"))
        expect(bea_page.locator("#rolls-left")).to_have_text("Rolls left: 2")

        finish(ana_page, ana_api, ana_game, ANA, rolled=True)
        finish(bea_page, bea_api, bea_game, BEA, rolled=True)
        # The end screen: the day's seed is not shown (others play those dice until the day ends),
        # and the analysis says when it opens.
        for page in (ana_page, bea_page):
            expect(page.locator("#fair-result")).to_contain_text(
                "The seed of a daily challenge is revealed when its day is over."
            )
            expect(page.locator("#analysis")).to_contain_text(
                "The analysis of a daily challenge opens when its day is over:"
            )
        # A daily is played alone and once a day: its end screen gives the score against par,
        # names no winner and offers no rematch.
        for page, seat, game_id in ((ana_page, ana_api, ana_game), (bea_page, bea_api, bea_game)):
            total = seat.game(game_id)["state"]["players"][0]["total"]
            expect(page.locator("#end-title")).to_have_text(f"Your score: {total:,}")
            day_par = api.get(f"/api/daily/{PRESET}")["par"]
            diff = total - day_par
            signed = f"+{diff:,}" if diff > 0 else f"−{-diff:,}" if diff < 0 else "0"
            expect(page.locator("#end-par")).to_have_text(f"{total:,} · par {day_par:,} · {signed}")
            expect(page.locator("#rematch-button")).to_be_hidden()
        records = [ana_api.record(ana_game), bea_api.record(bea_game)]
        assert records[0]["turns"] == records[1]["turns"]  # the same keeps: the same game
        assert len(records[0]["turns"]) == TURNS

        for page, name, game_id in ((ana_page, ANA, ana_game), (bea_page, BEA, bea_game)):
            page.goto(f"{server.url}/daily?lang=en")
            box = card(page)
            expect(box.locator(".daily-par-value")).to_have_text(re.compile(r"^\d[\d,]*$"))
            shown_par = number(box.locator(".daily-par-value").inner_text())
            par = api.get(f"/api/daily/{PRESET}")["par"]
            assert shown_par == par
            board = api.get(f"/api/daily/{PRESET}/leaderboard")
            assert sorted(row["name"] for row in board["ranked"]) == [ANA, BEA]
            assert board["unranked"] == []
            rows = box.locator(".daily-table tbody tr")
            expect(rows).to_have_count(2)
            expect(box.locator(".unranked")).to_have_count(0)
            mine = rows.filter(has_text=name)
            expect(mine).to_have_class(re.compile(r"\bmine\b"))
            score = next(row["score"] for row in board["ranked"] if row["name"] == name)
            expect(mine.locator(".score")).to_have_text(f"{score:,}")
            to_par = score - par
            text = f"+{to_par:,}" if to_par > 0 else f"−{-to_par:,}" if to_par < 0 else "0"
            expect(mine.locator(".to-par")).to_have_text(text)
            expect(box.locator(".daily-result")).to_contain_text(f"Your score: {score:,}")
            expect(box.locator(".daily-result")).to_contain_text(f"{text} against par")
            # Her game is over: its replay is linked; the other's opens when the day is over; an
            # account has played today's challenge.
            expect(mine.get_by_role("link", name="Replay")).to_have_attribute(
                "href", f"/replay/g/{game_id}"
            )
            expect(box.get_by_role("link", name="Replay")).to_have_count(1)
            expect(box.locator(".daily-spoiler")).to_be_visible()
            expect(box.locator(".daily-play")).to_be_hidden()
            screenshot(page, f"daily/board-{name.lower()}-en-1280")

    # Another player's game of the day: its page says when it opens, not an empty table.
    ana_page.goto(f"{server.url}/g/{bea_game}")
    expect(ana_page.locator(".daily-private h2")).to_have_text(
        "This daily challenge game can be seen when its day is over."
    )
    expect(ana_page.locator("#main-sheet")).to_have_count(0)


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
            # Today's challenge is for accounts: the visitor is asked to log in, and no card
            # offers to play.
            login = page.locator("#daily-login")
            expect(login).to_contain_text(words["login"])
            expect(login.get_by_role("link", name=words["log in"], exact=True)).to_have_attribute(
                "href", "/login?next=/daily"
            )
            expect(login.get_by_role("link", name=words["sign up"])).to_have_attribute(
                "href", "/signup?next=/daily"
            )
            expect(page.locator(".daily-play:visible")).to_have_count(0)
            expect(page.locator(".site-nav a[href='/daily']")).to_have_attribute(
                "aria-current", "page"
            )
            # Every preset has its card; nothing is wider than the screen.
            expect(page.locator(".daily-card")).to_have_count(len(variant_names()))
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= viewport["width"], (lang, size, wide)
            screenshot(page, f"daily/daily-{lang}-{size}")
            person.assert_clean()
