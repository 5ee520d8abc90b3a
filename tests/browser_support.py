"""Helpers of the browser tests: a person at a page, the lobby's form, a turn played by hand.

Everything here acts on the page the way a person does (clicks, taps, keys, filling the form) and
reads what the page shows; the server's own state (`GET /api/games/{id}`) is the reference that
the page is checked against. No helper sleeps: waits are Playwright's auto-waiting `expect()` or
`LiveServer.wait_for`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Error,
    FloatRect,
    Locator,
    Page,
    Route,
    WebSocketRoute,
    expect,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from dicepoker.engine import GameState, breakdown
from dicepoker.record import replay
from live_server import LiveServer

ROOT: Final = Path(__file__).resolve().parent.parent
GOLDEN: Final = ROOT / "tests" / "golden" / "spec_examples"
CHROMIUM: Final = "/usr/bin/chromium"
CHROMIUM_ARGS: Final = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

#: The words the tests look for, per language (from the catalogs in src/dicepoker/i18n/locales).
WORDS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "html_lang": "en",
        "language": "English",
        "lobby": "Lobby",
        "new_game": "New game",
        "school": "School",
        "columns": "Columns on the sheet",
        "player": "Player {n}",
        "name_of": "Name of player {n}",
        "start": "Start the game",
        "roll": "Roll",
        "roll_n": "Roll {n} dice",
        "rolls_left": "Rolls left: {n}",
        "ones": "School 1",
        "playing": "Playing",
    },
    "es": {
        "html_lang": "es",
        "language": "Español",
        "lobby": "Sala",
        "new_game": "Nueva partida",
        "school": "Escuela",
        "columns": "Columnas de la hoja",
        "player": "Jugador {n}",
        "name_of": "Nombre del jugador {n}",
        "start": "Empezar la partida",
        "roll": "Tirar",
        "roll_n": "Tirar {n} dados",
        "rolls_left": "Tiradas restantes: {n}",
        "ones": "Escuela 1",
        "playing": "En juego",
    },
    "pt": {
        "html_lang": "pt-BR",
        "language": "Português",
        "lobby": "Salão",
        "new_game": "Nova partida",
        "school": "Escola",
        "columns": "Colunas da cartela",
        "player": "Jogador {n}",
        "name_of": "Nome do jogador {n}",
        "start": "Começar a partida",
        "roll": "Rolar",
        "roll_n": "Rolar {n} dados",
        "rolls_left": "Rolagens restantes: {n}",
        "ones": "Escola 1",
        "playing": "Em jogo",
    },
}

_DIE_LABEL: Final = re.compile(r"^\D*\d+: (\d)\b")
_GAME_URL: Final = re.compile(r"/g/([A-Za-z0-9_-]+)$")


def artifacts_dir() -> Path:
    """DICEPOKER_TEST_ARTIFACTS, else test-artifacts/ at the repo root (git-ignored)."""
    folder = Path(os.environ.get("DICEPOKER_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot of `page` as `name`.png in the artifacts folder and check the file."""
    path = artifacts_dir() / f"{name}.png"
    if full_page:
        # A full-page capture of a scrolled page draws sticky parts (the phone's felt) mid-page.
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=full_page)
    assert path.is_file(), path
    assert path.stat().st_size > 0, path
    return path


def number(text: str) -> int:
    """A number as the page writes it (1,832 · 1.832 · −200) back to an int."""
    cleaned = text.strip().replace("\u2212", "-")
    negative = cleaned.startswith("-")
    digits = re.sub(r"\D", "", cleaned)
    assert digits, f"no number in {text!r}"
    return -int(digits) if negative else int(digits)


