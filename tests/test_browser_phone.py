"""The table on a phone, measured in the browser: a compact header, the dice panel (dice, roll
button, rolls left) pinned on the screen with at least eight rows of the sheet beside it, and
nothing ever drawn over a cell, at 375x667 and 360x640; toasts never over a sheet (phone and
desktop). At 320 px, in each language, no page is wider than the screen (what is wider scrolls
in a box of its own and shows that it does), the table's title is the game's name and its
"Copy link" is in the menu while the game runs.

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a context per person.
"""

from __future__ import annotations

import re
from typing import Any, Final

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect, Locator, Page, ViewportSize, expect

from browser_support import (
    Api,
    OpenPerson,
    artifacts_dir,
    box_of,
    people,
    screenshot,
    with_tokens,
)
from live_server import LiveServer

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")

PHONES: Final[dict[str, ViewportSize]] = {
    "375x667": {"width": 375, "height": 667},
    "360x640": {"width": 360, "height": 640},
}
#: The boxes of the dice panel, and for each row of the sheets whether it is wholly shown (in
#: the sheets' box, on the screen) and whether each of its cells is the topmost thing at the
#: centre of its shown part (not covered).
MEASURE: Final = """() => {
  const box = (selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  };
  const height = window.innerHeight;
  // What the sheets' box shows of its rows (the rest is scrolled out of it, clipped).
  const sheets = box(".sheets");
  const low = Math.max(sheets.top, 0), high = Math.min(sheets.bottom, height);
  const rows = [...document.querySelectorAll(".sheets tbody tr")].map((row) => {
    const r = row.getBoundingClientRect();
    const shown = r.top >= low - 0.5 && r.bottom <= high + 0.5 && r.height > 0;
    const partly = r.bottom > low + 1 && r.top < high - 1;
    const covering = [...row.children].map((cell) => {
      const c = cell.getBoundingClientRect();
      const y = (Math.max(c.top, low) + Math.min(c.bottom, high)) / 2;
      const hit = document.elementFromPoint(c.left + c.width / 2, y);
      if (hit !== null && cell.contains(hit)) return null;
      return hit ? hit.outerHTML.slice(0, 80) : "nothing";
    }).filter((what) => what !== null);
    const where = `${row.textContent.trim().slice(0, 20)} ${r.top}-${r.bottom}: ${covering[0]}`;
    return { shown, partly, uncovered: covering.length === 0, where };
  });
  return {
    height,
    header: box(".site-header"),
    felt: box(".felt"),
    sheets,
    dice: box("#dice"),
    roll: box("#roll-button"),
    rollsLeft: box("#rolls-left"),
    rows,
    scrollable: (() => {
      const s = document.querySelector(".sheets");
      return s.scrollHeight - s.clientHeight;
    })(),
    pageScroll: document.documentElement.scrollHeight - document.documentElement.clientHeight,
  };
}"""


def on_screen(box: dict[str, float], height: int) -> bool:
    return box["top"] >= 0 and box["bottom"] <= height and box["bottom"] > box["top"]


def check_layout(page: Page, where: str) -> dict[str, Any]:
    """The panel is on the screen, eight rows or more beside it, no cell covered."""
    m: dict[str, Any] = page.evaluate(MEASURE)
    height = m["height"]
    for part in ("dice", "roll", "rollsLeft"):
        assert on_screen(m[part], height), (where, part, m[part])
    assert m["header"]["bottom"] - m["header"]["top"] <= 48, (where, m["header"])
    # The panel ends where the sheets' box begins: it is never over the cells.
    assert m["felt"]["bottom"] <= m["sheets"]["top"] + 0.5, (where, m["felt"], m["sheets"])
    shown = sum(1 for row in m["rows"] if row["shown"])
    assert shown >= 8, (where, shown, m)
    covered = [row["where"] for row in m["rows"] if row["partly"] and not row["uncovered"]]
    assert covered == [], (where, covered)
    # The sheets scroll below the panel, not the page under it.
    assert m["pageScroll"] <= 1, (where, m["pageScroll"])
    return m


