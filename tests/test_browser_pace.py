"""The pace of the table in a real browser: the turn counter, the title, sound and notification of
the player's turn, quick reactions and the rematch on the end screen (docs/api.md).

Games are made over the API and played out over the WebSocket where a test needs a finished
one; what is checked is what the pages show and do. Screenshots go to test-artifacts/pace/.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from browser_support import (
    Api,
    OpenPerson,
    Person,
    TurnPlayer,
    box_of,
    people,
    screenshot,
    with_tokens,
)
from dicepoker.protocol import REACTIONS
from dicepoker.web import pages
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]

#: Counts the page's beeps and notifications, and lets a test hide the tab (an init script).
PROBES = """
window.__beeps = 0;
window.__notes = [];
window.__hidden = false;
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  createOscillator() {
    const tone = super.createOscillator();
    const start = tone.start.bind(tone);
    tone.start = (...args) => { window.__beeps += 1; return start(...args); };
    return tone;
  }
};
class FakeNotification {
  static permission = "default";
  static requestPermission() {
    FakeNotification.permission = "granted";
    return Promise.resolve("granted");
  }
  constructor(title, options) { window.__notes.push([title, options && options.body]); }
  addEventListener() {}
  close() {}
}
window.Notification = FakeNotification;
Object.defineProperty(document, "visibilityState", {
  get: () => (window.__hidden ? "hidden" : "visible"),
});
"""


def _game(api: Api, seats: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"variant": "school", "options": {"columns": 1}, "seats": seats}
    response = api.post("/api/games", body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _person(open_person: OpenPerson, game: dict[str, Any], *seats: int, **options: Any) -> Person:
    person = open_person(reduced_motion="reduce", **options)
    person.page.context.add_init_script(PROBES)
    return with_tokens(person, game, *seats) if seats else person


def _finish(server: LiveServer, game: dict[str, Any]) -> None:
    """Play every seat's turns by auto-play over the WebSocket until the game is over."""
    players = [Player(server.ws_url, game["id"], seat["token"]) for seat in game["seats"]]
    watcher = players[0]
    try:
        while not watcher.state.get("finished"):
            seq = watcher.seq
            players[watcher.state["turn"]["seat"]].send({"type": "auto"})
            watcher.until(functools.partial(_turn_over, state=lambda: watcher.state, seq=seq))
    finally:
        for player in players:
            player.close()


def _turn_over(message: dict[str, Any], state: Callable[[], dict[str, Any]], seq: int) -> bool:
    """Whether `message` is the event that ends the turn played at `seq` (the game over, or the
    next turn waiting for its first roll): `state()` is the view after it."""
    if message["type"] != "event":
        return False
    view = state()
    return bool(view["finished"] or (message["seq"] > seq and view["turn"]["rolls"] == 0))


def _rounds(api: Api, game_id: str) -> int:
    rules = api.game(game_id)["state"]["rules"]
    return len(rules["rows"]) * int(rules["columns"])


