"""What a finished game leaves its accounts: a result per account seat (a player's history and
statistics), the rating change of a rated game, and the accuracy of each decision (from the
game's analysis, a moment later).

A watcher of the master: it looks at every game that changes and, once a game with account
seats is over, writes its results. Several processes may see the same game end: the results'
primary key and the rating changes' unique (game, account) pair make the first writer the only
one, and a sweep at start-up writes what a process that died before writing left undone.

An accuracy is background work (seconds of a worker's CPU, at the work queue's lowest priority):
the games whose accuracy is to be computed wait in a queue of game ids, one at a time per
process. What is to be done is in the database (results whose
`decisions` are null), so a waiting game holds no memory but its id, a queue that is full leaves
the games past its bound to the database, and the start-up sweep queues every accuracy a process
left undone (it stopped, or it failed), in a random order so that processes starting together
mostly take different games, each checking that the accuracy is still unknown before it starts.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from typing import Any

from sqlalchemy import Select, exc, select

from dicepoker.engine import breakdown, ranking
from dicepoker.master import GameMaster, LiveGame
from dicepoker.master.seats import accounts_of
from dicepoker.master.tasks import GameTasks, Recent
from dicepoker.ratings import pool_of
from dicepoker.server.community.analysis import AnalysisCache
from dicepoker.server.community.ratings import RatingBook
from dicepoker.server.storage.models import GamePlayerRow, GameResultRow, GameRow
from dicepoker.server.storage.store import Store

log = logging.getLogger("dicepoker.server")

#: Games whose accuracy waits in a process (ids only); the games past it wait in the database
#: for the next start-up's sweep.
ACCURACIES_WAITING = 10_000


def seat_results(live: LiveGame) -> list[dict[str, Any]]:
    """A result per account seat of a finished game, from the engine's own scoring."""
    state = live.game.state
    places = {standing.seat: standing.place for standing in ranking(state)}
    sharing = Counter(places.values())  # how many seats share each place
    pool = pool_of(live.rules)
    results = []
    for seat, account in accounts_of(live.seats).items():
        parts = breakdown(state, seat)
        results.append(
            {
                "game_id": live.id,
                "seat": seat,
                "account_id": account,
                "variant": live.rules.variant,
                "pool": pool,
                "players": len(state.players),
                "score": parts.total,
                "place": places[seat],
                "tied": sharing[places[seat]],
                "zeros": parts.zeros,
                "stars": len(state.sheets[seat].stars),
            }
        )
    return results


def unknown_query(game_id: str | None = None, limit: int | None = None) -> Select[str]:
    """The games (or the one game) with account results whose accuracy is not known yet: read
    through the partial index of those rows alone (migration 0007), not the whole table."""
    query = select(GameResultRow.game_id).where(GameResultRow.decisions.is_(None))
    if game_id is not None:
        query = query.where(GameResultRow.game_id == game_id)
    return query.distinct().limit(limit)


