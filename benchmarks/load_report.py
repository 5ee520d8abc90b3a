"""How `benchmarks/load.py` prints its report for a person (`--json` prints the data itself)."""

from __future__ import annotations

from typing import Any

from load_speed import speed_halves


def print_report(report: dict[str, Any], think: list[float], bot_delay: float) -> None:
    latency = report["latency_ms"]
    print(
        f"{report['processes']} process(es) on {report['store']}: {report['games']} games for "
        f"{report['seconds']} s (think {think[0]}-{think[1]} s, bot delay "
        f"{bot_delay} s), people speaking {report['subprotocol']}"
    )
    print(
        f"moves {report['moves']} ({report['moves_per_second']} per second), "
        f"{report['games_finished']} games finished"
    )
    print(
        f"intent -> broadcast latency over {report['deliveries_measured']} deliveries: "
        f"p50 {latency['p50']} ms, p99 {latency['p99']} ms, max {latency['max']} ms"
    )
    if report["chances"]:
        print_chances(report["live_chances"])
    probe = report["cpu_probe"]
    print(
        f"CPU probe (the same piece of Python, load_speed.py): {probe['units']} units, median "
        f"{probe['median_us']} us of CPU (p10 {probe['p10_us']}, p90 {probe['p90_us']})"
    )
    timeline = report.get("latency_by_second")
    if timeline:
        print_slowest(timeline)
        halves = speed_halves(timeline)
        print(
            "seconds by the probe: "
            + "; ".join(
                f"the {name} half, {h['seconds']} s (units up to {h['probe_us_up_to']} us): p99 "
                f"median {h['p99_median_ms']} ms, {h['over_100_ms']} s over 100 ms"
                for name, h in halves.items()
            )
        )
    print(f"errors {report['errors']} {report['error_samples'] or ''}")
    if report["games_without_a_move"]:
        print(f"games that did not move while measured: {report['games_without_a_move']}")
    problems = report["server_log_problems"]
    print(
        f"servers' warnings and errors {problems['count']} (errors {problems['errors']}, games "
        f"caught up after a missed move {problems['games_caught_up']}) {problems['samples'] or ''}"
    )
    print(
        f"server peak memory {report['server_peak_memory_mb']} MiB "
        f"(each process: {report['process_peak_memory_mb']}), "
        f"CPU share {report['server_cpu_share']}, their workers' {report['workers_cpu_share']} "
        f"{report['workers_cpu_by_name']} "
        f"(the driver: {report['driver_cpu_share']}); waiting for a CPU: the servers' loops "
        f"{report['cpu_wait_share']['servers']}, the driver's {report['cpu_wait_share']['driver']}"
    )
    for n, figures in enumerate(report.get("server_side_ms", [])):
        said = ", ".join(
            f"{name} {int(f['count'])} p50<={f['p50_le']} p99<={f['p99_le']} ms "
            f"(in all {f.get('sum_ms')} ms)"
            for name, f in figures.items()
        )
        print(f"process {n + 1}: {said}")


def print_chances(chances: dict[str, Any]) -> None:
    """The live win probability as the people saw it (benchmarks/load_chances.py)."""
    delay, age = chances["delay_s"], chances["age_at_next_event_s"]
    print(
        f"chances: {chances['events_with_chances']} of {chances['events']} events got them, "
        f"median {delay['median']} s after the event (p95 {delay['p95']} s); at the next event "
        f"they were {age['median']} s old (p95 {age['p95']} s), none at {age['missing']} events"
    )


def print_slowest(timeline: list[dict[str, Any]], count: int = 5) -> None:
    """The `count` seconds with the slowest deliveries, each beside what the driver, the machine
    and every server did in it (benchmarks/load_timeline.py)."""
    measured = [second for second in timeline if second["deliveries"]]
    print("slowest seconds (deliveries, p50/p99/max ms; driver lag; machine; each server):")
    for row in sorted(measured, key=lambda second: second["max"], reverse=True)[:count]:
        line = (
            f"  {row['second']:>4} s: {row['deliveries']}, {row['p50']}/{row['p99']}/"
            f"{row['max']} ms; driver lag {row['driver_lag_ms']} ms"
        )
        if "probe_us" in row:
            line += f"; probe {row['probe_us']} us"
        if "busy" in row:
            line += f"; busy {row['busy']:.0%}, steal {row['steal']:.0%}"
            line += f", driver wait {row['driver_wait']}"
            for n, server in enumerate(row["servers"]):
                line += (
                    f"; server {n}: cpu {server['cpu']}, wait {server['cpu_wait']}, "
                    f"workers {server['workers_cpu']}"
                )
                if "loop_lag_ms" in server:
                    line += (
                        f", lag {server['loop_lag_ms']} ms, gc {server['gc_ms']} ms, "
                        f"{server['commits']:.0f} commits of {server['commit_ms']} ms"
                    )
            busiest = sorted(row["others"].items(), key=lambda item: item[1], reverse=True)
            line += "; " + ", ".join(f"{group} {cores}" for group, cores in busiest[:4])
        print(line)
