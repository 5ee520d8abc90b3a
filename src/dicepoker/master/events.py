"""What the processes serving the same games tell each other: a small closed set of typed
messages (the shape of lila-ws's `LilaIn`/`LilaOut`), parsed in one place.

The broadcaster builds them, the bus (`dicepoker.master.bus`; Redis between processes:
`dicepoker.server.runtime.bus`) carries them as JSON, and `GameMaster.follow` acts on each kind.
Each says what happened to one game (the channel it travels on names the game) and who said it
(`origin`, the sender's `process_id`, set by the bus as it publishes).

A message of a kind this version does not know, or with a field it does not expect, is refused
by `parse` (`ValueError`) and ignored by the bus with a warning: the store decides what a game
is, so a message lost this way only delays a process, which then catches up from the store.
"""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

__all__ = [
    "Abandoned",
    "BusMessage",
    "Chances",
    "Committed",
    "Dropped",
    "Held",
    "Holding",
    "Reaction",
    "Released",
    "Rematch",
    "SeatsChanged",
    "dump",
    "parse",
]


class _Message(BaseModel):
    # Frozen: a message is a fact; several handlers may read the same one.
    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The sending process (`Bus.process_id`); "" until the bus publishes it.
    origin: str = ""


class Committed(_Message):
    """The sender committed event `seq` of the game (the store holds it)."""

    kind: Literal["event"] = "event"
    seq: int
    seat: int
    action: str
    thrown: list[int] | None = None
    auto: bool = False
    #: What the sender's clients were told of it, so that the others tell theirs the same words
    #: without building the view again (None: the sender had nobody watching).
    told: str | None = None


class Held(_Message):
    """The roller changed the dice they hold at `seq` (never stored: the next event ends it)."""

    kind: Literal["held"] = "held"
    seq: int
    seat: int
    held: tuple[int, ...]
    told: str


class Chances(_Message):
    """Each seat's chance of winning, judged by the sender for the position at `seq`."""

    kind: Literal["chances"] = "chances"
    seq: int
    chances: tuple[float, ...]
    told: str


class SeatsChanged(_Message):
    """The game's seats changed in the store: read them again."""

    kind: Literal["seats"] = "seats"


class Abandoned(_Message):
    """The sender closed the game as abandoned."""

    kind: Literal["abandoned"] = "abandoned"


class Rematch(_Message):
    """The sender made `game`, the finished game's rematch."""

    kind: Literal["rematch"] = "rematch"
    game: str


class Reaction(_Message):
    """A seated player's quick reaction, in the words the sender's clients were told."""

    kind: Literal["reaction"] = "reaction"
    told: str


class Holding(_Message):
    """The sender holds the game: said when it loads one (`reply` false, an announcement, before
    it reads the store), and in answer to an announcement or to news from a holder it did not
    know of (`reply` true, with its `seq`; None while it is still loading the game)."""

    kind: Literal["holding"] = "holding"
    reply: bool = False
    seq: int | None = None


class Dropped(_Message):
    """The sender does not hold the game (any more): stop telling it the game's news."""

    kind: Literal["dropped"] = "dropped"


class Released(_Message):
    """The sender gave back the game's lease (a graceful stop): another process drives its bots
    and clock from now on."""

    kind: Literal["released"] = "released"


BusMessage = Annotated[
    Committed
    | Held
    | Chances
    | SeatsChanged
    | Abandoned
    | Rematch
    | Reaction
    | Holding
    | Dropped
    | Released,
    Field(discriminator="kind"),
]

_ADAPTER: TypeAdapter[BusMessage] = TypeAdapter(BusMessage)


def parse(data: bytes | str) -> BusMessage:
    """The message of JSON `data`; `ValueError` when it is not one this version knows."""
    try:
        return _ADAPTER.validate_json(data)
    except ValidationError as exc:
        raise ValueError(f"not a bus message: {exc.error_count()} error(s)") from None


def dump(message: BusMessage, origin: str) -> bytes:
    """`message` as JSON, said by `origin`; its first bytes are `{"origin":"<origin>"` (the bus
    drops its own messages, heard back, by them). Fields left unset (None) are not sent."""
    return orjson.dumps(
        {"origin": origin, **message.model_dump(exclude={"origin"}, exclude_none=True)}
    )
