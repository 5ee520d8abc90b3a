"""A small run of the load benchmark (benchmarks/load.py): real servers, real sockets, people and
bots at a quick pace, on one SQLite process and on two processes sharing PostgreSQL + Redis.
The figures of the full run (1,000 games) are the benchmark's; here every game must move, every
delivery be measured, nothing be refused or lost. The benchmark runs in a process group of its
own, ended afterwards with the servers it started (tests/processes.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from live_server import postgres_url, redis_url
from processes import run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from load_report import print_report

LOAD = Path(__file__).resolve().parents[1] / "benchmarks" / "load.py"


def _run(*extra: str) -> dict[str, Any]:
    command = [
        sys.executable,
        str(LOAD),
        "--games",
        "12",
        "--seconds",
        "6",
        "--think",
        "0.05",
        "0.3",
        "--bot-delay",
        "0.1",
        "--bots",
        "greedy,expert",
        "--json",
        *extra,
    ]
    done = run(command, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize(
    ("processes", "affinity"),
    [(1, False), (2, False), (2, True)],
    ids=["sqlite", "postgresql-crossing", "postgresql-affinity"],
)
def test_small_load_run(processes: int, affinity: bool, capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--processes", str(processes)]
    if processes > 1:
        # With each server's own histograms of the measured period (where the time goes).
        extra += ["--postgres", postgres_url(), "--redis", redis_url(), "--metrics"]
    if affinity:  # a game's sockets on one process, as deploy/nginx.conf routes them
        # (and the slots' first games started over a second, as a steady state's would be)
        extra += ["--affinity", "--stagger", "1", "--timeline"]
    report = _run(*extra)
    assert report["processes"] == processes
    assert report["affinity"] is affinity
    assert report["stagger_seconds"] == (1.0 if affinity else 0.0)
    assert report["store"] == ("sqlite" if processes == 1 else "postgresql")
    assert report["errors"] == 0, report["error_samples"]
    assert report["games_created"] >= 12
    assert report["fewest_moves_in_a_game"] >= 4  # every game moved, people and bots
    assert report["games_without_a_move"] == []
    # No server failed (a warning, as a forecast given up on a busy machine, may come).
    problems = report["server_log_problems"]
    assert problems["errors"] == 0, problems["samples"]
    assert report["deliveries_measured"] > 0
    latency = report["latency_ms"]
    assert 0 <= latency["p50"] <= latency["p99"] <= latency["max"]
    # The live chances: the servers judged positions, each told after its own event.
    chances = report["live_chances"]
    assert 0 < chances["events_with_chances"] <= chances["events"]
    assert 0 <= chances["delay_s"]["median"] <= chances["delay_s"]["p95"]
    age = chances["age_at_next_event_s"]
    assert age["measured"] + age["missing"] == chances["events"]
    assert all(0 < mb < 2000 for mb in report["server_peak_memory_mb"])
    for total, each in zip(
        report["server_peak_memory_mb"], report["process_peak_memory_mb"], strict=True
    ):
        assert len(each) >= 2 and all(mb > 0 for mb in each)  # the server, then its worker(s)
        assert abs(sum(each) - total) < 0.5
    assert all(share >= 0 for share in report["workers_cpu_share"])
    # By the workers' process names, which add up to the same (each rounded on its own); the
    # bots thought in theirs (half the games have a bot seat).
    by_name = report["workers_cpu_by_name"]
    for named, share in zip(by_name, report["workers_cpu_share"], strict=True):
        assert all(cores >= 0 for cores in named.values())
        assert abs(sum(named.values()) - share) <= 0.01 * len(named)
    assert any("dp-work" in named for named in by_name)
    # Each server's loop's and the driver's wait for a CPU: a share of the period (a loop waits
    # only while it is ready to run: at most all of the time).
    waited = report["cpu_wait_share"]
    assert len(waited["servers"]) == processes
    assert all(0 <= share <= 1.01 for share in [*waited["servers"], waited["driver"]])
    # The CPU probe timed its piece of Python all through the measured period (4 a second).
    probe = report["cpu_probe"]
    assert probe["units"] >= 2 * report["seconds"]
    assert 0 < probe["p10_us"] <= probe["median_us"] <= probe["p90_us"]
    if processes > 1:
        for server in report["server_side_ms"]:
            assert set(server) >= {"intent_broadcast", "db_commit", "event_loop_lag"}
            # (read just outside the driver's measured period, so not compared with its moves)
            assert server["intent_broadcast"]["count"] > 0 and server["db_commit"]["count"] > 0
            assert server["event_loop_lag"]["count"] > 0
            # The collector's pauses, one series a generation (a short run may make none).
            assert {f"gc_pause[generation={g}]" for g in range(3)} <= set(server)
            assert all(figures["sum_ms"] >= 0 for figures in server.values())
            p50, p99 = server["event_loop_lag"]["p50_le"], server["event_loop_lag"]["p99_le"]
            assert p50 is not None and p99 is not None and 0 < p50 <= p99
        for harvests in report["puzzle_harvests"]:  # each server's, read at the period's end
            assert set(harvests) == {"waiting", "skipped_total"}
            assert 0 <= harvests["waiting"] <= 16 and harvests["skipped_total"] >= 0
    else:
        assert "server_side_ms" not in report
    if affinity:  # the latency second by second: every delivery measured, in some second
        timeline = report["latency_by_second"]
        assert sum(row["deliveries"] for row in timeline) == report["deliveries_measured"]
        seconds = [row["second"] for row in timeline]
        assert seconds == sorted(set(seconds))
        assert all(0 <= s <= report["seconds"] + 1 for s in seconds)
        delivered = [row for row in timeline if row["deliveries"]]
        assert all(0 <= row["p50"] <= row["p99"] <= row["max"] for row in delivered)
        assert max(row["max"] for row in delivered) == latency["max"]
        assert all(row["driver_lag_ms"] >= 0 for row in timeline)
        timed = [row["probe_us"] for row in timeline if "probe_us" in row]
        assert len(timed) >= report["seconds"] / 2 and all(us > 0 for us in timed)
        # Beside them, the machine's and each server's second (a tick at each whole second).
        spans = [row for row in timeline if "busy" in row]
        assert len(spans) >= report["seconds"] / 2  # (a late scrape's tick skips a second)
        for row in spans:
            assert 0 <= row["steal"] <= row["busy"] <= 1 and 0 <= row["driver_wait"] <= 1.1
            assert len(row["servers"]) == processes
            for server in row["servers"]:
                assert server["cpu"] >= 0 and server["workers_cpu"] >= 0
                # (a share of a second; the reads of a tick are a few ms apart from its time)
                assert 0 <= server["cpu_wait"] <= 1.1
                assert server["loop_lag_ms"] >= 0 and server["gc_ms"] >= 0
                assert server["commits"] >= 0 and server["commit_ms"] >= 0
        # The servers committed in the period, and it shows in its seconds.
        assert sum(s["commits"] for row in spans for s in row["servers"]) > 0
        assert sum(s["cpu"] for row in spans for s in row["servers"]) > 0
        # The other processes: the driver and PostgreSQL's backends did work in the period.
        assert all(cores >= 0 for row in spans for cores in row["others"].values())
        assert sum(row["others"].get("driver", 0) for row in spans) > 0
        assert sum(row["others"].get("pg backend", 0) for row in spans) > 0
    else:
        assert "latency_by_second" not in report
    # The same report as printed for a person (without --json), from the same data.
    print_report(report, [0.05, 0.3], 0.1)
    printed = capsys.readouterr().out
    assert (
        f"p99 {latency['p99']} ms" in printed and "waiting for a CPU: the servers' loops" in printed
    )
    assert f"units, median {probe['median_us']} us of CPU" in printed
    assert f"{chances['events_with_chances']} of {chances['events']} events got them" in printed
    assert ("slowest seconds" in printed) is affinity
    assert ("seconds by the probe: the faster half" in printed) is affinity


def test_the_servers_warnings_and_errors_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's count of the servers' log lines (JSON, `--log-json`): warnings, errors with
    their exception's last line, the games caught up after a missed move, and any line that is
    not JSON (a crash's own words) as an error; information is not counted."""
    monkeypatch.syspath_prepend(str(LOAD.parent))
    from load_servers import log_problems

    lines = [
        {"level": "INFO", "logger": "dicepoker.request", "message": "GET / 200"},
        {"level": "WARNING", "logger": "dicepoker.master", "message": "game g1 missed a move"},
        {"level": "WARNING", "logger": "dicepoker.master", "message": "game g2 missed a move"},
        {"level": "ERROR", "logger": "x", "message": "boom", "exception": "Traceback\nKeyError: 1"},
    ]
    first = tmp_path / "server-0.log"
    first.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    (tmp_path / "server-1.log").write_text("Segmentation fault\n\n")
    problems = log_problems([first, tmp_path / "server-1.log"])
    assert (problems["count"], problems["errors"], problems["games_caught_up"]) == (4, 2, 2)
    assert ["ERROR x: boom (KeyError: 1)", 1] in [list(s) for s in problems["samples"]]
    assert ["Segmentation fault", 1] in [list(s) for s in problems["samples"]]
