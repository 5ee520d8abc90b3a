"""The game master with other processes on the same games (each test's buses stand for them):
a bot another process drives is not started here; a game another process drives and nobody
watches here is forgotten, and goes on here when that process stops; a move travels with its
words only from where it is watched; two masters on one store agree and race safely; a game
loaded while another process commits is at the events it replayed; a game held with a process
that stopped is this one's alone again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import orjson

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState
from dicepoker.master import (
    BotDriver,
    Broadcaster,
    GameMaster,
    MemoryStore,
    StoredEvent,
    events,
    messages,
)
from dicepoker.master.bus import LocalBus
from test_master import HUMANS, run


class ElsewhereBus(LocalBus):
    """The bus of a process that knows another process holds every game's lease while
    `elsewhere` (Redis said so at its last claim); it counts the claims it is asked."""

    shared = True

    def __init__(self) -> None:
        super().__init__()
        self.elsewhere = True
        self.claims = 0

    async def claim(self, game_id: str) -> bool:
        self.claims += 1
        return not self.elsewhere

    def held_elsewhere(self, game_id: str) -> bool:
        return self.elsewhere


def test_a_bot_another_process_surely_drives_is_not_started_here() -> None:
    """With two processes, the one that does not hold a game's lease hears of every move: it
    starts no bot loop (no delay, no claim) until the holder's lease may have run out."""

    async def scenario() -> None:
        bus = ElsewhereBus()
        master = GameMaster(MemoryStore(), Broadcaster(bus), dice=SeededDice(3))
        driver = BotDriver(master, delay=0)
        seats = [{"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("yahtzee", {}, seats, None)
        master.look(live)
        await asyncio.sleep(0)
        assert not driver._tasks.running(live.id) and bus.claims == 0 and live.seq == 0
        bus.elsewhere = False  # the holder's lease ran out: the next look takes the game over
        queue = master.broadcaster.subscribe(live)
        master.look(live)
        await asyncio.wait_for(queue.get(), timeout=30)
        assert live.seq >= 1 and bus.claims >= 1
        await master.close()

    run(scenario)


class StoppedPeerBus(ElsewhereBus):
    """An `ElsewhereBus` that also says, when told to, that another process has stopped."""

    def __init__(self) -> None:
        super().__init__()
        self.gone = False

    async def peers_gone(self) -> frozenset[str]:
        gone, self.gone = self.gone, False
        return frozenset({"the stopped one"}) if gone else frozenset()


async def next_event(queue: asyncio.Queue[str]) -> str:
    while True:
        text = await asyncio.wait_for(queue.get(), timeout=30)
        if '"type":"event"' in text:
            return text


def test_a_game_another_process_drives_and_nobody_watches_here_is_forgotten() -> None:
    """With two processes, one that neither drives a game nor has anyone watching it there
    forgets it (its memory and its moves applied again were for nothing); asked for again, it
    is read back from the store, whole."""

    async def scenario() -> None:
        bus = ElsewhereBus()
        master = GameMaster(MemoryStore(), Broadcaster(bus), dice=SeededDice(3))
        BotDriver(master, delay=0)
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("yahtzee", {}, seats, None)
        await master.act(live, 0, "roll", live.seq)
        queue = master.broadcaster.subscribe(live)
        assert master.upkeep.forget_idle() == 0  # watched here
        master.broadcaster.unsubscribe(live, queue)
        bus.elsewhere = False
        assert master.upkeep.forget_idle() == 0  # this process may drive it
        bus.elsewhere = True
        assert master.upkeep.forget_idle() == 1 and live.id not in master.games
        again = await master.load(live.id)
        assert again is not None and again is not live
        assert again.seq == live.seq == 1 and again.game.state == live.game.state
        # An intent under way on the forgotten copy meanwhile: committed, and the copy in memory
        # reads it from the store.
        await master.act(live, 0, "roll", live.seq)
        assert again.seq == live.seq == 2 and again.game.state == live.game.state
        await master.close()

    run(scenario)


def test_the_games_of_a_process_that_stops_go_on_in_another() -> None:
    """Forgotten here while another process drove them, a game's bots go on here when that
    process stops: gracefully (it gives the lease back and says so) or not (it stops saying it
    is alive: the games that move alone are loaded again)."""

    async def scenario() -> None:
        bus = StoppedPeerBus()
        master = GameMaster(MemoryStore(), Broadcaster(bus), dice=SeededDice(3))
        BotDriver(master, delay=0)
        seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
        killed_one, _ = await master.create("yahtzee", {}, seats, None)
        stopped_one, _ = await master.create("yahtzee", {}, seats, None)
        await master.upkeep.sweep_leases()
        assert killed_one.id not in master.games and stopped_one.id not in master.games
        assert killed_one.seq == stopped_one.seq == 0  # nothing driven here
        bus.elsewhere = False  # the holder's leases run out, or are given back

        await master.follow(stopped_one.id, events.Released(origin="other"))
        taken = master.games[stopped_one.id]
        await next_event(master.broadcaster.subscribe(taken))
        assert taken.seq >= 1
        await master.upkeep.sweep_leases()  # nobody is gone yet: nothing else is loaded
        assert killed_one.id not in master.games

        bus.gone = True
        await master.upkeep.sweep_leases()
        resumed = master.games[killed_one.id]
        await next_event(master.broadcaster.subscribe(resumed))
        assert resumed.seq >= 1
        await master.close()

    run(scenario)


def state_move(state: GameState) -> str:
    from dicepoker.engine import cell_moves

    return str(cell_moves(state)[0])


class SharedBus:
    """Two processes' buses in one: what one publishes the other hears (leases: the first)."""

    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[str, Any], Coroutine[Any, Any, None]]] = {}
        self.reconnects: dict[str, Callable[[], Coroutine[Any, Any, None]]] = {}
        self.delivered: list[asyncio.Task[None]] = []
        self.lose = 0  # the next messages published are lost (a publish that failed)
        # Every message published, in order: (sender, game, message).
        self.published: list[tuple[str, str, dict[str, Any]]] = []
        # While set, messages wait here instead of being delivered (a slow bus): `release`.
        self.late: list[tuple[str, str, dict[str, Any]]] | None = None
        # The processes that stopped (each side is told so once, at its next `peers_gone`).
        self.stopped: set[str] = set()
        self.told_gone: dict[str, set[str]] = {}

    def deliver(self, sender: str, game_id: str, message: dict[str, Any]) -> None:
        for other, handler in self.handlers.items():
            if other != sender:
                typed = events.parse(orjson.dumps(message))  # (as the Redis bus reads it)
                self.delivered.append(asyncio.create_task(handler(game_id, typed)))

    async def release(self) -> None:
        """Deliver what waited, then everything it leads to."""
        late, self.late = self.late or [], None
        for sender, game_id, message in late:
            self.deliver(sender, game_id, message)
        await self.settle()

    async def settle(self) -> None:
        """Wait until every message delivered, and every answer to it, has been handled."""
        while not all(task.done() for task in self.delivered):
            await asyncio.gather(*self.delivered)

    def kinds(self, sender: str, game_id: str) -> list[str]:
        return [m["kind"] for who, game, m in self.published if who == sender and game == game_id]

    def side(self, name: str) -> Any:
        bus = self

        class Side:
            process_id = name
            shared = True

            async def start(self, handler: Any, on_reconnect: Any) -> None:
                bus.handlers[name] = handler
                bus.reconnects[name] = on_reconnect

            async def close(self) -> None:
                return None

            async def publish(self, game_id: str, message: events.BusMessage) -> None:
                if bus.lose > 0:
                    bus.lose -= 1
                    return
                said = orjson.loads(events.dump(message, name))  # (as the Redis bus sends it)
                bus.published.append((name, game_id, said))
                if bus.late is not None:
                    bus.late.append((name, game_id, said))
                else:
                    bus.deliver(name, game_id, said)

            async def claim(self, game_id: str) -> bool:
                return name == "first"

            def held_elsewhere(self, game_id: str) -> bool:
                return False  # not known without asking

            async def peers_gone(self) -> frozenset[str]:
                told = bus.told_gone.setdefault(name, set())
                gone = frozenset(bus.stopped - told - {name})
                told |= gone
                return gone

        return Side()


