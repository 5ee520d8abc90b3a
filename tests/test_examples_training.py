"""The training example (examples/train_policy.py): it runs, is reproducible, saves its weights,
refuses bad flags, and on a small fixed budget learns: the trained policy beats the untrained one
by many standard errors."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "train_policy.py"
SUMMARY = re.compile(r"^(.+): mean (-?\d+\.\d\d) \(SE (\d+\.\d\d)\) over ([\d,]+) games$", re.M)


def run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *flags],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )


def summaries(out: str) -> dict[str, tuple[float, float, int]]:
    """Each printed 'LABEL: mean M (SE S) over N games' line, by label."""
    return {
        label: (float(mean), float(se), int(games.replace(",", "")))
        for label, mean, se, games in SUMMARY.findall(out)
    }


def test_a_tiny_run_prints_every_score_and_saves_the_weights(tmp_path: Path) -> None:
    flags = ["--variant", "school", "--updates", "2", "--envs", "8", "--hidden", "8"]
    flags += ["--eval-games", "10", "--seed", "5"]
    result = run(*flags, "--save", str(tmp_path / "weights"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("dicepoker/School-v0: 444 features, 62 actions, hidden 8, 8 games")
    found = summaries(out)
    assert set(found) == {
        "random play",
        "untrained policy",
        "trained policy (sampling)",
        "trained policy (greedy)",
    }
    for mean, se, games in found.values():
        assert math.isfinite(mean) and se > 0 and games == 10
    assert re.search(r"^trained 2 updates, 16 games, [\d,]+ decisions in \d+ s", out, re.M)
    with np.load(tmp_path / "weights.npz") as saved:
        assert str(saved["variant"]) == "school"
        assert saved["W1"].shape == (444, 8) and saved["Wp"].shape == (8, 62)
        assert saved["wv"].shape == (8, 1) and np.isfinite(saved["W1"]).all()
    again = run(*flags)  # the same seed and updates: the same games, the same policy
    assert again.returncode == 0, again.stderr
    assert summaries(again.stdout) == found


def test_training_on_a_small_budget_beats_the_untrained_policy() -> None:
    result = run(
        *["--updates", "150", "--envs", "128", "--hidden", "128", "--lr", "3e-3"],
        *["--eval-games", "400", "--seed", "3"],
    )
    assert result.returncode == 0, result.stderr
    found = summaries(result.stdout)
    random_mean, random_se, _ = found["random play"]
    before, before_se, _ = found["untrained policy"]
    after, after_se, _ = found["trained policy (greedy)"]
    assert abs(before - random_mean) < 5 * math.hypot(before_se, random_se)
    assert after - before > 10 * math.hypot(before_se, after_se)
    assert found["trained policy (sampling)"][0] - before > 10 * math.hypot(before_se, after_se)


def test_bad_flags_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    cases = [
        (["--variant", "nope"], "invalid choice: 'nope' (choose from 'poker-dice', 'school'"),
        (["--envs", "0"], "--envs must be at least 1"),
        (["--eval-games", "1"], "--eval-games must be at least 2"),
        (["--minutes", "0"], "--minutes and --lr must be more than 0"),
        (["--save", str(tmp_path / "missing" / "w.npz")], "--save: no folder"),
    ]
    for flags, message in cases:
        result = run(*flags)
        assert result.returncode == 2, flags
        assert message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "missing").exists()
