"""Several server processes on one PostgreSQL database, with events fanned out through Redis.

Players of one game connected to different processes see each other's moves; intents that race
through two processes are applied once; bots are driven by one process at a time and another
takes over when it dies.
"""

from __future__ import annotations

import threading
from typing import Any

from dicepoker.record import replay
from dicepoker.rules import get_rules
from live_server import LiveServer, fresh_postgres_database, redis_url
from test_health import TOKEN, scrape, value, wait_until
from ws_client import Player


def _create(server: LiveServer, seats: list[dict[str, Any]], columns: int = 1) -> dict[str, Any]:
    response = server.post(
        "/api/games", {"variant": "school", "options": {"columns": columns}, "seats": seats}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_players_on_two_processes_play_a_whole_game(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    first, second = server_pair
    body = _create(first, HUMANS)
    ana = Player(first.ws_url, body["id"], body["seats"][0]["token"])
    bea = Player(second.ws_url, body["id"], body["seats"][1]["token"])
    try:
        players = [ana, bea]
        while not ana.state["finished"]:
            mover = players[ana.state["turn"]["seat"]]
            other = players[1 - ana.state["turn"]["seat"]]
            before = mover.seq
            mover.play_turn()
            # The other process heard of every event, in order, with the same state.
            other.until(lambda m, seq=mover.seq: m.get("seq") == seq)
            assert other.state == mover.state
            assert mover.seq > before
            # It forwards the committing process's event message to its clients; its own game
            # (which checks its clients' intents) is at the same state as well.
            for server in server_pair:
                game = server.get(f"/api/games/{body['id']}")
                assert (game["seq"], game["state"]) == (mover.seq, mover.state)
        assert bea.state["finished"]
        records = [server.get(f"/api/games/{body['id']}/record") for server in server_pair]
        assert records[0] == records[1]
        assert replay(records[0]).state.finished
    finally:
        ana.close()
        bea.close()


def test_a_seat_taken_through_one_process_is_seen_by_the_other(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    first, second = server_pair
    body = _create(first, [{"kind": "human", "name": "Ana"}, {"kind": "human"}])
    watcher = Player(second.ws_url, body["id"])
    try:
        joined = first.post(f"/api/games/{body['id']}/join", {"name": "Bea"})
        assert joined.status_code == 200, joined.text
        seats = watcher.until(lambda m: m["type"] == "seats")
        assert seats["status"] == "running"
        assert [seat["name"] for seat in seats["seats"]] == ["Ana", "Bea"]
        again = second.post(f"/api/games/{body['id']}/join", {"name": "Cy"})
        assert again.status_code == 409
        assert again.json()["error"]["code"] == "no_open_seat"
    finally:
        watcher.close()


def test_racing_intents_through_two_processes_apply_once(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    """Two tabs of one seat on two processes send the same intent at the same moment."""
    first, second = server_pair
    body = _create(first, HUMANS, columns=2)
    token = body["seats"][0]["token"]
    tabs = [Player(first.ws_url, body["id"], token), Player(second.ws_url, body["id"], token)]
    bea = Player(second.ws_url, body["id"], body["seats"][1]["token"])
    try:
        for _round in range(12):
            seq = tabs[0].seq
            assert tabs[1].seq == seq
            barrier = threading.Barrier(2)

            def send(
                tab: Player, ref: str, barrier: threading.Barrier = barrier, seq: int = seq
            ) -> None:
                barrier.wait()
                tab.send({"type": "act", "action": "roll", "seq": seq, "ref": ref})

            refs = [f"round {_round} tab {n}" for n in range(2)]
            marks = [len(tab.seen) for tab in tabs]
            threads = [
                threading.Thread(target=send, args=(tab, ref))
                for tab, ref in zip(tabs, refs, strict=True)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            refused = []
            for tab, ref, mark in zip(tabs, refs, marks, strict=True):
                # A connection answers its messages in order: after the pong, the intent's
                # refusal (if any) has arrived.
                tab.send({"type": "ping"})
                tab.until(lambda m: m["type"] == "pong")
                while tab.seq <= seq:  # the event may come after the pong (through the bus)
                    tab.recv()
                refused += [m for m in tab.seen[mark:] if m.get("ref") == ref]
            # Exactly one tab's intent became event seq + 1; the other was refused.
            assert [m["code"] for m in refused] == ["stale"], refused
            assert tabs[0].state == tabs[1].state
            events = first.get(f"/api/games/{body['id']}/record")["turns"]
            assert len(events[-1]["rolls"]) == 1
            # Finish the turn from one tab so that the next round races a fresh first roll.
            legal = tabs[0].state["turn"]["legal"]
            best = max(legal, key=lambda option: option["gain"])
            assert tabs[0].act(best["action"], tabs[0].seq)["type"] == "event"
            bea.until(lambda m: m.get("seq") == tabs[0].seq)
            bea.play_turn()
            for tab in tabs:
                tab.until(lambda m: m.get("seq") == bea.seq)
    finally:
        for player in (*tabs, bea):
            player.close()


def test_bots_move_once_and_another_process_takes_over(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    first, second = server_pair
    body = _create(first, [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}])
    ana = Player(second.ws_url, body["id"], body["seats"][0]["token"])
    try:
        turns = 0
        while not ana.state["finished"]:
            if ana.my_turn():
                ana.play_turn()
                turns += 1
                if turns == 3:
                    # Whichever process drives the bot dies; the other takes it over.
                    first.stop(kill=True)
                continue
            ana.recv(timeout=30)
        record = second.get(f"/api/games/{body['id']}/record")
        assert replay(record).state.finished
        # Every turn of both seats is there once: no move was made twice by two processes.
        assert len(record["turns"]) == 2 * get_rules("school", {"columns": 1}).cells
    finally:
        ana.close()


def test_a_process_stopping_gracefully_hands_its_bots_over_at_once() -> None:
    """A graceful stop (a deploy) gives the game's lease back: the other process drives the bots
    at once, not when the lease would have run out (two minutes here)."""
    import redis

    from dicepoker.server.runtime.bus import LEASE

    database = fresh_postgres_database()
    servers = [LiveServer(database, redis=redis_url(), lease_ms=120_000).start() for _ in "ab"]
    try:
        body = _create(servers[0], [{"kind": "bot", "level": "greedy"}, HUMANS[0]])
        game = body["id"]
        watcher = Player(servers[0].ws_url, game, None)
        watcher.until(lambda m: watcher.state["turn"]["seat"] == 1)
        watcher.close()
        # The process that drove the bot's first turn holds the lease: stop it gracefully.
        holder = redis.Redis.from_url(redis_url(), decode_responses=True).get(LEASE + game)
        assert isinstance(holder, str)
        pid = int(holder.split("-")[0])
        stopping = next(s for s in servers if s.process is not None and s.process.pid == pid)
        staying = next(s for s in servers if s is not stopping)
        ana = Player(staying.ws_url, game, body["seats"][1]["token"])
        try:
            stopping.stop()
            for _ in range(3):  # three of Ana's turns, each after one of the bot's
                while not ana.my_turn():
                    ana.recv(timeout=30)  # far below the lease's 120 s
                ana.play_turn()
            while not ana.my_turn():
                ana.recv(timeout=30)
        finally:
            ana.close()
    finally:
        for server in servers:
            server.stop()


def test_a_game_forgotten_by_a_process_goes_on_there_when_its_driver_is_killed() -> None:
    """A process forgets a running game that another process drives and nobody watches there
    (docs/deploy.md, "How the processes agree"). When the driving process
    is killed, the game goes on in the one that forgot it, with nobody asking for the game: it
    notices that the killed process no longer says it is alive, and loads the games that move
    alone.

    The process that created the game drives it first; if it stalls for longer than a lease
    (a loaded machine), the other one takes the lease over and drives it, and then the creator
    is the one that forgets it. Either way one process drives and the other forgets."""
    database = fresh_postgres_database()
    metered = ("--metrics", "--metrics-token", TOKEN)
    servers = tuple(
        LiveServer(database, bot_delay=0.3, redis=redis_url(), lease_ms=1000, options=metered)
        for _ in "ab"
    )
    creator, other = servers
    try:
        creator.start()
        other.start()
        bots = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
        game = _create(creator, bots, columns=3)["id"]

        def running(server: LiveServer) -> float:
            return value(scrape(server), "dicepoker_games", status="running")

        watcher = Player(other.ws_url, game, None)  # the other process reads the game
        watcher.until(lambda m: m.get("type") == "event")  # (its bots move in the creator)
        assert running(other) == 1  # asked while watched: once closed, a sweep may forget it
        watcher.close()
        wait_until(
            lambda: sorted(running(server) for server in servers) == [0, 1],
            "the game forgotten where nobody watches it and it is not driven",
        )
        driver, forgetter = servers if running(creator) == 1 else servers[::-1]
        # Once forgotten there, only a request, a lease given back or a stop brings it back.
        at_kill = driver.get(f"/api/games/{game}")["seq"]
        driver.stop(kill=True)
        wait_until(lambda: running(forgetter) == 1, "the game loaded again once its driver is gone")
        moved = forgetter.wait_for(f"/api/games/{game}", lambda body: body["seq"] > at_kill + 2)
        assert moved["status"] in ("running", "finished")
    finally:
        for server in servers:
            server.stop()


def test_the_same_intent_sent_twice_is_applied_once(
    server_pair: tuple[LiveServer, LiveServer],
) -> None:
    """A client that repeats an intent (a retry after a timeout, a double click) with its seq."""
    first, second = server_pair
    body = _create(first, HUMANS)
    ana = Player(first.ws_url, body["id"], body["seats"][0]["token"])
    watcher = Player(second.ws_url, body["id"])
    try:
        seq = ana.seq
        intent = {"type": "act", "action": "roll", "seq": seq, "ref": "again"}
        ana.send(intent)
        ana.send(intent)
        refusal = ana.until(lambda m: m["type"] == "error")
        assert (refusal["code"], refusal["ref"]) == ("stale", "again")
        watcher.until(lambda m: m.get("seq") == seq + 1)
        record = second.get(f"/api/games/{body['id']}/record")
        assert len(record["turns"]) == 1
        assert len(record["turns"][0]["rolls"]) == 1  # one roll, not two
        assert first.get(f"/api/games/{body['id']}")["seq"] == seq + 1
    finally:
        ana.close()
        watcher.close()
