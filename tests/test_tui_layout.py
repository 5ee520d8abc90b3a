"""The terminal client's table on screen: the whole School sheet at 80x24, narrow and wide
windows, six columns, the hint panel, and the mouse (dice and cells clicked), driven through
Textual's Pilot with seeded dice (every run the same; waits are conditions, never sleeps)."""

from __future__ import annotations

import re
from pathlib import Path

from dicepoker.advisor import advise
from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui import LocalSession, PlayApp, parse_seats
from dicepoker.tui.i18n import LANGS, Words
from dicepoker.tui.sheet import choose_layout
from dicepoker.tui.widgets import DicePanel, TablePart
from dicepoker.view import game_view
from tui_support import run, table, until, view_of

ROWS_EN = [
    "School 1", "School 2", "School 3", "School 4", "School 5", "School 6", "Pair",
    "Three of a kind", "Two pairs", "Full house", "Four of a kind", "Five of a kind",
    "Small straight", "Large straight", "Sum",
]  # fmt: skip


def _mid_game(columns: int = 3, turns: int = 70) -> LocalSession:
    """A school game between three players, stopped mid-game with the dice rolled."""
    rules = get_rules("school", {"columns": columns})
    game = Game(rules, ["Ana", "Bea", "Greedy 3"], SeededDice(7))
    bots = [make_bot("greedy"), make_bot("random", 3), make_bot("greedy")]
    while game.state.turn < turns:
        game.play(bots[game.state.seat].choose(game.state))
    game.play("roll")
    return LocalSession(game, parse_seats("human:Ana,human:Bea,bot:greedy"), bot_delay=0)


def test_full_school_sheet_at_80x24_and_resizing(tmp_path: Path) -> None:
    async def scenario() -> None:
        session = _mid_game()
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            screen = table(app)
            plan = screen.plan
            assert plan is not None
            assert not plan.narrow and not plan.sheet.compact and plan.sheet.columns == 3
            app.save_screenshot("school-80x24.svg", str(tmp_path))
            lines = app.screen_text().splitlines()
            assert len(lines) == 24
            text = "\n".join(lines)
            for label in ROWS_EN:
                assert any(line.startswith((f" {label}", f"▸{label}")) for line in lines), label
            assert "I        II       III      ★" in text
            assert "★ column bonus" in text
            assert "reserve" in text and "total" in text
            # Sheet marks as in spec/sheet.md: crosses with notes (older ones struck), zeros,
            # strokes, doubled scores, stars earned or struck, and the cells legal now.
            view = view_of(app)
            for player in view["players"]:
                assert player["name"] in text and str(player["total"]) in text
            assert "[" in text  # cells that may be filled now, with their values
            assert "Dice" in text and "R: Roll" in text
            # Every key with its words, on two lines at 80 columns (L language too).
            keys = "\n".join(lines[-2:])
            for key in ("R roll", "hold dice", "fill a cell", "H hints", "L language", "Tab"):
                assert key in keys, key
            # Another player's sheet with Tab: crosses, struck notes, earned stars.
            await pilot.press("tab", "tab")
            ana = app.screen_text()
            assert "Score sheet of Ana" in ana
            assert "✕" in ana and "★ " in ana and "×2" in ana
            assert "~" not in ana  # struck marks are styles and glyphs, never markup
            app.save_screenshot("school-80x24-ana.svg", str(tmp_path))
            # Narrow: the side panel moves below the sheet, which stays whole (compact).
            await pilot.resize_terminal(56, 24)
            await until(pilot, lambda: screen.plan is not None and screen.plan.narrow)
            assert screen.plan is not None and screen.plan.sheet.width <= 54
            assert "School 6" in app.screen_text()
            # Wide: the other sheets appear beside, smaller.
            await pilot.resize_terminal(170, 32)
            await until(pilot, lambda: screen.plan is not None and screen.plan.show_others)
            assert app.screen_text().count("Σ") == 2
            app.save_screenshot("school-170x32.svg", str(tmp_path))
        assert (tmp_path / "school-80x24.svg").stat().st_size > 10_000

    run(scenario)


def test_six_columns_fit_80_columns_compact() -> None:
    view = game_view(_mid_game(columns=6, turns=10).game.state).to_data()
    for lang in LANGS:
        layout = choose_layout(view, Words(lang), 80 - 20 - 2)
        assert layout.compact and layout.width <= 58, lang


def test_hints_show_the_advisors_expected_final_scores() -> None:
    async def scenario() -> None:
        session = _mid_game(turns=40)
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(100, 40)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            assert "Hints" not in app.screen_text()
            await pilot.press("h")
            text = app.screen_text()
            assert "Hints · expected final score" in text
            best = f"{advise(session.state).best.value:.1f}".replace("-", "−")
            assert best in text
            await pilot.press("question_mark")
            assert "Hints" not in app.screen_text()

    run(scenario)


def spot(widget: TablePart, text: str) -> tuple[int, int]:
    """Where `text` starts in what `widget` draws (x, y within the widget)."""
    lines = widget.render().plain.splitlines()
    y = next(n for n, line in enumerate(lines) if text in line)
    return lines[y].index(text) + 1, y


def dice_spots(panel: DicePanel) -> list[tuple[int, int]]:
    """Where each die's face is drawn in the side panel (its second line)."""
    line = panel.render().plain.splitlines()[1]
    return [(m.start() + (m.group().startswith("[")), 1) for m in re.finditer(r"\S+", line)]


def test_clicks_hold_dice_and_fill_cells() -> None:
    async def scenario() -> None:
        rules = get_rules("school", {"columns": 1})
        session = LocalSession.new(
            rules, parse_seats("human:Ana,human:Bea"), dice=SeededDice(9), bot_delay=0
        )
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.game_screen is not None)
            panel = app.screen.query_one(DicePanel)
            await pilot.click(DicePanel, offset=spot(panel, "R: "))
            await until(pilot, lambda: view_of(app)["turn"]["rolls"] == 1)
            dice = dice_spots(panel)
            assert len(dice) == view_of(app)["rules"]["dice"]
            await pilot.click(DicePanel, offset=dice[0])
            await pilot.click(DicePanel, offset=dice[4])
            assert table(app).choices.held == {0, 4}
            assert dice_spots(panel) == dice and "[" in panel.render().plain.splitlines()[1]
            await pilot.click(DicePanel, offset=spot(panel, "R: "))
            await until(pilot, lambda: view_of(app)["turn"]["rolls"] == 2)
            record = await session.record()
            assert record["turns"][0]["rolls"][1]["keep"] == [0, 4]
            # Click the Sum cell (always legal): find its line and the bracket in it.
            lines = app.screen_text().splitlines()
            y = next(n for n, line in enumerate(lines) if line.startswith((" Sum", "▸Sum")))
            x = lines[y].index("[")
            await pilot.click(offset=(x + 1, y))
            await until(pilot, lambda: view_of(app)["turn_number"] == 1)
            assert view_of(app)["sheets"][0]["rows"][-1]["cells"][0]["mark"] == "score"

    run(scenario)