@dataclass
class Person:
    """One person's page, with the uncaught script errors and dialogs it has seen."""

    page: Page
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("pageerror", self._on_error)
        self.page.on("dialog", self._on_dialog)
        self.page.on("console", self._on_console)

    def _on_error(self, error: Error) -> None:
        self.errors.append(f"{error.name}: {error.message}")

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _on_console(self, message: ConsoleMessage) -> None:
        # A socket cut short by leaving the page is the browser's doing, not the app's.
        if message.type == "error" and not message.text.startswith("WebSocket connection to"):
            self.console_errors.append(message.text)

    def assert_clean(self) -> None:
        """No uncaught script error, console error or dialog (alert/confirm/prompt) here."""
        assert self.errors == [], self.errors
        assert self.console_errors == [], self.console_errors
        assert self.dialogs == [], self.dialogs


OpenPerson = Callable[..., Person]


def people(browser: Browser) -> Iterator[OpenPerson]:
    """The `open_person` fixture of the browser test modules (`pytest.fixture(people,
    name="open_person")`): open_person(**context_options) -> a Person on a fresh page of a fresh
    context (own cookies and localStorage, hence own seat tokens); all closed at the end."""
    contexts: list[BrowserContext] = []

    def make(**options: Any) -> Person:
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return Person(context.new_page())

    yield make
    for context in contexts:
        context.close()


def with_tokens(person: Person, game: dict[str, Any], *seats: int) -> Person:
    """Give `person`'s browser the seat tokens of `game` (created over the API) for `seats`, as
    the lobby would have kept them."""
    tokens = json.dumps({str(seat): game["seats"][seat]["token"] for seat in seats})
    person.page.context.add_init_script(
        f"localStorage.setItem({json.dumps('dicepoker:tokens:' + game['id'])}, "
        f"{json.dumps(tokens)})"
    )
    return person


def rewrite_rules(page: Page, change: Callable[[dict[str, Any]], None]) -> None:
    """Let `change` edit the rules of every position the server sends `page` (the game's first
    look over HTTP and every WebSocket message): a page that reads its layout from the rules
    follows the edit, one that assumes a variant's layout does not."""

    def edit(data: Any) -> Any:
        state = data.get("state") if isinstance(data, dict) else None
        if isinstance(state, dict) and isinstance(state.get("rules"), dict):
            change(state["rules"])
        return data

    def http(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, json=edit(response.json()))

    def socket(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: ws.send(json.dumps(edit(json.loads(message)))))

    page.route(re.compile(r"/api/games/[A-Za-z0-9_-]+$"), http)
    page.route_web_socket(re.compile(r"/ws/games/"), socket)


# --- a finished game ---------------------------------------------------------------------------


def totals(state: GameState) -> list[int]:
    """Every player's total in `state`, from the engine."""
    return [breakdown(state, seat).total for seat in range(len(state.players))]


def end_screen(page: Page, api: Api, game_id: str, me: str | None) -> dict[str, Any]:
    """The end screen shows the server's ranking and totals; returns the server's game."""
    end = page.locator("#end")
    expect(end).to_be_visible()
    data = api.game(game_id)
    assert data["status"] == "finished"
    state = data["state"]
    assert state["finished"] is True
    players = state["players"]
    expected = [(players[s]["name"], players[s]["total"]) for s in state["ranking"]]
    ranking = page.locator("#ranking li")
    expect(ranking).to_have_count(len(players))
    names = ranking.locator(".rank-name").all_inner_texts()
    scores = [number(text) for text in ranking.locator(".rank-total").all_inner_texts()]
    assert list(zip(names, scores, strict=True)) == expected
    places = [number(text) for text in ranking.locator(".rank-place").all_inner_texts()]
    assert places == [players[s]["place"] for s in state["ranking"]]
    assert shown_totals(page) == {p["name"]: p["total"] for p in players}
    # The view's `winner` stays null when a School game simply ends; the page names the sole
    # leader. (With a tie for first place it still names one player: not checked here.)
    leaders = [p["name"] for p in players if p["place"] == 1]
    if len(leaders) == 1:
        title = "You win!" if leaders[0] == me else f"{leaders[0]} wins!"
        expect(page.locator("#end-title")).to_have_text(title)
    expect(page.locator("#turn-msg")).to_have_text("Game over")
    expect(page.locator("#roll-button")).to_be_hidden()
    return data


