"""`dicepoker serve --no-win-probability`: a server that judges no chances (a small machine's
CPU, docs/deploy.md "Capacity"); the default server judges them."""

from __future__ import annotations

from pathlib import Path

import pytest

from live_server import LiveServer
from ws_client import Player

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def _chances_told(server: LiveServer, turns: int) -> list[bool]:
    """Play `turns` turns of a 2-person School game; for each event, whether it carried chances."""
    made = server.post("/api/games", {"variant": "school", "seats": HUMANS}).json()
    players = [Player(server.ws_url, made["id"], seat["token"]) for seat in made["seats"]]
    try:
        for turn in range(turns):
            mover, other = players[turn % 2], players[1 - turn % 2]
            mover.play_turn()
            while other.seq < mover.seq:  # the other has seen the move
                other.recv()
        events = [m for m in players[0].seen if m["type"] == "event"]
        assert len(events) >= turns
        return ["win_probability" in m for m in events]
    finally:
        for player in players:
            player.close()


@pytest.mark.parametrize("judged", [True, False])
def test_win_probability_can_be_switched_off(tmp_path: Path, judged: bool) -> None:
    options = () if judged else ("--no-win-probability",)
    server = LiveServer(str(tmp_path / "games.db"), options=options)
    server.start()
    try:
        told = _chances_told(server, 8)
        game = server.get("/api/games?status=running")["games"][0]
        info = server.get(f"/api/games/{game['id']}")
    finally:
        server.stop()
    if judged:
        # School's backend is ready at once (no table to build): judged from the first events.
        assert all(told), told
        assert len(info["win_probability"]) == 2
    else:
        assert not any(told), told
        assert "win_probability" not in info
