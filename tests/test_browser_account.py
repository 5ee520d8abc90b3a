"""Accounts in a real browser (Chromium through Playwright): sign up through the page, the name in
the header, log out, log in again (a wrong password said in the page's words), change the
password, delete the account; a sign-up in Spanish and in Portuguese; the header on a phone,
logged in; a login over its limit; and screenshots of the sign-up, log-in and account pages at a
desktop and a phone size in every language (test-artifacts/account/), each page axe-clean in
both themes.

As in test_browser.py: one `dicepoker serve` and one Chromium per module, a browser context per
person (its own cookies), the server's own answers as the reference.
"""

from __future__ import annotations

import re
from typing import Any, Final

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, Route, ViewportSize, expect

from browser_support import WORDS, Api, OpenPerson, Person, artifacts_dir, people, screenshot
from live_server import NO_LIMITS, LiveServer
from test_browser_a11y import AXE, NO_TRANSITIONS, check

expect.set_options(timeout=15_000)

open_person = pytest.fixture(people, name="open_person")
PASSWORD: Final = "correct horse"
#: The only complaints a page may have: the browser logs each refusal the API answers.
REFUSED: Final = re.compile(r"^Failed to load resource: .* status of (400|401|409|429) ")
SIZES: Final[dict[str, ViewportSize]] = {
    "1280x900": {"width": 1280, "height": 900},
    "375x667": {"width": 375, "height": 667},
}
LOCALES: Final = {"en": "en-US", "es": "es-ES", "pt": "pt-BR"}
#: The words of the account pages the tests look for, per language (the catalogs' words).
ACCOUNT_WORDS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "sign_up": "Sign up",
        "log_in": "Log in",
        "log_out": "Log out",
        "name": "Name",
        "password": "Password",
        "again": "Password again",
        "create": "Create the account",
        "mismatch": "The two passwords are not the same.",
        "bad_name": (
            "That name cannot be used (an account's name is 3 to 20 letters, digits, _ or -)."
        ),
        "bad_password": "A password is 8 to 200 characters long.",
        "bad_login": "Wrong name or password.",
        "welcome": "Welcome, {name}! Your account is ready.",
        "welcome_back": "Welcome back, {name}!",
        "logged_out": "You are logged out.",
        "your_account": "Your account",
    },
    "es": {
        "sign_up": "Crear cuenta",
        "log_in": "Entrar",
        "log_out": "Cerrar sesión",
        "name": "Nombre",
        "password": "Contraseña",
        "again": "Repite la contraseña",
        "create": "Crear la cuenta",
        "mismatch": "Las dos contraseñas no coinciden.",
        "bad_name": (
            "Ese nombre no se puede usar "
            "(el nombre de una cuenta tiene de 3 a 20 letras, cifras, _ o -)."
        ),
        "bad_password": "Una contraseña tiene de 8 a 200 caracteres.",
        "bad_login": "Nombre o contraseña incorrectos.",
        "welcome": "¡Te damos la bienvenida, {name}! Tu cuenta está lista.",
        "welcome_back": "¡Hola de nuevo, {name}!",
        "logged_out": "Has cerrado la sesión.",
        "your_account": "Tu cuenta",
    },
    "pt": {
        "sign_up": "Criar conta",
        "log_in": "Entrar",
        "log_out": "Sair",
        "name": "Nome",
        "password": "Senha",
        "again": "Repita a senha",
        "create": "Criar a conta",
        "mismatch": "As duas senhas não são iguais.",
        "bad_name": (
            "Esse nome não pode ser usado "
            "(o nome de uma conta tem de 3 a 20 letras, algarismos, _ ou -)."
        ),
        "bad_password": "Uma senha tem de 8 a 200 caracteres.",
        "bad_login": "Nome ou senha incorretos.",
        "welcome": "Boas-vindas, {name}! Sua conta está pronta.",
        "welcome_back": "Olá de novo, {name}!",
        "logged_out": "Você saiu da sua conta.",
        "your_account": "Sua conta",
    },
}