def create(api: Api) -> dict[str, Any]:
    seats = [{"kind": "human", "name": "Kai"}, {"kind": "bot", "level": "greedy"}]
    body = {"variant": "school", "options": {"columns": 3}, "seats": seats}
    response = api.post("/api/games", body)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


@pytest.mark.parametrize("size", list(PHONES))
def test_phone_table_keeps_the_dice_and_eight_rows_on_screen(
    server: LiveServer, api: Api, open_person: OpenPerson, size: str
) -> None:
    person = open_person(
        viewport=PHONES[size],
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        reduced_motion="reduce",
    )
    page = person.page
    game = create(api)
    with_tokens(person, game, 0)
    page.goto(f"{server.url}/g/{game['id']}")
    button = page.locator("#roll-button")
    expect(button).to_be_enabled()
    check_layout(page, "before a roll")
    button.tap()
    expect(page.locator("#main-sheet td.legal").first).to_be_visible()
    before = check_layout(page, "after a roll")
    assert before["scrollable"] > 0, "the sheet is longer than the screen: it scrolls"

    # Scrolled to the middle and to the end of the sheet: the panel stays, no cell is covered.
    for where in ("middle", "end"):
        page.evaluate(
            "(where) => { const s = document.querySelector('.sheets');"
            " s.scrollTop = where === 'end' ? s.scrollHeight : s.scrollHeight / 2; }",
            where,
        )
        after = check_layout(page, f"scrolled to the {where}")
        assert after["dice"] == before["dice"], "the dice do not move when the sheet scrolls"

    # The last highlighted cell is reached by scrolling the sheet, and tapped.
    cell = page.locator("#main-sheet td.legal button.move:not(.side)").last
    scrolled_to(cell)
    expect(cell).to_be_in_viewport()
    check_layout(page, "at the last cell")
    seq = api.game(game["id"])["seq"]
    cell.tap()
    api.wait_for_game(game["id"], lambda g: g["seq"] > seq)
    screenshot(page, f"layout/phone-{size}-played", full_page=False)
    person.assert_clean()


def scrolled_to(cell: Locator) -> None:
    """Scroll `cell` into view. The table is drawn again when news comes after the event (the
    chances, which follow each event), which replaces the element being scrolled to:
    then the new one."""
    for _ in range(5):
        try:
            cell.scroll_into_view_if_needed()
            return
        except PlaywrightError as error:
            if "not attached" not in error.message:
                raise
    cell.scroll_into_view_if_needed()


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("size", ["1280x900", "375x667"])
def test_toasts_never_cover_a_sheet(
    server: LiveServer, api: Api, open_person: OpenPerson, size: str
) -> None:
    width, height = (int(n) for n in size.split("x"))
    person = open_person(viewport={"width": width, "height": height}, reduced_motion="reduce")
    page = person.page
    game = create(api)
    with_tokens(person, game, 0)
    page.goto(f"{server.url}/g/{game['id']}")
    expect(page.locator("#roll-button")).to_be_enabled()
    # The page's own toasts, three at once (as copying a link, a refusal and a notice would).
    page.evaluate(
        "async () => { const { toast } = await import('/static/js/common.js');"
        " toast('Link copied.'); toast('That cell is taken: choose another one.', 'error');"
        " toast('A notice that runs long enough to take two lines on a phone screen.'); }"
    )
    toasts = page.locator("#toasts .toast.show")
    expect(toasts).to_have_count(3)
    sheets = page.locator(".sheet-card")
    expect(sheets.first).to_be_visible()
    for t in range(3):
        box = box_of(toasts.nth(t))
        assert box is not None
        for s in range(sheets.count()):
            sheet = box_of(sheets.nth(s))
            if sheet is None:
                continue
            assert not overlaps(box, sheet), (t, box, s, sheet)
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, box
    screenshot(page, f"layout/toasts-{size}", full_page=False)
    person.assert_clean()


