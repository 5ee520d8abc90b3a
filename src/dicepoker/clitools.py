"""What every `dicepoker` command shares: how it fails."""

from __future__ import annotations

from typing import NoReturn

import typer


def fail(message: str) -> NoReturn:
    """One clear line on standard error and exit status 1: never a traceback."""
    typer.echo(f"dicepoker: {message}", err=True)
    raise typer.Exit(1)
