"""`dicepoker serve --login-rate --login-burst --login-name-rate --login-name-burst`: the login
limits of the settings, taken on the command line with the settings' defaults, and working in a
real server process (docs/deploy.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import httpx
import typer

from dicepoker.cli import app
from dicepoker.server.settings import Settings
from live_server import LiveServer

LOGIN_LIMITS = ("login_rate", "login_burst", "login_name_rate", "login_name_burst")
PASSWORD = "correct horse"


def test_serve_takes_every_login_limit_with_the_settings_default() -> None:
    serve = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    options = {param.name: param for param in serve.params}
    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}
    for name in LOGIN_LIMITS:
        assert name in options, name
        assert options[name].opts == [f"--{name.replace('_', '-')}"]
        assert options[name].default == defaults[name], name


def test_the_login_limits_of_the_command_line_hold_in_the_server(tmp_path: Path) -> None:
    limits = (
        *("--login-rate", "0.01", "--login-burst", "3"),
        *("--login-name-rate", "0.01", "--login-name-burst", "1"),
    )
    server = LiveServer(str(tmp_path / "games.db"), limits=limits).start()
    try:

        def post(path: str, name: str, password: str) -> httpx.Response:
            return httpx.post(
                server.url + path, json={"name": name, "password": password}, timeout=10.0
            )

        assert post("/api/accounts", "Guarded", PASSWORD).status_code == 201
        assert post("/api/session", "Guarded", "not the password").status_code == 401
        # One failure is the name's whole burst: even the right password waits now (while the
        # address still has one attempt of its three).
        locked = post("/api/session", "Guarded", PASSWORD)
        assert locked.status_code == 429, locked.text
        assert locked.json()["error"]["code"] == "rate_limited"
        assert int(locked.headers["retry-after"]) >= 1
        # And the address has used its three: another name waits too.
        other = post("/api/session", "Someone_Else", PASSWORD)
        assert other.status_code == 429, other.text
    finally:
        server.stop()
