"""`dicepoker replay` writes sheets a person reads: rows by the words of the sheets (the catalog's,
`School 1`, never the id `ones`), and struck marks as glyphs, never Markdown's tildes (`~~★~~`),
which a terminal prints as they are."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.i18n import gettext
from dicepoker.record import Game
from dicepoker.rules import get_rules
from live_server import DICEPOKER


def finished_school_record() -> dict[str, object]:
    """A whole School game of two greedy bots (greedy play strikes rows, so stars are lost)."""
    game = Game(get_rules("school"), ["Ana", "Bea"], SeededDice(11))
    bots = [make_bot("greedy", seed=seat) for seat in range(2)]
    while not game.state.finished:
        game.play(bots[game.state.seat].choose(game.state))
    return game.to_record()


def test_replay_names_rows_in_words_and_prints_no_markup(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_school_record()), encoding="utf-8")
    done = subprocess.run(
        [DICEPOKER, "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "~" not in text, text
    lines = text.splitlines()
    for row in ("ones", "twos", "pair", "two_pairs"):
        label = gettext("en", f"row.school.{row}")
        assert label != f"row.school.{row}"
        assert any(line.startswith(f"{label}  ") for line in lines), (label, text)
        assert not any(line.startswith((f"{row} ", row.replace("_", " ") + " ")) for line in lines)
    assert "·" in text  # a star out of reach, drawn as a glyph
