"""A player page and the leaderboard in a real browser (Chromium through Playwright), in English,
Spanish and Portuguese, on a desktop and a phone: the rating graph drawn by the server and
readable at phone width, the stats and games, the pool picker, the links between the pages and
from the lobby; no script error and nothing the Content-Security-Policy refuses.

The history is written into the server's database directly (accounts signed up over the API):
what a player page shows is the same whichever way the rows came (tests/test_players_live.py
makes them by real games).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import httpx
import pytest
from playwright.sync_api import Browser, expect
from sqlalchemy import select

from browser_support import WORDS, OpenPerson, Person, artifacts_dir, number, people, screenshot
from dicepoker.server.community.pools import shown_rating
from dicepoker.server.storage.models import (
    AccountRow,
    GamePlayerRow,
    GameResultRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
)
from dicepoker.server.storage.store import Store
from live_server import LiveServer
from test_browser_a11y import AXE, check

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")
PASSWORD: Final = "correct horse"
START: Final = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
SIZES: Final = {"1280x900": (1280, 900), "375x667": (375, 667)}
#: Every Content-Security-Policy violation of a page, in window.__csp.
CSP_WATCH: Final = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
#: The ratings after each of Rosa's rated School games (mu, sigma): up, a dip, up again.
ROSA: Final = [(25.5, 7.8), (26.8, 7.2), (26.1, 6.9), (27.9, 6.3), (29.2, 5.8), (28.7, 5.5)]
WORDS_HERE: Final = {
    "en": {"ratings": "Ratings", "leaderboard": "Leaderboard", "stats": "Stats"},
    "es": {"ratings": "Puntuaciones", "leaderboard": "Clasificación", "stats": "Estadísticas"},
    "pt": {"ratings": "Ratings", "leaderboard": "Classificação", "stats": "Estatísticas"},
}


def axe_source() -> str:
    """axe-core's script (node_modules, installed by scripts/check-js)."""
    assert AXE.is_file(), f"{AXE} is missing: run `bash scripts/check-js` (npm ci) first"
    return AXE.read_text(encoding="utf-8")


