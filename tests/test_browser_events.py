"""The table tells what happened, in a real browser: a zero or a strike is asked twice (the zero's
cost shown before), each player's last move is marked and told in the move log and the players'
strip, the stars overview says who took which star, and the dice a player holds are shown live
to the others and to a spectator, in every language, at desktop and phone sizes. Screenshots go
to test-artifacts/events/."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from browser_support import Api, OpenPerson, people, screenshot, shown_dice, with_tokens
from dicepoker import i18n
from live_server import LiveServer
from ws_client import Player

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
LOCALES = {"en": "en-US", "es": "es-ES", "pt": "pt-BR"}
#: The words looked for (the catalogs' own, block "issue 14: events").
WORDS = {
    "en": {"again": "Tap again", "zero": "took a zero in", "rolled": "rolled", "open": "open"},
    "es": {
        "again": "Toca otra vez",
        "zero": "anotó un cero en",
        "rolled": "tiró",
        "open": "abierta",
    },
    "pt": {"again": "Toque de novo", "zero": "marcou zero em", "rolled": "rolou", "open": "aberto"},
}


def _game(server: LiveServer) -> dict[str, Any]:
    response = server.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 3},
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}],
        },
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _held(page: Page) -> list[bool]:
    classes: list[str] = page.locator("#dice button.die").evaluate_all(
        "els => els.map(e => e.className)"
    )
    return ["held" in names.split() for names in classes]


def _minus(value: int) -> str:
    return f"\u2212{value}"


def _expect_in_view(page: Page, selector: str) -> None:
    """The element is wholly on screen without scrolling (retried: the page may redraw it, as
    when the chances of winning follow the event in a message of their own)."""
    expect(page.locator(selector).first).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_a_zero_is_asked_twice_and_every_page_tells_what_happened(
    server: LiveServer, api: Api, open_person: OpenPerson, lang: str
) -> None:
    words = WORDS[lang]
    game = _game(server)
    game_id = game["id"]
    options: dict[str, Any] = {"locale": LOCALES[lang], "reduced_motion": "reduce"}
    ana = with_tokens(open_person(viewport=DESKTOP, **options), game, 0)
    bea = with_tokens(open_person(viewport=DESKTOP, **options), game, 1)
    for person in (ana, bea):
        person.page.goto(f"{server.url}/g/{game_id}")
    log = bea.page.locator("#move-log")
    expect(log).to_have_attribute("role", "log")
    expect(log).to_have_attribute("aria-live", "polite")

    # Ana rolls; Bea's log says so with the dice.
    ana.page.locator("#roll-button").click()
    api.wait_for_game(game_id, lambda g: g["seq"] == 1)
    expect(log).to_contain_text(f"Ana {words['rolled']}")

    # Ana holds a die: Bea and a spectator who arrives now see it held.
    ana.page.locator("#dice button.die").nth(1).click()
    expect(bea.page.locator("#dice button.die").nth(1)).to_have_class(re.compile(r"\bheld\b"))
    watcher = open_person(viewport=PHONE, **options)
    watcher.page.goto(f"{server.url}/g/{game_id}")
    expect(watcher.page.locator("#dice button.die").nth(1)).to_have_class(re.compile(r"\bheld\b"))
    assert _held(watcher.page) == _held(bea.page) == [i == 1 for i in range(5)]
    ana.page.locator("#dice button.die").nth(1).click()
    expect(bea.page.locator("#dice button.die").nth(1)).not_to_have_class(re.compile(r"\bheld\b"))

    # A zero shows its cost (the rules' penalty) and is asked twice; a die's tap disarms it.
    penalty = api.game(game_id)["state"]["rules"]["zero_penalty"]
    zero = ana.page.locator("#main-sheet button.move-zero").first
    expect(zero).to_contain_text(_minus(penalty))
    action = zero.get_attribute("data-action")
    zero.click()
    tip = ana.page.locator("#main-sheet .confirm-tip")
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(words["again"])
    expect(tip).to_contain_text(_minus(penalty))
    screenshot(ana.page, f"events/zero-asked-{lang}-1280x900", full_page=False)
    assert api.game(game_id)["seq"] == 1  # nothing sent yet
    ana.page.locator("#dice button.die").nth(0).click()
    expect(tip).to_have_count(0)
    ana.page.locator("#dice button.die").nth(0).click()
    armed = ana.page.locator(f'#main-sheet button[data-action="{action}"]')
    armed.click()
    expect(armed).to_have_class(re.compile(r"\barmed\b"))
    ana.page.locator(f'#main-sheet button[data-action="{action}"]').click()
    moved = api.wait_for_game(game_id, lambda g: g["seq"] == 2)
    last = moved["state"]["last_moves"][0]
    assert last["verb"] == "zero" and f"zero {last['row']}" == action

    # Bea sees it: in the log, marked on Ana's sheet, in the players' strip, without scrolling.
    expect(log).to_contain_text(f"Ana {words['zero']}")
    expect(log).to_contain_text(_minus(penalty))
    mark = bea.page.locator(f'.sheet-card[data-seat="0"] tr[data-row="{last["row"]}"] td.last-move')
    expect(mark).to_have_count(1)
    strip = bea.page.locator(".player .player-last").first
    expect(strip).to_contain_text(_minus(penalty))
    _expect_in_view(bea.page, ".player .player-last")
    _expect_in_view(bea.page, "#dice")
    expect(bea.page.locator("#star-board .star-entry").first).to_contain_text(words["open"])

    # Bea plays a score (one tap); Ana's page marks it and keeps the mark of her own zero.
    bea.page.locator("#roll-button").click()
    api.wait_for_game(game_id, lambda g: g["seq"] == 3)
    score = bea.page.locator("#main-sheet button.move-score").first
    score.click()
    after = api.wait_for_game(game_id, lambda g: g["seq"] == 4)
    assert after["state"]["last_moves"][1]["verb"] == "score"
    expect(ana.page.locator('.sheet-card[data-seat="1"] td.last-move')).to_have_count(1)
    expect(ana.page.locator('.sheet-card[data-seat="0"] td.last-move')).to_have_count(1)
    expect(ana.page.locator("#move-log .log-line:not(.log-turn)")).to_have_count(4)
    # Each turn opens with where the game is, as the table's header says it (turns.js).
    rounds = len(after["state"]["rules"]["rows"]) * after["state"]["rules"]["columns"]
    first = i18n.gettext(lang, "Turn {n} of {total}").format(n=1, total=rounds)
    expect(ana.page.locator("#move-log .log-turn")).to_have_text(
        [f"{first} · Ana", f"{first} · Bea"]
    )
    screenshot(bea.page, f"events/table-{lang}-1280x900", full_page=False)
    expect(watcher.page.locator("#move-log .log-line").last).to_contain_text("Bea")
    screenshot(watcher.page, f"events/table-{lang}-375x667", full_page=False)
    screenshot(watcher.page, f"events/table-{lang}-375x667-full")
    for person in (ana, bea, watcher):
        person.assert_clean()


def test_a_strike_is_asked_twice_and_another_cell_disarms_it(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = _game(server)
    game_id = game["id"]
    ana = with_tokens(open_person(viewport=DESKTOP, reduced_motion="reduce"), game, 0)
    page = ana.page
    page.goto(f"{server.url}/g/{game_id}")
    page.locator("#roll-button").click()
    api.wait_for_game(game_id, lambda g: g["seq"] == 1)
    strikes = page.locator("#main-sheet button.move-strike")
    first = strikes.first.get_attribute("data-action")
    second = strikes.nth(1).get_attribute("data-action")
    assert first and second and first != second
    page.locator(f'button[data-action="{first}"]').click()
    expect(page.locator(f'button[data-action="{first}"]')).to_have_class(re.compile(r"\barmed\b"))
    # Another strike arms that one instead; Escape disarms; Enter twice on a focused one strikes.
    page.locator(f'button[data-action="{second}"]').click()
    expect(page.locator("button.move.armed")).to_have_count(1)
    expect(page.locator(f'button[data-action="{second}"]')).to_have_class(re.compile(r"\barmed\b"))
    page.keyboard.press("Escape")
    expect(page.locator("button.move.armed")).to_have_count(0)
    page.locator(f'button[data-action="{first}"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator(f'button[data-action="{first}"]')).to_have_class(re.compile(r"\barmed\b"))
    expect(page.locator(f'button[data-action="{first}"]')).to_be_focused()
    assert api.game(game_id)["seq"] == 1
    page.keyboard.press("Enter")
    moved = api.wait_for_game(game_id, lambda g: g["seq"] == 2)
    assert moved["state"]["last_moves"][0]["verb"] == "strike"
    assert f"strike {moved['state']['last_moves'][0]['row']}" == first
    ana.assert_clean()


#: A page whose WebSockets the test can cut, and keep cut: while `__cut` holds, a new one goes to
#: a port nobody listens on (the page's own reconnection then fails, as on a lost network).
CUTTABLE_SOCKETS = """
(() => {
  const Real = window.WebSocket;
  window.__cut = false;
  window.__sockets = [];
  function Cuttable(url, protocols) {
    const ws = new Real(window.__cut ? "ws://127.0.0.1:9/" : url, protocols);
    ws.addEventListener("message", () => { window.__heard = (window.__heard || 0) + 1; });
    window.__sockets.push(ws);
    return ws;
  }
  Cuttable.prototype = Real.prototype;
  for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Cuttable[name] = Real[name];
  window.WebSocket = Cuttable;
})();
"""


def test_a_page_that_lost_its_connection_is_told_the_moves_it_missed(
    server: LiveServer, open_person: OpenPerson
) -> None:
    game = _game(server)
    game_id = game["id"]
    ana, bea = (Player(server.ws_url, game_id, seat["token"]) for seat in game["seats"])
    watcher = open_person(viewport=DESKTOP, reduced_motion="reduce")
    page = watcher.page
    page.add_init_script(CUTTABLE_SOCKETS)
    page.goto(f"{server.url}/g/{game_id}")
    log = page.locator("#move-log .log-line")
    expect(page.locator("#turn-msg")).to_contain_text("Ana")  # the page is at the table
    # ... and its socket is subscribed (it heard its welcome): the table's text alone does not
    # say so, and a roll before that reaches the page only as a state, not as a move.
    page.wait_for_function("() => window.__heard > 0")
    ana.act("roll", ana.seq)
    expect(log.last).to_contain_text("Ana rolled")

    # The connection is lost; meanwhile Ana scores, and Bea rolls and scores.
    page.evaluate("() => { window.__cut = true; for (const ws of window.__sockets) ws.close(); }")
    expect(page.locator("#conn")).to_contain_text("Connection lost")
    ana.play_turn()
    bea.until(lambda m: m.get("seq") == ana.seq)
    bea.play_turn()
    lines = log.count()

    # Back: the page is told both moves, in the order they were made, in words.
    page.evaluate("() => { window.__cut = false; }")
    expect(page.locator("#conn")).to_have_text("", timeout=30_000)  # the backoff's next try
    expect(log).to_have_count(lines + 2)
    assert re.match(r"Ana (scored|closed|struck|took) ", log.nth(lines).inner_text())
    assert re.match(r"Bea (scored|closed|struck|took) ", log.nth(lines + 1).inner_text())
    for player in (ana, bea):
        player.close()
    watcher.assert_clean()


def test_a_page_that_missed_an_event_asks_for_a_sync_and_draws_the_game_as_it_is(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    """An event tells the page what changed since the event before (`dicepoker.v2`): one that
    comes after a missed event cannot be applied. The page asks for a sync instead, once, and
    draws the position its answer brings."""
    game = _game(server)
    game_id = game["id"]
    ana, bea = (Player(server.ws_url, game_id, seat["token"]) for seat in game["seats"])
    watcher = open_person(viewport=DESKTOP, reduced_motion="reduce")
    page = watcher.page
    asked: list[dict[str, Any]] = []
    told: list[dict[str, Any]] = []

    def socket(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "event" and data.get("seq") == 2:
                return  # lost on the way: the page never hears of Ana's move
            told.append(data)
            ws.send(message)

        def to_server(message: str | bytes) -> None:
            asked.append(json.loads(message))
            server_side.send(message)

        server_side.on_message(to_page)
        ws.on_message(to_server)

    page.route_web_socket(re.compile(r"/ws/games/"), socket)
    page.add_init_script(CUTTABLE_SOCKETS)  # (never cut here: it counts what the page heard)
    page.goto(f"{server.url}/g/{game_id}")
    expect(page.locator("#turn-msg")).to_contain_text("Ana")
    # The page's socket is subscribed (it heard its welcome): a roll before that would reach
    # the page only as the welcome's state, not as a move (seen once on a loaded CI machine).
    page.wait_for_function("() => window.__heard > 0")
    ana.act("roll", ana.seq)
    expect(page.locator("#move-log .log-line").last).to_contain_text("Ana rolled")
    ana.play_turn()  # seq 2, lost
    bea.until(lambda m: m.get("seq") == ana.seq)
    bea.act("roll", bea.seq)  # seq 3: changes the page cannot apply
    api.wait_for_game(game_id, lambda g: g["seq"] == 3)
    expect(page.locator("#turn-msg")).to_contain_text("Bea")
    now = api.game(game_id)
    # Drawn from the sync's whole view: Bea's dice, and Ana's move told as a missed one.
    assert shown_dice(page) == now["state"]["turn"]["dice"]
    expect(
        page.locator(
            "#move-log .log-line", has_text=re.compile(r"Ana (scored|closed|struck|took) ")
        )
    ).to_have_count(1)
    syncs = [m for m in asked if m.get("type") == "sync"]
    assert syncs == [{"type": "sync", "last_seq": 1}]
    assert any(m["type"] == "event" and "changes" in m for m in told)
    assert [m["seq"] for m in told if m["type"] == "sync"] == [3]
    for player in (ana, bea):
        player.close()
    watcher.assert_clean()
