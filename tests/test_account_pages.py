"""The account pages over HTTP: who the header names, where the pages send a visitor (never to
another site), and a name always shown as text."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from dicepoker.server.settings import Settings
from dicepoker.server.storage.models import AccountRow
from dicepoker.server.storage.store import Store
from dicepoker.site import create_app

ORIGIN = {"origin": "http://testserver"}
PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pages") / "games.db"


@pytest.fixture(scope="module")
def client(database: Path) -> Iterator[TestClient]:
    settings = Settings(
        database=str(database), bot_delay=0, bot_workers=0, login_rate=0, login_name_rate=0
    )
    with TestClient(create_app(settings), headers=ORIGIN) as test_client:
        yield test_client


def sign_up(client: TestClient, name: str) -> None:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text


def test_the_header_offers_log_in_and_sign_up_to_a_visitor(client: TestClient) -> None:
    client.cookies.clear()
    page = client.get("/rules/school").text
    assert 'href="/login?next=/rules/school"' in page
    assert 'href="/signup?next=/rules/school"' in page
    assert 'class="account-link"' not in page
    lobby = client.get("/").text  # the lobby is where a login goes anyway
    assert 'href="/login"' in lobby and 'href="/signup"' in lobby


def test_the_header_names_the_account_and_links_to_it(client: TestClient) -> None:
    sign_up(client, "Header_Name")
    for path in ("/", "/rules/school", "/g/some-game", "/no/such/page"):
        page = client.get(path).text
        assert '<span class="account-name">Header_Name</span>' in page, path
        assert 'href="/players/Header_Name"' in page and 'href="/login' not in page, path


def test_the_account_page_is_for_the_logged_in(client: TestClient) -> None:
    client.cookies.clear()
    anonymous = client.get("/account", follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == "/login?next=/account"
    assert "no-cache" in anonymous.headers["cache-control"]
    sign_up(client, "Owner_1")
    page = client.get("/account")
    assert page.status_code == 200
    assert 'id="account-name">Owner_1</p>' in page.text
    assert page.headers["cache-control"] == "no-cache" and "Cookie" in page.headers["vary"]


def test_logged_in_the_forms_send_you_on(client: TestClient) -> None:
    sign_up(client, "Already_In")
    for form in ("/login", "/signup"):
        plain = client.get(form, follow_redirects=False)
        assert (plain.status_code, plain.headers["location"]) == (303, "/account")
        back = client.get(form + "?next=/rules/yahtzee", follow_redirects=False)
        assert back.headers["location"] == "/rules/yahtzee"


NOT_NEXT = [
    "//evil.example/x",
    "/\\evil.example",
    "https://evil.example/",
    "evil.example",
    "/login",
    "/signup?next=/x",
    "/x?a=<b>",
    "/" + "a" * 300,
]


@pytest.mark.parametrize("number", range(len(NOT_NEXT)))
def test_next_never_leads_off_the_site(client: TestClient, number: int) -> None:
    next_path = NOT_NEXT[number]
    client.cookies.clear()
    page = client.get("/login", params={"next": next_path}).text
    assert 'data-next="/"' in page  # the lobby, not that address
    assert "evil" not in page
    sign_up(client, f"Next_Check_{number}")
    sent = client.get("/login", params={"next": next_path}, follow_redirects=False)
    assert sent.headers["location"] == "/account"


def test_a_good_next_is_kept_through_the_forms(client: TestClient) -> None:
    client.cookies.clear()
    page = client.get("/login?next=/g/abc-12").text
    assert 'data-next="/g/abc-12"' in page
    assert 'href="/signup?next=/g/abc-12"' in page  # "No account yet?" keeps it


def test_the_pages_speak_the_visitors_language(client: TestClient) -> None:
    client.cookies.clear()
    spanish = client.get("/signup", headers={"accept-language": "es-ES"}).text
    assert '<h1 id="signup-title">Crear cuenta</h1>' in spanish
    assert "Repite la contraseña" in spanish
    sign_up(client, "Idioma")
    portuguese = client.get("/account", headers={"accept-language": "pt-BR"}).text
    assert "Membro desde " in portuguese and "Excluir minha conta" in portuguese


def test_a_stored_name_with_markup_is_shown_as_text(client: TestClient, database: Path) -> None:
    """The API never stores such a name (bad_name); were one in the database anyway, the pages
    would still show it as text."""
    sign_up(client, "Marked_Up")

    async def rename() -> None:
        store = Store(str(database))
        try:
            async with store.sessions() as session, session.begin():
                await session.execute(
                    update(AccountRow)
                    .where(AccountRow.name == "Marked_Up")
                    .values(name='<img src=x onerror="alert(1)">')
                )
        finally:
            await store.close()

    asyncio.run(rename())
    for path in ("/", "/account"):
        page = client.get(path).text
        assert "<img src=x" not in page, path
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page, path
