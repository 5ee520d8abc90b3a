"""The load benchmark's account of the live win probability (benchmarks/load_chances.py) from
made-up message timelines: each event is paired with its own seq's chances, the age at an event
is read from the position before it, a position judged too late or never counts as missing, and
only the events of the measured period count. A small real run checks the same report end to end
(tests/test_load.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from load_chances import ChancesTimes, chances_report
from load_report import print_chances


def test_each_event_is_paired_with_the_chances_of_its_own_seq() -> None:
    times = ChancesTimes()
    times.judged("g", 0, 9.0)  # the welcome's position
    times.event("g", 1, 10.0, judged=False)
    times.judged("g", 1, 10.5)
    times.event("g", 2, 12.0, judged=False)
    times.judged("g", 2, 12.25)
    report = chances_report(times, start=0.0, end=100.0)
    assert (report["events"], report["events_with_chances"]) == (2, 2)
    assert report["delay_s"] == {"median": 0.5, "p95": 0.5}  # the larger of 0.25 and 0.5
    # At seq 1 the player had held seq 0's chances for 1 s; at seq 2, seq 1's for 1.5 s.
    age = report["age_at_next_event_s"]
    assert (age["median"], age["p95"], age["measured"], age["missing"]) == (1.5, 1.5, 2, 0)


def test_chances_that_came_too_late_or_never_leave_the_next_event_without_any() -> None:
    times = ChancesTimes()
    times.event("g", 1, 10.0, judged=False)  # seq 0 never judged
    times.event("g", 2, 11.0, judged=False)
    times.judged("g", 1, 11.5)  # seq 1's chances after seq 2's event: too late to be read
    times.event("g", 3, 13.0, judged=False)  # seq 2 never judged
    report = chances_report(times, start=0.0, end=100.0)
    assert (report["events"], report["events_with_chances"]) == (3, 1)
    assert report["delay_s"] == {"median": 1.5, "p95": 1.5}
    age = report["age_at_next_event_s"]
    assert (age["measured"], age["missing"]) == (0, 3)
    assert age["median"] is None and age["p95"] is None


def test_chances_carried_by_the_event_come_with_no_delay() -> None:
    """An older server's event with `win_probability` in it; a second copy of the same chances
    (another process told them too) does not move when they came."""
    times = ChancesTimes()
    times.event("g", 1, 10.0, judged=True)
    times.judged("g", 1, 10.4)
    times.event("g", 2, 14.0, judged=True)
    report = chances_report(times, start=0.0, end=100.0)
    assert report["events_with_chances"] == 2
    assert report["delay_s"] == {"median": 0.0, "p95": 0.0}
    age = report["age_at_next_event_s"]
    assert (age["median"], age["measured"], age["missing"]) == (4.0, 1, 1)


def test_only_the_measured_periods_events_count_but_earlier_chances_are_read() -> None:
    times = ChancesTimes()
    times.event("a", 4, 5.0, judged=False)
    times.judged("a", 4, 5.2)  # before the period, read by the first event inside it
    times.event("a", 5, 20.0, judged=False)
    times.judged("a", 5, 20.1)
    times.event("a", 6, 61.0, judged=False)  # after the period
    times.event("b", 1, 30.0, judged=False)
    times.judged("b", 0, 29.0)
    report = chances_report(times, start=10.0, end=60.0)
    assert (report["events"], report["events_with_chances"]) == (2, 1)
    assert report["delay_s"]["median"] == pytest.approx(0.1)
    age = report["age_at_next_event_s"]
    # Pooled over the games: 14.8 s in game a, 1.0 s in game b.
    assert (age["measured"], age["missing"]) == (2, 0)
    assert (age["median"], age["p95"]) == (pytest.approx(14.8), pytest.approx(14.8))


def test_the_p95_is_the_tail_of_many_events(capsys: pytest.CaptureFixture[str]) -> None:
    times = ChancesTimes()
    for seq in range(1, 101):  # 100 events, their chances 10 ms to 1 s after them
        at = 10.0 * seq
        times.event("g", seq, at, judged=False)
        times.judged("g", seq, at + seq / 100)
    report = chances_report(times, start=0.0, end=2000.0)
    assert report["delay_s"] == {"median": 0.51, "p95": 0.96}
    age = report["age_at_next_event_s"]
    assert age["missing"] == 1  # the first event: seq 0 was never judged
    # 99 ages, 9.01-9.99 s: 10 s less the delay of the chances before each event
    assert (age["median"], age["p95"]) == (9.5, 9.95)
    print_chances(report)
    printed = capsys.readouterr().out
    assert "100 of 100 events got them, median 0.51 s after the event (p95 0.96 s)" in printed
    assert "9.5 s old (p95 9.95 s), none at 1 events" in printed
