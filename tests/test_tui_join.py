"""Joining a game of the web app from the terminal: what cannot be joined is one line on stderr and
exit status 1 (before the table takes the terminal), whatever the way of joining; a seat taken
with `--name` is kept in a file at once, and its rejoin command is shown at the table."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dicepoker.tui import PlayApp, RemoteSession, game_address
from dicepoker.tui.launch import LaunchError, PlayOptions, build
from dicepoker.tui.rejoin import keep_seat
from dicepoker.tui.remote import GameAddress
from dicepoker.tui.widgets import RejoinPanel
from live_server import DICEPOKER, LiveServer, nowhere_port
from tui_support import run, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(str(tmp_path_factory.mktemp("db") / "games.db")).start()
    yield live
    live.stop()


def new_game(server: LiveServer) -> str:
    response = server.post(
        "/api/games",
        {"variant": "school", "seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]},
    )
    assert response.status_code == 201, response.text
    game: str = response.json()["id"]
    return game


def play(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`dicepoker play ARGS` as a user runs it (the errors come before the table opens)."""
    env = {**os.environ, "XDG_DATA_HOME": str(home), "TERM": "dumb"}
    return subprocess.run(
        [DICEPOKER, "play", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "Reconnecting" not in result.stderr
    return lines[0]


def test_an_unknown_game_is_one_line_and_exit_1(server: LiveServer, tmp_path: Path) -> None:
    with_token = one_error_line(
        play("--server", server.url, "--game", "nosuchgame", "--token", "abc", home=tmp_path)
    )
    watching = one_error_line(play("--server", server.url, "--game", "nosuchgame", home=tmp_path))
    taking = one_error_line(
        play("--server", server.url, "--game", "nosuchgame", "--name", "Ana", home=tmp_path)
    )
    assert with_token == "dicepoker: cannot join the game: no such game"
    assert watching == "dicepoker: cannot watch the game: no such game"
    assert taking == "dicepoker: cannot take a seat: no such game"
    for line in (with_token, watching, taking):
        assert "refused" not in line


def test_a_refused_token_is_one_line_and_exit_1(server: LiveServer, tmp_path: Path) -> None:
    game = new_game(server)
    line = one_error_line(
        play("--server", server.url, "--game", game, "--token", "not-the-token", home=tmp_path)
    )
    assert line == "dicepoker: cannot join the game: the seat token was refused"


def test_a_server_that_is_not_there_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with nowhere_port() as port:
        url = f"http://127.0.0.1:{port}"
        for extra in (["--token", "abc"], [], ["--name", "Ana"]):
            line = one_error_line(play("--server", url, "--game", "g1", *extra, home=tmp_path))
            assert line.startswith(f"dicepoker: cannot reach {url}: "), line


def test_a_session_that_never_connected_stops_instead_of_reconnecting() -> None:
    async def scenario(address: GameAddress) -> None:
        session = RemoteSession(address, "abc", backoff=(0.01,))
        await session.start()
        deadline = time.monotonic() + 20
        while session.status != "closed" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # polling a condition, not timing
        assert session.status == "closed" and session.connections == 0
        assert session.fatal is not None and session.fatal.startswith("cannot reach")
        await session.close()

    with nowhere_port() as port:
        address = game_address(f"http://127.0.0.1:{port}", "g1")
        run(lambda: scenario(address))


def test_a_session_to_an_unknown_game_says_so(server: LiveServer) -> None:
    async def scenario() -> None:
        session = RemoteSession(game_address(server.url, "nosuchgame"), "abc")
        await session.start()
        deadline = time.monotonic() + 20
        while session.status != "closed" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert session.fatal == "This game does not exist."
        await session.close()

    run(scenario)


def test_a_seat_taken_by_name_is_kept_at_once_and_shown(
    server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / ".local" / "share"))
    game = new_game(server)
    launch = build(PlayOptions(server=server.url, game=game, name="Ana", lang="en"))
    session = launch.app.session
    assert isinstance(session, RemoteSession) and session.token is not None
    token = session.token
    # Written before the table opens: a terminal closed mid-game loses nothing.
    (kept,) = (tmp_path / ".local" / "share" / "dicepoker" / "seats").iterdir()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    command = kept.read_text().splitlines()[-1]
    assert command == f"dicepoker play --server {server.url} --game {game} --token {token}"
    assert launch.after == [
        "You took seat 1.",
        f"To come back to it: {command}",
        f"Kept in {kept}",
    ]

    async def scenario() -> None:
        async with launch.app.run_test(size=(80, 24)) as pilot:
            app = launch.app
            # The whole panel on the screen, not only its title: a frame drawn before the
            # layout has caught up with the panel's new height shows the title alone.
            await until(pilot, lambda: rejoin_lines_shown(app) is not None)
            lines = rejoin_lines_shown(app)
            assert lines is not None and lines[0] == "To come back to it:"
            assert token in "".join(lines)  # the token, whole, if cut into lines
            kept_at = next(n for n, line in enumerate(lines) if line.startswith("Kept in "))
            assert "".join(lines[kept_at:]) == f"Kept in ~/{kept.relative_to(tmp_path)}"
        await session.close()

    run(scenario)


def rejoin_lines_shown(app: PlayApp) -> list[str] | None:
    """The rejoin panel's lines, when every one of them is on the screen (None: not yet)."""
    lines = app.screen.query_one("#rejoin", RejoinPanel).render().plain.splitlines()
    text = app.screen_text()
    return lines if len(lines) > 1 and all(line in text for line in lines) else None


def test_a_seat_file_that_cannot_be_written_is_said_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    kept = keep_seat(game_address("http://h:1", "g1"), 0, "tok", folder=blocker / "seats")
    assert kept.path is None and kept.problem is not None
    assert kept.command.endswith("--token tok")


def test_build_refuses_what_cannot_be_joined(server: LiveServer) -> None:
    with pytest.raises(LaunchError, match=r"^cannot join the game: no such game$"):
        build(PlayOptions(server=server.url, game="nosuchgame", token="abc"))


def test_login_takes_an_open_seat_under_the_account(
    server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / ".local" / "share"))
    signed = server.post("/api/accounts", {"name": "Terminal_Ana", "password": "typed in tmux"})
    assert signed.status_code == 201, signed.text
    game = new_game(server)
    wrong = PlayOptions(
        server=server.url, game=game, login="Terminal_Ana", password="not it", lang="en"
    )
    with pytest.raises(LaunchError, match=r"^cannot log in: wrong name or password$"):
        build(wrong)
    assert server.get(f"/api/games/{game}")["seats"][0]["taken"] is False  # nothing changed
    launch = build(
        PlayOptions(
            server=server.url, game=game, login="terminal_ana", password="typed in tmux", lang="en"
        )
    )
    session = launch.app.session
    assert isinstance(session, RemoteSession) and session.token is not None
    seat = server.get(f"/api/games/{game}")["seats"][0]
    assert seat["name"] == "Terminal_Ana" and seat["account"] is True
    assert launch.after[0] == "You took seat 1."
    asyncio.run(session.close())


def test_login_without_a_password_is_one_line(server: LiveServer, tmp_path: Path) -> None:
    game = new_game(server)
    result = play("--server", server.url, "--game", game, "--login", "Nobody_Here", home=tmp_path)
    # No terminal to ask on, and nothing on standard input: one line, nothing taken.
    assert one_error_line(result) == "dicepoker: no password given"
    assert server.get(f"/api/games/{game}")["seats"][0]["taken"] is False
