"""Crash safety: the server is killed with SIGKILL at random moments of running games.

Players (asyncio WebSocket clients that reconnect by themselves) play several games at random,
each sending its intents with the `seq` it saw; a killer waits for a random number of intents to
be sent (so that some are in flight, some just committed, some half-broadcast), kills the server
with SIGKILL and starts it again on the same database, KILLS times per database. Afterwards:

- every acknowledged move (an event the actor received for its own intent) is in the database
  at its `seq`, exactly once, with the same seat and action;
- every game's event log is numbered 1..n without a gap and replays through the engine;
- every game is played to its end after the last restart.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from dicepoker.record import replay
from dicepoker.server.storage.store import Store, StoredEvent
from live_server import LiveServer

KILLS = int(os.environ.get("DICEPOKER_CRASH_KILLS", "50"))  # per database: 100 in all
GAMES = 4


@dataclass
class Seat:
    """One player of one game: plays random legal intents, reconnecting whenever it must."""

    server: LiveServer
    game_id: str
    token: str
    rng: random.Random
    sent: asyncio.Queue[None]
    acked: dict[int, tuple[int, str]] = field(default_factory=dict)  # seq -> (seat, action)
    seat: int | None = None
    seq: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    pending: tuple[int, str] | None = None  # (seq it was sent at, action)
    reconnects: int = 0

    @property
    def finished(self) -> bool:
        return bool(self.state.get("finished"))

    async def play(self) -> None:
        while not self.finished:
            try:
                url = f"{self.server.ws_url}/ws/games/{self.game_id}?token={self.token}"
                async with connect(url, open_timeout=10) as ws:
                    await self._session(ws)
            except (OSError, EOFError, ConnectionClosed, InvalidHandshake, TimeoutError):
                self.reconnects += 1
                await asyncio.sleep(0.05)  # retry pause while the server restarts

    async def _session(self, ws: ClientConnection) -> None:
        self.pending = None  # an intent lost with the old connection: the welcome tells
        async for raw in ws:
            message = json.loads(raw)
            if "state" in message and "seq" in message:
                self.seq, self.state = message["seq"], message["state"]
            kind = message["type"]
            if kind == "welcome":
                self.seat = message["seat"]
            if kind == "event" and self.pending is not None and message["seat"] == self.seat:
                sent_at, action = self.pending
                if message["seq"] == sent_at + 1 and message["action"] == action:
                    self.acked[message["seq"]] = (message["seat"], action)
                    self.pending = None
            if kind == "error":
                assert message["code"] in ("stale", "not_your_turn"), message
                self.pending = None
            if self.finished:
                return
            if self.pending is None and self._my_turn():
                action = self._choose()
                self.pending = (self.seq, action)
                await ws.send(json.dumps({"type": "act", "action": action, "seq": self.seq}))
                self.sent.put_nowait(None)

    def _my_turn(self) -> bool:
        turn = self.state.get("turn")
        return bool(turn and turn["seat"] == self.seat)

    def _choose(self) -> str:
        turn = self.state["turn"]
        if turn["rolls"] == 0:
            return "roll"
        if turn["can_roll"] and self.rng.random() < 0.5:
            held = sorted(self.rng.sample(range(5), self.rng.randrange(0, 5)))
            return "roll" if not held else "keep " + " ".join(map(str, held))
        return str(self.rng.choice(turn["legal"])["action"])


async def _kill_at_random(
    server: LiveServer, seats: list[Seat], rng: random.Random, kills: list[int]
) -> None:
    """Kill and restart the server KILLS times, each after a random number of sent intents."""
    sent = seats[0].sent
    while kills[0] < KILLS:
        for _ in range(rng.randrange(1, 6)):
            await sent.get()
        await asyncio.to_thread(server.restart, kill=True)
        kills[0] += 1


async def _play(server: LiveServer, rng: random.Random) -> tuple[list[Seat], int]:
    sent: asyncio.Queue[None] = asyncio.Queue()
    seats: list[Seat] = []
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        for n in range(GAMES):
            players = [{"kind": "human", "name": f"P{n}a"}, {"kind": "human", "name": f"P{n}b"}]
            if n == GAMES - 1:  # one game against a bot, which the restarted server resumes
                players[1] = {"kind": "bot", "level": "greedy"}
            response = await client.post(
                "/api/games",
                json={"variant": "school", "options": {"columns": 2}, "seats": players},
            )
            assert response.status_code == 201, response.text
            body = response.json()
            for seat in body["seats"]:
                if seat.get("token"):
                    seats.append(
                        Seat(server, body["id"], seat["token"], random.Random(rng.random()), sent)
                    )
    kills = [0]
    killer = asyncio.create_task(_kill_at_random(server, seats, rng, kills))
    await asyncio.wait_for(asyncio.gather(*(seat.play() for seat in seats)), timeout=900)
    killer.cancel()
    return seats, kills[0]


def test_sigkill_loses_no_acknowledged_move(database: str) -> None:
    server = LiveServer(database, bot_delay=0.0).start()
    try:
        seats, kills = asyncio.run(_play(server, random.Random(20261129)))
        assert kills == KILLS, "the games ended before every kill was made"
        logs = asyncio.run(_event_logs(server.database, {seat.game_id for seat in seats}))
        for seat in seats:
            events = logs[seat.game_id]
            # Numbered 1..n, no gap, no duplicate.
            assert [event.seq for event in events] == list(range(1, len(events) + 1))
            for seq, (seat_number, action) in seat.acked.items():
                assert (events[seq - 1].seat, events[seq - 1].action) == (seat_number, action)
            record = server.get(f"/api/games/{seat.game_id}/record")
            replayed = replay(record).state  # not corrupted: the engine replays it
            assert replayed.finished, "every game can be finished after the restarts"
        assert sum(len(seat.acked) for seat in seats) > KILLS
        assert sum(seat.reconnects for seat in seats) >= KILLS  # clients came back by themselves
    finally:
        server.stop()


async def _event_logs(database: str, game_ids: set[str]) -> dict[str, list[StoredEvent]]:
    store = Store(database)
    try:
        return {game_id: await store.events(game_id) for game_id in game_ids}
    finally:
        await store.close()
