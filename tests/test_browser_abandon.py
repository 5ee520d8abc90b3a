"""An abandoned game in the browser: the table open when its game is closed says so, in the
page's language, and links the replay; a visitor arriving later sees the same and opens no
socket."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_support import OpenPerson, people, with_tokens
from live_server import LiveServer

open_person = pytest.fixture(people, name="open_person")

WORDS = {
    "es": ("Abandonada", "Nadie jugó esta partida durante demasiado tiempo: se cerró."),
    "pt": ("Abandonada", "Ninguém jogou esta partida por tempo demais: ela foi encerrada."),
    "en": ("Abandoned", "Nobody played this game for too long: it was closed."),
}


def test_the_table_says_its_game_was_abandoned(tmp_path: Path, open_person: OpenPerson) -> None:
    # 0.002 hours: 7.2 seconds without a person's action (time to open the page first).
    server = LiveServer(str(tmp_path / "games.db"), options=("--abandon-after", "0.002"))
    server.start()
    try:
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
        game = server.post("/api/games", {"variant": "school", "seats": seats}).json()
        ana = with_tokens(open_person(locale="es-ES"), game, 0)
        page = ana.page
        page.goto(f"{server.url}/g/{game['id']}")
        expect(page.locator("#roll-button")).to_be_enabled()
        chip, message = WORDS["es"]
        # Closed while Ana looks at it: the page hears it and says so.
        expect(page.locator("#status-chip")).to_have_text(chip, timeout=30_000)
        expect(page.locator("#turn-msg")).to_contain_text(message)
        expect(page.locator("#roll-button")).to_be_disabled()
        replay = page.locator("#turn-msg a")
        expect(replay).to_have_attribute("href", f"/replay/g/{game['id']}")
        ana.assert_clean()
        sockets: list[str] = []  # the visitors' pages open none
        for lang in ("pt", "en"):
            visitor = open_person(locale={"pt": "pt-BR", "en": "en-US"}[lang])
            visitor.page.on("websocket", lambda ws: sockets.append(ws.url))
            visitor.page.goto(f"{server.url}/g/{game['id']}")
            chip, message = WORDS[lang]
            expect(visitor.page.locator("#status-chip")).to_have_text(chip)
            expect(visitor.page.locator("#turn-msg")).to_contain_text(message)
            visitor.page.locator("#turn-msg a").click()
            expect(visitor.page).to_have_url(f"{server.url}/replay/g/{game['id']}")
            assert sockets == []
            visitor.assert_clean()
    finally:
        server.stop()
