"""Fair play in the terminal client (issue 54, docs/fair-play.md): joined to a game of the web app
played without the expert's help (rated, made without hints), the table shows its badge and the
hint key only says why, in the terminal's language, even when `--hints` asked for them at start;
a spectator of another player's daily challenge game is told when it can be seen, while its
player still reaches it with their seat's token. A real server; the terminal at 80x24."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from dicepoker.tui import PlayApp, RemoteSession, game_address
from dicepoker.tui.remote import contact
from live_server import DICEPOKER, LiveServer
from tui_support import run, table, until

PRIVATE = "This daily challenge game can be seen when its day is over."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("db") / "games.db")).start()
    yield live
    live.stop()


@contextmanager
def account(server: LiveServer, name: str) -> Iterator[httpx.Client]:
    """A client logged in as a new account (its session cookie kept), sending the site's Origin
    as a browser of the site would."""
    with httpx.Client(base_url=server.url, headers={"origin": server.url}, timeout=10.0) as client:
        made = client.post("/api/accounts", json={"name": name, "password": "correct horse"})
        assert made.status_code == 201, made.text
        yield client


def created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


A_BOT = {"kind": "bot", "level": "greedy"}


def hints_shown(app: PlayApp) -> bool:
    """Whether the table's hint panel has hints to show."""
    state = table(app).table
    return state is not None and state.hints is not None


async def hints_key_says(app: PlayApp, session: RemoteSession, badge: str, why: str) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: session.view is not None and session.my_turn)
        await until(pilot, lambda: badge in app.screen_text())
        assert table(app).table is not None and not hints_shown(app)  # --hints: still none
        await pilot.press("h")
        await until(pilot, lambda: why in app.screen_text())
        assert not hints_shown(app)
        await pilot.press("question_mark")
        assert not hints_shown(app)
    await session.close()


def test_the_hint_key_of_a_rated_game_says_hints_are_off(server: LiveServer) -> None:
    with account(server, "Tui_Rated") as client:
        body = {
            "variant": "yahtzee",
            "seats": [{"kind": "human", "account": True}, A_BOT],
            "rated": True,
        }
        game = created(client.post("/api/games", json=body))
    assert game["rated"] is True
    session = RemoteSession(game_address(server.url, game["id"]), game["seats"][0]["token"])
    app = PlayApp(session, lang="en", show_hints=True)
    run(lambda: hints_key_says(app, session, "Rated", "Hints are off in this game: it is rated."))
    assert session.competition == "rated"


def test_a_game_made_without_hints_says_so_in_spanish(server: LiveServer) -> None:
    body = {"variant": "yahtzee", "seats": [{"kind": "human", "name": "Ana"}, A_BOT]}
    game = created(server.post("/api/games", {**body, "assisted": False}))
    session = RemoteSession(game_address(server.url, game["id"]), game["seats"][0]["token"])
    app = PlayApp(session, lang="es", show_hints=True)
    why = "Sin pistas en esta partida: se creó sin ellas."
    run(lambda: hints_key_says(app, session, "Sin pistas", why))


def test_practice_joined_from_the_terminal_keeps_its_hints(server: LiveServer) -> None:
    body = {"variant": "yahtzee", "seats": [{"kind": "human", "name": "Ana"}, A_BOT]}
    game = created(server.post("/api/games", body))
    session = RemoteSession(game_address(server.url, game["id"]), game["seats"][0]["token"])
    app = PlayApp(session, lang="en")

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: session.view is not None and session.my_turn)
            assert session.competition is None
            await pilot.press("h")
            await until(pilot, lambda: hints_shown(app))
            assert "Hints are off" not in app.screen_text()
        await session.close()

    run(scenario)


def test_a_spectator_of_another_players_daily_game_is_told_when_it_opens(
    server: LiveServer, tmp_path: Path
) -> None:
    with account(server, "Tui_Daily") as client:
        started = created(client.post("/api/daily/yahtzee"))
    address = game_address(server.url, started["id"])

    async def watch() -> None:
        session = RemoteSession(address, None)
        await session.start()
        deadline = time.monotonic() + 20
        while session.status != "closed" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # polling a condition, not timing
        assert session.fatal == PRIVATE
        await session.close()
        # Its player reaches it with the seat's token (the REST API reads it as a bearer).
        await contact(address, started["token"])

    run(watch)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "TERM": "dumb"}
    result = subprocess.run(
        [DICEPOKER, "play", "--server", server.url, "--game", started["id"]],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stderr.strip() == f"dicepoker: {PRIVATE}"
