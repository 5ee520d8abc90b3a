"""Rematches: a finished game's next game, with the same variant, options, clock and seats.

A game has at most one rematch, and its id is derived from the game's (`rematch_id`), so that
asking again, from another seat or another process, finds the same game instead of making a
second one. Its seats are the finished game's: bots at the same level, people under their names,
each held by the same seat token (the store keeps only the token's hash, so the new game can be
made without anyone's token, and each player's browser already holds theirs).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

#: The length of a game id (`secrets.token_urlsafe(8)`).
ID_LENGTH = 11


def rematch_id(game_id: str) -> str:
    """The id of the rematch of `game_id` (the same in every process, every time)."""
    digest = hashlib.sha256(f"dicepoker rematch\0{game_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:ID_LENGTH]


def rematch_seats(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The seats of the rematch: each seat as it is, with only what a new game stores."""
    kept = ("kind", "name", "level", "token_hash", "account", "strength")
    return [{key: seat[key] for key in kept if seat.get(key) is not None} for seat in seats]
