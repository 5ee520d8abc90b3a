"""Finding your way in a real browser: the header's name leads to your player page and the
settings from there; the leaderboard is in the header's menu (a cup on a phone) and opens on the
visitor's best pool, not on an empty one.

The ratings are written into the server's database directly (accounts signed up over the API),
as in test_browser_players.py: which board opens depends only on those rows.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

import httpx
import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from browser_support import OpenPerson, Person, artifacts_dir, people, screenshot
from dicepoker.server.community.pools import default_pool
from dicepoker.server.storage.models import AccountRow, RatingRow
from dicepoker.server.storage.store import Store
from live_server import LiveServer

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")
PASSWORD: Final = "correct horse"
#: Each account's ratings: pool -> (mu, sigma, rated games). Nora's best is yahtzee (her highest
#: established rating; her School rating is higher but provisional); Omar has only provisional
#: ratings, the most games in yahtzee15; Pia has none.
RATINGS: Final[dict[str, dict[str, tuple[float, float, int]]]] = {
    "Nora_find": {
        "school-3": (33.0, 7.0, 3),
        "yahtzee": (27.0, 4.0, 12),
        "poker-dice": (25.0, 4.0, 11),
    },
    "Omar_find": {"school-4": (26.0, 7.0, 2), "yahtzee15": (24.0, 7.0, 6)},
    "Pia_find": {},
}
BEST: Final = {"Nora_find": "yahtzee", "Omar_find": "yahtzee15", "Pia_find": default_pool().id}


def _in_thread(coroutine: Any) -> Any:
    """Run a coroutine on a loop of its own (the browser's thread has one running)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _write_ratings(database: str) -> None:
    store = Store(database)
    try:
        async with store.sessions() as session, session.begin():
            ids = {row.name: row.id for row in await session.scalars(select(AccountRow))}
            for name, pools in RATINGS.items():
                for pool, (mu, sigma, games) in pools.items():
                    session.add(
                        RatingRow(account_id=ids[name], pool=pool, mu=mu, sigma=sigma, games=games)
                    )
    finally:
        await store.close()


@pytest.fixture(scope="module")
def rated(server: LiveServer) -> LiveServer:
    for name in RATINGS:
        response = httpx.post(
            server.url + "/api/accounts",
            json={"name": name, "password": PASSWORD},
            headers={"origin": server.url},
        )
        assert response.status_code == 201, response.text
    _in_thread(_write_ratings(server.database))
    (artifacts_dir() / "findable").mkdir(parents=True, exist_ok=True)  # the screenshots' folder
    return server


def _logged_in(open_person: OpenPerson, server: LiveServer, name: str, width: int) -> Person:
    person = open_person(viewport={"width": width, "height": 800}, reduced_motion="reduce")
    response = person.page.request.post(
        f"{server.url}/api/session",
        data={"name": name, "password": PASSWORD},
        headers={"origin": server.url},
    )
    assert response.status == 200, response.text()
    return person


def test_the_header_leads_to_your_page_and_the_settings_from_there(
    rated: LiveServer, open_person: OpenPerson
) -> None:
    person = _logged_in(open_person, rated, "Nora_find", 1280)
    page = person.page
    page.goto(rated.url + "/")
    page.locator(".site-header a.account-link").click()
    page.wait_for_url(f"{rated.url}/players/Nora_find")
    expect(page.locator(".player-title")).to_have_text("Nora_find")
    expect(page.locator(".site-header a.account-link")).to_have_attribute("aria-current", "page")
    page.get_by_role("link", name="Account settings").click()
    page.wait_for_url(f"{rated.url}/account")
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    # Another player's page has no settings of yours.
    page.goto(f"{rated.url}/players/Omar_find")
    expect(page.locator("#account-settings")).to_have_count(0)
    expect(page.locator(".site-header a.account-link")).not_to_have_attribute(
        "aria-current", "page"
    )
    person.assert_clean()


@pytest.mark.parametrize("name", list(RATINGS))
def test_the_leaderboard_is_in_the_menu_and_opens_on_your_best_pool(
    rated: LiveServer, open_person: OpenPerson, name: str
) -> None:
    person = _logged_in(open_person, rated, name, 1280)
    page = person.page
    page.goto(rated.url + "/daily")
    page.locator(".site-nav").get_by_role("link", name="Leaderboard").click()
    page.wait_for_url(f"{rated.url}/leaderboard")
    expect(page.locator("#pool")).to_have_value(BEST[name])
    if RATINGS[name]:
        expect(page.locator(".leaderboard-table")).to_contain_text(name)
    # A pool asked for is the one shown, whatever the visitor's best.
    page.goto(f"{rated.url}/leaderboard?pool=poker-dice")
    expect(page.locator("#pool")).to_have_value("poker-dice")
    person.assert_clean()


def test_an_anonymous_visitor_gets_the_default_board_and_a_phone_its_cup(
    rated: LiveServer, open_person: OpenPerson
) -> None:
    person = open_person(viewport={"width": 320, "height": 640}, reduced_motion="reduce")
    page = person.page
    page.goto(rated.url + "/")
    link = page.locator(".site-nav .nav-leaderboard")
    expect(link).to_be_visible()
    expect(link.locator(".nav-ico")).to_be_visible()  # the word stays for screen readers
    expect(link).to_have_accessible_name("Leaderboard")
    link.click()
    page.wait_for_url(f"{rated.url}/leaderboard")
    expect(page.locator("#pool")).to_have_value(default_pool().id)
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, overflow
    screenshot(page, "findable/leaderboard-320", full_page=False)
    person.assert_clean()
