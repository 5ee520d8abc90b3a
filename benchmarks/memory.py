"""A real server's memory: what each game costs it, and what it and its workers cost at start.

    python benchmarks/memory.py                                  # 20, 300, then 1,200 games
    python benchmarks/memory.py --games 300 1200 --moves 40      # the same, chosen
    python benchmarks/memory.py --trace                          # + tracemalloc in the server
    python benchmarks/memory.py --json

Starts one `dicepoker serve` (SQLite in a temporary folder, as `benchmarks/load.py` does with one
process, and with its flags) and brings it to each N of `--games` in turn, adding games: each
created the way load.py creates them (School, 3 columns, half of them two people and half a person
against a greedy or expert bot), every person connected on a WebSocket and playing as load.py's
people do (think `--think`) until the game has `--moves` events; then the people stop (the sockets
stay open), so that every game is held, mid-way, with its sockets. Once every game has stopped and
the server and its workers have gone quiet, it prints the resident memory (VmRSS; VmHWM, the peak,
in brackets) of the server and of each of its workers (its `dp-work` workers, each running every
kind of job, and multiprocessing's resource tracker), their sum, and the sum's increment per game
from the previous N. The first line, 0 games, is the server at start (no worker yet: they start as
the first jobs need them, a bot's move, a position's chances); the workers' figures at the first N
are their fixed cost (their tables, the School network, their imports) plus what those few games
hold.

`--trace`: the server runs under `tracemalloc` (`--frames` frames a block), started by a launcher
in this file (nothing in the server's code); at each N, after a garbage collection, it takes a
snapshot, and this prints the memory Python holds (the traced total) and the allocation sites
that grew most between the last two N, per game (grouped by line, then the top tracebacks).
Tracing makes the server slower and bigger: its RSS figures are not the untraced ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx

from load import CREATING, Person, Stats, create_game
from load_servers import Server, _cpu_seconds, _family, free_port, start_server

#: The traced server: tracemalloc from the start, and a thread that writes a snapshot (after a
#: garbage collection) each time the file `ask` appears in the folder given as its first argument.
TRACED = """
import gc, os, sys, threading, time, tracemalloc
tracemalloc.start(int(os.environ["DICEPOKER_MEMORY_FRAMES"]))
folder = sys.argv[1]

def snapshots():
    n = 0
    while True:
        ask = os.path.join(folder, "ask")
        if os.path.exists(ask):
            os.remove(ask)
            gc.collect()
            path = os.path.join(folder, f"{n}.snapshot")
            tracemalloc.take_snapshot().dump(path + ".part")
            os.rename(path + ".part", path)
            n += 1
        time.sleep(0.1)

