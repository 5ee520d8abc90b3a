"""The pages read their layout from the data the server sends, in a real browser.

The lobby takes each variant's seat limit and turn clock from `GET /api/variants`; the table
takes its section titles, each row's face and the auto-play button from the view's rules; a
refusal is shown in the catalog's words (`error.{code}`), here in Spanish. To tell a page that
reads the data from one that knows the variants by name, some tests edit what the server sends
on its way to the page (`page.route`, `rewrite_rules`): the page must follow the edit.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Route, WebSocket, WebSocketRoute, expect

from browser_support import (
    Api,
    OpenPerson,
    TurnPlayer,
    people,
    rewrite_rules,
    with_tokens,
)
from live_server import LiveServer

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")


def variant_radio(page: Page, name: str) -> Locator:
    return page.locator(f'input[name="variant"][value="{name}"]')


def create(api: Api, variant: str, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    response = api.post("/api/games", {"variant": variant, "options": options, "seats": seats})
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


ANA_AND_A_BOT = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]


def titles(page: Page) -> Locator:
    """The section titles of the big sheet."""
    return page.locator("#main-sheet .section-title")


def row_faces(page: Page) -> list[str]:
    """The faces of the small dice beside the big sheet's rows."""
    faces: list[str] = page.locator("#main-sheet tr.row .die.mini").evaluate_all(
        "els => els.map(e => e.dataset.face)"
    )
    return faces


# --- the lobby ---------------------------------------------------------------------------------


def test_the_lobby_takes_seats_and_clock_from_the_variants(
    server: LiveServer, open_person: OpenPerson
) -> None:
    person = open_person()
    page = person.page

    def edited(route: Route) -> None:
        """School for at most three, poker dice with a 90-second clock online."""
        response = route.fetch()
        data = response.json()
        for variant in data["variants"]:
            if variant["name"] == "school":
                variant["rules"]["max_players"] = 3
            if variant["name"] == "poker-dice":
                variant["rules"]["clock"]["online_default"] = 90
        route.fulfill(response=response, json=data)

    page.route("**/api/variants", edited)
    page.goto(server.url + "/")
    expect(variant_radio(page, "school")).to_be_checked()
    expect(page.get_by_label("Columns on the sheet")).to_be_visible()  # the variants are in
    add = page.locator("#add-seat")
    seats = page.locator("#seat-list li")
    expect(seats).to_have_count(2)
    add.click()
    expect(seats).to_have_count(3)
    expect(add).to_be_disabled()
    # No clock of its own: off, and a bot plays a turn whose time runs out.
    expect(page.locator("#clock-on")).not_to_be_checked()
    expect(page.locator("#clock-hint")).to_have_text(
        "When the time runs out, a bot plays the turn."
    )

    # Yahtzee as the server has it: eight players.
    variant_radio(page, "yahtzee").check()
    while add.is_enabled():
        add.click()
    expect(seats).to_have_count(8)

    # Poker dice: its own clock, on by default with its online default; running out loses.
    variant_radio(page, "poker-dice").check()
    expect(seats).to_have_count(4)
    expect(add).to_be_disabled()
    expect(page.locator("#clock-on")).to_be_checked()
    expect(page.locator("#clock-seconds")).to_have_value("90")
    expect(page.locator("#clock-hint")).to_have_text("Running out of time loses the game.")
    # Its clock is set in the clock's fieldset, not among the options.
    expect(page.locator("[data-option]")).to_have_count(0)
    expect(page.locator("#variant-options")).to_be_hidden()

    variant_radio(page, "school").check()
    expect(seats).to_have_count(3)
    expect(page.locator("#clock-on")).not_to_be_checked()
    person.assert_clean()


# --- the table ---------------------------------------------------------------------------------