def download_record(page: Page) -> dict[str, Any]:
    """Click "Download the record" on the end screen and read the file the browser saved."""
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the record").click()
    download = info.value
    assert download.suggested_filename.endswith(".json")
    record: dict[str, Any] = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    return record


def check_record(record: dict[str, Any], data: dict[str, Any]) -> None:
    """The record replays to the finished game the server shows."""
    state = replay(record).state
    assert state.finished is True
    assert totals(state) == [p["total"] for p in data["state"]["players"]]


# --- the lobby ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """A row of the lobby's form: a person (a name, or "" for an open seat) or a bot level."""

    kind: str
    value: str = ""


def create_in_lobby(
    page: Page, base_url: str, seats: list[Seat], *, columns: int = 1, lang: str = "en"
) -> str:
    """Fill the lobby's "New game" form (variant School) and start; returns the game id."""
    words = WORDS[lang]
    if not page.url.startswith(base_url) or urlpath(page.url) != "/":
        page.goto(base_url + "/")
    school = page.get_by_role("radio", name=re.compile("^" + re.escape(words["school"])))
    school.check()
    expect(school).to_be_checked()
    # The options appear once the variants have loaded.
    page.get_by_label(words["columns"]).fill(str(columns))
    add = page.locator("#add-seat")
    while page.locator("#seat-list li").count() < len(seats):
        add.click()
    while page.locator("#seat-list li").count() > len(seats):
        page.locator("#seat-list li").last.locator("button.remove-seat").click()
    for index, seat in enumerate(seats):
        n = index + 1
        page.get_by_label(words["player"].format(n=n), exact=True).select_option(seat.kind)
        field_ = page.get_by_label(words["name_of"].format(n=n)) if seat.kind == "human" else None
        if field_ is not None:
            field_.fill(seat.value)
        else:
            page.locator(f"#seat-name-{index}").select_option(seat.value)
    page.get_by_role("button", name=words["start"]).click()
    page.wait_for_url(_GAME_URL)
    match = _GAME_URL.search(page.url)
    assert match, page.url
    return match.group(1)


def urlpath(url: str) -> str:
    """The path of an absolute URL, without the query."""
    rest = url.split("://", 1)[-1]
    path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
    return path.split("?", 1)[0].split("#", 1)[0]


# --- the table ---------------------------------------------------------------------------------


_TEXT_IS = """([selector, text]) => {
  const element = document.querySelector(selector);
  return element !== null && element.textContent.replace(/\\s+/g, " ").trim() === text;
}"""


def wait_text(page: Page, selector: str, text: str, timeout: float = 15_000) -> None:
    """Wait until `selector` has exactly `text` (its text content, as `to_have_text` reads it,
    CSS-hidden parts included), then assert it with `expect`.

    `expect()` alone retries after 100, 250, 500 and 1000 ms; a turn has several such waits for
    the server's answer, so this waits with the page's animation frames first (much quicker) and
    lets `expect` give the failure message if the text never comes.
    """
    # On a timeout the expect below says what the page shows instead.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(_TEXT_IS, arg=[selector, text], polling="raf", timeout=timeout)
    expect(page.locator(selector)).to_have_text(text, timeout=1_000)


def box_of(locator: Locator, timeout: float = 10.0) -> FloatRect:
    """`locator`'s bounding box, read again when the element was replaced as it was read.

    In a game with rivals a `chances` message may follow any event and the page redraws the
    table then: a one-shot `bounding_box()` that resolves the element just before the redraw
    reads a detached element (None). The element the locator resolves to next is the new one.
    """
    deadline = time.monotonic() + timeout
    while True:
        box = locator.bounding_box()
        if box is not None:
            return box
        assert time.monotonic() < deadline, f"{locator} has no box"


