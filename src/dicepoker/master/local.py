"""The master of one process's own games: the same `GameMaster` on the memory store and the
local bus (as boardgame.io's `LocalMaster` reuses its `Master`). The terminal client's local
games and the simulations run on it, with the same bot driver as the web app."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from dicepoker.bots import Bot
from dicepoker.dice import DiceSource, SecretDice
from dicepoker.master import seats as seating
from dicepoker.master.broadcast import Broadcaster
from dicepoker.master.bus import LocalBus
from dicepoker.master.live import LiveGame
from dicepoker.master.master import GameMaster
from dicepoker.master.memory import MemoryStore
from dicepoker.master.store import StoredGame
from dicepoker.record import Game


class LocalMaster(GameMaster):
    """A `GameMaster` in memory. Its games' dice come from `dice` (secret dice by default) or
    from the `Game` it hosts; they carry no fair-dice commitment (nobody else to convince)."""

    def __init__(self, dice: DiceSource | None = None) -> None:
        self.memory = MemoryStore()
        super().__init__(self.memory, Broadcaster(LocalBus()), dice=dice or SecretDice())

    def host(
        self,
        game: Game,
        seats: Sequence[Mapping[str, Any]],
        bots: Mapping[int, Bot] | None = None,
    ) -> LiveGame:
        """Play `game` (perhaps loaded from a record, under way) here from its position now.

        `seats`: `{"kind": "human" | "bot", "name", "level"}` per player; `bots`: the bot of
        each bot seat (by default, none: a seat's bot is needed only when it is to move). The
        game's own dice source, when it has one, throws its dice.
        """
        stored_seats = [dict(seat) for seat in seats]
        status = seating.status_of(stored_seats, game.state.finished)
        now = datetime.now(UTC)
        stored = StoredGame(
            id=secrets.token_urlsafe(8),
            variant=game.rules.variant,
            options=game.rules.option_dict,
            seats=stored_seats,
            status=status,
            created_at=now,
            updated_at=now,
        )
        self.memory.add(stored)
        live = LiveGame(
            id=stored.id,
            rules=game.rules,
            seats=stored_seats,
            status=status,
            game=game,
            seq=0,
            turn_seconds=0,
            created_at=now.isoformat(),
            bots=dict(bots or {}),
            dice=game.dice,
        )
        self.games[live.id] = live
        return live

    def forget(self, live: LiveGame) -> None:
        """Drop a game from memory altogether (simulations play thousands)."""
        self.games.pop(live.id, None)
        self.memory.drop(live.id)
