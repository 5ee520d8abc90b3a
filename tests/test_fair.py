"""Fair dice you can verify (docs/fair-dice.md): the derivation, the check, the server, the CLI."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dicepoker.engine import Roll, new_game
from dicepoker.fair import (
    RECORD_KEY,
    FairDice,
    commitment,
    die,
    new_seed,
    thrown_positions,
    verify_record,
)
from dicepoker.rules import get_rules
from fair_support import first_thrown, play_fair, rolls_in
from live_server import DICEPOKER

#: The seed of the worked example in docs/fair-dice.md: the bytes 0x00, 0x01, ..., 0x1f.
EXAMPLE_SEED = bytes(range(32)).hex()


def reference_die(seed_hex: str, message: str) -> int:
    """The derivation written out again from the documentation, with hashlib and hmac only."""
    digest = hmac.new(bytes.fromhex(seed_hex), message.encode(), hashlib.sha256).digest()
    return next(byte % 6 + 1 for byte in digest if byte < 252)


# --- the derivation --------------------------------------------------------------------------


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment(EXAMPLE_SEED) == hashlib.sha256(bytes(range(32))).hexdigest()
    assert commitment(EXAMPLE_SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )


def test_known_answers_of_the_worked_example() -> None:
    first = [die(EXAMPLE_SEED, 1, 1, position) for position in range(5)]
    assert first == [reference_die(EXAMPLE_SEED, f"1:1:{p}") for p in range(5)]
    assert first == [4, 1, 4, 2, 5]
    # Roll 2 of turn 1 holds 0, 2 and 4: it throws positions 1 and 3.
    assert thrown_positions([0, 2, 4]) == (1, 3)
    assert [die(EXAMPLE_SEED, 1, 2, p) for p in (1, 3)] == [3, 6]
    assert [reference_die(EXAMPLE_SEED, f"1:2:{p}") for p in (1, 3)] == [3, 6]
    # Turn 2 roll 3 die 4: the first byte of the HMAC is 252, rejected; the second, 201, is used.
    digest = hmac.new(bytes(range(32)), b"2:3:4", hashlib.sha256).digest()
    assert list(digest[:2]) == [252, 201]
    assert die(EXAMPLE_SEED, 2, 3, 4) == 201 % 6 + 1 == 4


def test_a_fully_rejected_digest_goes_on_with_a_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    real = hmac.new
    asked: list[bytes] = []

    class Rejecting:
        def digest(self) -> bytes:
            return bytes([255] * 32)

    def fake_new(key: bytes, message: bytes, digestmod: Any) -> Any:
        asked.append(message)
        if message == b"7:1:2":
            return Rejecting()
        return real(key, message, digestmod)

    monkeypatch.setattr(hmac, "new", fake_new)
    value = die(EXAMPLE_SEED, 7, 1, 2)
    monkeypatch.undo()
    assert asked == [b"7:1:2", b"7:1:2:1"]
    assert value == reference_die(EXAMPLE_SEED, "7:1:2:1")


def test_dice_look_uniform() -> None:
    """Chi-square of 60,000 derived faces against the uniform law (5 degrees of freedom)."""
    counts = Counter(
        die(EXAMPLE_SEED, turn, roll, position)
        for turn in range(1, 4001)
        for roll in range(1, 4)
        for position in range(5)
    )
    total = sum(counts.values())
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = total / 6
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi2 < 20.5  # the 0.001 critical value: a fixed seed, so this never flickers


def test_other_face_counts_reject_the_right_bytes() -> None:
    faces = [die(EXAMPLE_SEED, 1, 1, p, faces=4) for p in range(200)]
    assert set(faces) == {1, 2, 3, 4}  # 256 is a multiple of 4: no byte is rejected
    digest = hmac.new(bytes(range(32)), b"1:1:0", hashlib.sha256).digest()
    assert die(EXAMPLE_SEED, 1, 1, 0, faces=4) == digest[0] % 4 + 1


def test_seeds_are_fresh_and_well_formed() -> None:
    seeds = {new_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(len(s) == 64 and all(c in "0123456789abcdef" for c in s) for s in seeds)
    with pytest.raises(ValueError):
        commitment("00" * 31)
    with pytest.raises(ValueError):
        commitment(EXAMPLE_SEED.upper())
    assert "secret" in repr(FairDice(EXAMPLE_SEED)) and EXAMPLE_SEED not in repr(
        FairDice(EXAMPLE_SEED)
    )


# --- records played with fair dice through the engine (what the game master does) ------------


@pytest.mark.parametrize("variant", ["school", "yahtzee", "yahtzee15", "poker-dice"])
def test_engine_games_verify(variant: str) -> None:
    record = play_fair(variant, ["greedy", "random"], 1)
    result = verify_record(record)
    assert result.ok, result.message
    assert result.rolls == rolls_in(record) and result.rolls > 0
    assert result.message == (
        f"dice verified: {result.rolls} rolls match commitment {record[RECORD_KEY]['commitment']}"
    )


def test_tie_break_and_forfeit_turns_verify() -> None:
    rules = get_rules("poker-dice")
    main_turns = 2 * len(rules.rows)
    # Random bots tie for first often enough: the first seeds include a tie-break.
    records = [play_fair("poker-dice", ["random", "random"], n) for n in range(12)]
    tied = [r for r in records if len(r["turns"]) > main_turns]
    assert tied, "no tie-break among the first seeds"
    for record in tied:
        assert verify_record(record).ok
    forfeit = play_fair("poker-dice", ["random", "random", "random"], 5, forfeit_turn=4)
    assert forfeit["turns"][3].get("forfeit") == "timeout" and forfeit["turns"][3]["rolls"]
    assert len(forfeit["turns"]) > 4  # two players played on after the forfeit
    assert verify_record(forfeit).ok


def test_an_altered_die_is_found_with_its_turn_and_roll() -> None:
    record = play_fair("yahtzee", ["greedy"], 3)
    turn, roll, position = first_thrown(record)
    bad = copy.deepcopy(record)
    dice = bad["turns"][turn - 1]["rolls"][roll - 1]["dice"]
    dice[position] = dice[position] % 6 + 1
    result = verify_record(bad)
    assert not result.ok and result.reason == "dice_differ"
    assert (result.turn, result.roll, result.position) == (turn, roll, position)
    assert result.message == f"turn {turn} roll {roll}: dice differ from the commitment"
    expected = record["turns"][turn - 1]["rolls"][roll - 1]["dice"]
    assert list(result.expected or ()) == expected


def test_seed_commitment_and_scheme_problems() -> None:
    record = play_fair("school", ["greedy"], 2)

    def changed(**entry: Any) -> dict[str, Any]:
        """The record with its `fair_dice` entry changed (a None value removes the key)."""
        out = copy.deepcopy(record)
        merged = {**out[RECORD_KEY], **entry}
        out[RECORD_KEY] = {key: value for key, value in merged.items() if value is not None}
        return out

    other_seed = "ff" + record[RECORD_KEY]["seed"][2:]
    cases = {
        "commitment_mismatch": changed(seed=other_seed),
        "no_seed": changed(seed=None),
        "bad_seed": changed(seed="xyz"),
        "bad_commitment": changed(commitment=None),
        "unknown_scheme": changed(scheme="dice-v0"),
    }
    for reason, bad in cases.items():
        result = verify_record(bad)
        assert not result.ok and result.reason == reason, (reason, result)
    # The right seed with a matching commitment for other dice: every roll differs.
    forged = changed(seed=other_seed, commitment=commitment(other_seed))
    result = verify_record(forged)
    assert result.reason == "dice_differ" and (result.turn, result.roll) == (1, 1)
    missing = {k: v for k, v in record.items() if k != RECORD_KEY}
    assert verify_record(missing).reason == "no_fair_dice"
    assert verify_record({"variant": "chess"}).reason == "bad_record"


def test_a_record_that_does_not_replay_is_reported_as_such() -> None:
    record = play_fair("school", ["greedy"], 4)
    bad = copy.deepcopy(record)
    bad["turns"][5]["move"] = "score no_such_row"
    result = verify_record(bad)
    assert result.reason == "bad_record" and result.turn == 6
    assert "turn 6" in result.message


# --- the command line -------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DICEPOKER, *args], capture_output=True, text=True, timeout=120)


def test_command_line_verify(tmp_path: Path) -> None:
    record = play_fair("yahtzee", ["greedy"], 6)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    ok = run_cli("verify", str(path))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == (
        f"dice verified: {rolls_in(record)} rolls match commitment "
        f"{record[RECORD_KEY]['commitment']}"
    )
    as_json = run_cli("verify", str(path), "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["ok"] is True

    turn, roll, position = first_thrown(record)
    bad = copy.deepcopy(record)
    bad["turns"][turn - 1]["rolls"][roll - 1]["dice"][position] ^= 7  # 1..6 -> 6..1, never equal
    path.write_text(json.dumps(bad))
    differ = run_cli("verify", str(path))
    assert differ.returncode == 1
    assert differ.stderr.strip() == (
        f"dicepoker: turn {turn} roll {roll}: dice differ from the commitment"
    )
    answer = json.loads(run_cli("verify", str(path), "--json").stdout)
    assert (answer["ok"], answer["turn"], answer["roll"]) == (False, turn, roll)

    del record[RECORD_KEY]["seed"]
    path.write_text(json.dumps(record))
    unrevealed = run_cli("verify", str(path))
    assert unrevealed.returncode == 1 and "seed is not revealed" in unrevealed.stderr
    path.write_text("{not json")
    broken = run_cli("verify", str(path))
    assert broken.returncode == 1 and "Traceback" not in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1


def test_roll_sources_refuse_a_wrong_count() -> None:
    source = FairDice(EXAMPLE_SEED).for_roll(1, 2, [0, 1])
    assert source.positions == (2, 3, 4)
    with pytest.raises(ValueError):
        source.roll(2, 6)
    state = new_game(get_rules("school"), ["Ana"])
    first = FairDice(EXAMPLE_SEED).for_action(state, Roll(()))
    assert first is not None and first.roll(5, 6) == (4, 1, 4, 2, 5)


def test_the_check_in_the_documentation_works(tmp_path: Path) -> None:
    """docs/fair-dice.md's few lines of Python agree with verify_record."""
    doc = (Path(__file__).parent.parent / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    section = doc.split("## The check in a few lines", 1)[1]
    script = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "check.py").write_text(script)
    record = play_fair("poker-dice", ["random", "random"], 3)  # a tie-break game
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(tmp_path / "check.py"), str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    ok = check()
    assert ok.returncode == 0 and ok.stdout.strip() == "dice verified", ok.stderr
    turn, roll, position = first_thrown(record)
    record["turns"][turn - 1]["rolls"][roll - 1]["dice"][position] ^= 7
    path.write_text(json.dumps(record))
    bad = check()
    assert bad.returncode == 1
    assert bad.stderr.strip() == f"turn {turn} roll {roll}: dice differ from the commitment"
    assert verify_record(record).message == bad.stderr.strip()
