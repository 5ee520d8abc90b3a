"""The table uses the window it has: in a short one (60x20) the sheet's summary (reserve, total)
stays in sight, the selected row is scrolled to, and the side panel's lines fit; in a wide one
(120x40) the other players' sheets stand beside as many as fit, the next to move first."""

from __future__ import annotations

import pytest

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui import LocalSession, PlayApp, parse_seats
from dicepoker.tui.i18n import LANGS, Words
from dicepoker.tui.launch import PlayOptions, build
from dicepoker.tui.widgets import InfoPanel
from tui_support import run, table, until


def mid_game(players: int, turns: int = 40) -> LocalSession:
    """A School game (three columns) of `players`, stopped mid-game with the dice rolled."""
    names = ["Ana", "Bea", "Especialista 3", "Duda"][:players]
    game = Game(get_rules("school"), names, SeededDice(7))
    bot = make_bot("greedy")
    while game.state.turn < turns:
        game.play(bot.choose(game.state))
    game.play("roll")
    seats = ",".join(f"human:{name}" for name in names)
    return LocalSession(game, parse_seats(seats), bot_delay=0)


def summary_words(words: Words) -> tuple[str, str]:
    return words("reserve"), words("total")


@pytest.mark.parametrize("lang", LANGS)
def test_the_summary_stays_in_sight_at_60x20(lang: str) -> None:
    session = mid_game(3)
    words = Words(lang)
    reserve, total = summary_words(words)

    async def scenario() -> None:
        app = PlayApp(session, lang=lang, show_hints=True)  # the side panel overflows
        async with app.run_test(size=(60, 20)) as pilot:
            screen = table(app)
            await until(pilot, lambda: screen.plan is not None and screen.table is not None)
            view = session.view
            assert view is not None
            shown = screen.table.shown if screen.table else 0
            mine = view["sheets"][shown]["breakdown"]
            await until(pilot, lambda: reserve in app.screen_text())
            text = app.screen_text()
            assert f"{reserve} {mine['reserve']}" in text and total in text
            assert str(mine["total"]) in text.split(total, 1)[1]
            # Through every row with the arrows: the selected row and the summary stay in sight.
            for _ in range(20):
                await pilot.press("down")
                await pilot.pause()
                text = app.screen_text()
                assert reserve in text and total in text
                assert "▸" in text, text
            for _ in range(20):
                await pilot.press("up")
                await pilot.pause()
                assert "▸" in app.screen_text()

    run(scenario)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_other_sheets_use_the_room_at_120x40(players: int) -> None:
    session = mid_game(players)

    async def scenario() -> None:
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(120, 40)) as pilot:
            screen = table(app)
            await until(pilot, lambda: screen.plan is not None and screen.plan.show_others)
            plan = screen.plan
            assert plan is not None and screen.table is not None
            shown = screen.table.shown
            # The next to move first, as many as fit beside the sheet and the side panel (one
            # small sheet of three columns at 120; before, none when they did not all fit).
            assert plan.beside == ((shown + 1) % players,)
            await until(pilot, lambda: app.screen_text().count("Σ") == 1)
            view = session.view
            assert view is not None
            name = view["players"][plan.beside[0]]["name"]
            assert name in app.screen_text().splitlines()[0]

    run(scenario)


def test_more_other_sheets_in_a_wider_window() -> None:
    session = mid_game(4)

    async def scenario() -> None:
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(200, 40)) as pilot:
            screen = table(app)
            await until(pilot, lambda: screen.plan is not None and len(screen.plan.beside) == 3)
            await until(pilot, lambda: app.screen_text().count("Σ") == 3)

    run(scenario)


@pytest.mark.parametrize("lang", LANGS)
def test_the_side_panel_lines_are_cut_not_wrapped_at_60x20(lang: str) -> None:
    """The side panel's lines are cut to the room it has (the sheet's scrollbar and its own
    taken off), not wrapped: each player's total on the name's line."""
    options = PlayOptions(seats="human,bot:greedy,bot:expert", lang=lang, seed=4, bot_delay=0)
    app = build(options).app

    async def scenario() -> None:
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: app.session is not None and app.session.my_turn)
            await pilot.press("r", "h")  # the hints make the side panel overflow: a scrollbar
            await until(pilot, lambda: app.session is not None and bool(app.session.last_action))
            panel = app.screen.query_one(InfoPanel)
            await pilot.pause()
            text = app.screen_text()
            side = [line[panel.region.x :] for line in text.splitlines()]
            view = app.session.view if app.session else None
            assert view is not None
            for player in view["players"]:
                lines = [line for line in side if str(player["name"])[:5] in line]
                assert lines, text
                assert lines[0].rstrip().endswith(str(player["total"])), text

    run(scenario)
