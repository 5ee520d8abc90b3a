"""The advisor in front of people: the table's hint, the analysis panel, the terminal's hints.

The browser tests run one `dicepoker serve` and one Chromium for the module; what the page shows
is checked against the server's own answers (`GET /api/games/{id}/advice` and `/analysis`). The
terminal test drives the app through Textual's Pilot and checks its hint panel against
`dicepoker.advisor.advise` for the same position.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser_support import Api, Person, screenshot, shown_dice
from dicepoker.advisor import advise
from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, Roll
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui import ImmediateAdvisor, LocalSession, PlayApp, parse_seats
from dicepoker.tui.hints import ExpectedScoreAdvisor, current_advisor
from dicepoker.tui.i18n import Words
from dicepoker.tui.widgets.hints_panel import LABEL_COLUMN, hint_label
from dicepoker.view import game_view
from live_server import LiveServer

expect.set_options(timeout=15_000)

CELL_VERBS = ("score", "strike", "zero")
#: A value on the page has one decimal: allow for its rounding.
SHOWN = 0.051


def shown_number(text: str) -> float:
    """A number as the page writes it (−3.2, 1,476.6) back to a float."""
    cleaned = text.strip().replace("\u2212", "-").replace(",", "")
    match = re.search(r"-?\d+(?:\.\d+)?", cleaned)
    assert match, f"no number in {text!r}"
    return float(match.group(0))


def is_cell(action: str) -> bool:
    return action.split()[0] in CELL_VERBS


def kept(action: str) -> list[int]:
    words = action.split()
    return [int(w) for w in words[1:]] if words[0] in ("keep", "hold") else []


def open_table(browser: Browser, server: LiveServer, game: dict[str, Any], seat: int) -> Person:
    """A person at the table of `game` holding the token of `seat` (as the lobby would keep it)."""
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    tokens = json.dumps({str(seat): game["seats"][seat]["token"]})
    context.add_init_script(
        f"localStorage.setItem({json.dumps('dicepoker:tokens:' + game['id'])}, "
        f"{json.dumps(tokens)})"
    )
    return Person(context.new_page())


def check_cells(page: Page, advice: dict[str, Any]) -> None:
    """Every highlighted cell shows its value as the advice has it: ★ on the best cell, the
    difference to it on the others, the expected final score in its title."""
    cells = [o for o in advice["options"] if is_cell(o["action"])]
    best = max(cells, key=lambda o: o["value"])
    moves = page.locator("#main-sheet td.legal button.move")
    expect(moves.locator(".adv")).to_have_count(len(cells))
    shown = moves.evaluate_all(
        "els => els.map(e => [e.dataset.action, e.querySelector('.adv').textContent, e.title,"
        " e.classList.contains('advised-best'), e.getAttribute('aria-label')])"
    )
    assert sorted(action for action, *_ in shown) == sorted(o["action"] for o in cells)
    values = {o["action"]: o["value"] for o in cells}
    for action, text, title, marked, label in shown:
        value = values[action]
        assert abs(shown_number(title) - value) <= SHOWN, (action, title, value)
        assert "expected final score" in label, label
        if action == best["action"]:
            assert text == "★" and marked, (action, text)
        else:
            assert not marked, action
            assert abs(shown_number(text) + (best["value"] - value)) <= SHOWN, (action, text)
    expect(page.locator("#main-sheet .advised-best")).to_have_count(1)


def check_panel(page: Page, advice: dict[str, Any], chosen: str) -> None:
    """The panel's best roll (its dice marked in the tray), the value of the hold chosen on the
    page, and the best cell, as the advice values them."""
    rolls = [o for o in advice["options"] if not is_cell(o["action"])]
    cells = [o for o in advice["options"] if is_cell(o["action"])]
    best_roll = max(o["value"] for o in rolls)
    panel = page.locator("#advice")
    expect(panel.locator(".adv-hold .adv-value")).to_have_count(1)
    assert (
        abs(shown_number(panel.locator(".adv-hold .adv-value").inner_text()) - best_roll) <= SHOWN
    )
    marked = page.locator("#dice .die").evaluate_all(
        "els => els.flatMap((e, i) => e.classList.contains('advised') ? [i] : [])"
    )
    keep = "keep " + " ".join(map(str, marked)) if marked else "roll"
    assert abs(next(o["value"] for o in rolls if o["action"] == keep) - best_roll) < 1e-9
    mine = next(o["value"] for o in rolls if o["action"] == chosen)
    expect(panel.locator(".adv-mine .adv-value")).to_have_text(re.compile(r"\d"))
    assert abs(shown_number(panel.locator(".adv-mine .adv-value").inner_text()) - mine) <= SHOWN
    best_cell = max(o["value"] for o in cells)
    assert (
        abs(shown_number(panel.locator(".adv-cell .adv-value").inner_text()) - best_cell) <= SHOWN
    )
    verdict = panel.locator(".adv-verdict").inner_text()
    if best_roll - best_cell > 0.05:
        assert verdict.startswith("Rolling again beats stopping by"), verdict
    elif best_cell - best_roll > 0.05:
        assert verdict.startswith("Stopping beats rolling again by"), verdict
    top = "adv-cell" if is_cell(advice["best"]["action"]) else "adv-hold"
    expect(panel.locator(f".{top}.top")).to_have_count(1)


def advice_for(api: Api, game_id: str, seq: int) -> dict[str, Any]:
    advice: dict[str, Any] = api.get(f"/api/games/{game_id}/advice")
    assert advice["seq"] == seq, (advice["seq"], seq)
    return advice


def test_hint_shows_the_advisors_values_on_the_table(
    server: LiveServer, api: Api, browser: Browser
) -> None:
    created = api.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 1},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
        },
    )
    assert created.status_code == 201, created.text
    game = created.json()
    person = open_table(browser, server, game, 0)
    page = person.page
    page.goto(server.url + game["url"])
    button = page.locator("#hint-button")
    # The button shows once the page knows it holds a seat (the server's welcome): before
    # that, H is not the player's key yet.
    expect(button).to_be_visible()
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#advice")).to_be_hidden()

    # Before the first roll: only rolling, with its expected final score.
    page.keyboard.press("h")
    expect(button).to_have_attribute("aria-pressed", "true")
    data = api.game(game["id"])
    advice = advice_for(api, game["id"], data["seq"])
    assert [o["action"] for o in advice["options"]] == ["roll"]
    value = page.locator("#advice .adv-roll .adv-value")
    expect(value).to_have_count(1)
    assert abs(shown_number(value.inner_text()) - advice["options"][0]["value"]) <= SHOWN

    # After the first roll: every cell valued, the best cell and the best hold marked.
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 2")
    data = api.game(game["id"])
    assert shown_dice(page) == data["state"]["turn"]["dice"]
    advice = advice_for(api, game["id"], data["seq"])
    check_cells(page, advice)
    check_panel(page, advice, "roll")
    screenshot(page, "hint-after-first-roll")

    # The hold chosen on the page is valued as the player changes it.
    page.locator("#dice button.die").nth(3).click()
    page.locator("#dice button.die").nth(1).click()
    expect(page.locator("#roll-button")).to_have_text("Roll 3 dice")
    check_panel(page, advice, "keep 1 3")

    # A new position (a second roll) brings new values.
    page.locator("#roll-button").click()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 1")
    seq = data["seq"] + 1
    api.wait_for_game(game["id"], lambda g: g["seq"] == seq)
    advice = advice_for(api, game["id"], seq)
    check_cells(page, advice)
    check_panel(page, advice, "keep 1 3")

    # The choice is remembered; H turns the hint off again.
    page.reload()
    expect(page.locator("#rolls-left")).to_have_text("Rolls left: 1")
    expect(button).to_have_attribute("aria-pressed", "true")
    check_cells(page, advice)
    page.keyboard.press("H")
    expect(page.locator("#advice")).to_be_hidden()
    expect(page.locator("#main-sheet .adv")).to_have_count(0)
    assert page.evaluate("localStorage.getItem('dicepoker:hint')") == "0"
    person.assert_clean()
    page.context.close()


def test_analysis_of_a_finished_game(server: LiveServer, api: Api, browser: Browser) -> None:
    created = api.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 1},
            "seats": [
                {"kind": "bot", "level": "greedy", "name": "Gus"},
                {"kind": "bot", "level": "random", "name": "Rita"},
            ],
        },
    )
    assert created.status_code == 201, created.text
    game = created.json()
    api.wait_for_game(game["id"], lambda g: g["status"] == "finished", timeout=30)
    analysis: dict[str, Any] = api.get(f"/api/games/{game['id']}/analysis")
    # The seat that played each turn: a decision is named by its player's own turn number.
    seat_of_turn: list[int] = api.get(f"/api/games/{game['id']}/position?turn=0")["seats"]

    person = open_table(browser, server, game, 0)
    page = person.page
    page.goto(server.url + game["url"])
    expect(page.locator("#end")).to_be_visible()
    cards = page.locator("#analysis .an-player")
    expect(cards).to_have_count(len(analysis["players"]))
    screenshot(page, "analysis-end-screen")
    for card, player in zip(cards.all(), analysis["players"], strict=True):
        expect(card.locator(".an-name")).to_have_text(player["name"])
        assert shown_number(card.locator(".an-decisions dd").inner_text()) == player["decisions"]
        assert shown_number(card.locator(".an-mistakes dd").inner_text()) == player["mistakes"]
        lost = shown_number(card.locator(".an-loss dd").inner_text())
        assert abs(lost - player["expected_loss"]) <= SHOWN
        mean = shown_number(card.locator(".an-mean dd").inner_text())
        assert abs(mean - player["mean_loss"]) <= 0.0051
        # The key moments (those that lost at least the tenth of a point shown) come first; the
        # table lists the worst moves they do not already show.
        moments = [d for d in player["key_moments"] if d["loss"] >= 0.05][:3]
        expect(card.locator(".an-moments li")).to_have_count(len(moments))
        others = [d for d in player["worst"] if d not in moments]
        rows = card.locator(".an-worst tbody tr")
        expect(rows).to_have_count(len(others))
        for row, worst in zip(rows.all(), others, strict=True):
            own_turn = seat_of_turn[: worst["turn"]].count(player["seat"])
            assert shown_number(row.locator("th").inner_text()) == own_turn
            assert abs(-shown_number(row.locator(".an-lost").inner_text()) - worst["loss"]) <= SHOWN
            assert ("mistake" in (row.get_attribute("class") or "")) == (worst["loss"] > 1.0)

    # The replay viewer: the same panel, and the losses of the turn shown.
    turn = next(d["turn"] for d in analysis["decisions"] if d["loss"] > 1.0)
    mine = [d for d in analysis["decisions"] if d["turn"] == turn]
    page.goto(f"{server.url}/replay/g/{game['id']}?turn={turn - 1}&roll=1")
    expect(page.locator("#analysis .an-player")).to_have_count(len(analysis["players"]))
    items = page.locator("#turn-analysis .ta-item")
    expect(items).to_have_count(len(mine))
    for item, decision in zip(items.all(), mine, strict=True):
        assert abs(-shown_number(item.locator(".ta-loss").inner_text()) - decision["loss"]) <= SHOWN
        assert ("mistake" in (item.get_attribute("class") or "")) == (decision["loss"] > 1.0)
    expect(page.locator("#turn-analysis .ta-item.mistake")).not_to_have_count(0)
    person.assert_clean()
    page.context.close()


# --- the terminal ---------------------------------------------------------------------------


def position(variant: str, options: dict[str, Any], turns: int, seed: int) -> LocalSession:
    """A game between Ana and Bea, played by bots up to `turns`, with the dice just rolled."""
    game = Game(get_rules(variant, options), ["Ana", "Bea"], SeededDice(seed))
    bots = [make_bot("greedy"), make_bot("random", seed)]
    while game.state.turn < turns:
        game.play(bots[game.state.seat].choose(game.state))
    game.play("roll")
    return LocalSession(game, parse_seats("human:Ana,human:Bea"), bot_delay=0)


def distinct_options(state: GameState) -> dict[str, float]:
    """action -> value of every option, holds that keep the same faces once (as the panel)."""
    seen: set[tuple[int, ...]] = set()
    out: dict[str, float] = {}
    for option in advise(state).options:
        if isinstance(option.action, Roll):
            faces = tuple(sorted(state.dice[p] for p in option.action.keep))
            if faces in seen:
                continue
            seen.add(faces)
        out[str(option.action)] = option.value
    return out


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run an app scenario on its own event loop, in a thread of its own: the browser tests of
    this module keep Playwright's loop running in this one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, scenario()).result()


async def until(pilot: Any, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        await pilot.pause()


def panel_lines(text: str) -> list[tuple[str, str]]:
    """(label, value) of each line of the hint panel on the screen."""
    lines = text.splitlines()
    top = next(n for n, line in enumerate(lines) if "Hints · " in line)
    x = lines[top].index("Hints · ")
    out = []
    for line in lines[top + 1 :]:
        match = re.match(r"^(\S.*?)\s+(−?\d+\.\d)$", line[x:].rstrip())
        if not match:
            break
        out.append((match.group(1), match.group(2)))
    return out


@pytest.mark.parametrize(
    ("variant", "options", "turns"),
    [("school", {"columns": 1}, 6), ("yahtzee", {}, 6)],
)
def test_terminal_hints_show_the_advisors_values(
    variant: str, options: dict[str, Any], turns: int
) -> None:
    session = position(variant, options, turns, seed=11)
    state = session.state
    values = distinct_options(state)
    words = Words("en")
    view = game_view(state).to_data()
    label_of = {hint_label(words, view, action, LABEL_COLUMN - 1): action for action in values}

    def actions_of(label: str) -> list[str]:
        """The actions a panel line's label may stand for (a cell move reads as its cell)."""
        return [label_of[label.strip()]]

    async def scenario() -> None:
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(110, 60)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            await pilot.press("h")
            text = app.screen_text()
            assert "Hints · expected final score" in text
            lines = panel_lines(text)
            assert len(lines) >= 10, text
            best = max(values.values())
            first_label, first_value = lines[0]
            assert abs(float(first_value.replace("−", "-")) - best) <= SHOWN, lines[0]
            assert any(abs(values[a] - best) < 1e-9 for a in actions_of(first_label))
            for label, shown in lines:
                value = float(shown.replace("−", "-"))
                assert any(abs(value - values[a]) <= SHOWN for a in actions_of(label)), label
            shown_values = [float(v.replace("−", "-")) for _, v in lines]
            assert shown_values == sorted(shown_values, reverse=True)

    run(scenario)


def test_the_advisor_and_its_fallback() -> None:
    session = position("school", {"columns": 1}, 8, seed=3)
    state = session.state
    view = game_view(state).to_data()
    advisor = current_advisor()
    assert isinstance(advisor, ExpectedScoreAdvisor)
    hints = advisor(view, state)
    assert advisor.title == "expected final score"
    # The values as the advice's JSON gives them (the web's and the server's, rounded there).
    said = {action: round(value, 4) for action, value in distinct_options(state).items()}
    assert {hint.action: hint.value for hint in hints} == said
    assert hints[0].value == round(advise(state).best.value, 4)
    legal = {option["action"]: option for option in view["turn"]["legal"]}
    for hint in hints:
        if is_cell(hint.action):
            assert hint.points == legal[hint.action]["points"]
    # A game of the web app: the view alone, so the gains of the cells now.
    remote = advisor(view, None)
    assert advisor.title == ImmediateAdvisor.title
    assert remote == ImmediateAdvisor()(view, None)
    # Before the first roll: the value of rolling.
    before = Game(state.rules, ["Ana", "Bea"], SeededDice(1))
    assert [hint.action for hint in advisor(game_view(before.state).to_data(), before.state)] == [
        "roll"
    ]
