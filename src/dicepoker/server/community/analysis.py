"""The CPU-heavy answers of the API: the advisor, game analyses, and positions of a record.

The advisor runs where the services' `advising` puts it: a server's worker process at a
person's priority (`WorkQueue.advise`: its answers take milliseconds, but the exact solver's
tables load numba and LLVM, about 115 MiB, that the server's process should not hold for a
hint); a thread where there is no work queue. An analysis (seconds of CPU for a School game, and
the win probability's compiled kernels, the same memory) runs where the cache's `runner` puts
it: a server's worker process at the background priority (`WorkQueue.analyse`), so that neither
the memory nor the interpreter lock is taken from the event loop; a thread where there is no
work queue.

A finished game's or a stored record's analysis never changes: it is computed once and kept a
while (`AnalysisCache`). A game still being played is analysed once per position: its analysis
is kept until the game moves on, and asking again for the same position (a reload, a second
spectator, the same request twice at once) computes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from dicepoker.engine import Action, GameState, Roll
from dicepoker.master import Refusal
from dicepoker.protocol import Position
from dicepoker.record import RecordError, replay
from dicepoker.server.runtime.workers import JobTooLarge
from dicepoker.view import game_view

ANALYSES_KEPT = 256  # analyses kept in memory (games and records; a game's latest position only)

Analysed = dict[str, Any]
#: Runs a function of this module's kind (`analyse`, a puzzle's judgement) with its arguments
#: away from the event loop, and answers its result.
Runner = Callable[..., Awaitable[Any]]
#: The advisor's answer for a state, computed away from the event loop (`advise`).
Advising = Callable[[GameState], Awaitable[dict[str, Any]]]


async def in_thread(function: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(function, *args)


class AnalysisCache:
    """Analyses of records, the last `size` keys used kept (least recently used out first; None:
    never kept). A key holds one analysis, of one position (`at`: None for a record that no
    longer changes, else a game's seq): a new position of the game replaces the old one."""

    def __init__(self, size: int = ANALYSES_KEPT, runner: Runner = in_thread) -> None:
        self.size = size
        self.runner = runner
        self._kept: OrderedDict[str, tuple[int | None, Analysed]] = OrderedDict()
        self._running: dict[tuple[str, int | None], asyncio.Future[Analysed]] = {}

    async def analysis(
        self,
        key: str | None,
        record: dict[str, Any],
        levels: Sequence[str | None] | None = None,
        *,
        at: int | None = None,
    ) -> Analysed:
        """The analysis of `record` (`levels`: each seat's level where known, a bot's; one key
        is always asked with the same) at position `at` of `key`."""
        if key is None:
            return await self._analysed(record, levels)
        kept = self._kept.get(key)
        if kept is not None and kept[0] == at:
            self._kept.move_to_end(key)
            return kept[1]
        running = self._running.get((key, at))
        if running is None:
            running = asyncio.ensure_future(self._analysed(record, levels))
            self._running[(key, at)] = running
            running.add_done_callback(lambda done: self._finished(key, at, done))
        # One computation for every request of this position; a request that goes away (the
        # client hung up) does not cancel it for the others.
        return await asyncio.shield(running)

    async def _analysed(
        self, record: dict[str, Any], levels: Sequence[str | None] | None
    ) -> Analysed:
        """The record's analysis where the runner puts it; a record too large to hand to a
        worker (a server whose import limit is above the work queue's) is refused."""
        try:
            found: Analysed = await self.runner(analyse, record, levels)
        except JobTooLarge:
            raise Refusal("too_large", "this record is too large to analyse here") from None
        return found

    def _finished(self, key: str, at: int | None, done: asyncio.Future[Analysed]) -> None:
        del self._running[(key, at)]
        if done.cancelled() or done.exception() is not None:
            return  # a refusal is answered to whoever waited, and not kept
        current = self._kept.get(key)
        if current is not None and at is not None and (current[0] is None or current[0] > at):
            return  # a later position (or the end) was kept while this one was computed
        self._kept[key] = (at, done.result())
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)


def advise(state: GameState) -> dict[str, Any]:
    from dicepoker.advisor import advise as advisor

    return advisor(state).as_json()


async def advise_in_thread(state: GameState) -> dict[str, Any]:
    """`advise` in a thread (a server without worker processes, and the tests' apps)."""
    return await asyncio.to_thread(advise, state)


def analyse(record: dict[str, Any], levels: Sequence[str | None] | None = None) -> dict[str, Any]:
    """The analysis of `record`, each seat judged at `levels` (a table's: `LiveGame.levels`, its
    people's ratings included), else as the record's `bots` say (a person there a newcomer),
    as the live chances judged them."""
    from dicepoker.review import analyse as analyser
    from dicepoker.winprob.strength import record_levels

    try:
        return analyser(record, record_levels(record) if levels is None else levels).as_json()
    except RecordError as exc:
        raise Refusal("bad_record", str(exc)) from None


def with_links(analysis: dict[str, Any], viewer: str) -> dict[str, Any]:
    """The analysis with a link to the replay viewer (`viewer`, its path) at the position of
    every decision (a copy: the cached analysis is shared)."""

    def linked(decision: dict[str, Any]) -> dict[str, Any]:
        turn, roll = int(decision["turn"]) - 1, int(decision["roll"])
        return {**decision, "link": f"{viewer}?turn={turn}&roll={roll}"}

    players = [
        {
            **player,
            "worst": [linked(d) for d in player.get("worst", [])],
            "key_moments": [linked(d) for d in player.get("key_moments", [])],
        }
        for player in analysis.get("players", [])
    ]
    decisions = [linked(d) for d in analysis.get("decisions", [])]
    return {**analysis, "players": players, "decisions": decisions}


def turn_seats(record: dict[str, Any]) -> list[int]:
    """The seat that played each turn of a record (the engine says whose turn it is: seats take
    turns in order, a forfeited player's turns are skipped, a tie-break has its own order)."""
    seats: list[int] = []

    def observe(state: GameState, action: Action) -> None:
        if not isinstance(action, Roll):
            seats.append(state.seat)

    with contextlib.suppress(RecordError):  # the turns before a bad one are still known
        replay(record, observe)
    return seats


def position(record: dict[str, Any], turn: int, roll: int) -> Position:
    """The view after `turn` complete turns of a record and `roll` rolls of the next one."""
    turns = record.get("turns") or []
    turn = max(0, min(turn, len(turns)))
    rolls_next = len(turns[turn].get("rolls") or []) if turn < len(turns) else 0
    roll = max(0, min(roll, rolls_next))
    partial = {**record, "turns": turns[:turn]}
    if roll:
        partial["turns"] = [*turns[:turn], {"rolls": turns[turn]["rolls"][:roll]}]
    try:
        game = replay(partial)
    except RecordError as exc:
        raise Refusal("bad_record", str(exc)) from None
    return Position.build(
        turn=turn,
        roll=roll,
        turns=len(turns),
        rolls=rolls_next,
        move=turns[turn].get("move") if turn < len(turns) else None,
        players=list(game.state.players),
        seats=turn_seats(record),
        state=game_view(game.state),
    )
