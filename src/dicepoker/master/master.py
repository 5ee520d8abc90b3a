"""The game master: the one place where intents become events.

For every intent the master refuses it while the game waits for players or is over, refuses a
stale `seq`, checks the seat, asks the engine, commits the event through the store, and only
then updates the live game and hands the event to the broadcaster (boardgame.io's `Master`).
Each game has a lock (a queue of concurrency one), so two intents never interleave. Bots, turn
clocks and auto-play act through the same path as people, each intent with the seq it was
chosen at.

Several processes may serve the same games: the store's `seq` check lets only one of them
commit each event, the bus tells the others (`follow`), which apply it to their copy and tell
their own clients, and a process that finds itself behind catches up from the store first.
A move's path ends at its broadcast: commit, then tell. Everything derived from a game is a
watcher (`watch`: the bot driver, the turn clock, the live chances, a local session) that looks
at the game after each change has been told, and works off the move's path. Games are loaded
when first asked for, and closed when nobody plays them any more (dicepoker.master.loading).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from dicepoker.dice import DiceSource, FixedDice, SecretDice
from dicepoker.engine import (
    Action,
    Forfeit,
    IllegalActionError,
    NotationError,
    parse_action,
    reason_key,
)
from dicepoker.engine import apply as engine_apply
from dicepoker.fair import FairDice, commitment, new_seed
from dicepoker.master import events
from dicepoker.master import seats as seating
from dicepoker.master.assistance import decide
from dicepoker.master.botloop import auto_chooser
from dicepoker.master.broadcast import Broadcaster
from dicepoker.master.events import BusMessage
from dicepoker.master.live import LiveGame, RecordingDice, utcnow
from dicepoker.master.loading import Readers, Upkeep, close_abandoned, live_from, mark_abandoned
from dicepoker.master.newgame import rules_with_clock
from dicepoker.master.refusal import Refusal, abandoned_refusal, waiting
from dicepoker.master.rematch import rematch_id, rematch_seats
from dicepoker.master.store import ConflictError, Store, StoredEvent, StoredGame
from dicepoker.master.watcher import Watcher
from dicepoker.protocol import ReactionId
from dicepoker.rules import Rules

log = logging.getLogger("dicepoker.master")


class GameMaster:
    """Every live game of this process, and the intents that move them."""

    def __init__(
        self,
        store: Store,
        broadcaster: Broadcaster | None = None,
        *,
        dice: DiceSource | None = None,
        now: Callable[[], datetime] = utcnow,
        abandon_after: float = 0.0,
    ) -> None:
        self.store = store
        # Seconds without a person's action after which a game is closed (0: never).
        self.abandon_after = abandon_after
        self.now = now  # the time that withheld seeds are revealed by (injected by tests)
        self.broadcaster = broadcaster or Broadcaster()
        # Games derive their dice from a committed seed; a `dice` source (tests) replaces that,
        # and its games carry no commitment. Games older than the seeds use SecretDice.
        self.commit_dice = dice is None
        self.dice: DiceSource = dice or SecretDice()
        self.games: dict[str, LiveGame] = {}
        self._watchers: list[Watcher] = []
        self._loading = Readers()
        # Bus messages that arrived while their game was being loaded from the store.
        self._early: dict[str, list[BusMessage]] = {}
        self.upkeep = Upkeep(self)
        self.closing = False

    def watch(self, watcher: Watcher) -> None:
        self._watchers.append(watcher)

    # --- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Close the games nobody played for too long; then, in the background, let the games
        that move alone go on (dicepoker.master.loading). Every other game is loaded when it
        is first asked for."""
        await self.broadcaster.start(self.follow, self._reconnected)
        await self.upkeep.abandon_idle()
        self.upkeep.start()

    async def close(self) -> None:
        self.closing = True
        await self.upkeep.close()
        for watcher in self._watchers:
            await watcher.close()
        await self.broadcaster.close()

    async def _reconnected(self) -> None:
        """The bus was away a while: announce every game held here again (announcements and
        answers may have been lost both ways), then catch up from the store."""
        for game_id in list(self.games):
            await self.broadcaster.announce(game_id)
        await self.catch_up_all()

    def look(self, live: LiveGame) -> None:
        """Let every watcher look at the game (its bots, its clock)."""
        if self.closing:
            return
        for watcher in self._watchers:
            watcher.look(live)

    # --- creating and loading --------------------------------------------------------------

    async def create(
        self,
        variant: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        turn_seconds: int | None,
        *,
        rated: bool = False,
        assisted: bool | None = None,
        dice_seed: str | None = None,
        reveal_at: datetime | None = None,
        save: Callable[[StoredGame], Awaitable[None]] | None = None,
    ) -> tuple[LiveGame, list[str | None]]:
        """A new game; returns it and each seat's token (None for bots and open seats).

        A daily challenge gives its day's `dice_seed` (the same dice for every game of the day),
        the time its seed may be revealed (`reveal_at`, the day's end) and how to store the game
        (`save`: with its link to the day, in one transaction; what it raises is raised here and
        nothing is kept). `assisted`: whether the expert's help is open to the table, as its creator
        asks (None: the default rule of dicepoker.master.assistance)."""
        rules, clock = rules_with_clock(variant, options, turn_seconds, rated=rated)
        if not rules.min_players <= len(seats) <= rules.max_players:
            raise Refusal(
                "bad_seats",
                f"{variant} is played by {rules.min_players} to {rules.max_players} players",
            )
        stored_seats, tokens = seating.seat_requests(seats)
        daily = reveal_at is not None
        live = await self._start_game(
            secrets.token_urlsafe(8),
            rules,
            stored_seats,
            clock,
            rated=rated,
            assisted=decide(stored_seats, rated=rated, daily=daily, asked=assisted),
            seed=dice_seed,
            reveal_at=reveal_at,
            save=save,
        )
        return live, tokens

    async def _start_game(
        self,
        game_id: str,
        rules: Rules,
        seats: list[dict[str, Any]],
        clock: int,
        *,
        rated: bool = False,
        assisted: bool = True,
        seed: str | None = None,
        reveal_at: datetime | None = None,
        save: Callable[[StoredGame], Awaitable[None]] | None = None,
    ) -> LiveGame:
        """Store a new game of these rules and seats (ConflictError: the id is taken) and hold
        it live; its watchers look at it. Its dice come from `seed`, else a fresh one."""
        if seed is None and self.commit_dice:
            seed = new_seed()
        stored = StoredGame(
            id=game_id,
            variant=rules.variant,
            options=rules.option_dict,
            seats=seats,
            status=seating.status_of(seats, False),
            turn_seconds=clock,
            dice_seed=seed,
            dice_commitment=commitment(seed) if seed is not None else None,
            reveal_at=reveal_at,
            created_at=datetime.now(UTC),
            rated=rated,
            assisted=assisted,
        )
        await (save or self.store.create_game)(stored)
        live = live_from(stored, [], self.now)
        self.games[live.id] = live
        self.broadcaster.hold(live.id)
        self.look(live)
        return live

    async def rematch(self, live: LiveGame) -> tuple[LiveGame, bool]:
        """The rematch of a finished game (dicepoker.master.rematch): made the first time it is
        asked for, found every later time (here or in another process); returns it and whether
        this call made it. Every connection of the finished game is offered it."""
        if not live.game.state.finished:
            raise Refusal("not_finished", "a rematch is made when the game is over")
        if live.reveal_at is not None:
            raise Refusal(
                "daily_played", "a daily challenge has no rematch: it is played once a day"
            )
        game_id = rematch_id(live.id)
        async with live.lock:
            found = await self.load(game_id)
            if found is not None:
                live.rematch = game_id
                return found, False
            seats = rematch_seats(live.seats)
            try:
                made = await self._start_game(
                    game_id,
                    live.rules,
                    seats,
                    live.turn_seconds,
                    rated=live.rated,
                    assisted=live.assisted,
                )
            except ConflictError:
                # Another process made it a moment ago.
                again = await self.load(game_id)
                if again is None:
                    raise
                live.rematch = game_id
                return again, False
        await self.broadcaster.rematch(live, game_id)
        return made, True

    async def known_rematch(self, live: LiveGame) -> str | None:
        """The id of the finished game's rematch if it exists (a connection that arrives after
        it was made is offered it too)."""
        if live.rematch is None and live.game.state.finished:
            game_id = rematch_id(live.id)
            if await self.store.game(game_id) is not None:
                live.rematch = game_id
        return live.rematch

    async def react(self, live: LiveGame, seat: int, reaction: ReactionId) -> None:
        """A seated player's quick reaction (the caller checks the seat and the rate): for the
        table only, never part of the game or its record."""
        if live.status == seating.ABANDONED:
            raise abandoned_refusal()
        await self.broadcaster.reaction(live, seat, reaction)

    async def load(self, game_id: str) -> LiveGame | None:
        """The live game, loaded from the store (its events replayed) when not in memory."""
        live = self.games.get(game_id)
        if live is not None:
            return live
        try:
            async with self._loading.one(game_id):
                live = self.games.get(game_id)
                if live is not None:
                    return live
                # Said before the store is read: a move another process commits after the read
                # is then told here, or its seq comes with that process's answer.
                await self.broadcaster.announce(game_id)
                row = await self.store.game(game_id)
                if row is None:
                    return None
                events = await self.store.events(game_id)
                live = self.games[game_id] = live_from(row, events, self.now)
        finally:
            if game_id not in self.games and not self._loading.busy(game_id):
                self._early.pop(game_id, None)  # not found, or not read: nothing to apply them to
                self.broadcaster.forget(game_id)
        if any(_seq_of(m) > live.seq for m in self._early.pop(game_id, [])):
            # An event committed after our read was announced before the game was here.
            async with live.lock:
                await self._catch_up(live)  # (after which its watchers look at it)
        elif not live.game.state.finished:
            # Its chances; its bots and clock if nobody drives them (a finished game's watchers
            # looked at it when it ended, wherever that was).
            self.look(live)
        return live

    def release(self, live: LiveGame) -> None:
        """Forget a finished or abandoned game nobody here watches any more (it stays in the
        store)."""
        if live.status in ("finished", seating.ABANDONED) and not live.subscribers:
            self.unload(live.id)

    def unload(self, game_id: str) -> None:
        """Forget a game here (it stays in the store, and is loaded again when asked for): the
        other processes stop telling this one its news once they hear that it dropped it."""
        self.games.pop(game_id, None)
        self.broadcaster.forget(game_id)

    def busy(self, live: LiveGame) -> bool:
        """Whether an intent (its lock), its loading or a watcher's work is under way here."""
        if live.lock.locked() or self._loading.busy(live.id):
            return True
        return any(watcher.holds(live.id) for watcher in self._watchers)

    # --- seats -----------------------------------------------------------------------------

    async def join(
        self,
        live: LiveGame,
        seat: int | None,
        name: str,
        account: int | None = None,
        strength: dict[str, Any] | None = None,
    ) -> tuple[int, str]:
        """Take an open seat (the first one when `seat` is None), under `account` when a
        logged-in player takes it (one seat per account a game); returns it and its token."""
        async with live.lock:
            if live.status == seating.ABANDONED:
                raise abandoned_refusal()
            if account is not None and account in seating.accounts_of(live.seats).values():
                raise Refusal("already_seated", "your account has a seat of this game already")
            free = seating.open_seats(live.seats)
            if not free:
                raise Refusal("no_open_seat", "every seat of this game is taken")
            if seat is None:
                seat = free[0]
            if seat not in free:
                raise Refusal("seat_taken", f"seat {seat + 1} is not open")
            token, digest = seating.new_token()
            seats = [dict(s) for s in live.seats]
            seats[seat] = {"kind": "human", "name": name, "token_hash": digest}
            if account is not None:
                seats[seat]["account"] = account
            if strength is not None:
                seats[seat]["strength"] = strength
            status = seating.status_of(seats, live.game.state.finished)
            if not await self.store.update_seats(live.id, seats, status, live.seats):
                await self._catch_up(live)  # another process seated someone: learn who
                if live.status == seating.ABANDONED:
                    raise abandoned_refusal()
                raise Refusal("seat_taken", f"seat {seat + 1} was just taken")
            live.set_seats(seats)
        await self.broadcaster.seated(live)
        self.look(live)
        return seat, token

    async def seats_stored(self, game_ids: list[str]) -> None:
        """Seats were changed in the store, not by a master (a deleted account's renamed): this
        process and every other read them again."""
        for game_id in game_ids:
            live = self.games.get(game_id)
            if live is not None:
                async with live.lock:
                    await self._catch_up(live)
            await self.broadcaster.seats_stored(game_id)

    def seat_of(self, live: LiveGame, token: str) -> int | None:
        """The seat a token belongs to; None when it matches none."""
        return seating.seat_of(live.seats, token)

    # --- intents ---------------------------------------------------------------------------

    async def act(
        self,
        live: LiveGame,
        seat: int,
        action: Action | str,
        expected_seq: int | None = None,
        *,
        auto: bool = False,
        person: bool | None = None,
    ) -> int:
        """Apply one intent of `seat`; returns the new seq. Raises Refusal, changing nothing.

        `expected_seq` is the seq the intent was chosen at: if the game has moved on since, the
        intent is refused as `stale` (None: whatever the position is now). `person`: the
        intent is a person's own (what keeps a game from being abandoned); None: a person's
        seat's intent that is not auto-played.
        """
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except NotationError as exc:
                raise Refusal("bad_move", str(exc)) from None
        if isinstance(action, Forfeit) and not auto:
            # A forfeit is the turn clock's verdict (time ran out, or a player is absent), never
            # a player's own move: the record says why a seat lost, and no one says it for them.
            raise Refusal("illegal", "a forfeit is the turn clock's, not a move of a player")
        if person is None:
            person = not auto and not live.is_bot(seat)
        async with live.lock:
            return await self._apply(live, seat, action, expected_seq, auto=auto, person=person)

    def expired(self, live: LiveGame) -> Refusal | None:
        """A refusal when the game's withheld seed may be revealed already though the game is
        not over (a daily game after its day: everyone may know its dice now), else None."""
        if live.reveal_at is None or live.game.state.finished or self.now() < live.reveal_at:
            return None
        return Refusal("day_over", "the day of this daily challenge is over: it can't be played")

    async def _apply(
        self,
        live: LiveGame,
        seat: int,
        action: Action,
        expected_seq: int | None,
        *,
        auto: bool,
        person: bool,
    ) -> int:
        if live.status == seating.ABANDONED:
            raise abandoned_refusal()
        if live.status == "open":
            raise waiting()
        late = self.expired(live)
        if late is not None:
            raise late
        if expected_seq is not None and expected_seq != live.seq:
            raise Refusal(
                "stale", f"the game has moved on (seq {live.seq}; your view is at {expected_seq})"
            )
        before = live.game.state
        fair = FairDice(live.dice_seed).for_action(before, action) if live.dice_seed else None
        dice = RecordingDice(fair or live.dice or self.dice)
        try:
            after = engine_apply(before, action, dice, seat=seat)
        except IllegalActionError as exc:
            said = reason_key(exc.reason)  # why, as data, for the player's language
            extra = {} if said is None else {"reason": said[0], "params": dict(said[1])}
            raise Refusal(exc.code, exc.reason, **extra) from None
        stored = StoredEvent(live.seq + 1, seat, str(action), dice.thrown or None, auto)
        status = seating.status_of(live.seats, after.finished)
        try:
            await self.store.append(live.id, live.seq, stored, status, person=person)
        except ConflictError:
            # Another process committed first: take its events, then refuse this intent. A
            # game deleted meanwhile (`dicepoker admin delete-game`) is over: forgotten here,
            # its bots and clocks stop, and nothing of it is written again.
            if not await self._catch_up(live):
                self.unload(live.id)
                raise Refusal("game_over", "this game was deleted") from None
            if live.status == seating.ABANDONED:
                raise abandoned_refusal() from None
            raise Refusal(
                "stale", f"the game has moved on (seq {live.seq}); your intent was not applied"
            ) from None
        # Committed: now the game moves on, everyone hears of it, and then its watchers look.
        live.note_move(before, action, auto)
        live.game.advance(action, after, auto=auto)
        self._moved(live, stored, status)
        await self.broadcaster.committed(live, stored)
        self.look(live)
        current = self.games.get(live.id)
        if current is not None and current is not live:  # forgotten meanwhile, loaded again:
            async with current.lock:  # that copy reads it (our bus message comes back unread)
                await self._catch_up(current)
        return stored.seq

    def _moved(
        self, live: LiveGame, stored: StoredEvent, status: str | None = None, *, here: bool = True
    ) -> None:
        """The game (already advanced) is at event `stored`, committed by this process (`here`)
        or another (whose chances watcher judges its position, and tells it)."""
        live.seq = stored.seq
        live.last = stored
        live.judged_elsewhere = not here
        live.status = status or seating.status_of(live.seats, live.game.state.finished)
        if live.dice_commitment is not None:
            live.sync_fair_dice()

    async def auto(self, live: LiveGame, seat: int, *, person: bool = False) -> None:
        """Play the rest of `seat`'s turn by the variant's auto-play rule (else greedily);
        `person`: the player asked for it (else the turn clock).

        Refused as any intent is when the seat may not act now (`waiting`, `game_over`,
        `not_your_turn`). Each action is chosen on the state at a seq and sent with that seq;
        when the game moved meanwhile (the player's own intent came first), the action is
        chosen again on the new state, so auto-play never undoes what the player did.
        """
        choose = auto_chooser(live.rules)
        turn: int | None = None
        while True:
            state, seq = live.game.state, live.seq
            if turn is None:
                refusal = seating.turn_refusal(live, seat)
                if refusal is not None:
                    raise refusal
                turn = state.turn
            elif state.finished or state.turn != turn or state.seat != seat:
                return
            try:
                await self.act(live, seat, choose(state), seq, auto=True, person=person)
            except Refusal as exc:
                if exc.code != "stale":
                    raise

    async def hold(self, live: LiveGame, seat: int, seq: int, positions: list[int]) -> None:
        """The roller's selection of dice to keep for its next roll, shown to the whole table
        (`held`): not a move, never stored. Refused, changing nothing, unless `seat` is to move
        (`waiting`, `game_over`, `not_your_turn`), the game is still at `seq` (`stale`), the
        turn has a roll to come after one already made (`bad_roll`) and the positions are
        distinct dice of the rules (`bad_move`)."""
        refusal = seating.turn_refusal(live, seat) or self.expired(live)
        if refusal is not None:
            raise refusal
        if seq != live.seq:
            raise Refusal("stale", f"the game has moved on (seq {live.seq}; your view is at {seq})")
        state = live.game.state
        if not 0 < state.rolls < live.rules.rolls_per_turn:
            raise Refusal("bad_roll", "no dice to hold now: roll first, or the rolls are over")
        dice = live.rules.dice
        if len(set(positions)) != len(positions) or any(not 0 <= p < dice for p in positions):
            raise Refusal(
                "bad_move", f"hold distinct positions of the {dice} dice (0 to {dice - 1})"
            )
        live.held = (seq, tuple(sorted(positions)))
        await self.broadcaster.held(live)

    async def events_after(self, live: LiveGame, seq: int) -> list[StoredEvent]:
        """The committed events of the game after `seq` (what a reconnecting client missed)."""
        return await self.store.events(live.id, after=seq)

    # --- other processes ---------------------------------------------------------------------

    async def follow(self, game_id: str, message: BusMessage) -> None:
        """Another process told news of `game_id` (`dicepoker.master.events`): an event it
        committed, seats, a hold, chances, a rematch, a reaction, a closed game or a lease."""
        live = self.games.get(game_id)
        answer = self.broadcaster.heard(game_id, message)
        if answer is not None:
            await self.broadcaster.answer(game_id, answer, None if live is None else live.seq)
        if isinstance(message, events.Dropped):
            return
        if live is None:
            if self._loading.reading(game_id):
                self._early.setdefault(game_id, []).append(message)
            elif isinstance(message, events.Released):  # a game forgotten here goes on here
                await self.upkeep.take_over(game_id)
            return
        match message:
            case events.Holding(seq=seq) if seq is None or seq <= live.seq:
                return  # (an announcement, answered above; or a holder no further on)
            case events.Abandoned():
                await close_abandoned(self, game_id, self.now())
            case events.Released():
                self.look(live)  # its bots' driver stopped: take them over now
            case events.Reaction(told=told):
                if live.subscribers:
                    self.broadcaster.send(live, told)
            case events.Rematch(game=made):
                if made == rematch_id(live.id):
                    self.broadcaster.offer_rematch(live, made)
            case events.Held():
                self.broadcaster.followed_hold(live, message)
            case events.Chances():
                self.broadcaster.followed_chances(live, message)
            case events.Committed():
                async with live.lock:
                    if message.seq <= live.seq:
                        return  # already here (we caught up from the store first)
                    if message.seq == live.seq + 1:
                        stored = StoredEvent(
                            message.seq, message.seat, message.action, message.thrown, message.auto
                        )
                        self._replay(live, stored, message.told, here=False)
                        self.look(live)
                        return
                    await self._follow_store(live)
            case _:  # seats changed, or a holder further on: the store says what changed
                async with live.lock:
                    await self._follow_store(live)

    async def _follow_store(self, live: LiveGame) -> None:
        """Catch up from the store (the game's lock held); forget a game deleted there
        (`dicepoker admin delete-game`)."""
        if not await self._catch_up(live):
            self.unload(live.id)

    def _replay(
        self, live: LiveGame, stored: StoredEvent, told: str | None = None, *, here: bool = True
    ) -> None:
        """Apply an event another process committed, and tell our subscribers; `here`: whether
        this process judges its position (not when its committer, which does, tells us)."""
        action = parse_action(stored.action)
        dice = FixedDice(stored.thrown or ())
        live.note_move(live.game.state, action, stored.auto)
        live.game.play(action, dice, seat=stored.seat, auto=stored.auto)
        self._moved(live, stored, here=here)
        self.broadcaster.followed(live, stored, told)

    async def _catch_up(self, live: LiveGame) -> bool:
        """Bring the game to what the store holds (its lock held); False: deleted there."""
        row = await self.store.game(live.id)
        if row is None:
            return False
        if row.status == seating.ABANDONED and live.status != seating.ABANDONED:
            # Closed by another process whose news did not reach this one.
            mark_abandoned(live, row.updated_at or self.now())
            self.broadcaster.seats_changed(live)
        if row.seats != live.seats:
            live.set_seats([dict(seat) for seat in row.seats])
            self.broadcaster.seats_changed(live)
        for stored in await self.store.events(live.id, after=live.seq):
            self._replay(live, stored)
        self.look(live)
        return True

    async def catch_up_all(self, games: Sequence[LiveGame] | None = None) -> None:
        """Bring `games` (every game held here by default) to what the store holds: after the
        bus was down a while, or for games that missed a move another process made."""
        for live in list(self.games.values()) if games is None else games:
            async with live.lock:
                await self._catch_up(live)


def _seq_of(message: BusMessage) -> int:
    """The seq a message says its sender's game is at (0: it does not say)."""
    if isinstance(message, events.Committed | events.Holding | events.Held | events.Chances):
        return message.seq or 0
    return 0
