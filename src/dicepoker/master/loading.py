"""Games loaded on first use, the ones that move alone resumed after a start, and games that end
because nobody plays them any more.

A starting process loads no game: a game is read from the store (its events replayed) when a
request or a socket first asks for it. Only the running games that move with nobody touching
them (a bot's seat or a turn clock) are loaded after the start, in the background and in
batches, so that the process is ready at once and their bots and clocks still go on; the same
when another process stops, since a game that process drove may have been forgotten here
(`Upkeep.forget_idle`: nobody watched it here).

A game with no action of a person (its creation, a seat taken, a person's own move; a bot's
move or a turn clock's does not count) for `abandon_after` seconds is closed as `abandoned`:
the store's one conditional update decides (once per game, whichever process sweeps first), the
processes holding it stop its bots and clock and tell its tables, its tokens are refused from
then on (`abandoned`), and its record stays, unfinished, with the time it was closed.

A running rated game is never idle: it always has a turn clock (`dicepoker.master.newgame`),
whose moves stand in for its absent person (`dicepoker.master.clock`), and a player who misses
two turns in a row forfeits, so such a game ends with a result, rated, within a few turns of
its last person leaving: the sweep finds it only when no process ran its clock for all of
`abandon_after` (every process stopped that long). An abandoned game is never rated: it has
no result, and closing a rated one that is still played would let its loser escape the loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from dicepoker.bots import make_bot
from dicepoker.dice import FixedDice
from dicepoker.engine import Roll, parse_action
from dicepoker.master import seats as seating
from dicepoker.master.assistance import decide
from dicepoker.master.bus import LEASE_SECONDS
from dicepoker.master.live import LiveGame, Trail
from dicepoker.master.store import StoredEvent, StoredGame
from dicepoker.record import Game
from dicepoker.rules import get_rules

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from dicepoker.master.master import GameMaster

log = logging.getLogger("dicepoker.master")


class _Reading:
    """A game being read from the store: its lock and how many callers hold or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class Readers:
    """The games being read from the store, one reader at a time each. A game's entry is
    forgotten once no caller holds or waits for it: kept for good, one lock a game ever loaded
    (with two processes, every game of the other process that a socket here asked for) was
    memory that only grew."""

    def __init__(self) -> None:
        self._games: dict[str, _Reading] = {}

    @contextlib.asynccontextmanager
    async def one(self, game_id: str) -> AsyncIterator[None]:
        """Hold `game_id`'s reading lock (waiting for the caller that holds it)."""
        entry = self._games.get(game_id)
        if entry is None:
            entry = self._games[game_id] = _Reading()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._games[game_id]

    def reading(self, game_id: str) -> bool:
        """Whether `game_id` is being read now (what the bus announces meanwhile is kept)."""
        entry = self._games.get(game_id)
        return entry is not None and entry.lock.locked()

    def busy(self, game_id: str) -> bool:
        """Whether a caller holds or waits for `game_id`'s reading lock."""
        return game_id in self._games

    def __len__(self) -> int:
        return len(self._games)


#: Games loaded at a time by the background resume, between turns of the event loop.
RESUME_BATCH = 50
#: The record's key of an abandoned game: when it was closed (UTC, ISO 8601).
RECORD_KEY = "abandoned"
#: The longest wait between two sweeps of abandoned games.
SWEEP_SECONDS = 60.0


def sweep_every(abandon_after: float) -> float:
    """Seconds between two sweeps: a small part of the idle time, at most a minute."""
    return min(SWEEP_SECONDS, max(0.1, abandon_after / 4))


def stored_assistance(row: StoredGame) -> bool:
    """Whether a stored game is assisted: as decided at its creation, or by the default rule
    for a game stored before that was decided."""
    if row.assisted is not None:
        return row.assisted
    return decide(row.seats, rated=row.rated, daily=row.reveal_at is not None, asked=None)


