"""Logs for machines: one JSON object per line (`dicepoker serve --log-json`), each carrying the
id of the request it was written while handling.

The request id lives in a context variable (`REQUEST_ID`, set by `server/http/request_ids.py` for
each HTTP request and WebSocket connection), so every line logged while handling a request
carries it, from whichever module and whichever task that request started (a task copies the
context it was made in). The lines go to standard error like uvicorn's own, which the same
configuration writes as JSON too (`json_log_config`, uvicorn's `log_config`, which uvicorn
applies in each server process of `--workers N` as well).

uvicorn's own line for each WebSocket connection is left out (`NoSocketLines`): it shows the
URL with its query, where a simple client's seat token travels (`?token=`); the request line of
`server/http/request_ids.py` says the same with the path only.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

__all__ = ["REQUEST_ID", "JsonFormatter", "json_handler", "json_log_config"]

#: The id of the request (or WebSocket connection) being handled; None outside one.
REQUEST_ID: ContextVar[str | None] = ContextVar("dicepoker_request_id", default=None)

# What every log record has: anything else was given by the caller (`extra=`) and is written
# as a field of its own. uvicorn's colour copy of its message is left out.
_STANDARD = {
    *vars(logging.LogRecord("", 0, "", 0, "", (), None)),
    "message",
    "asctime",
    "taskName",
    "color_message",
}
_FIRST = ("time", "level", "logger", "message", "request_id")
#: uvicorn's lines of each WebSocket connection ("connection open" and "closed" are websockets').
_SOCKET_LINES = ('%s - "WebSocket %s"', "connection open", "connection closed")


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: time (UTC), level, logger, message, the request id when
    it was logged while handling one, the caller's extra fields, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            entry["request_id"] = request_id
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in _FIRST and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class NoSocketLines(logging.Filter):
    """Leaves out uvicorn's lines of each WebSocket connection (their URL may hold a token)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name.startswith("uvicorn")
            and isinstance(record.msg, str)
            and record.msg.startswith(_SOCKET_LINES)
        )


def json_handler() -> logging.Handler:
    """The handler of `json_log_config`: standard error, in JSON. Python's warnings are sent
    through logging too (`logging.captureWarnings`), so that they are JSON lines like the rest;
    made here because uvicorn applies the configuration in every server process."""
    logging.captureWarnings(True)
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(NoSocketLines())
    return handler


def json_log_config() -> dict[str, Any]:
    """The `logging.config.dictConfig` (and uvicorn `log_config`) of `--log-json`: every logger
    to standard error as JSON; warnings and above, and this server's and uvicorn's information
    (start, stop, one line per request: `dicepoker.request`)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"json": {"()": f"{__name__}.json_handler"}},
        "root": {"handlers": ["json"], "level": "WARNING"},
        "loggers": {
            "dicepoker": {"level": "INFO"},
            "uvicorn": {"level": "INFO"},
        },
    }
