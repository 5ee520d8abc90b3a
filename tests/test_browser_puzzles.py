"""Puzzles in a real browser: a person opens /puzzles, sees the position of a real game's blunder
(five sixes on the table), answers by a cell or by holding dice and rolling, and sees every
option's value with the best and the chosen one marked, then the next puzzle; the page in three
languages on a phone and a desktop (screenshots in test-artifacts/puzzles/).

The server's database holds two finished games with the blunder before it starts: its sweep
harvests them (as after a restart), so the puzzles exist without playing whole games here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_support import OpenPerson, Person, artifacts_dir, people, screenshot, shown_dice
from live_server import LiveServer
from puzzle_support import BEST, BLUNDER, puzzle_server, wait_for_puzzle

expect.set_options(timeout=30_000)

open_person = pytest.fixture(people, name="open_person")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
WORDS = {
    "en": {
        "title": "Puzzles",
        "ask": "What would you do?",
        "best": "The best move!",
        "mistake": "A mistake:",
        "next": "Next puzzle",
    },
    "es": {
        "title": "Problemas",
        "ask": "¿Qué harías tú?",
        "best": "¡La mejor jugada!",
        "mistake": "Un error:",
        "next": "Siguiente problema",
    },
    "pt": {
        "title": "Problemas",
        "ask": "O que você faria?",
        "best": "A melhor jogada!",
        "mistake": "Um erro:",
        "next": "Próximo problema",
    },
}


@pytest.fixture(scope="module", name="puzzle_server")
def _puzzle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose database held two finished games with the blunder (different dice after
    it), both harvested by the server's sweep before a page asks."""
    live = puzzle_server(str(tmp_path_factory.mktemp("puzzles") / "games.db"), seeds=(7, 11))
    yield live
    live.stop()


def puzzle_ids(server: LiveServer) -> list[str]:
    """Both puzzles' ids (each asked for after the other)."""
    first = wait_for_puzzle(server.url)["id"]
    other = httpx.get(
        f"{server.url}/api/puzzles/next",
        params={"preset": "yahtzee", "after": first},
        timeout=10,
    ).json()["id"]
    assert other != first
    return [first, other]


def open_puzzles(person: Person, server: LiveServer, path: str, lang: str = "en") -> Page:
    page = person.page
    page.goto(f"{server.url}{path}{'&' if '?' in path else '?'}lang={lang}")
    expect(page.get_by_role("heading", name=WORDS[lang]["title"], exact=True)).to_be_visible()
    expect(page.locator("#puzzle-question")).to_have_text(WORDS[lang]["ask"])
    page.wait_for_url(re.compile(r"/puzzles/[A-Za-z0-9_-]+$"))
    return page


def cell(page: Page, action: str) -> Any:
    return page.locator(f'#main-sheet td.legal button.move[data-action="{action}"]')


def rows(page: Page) -> Any:
    return page.locator("#puzzle-rows tr.po-row")


