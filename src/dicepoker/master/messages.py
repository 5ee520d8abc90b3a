"""The messages the master's games send their clients: the typed models of the protocol
(`dicepoker.protocol`, docs/api.md "Server -> client"), built from the live game.

Every message that has a `status` also carries the game's seats, clock, fair-dice entry and
the full view (`state`), so a client only ever draws the newest one; an event of `dicepoker.v2`
carries what it changed in the view instead (`changes`), where this process knows the view its
clients hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dicepoker.master.live import LiveGame
from dicepoker.master.store import StoredEvent
from dicepoker.protocol import (
    ChancesMessage,
    ErrorMessage,
    EventEntry,
    EventMessage,
    GameView,
    HeldMessage,
    PongMessage,
    ReactionId,
    ReactionMessage,
    RematchMessage,
    ResyncMessage,
    SeatsMessage,
    SyncMessage,
    ViewChanges,
    WelcomeMessage,
    error,
)

__all__ = [
    "PONG",
    "RESYNC",
    "event",
    "event_words",
    "held",
    "reaction",
    "refused",
    "rematch",
    "seats",
    "sync",
    "welcome",
]

RESYNC = ResyncMessage().to_json()
PONG = PongMessage()


def event(
    live: LiveGame,
    stored: StoredEvent,
    view: GameView | None = None,
    changes: ViewChanges | None = None,
) -> EventMessage:
    """One accepted action, after it was committed (the game already at it): with what it
    changed in the view (`changes`, `dicepoker.v2`) when given, else the whole view (`view`, by
    default the live game's now)."""
    told: dict[str, Any]
    if changes is not None:
        told = {"changes": changes}
    else:
        told = {"state": view if view is not None else live.state_view}
    return EventMessage.build(
        seq=stored.seq,
        seat=stored.seat,
        action=stored.action,
        auto=stored.auto,
        **live.meta(chances=False),
        **told,
    )


def event_words(live: LiveGame, stored: StoredEvent, whole: bool) -> tuple[str, str | None]:
    """The event's text for the clients of `dicepoker.v2` (what it changed, or the whole view
    when this process did not build the view before it) and, when `whole`, for those of
    `dicepoker.v1` (the whole view); the view is built once for both."""
    view, changes = live.event_view()
    told = event(live, stored, view, changes).to_json()
    if not whole:
        return told, None
    return told, told if changes is None else event(live, stored, view).to_json()


def held(live: LiveGame) -> HeldMessage:
    """The dice the roller holds now (`live.held`, set), for everyone at the table."""
    assert live.held is not None
    seq, positions = live.held
    return HeldMessage.build(seq=seq, seat=live.state.seat, held=list(positions))


def chances(live: LiveGame) -> ChancesMessage | None:
    """The chances judged for the position the game is at (None: not judged yet)."""
    judged = live.win_probability()
    if judged is None:
        return None
    return ChancesMessage.build(seq=live.seq, win_probability=judged)


def seats(live: LiveGame) -> SeatsMessage:
    """Someone took an open seat."""
    return SeatsMessage.build(**live.meta(), state=live.state_view)


def welcome(live: LiveGame, seat: int | None) -> WelcomeMessage:
    """The first message of a connection: its seat (None: a spectator) and the game now."""
    return WelcomeMessage.build(
        seat=seat,
        seq=live.seq,
        **live.meta(),
        state=live.state_view,
        assisted=live.assisted,
        competition=live.competition(),
    )


def sync(live: LiveGame, events: list[StoredEvent]) -> SyncMessage:
    """The answer to `sync`: the events after the client's last seq, and the game now."""
    return SyncMessage.build(
        seq=live.seq,
        events=[EventEntry.build(seq=e.seq, seat=e.seat, action=e.action) for e in events],
        **live.meta(),
        state=live.state_view,
    )


def refused(
    code: str, message: str, ref: str | None = None, extra: Mapping[str, Any] | None = None
) -> ErrorMessage:
    """An intent or message refused; nothing changed. `ref` echoes the intent's; `extra`, a
    refusal's further fields, gives the engine's reason as data where it said one."""
    key, params = (extra or {}).get("reason"), (extra or {}).get("params")
    said = (key, params) if isinstance(key, str) and isinstance(params, Mapping) else None
    return error(code, message, ref, said)


def rematch(game_id: str, seat: int | None, token: str | None) -> RematchMessage:
    """The offer of the rematch `game_id`: a seat's (with its token), or a spectator's."""
    url = f"/g/{game_id}"
    if seat is None or token is None:
        return RematchMessage.build(game=game_id, url=url, seat=None)
    return RematchMessage.build(game=game_id, url=url, seat=seat, token=token)


def reaction(seat: int, reaction: ReactionId) -> ReactionMessage:
    """A seated player's quick reaction, for the whole table."""
    return ReactionMessage.build(seat=seat, reaction=reaction)