threading.Thread(target=snapshots, daemon=True).start()
from dicepoker.cli import app
app(sys.argv[2:], prog_name="dicepoker")
"""


class Player(Person):
    """A person of load.py who stops playing once their game has `moves` events: on their
    turn at that seq they do nothing, and the game is `settled` (nobody else moves then)."""

    def __init__(self, *args: Any, moves: int, settled: set[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moves = moves
        self.settled = settled

    async def _act(self, state: dict[str, Any], seq: int, think: tuple[float, float]) -> None:
        if seq >= self.moves:
            self.settled.add(self.game_id)
            return
        await super()._act(state, seq, think)


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, in KiB, and its nice."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            out[line.split(":")[0]] = int(line.split()[1])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    out["nice"] = int(fields[16])
    return out


def processes(server: Server) -> list[dict[str, Any]]:
    """The server and each of its workers now: name, pid, rss and hwm (MiB)."""
    out = []
    family = _family(server.process.pid)
    for n, pid in enumerate(family):
        try:
            status = _status(pid)
        except OSError:
            continue  # ended meanwhile
        if n == 0:
            name = "server"
        elif b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes():
            name = "resource tracker"  # multiprocessing's, started with the first worker
        else:  # one of the work queue's dp-work processes: every kind of job runs in each
            name = "worker"
        out.append(
            {
                "name": name,
                "pid": pid,
                "rss": round(status["VmRSS"] / 1024, 1),
                "hwm": round(status["VmHWM"] / 1024, 1),
            }
        )
    return out


async def quiet(server: Server, most: float = 120.0) -> None:
    """Until the server and its workers use under 3 % of a core over a second (queued
    chances and bot moves done), at most `most` seconds."""
    deadline = time.monotonic() + most

    def cpu() -> float:
        total = 0.0
        for pid in _family(server.process.pid):
            try:
                total += _cpu_seconds(pid)
            except OSError:
                continue
        return total

    while time.monotonic() < deadline:
        before = cpu()
        await asyncio.sleep(1.0)
        if cpu() - before < 0.03:
            return


async def add_games(
    server: Server,
    client: httpx.AsyncClient,
    first: int,
    last: int,
    args: argparse.Namespace,
    stats: Stats,
    settled: set[str],
    stop: asyncio.Event,
    tasks: list[asyncio.Task[Any]],
) -> None:
    """Games `first` to `last - 1`, created and connected, played until each has settled."""
    creating = asyncio.Semaphore(CREATING)
    rng = random.Random(args.seed + first)
    think = (args.think[0], args.think[1])

    async def one(n: int) -> None:
        async with creating:
            game_id, seats = await create_game(client, [server], n, rng)
        people = [
            Player(
                game_id,
                token,
                url,
                i == 0,
                stats,
                random.Random(rng.random()),
                moves=args.moves,
                settled=settled,
            )
            for i, (token, url) in enumerate(seats)
        ]
        tasks.extend(asyncio.create_task(p.run(think, stop)) for p in people)
        await asyncio.gather(*(p.welcomed.wait() for p in people))

    await asyncio.gather(*(one(n) for n in range(first, last)))
    deadline = time.monotonic() + args.most
    while len(settled) < last and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    if len(settled) < last:
        print(f"only {len(settled)} of {last} games settled", file=sys.stderr)


def snapshot(folder: Path, n: int) -> tracemalloc.Snapshot:
    """Ask the traced server for its snapshot number `n` and read it."""
    (folder / "ask").touch()
    path = folder / f"{n}.snapshot"
    deadline = time.monotonic() + 300
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit("the traced server wrote no snapshot")
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(str(path))


def traced_total(snap: tracemalloc.Snapshot) -> float:
    return sum(stat.size for stat in snap.statistics("filename")) / 2**20


def top_sites(
    old: tracemalloc.Snapshot, new: tracemalloc.Snapshot, games: int, top: int
) -> dict[str, Any]:
    """The allocation sites that grew most from `old` to `new`: bytes per game, blocks per
    game, by line and by traceback."""
    ignore = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap*>"),
    ]
    old, new = old.filter_traces(ignore), new.filter_traces(ignore)

    def rows(group: str, count: int) -> list[dict[str, Any]]:
        out = []
        for stat in new.compare_to(old, group)[:count]:
            lines = [f"{frame.filename}:{frame.lineno}" for frame in stat.traceback]
            out.append(
                {
                    "bytes_per_game": round(stat.size_diff / games),
                    "blocks_per_game": round(stat.count_diff / games, 1),
                    "where": lines if group == "traceback" else lines[0],
                }
            )
        return out

    return {"lines": rows("lineno", top), "tracebacks": rows("traceback", top // 2)}


async def measure(args: argparse.Namespace, server: Server, folder: Path | None) -> dict[str, Any]:
    stats = Stats()
    settled: set[str] = set()
    stop = asyncio.Event()
    tasks: list[asyncio.Task[Any]] = []
    stages: list[dict[str, Any]] = []
    snapshots: list[tracemalloc.Snapshot] = []
    limits = httpx.Limits(max_connections=CREATING, max_keepalive_connections=0)

    def stage(games: int, seconds: float) -> None:
        family = processes(server)
        stage: dict[str, Any] = {
            "games": games,
            "seconds": round(seconds, 1),
            "processes": family,
            "rss": round(sum(p["rss"] for p in family), 1),
            "hwm": round(sum(p["hwm"] for p in family), 1),
        }
        if folder is not None:
            snapshots.append(snapshot(folder, len(snapshots)))
            stage["traced_mib"] = round(traced_total(snapshots[-1]), 1)
        if stages and games > stages[-1]["games"]:
            added = games - stages[-1]["games"]
            stage["kib_per_game"] = round((stage["rss"] - stages[-1]["rss"]) * 1024 / added, 1)
            server_rss = family[0]["rss"] - stages[-1]["processes"][0]["rss"]
            stage["server_kib_per_game"] = round(server_rss * 1024 / added, 1)
            if "traced_mib" in stage:
                traced = stage["traced_mib"] - stages[-1]["traced_mib"]
                stage["traced_kib_per_game"] = round(traced * 1024 / added, 1)
        stages.append(stage)
        report(stage)

    async with httpx.AsyncClient(timeout=httpx.Timeout(60, pool=None), limits=limits) as client:
        stage(0, 0.0)
        have = 0
        for games in args.games:
            start = time.monotonic()
            await add_games(server, client, have, games, args, stats, settled, stop, tasks)
            await quiet(server)
            have = games
            stage(games, time.monotonic() - start)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    out: dict[str, Any] = {"stages": stages, "errors": len(stats.errors)}
    out["error_samples"] = stats.errors[:5]
    if folder is not None and len(snapshots) >= 2:
        added = args.games[-1] - (args.games[-2] if len(args.games) > 1 else 0)
        out["top"] = top_sites(snapshots[-2], snapshots[-1], added, args.top)
    return out


def report(stage: dict[str, Any]) -> None:
    if ARGS.json:
        return
    each = ", ".join(f"{p['name']} {p['rss']:.0f} ({p['hwm']:.0f})" for p in stage["processes"])
    line = f"{stage['games']:>6} games: {stage['rss']:7.1f} MiB ({stage['hwm']:.1f}) = {each}"
    if "kib_per_game" in stage:
        line += f"; +{stage['kib_per_game']} KiB a game (the server {stage['server_kib_per_game']})"
    if "traced_mib" in stage:
        line += f"; traced {stage['traced_mib']} MiB"
        if "traced_kib_per_game" in stage:
            line += f" (+{stage['traced_kib_per_game']} KiB a game)"
    if stage["seconds"]:
        line += f" [{stage['seconds']} s]"
    print(line, flush=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as temp:
        folder = (args.snapshots or Path(temp) / "snapshots") if args.trace else None
        launcher = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            os.environ["DICEPOKER_MEMORY_FRAMES"] = str(args.frames)
            launcher = [sys.executable, "-c", TRACED, str(folder)]
        server = start_server(
            free_port(),
            str(Path(temp) / "memory.db"),
            None,
            args.bot_delay,
            chances=args.chances,
            launcher=launcher,
            log=args.log,
            wait=600.0 if args.trace else 60.0,  # imports are slow under tracemalloc
        )
        try:
            result = asyncio.run(measure(args, server, folder))
        finally:
            server.process.terminate()
            try:
                server.process.wait(timeout=30)
            except Exception:
                server.process.kill()
                raise
    return result


ARGS = argparse.Namespace()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[20, 300, 1200])
    parser.add_argument("--moves", type=int, default=40, help="events a game has, then it stops")
    parser.add_argument("--think", type=float, nargs=2, default=[0.05, 0.3])
    parser.add_argument("--bot-delay", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--most", type=float, default=600.0, help="longest wait for a stage")
    parser.add_argument(
        "--no-chances",
        dest="chances",
        action="store_false",
        help="a server without win probabilities (--no-win-probability): no chances jobs",
    )
    parser.add_argument("--trace", action="store_true", help="tracemalloc in the server")
    parser.add_argument("--frames", type=int, default=8, help="frames traced per block")
    parser.add_argument("--top", type=int, default=25, help="allocation sites shown")
    parser.add_argument(
        "--snapshots",
        type=Path,
        help="with --trace: keep the snapshots here (N.snapshot, one per line printed; "
        "tracemalloc.Snapshot.load reads them)",
    )
    parser.add_argument("--log", type=Path, help="the server's output, added to this file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if sorted(args.games) != args.games:
        parser.error("--games: increasing")
    ARGS.json = args.json
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    print(f"errors {result['errors']} {result['error_samples'] or ''}")
    top = result.get("top")
    if top:
        print("grew most between the last two stages, per game (by line):")
        for row in top["lines"]:
            size, blocks = row["bytes_per_game"], row["blocks_per_game"]
            print(f"  {size:>8} B {blocks:>7} blocks  {row['where']}")
        print("by traceback:")
        for row in top["tracebacks"]:
            print(f"  {row['bytes_per_game']:>8} B {row['blocks_per_game']:>7} blocks")
            for where in row["where"][::-1]:
                print(f"      {where}")


if __name__ == "__main__":
    main()
