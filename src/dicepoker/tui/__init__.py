"""The terminal client: `dicepoker play` (a Textual app).

Play the School game, Yahtzee or poker dice at the terminal, hot seat with friends and bots, save
and load game records, or join a game of the web app through its WebSocket protocol. See
docs/tui.md.
"""

from dicepoker.tui.app import PlayApp
from dicepoker.tui.game_screen import GameScreen
from dicepoker.tui.hints import Advisor, Hint, ImmediateAdvisor, set_advisor
from dicepoker.tui.remote import GameAddress, RemoteError, RemoteSession, game_address
from dicepoker.tui.session import (
    ActionRefused,
    LocalSession,
    SeatChoice,
    SeatError,
    Session,
    parse_seats,
)
from dicepoker.tui.setup_screen import SetupDefaults, SetupScreen

__all__ = [
    "ActionRefused",
    "Advisor",
    "GameAddress",
    "GameScreen",
    "Hint",
    "ImmediateAdvisor",
    "LocalSession",
    "PlayApp",
    "RemoteError",
    "RemoteSession",
    "SeatChoice",
    "SeatError",
    "Session",
    "SetupDefaults",
    "SetupScreen",
    "game_address",
    "parse_seats",
    "set_advisor",
]
