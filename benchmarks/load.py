"""Load on real servers: N concurrent games of simulated people and bots, for a fixed time.

    python benchmarks/load.py --games 1000 --seconds 60                  # 1 process, SQLite
    python benchmarks/load.py --games 1000 --seconds 60 --processes 2    # PostgreSQL + Redis

Starts the server(s) in subprocesses (SQLite in a temporary folder; or `--processes 2` processes
on a fresh database of the PostgreSQL at `--postgres` and the Redis at `--redis`, by default the
ones `scripts/services` starts), creates N `school` games (3 columns), half of them two people and
half a person against a bot (greedy or expert, server side, `--bot-delay`), connects every person
on a WebSocket (with two processes, the two seats of a game on different processes, so every
event crosses Redis), then for `--seconds` lets each person act on their turn after a random
think time (`--think`, uniform, seconds): roll, sometimes hold some dice and roll again, then a
random legal cell move with the best immediate gain more often than not. A finished game is
replaced by a new one, so N games run all the time. The measured period starts once every game is
under way (its second seat, person or bot, has moved: each server process's workers have started
and a bot has thought), so that it measures the load, not the start of the processes.

Prints: games, moves per second (people and bots), the intent-to-broadcast latency p50/p99 (from
sending an intent to each of the game's sockets receiving its event, the actor's and, with two
processes, the other process's), how soon each event's chances of winning came and how old they
were when the next event came (load_chances.py), errors (refusals, lost connections, failed
requests), each server process's peak memory (VmHWM, with its workers) and CPU time (its own, and
its `dp-work` workers'), the share of the time each server's event loop and the driver's
waited for a CPU (the kernel's run-queue wait), and how fast the machine ran Python meanwhile (a
CPU probe beside the load: load_speed.py). `--metrics` adds each server's own histograms over
the measured period (the garbage collector's pauses by generation among them). `--affinity`
connects every socket of a game to one process (the one a hash of the game's path picks, as
deploy/nginx.conf's upstream for game sockets does) instead of crossing them, so that its events
reach their players without crossing Redis. `--timeline` adds the measured period second by second
(`latency_by_second`: each second's deliveries and latency beside what the driver, the machine,
each server and the other busy processes did in it: load_timeline.py), to tell a stall from a tail
and what a stall is made of. `--json` prints the same as one JSON object.

The driver runs on uvloop, its people on picows (a WebSocket client in Cython that hands each frame
to a callback: no task woken per message), and its sockets send no pings (a browser sends none), so
that its own work, which shares the machine with the servers, stays small.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

import load_servers
from dicepoker.protocol import SUBPROTOCOLS, apply_changes, socket_protocols
from dicepoker.server.storage.store import create_database
from load_chances import ChancesTimes, chances_report
from load_metrics import harvests, histograms, scrape
from load_report import print_report
from load_servers import Server, free_port, log_problems, loop_waits, start_server, wait_shares
from load_speed import SpeedProbe, probe_by_second, probe_summary
from load_timeline import Timeline, by_second, watch

COLUMNS = 3
METRICS = False  # --metrics
SUBPROTOCOL_USED = [SUBPROTOCOLS[0]]  # --subprotocol
AFFINITY = [False]  # --affinity
TIMELINE = [False]  # --timeline
STAGGER = [0.0]  # --stagger
PROBE: list[SpeedProbe] = []  # the CPU probe while the load runs


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    received: list[float] = field(default_factory=list)  # when each latency's event came
    sent: dict[tuple[str, int], float] = field(default_factory=dict)  # (game, seq) -> sent at
    moves: int = 0  # events seen by the first socket of each game (people and bots)
    per_game: dict[str, int] = field(default_factory=dict)  # the same, game by game
    errors: list[str] = field(default_factory=list)
    games_finished: int = 0
    games_created: int = 0
    games_running: set[str] = field(default_factory=set)  # games that ran the whole period
    under_way: set[str] = field(default_factory=set)  # games whose second seat has moved
    driver_lag: list[float] = field(default_factory=list)  # the driver's own event-loop delays
    driver_lag_at: list[float] = field(default_factory=list)  # when each of them ended
    # When the first socket of each game saw each event and each position's chances, all the
    # run long: an event's chances may come after the period's end, or a position's before it.
    chances: ChancesTimes = field(default_factory=ChancesTimes)
    measuring: bool = False
    # When the measured period began: only intents sent since count (one sent before it may
    # have waited out the driver's own collection, which is not the servers' latency).
    since: float = float("inf")


class Person(WSListener):
    """One seat played by a simulated person over a WebSocket, on picows (each frame handed to
    `on_ws_frame` from the transport's read: no task woken per message, as the driver's CPU adds
    to every latency it measures). The servers compress nothing for it, as for a browser."""

    def __init__(
        self, game_id: str, token: str, ws_url: str, counts: bool, stats: Stats, rng: random.Random
    ) -> None:
        self.game_id = game_id
        self.url = f"{ws_url}/ws/games/{game_id}"
        # As the web client, in the subprotocol asked for (dicepoker.v2 by default).
        self.protocols = ", ".join(socket_protocols(token, SUBPROTOCOL_USED[0]))
        self.counts = counts  # this socket counts the game's moves
        self.stats = stats
        self.rng = rng
        self.seat: int | None = None
        self.transport: WSTransport | None = None
        self.welcomed = asyncio.Event()
        self.seq = 0
        self.state: dict[str, Any] = {}  # the view now, from the messages
        self.think = (0.0, 0.0)
        self.acting: asyncio.Task[None] | None = None
        # True once the game ended; an exception if the socket ended before it or failed.
        self.ended: asyncio.Future[bool] | None = None

    async def run(self, think: tuple[float, float], stop: asyncio.Event) -> bool:
        """Play until the game ends (True) or the run stops (False). A connection that fails
        before its welcome still releases whoever waits for the welcome (the start of the
        measured period waits for every game's): its error is counted instead of hanging."""
        self.think = think
        self.ended = asyncio.get_running_loop().create_future()
        stopping = asyncio.ensure_future(stop.wait())
        try:
            # No pings from the client: a browser sends none (it answers the server's, as
            # picows does by itself), and thousands of sockets' pings were a share of the
            # driver's CPU.
            self.transport, _ = await ws_connect(
                lambda: self,
                self.url,
                websocket_handshake_timeout=60,
                max_frame_size=2**22,
                extra_headers={"Sec-WebSocket-Protocol": self.protocols},
            )
            # Waited for once per person, not per message: the driver's own work per message
            # adds to every latency it measures (and takes CPU from the servers beside it).
            waiting: set[asyncio.Future[Any]] = {self.ended, stopping}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            return self.ended.result() if self.ended.done() else False
        finally:
            stopping.cancel()
            if self.acting is not None:
                self.acting.cancel()
            self._end(False)  # (before the socket's end, which would be told as an error)
            if self.transport is not None and not self.transport.is_disconnected:
                if not self.transport.is_close_frame_sent:  # as a closing browser tab sends
                    self.transport.send_close(WSCloseCode.OK)
                self.transport.disconnect()
            self.welcomed.set()

    def _end(self, outcome: bool | BaseException) -> None:
        if self.ended is None or self.ended.done():
            return
        if isinstance(outcome, BaseException):
            self.ended.set_exception(outcome)
        else:
            self.ended.set_result(outcome)

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self._end(ConnectionError("the server closed the socket before the game ended"))

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()
            return
        if frame.msg_type != WSMsgType.TEXT:
            return
        try:
            self._message(transport, frame.get_payload_as_bytes())
        except Exception as exc:  # a malformed message fails this person's game, counted
            self._end(exc)
            transport.disconnect()

    def _message(self, transport: WSTransport, raw: bytes) -> None:
        # orjson, like the server: these simulated people would each run on their own machine,
        # and the driver's parsing time adds to every latency it measures.
        message = orjson.loads(raw)
        now = time.perf_counter()
        kind = message["type"]
        if kind == "welcome":
            self.seat = message["seat"]
            self.welcomed.set()
            if self.counts and "win_probability" in message:
                self.stats.chances.judged(self.game_id, message["seq"], now)
        elif kind == "event":
            if message["seat"] == 1:
                self.stats.under_way.add(self.game_id)
            sent = self.stats.sent.get((self.game_id, message["seq"]))
            if sent is not None and sent >= self.stats.since and self.stats.measuring:
                self.stats.latencies.append(now - sent)
                self.stats.received.append(now)
            if self.counts:
                judged = "win_probability" in message  # (a server older than `chances`)
                self.stats.chances.event(self.game_id, message["seq"], now, judged)
            if self.counts and self.stats.measuring:
                self.stats.moves += 1
                per_game = self.stats.per_game
                per_game[self.game_id] = per_game.get(self.game_id, 0) + 1
        elif kind == "chances" and self.counts:
            self.stats.chances.judged(self.game_id, message["seq"], now)
        elif kind == "error":
            self.stats.errors.append(f"{message['code']}: {message['message']}")
        if "changes" in message:  # dicepoker.v2: applied to the view before
            if message["seq"] != self.seq + 1:
                sync = {"type": "sync", "last_seq": self.seq}
                transport.send(WSMsgType.TEXT, orjson.dumps(sync))
                return
            state = apply_changes(self.state, message["changes"])
        elif "state" in message and "seq" in message:
            state = message["state"]
        else:
            return
        self.state, self.seq = state, message["seq"]
        if state["finished"]:
            if self.counts:
                self.stats.games_finished += 1
            self._end(True)
            return
        turn = state["turn"]
        if turn["seat"] == self.seat and (self.acting is None or self.acting.done()):
            self.acting = asyncio.create_task(self._act(state, message["seq"], self.think))

    async def _act(self, state: dict[str, Any], seq: int, think: tuple[float, float]) -> None:
        await asyncio.sleep(self.rng.uniform(*think))  # the person thinks
        turn = state["turn"]
        if turn["rolls"] == 0:
            action = "roll"
        elif turn["can_roll"] and self.rng.random() < 0.4:
            held = sorted(self.rng.sample(range(5), self.rng.randrange(1, 5)))
            action = "hold " + " ".join(map(str, held))
        elif self.rng.random() < 0.7:
            action = max(turn["legal"], key=lambda option: option["gain"])["action"]
        else:
            action = self.rng.choice(turn["legal"])["action"]
        self.stats.sent[(self.game_id, seq + 1)] = time.perf_counter()
        assert self.transport is not None
        act = {"type": "act", "action": action, "seq": seq}
        self.transport.send(WSMsgType.TEXT, orjson.dumps(act))


BOTS = ["greedy", "expert"]
CREATING = 64  # games created at once (HTTP connections)
UNDER_WAY_SECONDS = 120.0  # at most this long for every game to be under way before measuring
SETTLE_SECONDS = 5.0  # between the driver's last collection and the measured period


async def create_game(
    client: httpx.AsyncClient, servers: list[Server], n: int, rng: random.Random
) -> tuple[str, list[tuple[str, str]]]:
    """A new game; returns its id and, per person, (token, WebSocket URL)."""
    people = [{"kind": "human", "name": f"P{n}a"}]
    if n % 2:
        people.append({"kind": "human", "name": f"P{n}b"})
    else:
        people.append({"kind": "bot", "level": rng.choice(BOTS)})
    # Spread over the processes: people-only and bot games alike, and (with two processes) every
    # game has a person on the process that did not create it (and drives its bot).
    home = (n // 2) % len(servers)
    response = await client.post(
        servers[home].url + "/api/games",
        json={"variant": "school", "options": {"columns": COLUMNS}, "seats": people},
    )
    response.raise_for_status()
    body = response.json()
    seats = [seat for seat in body["seats"] if seat.get("token")]
    if AFFINITY[0]:  # every socket of a game on one process, as the proxy's hash of its path
        at = servers[zlib.crc32(body["id"].encode()) % len(servers)].ws_url
        return body["id"], [(seat["token"], at) for seat in seats]
    return body["id"], [
        (seat["token"], servers[(home + 1 + i) % len(servers)].ws_url)
        for i, seat in enumerate(seats)
    ]


async def keep_game(
    slot: int,
    client: httpx.AsyncClient,
    servers: list[Server],
    stats: Stats,
    think: tuple[float, float],
    stop: asyncio.Event,
    ready: asyncio.Queue[None],
    rng: random.Random,
    creating: asyncio.Semaphore,
) -> None:
    """Keep one game running in this slot until the run stops (a finished one is replaced)."""
    first = True
    n = slot
    if STAGGER[0] > 0:  # the slots' first games start spread over this long (`--stagger`)
        await asyncio.sleep(rng.uniform(0, STAGGER[0]))
    while not stop.is_set():
        try:
            async with creating:
                game_id, seats = await create_game(client, servers, n, rng)
            stats.games_created += 1
            if stats.since == float("inf"):  # made before the measured period (not after it)
                stats.games_running.add(game_id)
            people = [
                Person(game_id, token, url, i == 0, stats, random.Random(rng.random()))
                for i, (token, url) in enumerate(seats)
            ]
            tasks = [asyncio.create_task(p.run(think, stop)) for p in people]
            await asyncio.gather(*(p.welcomed.wait() for p in people))
            if first:
                ready.put_nowait(None)
                first = False
            if any(await asyncio.gather(*tasks)):
                stats.games_running.discard(game_id)  # it ended: no longer a whole-period game
        except Exception as exc:  # counted, and the slot goes on with a new game
            stats.errors.append(f"{type(exc).__name__}: {exc}")
            if first:
                ready.put_nowait(None)
                first = False
        n += 100_000


async def _watch_lag(stats: Stats) -> None:
    """How late the driver's loop wakes up while measuring: latency added to every figure."""
    while stats.measuring:
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        if stats.measuring:
            now = time.perf_counter()
            stats.driver_lag.append(now - before - 0.01)
            stats.driver_lag_at.append(now)


async def drive(
    servers: list[Server], games: int, seconds: float, think: tuple[float, float], seed: int
) -> dict[str, Any]:
    stats = Stats()
    stop = asyncio.Event()
    ready: asyncio.Queue[None] = asyncio.Queue()
    rng = random.Random(seed)
    # A new connection for every request: a kept-alive one can be closed by the server (its
    # keep-alive timeout) just as a request goes out on it, which a browser would retry but the
    # driver would count as an error of the server.
    limits = httpx.Limits(max_connections=CREATING, max_keepalive_connections=0)
    # As many requests at once as connections: httpx's pool looks over every waiting request
    # each time a connection frees, so thousands waiting made the driver's start quadratic.
    creating = asyncio.Semaphore(CREATING)
    # No pool timeout: creating a thousand games may queue for a connection a while.
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, pool=None), limits=limits) as client:
        shared = (client, servers, stats, think, stop, ready)
        tasks = [
            asyncio.create_task(keep_game(n, *shared, random.Random(rng.random()), creating))
            for n in range(games)
        ]
        for _ in range(games):  # every game created and every person connected
            await ready.get()
        deadline = time.perf_counter() + UNDER_WAY_SECONDS
        while not stats.games_running <= stats.under_way and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)  # every game under way (a game that is not shows below)
        # The driver's own collector pauses would count as server latency: none while measuring
        # (what the driver allocates in a minute is small; it collects again afterwards). This
        # last collection walks every game's objects, seconds with thousands of games: the
        # driver then reads what came meanwhile before the period starts (SETTLE_SECONDS).
        gc.collect()
        gc.freeze()
        gc.disable()
        await asyncio.sleep(SETTLE_SECONDS)
        scrapes = [await scrape(client, server.url) for server in servers] if METRICS else []
        cpu_before = [server.cpu_seconds() for server in servers]
        waits_before = loop_waits(servers)
        workers_before = [server.workers_cpu_seconds() for server in servers]
        driver_before = time.process_time()
        stats.measuring = True
        # Said on standard error, so that a profiler can be started on the servers now.
        pids = " ".join(str(server.process.pid) for server in servers)
        print(f"measuring for {seconds} s (server pids {pids})", file=sys.stderr, flush=True)
        start = stats.since = time.perf_counter()
        watching = [asyncio.create_task(_watch_lag(stats))]
        timeline = Timeline(start)
        if TIMELINE[0]:  # the machine and each server, second by second (load_timeline.py)

            async def scrape_server(n: int) -> dict[str, dict[float, float]]:
                return await scrape(client, servers[n].url)

            watching.append(
                asyncio.create_task(
                    watch(
                        timeline,
                        servers,
                        scrape_server if METRICS else None,
                        lambda: stats.measuring,
                    )
                )
            )
        await asyncio.sleep(seconds)  # the measured period
        stats.measuring = False
        gc.enable()
        elapsed = time.perf_counter() - start
        cpu = [s.cpu_seconds() - before for s, before in zip(servers, cpu_before, strict=True)]
        by_name = [s.workers_cpu_by_name(w) for s, w in zip(servers, workers_before, strict=True)]
        workers_cpu = [sum(named.values()) for named in by_name]
        driver_cpu = time.process_time() - driver_before
        waited = wait_shares(servers, waits_before, elapsed)
        if METRICS:
            after = [await scrape(client, server.url) for server in servers]
            server_side = [histograms(a, b) for a, b in zip(scrapes, after, strict=True)]
            harvested = [await harvests(client, server.url) for server in servers]
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*watching)  # (a failed tick fails the run: it is not the servers')
    timeline.lags = list(zip(stats.driver_lag_at, stats.driver_lag, strict=True))
    samples = PROBE[0].samples() if PROBE else []
    timeline.probe = probe_by_second(samples, start)
    per_second = by_second(timeline, stats.received, stats.latencies) if TIMELINE[0] else None
    latencies = sorted(stats.latencies)
    memory = [server.peak_memory_mb() for server in servers]

    def pct(p: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    return {
        "games": games,
        "processes": len(servers),
        "seconds": round(elapsed, 1),
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / elapsed, 1),
        "deliveries_measured": len(latencies),
        "live_chances": chances_report(stats.chances, start, start + elapsed),
        # A game whose bot or server side stopped would show here as a game with no moves.
        "fewest_moves_in_a_game": min(
            (stats.per_game.get(game_id, 0) for game_id in stats.games_running), default=0
        ),
        "games_without_a_move": sorted(
            game_id for game_id in stats.games_running if not stats.per_game.get(game_id)
        )[:10],
        "latency_ms": {
            "p50": round(pct(0.50), 1),
            "p99": round(pct(0.99), 1),
            "mean": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
            "max": round(latencies[-1] * 1000, 1) if latencies else None,
        },
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "games_finished": stats.games_finished,
        "games_created": stats.games_created,
        "server_peak_memory_mb": [round(sum(peaks), 1) for peaks in memory],
        # Each process's own: the server's first, then its workers'.
        "process_peak_memory_mb": [[round(mb, 1) for mb in peaks] for peaks in memory],
        "server_cpu_share": [round(c / elapsed, 2) for c in cpu],
        # Their workers' (child processes), per server; and by the workers' name.
        "workers_cpu_share": [round(c / elapsed, 2) for c in workers_cpu],
        "workers_cpu_by_name": [{k: round(v / elapsed, 2) for k, v in n.items()} for n in by_name],
        "driver_cpu_share": round(driver_cpu / elapsed, 2),
        "cpu_wait_share": {"servers": waited[:-1], "driver": waited[-1]},
        "cpu_probe": probe_summary(samples, start, start + elapsed),  # how fast the machine ran
        "driver_loop_lag_ms": {
            "p99": round(sorted(stats.driver_lag)[int(0.99 * len(stats.driver_lag))] * 1000, 1),
            "max": round(max(stats.driver_lag) * 1000, 1),
        },
    } | (
        ({"server_side_ms": server_side, "puzzle_harvests": harvested} if METRICS else {})
        | ({"latency_by_second": per_second} if per_second is not None else {})
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    think = (args.think[0], args.think[1])
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(args.logs) if args.logs else Path(folder)
        logs.mkdir(parents=True, exist_ok=True)
        for earlier in logs.glob("server-*.log"):  # a kept folder used again: this run's only
            earlier.unlink()
        if args.processes == 1 and not args.postgres_always:
            databases, name = [str(Path(folder) / "load.db")], ""
            redis = None
        else:
            if not args.postgres or not args.redis:
                raise SystemExit("--processes 2 needs --postgres and --redis (scripts/services)")
            name = f"load_{uuid.uuid4().hex[:10]}"
            databases = [asyncio.run(create_database(args.postgres, name))] * args.processes
            redis = args.redis if args.processes > 1 else None
        servers: list[Server] = []
        try:
            for n, db in enumerate(databases):  # in the try: one stopped while they start stops
                log = logs / f"server-{n}.log"
                servers.append(
                    start_server(
                        free_port(),
                        db,
                        redis,
                        args.bot_delay,
                        args.chances,
                        args.metrics,
                        launcher=shlex.split(args.serve_with) if args.serve_with else None,
                        log=log,
                        log_json=True,
                    )
                )
            PROBE[:] = [SpeedProbe(Path(folder) / "probe.txt")]
            PROBE[0].start()
            # On uvloop, as the servers run: the driver's loop is the simulated people's, and
            # its own overhead adds to every latency it measures.
            report = uvloop.run(drive(servers, args.games, args.seconds, think, args.seed))
        finally:
            if PROBE:
                PROBE.pop().stop()
            load_servers.stop_servers(servers, (args.postgres, name) if name else None)
        report["server_log_problems"] = log_problems(sorted(logs.glob("server-*.log")))
    report["store"] = "sqlite" if redis is None and not args.postgres_always else "postgresql"
    report["think_seconds"] = list(think)
    report["bot_delay"] = args.bot_delay
    report["chances"] = args.chances
    report["subprotocol"] = args.subprotocol
    report["affinity"] = args.affinity
    report["stagger_seconds"] = args.stagger
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument(
        "--think", type=float, nargs=2, default=[2.0, 8.0], help="a person's think time range"
    )
    parser.add_argument("--bot-delay", type=float, default=1.5)
    parser.add_argument("--bots", default=",".join(BOTS), help="bot levels, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default=os.environ.get("DICEPOKER_TEST_POSTGRES"))
    parser.add_argument("--redis", default=os.environ.get("DICEPOKER_TEST_REDIS"))
    parser.add_argument(
        "--postgres-always", action="store_true", help="one process on PostgreSQL too"
    )
    parser.add_argument(
        "--no-chances",
        dest="chances",
        action="store_false",
        help="servers without win probabilities (--no-win-probability)",
    )
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="servers with /metrics; print what their histograms recorded while measuring",
    )
    parser.add_argument(
        "--subprotocol",
        choices=SUBPROTOCOLS,
        default=SUBPROTOCOLS[0],
        help="what the people's sockets speak (dicepoker.v1: every event with the whole view)",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        help="start the slots' first games spread over this many seconds (about a game's "
        "length, some 13 minutes at the default think times: the measured period then sees "
        "games at every stage, some ending and new ones starting, as a site in its steady "
        "state); measuring starts once every slot has its first game",
    )
    parser.add_argument(
        "--affinity",
        action="store_true",
        help="every socket of a game on one process (deploy/nginx.conf's hash of the path)",
    )
    parser.add_argument(
        "--logs",
        help="keep the servers' JSON logs (server-N.log, replaced) in this folder",
    )
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="add the latency second by second (deliveries, p50, p99, max) to the report",
    )
    parser.add_argument(
        "--serve-with",
        help="the command that runs `dicepoker` for the servers (another checkout's code, to "
        "compare it with this one's in alternating runs: "
        "'env PYTHONPATH=../before/src .venv/bin/dicepoker')",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    BOTS[:] = args.bots.split(",")
    SUBPROTOCOL_USED[0] = args.subprotocol
    AFFINITY[0] = args.affinity
    TIMELINE[0] = args.timeline
    STAGGER[0] = args.stagger
    global METRICS
    METRICS = args.metrics
    report = run(args)
    if args.json:
        print(json.dumps(report))
        return
    print_report(report, args.think, args.bot_delay)


if __name__ == "__main__":
    main()
