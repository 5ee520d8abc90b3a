"""A record that says its game is over must replay to the engine's game over (issue 17): a
finished record with its last turn cut off is refused by `dicepoker verify`, by `dicepoker
replay` and by the server's import alike (one check, `dicepoker.record.check_ending`), and a
record's final totals must be the replay's."""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicepoker.fair import RECORD_KEY, verify_record
from dicepoker.record import RecordEndError, check_record
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from fair_support import play_fair
from live_server import DICEPOKER
from security_support import GOLDEN

EXAMPLES = sorted(path.name.removesuffix(".json") for path in GOLDEN.glob("*[!d].json"))


def example(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    expected: dict[str, Any] = json.loads((GOLDEN / f"{name}.expected.json").read_text())
    return record, expected


def cut(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its last turn."""
    return {**copy.deepcopy(record), "turns": record["turns"][:-1]}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DICEPOKER, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("ending")
    settings = Settings(database=str(folder / "ending.db"), bot_delay=0, bot_workers=0)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_golden_example_with_its_result_checks_and_refuses_a_lost_turn(name: str) -> None:
    record, expected = example(name)
    assert expected["finished"] is True
    claimed = {**record, "finished": True, "totals": expected["totals"]}
    check_record(claimed)  # the example as it is, its result given: it passes
    check_record(cut(record))  # a record that says nothing of its end may stop anywhere
    with pytest.raises(RecordEndError, match=r"the record says the game is over \(it says "):
        check_record(cut(claimed))
    only_totals = cut({**record, "totals": expected["totals"]})
    with pytest.raises(RecordEndError, match=r"it gives final totals\), but after its \d+ turns"):
        check_record(only_totals)
    wrong = {**claimed, "totals": [total + 1 for total in expected["totals"]]}
    with pytest.raises(RecordEndError, match=r"the record's totals are not the replay's"):
        check_record(wrong)


def test_verify_refuses_a_finished_record_that_lost_its_last_turn(tmp_path: Path) -> None:
    record = play_fair("yahtzee", ["greedy", "greedy"], 11)
    assert verify_record(record).ok
    short = cut(record)
    result = verify_record(short)
    assert (result.ok, result.reason) == (False, "bad_record")
    players = len(record["players"])
    missing = record["players"][(len(short["turns"])) % players]
    assert result.message == (
        "not a valid record: the record says the game is over (its fair-dice seed is revealed), "
        f"but after its {len(short['turns'])} turns it is not: {missing} is still to play, "
        "turns are missing"
    )
    # Its move alone gone, the last turn's rolls kept: refused the same way.
    unmoved = copy.deepcopy(record)
    del unmoved["turns"][-1]["move"]
    assert "turns are missing" in verify_record(unmoved).message

    path = tmp_path / "short.json"
    path.write_text(json.dumps(short))
    for command in (["verify"], ["replay"]):
        answer = run_cli(*command, str(path))
        assert answer.returncode == 1, answer.stdout[:200]
        lines = answer.stderr.strip().splitlines()
        assert len(lines) == 1 and "turns are missing" in lines[0], answer.stderr[-500:]
    as_json = json.loads(run_cli("verify", str(path), "--json").stdout)
    assert (as_json["ok"], as_json["reason"]) == (False, "bad_record")
    path.write_text(json.dumps(record))
    assert run_cli("verify", str(path)).returncode == 0


def test_the_import_refuses_it_with_the_same_words(client: TestClient) -> None:
    record = play_fair("yahtzee", ["greedy", "greedy"], 12)
    short = cut(record)
    response = client.post("/api/records", content=json.dumps(short))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "bad_record"
    assert f"not a valid record: {error['message']}" == verify_record(short).message
    # Without the revealed seed the same turns are an unfinished game, imported as such.
    unclaimed = {**short, RECORD_KEY: {k: v for k, v in record[RECORD_KEY].items() if k != "seed"}}
    assert client.post("/api/records", content=json.dumps(unclaimed)).status_code == 201
    assert client.post("/api/records", content=json.dumps(record)).status_code == 201