def only_refusals(person: Person) -> None:
    """No script error or dialog; the console has nothing but the API's refusals."""
    assert person.errors == [] and person.dialogs == [], (person.errors, person.dialogs)
    assert all(REFUSED.match(text) for text in person.console_errors), person.console_errors


def whoami(page: Page, server: LiveServer) -> str | None:
    """Who the server says this browser is (GET /api/me with the browser's cookies)."""
    response = page.context.request.get(server.url + "/api/me")
    if response.status == 401:
        return None
    assert response.ok, response.text()
    name: str = response.json()["name"]
    return name


def logs_in(server: LiveServer, name: str, password: str) -> int:
    """The status of a log-in with these words, from a client of its own (no cookies)."""
    body = {"name": name, "password": password}
    return httpx.post(server.url + "/api/session", json=body, timeout=10.0).status_code


def header(page: Page) -> Locator:
    return page.locator(".site-header")


def expect_logged_in(page: Page, name: str) -> None:
    """The header names the account (as text) and links to its player page; no "Log in"."""
    link = header(page).locator("a.account-link")
    expect(link).to_have_attribute("href", f"/players/{name}")
    expect(link.locator(".account-name")).to_have_text(name)
    expect(header(page).get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(header(page).locator(".account-nav")).to_have_count(0)


def expect_anonymous(page: Page, lang: str = "en") -> None:
    words = ACCOUNT_WORDS[lang]
    expect(header(page).get_by_role("link", name=words["log_in"], exact=True)).to_be_visible()
    expect(header(page).locator("a.account-link")).to_have_count(0)


def fill_sign_up(page: Page, name: str, password: str, again: str, lang: str = "en") -> None:
    words = ACCOUNT_WORDS[lang]
    page.get_by_label(words["name"], exact=True).fill(name)
    page.get_by_label(words["password"], exact=True).fill(password)
    page.get_by_label(words["again"], exact=True).fill(again)
    page.get_by_role("button", name=words["create"]).click()


def fill_log_in(page: Page, name: str, password: str, lang: str = "en") -> None:
    words = ACCOUNT_WORDS[lang]
    page.get_by_label(words["name"], exact=True).fill(name)
    page.get_by_label(words["password"], exact=True).fill(password)
    page.locator("#login-button").click()


def toast(page: Page, text: str) -> None:
    expect(page.locator("#toasts .toast", has_text=text)).to_be_visible()


# --- the whole life of an account, in English -------------------------------------------------


def test_sign_up_log_out_log_in_change_the_password_and_delete(
    server: LiveServer, open_person: OpenPerson
) -> None:
    person = open_person(locale="en-US")
    page = person.page
    page.goto(server.url + "/rules/school")
    expect_anonymous(page)
    header(page).get_by_role("link", name="Sign up", exact=True).click()
    expect(page).to_have_url(server.url + "/signup?next=/rules/school")
    expect(page.get_by_role("heading", name="Sign up")).to_be_visible()

    # Bad input: said in the page's words beside its field, and nobody is signed up.
    name_field = page.get_by_label("Name", exact=True)
    fill_sign_up(page, "<b>Tess</b>", PASSWORD, PASSWORD)
    expect(page.locator("#signup-error")).to_have_text(ACCOUNT_WORDS["en"]["bad_name"])
    expect(name_field).to_have_attribute("aria-invalid", "true")
    expect(name_field).to_be_focused()
    fill_sign_up(page, "Tess_2", PASSWORD, PASSWORD + "!")
    expect(page.locator("#signup-error")).to_have_text("The two passwords are not the same.")
    expect(page.get_by_label("Password again")).to_have_attribute("aria-invalid", "true")
    expect(name_field).not_to_have_attribute("aria-invalid", "true")
    fill_sign_up(page, "Tess_2", "short", "short")
    expect(page.locator("#signup-error")).to_have_text(ACCOUNT_WORDS["en"]["bad_password"])
    assert whoami(page, server) is None
    assert logs_in(server, "Tess_2", "short") == 401

    # Signed up: logged in at once, back where the visitor was, the name in the header.
    fill_sign_up(page, "Tess_2", PASSWORD, PASSWORD)
    expect(page).to_have_url(server.url + "/rules/school")
    expect_logged_in(page, "Tess_2")
    toast(page, "Welcome, Tess_2! Your account is ready.")
    assert whoami(page, server) == "Tess_2"
    # The lobby knows the account from its page: the first seat is the account's own.
    header(page).get_by_role("link", name="Lobby", exact=True).click()
    expect(page.locator("#seat-name-0")).to_have_value("Tess_2")
    expect(page.locator("#seat-name-0")).to_have_attribute("readonly", "")

    # The name is taken, in any case, for someone else.
    other = open_person(locale="en-US")
    other.page.goto(server.url + "/signup")
    fill_sign_up(other.page, "tess_2", "another password", "another password")
    expect(other.page.locator("#signup-error")).to_have_text("That name is taken.")
    assert whoami(other.page, server) is None

    # The header's name leads to the player page, and the account page is one link from there;
    # log out.
    header(page).get_by_role("link", name="Tess_2").click()
    expect(page).to_have_url(server.url + "/players/Tess_2")
    page.get_by_role("link", name="Account settings").click()
    expect(page).to_have_url(server.url + "/account")
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    expect(page.locator("#account-name")).to_have_text("Tess_2")
    expect(page.locator(".account-who .hint")).to_contain_text("Member since ")
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(server.url + "/")
    toast(page, "You are logged out.")
    expect_anonymous(page)
    assert whoami(page, server) is None
    page.goto(server.url + "/account")  # anonymous: the account page asks to log in first
    expect(page).to_have_url(server.url + "/login?next=/account")

    # Log in: a wrong password first, said in the page's words; nothing happens.
    password_field = page.get_by_label("Password", exact=True)
    fill_log_in(page, "Tess_2", "not the password")
    expect(page.locator("#login-error")).to_have_text("Wrong name or password.")
    expect(password_field).to_have_attribute("aria-invalid", "true")
    expect(page).to_have_url(server.url + "/login?next=/account")
    assert whoami(page, server) is None
    fill_log_in(page, "TESS_2", PASSWORD)  # a name in any case
    expect(page).to_have_url(server.url + "/account")
    expect_logged_in(page, "Tess_2")
    toast(page, "Welcome back, Tess_2!")

    # Change the password: the current one wrong, the new one too short or typed differently.
    current = page.get_by_label("Current password")
    fresh = page.get_by_label("New password", exact=True)
    again = page.get_by_label("New password again")
    change = page.get_by_role("button", name="Change the password")
    new_password = "a new secret phrase"
    for was, new, repeat, said, marked in (
        ("wrong one", new_password, new_password, "Wrong name or password.", current),
        (PASSWORD, "short", "short", ACCOUNT_WORDS["en"]["bad_password"], fresh),
        (
            PASSWORD,
            new_password,
            "a new secret phrasE",
            "The two passwords are not the same.",
            again,
        ),
    ):
        current.fill(was)
        fresh.fill(new)
        again.fill(repeat)
        change.click()
        expect(page.locator("#password-error")).to_have_text(said)
        expect(marked).to_have_attribute("aria-invalid", "true")
    assert logs_in(server, "Tess_2", PASSWORD) == 200  # nothing changed so far
    current.fill(PASSWORD)
    fresh.fill(new_password)
    again.fill(new_password)
    change.click()
    expect(page.locator("#password-done")).to_have_text("Your password is changed.")
    expect(page.locator("#password-error")).to_be_hidden()
    expect(current).to_have_value("")
    assert logs_in(server, "Tess_2", PASSWORD) == 401
    assert logs_in(server, "Tess_2", new_password) == 200
    page.reload()  # this browser stays logged in
    expect_logged_in(page, "Tess_2")

    # Delete: the password asked again, then a question; "No" keeps the account.
    delete = page.get_by_role("button", name="Delete my account")
    your_password = page.get_by_label("Your password")
    question = page.get_by_text("Delete the account Tess_2 for ever?")
    delete.click()
    expect(page.locator("#delete-error")).to_have_text("Write your password to delete the account.")
    expect(question).to_be_hidden()
    your_password.fill("not the password")
    delete.click()
    expect(question).to_be_visible()
    expect(page.get_by_role("button", name="No, keep it")).to_be_focused()
    page.get_by_role("button", name="Yes, delete it").click()
    expect(page.locator("#delete-error")).to_have_text("Wrong name or password.")
    expect(question).to_be_hidden()
    assert whoami(page, server) == "Tess_2"
    your_password.fill(new_password)
    delete.click()
    page.get_by_role("button", name="No, keep it").click()
    expect(question).to_be_hidden()
    expect(delete).to_be_focused()
    assert whoami(page, server) == "Tess_2"
    delete.click()
    page.get_by_role("button", name="Yes, delete it").click()
    expect(page).to_have_url(server.url + "/")
    toast(page, "Your account is deleted.")
    expect_anonymous(page)
    assert whoami(page, server) is None
    assert logs_in(server, "Tess_2", new_password) == 401
    only_refusals(person)
    only_refusals(other)


# --- Spanish and Portuguese --------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_sign_up_log_out_and_a_wrong_password_in_every_language(
    server: LiveServer, open_person: OpenPerson, lang: str
) -> None:
    words = ACCOUNT_WORDS[lang]
    person = open_person(locale=LOCALES[lang])
    page = person.page
    page.goto(server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", WORDS[lang]["html_lang"])
    expect_anonymous(page, lang)
    header(page).get_by_role("link", name=words["sign_up"], exact=True).click()
    expect(page).to_have_url(server.url + "/signup")
    expect(page.get_by_role("heading", name=words["sign_up"])).to_be_visible()
    expect(page).to_have_title(re.compile("^" + re.escape(words["sign_up"]) + " · "))
    name = f"Sol_{lang}"
    fill_sign_up(page, name, PASSWORD, PASSWORD + "x", lang)
    expect(page.locator("#signup-error")).to_have_text(words["mismatch"])
    fill_sign_up(page, "no", PASSWORD, PASSWORD, lang)
    expect(page.locator("#signup-error")).to_have_text(words["bad_name"])
    fill_sign_up(page, name, "corto", "corto", lang)
    expect(page.locator("#signup-error")).to_have_text(words["bad_password"])
    fill_sign_up(page, name, PASSWORD, PASSWORD, lang)
    expect(page).to_have_url(server.url + "/")
    expect_logged_in(page, name)
    toast(page, words["welcome"].format(name=name))

    # The header's name leads to the player page, and the settings are one link from there.
    header(page).locator("a.account-link").click()
    page.wait_for_url(f"**/players/{name}")
    page.locator("#account-settings").click()
    expect(page.get_by_role("heading", name=words["your_account"])).to_be_visible()
    page.get_by_role("button", name=words["log_out"]).click()
    toast(page, words["logged_out"])
    expect_anonymous(page, lang)

    header(page).get_by_role("link", name=words["log_in"], exact=True).click()
    expect(page.get_by_role("heading", name=words["log_in"])).to_be_visible()
    fill_log_in(page, name, "contraseña mala", lang)
    expect(page.locator("#login-error")).to_have_text(words["bad_login"])
    fill_log_in(page, name, PASSWORD, lang)
    expect(page).to_have_url(server.url + "/")
    toast(page, words["welcome_back"].format(name=name))
    expect_logged_in(page, name)
    only_refusals(person)


class Gate:
    """Holds the requests a page route sends it until `release`, then lets every one through
    (those held and those still to come), whichever comes first."""

    def __init__(self) -> None:
        self.opened = False
        self.held: list[Route] = []

    def __call__(self, route: Route) -> None:
        if self.opened:
            route.continue_()
        else:
            self.held.append(route)

    def release(self) -> None:
        self.opened = True
        for route in self.held:
            route.continue_()
        self.held.clear()


def test_a_form_sent_while_the_page_still_loads_is_sent_by_the_page(
    server: LiveServer, open_person: OpenPerson
) -> None:
    """A visitor quick enough to send the sign-up form before its script has arrived, and again
    before the script's catalog has: the browser never sends the form itself (a GET to the page
    that would put the password in the address); the page holds it and answers, in its words,
    once it is set up."""
    words = ACCOUNT_WORDS["es"]
    person = open_person(locale=LOCALES["es"])
    page = person.page
    script, catalog = Gate(), Gate()
    page.route(re.compile(r"/js/signup\.js(\?|$)"), script)
    page.route(re.compile(r"/i18n/es\.json(\?|$)"), catalog)
    page.goto(server.url + "/signup", wait_until="commit")
    signup_form = page.locator("#signup-form")
    fill_sign_up(page, "Sol_early", PASSWORD, PASSWORD + "x", "es")
    expect(signup_form).to_have_attribute("data-held", "1")
    script.release()
    expect(signup_form).to_have_attribute("data-wired", "1")
    expect(signup_form).not_to_have_attribute("data-held", "1")
    catalog.release()
    expect(page.locator("#signup-error")).to_have_text(words["mismatch"])
    assert page.url == server.url + "/signup"
    # Sent again with the two passwords the same: signed up, back at the lobby.
    fill_sign_up(page, "Sol_early", PASSWORD, PASSWORD, "es")
    expect(page).to_have_url(server.url + "/")
    expect_logged_in(page, "Sol_early")
    only_refusals(person)


def test_a_login_over_its_limit_says_how_long_to_wait(
    tmp_path_factory: pytest.TempPathFactory, open_person: OpenPerson
) -> None:
    limits = (*NO_LIMITS, "--login-name-rate", "0.01", "--login-name-burst", "1")
    limited = LiveServer(str(tmp_path_factory.mktemp("limited") / "games.db"), limits=limits)
    limited.start()
    try:
        signed = httpx.post(
            limited.url + "/api/accounts", json={"name": "Guarded", "password": PASSWORD}
        )
        assert signed.status_code == 201
        person = open_person(locale="es-ES")
        page = person.page
        page.goto(limited.url + "/login")
        fill_log_in(page, "Guarded", "not the password", "es")
        expect(page.locator("#login-error")).to_have_text("Nombre o contraseña incorrectos.")
        fill_log_in(page, "Guarded", PASSWORD, "es")  # the name waits now, even for the owner
        expect(page.locator("#login-error")).to_have_text(
            re.compile(r"^Demasiados intentos: vuelve a intentarlo en \d+ s\.$")
        )
        expect(page).to_have_url(limited.url + "/login")
        assert whoami(page, limited) is None
        only_refusals(person)
    finally:
        limited.stop()


# --- the header on a phone --------------------------------------------------------------------

#: The header's box, and whether anything in it reaches past the screen's right edge.
HEADER: Final = """() => {
  const r = document.querySelector(".site-header").getBoundingClientRect();
  const past = [...document.querySelectorAll(".site-header *")]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map((e) => e.outerHTML.slice(0, 60));
  return { height: r.height, past, scroll: document.documentElement.scrollWidth };
}"""


@pytest.mark.parametrize("width", [375, 360, 320])
def test_the_header_stays_one_line_on_a_phone_logged_in_or_not(
    server: LiveServer, api: Api, open_person: OpenPerson, width: int
) -> None:
    game = api.post(
        "/api/games",
        {"variant": "school", "options": {}, "seats": [{"kind": "human", "name": "Uma"}]},
    )
    assert game.status_code == 201, game.text
    person = open_person(
        viewport={"width": width, "height": 640}, is_mobile=True, has_touch=True, locale="pt-BR"
    )
    page = person.page
    name = f"Wwwwwwwwwwwwwwww{width}"  # the widest letters, 19 of them
    for logged_in in (False, True):
        for path in ("/", f"/g/{game.json()['id']}", "/rules/school", "/signup"):
            page.goto(server.url + path)
            measured: dict[str, Any] = page.evaluate(HEADER)
            where = (width, logged_in, path, measured)
            assert measured["height"] <= 48, where
            assert measured["past"] == [] and measured["scroll"] <= width, where
        if not logged_in:
            # A figure to log in (its words for screen readers), no "Sign up" (on that page).
            login = header(page).get_by_role("link", name="Entrar", exact=True)
            expect(login).to_be_visible()
            expect(header(page).get_by_role("link", name="Criar conta")).to_be_hidden()
            login.tap()
            expect(page.get_by_role("heading", name="Entrar")).to_be_visible()
            page.get_by_role("link", name="Criar conta").tap()
            fill_sign_up(page, name, PASSWORD, PASSWORD, "pt")
            expect(page).to_have_url(server.url + "/")
    # Logged in: a badge with the initial, named by the whole name.
    badge = header(page).get_by_role("link", name=name, exact=True)
    expect(badge).to_be_visible()
    expect(badge.locator(".account-initial")).to_have_text("W")
    only_refusals(person)


# --- screenshots, and axe ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `bash scripts/check-js` (npm ci) first")
    return AXE.read_text(encoding="utf-8")


def shoot(page: Page, name: str, theme: str = "light", *, full_page: bool = True) -> None:
    """A screenshot of the page in the `theme` (test-artifacts/account/NAME.png), its colours
    at their end (no transition caught halfway)."""
    page.add_style_tag(content=NO_TRANSITIONS)
    page.emulate_media(color_scheme="dark" if theme == "dark" else "light")
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    (artifacts_dir() / "account").mkdir(exist_ok=True)
    screenshot(page, f"account/{name}", full_page=full_page)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(ACCOUNT_WORDS))