#: What makes the page wider than the screen, or sticks out of it other than inside a box that
#: scrolls sideways (which shows a cue, scrollcue.js) or one for screen readers: none, once the
#: page is drawn.
STICKING_OUT: Final = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const page = document.documentElement.scrollWidth;
  if (page > width) out.push(`page ${page} > ${width}`);
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll" || p.classList.contains("sr-only")) return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("main *, .site-header *")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || el.classList.contains("sr-only")) continue;
    if ((r.right > width + 1 || r.left < -1) && !scrolls(el)) {
      const name = `${el.tagName.toLowerCase()}.${el.className}`;
      out.push(`${name} ${Math.round(r.left)}-${Math.round(r.right)}`);
    }
  }
  return out;
}"""
NARROW: Final[ViewportSize] = {"width": 320, "height": 640}


def check_fits(page: Page, where: str) -> None:
    """The page fits the screen once its scripts have drawn it (polled), else what sticks out."""
    try:
        page.wait_for_function(f"({STICKING_OUT})().length === 0", timeout=10_000)
    except PlaywrightError:
        raise AssertionError((where, page.evaluate(STICKING_OUT))) from None


def finished_game(api: Api) -> str:
    """A School game of two bots, played to its end (at once: the test server's bots wait for
    nothing)."""
    seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "casual"}]
    response = api.post(
        "/api/games", {"variant": "school", "options": {"columns": 3}, "seats": seats}
    )
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    api.wait_for_game(game_id, lambda g: g["status"] == "finished", timeout=60.0)
    return game_id


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_no_page_is_wider_than_a_320_px_phone(
    server: LiveServer, api: Api, open_person: OpenPerson, lang: str
) -> None:
    signed = httpx.post(
        server.url + "/api/accounts",
        json={"name": f"Narrow_{lang}", "password": "correct horse"},
        headers={"origin": server.url},
    )
    assert signed.status_code == 201, signed.text
    person = open_person(
        viewport=NARROW,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        reduced_motion="reduce",
    )
    page = person.page
    logged = page.request.post(
        f"{server.url}/api/session",
        data={"name": f"Narrow_{lang}", "password": "correct horse"},
        headers={"origin": server.url},
    )
    assert logged.status == 200, logged.text()
    running = create(api)
    with_tokens(person, running, 0)
    done = finished_game(api)
    (artifacts_dir() / "phone320").mkdir(parents=True, exist_ok=True)
    pages = {
        "lobby": "/",
        "daily": "/daily",
        "table": f"/g/{running['id']}",
        "replay": f"/replay/g/{done}",
        "puzzles": "/puzzles",
        "player": f"/players/Narrow_{lang}",
        "leaderboard": "/leaderboard",
    }
    for name, path in pages.items():
        page.goto(f"{server.url}{path}?lang={lang}")
        page.wait_for_load_state("networkidle")
        check_fits(page, f"{name} {lang}")
        screenshot(page, f"phone320/{name}-{lang}", full_page=False)
        if name == "puzzles":
            # No game has made a puzzle on this server: the API's 404 is the console's only line.
            assert all("404" in line for line in person.console_errors), person.console_errors
            person.console_errors.clear()
        if name == "table":
            # The game's name, not a letter; "Copy link" one tap away in the menu.
            expect(page.locator("#game-title")).to_have_text(re.compile(r"^\S{4,}"))
            title = box_of(page.locator("#game-title"))
            assert title is not None and title["width"] >= 48, title
            page.locator("#more-button").tap()
            expect(page.locator("#share-button")).to_be_visible()
            check_fits(page, f"the table's menu {lang}")
            screenshot(page, f"phone320/table-menu-{lang}", full_page=False)
            page.keyboard.press("Escape")
            expect(page.locator("#share-button")).to_be_hidden()
        if name == "replay":
            # The analysis' tables are wider than the phone: they scroll, and show it.
            wide = page.locator(".an-table-wrap").first
            expect(wide).to_be_attached()
            assert wide.evaluate("(box) => box.scrollWidth > box.clientWidth")
            expect(wide).to_have_class(re.compile(r"\bcue-right\b"))
    person.assert_clean()