def test_the_table_lays_out_what_the_rules_say(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game = create(api, "school", ANA_AND_A_BOT, columns=1)
    ana = with_tokens(open_person(reduced_motion="reduce"), game, 0)

    def edit(rules: dict[str, Any]) -> None:
        rules["sections"] = [
            {"id": "upper", "title": "Upper section"},
            {"id": "lower", "title": "Lower section"},
        ]
        for row in rules["rows"]:
            if row["face"] is not None:
                row["face"] = rules["faces"] + 1 - row["face"]
        rules["autoplay"] = True

    rewrite_rules(ana.page, edit)
    sockets: list[WebSocket] = []
    ana.page.on("websocket", lambda socket: sockets.append(socket))
    ana.page.goto(f"{server.url}/g/{game['id']}")
    TurnPlayer(api, game["id"]).expect_my_turn(ana.page, "Ana")
    expect(titles(ana.page)).to_have_text(["Upper section", "Lower section"])
    assert row_faces(ana.page) == ["6", "5", "4", "3", "2", "1"]
    # The rules offer auto-play: the button is there, and asks the server for it.
    auto = ana.page.get_by_role("button", name="Auto-play")
    expect(auto).to_be_visible()
    assert len(sockets) == 1
    with sockets[0].expect_event("framesent", lambda text: json.loads(text)["type"] == "auto"):
        auto.click()

    # A game as the server sends it: School's own titles and faces, no auto-play.
    school = create(api, "school", ANA_AND_A_BOT)
    bea = with_tokens(open_person(reduced_motion="reduce"), school, 0)
    bea.page.goto(f"{server.url}/g/{school['id']}")
    expect(bea.page.locator("#roll-button")).to_be_enabled()
    expect(titles(bea.page)).to_have_text(["School", "Combinations"])
    assert row_faces(bea.page) == ["1", "2", "3", "4", "5", "6"]
    expect(bea.page.locator("#auto-button")).to_be_hidden()

    # Poker dice: auto-play offered, card faces on the rows, the generic titles.
    poker = create(api, "poker-dice", ANA_AND_A_BOT)
    cleo = with_tokens(open_person(reduced_motion="reduce"), poker, 0)
    cleo.page.goto(f"{server.url}/g/{poker['id']}")
    expect(cleo.page.locator("#roll-button")).to_be_enabled()
    expect(cleo.page.get_by_role("button", name="Auto-play")).to_be_visible()
    expect(titles(cleo.page)).to_have_text(["Upper section", "Lower section"])
    assert row_faces(cleo.page) == ["1", "2", "3", "4", "5", "6"]
    labels = cleo.page.locator("#main-sheet tr.row .die.mini .card-label").all_inner_texts()
    assert labels == ["9", "10", "J", "Q", "K", "A"]
    for person in (ana, bea, cleo):
        person.assert_clean()


# --- refusals ----------------------------------------------------------------------------------


def test_refusals_speak_the_catalogs_words(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    person = open_person(locale="es-ES", reduced_motion="reduce")
    page = person.page

    # bad_options (REST): the catalog's sentence, then the server's reason.
    page.goto(server.url + "/")
    page.get_by_label("Columnas de la hoja").fill("9")
    page.get_by_role("button", name="Empezar la partida").click()
    expect(page.locator("#create-error")).to_have_text(
        re.compile(r"^No se pueden usar estas opciones: .*columns.*6")
    )

    # seat_taken (REST): the join asks for a seat someone has (as a slower second tab would).
    waiting = create(api, "school", [{"kind": "human", "name": "Ana"}, {"kind": "human"}])

    def taken_seat(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "seat": 0}))

    page.route("**/api/games/*/join", taken_seat)
    page.goto(f"{server.url}/g/{waiting['id']}")
    page.get_by_label("Tu nombre").fill("Bea")
    page.get_by_role("button", name="Unirme a la partida").click()
    expect(page.locator("#join-error")).to_have_text("Este asiento ya está ocupado.")

    # bad_move (WebSocket): the page's choice of a cell arrives as one the dice cannot fill.
    game = create(api, "yahtzee", ANA_AND_A_BOT)
    player = with_tokens(open_person(locale="pt-BR", reduced_motion="reduce"), game, 0)

    def wrong_cell(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "act" and data["action"].startswith("score "):
                data["action"] = "strike ones"
            server_side.send(json.dumps(data))

        ws.on_message(up)

    player.page.route_web_socket(re.compile(r"/ws/games/"), wrong_cell)
    player.page.goto(f"{server.url}/g/{game['id']}")
    player.page.locator("#roll-button").click()
    expect(player.page.locator("#rolls-left")).to_have_text("Rolagens restantes: 2")
    seq = api.game(game["id"])["seq"]
    player.page.locator('#main-sheet td.legal button.move[data-action^="score "]').first.click()
    # The engine's reason, said in the page's words (the row by its name), not the server's English.
    expect(player.page.locator("#toasts .toast-error")).to_have_text("Uns não pode ser riscada.")
    assert api.game(game["id"])["seq"] == seq  # refused: nothing changed
    player.assert_clean()
    # The refusals over HTTP are the only complaints of the other page (the browser logs them).
    assert person.errors == [] and person.dialogs == []
    refused = re.compile(r"^Failed to load resource: .* status of (422|409) ")
    assert all(refused.match(text) for text in person.console_errors), person.console_errors
