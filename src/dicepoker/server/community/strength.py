"""The strength a person's seat is judged at, read from their rating when they take the seat.

The win model judges each seat at a level of the bots' ladder (`dicepoker.winprob.strength`): a
person at the level their rating in the game's pool says, a newcomer (no rated game there, or
no account) at a newcomer's. The master knows no database, so the judgement travels on the seat
itself (`seat["strength"]`, stored with the seats): the server reads the rating here, once, when
an account's seat is asked for, and the master keeps what it is given. A rating that changes
during the game (another game of the same pool ends) does not change the judgement of this
one: the table and its analysis judge one game by one set of seats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dicepoker.master import LiveGame
from dicepoker.ratings import Rating, pool_of, shown
from dicepoker.rules import RulesError, get_rules
from dicepoker.server.storage.models import RatingRow
from dicepoker.server.storage.store import Store
from dicepoker.winprob.strength import newcomer, person_strength

#: The key of a person's seat (and of a seat request) that holds their judged strength.
STRENGTH_KEY = "strength"


async def account_strength(store: Store, account_id: int | None, pool: str) -> dict[str, Any]:
    """The judged strength of the person taking a seat in a game of `pool` (`account_id`: their
    account, None for someone playing without one), as the seat stores it."""
    if account_id is None:
        return newcomer(pool).as_json()
    async with store.sessions() as session:
        row = await session.get(RatingRow, (account_id, pool))
    if row is None:
        return newcomer(pool).as_json()
    return person_strength(pool, shown(Rating(row.mu, row.sigma)), row.games).as_json()


async def judged_requests(
    store: Store, variant: str, options: Mapping[str, Any], requests: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The seat requests of a new game with each person's judged strength added (copies): a
    request with an `"account"` from that account's rating in the game's pool, a named one
    without as a newcomer's; bots and open seats as they are. Rules the variant refuses leave
    the requests as they are (creating the game refuses them, in its own words)."""
    try:
        pool = pool_of(get_rules(variant, options))
    except RulesError:
        return [dict(request) for request in requests]
    judged: list[dict[str, Any]] = []
    for request in requests:
        if request.get("kind") != "bot" and request.get("name"):
            account = request.get("account")
            strength = await account_strength(
                store, int(account) if account is not None else None, pool
            )
            request = {**request, STRENGTH_KEY: strength}
        judged.append(dict(request))
    return judged


async def joining_strength(store: Store, live: LiveGame, account_id: int | None) -> dict[str, Any]:
    """The judged strength of the person taking an open seat of `live`."""
    return await account_strength(store, account_id, pool_of(live.game.state.rules))


__all__ = ["STRENGTH_KEY", "account_strength", "joining_strength", "judged_requests"]
