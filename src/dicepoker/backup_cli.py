"""`dicepoker backup FILE` and `dicepoker restore FILE`: the server's database into one file and
back (docs/deploy.md, "Backups"; the work is in dicepoker.server.storage.backup, imported when a
command runs, as the other server commands do)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dicepoker.admin import Database
from dicepoker.clitools import fail

BackupFile = Annotated[Path, typer.Argument(metavar="FILE", help="The backup file.")]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def backup_command(file: BackupFile, database: Database = None) -> None:
    """Back the server's database up into FILE (one SQLite file), also while it serves. FILE is
    readable by its owner only (mode 0600): it holds the accounts' password hashes."""
    from dicepoker.server.settings import default_database
    from dicepoker.server.storage.backup import BackupError, backup

    try:
        made = backup(database or default_database(), file)
    except BackupError as error:
        fail(str(error))
    typer.echo(
        f"backed up {_plural(made.games, 'game')} ({_plural(made.events, 'event')}, "
        f"schema {made.revision}) into {file}, readable by its owner only (0600: it holds "
        "password hashes)"
    )


def restore_command(
    file: BackupFile,
    database: Database = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace a database that holds games or accounts."),
    ] = False,
) -> None:
    """Restore the server's database from a backup (stop the server first), then migrate it."""
    from dicepoker.server.settings import default_database
    from dicepoker.server.storage.backup import BackupError, restore

    try:
        found = restore(file, database or default_database(), force=force)
    except BackupError as error:
        fail(str(error))
    typer.echo(
        f"restored {_plural(found.games, 'game')} ({_plural(found.events, 'event')}) "
        f"from {file}; the database is at the newest schema"
    )
