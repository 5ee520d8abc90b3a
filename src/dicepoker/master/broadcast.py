"""The broadcaster: tells this process's subscribers of a game, and the other processes.

Subscribers are queues of JSON text (one per WebSocket connection); an event tells each what it
changed in the view (`dicepoker.v2`) or the whole view (`dicepoker.v1`). A subscriber that cannot
keep up skips ahead: what it has not read is replaced by `resync`, and it asks for a sync. The
other processes that hold the game hear of every committed event over the bus
(`dicepoker.master.bus`), with the words this process's clients were told, so that they tell
theirs the same without building the message again; what they do with it is the master's
business (`GameMaster.follow`).

A game's news goes on the bus only while another process holds the game too. A process says so
when it loads a game (`announce`, before it reads the store), and those that hold the game
answer with where they are; one that hears news of a game it does not hold answers that it
dropped it (`heard`). With a proxy that sends every socket of a game to one process, most games
are held by that process alone, and their moves wake no other process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from dicepoker.master import events, messages
from dicepoker.master.bus import Bus, Handler, LocalBus
from dicepoker.master.events import BusMessage
from dicepoker.master.live import LiveGame
from dicepoker.master.store import StoredEvent
from dicepoker.protocol import ReactionId

QUEUE_SIZE = 256
#: The bus messages only a process that holds the game sends (to the others holding it).
HOLDERS_NEWS = (events.Committed, events.Held, events.Chances, events.Reaction, events.Rematch)


class Broadcaster:
    """Fan-out of one process's games: to local subscribers, and over `bus` to the others."""

    def __init__(self, bus: Bus | None = None) -> None:
        self.bus: Bus = bus or LocalBus()
        # The games this process holds (on a shared bus), each with the other processes known
        # to hold it too: what their announcements, answers and news said.
        self._holders: dict[str, set[str]] = {}

    @property
    def shared(self) -> bool:
        """Whether other processes serve the same games (leases and catch-up matter)."""
        return self.bus.shared

    async def start(self, handler: Handler, on_reconnect: Callable[[], Awaitable[None]]) -> None:
        await self.bus.start(handler, on_reconnect)

    async def close(self) -> None:
        await self.bus.close()

    async def claim(self, game_id: str) -> bool:
        """Whether this process drives the game's bots and clock now (its lease)."""
        return await self.bus.claim(game_id)

    def held_elsewhere(self, game_id: str) -> bool:
        """Whether another process surely drives the game's bots and clock now (its lease, as
        this process last heard of it): nothing to start here."""
        return self.bus.held_elsewhere(game_id)

    async def peers_gone(self) -> bool:
        """Whether another process serving these games stopped since the last call. The games
        it held with this process are this one's alone again: their news stops going on the bus
        for a process that is no longer there (it would otherwise go on until each game is
        forgotten here)."""
        gone = await self.bus.peers_gone()
        if gone:
            for others in self._holders.values():
                others -= gone
        return bool(gone)

    # --- who else holds a game ---------------------------------------------------------------

    def hold(self, game_id: str) -> None:
        """This process made the game: no other process holds it yet."""
        if self.bus.shared:
            self._holders.setdefault(game_id, set())

    async def announce(self, game_id: str) -> None:
        """This process is loading the game (said before it reads the store): the processes
        that hold it answer with where they are, and tell this one its news from now on."""
        if self.bus.shared:
            self.hold(game_id)
            await self.bus.publish(game_id, events.Holding())

    def forget(self, game_id: str) -> None:
        """This process no longer holds the game (the others learn it at their next news)."""
        self._holders.pop(game_id, None)

    def alone(self, game_id: str) -> bool:
        """Whether this process holds the game and no other process is known to: its news
        goes to nobody else. A game not held here is never alone (its news may matter to any)."""
        if not self.bus.shared:
            return True
        others = self._holders.get(game_id)
        return others is not None and not others

    def heard(
        self, game_id: str, message: BusMessage
    ) -> type[events.Holding | events.Dropped] | None:
        """Note what another process's `message` says of who holds `game_id`, and answer the
        kind of message to send back: `Holding` (to an announcement, or to news from a holder
        not known till now: it may have made moves while it did not know of this process),
        `Dropped` (news of a game not held here: its sender stops sending it), or None."""
        origin = message.origin
        if not origin:
            return None
        others = self._holders.get(game_id)
        if isinstance(message, events.Dropped):
            if others is not None:
                others.discard(origin)
            return None
        if isinstance(message, events.Holding):
            if others is None:
                return None  # an announcement: for the processes that hold the game to answer
            others.add(origin)
            return None if message.reply else events.Holding
        if not isinstance(message, HOLDERS_NEWS):
            return None  # (a released lease, a closed game: sent by any process, to all)
        if others is None:
            return events.Dropped
        new = origin not in others
        others.add(origin)
        return events.Holding if new else None

    async def answer(
        self, game_id: str, kind: type[events.Holding | events.Dropped], seq: int | None
    ) -> None:
        """Send back what `heard` said to: `Holding` with the game's `seq` here (None: still
        loading it), so that a process behind it catches up, or `Dropped`."""
        if kind is events.Holding:
            await self.bus.publish(game_id, events.Holding(reply=True, seq=seq))
        else:
            await self.bus.publish(game_id, events.Dropped())

    async def _tell(self, game_id: str, message: BusMessage) -> None:
        """Publish news of a game to the other processes that hold it, if any may."""
        if not self.alone(game_id):
            await self.bus.publish(game_id, message)

    # --- this process's subscribers ----------------------------------------------------------

    def subscribe(
        self,
        live: LiveGame,
        seat: tuple[int, str] | None = None,
        *,
        whole: bool = False,
        queue: asyncio.Queue[str] | None = None,
    ) -> asyncio.Queue[str]:
        """A new subscriber; `seat`: the seat and token its connection holds, if any; `whole`:
        told each event's whole view (`dicepoker.v1`) rather than what it changed; `queue`:
        where its messages go (by default a new queue of QUEUE_SIZE; a web socket's sends
        them at once when it can: dicepoker.server.http.outbox)."""
        queue = asyncio.Queue(QUEUE_SIZE) if queue is None else queue
        live.subscribers.add(queue)
        if seat is not None:
            live.seated[queue] = seat
        if whole:
            live.whole_views.add(queue)
        return queue

    def unsubscribe(self, live: LiveGame, queue: asyncio.Queue[str]) -> None:
        live.subscribers.discard(queue)
        live.seated.pop(queue, None)
        live.whole_views.discard(queue)

    def send(self, live: LiveGame, text: str) -> None:
        """Queue `text` for every subscriber of the game in this process."""
        for queue in list(live.subscribers):
            _put(queue, text)

    def _send_event(self, live: LiveGame, told: str, whole: str | None) -> None:
        """Queue an event: `told` (what it changed) or, for the subscribers of `dicepoker.v1`,
        `whole` (the whole view)."""
        if whole is None:
            self.send(live, told)
            return
        for queue in list(live.subscribers):
            _put(queue, whole if queue in live.whole_views else told)

    # --- what happened -----------------------------------------------------------------------

    async def committed(self, live: LiveGame, stored: StoredEvent) -> None:
        """This process committed `stored` (the game is at it): tell everyone."""
        told: str | None = None
        if live.subscribers:
            told, whole = messages.event_words(live, stored, bool(live.whole_views))
            self._send_event(live, told, whole)
        if self.alone(live.id):
            return  # no other process holds the game: nobody else to tell
        # `told`: what our clients were told; the other processes tell theirs the same words
        # instead of building the view again. With nobody here (a bot's move, driven here, in a
        # game watched elsewhere) the view is built where it is watched: not here, and not kept
        # here for the next event (a view kept is tens of KiB a game).
        await self.bus.publish(
            live.id,
            events.Committed(
                seq=stored.seq,
                seat=stored.seat,
                action=stored.action,
                thrown=stored.thrown,
                auto=stored.auto,
                told=told,
            ),
        )

    def followed(self, live: LiveGame, stored: StoredEvent, told: str | None) -> None:
        """Another process committed `stored` (the game is at it now): tell our subscribers, in
        the words of the committing process when it sent them."""
        if not live.subscribers:
            return
        if told is None:
            self._send_event(live, *messages.event_words(live, stored, bool(live.whole_views)))
            return
        # Its words tell what changed since the view our clients hold: note that view as ours
        # too (its sheets, not its turn), so that our next event tells them what changed.
        whole = messages.event(live, stored).to_json() if live.whole_views else None
        if whole is None:
            live.note_view()
        self._send_event(live, told, whole)

    async def held(self, live: LiveGame) -> None:
        """The roller changed the dice they hold (`live.held`): tell everyone at the table,
        here and in the other processes (not stored: the next event makes it old news)."""
        if live.held is None:
            return
        seq, positions = live.held
        told = messages.held(live).to_json()
        if live.subscribers:
            self.send(live, told)
        await self._tell(
            live.id, events.Held(seq=seq, seat=live.state.seat, held=positions, told=told)
        )

    async def chances(self, live: LiveGame) -> None:
        """The chances of the position the game is at were judged (`live.chances`, after its
        event was told): tell everyone at the table, here and in the other processes."""
        message = messages.chances(live)
        if message is None:
            return
        told = message.to_json()
        if live.subscribers:
            self.send(live, told)
        await self._tell(
            live.id,
            events.Chances(seq=live.seq, chances=tuple(message.win_probability), told=told),
        )

    def followed_chances(self, live: LiveGame, message: events.Chances) -> None:
        """Another process judged the position the game is at: keep its chances and tell our
        subscribers in its words (news only at the same seq, for the game's seats)."""
        if message.seq != live.seq or len(message.chances) != len(live.state.players):
            return  # an event came between
        live.chances = (message.seq, message.chances)
        self.send(live, message.told)

    def followed_hold(self, live: LiveGame, message: events.Held) -> None:
        """Another process's player changed the dice they hold: keep them, and tell our
        subscribers in its words (news only at the same seq)."""
        if message.seq != live.seq:
            return  # an event came between (it resets the selection)
        live.held = (live.seq, message.held)
        self.send(live, message.told)

    def seats_changed(self, live: LiveGame) -> None:
        """The seats changed (learnt from the store): tell our subscribers."""
        if live.subscribers:
            self.send(live, messages.seats(live).to_json())

    async def seated(self, live: LiveGame) -> None:
        """This process seated someone: tell our subscribers and the other processes."""
        self.seats_changed(live)
        await self._tell(live.id, events.SeatsChanged())

    async def abandoned(self, game_id: str) -> None:
        """This process closed `game_id` as abandoned: the other processes stop it too."""
        await self._tell(game_id, events.Abandoned())

    async def seats_stored(self, game_id: str) -> None:
        """The store's seats of `game_id` changed outside a master: every process that holds
        it reads them."""
        await self._tell(game_id, events.SeatsChanged())

    # --- after and between turns (dicepoker.protocol.table_talk) ------------------------------

    async def rematch(self, live: LiveGame, game_id: str) -> None:
        """This process made `game_id`, the rematch of `live`: offer it here and elsewhere."""
        self.offer_rematch(live, game_id)
        await self._tell(live.id, events.Rematch(game=game_id))

    def offer_rematch(self, live: LiveGame, game_id: str) -> None:
        """Offer the rematch to this process's subscribers: each seat's connection its own seat
        and token (to it alone), every other connection the game to watch."""
        live.rematch = game_id
        for queue in list(live.subscribers):
            seat, token = live.seated.get(queue, (None, None))
            reply(queue, messages.rematch(game_id, seat, token).to_json())

    async def reaction(self, live: LiveGame, seat: int, reaction: ReactionId) -> None:
        """A seated player reacted: tell the table, here and in the other processes."""
        told = messages.reaction(seat, reaction).to_json()
        self.send(live, told)
        await self._tell(live.id, events.Reaction(told=told))


def reply(queue: asyncio.Queue[str], text: str) -> None:
    """Queue an answer for one subscriber only. One that reads nothing while it sends is treated
    like one that fell behind the broadcasts: what it has not read is replaced by `resync`
    (then the answer), so the memory held for it does not grow."""
    try:
        queue.put_nowait(text)
    except asyncio.QueueFull:
        _drain(queue)
        queue.put_nowait(messages.RESYNC)
        queue.put_nowait(text)


def _put(queue: asyncio.Queue[str], text: str) -> None:
    try:
        queue.put_nowait(text)
    except asyncio.QueueFull:
        # A subscriber that cannot keep up skips ahead: it is told to ask for a sync.
        _drain(queue)
        queue.put_nowait(messages.RESYNC)


def _drain(queue: asyncio.Queue[str]) -> None:
    while not queue.empty():
        queue.get_nowait()