def test_screenshots_of_the_account_pages_and_axe(
    server: LiveServer, browser: Browser, axe_source: str, lang: str, size: str
) -> None:
    words = ACCOUNT_WORDS[lang]
    context = browser.new_context(
        viewport=SIZES[size], locale=LOCALES[lang], bypass_csp=True, reduced_motion="reduce"
    )
    context.set_default_timeout(15_000)
    try:
        person = Person(context.new_page())
        page = person.page
        shot = f"{{}}-{lang}-{size}"

        page.goto(server.url + "/signup")
        expect(page.get_by_role("heading", name=words["sign_up"])).to_be_visible()
        shoot(page, shot.format("signup"))
        check(page, axe_source, f"sign-up {lang} {size}")
        fill_sign_up(page, f"Ana_{lang}", PASSWORD, "typed otherwise", lang)
        expect(page.locator("#signup-error")).to_have_text(words["mismatch"])
        shoot(page, shot.format("signup-error"))
        check(page, axe_source, f"sign-up with an error {lang} {size}")

        page.goto(server.url + "/login")
        expect(page.get_by_role("heading", name=words["log_in"])).to_be_visible()
        shoot(page, shot.format("login"))
        check(page, axe_source, f"log-in {lang} {size}")

        name = f"Ana_{lang}_{size.split('x')[0]}"
        signed = context.request.post(
            server.url + "/api/accounts", data={"name": name, "password": PASSWORD}
        )
        assert signed.status == 201, signed.text()
        page.goto(server.url + "/account")
        expect(page.locator("#account-name")).to_have_text(name)
        expect_logged_in(page, name)
        shoot(page, shot.format("account"))
        check(page, axe_source, f"account {lang} {size}")
        page.locator("#delete-password").fill(PASSWORD)
        page.locator("#delete-button").click()
        expect(page.locator("#delete-confirm")).to_be_visible()
        shoot(page, shot.format("account-delete"))
        shoot(page, shot.format("account-delete-dark"), "dark")
        check(page, axe_source, f"account, asked to delete {lang} {size}")

        page.goto(server.url + "/")
        expect_logged_in(page, name)
        shoot(page, shot.format("lobby"), full_page=False)
        person.assert_clean()
    finally:
        context.close()