def _in_thread(coroutine: Any) -> Any:
    """Run a coroutine on a loop of its own (the browser's thread has one running)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _sign_up(server: LiveServer, name: str) -> None:
    response = httpx.post(
        server.url + "/api/accounts",
        json={"name": name, "password": PASSWORD},
        headers={"origin": server.url},
    )
    assert response.status_code == 201, response.text


def _game(game_id: str, options: dict[str, Any], names: list[str], account: int) -> GameRow:
    seats: list[dict[str, Any]] = [
        {"kind": "human", "name": names[0], "token_hash": "0" * 64, "account": account}
    ]
    seats += [{"kind": "bot", "name": name, "level": "greedy"} for name in names[1:]]
    variant = "school" if "columns" in options else "yahtzee"
    return GameRow(
        id=game_id,
        variant=variant,
        options=options,
        seats=seats,
        status="finished",
        seq=40,
        turn_seconds=0,
        rated=True,
    )


async def _write_history(database: str) -> None:
    store = Store(database)
    try:
        async with store.sessions() as session:
            ids = {
                row.name: row.id
                for row in await session.scalars(select(AccountRow).order_by(AccountRow.id))
            }
        rosa = ids["Rosa"]
        rows: list[Any] = []
        for n, (mu, sigma) in enumerate(ROSA):
            game_id = f"rosa{n}"
            at = START + timedelta(days=7 * n)
            rows.append(_game(game_id, {"columns": 3}, ["Rosa", "Greedy 1"], rosa))
            rows.append(GamePlayerRow(game_id=game_id, seat=0, account_id=rosa, created_at=at))
            rows.append(
                GameResultRow(
                    game_id=game_id,
                    seat=0,
                    account_id=rosa,
                    variant="school",
                    pool="school-3",
                    players=2,
                    score=240 + 9 * n,
                    place=1 if n % 2 else 2,
                    tied=1,
                    zeros=n % 3,
                    stars=n % 2,
                    lost=14.0 + n,
                    decisions=52,
                    finished_at=at,
                )
            )
            rows.append(
                RatingChangeRow(
                    account_id=rosa,
                    game_id=game_id,
                    pool="school-3",
                    mu_before=mu - 1,
                    sigma_before=sigma + 0.3,
                    mu_after=mu,
                    sigma_after=sigma,
                    created_at=at,
                )
            )
        running = START + timedelta(days=60)
        rows.append(_game("rosa-now", {}, ["Rosa", "Greedy 1", "Greedy 2"], rosa))
        rows[-1].status = "running"
        rows.append(GamePlayerRow(game_id="rosa-now", seat=0, account_id=rosa, created_at=running))
        mu, sigma = ROSA[-1]
        rows.append(RatingRow(account_id=rosa, pool="school-3", mu=mu, sigma=sigma, games=6))
        for name, (mu, sigma, games) in {
            "Tomas": (31.0, 5.0, 14),
            "Ursula": (24.0, 7.0, 2),
            "Valdemar_de_Souza": (27.5, 4.5, 9),  # below Rosa's (28.7, 5.5)
        }.items():
            rows.append(
                RatingRow(account_id=ids[name], pool="school-3", mu=mu, sigma=sigma, games=games)
            )
        rows.append(RatingRow(account_id=ids["Tomas"], pool="yahtzee", mu=26, sigma=6, games=3))
        async with store.sessions() as session, session.begin():
            for row in rows:
                session.add(row)
                await session.flush()
    finally:
        await store.close()


@pytest.fixture(scope="module")
def history(server: LiveServer) -> Iterator[LiveServer]:
    for name in ("Rosa", "Tomas", "Ursula", "Valdemar_de_Souza"):
        _sign_up(server, name)
    _in_thread(_write_history(server.database))
    (artifacts_dir() / "players").mkdir(parents=True, exist_ok=True)  # the screenshots' folder
    yield server


def _open(open_person: OpenPerson, size: str, lang: str) -> Person:
    width, height = SIZES[size]
    phone = width < 600
    person = open_person(
        viewport={"width": width, "height": height},
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        locale={"en": "en-US", "es": "es-ES", "pt": "pt-BR"}[lang],
        reduced_motion="reduce",
    )
    person.page.add_init_script(CSP_WATCH)
    return person


def _clean(person: Person) -> None:
    """No script error or refused resource, and nothing wider than the screen."""
    page = person.page
    person.assert_clean()
    assert page.evaluate("window.__csp") == []
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, overflow


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_page(history: LiveServer, open_person: OpenPerson, size: str, lang: str) -> None:
    person = _open(open_person, size, lang)
    page = person.page
    words = WORDS_HERE[lang]
    page.goto(f"{history.url}/players/rosa?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", WORDS[lang]["html_lang"])
    expect(page.get_by_role("heading", level=1)).to_have_text("Rosa")
    expect(page.get_by_role("heading", name=words["ratings"])).to_be_visible()
    rating = page.locator(".rating-card[data-pool=school-3] .rating-number")
    expect(rating).to_be_visible()
    assert number(rating.inner_text()) == shown_rating(*ROSA[-1])
    # The graph: an image with its title, a point per rated game, readable labels.
    graph = page.get_by_role("img", name=re.compile("school|Escuela|Escola", re.I))
    expect(graph).to_be_visible()
    points = graph.locator("polyline").get_attribute("points") or ""
    assert len(points.split()) == len(ROSA)
    box = graph.bounding_box()
    assert box is not None and box["width"] <= SIZES[size][0]
    label_heights = graph.locator("text").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert label_heights and min(label_heights) >= 9, label_heights  # readable on a phone
    # Stats, and the games: the running one leads to its table, the others to their replays.
    expect(page.get_by_role("heading", name=words["stats"])).to_be_visible()
    expect(page.locator(".stat-card")).to_have_count(1)
    expect(page.locator(".stat-card dd")).to_have_count(7)  # School has stars
    expect(page.locator(".history-game")).to_have_count(len(ROSA) + 1)
    expect(page.locator('a[href="/g/rosa-now"]')).to_be_visible()
    expect(page.locator('a[href="/replay/g/rosa0#analysis"]')).to_have_count(1)
    _clean(person)
    screenshot(page, f"players/player-{lang}-{size}")


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_leaderboard(
    history: LiveServer, open_person: OpenPerson, size: str, lang: str
) -> None:
    person = _open(open_person, size, lang)
    page = person.page
    words = WORDS_HERE[lang]
    page.goto(f"{history.url}/?lang={lang}")
    # From the lobby's footer to the leaderboard.
    page.locator(".site-footer").get_by_role("link", name=words["leaderboard"]).click()
    page.wait_for_url(re.compile(r"/leaderboard$"))
    # What the lobby itself logs is test_browser_pages.py's to check; from here on, this page's.
    person.errors.clear()
    person.console_errors.clear()
    expect(page.get_by_role("heading", level=1)).to_have_text(words["leaderboard"])
    names = page.locator(".lb-name")
    expect(names).to_have_text(["Tomas", "Rosa", "Valdemar_de_Souza", "Ursula"])
    ratings = [number(text) for text in page.locator(".lb-rating").all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    _clean(person)
    screenshot(page, f"players/leaderboard-{lang}-{size}")
    # Another pool: picking it is enough (the script sends the form).
    page.locator("#pool").select_option("yahtzee")
    page.wait_for_url(re.compile(r"/leaderboard\?pool=yahtzee$"))
    expect(names).to_have_text(["Tomas"])
    # A name leads to the player's page.
    page.locator("#pool").select_option("school-3")
    page.wait_for_url(re.compile(r"pool=school-3$"))
    page.get_by_role("link", name="Rosa", exact=True).click()
    page.wait_for_url(re.compile(r"/players/Rosa$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Rosa")
    _clean(person)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_pages_are_axe_clean(
    history: LiveServer, browser: Browser, size: str, lang: str
) -> None:
    """No serious or critical axe-core violation, in the light and the dark theme (the context
    may inject axe-core: it bypasses the policy that the tests above check)."""
    source = axe_source()
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, bypass_csp=True, reduced_motion="reduce"
    )
    try:
        person = Person(context.new_page())
        for path in (f"/players/Rosa?lang={lang}", f"/leaderboard?lang={lang}"):
            person.page.goto(history.url + path)
            expect(person.page.locator("h1")).to_be_visible()
            check(person.page, source, path)
        person.assert_clean()
    finally:
        context.close()
