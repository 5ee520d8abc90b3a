"""Games survive the server: every accepted event is in the database, on SQLite and PostgreSQL.

A restarted server continues every unfinished game from its event log, bots included.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from dicepoker.record import replay
from live_server import LiveServer
from ws_client import Player


def _has_seq(seq: int, message: dict[str, Any]) -> bool:
    return bool(message.get("seq") == seq)


def _new_game(server: LiveServer, seats: list[dict[str, Any]]) -> dict[str, Any]:
    response = server.post(
        "/api/games", {"variant": "school", "options": {"columns": 1}, "seats": seats}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_restart_continues_games_exactly(database: str) -> None:
    server = LiveServer(database).start()
    try:
        body = _new_game(
            server, [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
        )
        tokens = [seat["token"] for seat in body["seats"]]
        ana = Player(server.ws_url, body["id"], tokens[0])
        ana.play_turn()
        assert ana.act("roll")["code"] == "not_your_turn"
        bea = Player(server.ws_url, body["id"], tokens[1])
        assert bea.act("roll")["type"] == "event"
        before = server.get(f"/api/games/{body['id']}")
        ana.close()
        bea.close()

        server.restart(kill=True)  # SIGKILL: no chance to flush anything
        after = server.get(f"/api/games/{body['id']}")
        assert after["seq"] == before["seq"] == 3
        assert after["state"] == before["state"]  # same dice, same sheets, same turn

        ana = Player(server.ws_url, body["id"], tokens[0])
        bea = Player(server.ws_url, body["id"], tokens[1])
        players = [ana, bea]
        while not ana.state["finished"]:
            mover = players[ana.state["turn"]["seat"]]
            mover.play_turn()
            target = mover.seq
            for player in players:
                if player.seq < target:
                    player.until(partial(_has_seq, target))
        record = server.get(f"/api/games/{body['id']}/record")
        assert replay(record).state.finished is True
        assert len(record["turns"]) == 30
        ana.close()
        bea.close()
    finally:
        server.stop()


def test_restart_lets_bots_finish_their_games(database: str) -> None:
    server = LiveServer(database, bot_delay=30.0).start()  # bots wait: the game is mid-way
    try:
        body = _new_game(
            server, [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
        )
        ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
        ana.play_turn()
        assert server.get(f"/api/games/{body['id']}")["state"]["turn"]["seat"] == 1
        ana.close()
        server.restart(kill=True, bot_delay=0.0)
        # The restarted server finds the bot to move and lets it play its turn.
        game = server.wait_for(
            f"/api/games/{body['id']}",
            lambda g: g["state"]["turn"]["seat"] == 0 and g["seq"] > 2,
        )
        assert game["status"] == "running"
        record = server.get(f"/api/games/{body['id']}/record")
        assert len(record["turns"]) == 2 and record["turns"][1]["move"]
    finally:
        server.stop()


def test_head_revision_is_alembics_head() -> None:
    """The start-up shortcut (no Alembic when the schema is current) reads the same head."""
    from alembic.script import ScriptDirectory

    from dicepoker.server.storage.store import alembic_config, head_revision

    config = alembic_config("sqlite+aiosqlite://")
    assert head_revision() == ScriptDirectory.from_config(config).get_current_head()