def live_from(row: StoredGame, events: list[StoredEvent], now: Callable[[], datetime]) -> LiveGame:
    """The live game of a stored row and its events (replayed through the engine)."""
    rules = get_rules(row.variant, row.options)
    names = [seat.get("name") or f"Seat {n + 1}" for n, seat in enumerate(row.seats)]
    bots = [seat.get("level") if seat["kind"] == "bot" else None for seat in row.seats]
    game = Game(rules, names, extra={"id": row.id, "bots": bots})
    trail: dict[int, Trail] = {}
    for stored in events:
        action = parse_action(stored.action)
        if not isinstance(action, Roll):
            trail[game.state.seat] = (game.state, action, stored.auto)
        game.play(action, FixedDice(stored.thrown or ()), seat=stored.seat, auto=stored.auto)
    live = LiveGame(
        id=row.id,
        rules=rules,
        seats=[dict(seat) for seat in row.seats],
        # The events were read after the row: another process may have committed more in
        # between, and what was replayed is what this game is at.
        status=seating.status_of(row.seats, game.state.finished),
        game=game,
        seq=events[-1].seq if events else 0,
        turn_seconds=row.turn_seconds,
        created_at=row.created_at.isoformat() if row.created_at else "",
        last=events[-1] if events else None,
        dice_seed=row.dice_seed,
        dice_commitment=row.dice_commitment,
        reveal_at=row.reveal_at,
        now=now,
        trail=trail,
        rated=row.rated,
        assisted=stored_assistance(row),
    )
    if row.status == seating.ABANDONED:
        mark_abandoned(live, row.updated_at or now())
    live.sync_fair_dice()
    live.bots = {
        n: make_bot(seat["level"]) for n, seat in enumerate(row.seats) if seat["kind"] == "bot"
    }
    return live


def mark_abandoned(live: LiveGame, when: datetime) -> None:
    """The game is closed as abandoned: never played again; its record says since when."""
    live.status = seating.ABANDONED
    live.held = None
    live.game.extra[RECORD_KEY] = when.isoformat()


