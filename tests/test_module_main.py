"""`python -m dicepoker` is the same command line as `dicepoker`: it replays the golden records
to the results they expect."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden" / "spec_examples"
NAMES = sorted(path.stem for path in GOLDEN.glob("*.json") if ".expected" not in path.name)


def test_there_are_golden_records() -> None:
    assert len(NAMES) == 7


@pytest.mark.parametrize("name", NAMES)
def test_python_m_dicepoker_replays_a_record(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dicepoker", "replay", str(GOLDEN / f"{name}.json"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replayed = json.loads(done.stdout)
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text("utf-8"))
    for key, value in expected.items():
        assert replayed[key] == value, key


def test_python_m_dicepoker_fails_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dicepoker", "replay", "/nonexistent.json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
