"""Every refusal code, what it means, and the words a person reads for it: the one table.

Every refusal the server sends (`{"type": "error", "code", "message"}` on the WebSocket,
`{"error": {"code", "message"}}` over HTTP) has a stable `code`; `message` is the server's own
short English explanation. An interface shows the code's `words` (English, a message id of the
catalogs, so it is translated) where the table has them, and the server's message otherwise.
"""

from __future__ import annotations

from typing import NamedTuple


class Code(NamedTuple):
    meaning: str  # for developers: the schema and docs/api.md
    words: str | None = None  # for people: what an interface shows (a catalog message id)
    socket: bool = True  # whether the WebSocket sends it (else only HTTP answers do)


CODES: dict[str, Code] = {
    "bad_message": Code(
        "not a valid message: not JSON, a duplicate key, a wrong type, an unknown key",
        "The server did not understand that.",
    ),
    "too_large": Code("the message or body is over the size limit", "That was too large."),
    "rate_limited": Code("too many messages or requests: not processed", "Slow down a little."),
    "spectator": Code(
        "a spectator (no seat token) sent an intent, a reaction or asked for a rematch",
        "Spectators cannot play.",
    ),
    "bad_token": Code(
        "the seat token holds no seat of this game", "This seat token was refused.", False
    ),
    "waiting": Code(
        "the game starts when every seat is taken", "The game starts when every seat is taken."
    ),
    "stale": Code(
        "the intent's seq is not the game's: it moved on",
        "The game moved on: look again and retry.",
    ),
    "not_your_turn": Code("it is another seat's turn", "It is not your turn."),
    "bad_roll": Code("no roll is possible now", "You cannot roll now."),
    "bad_move": Code(
        "the action cannot be read, or the move is not allowed with these dice",
        "That cell cannot be filled with these dice.",
    ),
    "game_over": Code("the game is over", "The game is over."),
    "abandoned": Code(
        "nobody played the game for too long: it was closed (its record stays)",
        "Nobody played this game for too long: it was closed.",
    ),
    "illegal": Code("an action these rules do not have"),
    "internal": Code("a failure on the server (logged there)"),
    "bad_request": Code("a request body or parameter of the wrong shape", socket=False),
    "not_found": Code("no such game, record or page", socket=False),
    "method_not_allowed": Code("no such method on this path", socket=False),
    "bad_options": Code("an unknown variant, or options it does not take", socket=False),
    "bad_seats": Code("seats the variant cannot seat (count, bot level)", socket=False),
    "bad_record": Code("a record that cannot be replayed", "This record cannot be read:", False),
    "no_open_seat": Code("every seat of the game is taken", socket=False),
    "seat_taken": Code("that seat is not open", socket=False),
    "not_finished": Code(
        "the game is not over yet (its dice seed, its rematch come at the end)", socket=False
    ),
    "bad_name": Code(
        "an account's name that is not 3-20 letters, digits, '_' or '-', or any name that is "
        'styled, blank, hides characters or stacks marks (docs/api.md, "Names")',
        "That name cannot be used (an account's name is 3 to 20 letters, digits, _ or -).",
        False,
    ),
    "name_taken": Code(
        "an account, a bot or a deleted player has that name, or one that looks like it",
        "That name is taken.",
        False,
    ),
    "bad_password": Code(
        "a password shorter than 8 or longer than 200 characters",
        "A password is 8 to 200 characters long.",
        False,
    ),
    "bad_login": Code(
        "a wrong name or password (the same answer for both)", "Wrong name or password.", False
    ),
    "account_disabled": Code("the account is disabled", "This account is disabled.", False),
    "not_logged_in": Code("the request needs a logged-in account", "Log in first.", False),
    "already_seated": Code(
        "the account has a seat of this game already",
        "You have a seat in this game already.",
        False,
    ),
    "bad_origin": Code(
        "a state-changing request with a session cookie from another site (its Origin)",
        "This request came from another site.",
        False,
    ),
    "daily_played": Code(
        "this account has started this preset's daily challenge today already (or asked for a "
        "daily game's rematch: the daily is played once a day)",
        "You have played today's challenge already.",
        False,
    ),
    "day_over": Code(
        "the day of this daily challenge is over: its game can no longer be played",
        "This daily challenge is over: its day has ended.",
    ),
    "no_puzzle": Code(
        "no puzzle of this preset yet (they come from finished games)",
        "There is no puzzle of this game yet.",
        False,
    ),
    "competitive": Code(
        "the expert's help (advice, the analysis of a running game) is off in a rated game, a "
        "daily challenge before its day is over, and a casual game made without hints",
        "Hints are off in this game.",
        False,
    ),
    "daily_private": Code(
        "another player's game of today's daily challenge: readable once its day is over",
        "This daily challenge game can be seen when its day is over.",
        False,
    ),
    "log_in_for_daily": Code(
        "today's daily challenge is played once, by a logged-in account",
        "Log in to play today's daily challenge.",
        False,
    ),
    "seed_withheld": Code(
        "a daily challenge's seed is revealed when its day is over (UTC)",
        "The seed of a daily challenge is revealed when its day is over.",
        False,
    ),
}

#: Close codes of the WebSocket (besides the standard ones) and what they mean.
CLOSE_FORBIDDEN = 4403  # a wrong seat token, or a page of another site (its Origin)
CLOSE_NOT_FOUND = 4404  # no such game
CLOSE_RATE_LIMITED = 4429  # the connection kept flooding
CLOSE_ABANDONED = 4410  # the game was closed as abandoned: nothing more to play or watch live


def refusal_words(code: str, message: str) -> str:
    """What to show a person for a refusal: the words of its code, else the server's message."""
    known = CODES.get(code)
    return (known.words if known is not None else None) or message or code
