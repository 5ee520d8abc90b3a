"""The live win probability as `benchmarks/load.py`'s people see it: how long after each event
its position's chances come, and how old the chances a player looks at are when the next event
comes.

The server tells an event the moment it is committed and its chances in a `chances` message of the
same seq once they are judged (late while the workers are busy with the people's and the bots'
jobs, or never when the game has moved on). Older servers put them in the event itself
(`win_probability`): those count as come with the event. A welcome that carries them counts for its
seq, the position a game starts from.

Each game is read on one socket (the first person's), so that a game counts once. A player reads
the chances of the position before a move until that move's event comes, so the age that matters
is the one at each event: the time from the previous position's chances to it. A previous position
whose chances never came, or came only after the event, leaves the player with none (`missing`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ChancesTimes:
    """When the counting socket of each game saw each event and each position's chances, by
    game and seq (the driver's clock, seconds)."""

    events: dict[str, dict[int, float]] = field(default_factory=dict)
    chances: dict[str, dict[int, float]] = field(default_factory=dict)

    def event(self, game: str, seq: int, at: float, judged: bool) -> None:
        """An event came; `judged`: it carried its chances (a server older than `chances`)."""
        self.events.setdefault(game, {})[seq] = at
        if judged:
            self.judged(game, seq, at)

    def judged(self, game: str, seq: int, at: float) -> None:
        """The chances of `seq` came; the first time counts (another process's copy of the same
        judgement may follow)."""
        self.chances.setdefault(game, {}).setdefault(seq, at)


def _quantile(ordered: list[float], share: float) -> float | None:
    """As load.py's latency percentiles: the value at that share of the sorted list."""
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)


def _spread(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {"median": _quantile(ordered, 0.5), "p95": _quantile(ordered, 0.95)}


def chances_report(times: ChancesTimes, start: float, end: float) -> dict[str, Any]:
    """The events that came within [start, end]: how many got their chances and after how many
    seconds (`delay_s`, 0 for those that came with them); and at each of those events, the age
    of the chances of the position before it (`age_at_next_event_s`), with the events whose
    previous position had none then (`missing`)."""
    delays: list[float] = []
    ages: list[float] = []
    measured = missing = 0
    for game, events in times.events.items():
        judged = times.chances.get(game, {})
        for seq, at in events.items():
            if not start <= at <= end:
                continue
            measured += 1
            came = judged.get(seq)
            if came is not None:
                delays.append(max(came - at, 0.0))
            before = judged.get(seq - 1)
            if before is None or before > at:
                missing += 1
            else:
                ages.append(at - before)
    return {
        "events": measured,
        "events_with_chances": len(delays),
        "delay_s": _spread(delays),
        "age_at_next_event_s": _spread(ages) | {"measured": len(ages), "missing": missing},
    }
