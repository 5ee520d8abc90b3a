"""What the terminal client's tests share: running a scenario, waiting on a condition, reading
the table of an app, and playing a turn with the keys as a person would."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot

from dicepoker.tui import GameScreen, LocalSession, PlayApp

Scenario = Callable[[], Coroutine[Any, Any, None]]


def run(scenario: Scenario) -> None:
    asyncio.run(scenario())


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app work until `condition` holds (a condition wait: no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            app = pilot.app
            screen = app.screen_text() if isinstance(app, PlayApp) else ""
            raise AssertionError(f"condition not met in {timeout}s:\n{screen}")
        await pilot.pause()


def table(app: PlayApp) -> GameScreen:
    screen = app.game_screen
    assert screen is not None
    return screen


def view_of(app: PlayApp) -> dict[str, Any]:
    assert app.session is not None and app.session.view is not None
    return app.session.view


def local(app: PlayApp) -> LocalSession:
    assert isinstance(app.session, LocalSession)
    return app.session


async def play_my_turn(pilot: Pilot[None], app: PlayApp, *, hold: tuple[str, ...] = ()) -> None:
    """Roll, maybe keep some dice and roll again, then fill the cell under the cursor."""
    view = view_of(app)
    number = view["turn_number"]
    await pilot.press("r")
    await until(pilot, lambda: view_of(app)["turn"]["rolls"] == 1)
    if hold:
        await pilot.press(*hold, "r")
        await until(pilot, lambda: view_of(app)["turn"]["rolls"] == 2)
    await pilot.press("enter")
    if view_of(app)["turn_number"] == number and table(app).choices.armed:
        await pilot.press("enter")  # a zero asks to be confirmed
    await until(pilot, lambda: view_of(app)["turn_number"] > number)