async def two_masters(store: MemoryStore) -> tuple[SharedBus, GameMaster, GameMaster]:
    """Two processes' masters on one store, started, with their buses in one."""
    bus = SharedBus()
    first = GameMaster(store, Broadcaster(bus.side("first")), dice=SeededDice(5))
    second = GameMaster(store, Broadcaster(bus.side("second")), dice=SeededDice(6))
    for master in (first, second):
        await master.start()
    return bus, first, second


def test_a_move_travels_with_its_words_only_from_where_it_is_watched() -> None:
    """A process that commits a move sends the other processes its clients' words, so that they
    need not build the view again. With nobody watching the game where the move is made (a bot
    driven there for a game watched elsewhere) no view is built there, none travels, and the
    process where the game is watched builds the same words itself."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        heard: list[events.BusMessage] = []
        follow = bus.handlers["second"]

        async def hear(game_id: str, message: events.BusMessage) -> None:
            heard.append(message)
            await follow(game_id, message)

        bus.handlers["second"] = hear
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        there = await second.load(live.id)
        assert there is not None
        await asyncio.gather(*bus.delivered)  # (its announcement, and the answer)
        assert not first.broadcaster.alone(live.id) and not second.broadcaster.alone(live.id)
        watcher = second.broadcaster.subscribe(there)
        await first.act(live, 0, "roll", 0)
        await asyncio.gather(*bus.delivered)
        assert isinstance(heard[-1], events.Committed) and heard[-1].told is None
        assert live.view_cache.part is None  # (no view built where nobody watches)
        told = watcher.get_nowait()
        assert there.last is not None
        assert told == messages.event(there, there.last).to_json()
        # Watched where it is made too: the words travel, and are told as they are.
        mine = first.broadcaster.subscribe(live)
        await first.act(live, 0, "roll", 1)
        await asyncio.gather(*bus.delivered)
        assert isinstance(heard[-1], events.Committed)
        assert heard[-1].told == mine.get_nowait() == watcher.get_nowait()
        for master in (first, second):
            await master.close()

    run(scenario)


def test_two_masters_on_one_store_agree_and_race_safely() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        there = await second.load(live.id)
        assert there is not None and there is not live
        watcher = second.broadcaster.subscribe(there)
        await first.act(live, 0, "roll", 0)
        await asyncio.gather(*bus.delivered)
        assert there.seq == 1 and there.game.state == live.game.state
        assert '"seq":1' in watcher.get_nowait()  # (built here: nobody watches it there)
        # The same intent through both processes at once: applied once, the other is stale.
        move = state_move(live.game.state)
        results = await asyncio.gather(
            first.act(live, 0, move, 1), second.act(there, 0, move, 1), return_exceptions=True
        )
        await asyncio.gather(*bus.delivered)
        assert sorted(type(r).__name__ for r in results) == ["Refusal", "int"]
        assert [e.seq for e in await store.events(live.id)] == [1, 2]
        assert there.game.state == live.game.state and there.seq == live.seq == 2
        for master in (first, second):
            await master.close()

    run(scenario)


class LateEventsStore(MemoryStore):
    """A memory store where, once armed, an event is committed between a game's row being read
    and its events being read (what another process can do between the two queries)."""

    def __init__(self) -> None:
        super().__init__()
        self.between: Callable[[], Coroutine[Any, Any, Any]] | None = None

    async def events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        between, self.between = self.between, None
        if between is not None:
            await between()
        return await super().events(game_id, after)


def test_a_game_loaded_while_another_process_commits_is_at_the_events_it_replayed() -> None:
    async def scenario() -> None:
        store = LateEventsStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        await first.act(live, 0, "roll", 0)
        store.between = lambda: first.act(live, 0, state_move(live.game.state), 1)
        there = await second.load(live.id)  # read the row at seq 1, the events at seq 2
        assert there is not None and there.seq == 2 and there.game.state == live.game.state
        await asyncio.gather(*bus.delivered)  # the bus then tells of event 2: nothing to redo
        await first.act(live, 1, "roll", 2)  # the next player's roll, told as event 3
        await asyncio.gather(*bus.delivered)
        assert there.seq == live.seq == 3 and there.game.state == live.game.state
        for master in (first, second):
            await master.close()

    run(scenario)


def test_a_move_whose_message_was_lost_is_caught_up_at_the_second_sweep() -> None:
    """Another process's move whose bus message never came (its publish failed): the store is
    ahead of the game here. Behind at one sweep is a message on its way, and nothing is done;
    behind at the next, the game catches up from the store and its watchers are told, so that
    the player to move here hears of their turn."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        there = await second.load(live.id)
        assert there is not None
        watcher = second.broadcaster.subscribe(there)
        # A message on its way at a sweep: nothing to heal once it comes.
        await first.act(live, 0, "roll", 0)
        assert await second.upkeep.heal_missed() == 0 and there.seq == 0
        await asyncio.gather(*bus.delivered)
        assert there.seq == 1 and '"seq":1' in await next_event(watcher)
        assert await second.upkeep.heal_missed() == 0
        # A lost one: still behind at the next sweep, caught up then.
        bus.lose = 1
        await first.act(live, 0, state_move(live.game.state), 1)
        assert await second.upkeep.heal_missed() == 0 and there.seq == 1
        assert watcher.empty()
        assert await second.upkeep.heal_missed() == 1
        assert there.seq == 2 and there.game.state == live.game.state
        assert '"seq":2' in await next_event(watcher)
        assert await second.upkeep.heal_missed() == 0  # nothing left behind
        for master in (first, second):
            await master.close()

    run(scenario)