class Api:
    """The server's REST API over one kept-alive connection (a fresh `httpx.get` per call costs
    tens of milliseconds; the tests look at the server's state after every click)."""

    def __init__(self, server: LiveServer) -> None:
        # An idle connection is dropped here well before the server closes it (`--keep-alive`,
        # 5 s): at the same expiry, a request sent as the server closed the connection found it
        # gone ("Server disconnected without sending a response") after a slow browser step.
        self.client = httpx.Client(
            base_url=server.url, timeout=10.0, limits=httpx.Limits(keepalive_expiry=1.0)
        )

    def close(self) -> None:
        self.client.close()

    def get(self, path: str) -> Any:
        response = self.client.get(path)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: Any) -> httpx.Response:
        return self.client.post(path, json=body)

    def game(self, game_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.get(f"/api/games/{game_id}")
        return data

    def record(self, game_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.get(f"/api/games/{game_id}/record")
        return data

    def wait_for_game(
        self, game_id: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """Poll the game until `predicate` holds (a condition wait, not a sleep)."""
        deadline = time.monotonic() + timeout
        while True:
            data = self.game(game_id)
            if predicate(data):
                return data
            if time.monotonic() > deadline:
                raise AssertionError(f"game {game_id}: condition not met in {timeout}s: {data}")
            time.sleep(0.01)


def shown_dice(page: Page) -> list[int]:
    """The dice the tray shows, read from their accessible names ("die 1: 5, held")."""
    labels: list[str] = page.locator("#dice button.die").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label') || '')"
    )
    values = []
    for label in labels:
        match = _DIE_LABEL.match(label)
        values.append(int(match.group(1)) if match else 0)
    return values


def held_dice(page: Page) -> list[bool]:
    pressed: list[str | None] = page.locator("#dice button.die").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-pressed'))"
    )
    return [value == "true" for value in pressed]


def offered_moves(page: Page) -> list[str]:
    """The moves the highlighted cells of the big sheet offer, in page order."""
    actions: list[str] = page.locator("#main-sheet td.legal button.move").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    )
    return actions


def die(page: Page, index: int) -> Locator:
    """Die `index` (0-based) of the tray, by its accessible name."""
    return page.get_by_role("button", name=re.compile(rf"^die {index + 1}: "))


def shown_totals(page: Page) -> dict[str, int]:
    """name -> total as the players strip shows them."""
    names = page.locator("#players .player-name").all_inner_texts()
    totals = page.locator("#players .player-total").all_inner_texts()
    assert len(names) == len(totals)
    return {name: number(total) for name, total in zip(names, totals, strict=True)}


