"""Names that do not deceive (issue 54, item 6), on SQLite and PostgreSQL: every name of the
review's list is refused through the API with its code and a message saying why, for accounts
and for seats taken without one (a new game's, an open seat joined; the daily challenge seats
accounts only); ordinary names in Spanish, Portuguese and English still pass;
a name and a look-alike of it never both get accounts; migration 0010 gives the accounts made
before their skeletons without failing on look-alikes made before the rule."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from alembic import command
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from dicepoker.bots import LEVELS
from dicepoker.master import Refusal
from dicepoker.names import name_skeleton, prototypes
from dicepoker.server.community.accounts import Accounts, name_key
from dicepoker.server.settings import Settings
from dicepoker.server.storage.store import Store, alembic_config, database_url
from dicepoker.site import create_app
from live_server import fresh_postgres_database

T = TypeVar("T")
ORIGIN = {"origin": "http://testserver"}
PASSWORD = "correct horse"
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

CYRILLIC_A = "\u0410"  # А, drawn as the Latin A
HANGUL_FILLERS = "\u3164" * 4  # four letters to Python that render as nothing
ZALGO = "Z\u0335\u0321\u0322a\u0338\u0327l\u0337g\u0336o\u0335"


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    if request.param == "sqlite":
        database = str(tmp_path_factory.mktemp("names") / "names.db")
    else:
        database = fresh_postgres_database()
    settings = Settings(
        database=database,
        bot_delay=0,
        bot_workers=0,
        login_rate=0,
        login_name_rate=0,
        http_rate=0,
    )
    with TestClient(create_app(settings), headers=ORIGIN) as test_client:
        yield test_client


def _sign_up(client: TestClient, name: str) -> Any:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    client.cookies.clear()
    return response


def _refused(response: Any, status: int, code: str, *words: str) -> None:
    """The refusal's status and code, and a message that says why (its `words`)."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    assert all(word in error["message"] for word in words), error["message"]


# --- account names --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "code", "words"),
    [
        (CYRILLIC_A + "lice_1", 409, "name_taken", ("looks like",)),  # "Alice_1" exists
        ("A1ice_1", 409, "name_taken", ("looks like",)),
        ("\uff21\uff4c\uff49\uff43\uff45", 400, "bad_name", ("fullwidth",)),  # Ａｌｉｃｅ
        ("\U0001d401\U0001d428\U0001d425\U0001d41d", 400, "bad_name", ("styled",)),  # 𝐁𝐨𝐥𝐝
        (HANGUL_FILLERS, 400, "bad_name", ("invisible", "Hangul")),
        ("Bo\u3164b", 400, "bad_name", ("invisible",)),
        (ZALGO, 400, "bad_name", ("letters",)),
        ("Expert", 409, "name_taken", ("bot",)),
        ("Experto_2", 409, "name_taken", ("bot",)),
    ],
)
def test_deceiving_account_names_are_refused(
    client: TestClient, name: str, status: int, code: str, words: tuple[str, ...]
) -> None:
    _sign_up(client, "Alice_1")  # (taken already after the first case: the same either way)
    _refused(_sign_up(client, name), status, code, *words)
    login = client.post("/api/session", json={"name": name, "password": PASSWORD})
    assert login.status_code in (400, 401)  # no account was made under it


def test_ordinary_names_in_spanish_portuguese_and_english_are_accounts(
    client: TestClient,
) -> None:
    for name in ("José", "João", "Ñandú", "Mary_Ann", "Brandão-2"):
        response = _sign_up(client, name)
        assert response.status_code == 201, response.text
        assert response.json()["name"] == name
    decomposed = "Jose\u0301_B"  # typed with a combining accent: stored composed
    response = _sign_up(client, decomposed)
    assert response.status_code == 201 and response.json()["name"] == "José_B"


def test_an_accounts_name_is_unique_whatever_its_case_or_look_alikes(client: TestClient) -> None:
    assert _sign_up(client, "Marta").status_code == 201
    # In capitals; with a Cyrillic М; with Cyrillic а's; with a Greek Μ.
    for alike in ("MARTA", "\u041carta", "M\u0430rt\u0430", "\u039carta"):
        _refused(_sign_up(client, alike), 409, "name_taken")
    assert client.post("/api/session", json={"name": "marta", "password": PASSWORD}).is_success
    client.cookies.clear()


# --- seat names -----------------------------------------------------------------------------