def test_a_game_held_by_one_process_alone_is_not_told_to_the_bus() -> None:
    """A game's news goes on the bus only while another process holds it: one that loads the
    game announces it (before reading the store), the holder answers with where the game is and
    tells it every move from then on; once it has forgotten the game, it answers the next news
    that it dropped it, and is told nothing more."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        mine = first.broadcaster.subscribe(live)
        await first.act(live, 0, "roll", 0)
        await bus.settle()
        assert '"seq":1' in await next_event(mine)
        assert bus.published == [] and first.broadcaster.alone(live.id)

        there = await second.load(live.id)
        assert there is not None and there.seq == 1
        await bus.settle()
        assert bus.kinds("second", live.id) == ["holding"]
        answer = {"origin": "first", "kind": "holding", "reply": True, "seq": 1}
        assert bus.published[-1][2] == answer
        assert not first.broadcaster.alone(live.id) and not second.broadcaster.alone(live.id)
        await first.act(live, 0, state_move(live.game.state), 1)
        await bus.settle()
        assert there.seq == live.seq == 2 and there.game.state == live.game.state

        second.unload(live.id)  # (as `forget_idle` does): the next news is answered
        await first.act(live, 1, "roll", 2)
        await bus.settle()
        assert bus.kinds("second", live.id) == ["holding", "dropped"]
        assert first.broadcaster.alone(live.id)
        await first.act(live, 1, state_move(live.game.state), 3)
        await bus.settle()
        assert bus.kinds("first", live.id) == ["holding", "event", "event"]
        told = [mine.get_nowait() for _ in range(mine.qsize())]
        assert [text for text in told if '"type":"event"' in text][-1].count('"seq":4') == 1
        for master in (first, second):
            await master.close()

    run(scenario)


def test_the_games_a_stopped_process_held_too_are_this_ones_alone_again() -> None:
    """Once a process that held a game with this one is known to have stopped (at a lease
    sweep), the game is this process's alone again: its moves go on the bus no more, where
    before they went on until the game was forgotten here."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        mine = first.broadcaster.subscribe(live)  # watched here: not forgotten at a sweep
        other, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        first.broadcaster.subscribe(other)
        there = await second.load(live.id)
        await bus.settle()
        assert there is not None and not first.broadcaster.alone(live.id)
        assert first.broadcaster.alone(other.id)
        await first.upkeep.sweep_leases()  # nobody has stopped: the game is still shared
        assert not first.broadcaster.alone(live.id)

        bus.stopped.add("second")
        await first.upkeep.sweep_leases()
        assert first.broadcaster.alone(live.id) and first.broadcaster.alone(other.id)
        published = len(bus.published)
        await first.act(live, 0, "roll", 0)
        await bus.settle()
        assert '"seq":1' in await next_event(mine)
        assert bus.published[published:] == []  # nobody else to tell
        for master in (first, second):
            await master.close()

    run(scenario)


