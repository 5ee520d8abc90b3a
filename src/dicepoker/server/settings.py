"""The web app's settings (`dicepoker serve`'s options), and where its database lives."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from platformdirs import user_data_path

#: `dicepoker serve --workers N` hands the settings to its worker processes in this variable.
SETTINGS_ENV = "DICEPOKER_SERVER_SETTINGS"


def default_database() -> str:
    """`DATABASE_URL` when set, else a SQLite file in the user's data folder."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    folder = user_data_path("dicepoker")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "dicepoker.db")


@dataclass
class Settings:
    database: str
    bot_delay: float = 0.6
    # Redis for several processes on one PostgreSQL database (docs/deploy.md); None: one process.
    redis_url: str | None = None
    # Processes in which bots think (0: a thread of the server process itself).
    bot_workers: int = 1
    # Judge each seat's chance of winning after every event of a game with rivals (in the bot
    # workers, else a thread).
    win_probability: bool = True
    # Rate limits (security.py; 0 switches one off): messages per WebSocket connection, and
    # requests that create something (games, joins, record imports) per client address.
    ws_rate: float = 10.0
    ws_burst: int = 20
    # Open game WebSockets per client address (0: no cap), over every process sharing a Redis.
    ws_connections: int = 50
    http_rate: float = 0.5
    http_burst: int = 20
    # The advisor and the analyses (CPU-heavy) a second per client address, and at once.
    analysis_rate: float = 2.0
    analysis_burst: int = 30
    # Quick reactions a second per game seat, and at once.
    reaction_rate: float = 0.25
    reaction_burst: int = 3
    # Sign-ups and logins a second per client address, and at once; failed logins a second
    # per account name, and at once (a right password costs nothing here).
    login_rate: float = 0.2
    login_burst: int = 10
    login_name_rate: float = 0.05
    login_name_burst: int = 5
    # Imported records: at most this many bytes and turns.
    max_record_bytes: int = 1024 * 1024
    max_record_turns: int = 2000
    # Prometheus metrics at /metrics (docs/deploy.md, "Health and metrics"): not served unless
    # asked for; with a token, answered only to a scraper that sends it as a bearer token.
    metrics: bool = False
    metrics_token: str | None = None
    # Hours without a person's action after which a game is closed as abandoned (0: never;
    # dicepoker.master.loading).
    abandon_after: float = 24.0

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settings:
        return cls(**json.loads(text))