def test_the_turn_counter_and_the_tab_title_follow_the_turns(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = _game(api, HUMANS)
    ana = _person(open_person, game, 0)
    bea = _person(open_person, game, 1)
    rounds = _rounds(api, game["id"])
    for person in (ana, bea):
        person.page.goto(f"{server.url}/g/{game['id']}")
        expect(person.page.locator("#turn-count")).to_have_text(f"Turn 1 of {rounds} · Ana")
    expect(ana.page).to_have_title(re.compile(r"^● Your turn — "))
    expect(bea.page).not_to_have_title(re.compile("Your turn"))
    # Bea asks for a sound and for notifications (the permission is asked from her click).
    bea.page.locator("#sound-switch").click()
    expect(bea.page.locator("#sound-switch")).to_have_attribute("aria-pressed", "true")
    notify = bea.page.locator("#notify-switch")
    notify.click()
    expect(notify).to_have_attribute("aria-pressed", "true")
    bea.page.wait_for_function("window.__beeps > 0")  # the switch's own beep, from the click
    beeps = bea.page.evaluate("window.__beeps")
    bea.page.evaluate("window.__hidden = true")
    TurnPlayer(api, game["id"]).play(ana.page, "Ana", rolls=1)
    expect(bea.page).to_have_title(re.compile(r"^● Your turn — "))
    expect(ana.page).not_to_have_title(re.compile("Your turn"))
    expect(bea.page.locator("#turn-count")).to_have_text(f"Turn 1 of {rounds} · Bea")
    bea.page.wait_for_function(f"window.__beeps > {beeps}")
    assert bea.page.evaluate("window.__notes") == [
        ["Your turn", f"It is your turn at table {game['id']}."]
    ]
    assert ana.page.evaluate("window.__beeps") == 0  # off by default
    TurnPlayer(api, game["id"]).play(bea.page, "Bea", rolls=1)
    expect(ana.page.locator("#turn-count")).to_have_text(f"Turn 2 of {rounds} · Ana")
    expect(bea.page).not_to_have_title(re.compile("Your turn"))
    # The switches are remembered by the browser; the words follow the language.
    bea.page.goto(f"{server.url}/g/{game['id']}?lang=pt")
    expect(bea.page.locator("#sound-switch")).to_have_attribute("aria-pressed", "true")
    expect(bea.page.locator("#sound-switch")).to_have_text("Som")
    expect(bea.page.locator("#turn-count")).to_have_text(f"Vez 2 de {rounds} · Ana")
    for person in (ana, bea):
        person.assert_clean()


def _bubble_clear_of_the_sheet(page: Page) -> None:
    bubble = box_of(page.locator(".reaction-bubble").first)
    sheet = box_of(page.locator("#main-sheet"))
    assert bubble and sheet
    apart = (
        bubble["x"] + bubble["width"] <= sheet["x"]
        or sheet["x"] + sheet["width"] <= bubble["x"]
        or bubble["y"] + bubble["height"] <= sheet["y"]
        or sheet["y"] + sheet["height"] <= bubble["y"]
    )
    assert apart, (bubble, sheet)


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_quick_reaction_is_shown_to_the_table_in_each_reader_s_language(
    server: LiveServer, api: Api, open_person: OpenPerson, size: str, viewport: dict[str, int]
) -> None:
    game = _game(api, HUMANS)
    ana = _person(open_person, game, 0, viewport=viewport)
    bea = _person(open_person, game, 1, viewport=viewport)
    watcher = _person(open_person, game, viewport=viewport)
    ana.page.goto(f"{server.url}/g/{game['id']}")
    bea.page.goto(f"{server.url}/g/{game['id']}?lang=es")
    watcher.page.goto(f"{server.url}/g/{game['id']}")
    expect(ana.page.locator("#reactions")).to_be_visible()
    expect(watcher.page.locator("#turn-count")).to_be_visible()
    expect(watcher.page.locator("#reactions")).to_be_hidden()  # spectators do not react
    ana.page.get_by_text("React", exact=True).click()
    buttons = ana.page.locator("#reaction-buttons button")
    expect(buttons).to_have_count(len(REACTIONS))
    ana.page.get_by_role("button", name="Nice roll").click()
    expect(bea.page.locator(".reaction-bubble")).to_have_text("Ana: Buena tirada")
    expect(watcher.page.locator(".reaction-bubble")).to_have_text("Ana: Nice roll")
    _bubble_clear_of_the_sheet(watcher.page)
    screenshot(bea.page, f"pace/reaction-{size}", full_page=False)
    # Shown briefly: gone a few seconds later.
    expect(watcher.page.locator(".reaction-bubble")).to_have_count(0, timeout=8_000)
    for person in (ana, bea, watcher):
        person.assert_clean()


def test_the_end_screen_offers_a_rematch_to_each_seat_and_to_spectators(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = _game(api, [*HUMANS, {"kind": "bot", "level": "greedy"}])
    _finish(server, game)
    url = f"{server.url}/g/{game['id']}"
    ana = _person(open_person, game, 0, viewport=DESKTOP)
    bea = _person(open_person, game, 1, viewport=DESKTOP)
    bea_phone = _person(open_person, game, 1, viewport=PHONE)
    watcher = _person(open_person, game, viewport=DESKTOP)
    for person in (ana, bea, bea_phone, watcher):
        person.page.goto(url)
        expect(person.page.locator("#end")).to_be_visible()
        expect(person.page.get_by_role("link", name="New game")).to_be_visible()
        # The end screen's analysis is made once, then kept: wait for it, so that the pages do
        # not each have the server analyse the game (nor leave it analysing at the end).
        expect(person.page.locator("#analysis")).not_to_contain_text(
            "Loading the analysis", timeout=120_000
        )
    expect(ana.page.get_by_role("button", name="Rematch")).to_be_visible()
    expect(watcher.page.locator("#rematch-button")).to_be_hidden()
    # Reactions move to the end screen: "Good game".
    bea.page.get_by_text("React", exact=True).click()
    bea.page.get_by_role("button", name="Good game").click()
    expect(ana.page.locator("#end .reaction-bubble")).to_have_text("Bea: Good game")
    screenshot(ana.page, "pace/end-reaction-desktop", full_page=False)

    with ana.page.expect_navigation():
        ana.page.get_by_role("button", name="Rematch").click()
    rematch = re.search(r"/g/([A-Za-z0-9_-]+)$", ana.page.url)
    assert rematch and rematch.group(1) != game["id"]
    new_id = rematch.group(1)
    # Ana sits at the new table as herself; the others are offered their seats.
    expect(ana.page.locator("#players .player.mine .player-name")).to_have_text("Ana")
    for person in (bea, bea_phone):
        expect(person.page.get_by_role("button", name="Join the rematch")).to_be_visible()
        expect(person.page.locator("#rematch-note")).to_have_text(
            "A rematch is ready: same players, same rules."
        )
    expect(watcher.page.get_by_role("button", name="Watch the rematch")).to_be_visible()
    screenshot(bea.page, "pace/end-rematch-desktop", full_page=False)
    bea_phone.page.locator("#end").scroll_into_view_if_needed()
    screenshot(bea_phone.page, "pace/end-rematch-phone", full_page=False)
    data = api.game(new_id)
    assert [s["name"] for s in data["seats"]] == [
        "Ana",
        "Bea",
        api.game(game["id"])["seats"][2]["name"],
    ]
    assert data["seats"][2]["level"] == "greedy"
    with bea.page.expect_navigation():
        bea.page.get_by_role("button", name="Join the rematch").click()
    expect(bea.page.locator("#players .player.mine .player-name")).to_have_text("Bea")
    expect(bea.page.locator("#turn-count")).to_have_text(re.compile(r"^Turn 1 of \d+ · "))
    for person in (ana, bea, bea_phone, watcher):
        person.assert_clean()


def test_the_page_offers_the_protocol_s_reactions_and_has_their_words() -> None:
    script = (pages.STATIC_DIR / "js" / "reactions.js").read_text(encoding="utf-8")
    listed = re.search(r"REACTIONS = /\*\* @type \{const\} \*/ \(\[(.*?)\]\)", script)
    assert listed is not None
    assert re.findall(r'"([a-z_]+)"', listed.group(1)) == list(REACTIONS)
    from dicepoker import i18n

    for lang in ("en", "es", "pt"):
        catalog = i18n.raw_catalog(lang)
        for reaction in REACTIONS:
            assert catalog.get(f"reaction.{reaction}", "").strip(), (lang, reaction)