#: The review's seat names (an account "Rosa_9" exists): each is refused with its code.
SEAT_NAMES = [
    (HANGUL_FILLERS, 400, "bad_name", ("invisible",)),
    (ZALGO, 400, "bad_name", ("combining marks",)),
    ("Expert 2", 409, "name_taken", ("bot",)),
    ("Deleted player", 409, "name_taken", ("deleted",)),
    ("Rosa_9", 409, "name_taken", ("account",)),
    ("R\u043esa_9", 409, "name_taken", ("account",)),  # a Cyrillic о
    ("\u2800\u2800\u2800", 400, "bad_name", ("invisible",)),  # Braille blanks
    ("\ufdfa" * 3, 400, "bad_name", ("at most",)),  # three ligatures, 54 letters in NFKC
]
ORDINARY_SEATS = ("Inés", "Conceição", "Ñandú Pérez", "Ana María", "Mary Jane")


@pytest.fixture
def rosa(client: TestClient) -> None:
    _sign_up(client, "Rosa_9")


def _create(client: TestClient, seats: list[dict[str, Any]]) -> Any:
    return client.post("/api/games", json={"variant": "yahtzee", "seats": seats})


def _open_game(client: TestClient) -> str:
    response = _create(client, [{"kind": "human", "name": "Host"}, {"kind": "human"}])
    assert response.status_code == 201, response.text
    game: str = response.json()["id"]
    return game


@pytest.mark.parametrize(("name", "status", "code", "words"), SEAT_NAMES)
def test_deceiving_seat_names_are_refused_when_a_game_is_made(
    client: TestClient, rosa: None, name: str, status: int, code: str, words: tuple[str, ...]
) -> None:
    _refused(_create(client, [{"kind": "human", "name": name}]), status, code, *words)


@pytest.mark.parametrize(("name", "status", "code", "words"), SEAT_NAMES)
def test_deceiving_seat_names_are_refused_when_a_seat_is_taken(
    client: TestClient, rosa: None, name: str, status: int, code: str, words: tuple[str, ...]
) -> None:
    game = _open_game(client)
    _refused(client.post(f"/api/games/{game}/join", json={"name": name}), status, code, *words)
    assert client.get(f"/api/games/{game}").json()["status"] == "open"  # the seat is still open


def test_ordinary_seat_names_pass_and_styled_ones_are_seated_plain(client: TestClient) -> None:
    for name in ORDINARY_SEATS:
        created = _create(client, [{"kind": "human", "name": name}])
        assert created.status_code == 201, created.text
        assert created.json()["seats"][0]["name"] == name
        game = _open_game(client)
        joined = client.post(f"/api/games/{game}/join", json={"name": name})
        assert joined.status_code == 200, joined.text
    fullwidth = _create(client, [{"kind": "human", "name": "\uff2c\uff55\uff5a"}])  # Ｌｕｚ
    assert fullwidth.status_code == 201 and fullwidth.json()["seats"][0]["name"] == "Luz"


def test_a_bot_keeps_its_name_and_an_account_sits_under_its_own(client: TestClient) -> None:
    """The names refused to people are the bots' and the accounts' own: a bot seat is named
    after its level, and a logged-in player's seat is named after the account."""
    _sign_up(client, "Olga_3")
    client.post("/api/session", json={"name": "Olga_3", "password": PASSWORD})
    try:
        level = next(iter(LEVELS))
        created = _create(
            client, [{"kind": "human", "account": True}, {"kind": "bot", "level": level}]
        )
        assert created.status_code == 201, created.text
        seats = created.json()["seats"]
        assert seats[0]["name"] == "Olga_3" and seats[0]["account"] is True
        assert seats[1]["name"] == f"{level.capitalize()} 2"
        game = _open_game(client)
        joined = client.post(f"/api/games/{game}/join", json={})
        assert joined.status_code == 200, joined.text
        table = client.get(f"/api/games/{game}").json()["seats"]
        assert [seat["account"] for seat in table] == [False, True]
    finally:
        client.cookies.clear()


# --- the store: look-alikes never both get accounts, the migration ----------------------------


def _on(database: str, work: Callable[[Accounts], Awaitable[T]]) -> T:
    async def run() -> T:
        store = Store(database)
        try:
            await store.migrate()
            return await work(Accounts(store, hasher=FAST))
        finally:
            await store.close()

    return asyncio.run(run())


