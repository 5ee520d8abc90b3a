"""A seat of a web game, kept: the command that comes back to it, written to a file the moment
the seat is taken, so that a closed terminal (or a lost scrollback) does not lose the seat.

The file goes to the user's data folder (`platformdirs.user_data_path("dicepoker")/seats`, on
Linux `~/.local/share/dicepoker/seats/`), one per game and seat, readable by its owner only: it
holds the seat's token, which is all a server asks of a player.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from platformdirs import user_data_path

from dicepoker.tui.remote import GameAddress


def seats_dir() -> Path:
    """Where the rejoin files go."""
    return user_data_path("dicepoker") / "seats"


@dataclass(frozen=True, slots=True)
class Rejoin:
    """How to come back to a seat: the command, and the file it was written to (None: not
    written, `problem` says why)."""

    command: str
    path: Path | None = None
    problem: str | None = None


def rejoin_command(address: GameAddress, token: str) -> str:
    """The `dicepoker play` command that takes the seat of `token` again."""
    parts = ["dicepoker", "play", "--server", address.server, "--game", address.game]
    return shlex.join([*parts, "--token", token])


def _file_name(address: GameAddress, seat: int) -> str:
    host = urlsplit(address.server).netloc or "server"
    text = f"{host}-{address.game}-seat{seat + 1}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text) + ".txt"


def keep_seat(address: GameAddress, seat: int, token: str, folder: Path | None = None) -> Rejoin:
    """Write the rejoin command of a seat just taken to its file (owner-only); never raises: a
    file that cannot be written is said in `problem`, and the command is still shown."""
    command = rejoin_command(address, token)
    path = (folder or seats_dir()) / _file_name(address, seat)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(f"# seat {seat + 1} of game {address.game} at {address.server}\n")
            handle.write(command + "\n")
    except OSError as exc:
        return Rejoin(command, None, f"{path}: {exc.strerror or exc}")
    return Rejoin(command, path)
