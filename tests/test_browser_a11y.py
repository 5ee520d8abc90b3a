"""axe-core in a real browser: no serious or critical violation on any page a player sees.

The lobby, the table (before a roll, after a roll, with the hint on, a poker-dice table with its
card dice), the end screen, the replay viewer and a puzzle (before and after its answer), at a
desktop and a phone size, in every language, in the light and the dark theme. axe-core is the
npm package of package.json (node_modules/axe-core, installed by scripts/check-js, which
scripts/test runs first), injected into each page by Playwright; the contexts bypass the pages'
Content-Security-Policy for that one inline script (the policy itself is checked in
test_browser_pages.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from browser_support import ROOT, WORDS, Api, with_tokens
from browser_support import Person as _Person
from live_server import LiveServer
from puzzle_support import puzzle_server

expect.set_options(timeout=15_000)

AXE: Final = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SIZES: Final[dict[str, ViewportSize]] = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 375, "height": 667},
}
#: Colours change with a transition on some controls: axe reads them at their end at once.
NO_TRANSITIONS: Final = "*, *::before, *::after { transition: none !important; }"
#: Runs axe on the document; answers the serious and critical violations, each with where.
RUN_AXE: Final = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => [n.target.join(" "), n.failureSummary]),
    }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        missing = AXE.relative_to(ROOT)
        pytest.fail(f"{missing} is missing: run `bash scripts/check-js` (npm ci) first")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def puzzles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own with a puzzle (see `puzzle_support.puzzle_server`)."""
    live = puzzle_server(str(tmp_path_factory.mktemp("a11y-puzzles") / "games.db"))
    yield live
    live.stop()


def violations(page: Page, axe_source: str) -> list[dict[str, Any]]:
    """The serious and critical axe-core violations of what `page` shows now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source)
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found


def check(page: Page, axe_source: str, where: str) -> None:
    """No serious or critical violation on `page` in either theme (the page's theme switch)."""
    page.add_style_tag(content=NO_TRANSITIONS)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect(page.locator("html")).to_have_attribute("data-theme", scheme)
        found = violations(page, axe_source)
        assert found == [], f"{where} ({scheme}): {json.dumps(found, indent=1)}"


@pytest.fixture
def person_at(browser: Browser) -> Iterator[Any]:
    """person_at(size) -> a Person whose context may inject axe-core (bypass_csp)."""
    contexts = []

    def make(size: str) -> _Person:
        context = browser.new_context(
            viewport=SIZES[size], bypass_csp=True, reduced_motion="reduce"
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        return _Person(context.new_page())

    yield make
    for context in contexts:
        context.close()


def create(api: Api, variant: str, seats: list[dict[str, str]]) -> dict[str, Any]:
    response = api.post("/api/games", {"variant": variant, "options": {}, "seats": seats})
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


ANA_AND_A_BOT: Final = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
TWO_BOTS: Final = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}]


def roll_once(page: Page) -> None:
    button = page.locator("#roll-button")
    expect(button).to_be_enabled()
    before = page.locator("#rolls-left").inner_text()
    button.click()
    expect(page.locator("#rolls-left")).not_to_have_text(before)
    expect(page.locator("#main-sheet td.legal").first).to_be_visible()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(WORDS))
def test_every_page_is_axe_clean(
    server: LiveServer, api: Api, person_at: Any, axe_source: str, lang: str, size: str
) -> None:
    person = person_at(size)
    page = person.page
    page.goto(f"{server.url}/?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", WORDS[lang]["html_lang"])
    expect(page.locator("#variant-cards input").first).to_be_visible()
    check(page, axe_source, "lobby")

    school = create(api, "school", ANA_AND_A_BOT)
    with_tokens(person, school, 0)
    page.goto(f"{server.url}/g/{school['id']}")
    expect(page.locator("#roll-button")).to_be_enabled()
    check(page, axe_source, "table before a roll")
    roll_once(page)
    check(page, axe_source, "table after a roll")
    hint = page.locator("#hint-button")
    hint.click()
    expect(hint).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#main-sheet .move .adv").first).to_be_visible()
    check(page, axe_source, "table with the hint")

    cards = create(api, "poker-dice", ANA_AND_A_BOT)
    with_tokens(person, cards, 0)
    page.goto(f"{server.url}/g/{cards['id']}")
    roll_once(page)
    expect(page.locator("#dice .die.card").first).to_be_visible()
    check(page, axe_source, "poker-dice table after a roll")

    finished = create(api, "school", TWO_BOTS)
    api.wait_for_game(finished["id"], lambda g: g["status"] == "finished", timeout=60)
    page.goto(f"{server.url}/g/{finished['id']}")
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#analysis")).to_be_visible()
    check(page, axe_source, "end screen")

    page.goto(f"{server.url}/replay/g/{finished['id']}")
    expect(page.locator("#replay-position")).not_to_be_empty()
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".replay-log li.current").first).to_be_visible()
    check(page, axe_source, "replay viewer")

    page.goto(f"{server.url}/daily")
    expect(page.locator(".daily-card[aria-busy='false']").first).to_be_visible()
    expect(page.locator(".daily-card[aria-busy='true']")).to_have_count(0)
    check(page, axe_source, "daily challenge")
    person.assert_clean()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(WORDS))
