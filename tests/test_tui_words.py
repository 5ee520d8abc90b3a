"""The terminal's words and what it offers: one word per language for holding dice and another for
saving, bots named in the player's language, the strike key only where a strike is possible (as
the view's legal moves say), a record's unknown bot level a clear error, and a setup screen
whose focused field shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui import PlayApp
from dicepoker.tui.i18n import LANGS, Words, tui_catalog
from dicepoker.tui.launch import LaunchError, PlayOptions, build
from dicepoker.tui.session import LocalSession, parse_seats
from tui_support import run, until

#: The msgids that speak of saving the record (none may use the word for holding dice).
SAVING = (
    "key.save",
    "S saves the record, Q quits.",
    "Save the game as:",
    "Enter saves, Escape cancels.",
    "Saved to {path}",
    "Could not save: {error}",
    "Not saved.",
    "Unsaved game: press Q again to quit, S to save.",
)


@pytest.mark.parametrize("lang", LANGS)
def test_one_word_for_holding_dice_and_another_for_saving(lang: str) -> None:
    words = Words(lang)
    hold = words("hold")  # as the hints write a hold (`hold 2 4 5`) and the web page does
    stem = hold if lang == "en" else hold[:-2]  # guardar -> guard (guardan, guardam...)
    # The key bar and the status line say the same word.
    assert words("key.hold").split()[0] == hold
    assert stem in words("1-{n} hold dice, R rolls again, arrows and Enter fill a cell.", n=5)
    catalog = tui_catalog(lang)
    for msgid in SAVING:
        assert stem not in catalog[msgid].lower(), (msgid, catalog[msgid])


def test_the_seed_pages_word_for_holding_dice() -> None:
    assert Words("es")("key.hold") == "guardar"  # "Guarda los que quieras" (rules page, es)
    assert Words("pt")("key.hold") == "guardar"  # "Guarde qualquer um deles" (pt-BR)
    assert Words("es")("key.save") == "grabar"
    assert Words("pt")("key.save") == "salvar"


@pytest.mark.parametrize("lang", LANGS)
def test_bots_are_named_in_the_players_language(lang: str) -> None:
    words = Words(lang)
    launch = build(PlayOptions(seats="human,bot:greedy,bot:expert", lang=lang, bot_delay=0))
    session = launch.app.session
    assert session is not None
    assert session.players == [
        words("Player {n}", n=1),
        f"{words.level('greedy')} 2",
        f"{words.level('expert')} 3",
    ]
    if lang == "es":
        assert session.players[1] == "Codicioso 2"


def keys_and_status(variant: str) -> tuple[str, str]:
    """The key bar and the status line of a turn with no rolls left (only cells to fill)."""
    rules = get_rules(variant)
    game = Game(rules, ["Ana", "Bea"], SeededDice(4))
    for _ in range(rules.rolls_per_turn):
        game.play("roll")
    session = LocalSession(game, parse_seats("human:Ana,human:Bea"), bot_delay=0)
    lines: list[str] = []

    async def scenario() -> None:
        app = PlayApp(session, lang="en")
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "your turn" in app.screen_text())
            lines.extend(app.screen_text().splitlines()[-2:])

    run(scenario)
    status, keys = lines
    return keys, status


def test_the_strike_key_only_where_a_strike_is_possible() -> None:
    keys, status = keys_and_status("school")
    assert "X strike" in keys and "X strikes it" in status
    for variant in ("yahtzee", "poker-dice"):  # their legal moves have no strike
        keys, status = keys_and_status(variant)
        assert "X " not in keys and "X strikes" not in status, variant
        assert "Arrows and Enter fill a cell." in status and "Q quit" in keys


def test_an_unknown_bot_level_in_a_record_is_a_clear_error(tmp_path: Path) -> None:
    game = Game(get_rules("school"), ["Ana", "Bob"], SeededDice(1))
    record = game.to_record()
    record["bots"] = [None, "wizard"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    with pytest.raises(LaunchError) as error:
        build(PlayOptions(load=path))
    message = str(error.value)
    assert message.startswith(f"{path}: seat 2 (Bob) is a bot of an unknown level 'wizard'")
    assert "\n" not in message
    record["bots"] = "greedy"
    path.write_text(json.dumps(record))
    with pytest.raises(LaunchError, match="list of bot levels"):
        build(PlayOptions(load=path))
    # Known levels still seat their bots.
    record["bots"] = [None, "greedy"]
    path.write_text(json.dumps(record))
    session = build(PlayOptions(load=path, bot_delay=0)).app.session
    assert isinstance(session, LocalSession) and session.is_bot(1) and not session.is_bot(0)


#: The bar drawn left of the field with the focus (a character: it shows in any terminal).
FOCUS_BAR = "█"


def test_the_setup_screen_shows_which_field_has_the_focus() -> None:
    async def scenario() -> None:
        app = PlayApp(None, lang="es")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.focused is not None)
            seen = set()
            for _ in range(6):
                focused = app.focused
                assert focused is not None
                await until(pilot, lambda: FOCUS_BAR in app.screen_text())
                lines = app.screen_text().splitlines()
                marked = [n for n, line in enumerate(lines) if FOCUS_BAR in line]
                assert marked == [focused.region.y], (focused, lines)
                assert lines[focused.region.y][focused.region.x] == FOCUS_BAR
                assert app.screen_text().count(FOCUS_BAR) == 1
                seen.add(focused.id)
                await pilot.press("tab")
                await until(pilot, lambda f=focused: app.focused is not f)  # type: ignore[misc]
            assert len(seen) == 6

    run(scenario)


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_a_bot_a_server_named_is_shown_in_the_players_words(lang: str) -> None:
    """A joined game's bot is named by the server after its level ("Greedy 2"): the terminal
    says it in the player's language, as the web pages do; a person's name stays as it is."""
    words = Words(lang)
    assert words.shown_name("Greedy 2") == words.bot_name("greedy", 2)
    assert "Greedy" not in words.shown_name("Greedy 2")
    assert words.shown_name("Ana 2") == "Ana 2"
    assert words.shown_name("Greedy") == "Greedy"
