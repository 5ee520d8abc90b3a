"""Table talk after and between turns: rematches and quick reactions (docs/api.md).

- `POST /api/games/{id}/rematch` answers `RematchCreated`; every connection of the finished game
  is offered the rematch by a `rematch` message, a seat's connection with that seat's token.
- A seated player sends `{"type": "react", "reaction": id}`; the table hears
  `{"type": "reaction", "seat", "reaction"}`. A reaction is one of the fixed ids of `REACTIONS`
  (no free text): the words are the catalogs' (`reaction.{id}`), in each reader's language.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from dicepoker.protocol.base import Absent, Strict, Tagged, Wire, absent

#: The quick reactions, as they travel (their words: the catalogs' `reaction.{id}`).
ReactionId = Literal["good_game", "nice_roll", "well_played", "good_luck", "oops", "thanks"]
REACTIONS: tuple[str, ...] = get_args(ReactionId)


# --- server -> client ------------------------------------------------------------------------


class RematchMessage(Tagged):
    """A rematch of this finished game exists: `game` is its id. A seat's connection is told
    its seat there and that seat's token (sent to that connection only); a spectator's connection
    is told the game only (`seat` null), to watch it."""

    type: Literal["rematch"] = "rematch"
    game: str
    url: str
    seat: int | None
    token: str | Absent = absent("the seat's token in the rematch (a seat's connection only)")


class ReactionMessage(Tagged):
    """A seated player's quick reaction, for everyone at the table."""

    type: Literal["reaction"] = "reaction"
    seat: int
    reaction: ReactionId


# --- client -> server ------------------------------------------------------------------------


class React(Strict):
    """Send a quick reaction to the table (seated players only; rate limited)."""

    type: Literal["react"]
    reaction: ReactionId


# --- REST ------------------------------------------------------------------------------------


class RematchCreated(Wire):
    """`POST /api/games/{id}/rematch`: the rematch (201 when this request made it, 200 when it
    existed already) and the asking seat's place and token in it."""

    id: str
    url: str
    seat: int = Field(description="the asking seat's seat in the rematch")
    token: str = Field(description="that seat's token in the rematch")
    created: bool = Field(description="whether this request created the rematch")