def best_move(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A sensible cell: the biggest gain, scores before strikes before zeros on ties."""
    order = {"score": 0, "strike": 1, "zero": 2}
    return max(legal, key=lambda o: (o["gain"], -order.get(o["verb"], 3)))


def keep_for(dice: list[int]) -> list[int]:
    """The dice a plain player keeps: those showing the most common face (never all of them)."""
    face, _count = Counter(dice).most_common(1)[0]
    keep = [i for i, value in enumerate(dice) if value == face]
    if len(keep) == 1:
        keep = [max(range(len(dice)), key=lambda i: dice[i])]
    return keep if len(keep) < len(dice) else []


@dataclass
class TurnPlayer:
    """Plays whole turns on a table page for whichever of its seats is to move."""

    api: Api
    game_id: str
    hot_seat: bool = False
    touch: bool = False

    def expect_my_turn(self, page: Page, name: str) -> dict[str, Any]:
        """Wait until `page` offers `name` the first roll of a turn; return the server's game."""
        msg = f"{name}, your turn: roll the dice." if self.hot_seat else "Your turn: roll the dice."
        wait_text(page, "#turn-msg", msg)
        expect(page.locator("#roll-button")).to_be_enabled()
        expect(page.locator("#roll-button")).to_have_text("Roll")
        expect(page.locator("#rolls-left")).to_have_text("Rolls left: 3")
        data = self.api.game(self.game_id)
        turn = data["state"]["turn"]
        assert data["state"]["players"][turn["seat"]]["name"] == name
        assert turn["rolls"] == 0
        return data

    def _press(self, target: Locator) -> None:
        if self.touch:
            target.scroll_into_view_if_needed()
            expect(target).to_be_in_viewport()
            target.tap()
        else:
            target.click()

    def play(self, page: Page, name: str, *, rolls: int, keyboard: bool = False) -> str:
        """Play one turn of `name`: `rolls` rolls (holding dice between them), then the best cell.

        Returns the move made. Checks on the way that the page shows the server's dice and offers
        exactly the server's legal moves in highlighted cells.
        """
        data = self.expect_my_turn(page, name)
        seq = data["seq"]
        done = len(self.api.record(self.game_id)["turns"])
        button = page.locator("#roll-button")
        kept: list[int] = []
        dice: list[int] = []
        for n in range(rolls):
            if n > 0:
                kept = keep_for(dice)
                if not kept:
                    break  # five of a kind: nothing to roll for
                self._hold(page, kept, keyboard=keyboard)
                left = len(dice) - len(kept)
                expect(button).to_have_text(
                    f"Roll {left} die" if left == 1 else f"Roll {left} dice"
                )
            if keyboard:
                page.keyboard.press("r")
            else:
                self._press(button)
            seq += 1
            wait_text(page, "#rolls-left", f"Rolls left: {2 - n}")
            now = self.api.game(self.game_id)
            assert now["seq"] == seq, (now["seq"], seq)
            turn = now["state"]["turn"]
            before, dice = dice, shown_dice(page)
            assert dice == turn["dice"], (dice, turn["dice"])
            assert turn["rolls"] == n + 1
            for index in kept:
                assert dice[index] == before[index], (index, before, dice)
        legal = now["state"]["turn"]["legal"]
        assert sorted(offered_moves(page)) == sorted(o["action"] for o in legal)
        choice = best_move(legal)
        action: str = choice["action"]
        cell = page.locator(f'#main-sheet td.legal button.move[data-action="{action}"]')
        # A zero or a strike is asked twice: the first press arms it, the second makes it.
        presses = 2 if choice["verb"] in ("zero", "strike") else 1
        if keyboard:
            self._choose_with_keys(page, choice)
            expect(cell).to_be_focused()
            for _ in range(presses):
                page.keyboard.press("Enter")
        else:
            for _ in range(presses):
                self._press(cell)
        self.api.wait_for_game(self.game_id, lambda g: g["seq"] > seq)
        record = self.api.record(self.game_id)
        assert record["turns"][done].get("move") == action, (record["turns"][done], action)
        return action

    def _hold(self, page: Page, keep: list[int], *, keyboard: bool) -> None:
        """Hold exactly the dice `keep` (the page keeps earlier holds after a roll)."""
        for index, held in enumerate(held_dice(page)):
            if held != (index in keep):
                if keyboard:
                    page.keyboard.press(str(index + 1))
                else:
                    self._press(die(page, index))
            expected = "true" if index in keep else "false"
            expect(die(page, index)).to_have_attribute("aria-pressed", expected)

    @staticmethod
    def _choose_with_keys(page: Page, choice: dict[str, Any]) -> None:
        """Arrow keys to the cell of `choice`: down jumps to the next row with a highlighted
        cell, right to the next highlighted cell."""
        moves = offered_moves(page)
        rows = list(dict.fromkeys(action.split()[1] for action in moves))
        in_row = [action for action in moves if action.split()[1] == choice["row"]]
        page.keyboard.press("ArrowDown")  # focuses the first highlighted cell
        for _ in range(rows.index(choice["row"])):
            page.keyboard.press("ArrowDown")
        for _ in range(in_row.index(choice["action"])):
            page.keyboard.press("ArrowRight")
