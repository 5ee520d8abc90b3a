"""Load on a real server: N concurrent games played over WebSockets from another process.

Starts `dicepoker serve` (SQLite file in a temporary folder, bots instant) in a subprocess, then
plays N two-player `school` games at once, every seat a simulated person on its own WebSocket who
acts as soon as it may (roll, then the move with the best immediate gain). Prints moves per second
and the p50/p99 latency from sending an intent to receiving its broadcast event.

    python benchmarks/server.py [--games 100] [--seconds 30] [--columns 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets


def start_server(database: str, port: int) -> subprocess.Popen[bytes]:
    command = [
        str(Path(sys.executable).with_name("dicepoker")),
        "serve",
        "--port",
        str(port),
        "--db",
        database,
        "--bot-delay",
        "0",
        # The load comes from one address and plays far faster than people: no rate limits.
        "--ws-rate",
        "0",
        "--http-rate",
        "0",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/presets", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("server did not start")


async def seat(
    ws_url: str, game_id: str, token: str, stop_at: float, latencies: list[float]
) -> int:
    """Play one seat until the game ends or time is up; returns the moves it made."""
    moves = 0
    async with websockets.connect(f"{ws_url}/ws/games/{game_id}?token={token}") as ws:
        my_seat: int | None = None
        sent: dict[str, float] = {}
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(
                    ws.recv(), timeout=max(0.01, stop_at - time.monotonic())
                )
            except TimeoutError:
                break
            message: dict[str, Any] = json.loads(raw)
            kind = message["type"]
            if kind == "welcome":
                my_seat = message["seat"]
            if kind == "event" and message["seat"] == my_seat and message["action"] in sent:
                latencies.append(time.perf_counter() - sent.pop(message["action"]))
                moves += 1
            if kind == "error":
                raise RuntimeError(f"refused: {message}")
            if "state" not in message or "seq" not in message:
                continue
            state = message["state"]
            if state["finished"]:
                break
            turn = state["turn"]
            if turn["seat"] != my_seat:
                continue
            if turn["rolls"] == 0:
                action = "roll"
            else:
                action = max(turn["legal"], key=lambda option: option["gain"])["action"]
            sent[action] = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action": action, "seq": message["seq"]}))
    return moves


async def run(games: int, seconds: float, columns: int, port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        created = []
        for _ in range(games):
            response = await client.post(
                "/api/games",
                json={
                    "variant": "school",
                    "options": {"columns": columns},
                    "seats": [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}],
                },
            )
            response.raise_for_status()
            created.append(response.json())
    latencies: list[float] = []
    start = time.monotonic()
    stop_at = start + seconds
    results = await asyncio.gather(
        *(
            seat(f"ws://127.0.0.1:{port}", game["id"], s["token"], stop_at, latencies)
            for game in created
            for s in game["seats"]
        ),
        return_exceptions=True,
    )
    elapsed = time.monotonic() - start
    errors = [r for r in results if isinstance(r, BaseException)]
    moves = sum(r for r in results if isinstance(r, int))
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    print(f"games {games}  connections {2 * games}  elapsed {elapsed:.1f} s")
    print(f"actions {moves}  ({moves / elapsed:.0f} per second)  errors {len(errors)}")
    if latencies:
        print(
            f"intent -> broadcast latency: p50 {pct(0.5):.1f} ms  p99 {pct(0.99):.1f} ms  "
            f"mean {statistics.fmean(latencies) * 1000:.1f} ms"
        )
    for error in errors[:3]:
        print("error:", repr(error))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--columns", type=int, default=1)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(str(Path(folder) / "load.db"), args.port)
        try:
            asyncio.run(run(args.games, args.seconds, args.columns, args.port))
        finally:
            server.terminate()
            server.wait(timeout=15)


if __name__ == "__main__":
    main()