def test_a_puzzle_solved_in_the_page(puzzle_server: LiveServer, open_person: OpenPerson) -> None:
    server = puzzle_server
    person = open_person(viewport=DESKTOP)
    page = open_puzzles(person, server, "/puzzles?preset=yahtzee")
    first = page.url.rsplit("/", 1)[-1]
    expect(page.locator("#dice button.die")).to_have_count(5)
    assert shown_dice(page) == [6, 6, 6, 6, 6]
    expect(page.locator("#players .player")).to_have_count(2)
    expect(page.locator("#players .player.turn .player-name")).to_have_text("Player 1")
    expect(page.locator("#puzzle-result")).to_be_hidden()

    # The Yahtzee cell: the best move. Every option's value, the best first and chosen.
    cell(page, BEST).click()
    result = page.locator("#puzzle-result")
    expect(result).to_be_visible()
    expect(page.locator("#puzzle-verdict")).to_have_text(WORDS["en"]["best"])
    top = rows(page).first
    expect(top).to_have_class(re.compile(r"\bbest\b.*\bchosen\b"))
    expect(top.locator(".po-action")).to_contain_text("score Yahtzee")
    expect(top.locator(".tag.you")).to_have_text("your choice")
    answer = httpx.post(
        f"{server.url}/api/puzzles/{first}", json={"action": BEST}, timeout=30
    ).json()
    # The value, then (on a phone; hidden on a desktop) the chance of winning when it could be
    # judged in time (the variant's tables may still be loading at the first answer), to a
    # tenth where it is what the answer is graded by.
    value = re.escape(f"{answer['best']['value']:.1f}")
    expect(top.locator(".po-value")).to_have_text(re.compile(rf"^{value}(\d+(\.\d)?%|—)?$"))
    played = page.locator("#puzzle-rows tr.played")
    expect(played).to_have_count(1)
    expect(played.locator(".po-action")).to_contain_text("score Chance")
    expect(page.locator("#puzzle-summary")).to_contain_text("In the game, the player chose")
    # The same hold named by other positions is one row; all of them on asking.
    more = page.get_by_role("button", name=re.compile(r"^Show every option"))
    more.click()
    distinct = {o["action"] for o in answer["options"] if not o["action"].startswith("keep")}
    expect(rows(page)).to_have_count(len(distinct) + 4)  # and keeping one to four sixes
    expect(cell(page, BEST)).to_have_count(0)  # answered: no more cells to fill
    expect(page.locator("#roll-button")).to_be_disabled()

    # The next puzzle: hold two sixes and roll the other three, a mistake.
    page.get_by_role("button", name=WORDS["en"]["next"]).click()
    page.wait_for_url(re.compile(r"/puzzles/(?!" + re.escape(first) + r"$)[A-Za-z0-9_-]+$"))
    expect(page.locator("#puzzle-result")).to_be_hidden()
    expect(page.locator("#puzzle-question")).to_have_text(WORDS["en"]["ask"])
    for index in (0, 1):
        die = page.locator("#dice button.die").nth(index)
        die.click()
        expect(die).to_have_attribute("aria-pressed", "true")
    roll = page.locator("#roll-button")
    expect(roll).to_have_text("Roll 3 dice")
    roll.click()
    expect(page.locator("#puzzle-verdict")).to_contain_text(WORDS["en"]["mistake"])
    chosen = page.locator("#puzzle-rows tr.chosen")
    expect(chosen).to_have_count(1)
    expect(chosen.locator(".po-action")).to_contain_text("keep")
    expect(chosen.locator(".po-loss")).to_have_text(re.compile(r"^−\d"))
    # The verdict says the loss the row shows, in the same measure (points, or chance).
    lost = chosen.locator(".po-loss").inner_text().removeprefix("−")
    expect(page.locator("#puzzle-verdict")).to_contain_text(f"{lost} ")
    # The best hold's dice are starred on the tray (the best here is a cell: none is).
    expect(page.locator("#dice .die.advised")).to_have_count(0)

    # Back to the first puzzle by the browser's history: asked again, afresh.
    page.go_back()
    page.wait_for_url(re.compile(rf"/puzzles/{re.escape(first)}$"))
    expect(page.locator("#puzzle-question")).to_have_text(WORDS["en"]["ask"])
    person.assert_clean()


def test_a_preset_without_puzzles_says_so(
    puzzle_server: LiveServer, open_person: OpenPerson
) -> None:
    person = open_person(viewport=PHONE)
    page = person.page
    page.goto(f"{puzzle_server.url}/puzzles?preset=school&lang=en")
    expect(page.locator("#puzzle-empty")).to_be_visible()
    expect(page.locator("#puzzle-layout")).to_be_hidden()
    page.locator("#puzzle-preset").select_option("yahtzee")
    page.wait_for_url(re.compile(r"/puzzles/[A-Za-z0-9_-]+$"))
    expect(page.locator("#puzzle-empty")).to_be_hidden()
    expect(page.locator("#dice button.die")).to_have_count(5)
    page.goto(f"{puzzle_server.url}/puzzles/nope?lang=en")
    expect(page.locator("#puzzle-error")).to_have_text("This puzzle does not exist.")
    # The API's 404s (no puzzle of the preset, no such puzzle) are the console's only lines.
    assert person.console_errors and all("404" in line for line in person.console_errors)
    person.console_errors.clear()
    person.assert_clean()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(WORDS))
def test_the_page_in_every_language_on_a_phone_and_a_desktop(
    puzzle_server: LiveServer, open_person: OpenPerson, lang: str, size: str
) -> None:
    folder: Path = artifacts_dir() / "puzzles"
    folder.mkdir(parents=True, exist_ok=True)
    first = puzzle_ids(puzzle_server)[0]
    person = open_person(viewport=SIZES[size], reduced_motion="reduce")
    page = open_puzzles(person, puzzle_server, f"/puzzles/{first}", lang)
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR" if lang == "pt" else lang)
    expect(cell(page, BLUNDER)).to_be_visible()
    fits = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(fits), "the page scrolls sideways"
    screenshot(page, f"puzzles/{lang}-{size}-position")
    cell(page, BLUNDER).click()
    expect(page.locator("#puzzle-verdict")).to_contain_text(WORDS[lang]["mistake"])
    expect(page.locator("#puzzle-rows tr.best")).to_have_count(1)
    expect(page.get_by_role("button", name=WORDS[lang]["next"])).to_be_visible()
    assert page.evaluate(fits), "the answer scrolls sideways"
    screenshot(page, f"puzzles/{lang}-{size}-answer")
    person.assert_clean()