class Results:
    """Writes the results (and ratings) of games as they end; see the module's docstring."""

    def __init__(
        self,
        store: Store,
        master: GameMaster,
        ratings: RatingBook,
        analyses: AnalysisCache,
    ) -> None:
        self.store = store
        self.master = master
        self.ratings = ratings
        self.analyses = analyses
        self.most_waiting = ACCURACIES_WAITING
        self.left = 0  # accuracies left to the database because the queue was full
        self._tasks = GameTasks()
        self._done = Recent()
        # The games whose accuracy is to be computed here, in order (a dict: each once).
        self._accuracies: dict[str, None] = {}
        self._computing: asyncio.Task[None] | None = None
        self._sweeping: asyncio.Task[None] | None = None  # (`sweep`: the accuracies' part)
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        if not live.game.state.finished or live.id in self._done:
            return
        if not accounts_of(live.seats):
            return
        self._done.add(live.id)
        self._tasks.start(live.id, self._finish(live), name=f"results-{live.id}")

    def holds(self, game_id: str) -> bool:
        """Its results being written, or its accuracy computed (the game is loaded for its
        analysis); a game whose accuracy waits is not held: its id is all that waits."""
        if self._tasks.running(game_id):
            return True
        computing = self._computing is not None and not self._computing.done()
        return computing and next(iter(self._accuracies), None) == game_id

    @property
    def waiting(self) -> int:
        """The games whose accuracy waits (or is computed) in this process."""
        return len(self._accuracies)

    async def close(self) -> None:
        await self._tasks.close()
        for task in (self._sweeping, self._computing):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._sweeping = self._computing = None

    async def _finish(self, live: LiveGame) -> None:
        try:
            if await self.write(live):
                self.queue([live.id])
        except asyncio.CancelledError:
            raise
        except Exception:  # a result must never take the server down; the sweep retries
            log.exception("results of game %s", live.id)
            self._done.discard(live.id)

    async def write(self, live: LiveGame) -> bool:
        """Write the game's results and, if it is rated, its rating changes (once)."""
        rows = seat_results(live)
        try:
            async with self.store.writing(), self.store.sessions() as session, session.begin():
                found = await session.scalar(
                    select(GameResultRow.game_id).where(GameResultRow.game_id == live.id).limit(1)
                )
                if found is not None:
                    return False
                session.add_all(GameResultRow(**row) for row in rows)
                await session.flush()
                if live.rated:
                    await self.ratings.rate(session, live)
        except exc.IntegrityError:
            return False  # another process wrote them a moment ago
        return True

    def queue(self, game_ids: list[str]) -> None:
        """Compute these games' accuracy, after the ones waiting (those past the bound are left
        to the database)."""
        for game_id in game_ids:
            if game_id in self._accuracies:
                continue
            if len(self._accuracies) >= self.most_waiting:
                self.left += 1
                log.debug("accuracy of game %s left to the start-up sweep", game_id)
                continue
            self._accuracies[game_id] = None
        if self._accuracies and (self._computing is None or self._computing.done()):
            self._computing = asyncio.create_task(self._compute(), name="accuracies")

    async def _compute(self) -> None:
        while self._accuracies:
            game_id = next(iter(self._accuracies))
            try:
                await self.accuracy(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # it stays unknown in the database: the next sweep retries
                log.exception("accuracy of game %s", game_id)
            finally:
                self._accuracies.pop(game_id, None)

    async def unknown(self, game_id: str | None = None, limit: int | None = None) -> list[str]:
        """Games (or the one game) with account results whose accuracy is not known yet."""
        async with self.store.sessions() as session:
            found = await session.scalars(unknown_query(game_id, limit))
            return list(found)

    async def accuracy(self, game_id: str) -> None:
        """Each account seat's expected points lost and decisions, from the game's analysis
        (nothing when another process wrote them already)."""
        if not await self.unknown(game_id):
            return
        live = await self.master.load(game_id)
        if live is None or not live.game.state.finished:
            return
        analysis = await self.analyses.analysis(
            f"game:{live.id}", live.game.to_record(), live.levels()
        )
        players = {player["seat"]: player for player in analysis.get("players", [])}
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            rows = await session.scalars(
                select(GameResultRow).where(
                    GameResultRow.game_id == live.id, GameResultRow.decisions.is_(None)
                )
            )
            for row in rows:
                player = players.get(row.seat)
                if player is not None:
                    row.lost = float(player["expected_loss"])
                    row.decisions = int(player["decisions"])

    async def sweep(self) -> None:
        """Write the results a process left undone (it died between the end and the write), and
        queue the accuracies left undone (looked for in the background)."""
        async with self.store.sessions() as session:
            undone = await session.scalars(
                select(GameRow.id)
                .join(GamePlayerRow, GamePlayerRow.game_id == GameRow.id)
                .outerjoin(GameResultRow, GameResultRow.game_id == GameRow.id)
                .where(GameRow.status == "finished", GameResultRow.game_id.is_(None))
                .distinct()
            )
            game_ids = list(undone)
        for game_id in game_ids:
            live = await self.master.load(game_id)
            if live is not None:
                self.look(live)
        # The accuracies left undone are looked for in the background: a scan of the results
        # that the start (and its readiness) need not wait for.
        self._sweeping = asyncio.create_task(self._queue_unknown(), name="accuracies-sweep")

    async def _queue_unknown(self) -> None:
        try:
            to_analyse = await self.unknown(limit=self.most_waiting)
        except Exception:  # the database away: the next start-up looks again
            log.exception("could not look for the accuracies left undone")
            return
        random.shuffle(to_analyse)  # processes starting together: mostly different games first
        self.queue(to_analyse)
