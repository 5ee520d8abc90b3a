"""Hypothesis against a live `dicepoker serve`: WebSocket messages and record imports.

The WebSocket: arbitrary JSON, near-valid messages (wrong types, extra keys, huge numbers,
unicode, action texts such as "hold 9" or "score nope"), truncated JSON, raw text and binary
frames, sent by the player to move, the other player and a spectator of a live game. Every one is
answered with a well-formed message (an `error` with a known code, or what a valid message earns),
the connection stays up, and a refused message leaves the game (read back through the API)
exactly as it was.

Record imports: the golden records, mutated (keys dropped, values replaced by other JSON, dice out
of range, lists grown, cut or shuffled) and posted to `/api/records`: the answer is 201 exactly
when the library replays the record within the limits, else a 4xx JSON error, never a 500.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dicepoker.i18n.catalogs import raw_catalog
from dicepoker.record import RecordError, RecordTurnError, check_record, load_record
from dicepoker.rules import VARIANTS, get_rules
from live_server import LiveServer
from support import LOCAL_EXAMPLES
from ws_client import Player

ERROR_CODES = {
    "bad_message",
    "too_large",
    "spectator",
    "waiting",
    "stale",
    "not_your_turn",
    "bad_roll",
    "bad_move",
    "game_over",
    "illegal",
}
REPLY_TYPES = {"error", "pong", "sync", "event", "seats", "resync", "held", "chances", "reaction"}
INTERNALS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|sqlalchemy|sqlite|asyncpg|pydantic|\b[A-Z]\w*Error\b"
)
REASON_WORDS = {key for key in raw_catalog("en") if key.startswith("reason.")}
ROWS = sorted({row.id for name in VARIANTS for row in get_rules(name).rows})

# --- strategies --------------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=8,
)
WORDS = st.sampled_from(
    ["roll", "hold", "score", "strike", "zero", "timeout", *ROWS, "0", "1", "4", "5", "9", "-1"]
)
ACTIONS = st.one_of(
    st.sampled_from(
        [
            "roll",
            "hold 0",
            "hold 1 3",
            "hold 4",
            "hold 9",
            "hold -1",
            "hold 0 0",
            "hold",
            "hold 0 1 2 3 4",
            "hold x",
            "hold ٣",
            "score",
            "score nope",
            "score pair",
            "strike sum",
            "zero ones",
            "timeout",
            "",
            "   ",
            "ROLL",
            "roll roll",
            "hold 99999999999999999999999",
        ]
    ),
    st.lists(WORDS, min_size=1, max_size=4).map(" ".join),
    st.text(max_size=80),
)
TYPES = st.sampled_from(["act", "act", "act", "auto", "sync", "ping", "pong", "fly", "ACT", ""])
NEAR = st.fixed_dictionaries(
    {"type": TYPES | JSON},
    optional={
        "action": ACTIONS | JSON,
        "seq": st.integers(-3, 40) | st.integers(min_value=2**31) | JSON,
        "ref": st.text(max_size=80) | JSON,
        "last_seq": st.integers(-3, 40) | st.integers(min_value=2**31) | JSON,
        "extra": JSON,
    },
)
# Messages of the right shape, so the game's own refusals (and acceptances) come into play.
SHAPED = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("act"), "action": ACTIONS},
        optional={"seq": st.integers(-2, 60), "ref": st.text(max_size=64)},
    ),
    st.fixed_dictionaries(
        {"type": st.just("act"), "action": st.sampled_from(["roll", "hold 0", "hold 1 2"])}
    ),
    st.fixed_dictionaries({"type": st.just("auto")}, optional={"ref": st.text(max_size=64)}),
    st.fixed_dictionaries({"type": st.just("sync"), "last_seq": st.integers(-2, 60)}),
    st.just({"type": "ping"}),
)
FRAMES: st.SearchStrategy[str | bytes] = st.one_of(
    SHAPED.map(json.dumps),
    SHAPED.map(lambda m: json.dumps(m, ensure_ascii=False)),
    SHAPED.map(json.dumps),
    NEAR.map(json.dumps),
    NEAR.map(lambda m: json.dumps(m, ensure_ascii=False)),
    NEAR.map(lambda m: json.dumps(m)[: len(json.dumps(m)) // 2]),
    st.builds(lambda m, n: json.dumps({**m, "pad": "é" * n}), NEAR, st.integers(1000, 3000)),
    JSON.map(json.dumps),
    st.text(max_size=300),
    st.binary(max_size=200),
)


def sent_text(frame: str | bytes) -> str:
    """Everything a frame or body said, raw and as the strings its JSON decodes to."""
    raw = frame.decode(errors="replace") if isinstance(frame, bytes) else frame
    parts = [raw]

    def walk(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                parts.append(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    with contextlib.suppress(ValueError, RecursionError):
        walk(json.loads(raw))
    return "\n".join(parts)


def assert_no_internals(text: str, sent: str) -> None:
    """No internal detail in `text`, except what the client itself sent (echoed back)."""
    for match in INTERNALS.finditer(text):
        assert match.group(0) in sent, f"internal detail {match.group(0)!r} in {text!r}"


def assert_error(message: dict[str, Any], sent: str) -> None:
    assert set(message) <= {"type", "code", "message", "ref", "reason", "params"}, message
    assert message["code"] in ERROR_CODES, message
    assert isinstance(message["message"], str) and 0 < len(message["message"]) <= 600, message
    assert_no_internals(message["message"], sent)
    assert isinstance(message.get("ref", ""), str)
    if "reason" in message:  # the engine's reason as data: a catalog key and its values
        assert f"reason.{message['reason']}" in REASON_WORDS, message
        params = message.get("params", {})
        assert isinstance(params, dict), message
        assert all(isinstance(v, str | int) for v in params.values()), message


def assert_well_formed(message: dict[str, Any], sent: str) -> None:
    assert isinstance(message, dict) and message.get("type") in REPLY_TYPES, message
    if message["type"] == "error":
        assert_error(message, sent)
    elif message["type"] in ("event", "sync"):
        assert isinstance(message["seq"], int)
        told = message.get("state", message.get("changes"))  # an event of dicepoker.v2: changes
        assert isinstance(told, dict)


# --- the WebSocket -----------------------------------------------------------------------------


class Table:
    """A running game with its two players and a spectator; a new one once it ends."""

    VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
        ("school", {"columns": 1}),
        ("yahtzee", {}),
        ("poker-dice", {"turn_seconds": 0}),
    )

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.client = httpx.Client(base_url=server.url, timeout=10)
        self.games = 0
        self.players: list[Player] = []
        self.game: dict[str, Any] = {}

    def open(self) -> None:
        self.close_players()
        variant, options = self.VARIANTS[self.games % len(self.VARIANTS)]
        self.games += 1
        seats = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
        response = self.client.post(
            "/api/games", json={"variant": variant, "options": options, "seats": seats}
        )
        assert response.status_code == 201, response.text
        body = response.json()
        self.id = body["id"]
        ws = self.server.ws_url
        # No keepalive pings: their random payload, drawn on the client's thread, would disturb
        # hypothesis's generation.
        tokens = [seat["token"] for seat in body["seats"]] + [None]
        self.players = [Player(ws, self.id, token) for token in tokens]
        assert self.players[0].act("roll")["type"] == "event"  # dice on the table to hold
        self.game = self.read()

    def read(self) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{self.id}")
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    def who(self, role: str) -> Player:
        mover: int = self.game["state"]["turn"]["seat"]
        index = {"mover": mover, "other": 1 - mover, "spectator": 2}[role]
        return self.players[index]

    def close_players(self) -> None:
        for player in self.players:
            player.close()
        self.players = []

    def close(self) -> None:
        self.close_players()
        self.client.close()


@pytest.fixture(scope="module")
def table(server: LiveServer) -> Iterator[Table]:
    table = Table(server)
    table.open()
    yield table
    table.close()


def is_ping(frame: str | bytes) -> bool:
    if isinstance(frame, bytes):
        return False
    try:
        return bool(json.loads(frame) == {"type": "ping"})
    except ValueError:
        return False


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(role=st.sampled_from(["mover", "other", "spectator"]), frame=FRAMES)
def test_websocket_messages(table: Table, role: str, frame: str | bytes) -> None:
    if table.game["status"] == "finished":
        table.open()
    before = table.game
    player = table.who(role)
    seen = len(player.seen)
    player.connection.send(frame)
    player.send({"type": "ping"})  # the connection answers in order: this pong comes last
    for _ in range(2 if is_ping(frame) else 1):
        player.until(lambda m: m.get("type") == "pong")
    replies = player.seen[seen:]
    for reply in replies:
        assert_well_formed(reply, sent_text(frame))
    errors = [r for r in replies if r["type"] == "error"]
    event(f"{role}: " + (errors[0]["code"] if errors else replies[0]["type"]))
    new_events = [r for r in replies if r["type"] == "event" and r["seq"] > before["seq"]]
    after = table.read()  # (the server is still up)
    table.game = after
    # Every accepted action was broadcast back to this connection too; nothing else moved.
    assert after["seq"] == before["seq"] + len(new_events), (frame, replies)
    if errors and not new_events:
        assert len(errors) == 1, replies
        assert after["state"] == before["state"], frame
        assert after["status"] == before["status"]
    if role == "spectator" or (errors and not (isinstance(frame, str) and '"auto"' in frame)):
        assert not new_events, (frame, replies)


# --- record imports ----------------------------------------------------------------------------


def _golden() -> list[dict[str, Any]]:
    texts: dict[str, dict[str, Any]] = {}
    for path in sorted(LOCAL_EXAMPLES.glob("*.json")):
        if not path.name.endswith(".expected.json"):
            text = path.read_text(encoding="utf-8")
            texts[text] = json.loads(text)
    assert texts
    return list(texts.values())


RECORDS = _golden()
MAX_TURNS = 2000
MAX_BYTES = 1024 * 1024


def _place(draw: st.DrawFn, record: dict[str, Any]) -> tuple[Any, Any]:
    """A random (container, key) inside the record, at any depth."""
    parent: Any = record
    key: Any = draw(st.sampled_from(sorted(record) or ["turns"]))
    while True:
        value = parent.get(key) if isinstance(parent, dict) else parent[key]
        if not isinstance(value, dict | list) or not value or not draw(st.booleans()):
            return parent, key
        parent = value
        key = draw(st.sampled_from(sorted(value) if isinstance(value, dict) else range(len(value))))


@st.composite
def mutated_records(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(RECORDS)))
    if draw(st.booleans()):
        # Any prefix of a record is a record (the last turn may be in progress).
        turns = record["turns"]
        cut = draw(st.integers(0, len(turns)))
        record["turns"] = turns[:cut]
        if cut < len(turns) and draw(st.booleans()):
            rolls = turns[cut].get("rolls", [])
            record["turns"].append({"rolls": rolls[: draw(st.integers(0, len(rolls)))]})
    for _ in range(draw(st.integers(0, 3))):
        parent, key = _place(draw, record)
        if isinstance(parent, dict) and key not in parent:
            parent[key] = draw(JSON)
            continue
        value = parent[key]
        op = draw(
            st.sampled_from(["drop", "replace", "dice", "grow", "cut", "shuffle", "wrap", "text"])
        )
        if op == "drop":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(JSON)
        elif op == "dice":
            faces = st.integers(-2, 9) | st.integers(min_value=2**63) | SCALARS
            parent[key] = draw(st.lists(faces, min_size=4, max_size=6))
        elif op == "grow" and isinstance(value, list):
            parent[key] = value * draw(st.integers(2, 25))
        elif op == "cut" and isinstance(value, list):
            parent[key] = value[: draw(st.integers(0, len(value)))]
        elif op == "shuffle" and isinstance(value, list):
            parent[key] = draw(st.permutations(value))
        elif op == "wrap":
            parent[key] = [value]
        else:
            parent[key] = json.dumps(value)
    return record


def expected_answer(body: bytes) -> tuple[int, int | None]:
    """What the server must answer, by the library's own reading: (status, bad turn)."""
    if len(body) > MAX_BYTES:
        return 413, None
    try:
        record = load_record(body)
        turns = record.get("turns")
        if isinstance(turns, list) and len(turns) > MAX_TURNS:
            return 422, None
        check_record(record)
    except RecordTurnError as exc:
        return 422, exc.turn
    except RecordError:
        return 422, None
    return 201, None


@pytest.fixture(scope="module")
def importer(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


BODIES = st.one_of(
    mutated_records().map(lambda r: json.dumps(r).encode()),
    mutated_records().map(lambda r: json.dumps(r).encode()[: len(json.dumps(r)) // 3]),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=100),
)


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(body=BODIES)
def test_record_imports(importer: httpx.Client, body: bytes) -> None:
    response = importer.post(
        "/api/records", content=body, headers={"content-type": "application/json"}
    )
    status, turn = expected_answer(body)
    event(f"{status}")
    assert response.status_code == status, (response.status_code, response.text[:300])
    data = response.json()
    if status == 201:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", data["id"])
        assert data["url"] == f"/replay/r/{data['id']}"
        return
    error = data["error"]
    assert error["code"] in ("bad_record", "too_large")
    assert isinstance(error["message"], str) and error["message"]
    assert_no_internals(error["message"], sent_text(body))
    assert error.get("turn") == turn