def _look_alikes() -> dict[str, list[str]]:
    """Each letter or digit's look-alikes that are letters or digits, from Unicode's table, of
    those NFKC leaves as they are (the styled ones are refused before their skeleton counts)."""
    found: dict[str, list[str]] = {}
    for source, prototype in prototypes().items():
        plain = unicodedata.normalize("NFKC", source) == source
        if len(prototype) == 1 and prototype.isalnum() and source.isalnum() and plain:
            found.setdefault(prototype, []).append(source)
    return found


LOOK_ALIKES = _look_alikes()
PLAIN = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    min_size=3,
    max_size=12,
)


@st.composite
def name_and_look_alike(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(PLAIN)
    alike = "".join(draw(st.sampled_from([char, *LOOK_ALIKES.get(char, [])])) for char in name)
    return name, alike


def test_a_name_and_a_look_alike_never_both_get_accounts(database: str) -> None:
    async def work(accounts: Accounts) -> None:
        made: dict[str, str] = {}  # skeleton -> the name that got it
        taken: list[str] = []  # the names refused as another's look-alike

        @settings(
            max_examples=40,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(pair=name_and_look_alike(), alike_first=st.booleans())
        def attempt(pair: tuple[str, str], alike_first: bool) -> None:
            assume(name_skeleton(pair[0]) == name_skeleton(pair[1]) and pair[0] != pair[1])
            for name in reversed(pair) if alike_first else pair:
                try:
                    made_now = asyncio.run_coroutine_threadsafe(
                        accounts.create(name, PASSWORD), loop
                    )
                    account = made_now.result()
                except Refusal as refusal:
                    assert refusal.code in ("bad_name", "name_taken"), refusal
                    if refusal.code == "name_taken":
                        taken.append(name)
                    continue
                assert name_skeleton(name) not in made, (name, made[name_skeleton(name)])
                made[name_skeleton(account.name)] = account.name

        loop = asyncio.get_running_loop()
        await asyncio.to_thread(attempt)
        everyone = await accounts.everyone()
        assert len({name_skeleton(account.name) for account in everyone}) == len(everyone)
        assert len(everyone) >= 10 and len(taken) >= 10, (len(everyone), taken)  # both were tried

    _on(database, work)


def test_a_seat_may_carry_its_callers_own_account_name(database: str) -> None:
    async def work(accounts: Accounts) -> None:
        owner = await accounts.create("Nuno", PASSWORD)
        other = await accounts.create("Iris", PASSWORD)
        assert await accounts.check_seat_name("Nuno", owner) == "Nuno"
        for caller in (None, other):
            with pytest.raises(Refusal) as refused:
                await accounts.check_seat_name("NUNO", caller)
            assert refused.value.code == "name_taken"

    _on(database, work)


def _execute(url: str, statement: str, rows: list[dict[str, Any]] | None = None) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as connection:
                query = text(statement)
                result = await (
                    connection.execute(query, rows) if rows else connection.execute(query)
                )
                return list(result) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_migration_0010_gives_old_accounts_skeletons_and_keeps_look_alikes_logging_in(
    database: str,
) -> None:
    """Accounts made before the rule, a name and two look-alikes of it among them: the first
    made keeps the skeleton, the look-alikes a null one, and every one of them still logs in;
    a seat cannot take any of their names."""
    url = database_url(database)
    command.upgrade(alembic_config(url), "0009")
    old = ["Alice", CYRILLIC_A + "lice", "A1ice", HANGUL_FILLERS, "Bruno"]
    digest = FAST.hash(PASSWORD)
    _execute(
        url,
        "INSERT INTO accounts (name, name_key, password_hash, disabled, created_at) "
        "VALUES (:name, :key, :digest, false, CURRENT_TIMESTAMP)",
        [{"name": name, "key": name_key(name), "digest": digest} for name in old],
    )
    command.upgrade(alembic_config(url), "head")
    stored = dict(_execute(url, "SELECT name, name_skeleton FROM accounts ORDER BY id"))
    assert stored == {
        "Alice": "alice",
        CYRILLIC_A + "lice": None,
        "A1ice": None,
        HANGUL_FILLERS: name_skeleton(HANGUL_FILLERS),
        "Bruno": "bruno",
    }

    async def work(accounts: Accounts) -> None:
        for name in old:
            assert (await accounts.check_login(name, PASSWORD)).name == name
            with pytest.raises(Refusal) as refused:
                await accounts.check_seat_name(name)
            assert refused.value.code in ("name_taken", "bad_name")
        with pytest.raises(Refusal) as taken:
            await accounts.create("AIice", PASSWORD)
        assert taken.value.code == "name_taken"

    _on(database, work)
