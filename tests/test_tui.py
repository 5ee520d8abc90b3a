"""The terminal client (`dicepoker play`), driven through Textual's Pilot like a person would.

Local games use seeded dice and bots that act at once (no delay), so every game here is the same
on every run; waits are conditions on the app's state, never sleeps.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Select

from dicepoker.dice import SeededDice
from dicepoker.record import Game, replay
from dicepoker.rules import get_rules
from dicepoker.tui import (
    ActionRefused,
    LocalSession,
    PlayApp,
    RemoteSession,
    SeatChoice,
    SeatError,
    SetupScreen,
    game_address,
    parse_seats,
)
from dicepoker.tui.i18n import LANGS, Words, detect_lang, tui_catalog
from dicepoker.tui.launch import LaunchError, PlayOptions, build
from dicepoker.tui.remote import RemoteError, join_seat
from dicepoker.view import game_view
from live_server import LiveServer
from tui_support import local, play_my_turn, run, table, until, view_of

# --- pieces ---------------------------------------------------------------------------------------


def test_seats_option() -> None:
    assert parse_seats("human:Ana, human ,bot:greedy,bot:expert:Max,random") == [
        SeatChoice("human", "Ana"),
        SeatChoice("human"),
        SeatChoice("bot", None, "greedy"),
        SeatChoice("bot", "Max", "expert"),
        SeatChoice("bot", None, "random"),
    ]
    with pytest.raises(SeatError, match="unknown bot level"):
        parse_seats("bot:genius")
    with pytest.raises(SeatError, match="human"):
        parse_seats("alien:Zed")


def test_game_addresses() -> None:
    address = game_address("http://127.0.0.1:8000", "k3J9xQ2a")
    assert address.ws_url == "ws://127.0.0.1:8000/ws/games/k3J9xQ2a"
    link = game_address(None, "https://dice.example/g/k3J9xQ2a")
    assert link.server == "https://dice.example" and link.game == "k3J9xQ2a"
    assert link.ws_url == "wss://dice.example/ws/games/k3J9xQ2a"
    assert game_address("localhost:8000", "abc").server == "http://localhost:8000"
    with pytest.raises(RemoteError):
        game_address(None, "abc")


def test_language_from_the_locale_and_catalogs() -> None:
    assert detect_lang({"LANG": "es_AR.UTF-8"}) == "es"
    assert detect_lang({"LC_ALL": "pt_BR.UTF-8", "LANG": "es_ES"}) == "pt"
    assert detect_lang({"LANG": "C.UTF-8"}) == "en"
    assert detect_lang({}) == "en"
    english = tui_catalog("en")
    for lang in LANGS:
        assert set(tui_catalog(lang)) == set(english), lang
    assert Words("es").row("school", "three_of_a_kind") == "Trío"
    assert Words("pt")("key.save") == "salvar"


def test_command_line_options() -> None:
    with pytest.raises(LaunchError, match="columns"):
        build(PlayOptions(options=["columns=9"], seats="human"))
    with pytest.raises(LaunchError, match="--load"):
        build(PlayOptions(server="http://127.0.0.1:1", game="x", load=Path("a.json")))
    with pytest.raises(LaunchError, match="es, pt or en"):
        build(PlayOptions(lang="fr"))
    with pytest.raises(LaunchError, match="1 to 4"):
        build(PlayOptions(seats="human,human,human,human,human"))
    launch = build(PlayOptions(seats="human:Ana,bot:greedy", lang="pt", seed=1))
    assert isinstance(launch.app.session, LocalSession)
    assert launch.app.session.players == ["Ana", "Guloso 2"]  # a bot named in the language
    assert launch.app.lang == "pt"


# --- local games ----------------------------------------------------------------------------------


def test_hot_seat_game_to_the_end() -> None:
    async def scenario() -> None:
        rules = get_rules("school", {"columns": 1})
        session = LocalSession.new(
            rules, parse_seats("human:Ana,human:Bea"), dice=SeededDice(11), bot_delay=0
        )
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            text = app.screen_text()
            assert "Ana, your turn" in text and "Score sheet of Ana" in text
            # The arrow keys move the cursor between the rows that may be filled.
            await pilot.press("r")
            screen = table(app)
            first = screen.choices.selection
            assert first is not None
            await pilot.press("down")
            selection = screen.choices.selection
            assert selection is not None and selection.row != first.row
            await pilot.press("up")
            assert screen.choices.selection == first
            await pilot.press("enter")
            await until(pilot, lambda: view_of(app)["turn"]["seat"] == 1)
            assert "Bea, your turn" in app.screen_text()
            turn = 1
            while not view_of(app)["finished"]:
                await play_my_turn(pilot, app, hold=("1", "2") if turn % 3 == 0 else ())
                turn += 1
            view = view_of(app)
            assert turn == 30
            text = app.screen_text()
            assert "Game over" in text
            winner = view["winner"]
            result = "A tie" if winner is None else f"{view['players'][winner]['name']} wins!"
            assert result in text
            # The ranking is drawn best first, with places.
            ranked = [view["players"][seat] for seat in view["ranking"]]
            assert f"1. {ranked[0]['name']}" in text
            # The game kept a record that the engine replays to the same totals.
            record = await session.record()
            again = replay(record)
            assert again.state.finished
            assert [p["total"] for p in view["players"]] == [
                p["total"] for p in again_view(again)["players"]
            ]
            assert record["bots"] == [None, None]

    run(scenario)


def again_view(game: Game) -> dict[str, Any]:
    return game_view(game.state).to_data()


def test_game_against_a_bot() -> None:
    async def scenario() -> None:
        rules = get_rules("school", {"columns": 1})
        session = LocalSession.new(
            rules, parse_seats("human:Ana,bot:greedy"), dice=SeededDice(5), bot_delay=0
        )
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            # It is the bot's turn after each of ours: keys are refused with a reason.
            await play_my_turn(pilot, app)
            if session.seat_to_move == 1:
                await pilot.press("r")
                assert (
                    "(bot) is playing" in app.screen_text()
                    or session.seat_to_move == 0
                    or view_of(app)["finished"]
                )
            while not view_of(app)["finished"]:
                await until(pilot, lambda: session.my_turn or view_of(app)["finished"])
                if not view_of(app)["finished"]:
                    await play_my_turn(pilot, app)
            view = view_of(app)
            record = await session.record()
            assert record["bots"] == [None, "greedy"]
            assert len(record["turns"]) == 30
            bot_sheet = view["sheets"][1]
            assert all(all(cell for cell in row["cells"]) for row in bot_sheet["rows"])
            assert "Greedy 2" in app.screen_text()

    run(scenario)


def test_save_and_load(tmp_path: Path) -> None:
    path = tmp_path / "saved" / "game.json"

    async def first_part() -> None:
        rules = get_rules("school", {"columns": 2})
        session = LocalSession.new(
            rules, parse_seats("human:Ana,bot:greedy"), dice=SeededDice(3), bot_delay=0
        )
        app = PlayApp(session, lang="en", save_dir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            for _ in range(2):
                await play_my_turn(pilot, app)
                await until(pilot, lambda: session.my_turn)
            await pilot.press("r")  # a turn in progress is saved too
            await until(pilot, lambda: view_of(app)["turn"]["rolls"] == 1)
            # Quitting unsaved asks first.
            await pilot.press("q")
            assert "press Q again" in app.screen_text()
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, ModalScreen))
            field = app.screen.query_one(Input)
            assert field.value.startswith(str(tmp_path / "dicepoker-school-"))
            field.value = str(path)
            await pilot.press("enter")
            await until(pilot, lambda: path.exists())
            assert "Saved to" in app.screen_text()
            assert not session.dirty
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)

    run(first_part)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["variant"] == "school" and record["options"] == {"columns": 2}
    assert record["players"] == ["Ana", "Greedy 2"] and record["bots"] == [None, "greedy"]
    assert len(record["turns"]) == 5 and "move" not in record["turns"][-1]
    saved_dice = record["turns"][-1]["rolls"][-1]["dice"]

    async def second_part() -> None:
        launch = build(PlayOptions(load=path, seed=8, bot_delay=0, lang="en"))
        app = launch.app
        session = local(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            view = view_of(app)
            assert view["turn_number"] == 4
            assert view["turn"]["dice"] == saved_dice and view["turn"]["rolls"] == 1
            assert session.is_bot(1) and not session.is_bot(0)
            # Continue the turn in progress, then play the game out against the bot.
            await pilot.press("enter")
            await until(pilot, lambda: view_of(app)["turn_number"] > 4)
            while not view_of(app)["finished"]:
                await until(pilot, lambda: session.my_turn or view_of(app)["finished"])
                if not view_of(app)["finished"]:
                    await play_my_turn(pilot, app)
            record = await session.record()
            assert record["turns"][:4] == json.loads(path.read_text())["turns"][:4]
            assert replay(record).state.finished
            assert "Game over" in app.screen_text()

    run(second_part)


def test_language_change() -> None:
    async def scenario() -> None:
        rules = get_rules("school", {"columns": 3})
        session = LocalSession.new(
            rules, parse_seats("human:Ana,human:Bea"), dice=SeededDice(2), bot_delay=0
        )
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            assert "School 1" in app.screen_text() and "Three of a kind" in app.screen_text()
            await pilot.press("l")
            text = app.screen_text()
            assert app.lang == "es"
            assert "Escuela 1" in text and "Trío" in text and "Hoja de Ana" in text
            assert "R tirar" in text
            await pilot.press("l")
            text = app.screen_text()
            assert "Escola 1" in text and "Trinca" in text and "Cartela de Ana" in text
            await pilot.press("l")
            assert "School 1" in app.screen_text()

    run(scenario)


def test_setup_screen_starts_a_game_in_the_chosen_language() -> None:
    async def scenario() -> None:
        app = PlayApp(None, lang="en", dice=lambda: SeededDice(4), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SetupScreen))
            setup = app.screen
            setup.query_one("#lang", Select).value = "pt"
            await until(pilot, lambda: app.lang == "pt")
            # The screen is composed again in the new words (a frame later).
            await until(pilot, lambda: "Começar a partida" in app.screen_text())
            assert "Jogadores" in app.screen_text()
            setup.query_one("#variant", Select).value = "yahtzee"
            await pilot.pause()
            setup.query_one("#kind-0", Select).value = "human"
            setup.query_one("#name-0", Input).value = "Ana"
            setup.query_one("#kind-1", Select).value = "bot:random"
            setup.query_one("#kind-2", Select).value = "human"
            setup.query_one("#name-2", Input).value = "Caio"
            setup.query_one("#kind-3", Select).value = "none"
            await pilot.pause()
            await pilot.click("#start")
            await until(pilot, lambda: app.game_screen is not None)
            session = local(app)
            assert session.game.rules.variant == "yahtzee"
            assert session.players == ["Ana", f"{Words('pt').level('random')} 2", "Caio"]
            assert session.is_bot(1)
            text = app.screen_text()
            assert "Uns" in text or "Ones" in text
            assert "Cartela de Ana" in text

    run(scenario)


def test_setup_screen_keeps_the_choices_in_a_new_language() -> None:
    async def scenario() -> None:
        app = PlayApp(None, lang="en", dice=lambda: SeededDice(4), bot_delay=0)
        async with app.run_test(size=(80, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SetupScreen))
            setup = app.screen
            # The options form follows the variant chosen.
            assert setup.query("#opt-columns") and not setup.query("#opt-upper_bonus")
            setup.query_one("#opt-columns", Input).value = "9"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: "columns" in app.screen_text())
            assert isinstance(app.screen, SetupScreen)  # refused, with the reason shown
            setup.query_one("#variant", Select).value = "yahtzee"
            await until(pilot, lambda: bool(setup.query("#opt-upper_bonus")))
            assert not setup.query("#opt-columns")
            setup.query_one("#opt-upper_bonus", Checkbox).value = False
            setup.query_one("#name-0", Input).value = "Zoë"
            setup.query_one("#kind-1", Select).value = "bot:expert"
            await pilot.pause()
            # A new language writes every label again and keeps what was chosen.
            setup.query_one("#lang", Select).value = "es"
            await until(pilot, lambda: "Jugadores" in app.screen_text())
            assert "Players" not in app.screen_text()
            assert Words("es").option("upper_bonus") in app.screen_text()
            assert setup.query_one("#variant", Select).value == "yahtzee"
            assert setup.query_one("#opt-upper_bonus", Checkbox).value is False
            assert setup.query_one("#name-0", Input).value == "Zoë"
            assert setup.query_one("#kind-1", Select).value == "bot:expert"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.game_screen is not None)
            session = local(app)
            assert session.game.rules.variant == "yahtzee"
            assert dict(session.game.rules.options)["upper_bonus"] is False
            assert session.players == ["Zoë", "Experto 2"] and session.is_bot(1)

    run(scenario)


# --- a game of the web app ------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path / "games.db")).start()
    yield live
    live.stop()


def test_join_a_web_game_play_it_with_reconnection(server: LiveServer) -> None:
    response = server.post(
        "/api/games",
        {
            "variant": "school",
            "options": {"columns": 1},
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}],
        },
    )
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    address = game_address(server.url, game_id)

    async def scenario() -> None:
        # A spectator first: it sees the game but cannot play.
        watcher = RemoteSession(address, None, backoff=(0.05,))
        await watcher.start()
        deadline = time.monotonic() + 20
        while watcher.view is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # polling a condition, not timing
        assert watcher.view is not None and watcher.status == "open"
        with pytest.raises(ActionRefused):
            await watcher.act("roll")
        # Take the open seat from the terminal, as `--name` does.
        seat, token = await join_seat(address, "Ana")
        assert seat == 0
        session = RemoteSession(address, token, backoff=(0.05, 0.2))
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(160, 50)) as pilot:  # the side panel beside the sheet
            await until(pilot, lambda: session.my_turn)
            assert "Ana, your turn" in app.screen_text()
            assert "you" in app.screen_text()
            # The dice commitment is shown while playing (the seed is not known yet).
            commitment = server.get(f"/api/games/{game_id}")["fair_dice"]["commitment"]
            assert session.fair_dice is not None and "seed" not in session.fair_dice
            await until(pilot, lambda: "Dice commitment" in app.screen_text())
            assert commitment[:12] in app.screen_text()
            turns = 0
            while not view_of(app)["finished"]:
                await until(pilot, lambda: session.my_turn or view_of(app)["finished"])
                if view_of(app)["finished"]:
                    break
                await play_my_turn(pilot, app, hold=("5",) if turns % 4 == 1 else ())
                turns += 1
                if turns == 4:
                    # The server goes away and comes back: the client reconnects and syncs.
                    await asyncio.to_thread(server.restart, kill=True)
                    await until(pilot, lambda: session.connections >= 2 and session.connected)
            assert turns == 15
            assert session.status == "finished"
            assert "Game over" in app.screen_text()
            # At the end the terminal checks every roll against the commitment by itself.
            await until(pilot, lambda: session.dice_check is not None)
            assert session.dice_check is not None and session.dice_check.ok
            assert session.dice_check.commitment == commitment
            await until(pilot, lambda: "Dice verified" in app.screen_text())
            assert f"All {session.dice_check.rolls} rolls match" in app.screen_text()
            # The record of a web game can be saved from the terminal as well.
            record = await session.record()
            assert len(record["turns"]) == 30
            assert record["bots"] == [None, "greedy"]
        # The spectator saw the same end (it reconnected after the restart too).
        deadline = time.monotonic() + 20
        while not (watcher.view and watcher.view["finished"]) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert watcher.view is not None and watcher.view["finished"]
        assert watcher.connections >= 2
        await watcher.close()

    run(scenario)
    final = server.get(f"/api/games/{game_id}")
    assert final["status"] == "finished"


def test_refused_token_ends_the_session(server: LiveServer) -> None:
    response = server.post(
        "/api/games", {"variant": "school", "seats": [{"kind": "human", "name": "Ana"}]}
    )
    game_id = response.json()["id"]

    async def scenario() -> None:
        session = RemoteSession(game_address(server.url, game_id), "not-the-token")
        await session.start()
        deadline = time.monotonic() + 20
        while session.status != "closed" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert session.fatal == "The seat token was refused."
        await session.close()
        with pytest.raises(RemoteError, match="cannot take a seat"):
            await join_seat(game_address(server.url, game_id), "Bea")

    run(scenario)
    assert httpx.get(f"{server.url}/api/games/{game_id}").status_code == 200
