"""The turn clock: a person who lets their turn run out loses it, or has it played for them.

A game with `turn_seconds` gives each person's turn that long. When it runs out, the variant's
rules say what happens: the player forfeits (`timeout_loses`), or the rest of the turn is
played by auto-play. Either way it is an intent like any other, sent with the seq it was chosen
at and chosen again when the player's own intent came first. With several processes, the clock
of a game runs in the one that holds its lease (`Broadcaster.claim`); should that process die,
its lease runs out and another one acts.

A rated game (which always has a clock: `dicepoker.master.newgame`) adds one rule, so that
leaving a lost game costs what losing it does: a player whose turn runs out when their previous
turn was also finished by auto-play has missed two turns in a row and is counted absent: they
forfeit (`Forfeit("absent")`), are ranked last, the others play on, and the game is rated when
it ends. One missed turn is forgiven (a dropped connection, a doorbell). docs/ratings.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from dicepoker.engine import FORFEIT, Forfeit
from dicepoker.engine.actions import ABSENT
from dicepoker.master.bus import LEASE_SECONDS
from dicepoker.master.live import LiveGame
from dicepoker.master.master import GameMaster
from dicepoker.master.refusal import Refusal
from dicepoker.master.tasks import GameTasks

log = logging.getLogger("dicepoker.master")


class TurnClock:
    """The turn clocks of a master's games (a watcher of the master)."""

    def __init__(
        self, master: GameMaster, *, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ) -> None:
        self.master = master
        self.sleep = sleep  # how a clock waits for its time to run out (tests: on a signal)
        self._tasks = GameTasks()
        self._closing = False
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        """Keep the game's clock in step: one running for each person's turn, none otherwise."""
        state = live.game.state
        timed = (
            not state.finished
            and live.status == "running"
            and live.turn_seconds > 0
            and not live.is_bot(state.seat)
        )
        key = (state.turn, state.seat)
        if not timed:
            live.deadline = live.clock_key = None
            self._tasks.stop(live.id)
            return
        if key == live.clock_key:
            return
        self._tasks.stop(live.id)
        live.clock_key = key
        live.deadline = time.time() + live.turn_seconds
        if not self._closing:
            work = self._run(live, key, live.turn_seconds)
            self._tasks.start(live.id, work, name=f"clock-{live.id}")

    def holds(self, game_id: str) -> bool:
        return self._tasks.running(game_id)

    async def close(self) -> None:
        self._closing = True
        await self._tasks.close()

    async def _run(self, live: LiveGame, key: tuple[int, int], seconds: float) -> None:
        await self.sleep(seconds)
        if not _still(live, key):
            return
        while not await self.master.broadcaster.claim(live.id):
            # Another process runs this clock; should it die, its lease runs out and we act.
            await asyncio.sleep(LEASE_SECONDS / 2)
            if not _still(live, key):
                return
        self._tasks.detach(live.id)  # this task is ending; acting below sets the next clock
        try:
            await self._expire(live, key)
        except Refusal as exc:
            log.warning("turn clock in game %s: %s", live.id, exc.message)

    async def _expire(self, live: LiveGame, key: tuple[int, int]) -> None:
        """The time of turn `key` (turn, seat) is up: forfeit or auto-play it."""
        seat = key[1]
        forfeit = forfeit_on_time(live, seat)
        # In a rated game the clock stands in for the person, and what it plays counts as the
        # person's action: the game is never idle while its clock runs, so it ends with a
        # result (the absent rule) instead of being closed as abandoned, unrated.
        stand_in = live.rated
        if forfeit is None:
            await self.master.auto(live, seat, person=stand_in)
            return
        while _still(live, key):
            try:
                await self.master.act(live, seat, forfeit, live.seq, auto=True, person=stand_in)
                return
            except Refusal as exc:
                if exc.code != "stale":
                    raise  # the player's last intent came first: look again


def forfeit_on_time(live: LiveGame, seat: int) -> Forfeit | None:
    """The forfeit that `seat` running out of time now costs (None: the turn is auto-played):
    the variant's own timeout where its rules say so, else in a rated game the second missed
    turn in a row (the seat's last turn was finished by auto-play: `LiveGame.trail`)."""
    rules = live.rules
    if rules.timeout_loses and rules.turn_seconds > 0:
        return FORFEIT
    last = live.trail.get(seat)
    if live.rated and last is not None and last[2]:
        return ABSENT
    return None


def _still(live: LiveGame, key: tuple[int, int]) -> bool:
    """Whether the game is still at the turn `key` (turn, seat) the clock runs for."""
    state = live.game.state
    return not state.finished and (state.turn, state.seat) == key
