"""A game held in memory by the master: its record, seats, seq, clock and fair dice."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dicepoker.bots import Bot
from dicepoker.dice import DiceSource
from dicepoker.engine import Action, GameState, Roll
from dicepoker.fair import RECORD_KEY, record_entry
from dicepoker.master import seats as seating
from dicepoker.master.assistance import Competition, competition, help_refusal
from dicepoker.master.refusal import Refusal
from dicepoker.master.store import StoredEvent
from dicepoker.protocol import (
    ClockView,
    FairDiceView,
    GameView,
    LastMoveView,
    SeatView,
    ViewChanges,
)
from dicepoker.protocol.messages import PlaysLike
from dicepoker.ratings import pool_of
from dicepoker.record import Game
from dicepoker.rules import Rules
from dicepoker.view import (
    ViewBase,
    ViewCache,
    base_of,
    game_view,
    last_move_view,
    view_base,
    view_changes,
)
from dicepoker.winprob.strength import Strength, levels_of, seat_strengths

#: A seat's last move as the master saw it: the position before it, the move, whether it was
#: auto-played. The view of it (`LastMoveView`) is built when a message first needs it.
Trail = tuple[GameState, Action, bool]


def utcnow() -> datetime:
    return datetime.now(UTC)


def _ends_turn(action: Action) -> bool:
    return not isinstance(action, Roll)


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
    """One game of the master: the `Game` (state and record), its seats, the seq of its last
    event, and what the clock and the subscribers of this process need."""

    id: str
    rules: Rules
    seats: list[dict[str, Any]]
    status: str
    game: Game
    seq: int
    turn_seconds: int
    created_at: str
    # One intent at a time per game: the queue of concurrency one.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[asyncio.Queue[str]] = field(default_factory=set)
    # The subscribers that hold a seat: its number and token (to offer each its seat in a
    # rematch); never stored, never sent to anyone else.
    seated: dict[asyncio.Queue[str], tuple[int, str]] = field(default_factory=dict, repr=False)
    # The subscribers told every event's whole view (`dicepoker.v1`); the others are told what
    # it changed (`dicepoker.v2`).
    whole_views: set[asyncio.Queue[str]] = field(default_factory=set, repr=False)
    # The id of this game's rematch once it is known to exist.
    rematch: str | None = None
    bots: dict[int, Bot] = field(default_factory=dict)
    # The dice of games without a seed (the terminal client's, tests); None: the master's.
    dice: DiceSource | None = None
    # The last event applied (None before the first): what watchers of the game read.
    last: StoredEvent | None = None
    # The turn clock (set by the TurnClock): whose turn it runs for, and when it runs out.
    clock_key: tuple[int, int] | None = None
    deadline: float | None = None
    view_cache: ViewCache = field(default_factory=ViewCache)
    # The seq and parts of the last view built here (`event_view` tells what changed since).
    last_view: tuple[int, ViewBase] | None = field(default=None, repr=False)
    # Fair dice (docs/fair-dice.md): the secret seed never leaves the server before the end.
    dice_seed: str | None = field(default=None, repr=False)
    dice_commitment: str | None = None
    # A seed withheld past the game's end (a daily challenge: others play the same dice until
    # the day is over): revealed only once the game is over and `now()` has reached this.
    reveal_at: datetime | None = None
    now: Callable[[], datetime] = field(default=utcnow, repr=False)
    # Each seat's last move (`note_move`), and the views of them already built.
    trail: dict[int, Trail] = field(default_factory=dict)
    _move_views: dict[int, tuple[Trail, LastMoveView | None]] = field(default_factory=dict)
    # The roller's live selection (`keep` messages): the seq it was sent at and the positions.
    # It is only news while the game is at that seq; after the next event it is forgotten.
    held: tuple[int, tuple[int, ...]] | None = None
    # Asked to be rated (docs/api.md, "Ratings").
    rated: bool = False
    # Whether the expert's help is open to its table (dicepoker.master.assistance).
    assisted: bool = True
    # Each seat's chance of finishing first, and the seq it was judged at (dicepoker.winprob):
    # only news while the game is still at that seq.
    chances: tuple[int, tuple[float, ...]] | None = None
    # Whether the last event came from another process, which judges the chances of the
    # position it led to and tells them (dicepoker.master.chances).
    judged_elsewhere: bool = False

    @property
    def state_view(self) -> GameView:
        # Which dice the last roll kept, so a reloaded page can show them held again, and which
        # the roller holds now (its selection since, else the same).
        rolls = self.game.current_rolls
        kept = list(rolls[-1].get("keep", [])) if rolls else []
        held = list(self.held[1]) if self.held is not None and self.held[0] == self.seq else kept
        view = game_view(
            self.game.state,
            self.view_cache,
            kept=kept,
            held=held,
            last_moves=self._last_moves(),
        )
        self.last_view = (self.seq, view_base(view))
        return view

    def event_view(self) -> tuple[GameView, ViewChanges | None]:
        """The view now, after the event of `seq`, and what that event changed in the view of
        `seq - 1` when this process built that one (None: it did not, or the seats changed
        since; the clients are sent the whole view)."""
        before = self.last_view
        view = self.state_view
        if before is None or before[0] != self.seq - 1:
            return view, None
        return view, view_changes(before[1], view)

    def note_view(self) -> None:
        """Note the view now as the one the clients hold (they were told another process's
        words of the event), so that the next event here tells them what changed."""
        self.last_view = (
            self.seq,
            base_of(self.game.state, self.view_cache, self._last_moves()),
        )

    def _last_moves(self) -> list[LastMoveView | None]:
        return [self.last_move(seat) for seat in range(len(self.game.state.players))]

    def note_move(self, before: GameState, action: Action, auto: bool) -> None:
        """Remember `action`, about to be applied to `before`, if it ends a turn (a roll does
        not: the mark of a seat's last move stays until its next move)."""
        if not _ends_turn(action):
            return
        self.trail[before.seat] = (before, action, auto)

    def last_move(self, seat: int) -> LastMoveView | None:
        """The view of `seat`'s last move (None: none yet)."""
        trail = self.trail.get(seat)
        if trail is None:
            return None
        built = self._move_views.get(seat)
        if built is None or built[0] is not trail:
            built = (trail, last_move_view(trail[0], trail[1], auto=trail[2]))
            self._move_views[seat] = built
        return built[1]

    def public_seats(self) -> list[SeatView]:
        """The seats as everyone sees them, each with the play its chances assume."""
        strengths = self.strengths()
        return [
            SeatView.build(**seat, plays_like=PlaysLike.build(**strength.as_json()))
            for seat, strength in zip(seating.public_seats(self.seats), strengths, strict=True)
        ]

    def is_bot(self, seat: int) -> bool:
        return bool(self.seats[seat]["kind"] == "bot")

    @property
    def state(self) -> GameState:
        return self.game.state

    def bot_to_move(self) -> int | None:
        """The seat of the bot to move now, or None (a person's turn, the game waiting or over)."""
        state = self.game.state
        if state.finished or self.status != "running" or not self.is_bot(state.seat):
            return None
        return state.seat

    def clock(self) -> ClockView | None:
        if self.deadline is None or self.clock_key is None:
            return None
        return ClockView.build(
            seat=self.clock_key[1], deadline=int(self.deadline * 1000), seconds=self.turn_seconds
        )

    def seed_withheld(self) -> bool:
        """Whether the game is over but its seed is still withheld (its `reveal_at` is ahead)."""
        return (
            self.game.state.finished and self.reveal_at is not None and self.now() < self.reveal_at
        )

    def competition(self) -> Competition | None:
        """Why the game is played without the expert's help (the table's badge), or None."""
        return competition(self.assisted, rated=self.rated, daily=self.reveal_at is not None)

    def help_refusal(self) -> Refusal | None:
        """The refusal of the expert's help now (None: open): see dicepoker.master.assistance.
        A game closed as abandoned is over too: nobody plays it again."""
        return help_refusal(
            self.assisted,
            self.game.state.finished or self.status == seating.ABANDONED,
            rated=self.rated,
            reveal_at=self.reveal_at,
            now=self.now(),
        )

    def private_now(self) -> bool:
        """Whether only its own players may read the game now: a daily challenge's game until its
        day is over (others still play the same dice; docs/fair-play.md)."""
        return self.reveal_at is not None and self.now() < self.reveal_at

    def fair_entry(self) -> dict[str, str] | None:
        """The record's fair-dice entry: the commitment, and the seed once the game is over
        (and, for a withheld seed, its time has come)."""
        if self.dice_commitment is None:
            return None
        over = self.game.state.finished and not self.seed_withheld()
        return record_entry(self.dice_commitment, self.dice_seed if over else None)

    def record(self) -> dict[str, Any]:
        """The game's record, its fair-dice entry brought up to now first (a withheld seed is
        added when its time has come, with no move to trigger it)."""
        self.sync_fair_dice()
        return self.game.to_record()

    def fair_dice(self) -> FairDiceView | None:
        """The public fair-dice entry, as the messages carry it."""
        entry = self.fair_entry()
        return None if entry is None else FairDiceView.build(**entry)

    def sync_fair_dice(self) -> None:
        """Keep the record's `fair_dice` entry in step (the seed is added at the end)."""
        entry = self.fair_entry()
        if entry is not None:
            self.game.extra[RECORD_KEY] = entry

    def set_seats(self, seats: list[dict[str, Any]]) -> None:
        """New seats (someone joined): the status and the players' names follow."""
        self.seats = seats
        self.last_view = None  # the names may change: the next event tells the whole view
        if self.status != seating.ABANDONED:  # closed for good, whatever its seats
            self.status = seating.status_of(seats, self.game.state.finished)
        state = self.game.state
        players = [seat.get("name") or state.players[n] for n, seat in enumerate(seats)]
        self.game.state = state._replace(players=tuple(players))

    def meta(self, *, chances: bool = True) -> dict[str, Any]:
        """What every message with a `status` carries besides the view; `chances`: the position's
        win probability too, when it is known (a snapshot's; an event's come after it, in a
        `chances` message of their own)."""
        out: dict[str, Any] = {
            "status": self.status,
            "seats": self.public_seats(),
            "clock": self.clock(),
            "fair_dice": self.fair_dice(),
        }
        judged = self.win_probability() if chances else None
        if judged is not None:
            out["win_probability"] = judged
        return out

    def win_probability(self) -> list[float] | None:
        """Each seat's chance of finishing first at this seq, when it was judged (games with
        rivals, where the server judges them)."""
        if self.chances is None or self.chances[0] != self.seq:
            return None
        return list(self.chances[1])

    def strengths(self) -> list[Strength]:
        """The level each seat is judged to play at: a bot's own, a person's from the judgement
        the server stored on the seat (their rating in the game's pool), else a newcomer's."""
        return seat_strengths(pool_of(self.game.state.rules), self.seats)

    def levels(self) -> tuple[str | None, ...]:
        """The level each seat is judged to play at, for the win probability and the analysis."""
        return levels_of(self.strengths())
