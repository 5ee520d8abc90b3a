"""From `dicepoker play`'s options to a running app (the command itself lives in cli.py)."""

from __future__ import annotations

import asyncio
import getpass
import sys
from dataclasses import dataclass, field
from pathlib import Path

from dicepoker.dice import DiceSource, SecretDice, SeededDice
from dicepoker.record import RecordError, load_record
from dicepoker.rules import (
    DEFAULT_VARIANT,
    RulesError,
    find_variant,
    get_rules,
    parse_option_value,
)
from dicepoker.tui.app import PlayApp
from dicepoker.tui.i18n import Words, detect_lang, lang_of
from dicepoker.tui.rejoin import Rejoin, keep_seat, rejoin_command
from dicepoker.tui.remote import RemoteError, RemoteSession, contact, game_address, join_seat
from dicepoker.tui.session import LocalSession, SeatError, parse_seats
from dicepoker.tui.setup_screen import SetupDefaults


def ask_password(name: str) -> str:
    """The account's password: asked on the terminal without echo, or, when standard input is
    not a terminal (a script), its first line."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            password = getpass.getpass(f"Password for {name}: ")
        else:
            password = (sys.stdin.readline() if sys.stdin is not None else "").rstrip("\r\n")
    except (EOFError, KeyboardInterrupt):
        raise LaunchError("no password given") from None
    if not password:
        raise LaunchError("no password given")
    return password


class LaunchError(Exception):
    """Options that cannot start a game; the message says which and why."""


@dataclass
class PlayOptions:
    """The options of `dicepoker play`."""

    variant: str | None = None
    options: list[str] = field(default_factory=list)
    seats: str | None = None
    lang: str | None = None
    load: Path | None = None
    server: str | None = None
    game: str | None = None
    token: str | None = None
    name: str | None = None
    login: str | None = None  # an account's name: its password is asked (`ask_password`)
    password: str | None = field(default=None, repr=False)  # given: not asked (tests)
    seat: int | None = None
    bot_delay: float = 0.6
    seed: int | None = None
    hints: bool = False


@dataclass
class Launch:
    """A ready app and the lines to print once it has closed (how to come back to a seat)."""

    app: PlayApp
    after: list[str] = field(default_factory=list)
    rejoin: Rejoin | None = None  # the seat the lines name (a rematch may move to another)
    lang: str = "en"


def _options(items: list[str]) -> dict[str, bool | int]:
    given: dict[str, bool | int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise LaunchError(f"--option takes NAME=VALUE, not {item!r}")
        try:
            given[name.strip()] = parse_option_value(value)
        except RulesError as exc:
            raise LaunchError(str(exc)) from None
    return given


def build(opts: PlayOptions) -> Launch:
    """The app that `opts` ask for; `LaunchError` when they do not fit together."""
    if opts.lang is not None:
        lang = lang_of(opts.lang)
        if lang is None:
            raise LaunchError(f"--lang is es, pt or en, not {opts.lang!r}")
    else:
        lang = detect_lang()
    words = Words(lang)
    remote = opts.server is not None or opts.game is not None
    if remote:
        return _remote(opts, lang)
    if opts.token or opts.name or opts.login or opts.seat is not None:
        raise LaunchError("--token, --name, --login and --seat are for --server/--game")
    dice: DiceSource = SeededDice(opts.seed) if opts.seed is not None else SecretDice()
    seats = None
    if opts.seats is not None:
        try:
            seats = parse_seats(opts.seats)
        except SeatError as exc:
            raise LaunchError(str(exc)) from None
    session: LocalSession | None = None
    if opts.load is not None:
        if opts.variant is not None or opts.options:
            raise LaunchError(
                "--load plays the record's own game: leave out --variant and --option"
            )
        try:
            record = load_record(opts.load)
            session = LocalSession.load(record, seats, dice=dice, bot_delay=opts.bot_delay)
        except (RecordError, SeatError) as exc:
            raise LaunchError(f"{opts.load}: {exc}") from None
    else:
        variant = opts.variant or DEFAULT_VARIANT
        given = _options(opts.options)
        try:
            find_variant(variant)
            rules = get_rules(variant, given)
        except RulesError as exc:
            raise LaunchError(str(exc)) from None
        if seats is not None:
            try:
                session = LocalSession.new(
                    rules,
                    seats,
                    dice=dice,
                    person=words.person_name,
                    bot=words.bot_name,
                    bot_delay=opts.bot_delay,
                )
            except SeatError as exc:
                raise LaunchError(str(exc)) from None
        else:
            defaults = SetupDefaults(variant, dict(given))
            app = PlayApp(
                None,
                lang=lang,
                defaults=defaults,
                dice=lambda: _dice(opts.seed),
                bot_delay=opts.bot_delay,
                show_hints=opts.hints,
            )
            return Launch(app)
    return Launch(PlayApp(session, lang=lang, bot_delay=opts.bot_delay, show_hints=opts.hints))


def _dice(seed: int | None) -> DiceSource:
    return SeededDice(seed) if seed is not None else SecretDice()


def _remote(opts: PlayOptions, lang: str) -> Launch:
    if opts.load is not None or opts.seats is not None or opts.variant is not None or opts.options:
        raise LaunchError(
            "a game on a server has its own rules and seats: leave out --load, --seats, "
            "--variant and --option"
        )
    if not opts.game:
        raise LaunchError("--server needs --game ID (or give the game's link to --game)")
    if sum(bool(given) for given in (opts.token, opts.name, opts.login)) > 1:
        raise LaunchError(
            "give one of --token (your seat), --name (take an open seat) or --login (take an "
            "open seat under your account)"
        )
    try:
        address = game_address(opts.server, opts.game)
    except RemoteError as exc:
        raise LaunchError(str(exc)) from None
    token = opts.token
    words = Words(lang)
    after: list[str] = []
    rejoin: Rejoin | None = None
    try:
        if opts.name or opts.login:
            login = None
            if opts.login:
                login = (opts.login, opts.password or ask_password(opts.login))
            seat, token = asyncio.run(join_seat(address, opts.name, opts.seat, login=login))
            # Kept at once: the seat must outlive a terminal closed in the middle of the game.
            rejoin = keep_seat(address, seat, token)
            after.append(words("You took seat {n}.", n=seat + 1))
        else:
            asyncio.run(contact(address, token))
            rejoin = Rejoin(rejoin_command(address, token)) if token else None
    except RemoteError as exc:
        raise LaunchError(str(exc)) from None
    if rejoin is not None:
        after += _rejoin_lines(words, rejoin)
    session = RemoteSession(address, token, rejoin=rejoin)
    return Launch(PlayApp(session, lang=lang, show_hints=opts.hints), after, rejoin, lang)


def _rejoin_lines(words: Words, rejoin: Rejoin) -> list[str]:
    """How to come back to a seat: its command, and where it is kept."""
    lines = [words("To come back to it:") + " " + rejoin.command]
    if rejoin.path is not None:
        lines.append(words("Kept in {path}", path=str(rejoin.path)))
    elif rejoin.problem is not None:
        lines.append(words("Could not keep it: {error}", error=rejoin.problem))
    return lines


def run_play(opts: PlayOptions) -> list[str]:
    """Run the app until the player quits; the lines to print afterwards. A game of the web app
    that could not be joined at all is a `LaunchError` (one line and exit status 1)."""
    launch = build(opts)
    app = launch.app
    app.run()
    session = app.session
    if isinstance(session, RemoteSession) and session.fatal and session.connections == 0:
        raise LaunchError(session.fatal)
    return closing_lines(launch, session)


def closing_lines(launch: Launch, session: object) -> list[str]:
    """The lines printed once the app has closed on `session`: the launch's, or, where a
    rematch moved the table to a new game, how to come back to the seat there."""
    if not isinstance(session, RemoteSession) or session.rejoin in (None, launch.rejoin):
        return launch.after
    assert session.rejoin is not None
    return _rejoin_lines(Words(launch.lang), session.rejoin)