def test_the_puzzles_page_is_axe_clean(
    puzzles: LiveServer, person_at: Any, axe_source: str, lang: str, size: str
) -> None:
    """The puzzles page before and after an answer (a puzzle from a game that scored a
    Yahtzee as Chance)."""
    person = person_at(size)
    page = person.page
    page.goto(f"{puzzles.url}/puzzles?preset=yahtzee&lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", WORDS[lang]["html_lang"])
    expect(page.locator("#main-sheet td.legal button.move").first).to_be_visible()
    check(page, axe_source, "puzzle")
    page.locator("#main-sheet td.legal button.move").first.click()
    expect(page.locator("#puzzle-rows tr.chosen")).to_have_count(1)
    check(page, axe_source, "puzzle answered")
    person.assert_clean()


def test_axe_finds_what_it_should(person_at: Any, server: LiveServer, axe_source: str) -> None:
    """The check itself can fail: a low-contrast text and a button named unlike its text."""
    page = person_at("desktop").page
    page.goto(f"{server.url}/")
    page.evaluate(
        """() => {
          const p = document.createElement("p");
          p.textContent = "faint"; p.style.color = "#777"; p.style.background = "#666";
          const b = document.createElement("button");
          b.textContent = "Roll"; b.setAttribute("aria-label", "Something else");
          document.querySelector("main").append(p, b);
        }"""
    )
    ids = {v["id"] for v in violations(page, axe_source)}
    assert {"color-contrast", "label-content-name-mismatch"} <= ids, ids


# --- keys and focus ----------------------------------------------------------------------------

ACTIVE: Final = """() => {
  const a = document.activeElement;
  if (!a || a === document.body) return "body";
  if (!a.closest("#table-layout")) return "outside the table: " + a.outerHTML.slice(0, 60);
  return a.id || a.dataset.action || a.tagName;
}"""


def rolls_of(api: Api, game_id: str) -> int:
    turn = api.game(game_id)["state"]["turn"]
    rolls: int = turn["rolls"] if turn else 0
    return rolls


def test_space_and_enter_press_the_focused_control_and_focus_stays_on_the_table(
    server: LiveServer, api: Api, person_at: Any
) -> None:
    person = person_at("desktop")
    page = person.page
    game = create(api, "school", ANA_AND_A_BOT)
    game_id = game["id"]
    with_tokens(person, game, 0)
    page.goto(f"{server.url}/g/{game_id}")
    roll = page.locator("#roll-button")
    expect(roll).to_be_enabled()
    page.keyboard.press("r")  # R rolls
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")

    # Space and Enter on a die hold and release it; no roll.
    first = page.locator("#dice button.die").first
    first.focus()
    page.keyboard.press("Space")
    expect(first).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    expect(first).to_have_attribute("aria-pressed", "false")
    # Space on the hint button turns the hint on and off; no roll.
    hint = page.locator("#hint-button")
    hint.focus()
    page.keyboard.press("Space")
    expect(hint).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Space")
    expect(hint).to_have_attribute("aria-pressed", "false")
    assert rolls_of(api, game_id) == 1
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")

    # Space on a cell fills it (and does not roll); the focus stays on the table.
    page.keyboard.press("ArrowDown")
    cell = page.locator("#main-sheet button.move").first
    expect(cell).to_be_focused()
    action = cell.get_attribute("data-action")
    seq = api.game(game_id)["seq"]
    page.keyboard.press("Space")
    if (action or "").split()[0] in ("zero", "strike"):  # asked twice: the first press arms it
        expect(page.locator(f'#main-sheet button.move[data-action="{action}"]')).to_have_class(
            re.compile(r"\barmed\b")
        )
        assert api.game(game_id)["seq"] == seq
        page.keyboard.press("Space")
    api.wait_for_game(game_id, lambda g: g["seq"] > seq)
    assert api.record(game_id)["turns"][0]["move"] == action
    page.wait_for_function(f"() => ({ACTIVE})() !== {json.dumps(action)}")
    assert page.evaluate(ACTIVE) not in ("body", action)
    assert not str(page.evaluate(ACTIVE)).startswith("outside")

    # The bot plays; on Ana's turn the focus is on the roll button, and Enter presses it.
    expect(roll).to_be_enabled()
    expect(roll).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    assert rolls_of(api, game_id) == 1
    # Enter on a cell fills it; the focus goes to the cell just filled (the bot's turn now).
    page.keyboard.press("ArrowDown")
    cell = page.locator("#main-sheet button.move").first
    expect(cell).to_be_focused()
    action = cell.get_attribute("data-action")  # read first: once filled, the cell is gone
    seq = api.game(game_id)["seq"]
    page.keyboard.press("Enter")
    if (action or "").split()[0] in ("zero", "strike"):
        page.keyboard.press("Enter")  # asked twice: the focus stays on the armed cell
    api.wait_for_game(game_id, lambda g: g["seq"] > seq)
    page.wait_for_function(f"() => ['TD', 'roll-button'].includes(({ACTIVE})())")
    person.assert_clean()