def test_a_move_made_before_the_holder_heard_of_the_loading_is_caught_up_from_its_answer() -> None:
    """The holder may commit a move after the loading process read the store and before it
    hears the announcement (a slow bus): that move is not told, but the answer carries the
    game's seq, and the loading process catches up from the store and tells its table."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        await first.act(live, 0, "roll", 0)
        bus.late = []  # the announcement is on its way
        there = await second.load(live.id)
        assert there is not None and there.seq == 1
        watcher = second.broadcaster.subscribe(there)
        await first.act(live, 0, state_move(live.game.state), 1)
        assert bus.kinds("first", live.id) == []  # (nobody known to hold it: not told)
        await bus.release()
        assert bus.kinds("first", live.id) == ["holding"]
        assert there.seq == live.seq == 2 and there.game.state == live.game.state
        assert '"seq":2' in await next_event(watcher)
        for master in (first, second):
            await master.close()

    run(scenario)


def test_two_processes_that_load_a_game_at_once_learn_of_each_other() -> None:
    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        made, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        first.unload(made.id)
        bus.late = []  # both announcements cross on the bus
        here, there = await asyncio.gather(first.load(made.id), second.load(made.id))
        assert here is not None and there is not None
        await bus.release()
        assert not first.broadcaster.alone(made.id) and not second.broadcaster.alone(made.id)
        await first.act(here, 0, "roll", 0)
        await bus.settle()
        assert there.seq == 1
        await second.act(there, 0, state_move(there.game.state), 1)
        await bus.settle()
        assert here.seq == there.seq == 2 and here.game.state == there.game.state
        for master in (first, second):
            await master.close()

    run(scenario)


def test_after_the_bus_was_away_every_game_held_is_announced_again() -> None:
    """An announcement lost (the bus was away): the holder tells the loading process nothing.
    Once the bus is back, that process announces every game it holds again and catches up; the
    holder answers, and tells it the game's moves from then on."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        bus.lose = 1
        there = await second.load(live.id)
        assert there is not None
        await first.act(live, 0, "roll", 0)
        await bus.settle()
        assert there.seq == 0 and first.broadcaster.alone(live.id)
        await bus.reconnects["second"]()
        await bus.settle()
        assert there.seq == live.seq == 1 and not first.broadcaster.alone(live.id)
        await first.act(live, 0, state_move(live.game.state), 1)
        await bus.settle()
        assert there.seq == live.seq == 2 and there.game.state == live.game.state
        for master in (first, second):
            await master.close()

    run(scenario)


