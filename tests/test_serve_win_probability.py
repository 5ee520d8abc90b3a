"""`dicepoker serve --no-win-probability`: a server that judges no chances (a small machine's
CPU, docs/capacity.md); the default server judges them."""

from __future__ import annotations

from pathlib import Path

import pytest

from live_server import LiveServer
from ws_client import Player

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def _play(server: LiveServer, turns: int) -> Player:
    """Play `turns` turns of a 2-person School game; returns the first seat's connection (its
    `seen` messages), the other closed."""
    made = server.post("/api/games", {"variant": "school", "seats": HUMANS}).json()
    players = [Player(server.ws_url, made["id"], seat["token"]) for seat in made["seats"]]
    try:
        for turn in range(turns):
            mover, other = players[turn % 2], players[1 - turn % 2]
            mover.play_turn()
            while other.seq < mover.seq:  # the other has seen the move
                other.recv()
    finally:
        players[1].close()
    return players[0]


def _judged(seen: list[dict[str, object]]) -> set[object]:
    """The seqs whose chances were told (in a `chances` message after the event; an event never
    carries them)."""
    assert not any("win_probability" in m for m in seen if m["type"] == "event")
    return {m["seq"] for m in seen if m["type"] == "chances"}


@pytest.mark.parametrize("judged", [True, False])
def test_win_probability_can_be_switched_off(tmp_path: Path, judged: bool) -> None:
    options = () if judged else ("--no-win-probability",)
    server = LiveServer(str(tmp_path / "games.db"), options=options)
    server.start()
    try:
        ana = _play(server, 8)
        events = {m["seq"] for m in ana.seen if m["type"] == "event"}
        assert len(events) >= 8
        if judged:
            # The position the game rests at is judged, its chances told after its event (a
            # position the game left before its chances came is not news).
            while max(events) not in _judged(ana.seen):
                ana.recv(timeout=15)
        ana.close()
        game = server.get("/api/games?status=running")["games"][0]
        info = server.get(f"/api/games/{game['id']}")
    finally:
        server.stop()
    if judged:
        assert len(info["win_probability"]) == 2
    else:
        assert not _judged(ana.seen)
        assert "win_probability" not in info


def test_a_first_game_after_a_start_gets_its_chances_and_logs_no_traceback(tmp_path: Path) -> None:
    """Found by a review: on a fresh server, a new yahtzee game against a bot with the person to
    move first never got the chances of its first position, nor of a roll made at once, and the
    server logged two tracebacks. The chances come after each event (the worker loads the
    variant's tables at its first call), and nothing is logged as an error."""
    server = LiveServer(str(tmp_path / "games.db"))
    server.start()
    try:
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
        made = server.post("/api/games", {"variant": "yahtzee", "seats": seats}).json()
        ana = Player(server.ws_url, made["id"], made["seats"][0]["token"])
        try:
            ana.act("roll", 0)  # at once
            told = ana.until(lambda m: m["type"] == "chances" and m["seq"] == 1, timeout=120)
            assert len(told["win_probability"]) == 2
        finally:
            ana.close()
    finally:
        server.stop()
    log = server.log_tail(200_000)
    assert "Traceback" not in log and "ERROR" not in log, log
