"""Authoritative games: the one place where intents become events.

For every intent the hub checks the seat, refuses stale or out-of-turn intents, asks the engine,
commits the event to the database, and only then updates the live game and broadcasts the new
state. Each game has a lock (a queue of concurrency one), so two intents never interleave. Bots and
turn clocks act through the same path as people.

Several processes may serve the same games (docs/deploy.md): the database's `seq` check lets only
one of them commit each event, the bus (`server.bus`) tells the others, which apply it to their
copy and tell their own clients, and a process that finds itself behind catches up from the
database before it answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dicepoker.bots import LEVELS, Bot, make_bot
from dicepoker.dice import DiceSource, FixedDice, SecretDice
from dicepoker.engine import (
    FORFEIT,
    Action,
    IllegalActionError,
    NotationError,
    autoplay_action,
    parse_action,
)
from dicepoker.engine import apply as engine_apply
from dicepoker.fair import RECORD_KEY, FairDice, commitment, new_seed, record_entry
from dicepoker.record import Game
from dicepoker.rules import Rules, RulesError, get_rules
from dicepoker.server import protocol
from dicepoker.server.botpool import BotPool
from dicepoker.server.bus import LEASE_MS, Bus, LocalBus
from dicepoker.server.models import GameRow, iso_utc
from dicepoker.server.store import ConflictError, Store, StoredEvent
from dicepoker.view import ViewCache, game_view

log = logging.getLogger("dicepoker.server")

QUEUE_SIZE = 256
LEASE_SECONDS = LEASE_MS / 1000
RESYNC = json.dumps({"type": "resync"})


class Refusal(Exception):
    """An intent or request that is refused: `code` is stable, `message` says why."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RecordingDice:
    """Passes dice through from a real source and remembers them, so they can be stored."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.thrown: list[int] = []

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        out = self.source.roll(count, faces)
        self.thrown.extend(out)
        return out


@dataclass
class LiveGame:
    """A game held in memory: its record wrapper, seats, subscribers, bot and clock tasks."""

    id: str
    rules: Rules
    seats: list[dict[str, Any]]
    status: str
    game: Game
    seq: int
    turn_seconds: int
    created_at: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[asyncio.Queue[str]] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    clock_task: asyncio.Task[None] | None = None
    clock_key: tuple[int, int] | None = None
    deadline: float | None = None
    view_cache: ViewCache = field(default_factory=ViewCache)
    # Fair dice (docs/fair-dice.md): the secret seed never leaves the server before the end.
    dice_seed: str | None = field(default=None, repr=False)
    dice_commitment: str | None = None

    @property
    def state_view(self) -> dict[str, Any]:
        view = game_view(self.game.state, self.view_cache)
        if "turn" in view:
            # Which dice the last roll kept, so a reloaded page can show them held again.
            rolls = self.game.current_rolls
            view["turn"]["kept"] = list(rolls[-1].get("keep", [])) if rolls else []
        return view

    def public_seats(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": n,
                "kind": seat["kind"],
                "name": seat.get("name"),
                "level": seat.get("level"),
                "taken": seat["kind"] == "bot" or seat.get("name") is not None,
            }
            for n, seat in enumerate(self.seats)
        ]

    def clock(self) -> dict[str, Any] | None:
        if self.deadline is None or self.clock_key is None:
            return None
        return {
            "seat": self.clock_key[1],
            "deadline": int(self.deadline * 1000),
            "seconds": self.turn_seconds,
        }

    def fair_dice(self) -> dict[str, str] | None:
        """The public fair-dice entry: the commitment, and the seed once the game is over."""
        if self.dice_commitment is None:
            return None
        over = self.game.state.finished
        return record_entry(self.dice_commitment, self.dice_seed if over else None)

    def sync_fair_dice(self) -> None:
        """Keep the record's `fair_dice` entry in step (the seed is added at the end)."""
        entry = self.fair_dice()
        if entry is not None:
            self.game.extra[RECORD_KEY] = entry

    def meta(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "seats": self.public_seats(),
            "clock": self.clock(),
            "fair_dice": self.fair_dice(),
        }


def _status(seats: list[dict[str, Any]], finished: bool) -> str:
    if finished:
        return "finished"
    if any(seat["kind"] == "human" and seat.get("name") is None for seat in seats):
        return "open"
    return "running"