def test_a_game_only_people_move_is_forgotten_where_nobody_watches_it() -> None:
    """With two processes, a running game with neither a bot nor a turn clock has nothing for
    a process to drive: where nobody watches it, it is forgotten (its people play it where they
    are connected), though this process could hold its lease. A game with a clock is kept."""

    async def scenario() -> None:
        bus = ElsewhereBus()
        bus.elsewhere = False
        master = GameMaster(MemoryStore(), Broadcaster(bus), dice=SeededDice(3))
        people, _ = await master.create("school", {"columns": 1}, HUMANS, None)
        timed, _ = await master.create("school", {"columns": 1}, HUMANS, 60)
        queue = master.broadcaster.subscribe(people)
        assert master.upkeep.forget_idle() == 0  # watched here
        master.broadcaster.unsubscribe(people, queue)
        assert master.upkeep.forget_idle() == 1
        assert people.id not in master.games and timed.id in master.games
        again = await master.load(people.id)
        assert again is not None and again.game.state == people.game.state
        await master.close()

    run(scenario)


def test_a_lost_announcement_is_made_again_when_the_sweep_finds_the_game_behind() -> None:
    """The announcement of a loading process is lost (a publish that failed): the holder,
    alone as far as it knows, tells it no move. At the second sweep that finds the game behind,
    it is caught up and announced again; the holder answers, and tells it the next moves."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, HUMANS, None)
        bus.lose = 1
        there = await second.load(live.id)
        assert there is not None
        await first.act(live, 0, "roll", 0)
        await bus.settle()
        assert first.broadcaster.alone(live.id) and there.seq == 0
        assert await second.upkeep.heal_missed() == 0
        assert await second.upkeep.heal_missed() == 1
        await bus.settle()
        assert there.seq == 1 and not first.broadcaster.alone(live.id)
        await first.act(live, 0, state_move(live.game.state), 1)
        await bus.settle()
        assert there.seq == live.seq == 2 and there.game.state == live.game.state
        for master in (first, second):
            await master.close()

    run(scenario)
