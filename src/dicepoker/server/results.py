"""What a finished game leaves its accounts: a result per account seat (a player's history and
statistics), the rating change of a rated game, and the accuracy of each decision (from the
game's analysis, a moment later).

A watcher of the master: it looks at every game that changes and, once a game with account
seats is over, writes its results. Several processes may see the same game end: the results'
primary key and the rating changes' unique (game, account) pair make the first writer the only
one, and a sweep at start-up writes what a process that died before writing left undone.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

from sqlalchemy import exc, select

from dicepoker.engine import breakdown, ranking
from dicepoker.master import GameMaster, LiveGame
from dicepoker.master.seats import accounts_of
from dicepoker.master.tasks import GameTasks, Recent
from dicepoker.ratings import pool_of
from dicepoker.server.analysis import AnalysisCache, Resting, never_resting, rest_while
from dicepoker.server.models import GamePlayerRow, GameResultRow, GameRow
from dicepoker.server.ratings import RatingBook
from dicepoker.server.store import Store

log = logging.getLogger("dicepoker.server")


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


class Results:
    """Writes the results (and ratings) of games as they end; see the module's docstring."""

    def __init__(
        self,
        store: Store,
        master: GameMaster,
        ratings: RatingBook,
        analyses: AnalysisCache,
        resting: Resting = never_resting,
    ) -> None:
        self.store = store
        self.master = master
        self.ratings = ratings
        self.analyses = analyses
        # Accuracy is background work too: it waits while the machine is full
        # (`BotPool.analysis_rest`).
        self.resting = resting
        self._tasks = GameTasks()
        self._done = Recent()
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        if not live.game.state.finished or live.id in self._done:
            return
        if not accounts_of(live.seats):
            return
        self._done.add(live.id)
        self._tasks.start(live.id, self._finish(live), name=f"results-{live.id}")

    def holds(self, game_id: str) -> bool:
        return self._tasks.running(game_id)

    async def close(self) -> None:
        await self._tasks.close()

    async def _finish(self, live: LiveGame) -> None:
        try:
            if await self.write(live):
                await self.accuracy(live)
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

    async def accuracy(self, live: LiveGame) -> None:
        """Each account seat's expected points lost and decisions, from the game's analysis."""
        await rest_while(self.resting)
        analysis = await self.analyses.analysis(
            f"game:{live.id}", live.game.to_record(), live.levels()
        )
        players = {player["seat"]: player for player in analysis.get("players", [])}
        async with self.store.writing(), self.store.sessions() as session, session.begin():
            rows = await session.scalars(
                select(GameResultRow).where(GameResultRow.game_id == live.id)
            )
            for row in rows:
                player = players.get(row.seat)
                if player is not None:
                    row.lost = float(player["expected_loss"])
                    row.decisions = int(player["decisions"])

    async def sweep(self) -> None:
        """Write the results a process left undone (it died between the end and the write)."""
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