class Upkeep:
    """The master's background work: the resume after a start, the sweep of abandoned games
    (every `sweep_every`), and, with other processes, taking over the bots and clocks of games
    whose lease holder stopped renewing it."""

    def __init__(self, master: GameMaster) -> None:
        self.master = master
        self._tasks: list[asyncio.Task[None]] = []
        # The games the store held further on than this process at the last sweep, and how far.
        self._ahead: dict[str, int] = {}

    def start(self) -> None:
        master = self.master
        self._tasks.append(asyncio.create_task(self._resume(), name="resume"))
        if master.abandon_after > 0:
            self._tasks.append(asyncio.create_task(self._abandoning(), name="abandon-sweeper"))
        if master.broadcaster.shared:
            self._tasks.append(asyncio.create_task(self._leases(), name="lease-sweeper"))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    async def _resume(self) -> None:
        """Load the games that move alone, a batch at a time, and let their bots and clocks go
        on; one that cannot be loaded is logged and left (it fails again when asked for)."""
        try:
            ids = await self.master.store.moving_alone()
        except Exception:  # the database away: each game goes on when it is next asked for
            log.exception("could not list the games to resume")
            return
        for start in range(0, len(ids), RESUME_BATCH):
            for game_id in ids[start : start + RESUME_BATCH]:
                if self.master.closing:
                    return
                try:
                    live = await self.master.load(game_id)
                except Exception:
                    log.exception("could not resume game %s", game_id)
                    continue
                if live is not None:
                    self.master.look(live)
            await asyncio.sleep(0)  # let requests in between the batches

    async def abandon_idle(self) -> list[str]:
        """Close the games with no person's action for `abandon_after` seconds (the store
        decides, once per game); this process and the others stop them and tell their tables."""
        master = self.master
        if master.abandon_after <= 0:
            return []
        closed = await master.store.abandon(idle_since(master))
        for game_id in closed:
            await close_abandoned(master, game_id, master.now())
            await master.broadcaster.abandoned(game_id)
        if closed:
            log.info("closed %d abandoned games", len(closed))
        return closed

    async def _abandoning(self) -> None:
        every = sweep_every(self.master.abandon_after)
        while not self.master.closing:
            await asyncio.sleep(every)
            try:
                await self.abandon_idle()
            except Exception:  # the database away a moment: the next sweep tries again
                log.exception("the sweep of abandoned games failed")

    async def _leases(self) -> None:
        """Take over the bots and clocks of games whose lease holder stopped renewing it, forget
        the games another process drives and nobody watches here, and, when another process
        has stopped, load the games that move alone (those it drove may be forgotten here)."""
        while not self.master.closing:
            await asyncio.sleep(LEASE_SECONDS / 2)
            await self.sweep_leases()

    async def sweep_leases(self) -> None:
        """One sweep of `_leases` (tests call it directly)."""
        master = self.master
        for live in list(master.games.values()):
            master.look(live)
        self.forget_idle()
        try:
            await self.heal_missed()
        except Exception:  # the database away: tried again at the next sweep
            log.warning("could not look for missed moves", exc_info=True)
        if await master.broadcaster.peers_gone():
            await self._resume()

    async def heal_missed(self) -> int:
        """Catch up the running games held here that are still behind where the store had them
        at the last sweep: a move another process committed whose bus message never came (a
        publish that failed, a message this process could not apply). Such a game would
        otherwise wait for its next move, which the player to move here, never told, would not
        make. Behind at one sweep is normal (a message on its way); behind at two, missed, and
        the game is announced again, in case the holder never heard that this process holds it
        (`Broadcaster.announce`). Answers how many were caught up."""
        master = self.master
        held = [live for live in master.games.values() if live.status == "running"]
        stored = await master.store.seqs([live.id for live in held]) if held else {}
        missed = [live for live in held if self._ahead.get(live.id, 0) > live.seq]
        self._ahead = {
            live.id: stored[live.id] for live in held if stored.get(live.id, 0) > live.seq
        }
        for live in missed:
            log.warning("game %s missed a move made in another process: caught up", live.id)
        await master.catch_up_all(missed)
        for live in missed:  # (its announcement may be what was lost: the holders learn of it)
            await master.broadcaster.announce(live.id)
        return len(missed)

    def forget_idle(self) -> int:
        """Forget the running games this process has no part in now: nobody watches them here,
        nothing of theirs is under way here, and nothing here would move them: another process
        holds their lease (it drives their bots and clocks), or they have neither (only their
        people move them, from wherever they are watched). With two processes, the one that
        stopped driving a game, or made it for people who play it elsewhere, kept it, and every
        move of it, for nothing: a few hundred games' memory, their moves applied again, and
        the other process telling it every move. A forgotten game is loaded again when it is
        asked for, when its holder gives its lease back (`take_over`), or when its holder stops
        (`_leases`). Answers how many were forgotten."""
        master = self.master
        elsewhere = master.broadcaster.held_elsewhere
        idle = [
            live
            for live in master.games.values()
            if live.status == "running"
            and not live.subscribers
            and (elsewhere(live.id) or not seating.moves_alone(live.seats, live.turn_seconds))
            and not master.busy(live)
        ]
        for live in idle:
            master.unload(live.id)
        return len(idle)

    async def take_over(self, game_id: str) -> None:
        """The process driving a game this one does not hold gave its lease back (a graceful
        stop): load it and let the bots and clock go on here."""
        if self.master.broadcaster.shared:
            live = await self.master.load(game_id)
            if live is not None:
                self.master.look(live)


async def close_abandoned(master: GameMaster, game_id: str, when: datetime) -> None:
    """`game_id` was closed as abandoned (here or by another process): if this process holds
    it, it stops (bots, clock), its tables are told the status, and it is forgotten when
    nobody watches it."""
    live = master.games.get(game_id)
    if live is None or live.status == seating.ABANDONED:
        return
    async with live.lock:
        mark_abandoned(live, when)
    master.broadcaster.seats_changed(live)  # the status, with the seats and the state
    master.look(live)
    master.release(live)


def idle_since(master: GameMaster) -> datetime:
    return master.now() - timedelta(seconds=master.abandon_after)
