"""Who is winning, in a real browser: each player's chance of finishing first on the table.

The server sends `win_probability` (one chance per seat, summing to 1) with every position of a
game with rivals once it has judged it (docs/api.md); the table draws a bar per player in the
players' strip (role="meter", its whole percentage in aria-valuenow) with the percentage under
the player's total. Checked here: a spectator and a player see the bars, they agree with the
server's chances and sum to 100 %, they move as the game goes and the page keeps their history
by seq; a position the server did not judge keeps the last bars, dimmed; a solitaire game has
none. Screenshots at a phone and a desktop size in every language go to
test-artifacts/winprob/.

As in test_browser.py: one `dicepoker serve` (bots instant) and one Chromium per module, a
context per person. Ana's seat is played over the WebSocket (tests/ws_client.py), so that the
game waits at her turn: a stable position to look at.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, Final

import pytest
from playwright.sync_api import Page, Route, ViewportSize, WebSocketRoute, expect

from browser_support import Api, OpenPerson, artifacts_dir, box_of, people, screenshot, with_tokens
from dicepoker import i18n
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")

SIZES: Final[dict[str, ViewportSize]] = {
    "phone": {"width": 375, "height": 812},
    "desktop": {"width": 1280, "height": 800},
    "narrow": {"width": 320, "height": 640},
}
METERS: Final = "#players [role=meter]"
#: The whole percentages of the meters (aria-valuenow), null where one has none.
READ: Final = """() => [...document.querySelectorAll("#players [role=meter]")].map((m) => {
  const now = m.getAttribute("aria-valuenow");
  return m.hidden || now === null ? null : Number(now);
})"""
#: Whether the meters show `expected` (each within one point: the rounding's remainder).
SHOWS: Final = """(expected) => {
  const meters = [...document.querySelectorAll("#players [role=meter]")];
  if (meters.length !== expected.length) return false;
  return meters.every((m, i) => !m.hidden && m.getAttribute("aria-valuenow") !== null
    && Math.abs(Number(m.getAttribute("aria-valuenow")) - expected[i]) <= 1);
}"""
#: Mark the meters, and whether they are the marked ones (not drawn afresh).
MARK: Final = """() => { for (const m of document.querySelectorAll("#players [role=meter]"))
  m.dataset.mark = "1"; }"""
MARKED: Final = """() => [...document.querySelectorAll("#players [role=meter]")]
  .map((m) => m.dataset.mark === "1")"""
#: How long the fill of a bar takes to slide to a new width.
FILL_TRANSITION: Final = """() => getComputedStyle(document.querySelector("#players .chance-fill"))
  .transitionDuration.split(",")[0].trim()"""
#: The page's history of the chances (chances.js, the very module the page runs).
HISTORY: Final = """async () => {
  const src = document.querySelector("script[type=module]").src;
  const chances = await import(new URL("chances.js", src).href);
  return chances.chanceHistory();
}"""


def whole_percents(values: list[float]) -> list[int]:
    """The server's chances as whole percentages summing to 100 (largest remainders), as the
    page rounds them."""
    total = sum(values)
    raw = [v / total * 100 for v in values]
    whole = [math.floor(v + 1e-9) for v in raw]
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - whole[i]), i))
    for i in order[: 100 - sum(whole)]:
        whole[i] += 1
    return whole


def create(api: Api, seats: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"variant": "school", "options": {"columns": 1}, "seats": seats}
    response = api.post("/api/games", body)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


def three_players(api: Api) -> dict[str, Any]:
    """A School game: Ana (a person, played by the test) and two bots."""
    seats = [
        {"kind": "human", "name": "Ana"},
        {"kind": "bot", "level": "greedy"},
        {"kind": "bot", "level": "casual"},
    ]
    return create(api, seats)


def first_roll(server: LiveServer, api: Api, game: dict[str, Any]) -> tuple[Player, dict[str, Any]]:
    """Ana's connection, and the server's game once she has rolled the first dice of the game
    (the server judges a position after each event: a new game's first position is not)."""
    ana = Player(server.ws_url, game["id"], game["seats"][0]["token"])
    try:
        answer = ana.act("roll", 0)
        return ana, judged_turn(ana, api, game["id"], answer)
    except BaseException:
        ana.close()
        raise


def judged_turn(ana: Player, api: Api, game_id: str, message: dict[str, Any]) -> dict[str, Any]:
    """From `message` (the event that brought a position where Ana is to move), play on until a
    position at her turn that the server judged; returns the server's game there.

    The server tells a position's chances in a `chances` message after its event (never with
    it: master/chances.py); a position the game rests at, as here, always gets them."""
    while True:
        assert message["type"] == "event", message
        assert ana.my_turn(), ana.state.get("turn")
        told = told_chances(ana, message)
        if told is not None:
            break
        # Not judged: Ana moves on (rolls again, or fills a cell and the bots play).
        can_roll = ana.state["turn"]["can_roll"]
        message = ana.act("roll", ana.seq) if can_roll else next_turn(ana)
    data = api.game(game_id)
    assert data["seq"] == message["seq"], (data["seq"], message["seq"])
    chances = data["win_probability"]
    assert chances == told, (chances, told)
    assert len(chances) == 3, chances
    assert all(0.0 <= c <= 1.0 for c in chances), chances
    assert sum(chances) == pytest.approx(1.0, abs=1e-6), chances
    return data


def told_chances(ana: Player, event: dict[str, Any]) -> list[float] | None:
    """The chances of the position `event` (at Ana's turn: the game rests there) brought, told
    in a `chances` message after it; None when the game moved on first."""
    assert "win_probability" not in event
    seq = event["seq"]
    try:
        told = ana.until(
            lambda m: (m["type"] == "chances" and m["seq"] == seq) or m.get("seq", 0) > seq,
            timeout=60.0,
        )
    except TimeoutError:
        return None
    return list(told["win_probability"]) if told["type"] == "chances" else None


def next_turn(ana: Player) -> dict[str, Any]:
    """Ana plays her turn (one roll if she has none, the best cell); returns the event that
    brings her next turn, once the bots have played."""
    ana.play_turn()
    return ana.until(lambda m: m["type"] == "event" and ana.my_turn(), timeout=30.0)


def play_turn(ana: Player, api: Api, game_id: str) -> dict[str, Any]:
    """Ana plays a turn over the WebSocket; the bots answer; returns the server's game, judged,
    at her next turn."""
    return judged_turn(ana, api, game_id, next_turn(ana))


def shown(page: Page) -> list[int | None]:
    values: list[int | None] = page.evaluate(READ)
    return values


def wait_shows(page: Page, expected: list[int]) -> list[int]:
    """Wait until the page's bars show the server's chances `expected`; return what they show."""
    page.wait_for_function(SHOWS, arg=expected, polling="raf")
    values = shown(page)
    assert None not in values, values
    whole = [int(v) for v in values if v is not None]
    assert sum(whole) == 100, whole
    assert all(abs(a - b) <= 1 for a, b in zip(whole, expected, strict=True)), (whole, expected)
    return whole


def check_bars(page: Page, lang: str = "en") -> None:
    """Three meters, visible, each named for its player and saying its value in words, and the
    percentage under each total."""
    meters = page.locator(METERS)
    expect(meters).to_have_count(3)
    names = page.locator("#players .player-name").all_inner_texts()
    chances = page.locator("#players .player-chance")
    expect(chances).to_have_count(3)
    whole = shown(page)
    name_of = i18n.gettext(lang, "{name}: chance of winning")
    for seat in range(3):
        meter = meters.nth(seat)
        expect(meter).to_be_visible()
        expect(meter).to_have_attribute("aria-valuemin", "0")
        expect(meter).to_have_attribute("aria-valuemax", "100")
        expect(meter).to_have_accessible_name(name_of.format(name=names[seat]))
        box = box_of(meter)
        assert box is not None and box["width"] > 20 and box["height"] >= 2, box
        value = whole[seat]
        assert value is not None
        # "62%" (or "<1%", ">99%" near the ends), and the meter says the same in words.
        digits = re.sub(r"\D", "", chances.nth(seat).inner_text())
        assert digits == str(value) or (digits, value) in (("1", 0), ("99", 100)), (digits, value)
        expect(meter).to_have_attribute("aria-valuetext", re.compile(rf"(?<!\d){digits}(?!\d)"))


# --- a spectator and a player watch the bars move ----------------------------------------------


def test_the_bars_show_who_is_winning_and_move_as_the_game_goes(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = three_players(api)
    game_id = game["id"]
    ana, start = first_roll(server, api, game)
    try:
        # The spectator's bars move (a CSS transition); the player prefers reduced motion.
        watcher = open_person()
        player = with_tokens(open_person(reduced_motion="reduce"), game, 0)
        for person in (watcher, player):
            person.page.goto(f"{server.url}/g/{game_id}")
            expect(person.page.locator("#turn-msg")).not_to_be_empty()
        expect(watcher.page.locator("#roll-button")).to_be_hidden()  # a spectator's page
        expected = whole_percents(start["win_probability"])
        for person in (watcher, player):
            wait_shows(person.page, expected)
            check_bars(person.page)

        # The bars follow the game: after each of Ana's turns (and the bots'), the page shows
        # the server's new chances; within a few turns they have moved. Each bar is the same
        # element all along (marked here), so that its fill slides to its new width.
        watcher.page.evaluate(MARK)
        seen = [tuple(expected)]
        data = start
        for _turn in range(6):
            data = play_turn(ana, api, game_id)
            expected = whole_percents(data["win_probability"])
            for person in (watcher, player):
                wait_shows(person.page, expected)
            seen.append(tuple(expected))
            if len(set(seen)) >= 3:
                break
        assert len(set(seen)) >= 2, f"the chances never moved: {seen}"
        check_bars(watcher.page)
        expect(watcher.page.locator("#players .chance.stale")).to_have_count(0)
        expect(watcher.page.locator("#players .chance.leader")).not_to_have_count(0)
        assert watcher.page.evaluate(MARKED) == [True, True, True]
        assert watcher.page.evaluate(FILL_TRANSITION) != "0s"
        assert player.page.evaluate(FILL_TRANSITION) == "0s"

        # The page kept the chances by seq: every judged position it was told of, in order,
        # the newest the server's.
        history: list[dict[str, Any]] = watcher.page.evaluate(HISTORY)
        seqs = [entry["seq"] for entry in history]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
        assert len(history) >= len(set(seen)), (history, seen)
        for entry in history:
            assert len(entry["values"]) == 3
            assert sum(entry["values"]) == pytest.approx(1.0, abs=1e-9), entry
        assert history[-1]["seq"] == data["seq"], (history[-1], data["seq"])
        assert history[-1]["values"] == pytest.approx(data["win_probability"], abs=1e-9)
        for person in (watcher, player):
            person.assert_clean()
    finally:
        ana.close()


# --- a position not judged, a solitaire game ----------------------------------------------------


def drop_chances(page: Page, welcome: bool, events: bool) -> None:
    """Take the chances off what the server sends `page`: off its first look over HTTP and its
    welcome (`welcome`), and off every later message (`events`): as where the server did not
    judge those positions (or answered too late)."""

    def edit(data: Any, first: bool) -> Any:
        if isinstance(data, dict) and (welcome if first else events):
            data.pop("win_probability", None)
        return data

    def http(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, json=edit(response.json(), True))

    def socket(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            data = json.loads(message)
            first = isinstance(data, dict) and data.get("type") == "welcome"
            ws.send(json.dumps(edit(data, first)))

        server.on_message(forward)

    page.route(re.compile(r"/api/games/[A-Za-z0-9_-]+$"), http)
    page.route_web_socket(re.compile(r"/ws/games/"), socket)


def test_a_position_not_judged_keeps_the_last_bars_dimmed(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = three_players(api)
    game_id = game["id"]
    ana, start = first_roll(server, api, game)
    try:
        watcher = open_person(reduced_motion="reduce")
        page = watcher.page
        drop_chances(page, welcome=False, events=True)
        page.goto(f"{server.url}/g/{game_id}")
        first = wait_shows(page, whole_percents(start["win_probability"]))
        expect(page.locator("#players .chance.stale")).to_have_count(0)
        ana.play_turn()
        # Ana's move and the bots' turns are drawn; their positions came without chances: the
        # last bars stay, dimmed, and say that they are of an earlier position.
        expect(page.locator("#players .chance.stale")).to_have_count(3)
        expect(page.locator("#players .player-chance.stale")).to_have_count(3)
        assert shown(page) == first
        meter = page.locator(METERS).first
        expect(meter).to_have_attribute(
            "aria-valuetext", re.compile(re.escape(i18n.gettext("en", "before the last move")))
        )
        check_bars(page)
        watcher.assert_clean()
    finally:
        ana.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_bars_do_not_move_the_layout(
    server: LiveServer, api: Api, open_person: OpenPerson, size: str
) -> None:
    """The strip has the bars' room before the first chances come (the page's first position
    comes without them here): when they come, nothing below the strip moves."""
    game = three_players(api)
    phone = size != "desktop"
    person = open_person(
        viewport=SIZES[size], reduced_motion="reduce", is_mobile=phone, has_touch=phone
    )
    page = person.page
    drop_chances(page, welcome=True, events=False)
    page.goto(f"{server.url}/g/{game['id']}")
    expect(page.locator("#turn-msg")).to_have_text("Ana is playing…")
    expect(page.locator("#players .player")).to_have_count(3)
    expect(page.locator(f"{METERS}:visible")).to_have_count(0)  # nothing to show yet
    strip = box_of(page.locator("#players"))
    dice = box_of(page.locator("#dice"))
    ana, data = first_roll(server, api, game)
    try:
        wait_shows(page, whole_percents(data["win_probability"]))
        check_bars(page)
        assert box_of(page.locator("#players")) == strip
        assert box_of(page.locator("#dice")) == dice
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, f"winprob/first-roll-{size}", full_page=False)
        person.assert_clean()
    finally:
        ana.close()


def test_a_solitaire_game_has_no_bars(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = create(api, [{"kind": "human", "name": "Solo"}])
    person = with_tokens(open_person(reduced_motion="reduce"), game, 0)
    page = person.page
    page.goto(f"{server.url}/g/{game['id']}")
    expect(page.locator("#players .player")).to_have_count(1)
    expect(page.locator("#roll-button")).to_be_enabled()
    assert "win_probability" not in api.game(game["id"])
    expect(page.locator(METERS)).to_have_count(0)
    expect(page.locator("#players .player-chance")).to_have_count(0)
    expect(page.locator("#players")).not_to_have_class(re.compile(r"\bwith-chances\b"))
    person.assert_clean()


# --- how it looks: a phone and a desktop, in every language -------------------------------------


@pytest.fixture(scope="module")
def mid_game(server: LiveServer, api: Api) -> Iterator[dict[str, Any]]:
    """A game a few turns in, waiting at Ana's turn after a roll (dice on the felt)."""
    game = three_players(api)
    ana, data = first_roll(server, api, game)
    try:
        for _turn in range(3):
            data = play_turn(ana, api, game["id"])
        if data["state"]["turn"]["rolls"] == 0:
            data = judged_turn(ana, api, game["id"], ana.act("roll", ana.seq))
        yield data
    finally:
        ana.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_screenshots_of_the_bars(
    server: LiveServer, open_person: OpenPerson, mid_game: dict[str, Any], lang: str, size: str
) -> None:
    (artifacts_dir() / "winprob").mkdir(exist_ok=True)
    phone = size == "phone"
    person = open_person(
        viewport=SIZES[size],
        locale=i18n.HTML_LANG[lang],
        reduced_motion="reduce",
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
    )
    page = person.page
    page.goto(f"{server.url}/g/{mid_game['id']}?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", i18n.HTML_LANG[lang])
    wait_shows(page, whole_percents(mid_game["win_probability"]))
    check_bars(page, lang)
    # The words of the chance in the page's language (the title of the percentage).
    words = i18n.gettext(lang, "Chance of winning: {pct}").split("{pct}")[0]
    expect(page.locator("#players .player-chance").first).to_have_attribute(
        "title", re.compile("^" + re.escape(words))
    )
    # The strip stays inside the screen: no sideways scroll, every card whole.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    cards = page.locator("#players .player")
    for seat in range(3):
        box = box_of(cards.nth(seat))
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"]
    screenshot(page, f"winprob/table-{lang}-{size}", full_page=False)
    page.locator("#players").screenshot(
        path=str(artifacts_dir() / f"winprob/strip-{lang}-{size}.png")
    )
    person.assert_clean()