class Hub:
    """All live games of this process."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.6,
        dice_factory: Callable[[], DiceSource] | None = None,
        bus: Bus | None = None,
        bot_pool: BotPool | None = None,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        # Live games derive their dice from a committed seed; a `dice_factory` (tests) replaces
        # that, and its games carry no commitment. Games older than the seeds use SecretDice.
        self.commit_dice = dice_factory is None
        self.dice: DiceSource = dice_factory() if dice_factory is not None else SecretDice()
        self.bus: Bus = bus or LocalBus()
        self.bot_pool = bot_pool  # None: bots think in a thread of this process
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        # Bus messages that arrived while their game was being loaded from the database.
        self._early: dict[str, list[dict[str, Any]]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._closing = False

    # --- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Load every unfinished game and let its bots and clocks go on."""
        await self.bus.start(self._on_bus, self._catch_up_all)
        for game_id in await self.store.unfinished():
            live = await self.load(game_id)
            if live is not None:
                self._schedule(live)
        if self.bus.shared:
            self._sweeper = asyncio.create_task(self._sweep(), name="lease-sweeper")

    async def close(self) -> None:
        self._closing = True
        tasks = [
            task
            for live in self.games.values()
            for task in (live.bot_task, live.clock_task)
            if task is not None and not task.done()
        ]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.bus.close()
        if self.bot_pool is not None:
            self.bot_pool.close()

    # --- creating and loading --------------------------------------------------------------

    async def create(
        self,
        variant: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        turn_seconds: int | None,
    ) -> tuple[LiveGame, list[str | None]]:
        options = dict(options)
        if variant == "poker-dice":
            # The preset's own clock: the request's turn_seconds, else the option, else 60 online.
            clock = turn_seconds if turn_seconds is not None else options.get("turn_seconds", 60)
            options["turn_seconds"] = clock
        try:
            rules = get_rules(variant, options)
        except RulesError as exc:
            raise Refusal("bad_options", str(exc), 422) from None
        if not rules.min_players <= len(seats) <= rules.max_players:
            raise Refusal(
                "bad_seats",
                f"{variant} is played by {rules.min_players} to {rules.max_players} players",
                422,
            )
        stored_seats: list[dict[str, Any]] = []
        tokens: list[str | None] = []
        for n, seat in enumerate(seats):
            if seat["kind"] == "bot":
                level = seat.get("level") or "greedy"
                if level not in LEVELS:
                    raise Refusal("bad_seats", f"unknown bot level {level!r}", 422)
                name = seat.get("name") or f"{level.capitalize()} {n + 1}"
                stored_seats.append({"kind": "bot", "name": name, "level": level})
                tokens.append(None)
            elif seat.get("name"):
                token = secrets.token_urlsafe(24)
                stored_seats.append(
                    {"kind": "human", "name": seat["name"], "token_hash": hash_token(token)}
                )
                tokens.append(token)
            else:
                stored_seats.append({"kind": "human", "name": None})
                tokens.append(None)
        game_id = secrets.token_urlsafe(8)
        seed = new_seed() if self.commit_dice else None
        clock = rules.turn_seconds if variant == "poker-dice" else int(turn_seconds or 0)
        status = _status(stored_seats, False)
        row = GameRow(
            id=game_id,
            variant=variant,
            options=rules.option_dict,
            seats=stored_seats,
            status=status,
            seq=0,
            turn_seconds=clock,
            dice_seed=seed,
            dice_commitment=commitment(seed) if seed is not None else None,
        )
        await self.store.create_game(row)
        live = self._live_from(row, [])
        self.games[game_id] = live
        self._schedule(live)
        return live, tokens

    def _live_from(self, row: GameRow, events: list[StoredEvent]) -> LiveGame:
        rules = get_rules(row.variant, row.options)
        names = [seat.get("name") or f"Seat {n + 1}" for n, seat in enumerate(row.seats)]
        bots = [seat.get("level") if seat["kind"] == "bot" else None for seat in row.seats]
        game = Game(rules, names, extra={"id": row.id, "bots": bots})
        for stored in events:
            action = parse_action(stored.action)
            game.play(action, FixedDice(stored.thrown or ()), seat=stored.seat, auto=stored.auto)
        live = LiveGame(
            id=row.id,
            rules=rules,
            seats=[dict(seat) for seat in row.seats],
            status=row.status,
            game=game,
            seq=row.seq,
            turn_seconds=row.turn_seconds,
            created_at=iso_utc(row.created_at) or "",
            dice_seed=row.dice_seed,
            dice_commitment=row.dice_commitment,
        )
        live.sync_fair_dice()
        live.bots = {
            n: make_bot(seat["level"]) for n, seat in enumerate(row.seats) if seat["kind"] == "bot"
        }
        return live

    async def load(self, game_id: str) -> LiveGame | None:
        """The live game, loaded from the database (its events replayed) when not in memory."""
        live = self.games.get(game_id)
        if live is not None:
            return live
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.store.game(game_id)
            if row is None:
                return None
            events = await self.store.events(game_id)
            live = self._live_from(row, events)
            self.games[game_id] = live
        if any(m.get("seq", 0) > live.seq for m in self._early.pop(game_id, [])):
            # An event committed after our read was announced before the game was here.
            async with live.lock:
                await self._catch_up(live)
        return live

    async def join(self, live: LiveGame, seat: int | None, name: str) -> tuple[int, str]:
        async with live.lock:
            open_seats = [
                n
                for n, s in enumerate(live.seats)
                if s["kind"] == "human" and s.get("name") is None
            ]
            if not open_seats:
                raise Refusal("no_open_seat", "every seat of this game is taken", 409)
            if seat is None:
                seat = open_seats[0]
            if seat not in open_seats:
                raise Refusal("seat_taken", f"seat {seat + 1} is not open", 409)
            token = secrets.token_urlsafe(24)
            seats = [dict(s) for s in live.seats]
            seats[seat] = {"kind": "human", "name": name, "token_hash": hash_token(token)}
            status = _status(seats, live.game.state.finished)
            if not await self.store.update_seats(live.id, seats, status, live.seats):
                await self._catch_up(live)  # another process seated someone: learn who
                raise Refusal("seat_taken", f"seat {seat + 1} was just taken", 409)
            self._set_seats(live, seats)
        self._broadcast(live, {"type": "seats", **live.meta(), "state": live.state_view})
        await self.bus.publish(live.id, {"kind": "seats"})
        self._schedule(live)
        return seat, token

    def _set_seats(self, live: LiveGame, seats: list[dict[str, Any]]) -> None:
        live.seats = seats
        live.status = _status(seats, live.game.state.finished)
        players = [seat.get("name") or live.game.state.players[n] for n, seat in enumerate(seats)]
        live.game.state = live.game.state._replace(players=tuple(players))

    def seat_of(self, live: LiveGame, token: str) -> int | None:
        """The seat a token belongs to, compared in constant time; None when it matches none."""
        digest = hash_token(token)
        found = None
        for n, seat in enumerate(live.seats):
            stored = seat.get("token_hash")
            if stored and hmac.compare_digest(stored, digest):
                found = n
        return found

    # --- intents ---------------------------------------------------------------------------

    async def act(
        self,
        live: LiveGame,
        seat: int,
        action_text: str,
        expected_seq: int | None = None,
        *,
        auto: bool = False,
    ) -> int:
        """Apply one intent of `seat`; returns the new seq. Raises Refusal, changing nothing."""
        try:
            action = parse_action(action_text)
        except NotationError as exc:
            raise Refusal("bad_move", str(exc)) from None
        async with live.lock:
            return await self._apply(live, seat, action, expected_seq, auto=auto)

    async def _apply(
        self,
        live: LiveGame,
        seat: int,
        action: Action,
        expected_seq: int | None,
        *,
        auto: bool,
    ) -> int:
        if live.status == "open":
            raise Refusal("waiting", "the game starts when every seat is taken")
        if expected_seq is not None and expected_seq != live.seq:
            raise Refusal(
                "stale", f"the game has moved on (seq {live.seq}; your view is at {expected_seq})"
            )
        before = live.game.state
        fair = FairDice(live.dice_seed).for_action(before, action) if live.dice_seed else None
        dice = RecordingDice(fair or self.dice)
        try:
            after = engine_apply(before, action, dice, seat=seat)
        except IllegalActionError as exc:
            raise Refusal(exc.code, exc.reason) from None
        stored = StoredEvent(live.seq + 1, seat, str(action), dice.thrown or None, auto)
        status = _status(live.seats, after.finished)
        try:
            await self.store.append(live.id, live.seq, stored, status)
        except ConflictError:
            # Another process committed first: take its events, then refuse this intent.
            await self._catch_up(live)
            raise Refusal(
                "stale", f"the game has moved on (seq {live.seq}); your intent was not applied"
            ) from None
        # Committed: now the game moves on, and everyone hears of it.
        live.game.advance(action, after, auto=auto)
        told = self._moved(live, stored)
        await self.bus.publish(
            live.id,
            {
                "kind": "event",
                "seq": stored.seq,
                "seat": stored.seat,
                "action": stored.action,
                "thrown": stored.thrown,
                "auto": stored.auto,
                # What our clients were told: the other processes tell theirs the same words
                # instead of building the view again.
                "told": told,
            },
        )
        return stored.seq

    def _moved(self, live: LiveGame, stored: StoredEvent, told: str | None = None) -> str:
        """The game (already advanced) is at event `stored`: tell this process's clients, in
        the words `told` when the process that committed the event sent them (the same event
        message), else in a message built here. Returns the message sent."""
        live.seq = stored.seq
        live.status = _status(live.seats, live.game.state.finished)
        live.sync_fair_dice()
        self._update_clock(live)
        if told is None:
            told = protocol.dumps(
                {
                    "type": "event",
                    "seq": stored.seq,
                    "seat": stored.seat,
                    "action": stored.action,
                    "auto": stored.auto,
                    **live.meta(),
                    "state": live.state_view,
                }
            )
        self._send(live, told)
        self._schedule(live)
        return told

    # --- other processes ---------------------------------------------------------------------

    async def _on_bus(self, game_id: str, message: dict[str, Any]) -> None:
        """Another process committed an event of (or seated someone in) `game_id`."""
        live = self.games.get(game_id)
        if live is None:
            lock = self._loading.get(game_id)
            if lock is not None and lock.locked():
                self._early.setdefault(game_id, []).append(message)
            return
        if message.get("kind") == "released":
            self._schedule(live)  # its bots' driver stopped: take them over now
            return
        async with live.lock:
            if message.get("kind") == "event":
                seq = message.get("seq")
                if not isinstance(seq, int) or seq <= live.seq:
                    return  # already here (we caught up from the database first)
                if seq == live.seq + 1:
                    stored = StoredEvent(
                        seq,
                        int(message["seat"]),
                        str(message["action"]),
                        message.get("thrown"),
                        bool(message.get("auto")),
                    )
                    told = message.get("told")
                    self._replay(live, stored, told if isinstance(told, str) else None)
                    return
            await self._catch_up(live)

    def _replay(self, live: LiveGame, stored: StoredEvent, told: str | None = None) -> None:
        action = parse_action(stored.action)
        dice = FixedDice(stored.thrown or ())
        live.game.play(action, dice, seat=stored.seat, auto=stored.auto)
        self._moved(live, stored, told)

    async def _catch_up(self, live: LiveGame) -> None:
        """Bring the live game to what the database holds (call with the game's lock held)."""
        row = await self.store.game(live.id)
        if row is None:
            return
        if row.seats != live.seats:
            self._set_seats(live, [dict(seat) for seat in row.seats])
            self._broadcast(live, {"type": "seats", **live.meta(), "state": live.state_view})
        for stored in await self.store.events(live.id, after=live.seq):
            self._replay(live, stored)
        self._schedule(live)

    async def _catch_up_all(self) -> None:
        """After the bus was down a while: every game may have missed messages."""
        for live in list(self.games.values()):
            async with live.lock:
                await self._catch_up(live)

    async def _sweep(self) -> None:
        """Take over the bots and clocks of games whose lease holder stopped renewing it."""
        while not self._closing:
            await asyncio.sleep(LEASE_SECONDS / 2)
            for live in list(self.games.values()):
                self._schedule(live)

    async def autoplay(self, live: LiveGame, seat: int) -> None:
        """Play the rest of `seat`'s turn by the preset's auto-play rule (or greedily)."""
        bot = None if live.rules.autoplay else make_bot("greedy")
        turn = live.game.state.turn
        while True:
            state = live.game.state
            if state.finished or state.turn != turn or state.seat != seat:
                return
            action = bot.choose(state) if bot else autoplay_action(state)
            await self.act(live, seat, str(action), auto=True)

    # --- subscribers -----------------------------------------------------------------------

    def subscribe(self, live: LiveGame) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_SIZE)
        live.subscribers.add(queue)
        return queue

    def unsubscribe(self, live: LiveGame, queue: asyncio.Queue[str]) -> None:
        live.subscribers.discard(queue)
        if live.status == "finished" and not live.subscribers:
            self.games.pop(live.id, None)

    def _broadcast(self, live: LiveGame, message: dict[str, Any]) -> None:
        self._send(live, protocol.dumps(message))

    def _send(self, live: LiveGame, text: str) -> None:
        """Queue `text` for every client of the game in this process."""
        for queue in list(live.subscribers):
            try:
                queue.put_nowait(text)
            except asyncio.QueueFull:
                # A client that cannot keep up skips ahead: it is told to ask for a sync.
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(RESYNC)

    # --- bots and clocks -------------------------------------------------------------------

    def _schedule(self, live: LiveGame) -> None:
        """Start the bot loop when a bot is to move; keep the turn clock in step."""
        if self._closing:
            return
        self._update_clock(live)
        state = live.game.state
        if state.finished or live.status != "running":
            return
        if live.seats[state.seat]["kind"] == "bot" and (
            live.bot_task is None or live.bot_task.done()
        ):
            live.bot_task = asyncio.create_task(self._run_bots(live), name=f"bots-{live.id}")

    async def _run_bots(self, live: LiveGame) -> None:
        while True:
            state = live.game.state
            if state.finished or live.status != "running" or self._closing:
                return
            seat = state.seat
            if live.seats[seat]["kind"] != "bot":
                return
            await asyncio.sleep(self.bot_delay)
            if live.game.state is not state:
                continue
            if not await self.bus.claim(live.id):
                return  # another process drives this game's bots
            # In a worker thread, so that a long decision never stalls everyone else's game.
            try:
                if self.bot_pool is not None:
                    level = live.seats[seat]["level"]
                    action = await self.bot_pool.choose(live.id, seat, level, state)
                else:
                    action = await asyncio.to_thread(live.bots[seat].choose, state)
            except Exception:  # a broken bot must not stall the game: play greedily instead
                log.exception("bot %s in game %s failed; greedy plays this action", seat, live.id)
                action = make_bot("greedy").choose(state)
            if live.game.state is not state:
                continue
            try:
                await self.act(live, seat, str(action))
            except Refusal as exc:
                if exc.code == "stale":
                    continue  # another process moved first; we caught up, look again
                log.error("bot %s in game %s refused: %s", seat, live.id, exc.message)
                return

    def _update_clock(self, live: LiveGame) -> None:
        state = live.game.state
        human_turn = (
            not state.finished
            and live.status == "running"
            and live.turn_seconds > 0
            and live.seats[state.seat]["kind"] == "human"
        )
        key = (state.turn, state.seat)
        if not human_turn:
            live.deadline = live.clock_key = None
            if live.clock_task is not None:
                live.clock_task.cancel()
                live.clock_task = None
            return
        if key == live.clock_key:
            return
        if live.clock_task is not None:
            live.clock_task.cancel()
        live.clock_key = key
        live.deadline = time.time() + live.turn_seconds
        if not self._closing:
            live.clock_task = asyncio.create_task(
                self._clock(live, key, live.turn_seconds), name=f"clock-{live.id}"
            )

    async def _clock(self, live: LiveGame, key: tuple[int, int], seconds: float) -> None:
        await asyncio.sleep(seconds)
        state = live.game.state
        if state.finished or (state.turn, state.seat) != key:
            return
        while not await self.bus.claim(live.id):
            # Another process runs this clock; should it die, its lease runs out and we act.
            await asyncio.sleep(LEASE_SECONDS / 2)
            state = live.game.state
            if state.finished or (state.turn, state.seat) != key:
                return
        live.clock_task = None  # this task is ending; acting below sets the next clock
        try:
            if live.rules.timeout_loses and live.rules.turn_seconds > 0:
                await self.act(live, state.seat, str(FORFEIT), auto=True)
            else:
                await self.autoplay(live, state.seat)
        except Refusal as exc:
            log.warning("turn clock in game %s: %s", live.id, exc.message)
