"""The real `dicepoker play` in a real terminal: tmux at 80x24, its screen captured as text.

The checks a person makes by eye: no markup printed as it is (`~★~`), no placeholder where a
School row's zero shows its cost (`[0]`), no block glyphs beside the dice and the hints (a
scrollbar's eighth blocks), every key on the key lines (L language included), and in Spanish no
English word of the catalogs, before and after L turns a notice into Portuguese."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dicepoker.i18n import translations
from dicepoker.tui.i18n import TUI_DOMAIN, Words

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

REPO = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT = 80, 24
#: How long the program may take to show what a key asked for (a first start loads the tables).
PATIENCE = 60.0
BLOCKS = re.compile("[▁▂▃▄▅▆▇█▉▊▋▌▍▎▏]")


class Terminal:
    """A tmux server of our own (its own socket) running one program in an 80x24 window."""

    def __init__(self, name: str) -> None:
        self.socket = f"dicepoker-test-{name}-{os.getpid()}"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, command: list[str]) -> None:
        size = ["-x", str(WIDTH), "-y", str(HEIGHT)]
        self.tmux("new-session", "-d", "-s", "play", *size, " ".join(command))

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "play")

    def press(self, key: str) -> None:
        self.tmux("send-keys", "-t", "play", key)

    def until(self, shown: Callable[[str], bool]) -> str:
        """The screen once `shown` holds for it (the program answers keys at its own pace)."""
        deadline = time.monotonic() + PATIENCE
        while True:
            screen = self.screen()
            if shown(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"never shown; the screen:\n{screen}")
            time.sleep(0.1)

    def stop(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    term = Terminal(re.sub(r"\W", "", request.node.name)[:30])
    try:
        yield term
    finally:
        term.stop()


def play_command(lang: str) -> list[str]:
    return [
        f"cd {REPO} &&",
        sys.executable,
        "-m",
        "dicepoker",
        "play",
        "--variant school",
        "--seats human:Ana,bot:greedy",
        "--seed 7",
        "--bot-delay 0",
        "--hints",
        f"--lang {lang}",
    ]


def english_only_words() -> set[str]:
    """Words of the English catalogs that neither Spanish nor Portuguese use anywhere."""

    def words_of(lang: str) -> set[str]:
        texts = [*translations(lang, TUI_DOMAIN).values(), *translations(lang, "messages").values()]
        return {word for text in texts for word in re.findall(r"[A-Za-zÀ-ÿ]{4,}", text)}

    return words_of("en") - words_of("es") - words_of("pt")


def assert_clean(screen: str) -> None:
    assert "~" not in screen, screen  # struck marks are styles, never tildes
    assert "[0]" not in screen, screen  # a zero shows its cost
    assert not BLOCKS.search(screen), screen


KEY_WORDS = {
    "R": "key.roll",
    "1-5": "key.hold",
    "↑↓ ↵": "key.fill",
    "X": "key.strike",
    "H": "key.hints",
    "S": "key.save",
    "Q": "key.quit",
    "L": "key.language",
    "Tab": "key.sheets",
}


def assert_keys(screen: str, words: Words, keys: tuple[str, ...]) -> None:
    """Each of `keys` with its words on the key lines (the last two), none cut off."""
    shown = "\n".join(screen.rstrip("\n").splitlines()[-2:])
    for key in keys:
        assert f"{key} {words(KEY_WORDS[key])}" in shown, (key, shown)


def test_school_at_80x24_in_spanish(terminal: Terminal) -> None:
    es, pt = Words("es"), Words("pt")
    terminal.start(play_command("es"))
    screen = terminal.until(lambda s: es("key.language") in s and es("Hints") in s)
    assert_clean(screen)
    # Before the roll, the keys that work then: nothing to hold or fill yet.
    assert_keys(screen, es, ("R", "H", "S", "Q", "L", "Tab"))
    english = english_only_words()
    assert not english & set(re.findall(r"[A-Za-zÀ-ÿ]{4,}", screen)), screen
    # The first roll: every row previews its cell, School rows that would take a zero their cost.
    terminal.press("r")
    rolled = es("roll {n} of {total}", n=1, total=3)
    screen = terminal.until(lambda s: rolled in s and "[" in s)
    assert_clean(screen)
    assert "[−200]" in screen, screen  # seed 7's first roll leaves School rows without dice
    assert_keys(screen, es, ("R", "1-5", "↑↓ ↵", "X", "H", "S", "Q", "L", "Tab"))
    assert not english & set(re.findall(r"[A-Za-zÀ-ÿ]{4,}", screen)), screen
    # A notice in Spanish (a roll asked for with every die held), then L: the notice is said
    # again in Portuguese.
    for die in "12345":
        terminal.press(die)
    terminal.press("r")
    said_es, said_pt = (
        es("Release at least one die to roll."),
        pt("Release at least one die to roll."),
    )
    terminal.until(lambda s: said_es in s)
    terminal.press("l")
    screen = terminal.until(lambda s: pt("key.language") in s and said_pt in s)
    assert es("key.roll") not in screen.splitlines()[-2]
    assert_clean(screen)
    assert not english & set(re.findall(r"[A-Za-zÀ-ÿ]{4,}", screen)), screen
