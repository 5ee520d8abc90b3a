"""The rematch of a finished game of the web app, from the terminal, as the page does it: the
rematch on offer (the server offers it to every connection, each seat with its own token
there), or else asked for as this seat (`POST /api/games/{id}/rematch`); the new game is then
joined with that token, and its rejoin command kept as for a seat taken with `--name`."""

from __future__ import annotations

from dicepoker.tui.rejoin import Rejoin, keep_seat
from dicepoker.tui.remote import GameAddress, RemoteSession


async def rematch_session(session: RemoteSession) -> RemoteSession:
    """A session at the rematch of `session`'s game (not started): this seat's place there,
    or a spectator's; `RemoteError` when the server refuses to make it."""
    offer = session.rematch or await session.ask_rematch()
    address = GameAddress(session.address.server, offer.game)
    rejoin: Rejoin | None = None
    if offer.token is not None and offer.seat is not None:
        rejoin = keep_seat(address, offer.seat, offer.token)
    return RemoteSession(address, offer.token, backoff=session.backoff, rejoin=rejoin)
