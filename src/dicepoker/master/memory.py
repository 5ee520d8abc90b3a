"""The store in memory: games and their event logs for one process (the terminal client's
local games, simulations, tests). Same rule as the database: event n + 1 is committed once."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from dicepoker.master.seats import ABANDONED, LIVE_STATUSES, moves_alone
from dicepoker.master.store import ConflictError, StoredEvent, StoredGame


class MemoryStore:
    """`Store` in dictionaries. What it hands out are copies: a caller cannot change it."""

    def __init__(self) -> None:
        self._games: dict[str, StoredGame] = {}
        self._events: dict[str, list[StoredEvent]] = {}

    async def create_game(self, game: StoredGame) -> None:
        now = datetime.now(UTC)
        created = game.created_at or now
        self.add(
            replace(game, created_at=created, updated_at=now, human_at=game.human_at or created)
        )

    def add(self, game: StoredGame) -> None:
        """Keep a new game (what `create_game` does, callable outside an event loop)."""
        if game.id in self._games:
            raise ConflictError(f"game {game.id} exists")
        self._games[game.id] = replace(game, seats=copy.deepcopy(game.seats))
        self._events[game.id] = []

    def drop(self, game_id: str) -> None:
        """Forget a game and its events."""
        self._games.pop(game_id, None)
        self._events.pop(game_id, None)

    async def game(self, game_id: str) -> StoredGame | None:
        game = self._games.get(game_id)
        return None if game is None else replace(game, seats=copy.deepcopy(game.seats))

    async def events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        return list(self._events.get(game_id, [])[after:])

    async def seqs(self, game_ids: Sequence[str]) -> dict[str, int]:
        return {game_id: self._games[game_id].seq for game_id in game_ids if game_id in self._games}

    async def append(
        self,
        game_id: str,
        expected_seq: int,
        stored: StoredEvent,
        status: str,
        *,
        person: bool = False,
    ) -> None:
        game = self._games.get(game_id)
        if (
            game is None
            or game.status == ABANDONED
            or game.seq != expected_seq
            or stored.seq != expected_seq + 1
        ):
            raise ConflictError(f"game {game_id} moved past seq {expected_seq}")
        self._events[game_id].append(stored)
        game.seq = stored.seq
        game.status = status
        game.updated_at = datetime.now(UTC)
        if person:
            game.human_at = game.updated_at

    async def update_seats(
        self, game_id: str, seats: list[dict[str, Any]], status: str, expected: list[Any]
    ) -> bool:
        game = self._games.get(game_id)
        if game is None or game.status == ABANDONED or game.seats != expected:
            return False
        game.seats = copy.deepcopy(seats)
        game.status = status
        game.updated_at = game.human_at = datetime.now(UTC)
        return True

    async def unfinished(self) -> list[str]:
        return [game.id for game in self._games.values() if game.status in LIVE_STATUSES]

    async def moving_alone(self) -> list[str]:
        return [
            game.id
            for game in self._games.values()
            if game.status == "running" and moves_alone(game.seats, game.turn_seconds)
        ]

    async def abandon(self, idle_since: datetime) -> list[str]:
        closed = []
        for game in self._games.values():
            last = game.human_at or game.created_at or game.updated_at
            clocked_rated = game.status == "running" and game.rated and game.turn_seconds > 0
            if (
                game.status in LIVE_STATUSES
                and not clocked_rated
                and last is not None
                and last < idle_since
            ):
                game.status = ABANDONED
                game.updated_at = datetime.now(UTC)
                closed.append(game.id)
        return closed
