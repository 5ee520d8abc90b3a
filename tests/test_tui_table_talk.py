"""What a game of the web app's table hears besides its moves, shown by the terminal: the dice
the roller holds (live), a player's quick reaction (in the terminal's language), the rematch at
the end (joined with this seat's own token there). A real server; the other players speak the
protocol through tests/ws_client.py; the terminal at 80x24."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dicepoker.tui import PlayApp, RemoteSession, game_address
from dicepoker.tui.launch import Launch, closing_lines
from live_server import LiveServer
from tui_support import run, table, until
from ws_client import Player


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("db") / "games.db")).start()
    yield live
    live.stop()


def new_game(server: LiveServer, seats: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """A School game (one column) with `seats`: its id and its human seats' tokens."""
    body = {"variant": "school", "options": {"columns": 1}, "seats": seats}
    response = server.post("/api/games", body)
    assert response.status_code == 201, response.text
    created = response.json()
    return created["id"], [seat["token"] for seat in created["seats"] if seat.get("token")]


def held(app: PlayApp) -> frozenset[int]:
    """The dice the table draws held now."""
    state = table(app).table
    assert state is not None
    return state.held


def dice_drawn(dice: list[str], held: set[int]) -> str:
    """The side panel's dice as a person reads them: `[5]` held, ` 5 ` free, 4 cells each."""
    parts = [(f"[{face}]" if n in held else f" {face} ").center(4) for n, face in enumerate(dice)]
    return " ".join(parts).rstrip()


TWO_PEOPLE = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_the_dice_another_player_holds_are_marked_as_they_hold_them(server: LiveServer) -> None:
    game, (ana_token, bea_token) = new_game(server, TWO_PEOPLE)
    session = RemoteSession(game_address(server.url, game), bea_token)
    app = PlayApp(session, lang="en")

    async def scenario() -> None:
        ana = await asyncio.to_thread(Player, server.ws_url, game, ana_token, in_header=True)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: session.view is not None)
                rolled = await asyncio.to_thread(ana.act, "roll", 0)
                assert rolled["type"] == "event", rolled
                await until(pilot, lambda: session.seq == ana.seq)
                assert held(app) == frozenset()
                dice = [str(face) for face in ana.state["turn"]["dice"]]
                ana.send({"type": "keep", "seq": ana.seq, "keep": [0, 2]})
                await until(pilot, lambda: held(app) == frozenset({0, 2}))
                await until(pilot, lambda: dice_drawn(dice, {0, 2}) in app.screen_text())
                # Let go again: the marks follow.
                ana.send({"type": "keep", "seq": ana.seq, "keep": [2]})
                await until(pilot, lambda: dice_drawn(dice, {2}) in app.screen_text())
        finally:
            ana.close()
        await session.close()

    run(scenario)


def test_a_reaction_is_shown_with_the_player_s_name_in_the_terminal_s_language(
    server: LiveServer,
) -> None:
    game, (ana_token, bea_token) = new_game(server, TWO_PEOPLE)
    session = RemoteSession(game_address(server.url, game), bea_token)
    app = PlayApp(session, lang="pt")

    async def scenario() -> None:
        ana = await asyncio.to_thread(Player, server.ws_url, game, ana_token, in_header=True)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: session.view is not None)
                ana.send({"type": "react", "reaction": "nice_roll"})
                await until(pilot, lambda: "Ana: Bela rolagem" in app.screen_text())
                # And from here: G opens the fixed list, a number sends one to the table.
                await pilot.press("g")
                await until(pilot, lambda: "Bom jogo" in app.screen_text())
                await pilot.press("1")
                said = await asyncio.to_thread(
                    ana.until, lambda m: m["type"] == "reaction" and m["seat"] == 1
                )
                assert said == {"type": "reaction", "seat": 1, "reaction": "good_game"}
                await until(pilot, lambda: "Bea: Bom jogo" in app.screen_text())
        finally:
            ana.close()
        await session.close()

    run(scenario)


def play_out(player: Player) -> None:
    """Play `player`'s turns until the game is over (the bot plays the others)."""
    while not player.state.get("finished"):
        if player.my_turn():
            player.play_turn()
        else:
            player.recv()


@pytest.mark.parametrize("asked_by", ["terminal", "other"])
def test_the_rematch_is_offered_at_the_end_and_joined_with_the_seat_s_token(
    server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked_by: str
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
    game, (token,) = new_game(server, seats)
    session = RemoteSession(game_address(server.url, game), token)
    app = PlayApp(session, lang="es")

    async def scenario() -> None:
        # The seat's turns are played through a second connection with its token; the terminal
        # at that seat watches them.
        ana = await asyncio.to_thread(Player, server.ws_url, game, token, in_header=True)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: session.view is not None)
                await asyncio.to_thread(play_out, ana)
                await until(pilot, lambda: bool(session.view and session.view["finished"]))
                # No seat to come back to once it is over: the end has the room.
                assert "Para volver a él:" not in app.screen_text()
                if asked_by == "terminal":
                    await until(pilot, lambda: "N: Revancha" in app.screen_text())
                else:
                    headers = {"Authorization": f"Bearer {token}"}
                    answer = await asyncio.to_thread(
                        httpx.post, f"{server.url}/api/games/{game}/rematch", headers=headers
                    )
                    assert answer.status_code == 201, answer.text
                    await until(pilot, lambda: "N: Ir a la revancha" in app.screen_text())
                    assert "La revancha está lista" in app.screen_text()
                await pilot.press("n")
                await until(pilot, lambda: app.session is not session)
                following = app.session
                assert isinstance(following, RemoteSession)
                assert following.address.game != game and following.token == token
                await until(pilot, lambda: following.view is not None and following.seat == 0)
                assert following.view is not None and not following.view["finished"]
                assert session.status == "closed"
                # Its rejoin command is kept and shown as for any seat taken here.
                assert following.rejoin is not None and following.rejoin.path is not None
                assert following.address.game in following.rejoin.path.read_text()
                # And it is what the terminal prints on quitting, not the first game's seat.
                lines = closing_lines(Launch(app, ["Para volver a él: old"], lang="es"), following)
                assert lines[0].startswith("Para volver a él:"), lines
                assert following.address.game in lines[0] and "old" not in "".join(lines)
                await until(pilot, lambda: following.address.game in app.screen_text())
        finally:
            ana.close()
        for each in {session, app.session}:
            if each is not None:
                await each.close()

    run(scenario)
