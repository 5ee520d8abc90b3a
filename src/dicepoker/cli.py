"""The `dicepoker` command line: replay records, simulate bots, watch a demo game."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from dicepoker.admin import admin_app
from dicepoker.backup_cli import backup_command, restore_command
from dicepoker.clitools import fail
from dicepoker.rules import (
    DEFAULT_VARIANT,
    VARIANTS,
    Rules,
    RulesError,
    get_rules,
    parse_option_value,
)
from dicepoker.serve_cli import serve_command

if TYPE_CHECKING:
    from dicepoker.engine import GameState

# Each command imports what it uses when it runs: this module is also what a spawned process of
# `dicepoker serve` (a worker process) imports first, as its main module, and it should stay light.
VARIANT_LIST = ", ".join(VARIANTS)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Dice poker: the School game, Yahtzee, Yahtzee 15 and poker dice.",
)
app.command("serve")(serve_command)
app.command("backup")(backup_command)
app.command("restore")(restore_command)


def rules_from(variant: str, options: list[str] | None) -> Rules:
    given: dict[str, object] = {}
    for item in options or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            fail(f"--option takes NAME=VALUE, not {item!r}")
        try:
            given[name.strip()] = parse_option_value(value)
        except RulesError as exc:
            fail(str(exc))
    try:
        return get_rules(variant, given)
    except RulesError as exc:
        fail(str(exc))


def levels_from(bots: str) -> list[str]:
    from dicepoker.bots import LEVELS

    levels = [level.strip() for level in bots.split(",") if level.strip()]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or not levels:
        fail(f"unknown bot level {unknown[0] if unknown else bots!r} (levels: {', '.join(LEVELS)})")
    return levels


OptionList = Annotated[
    list[str] | None,
    typer.Option(
        "--option", "-o", help="A variant option NAME=VALUE (repeatable), e.g. columns=2."
    ),
]


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A game record (JSON); '-' reads standard input.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Replay a game record and show the final sheets (or the position it stops at)."""
    from dicepoker.protocol import Replayed
    from dicepoker.record import RecordError, check_record, load_record
    from dicepoker.render import game_text
    from dicepoker.view import game_view

    try:
        record = load_record(sys.stdin.buffer.read() if str(file) == "-" else file)
        typed, game = check_record(record)
    except RecordError as exc:
        fail(str(exc))
    if as_json:
        # The record as checked and the view of where it ends: the API's own shapes.
        typer.echo(Replayed.of(typed, game_view(game.state)).to_json())
    else:
        typer.echo(game_text(game.state))


def _load_game(file: Path) -> GameState:
    from dicepoker.record import RecordError, load_record, replay

    try:
        record = load_record(sys.stdin.buffer.read() if str(file) == "-" else file)
        return replay(record).state
    except RecordError as exc:
        fail(str(exc))


@app.command("advise")
def advise_command(
    file: Annotated[
        Path, typer.Argument(help="A record whose last turn is the position to judge.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The expected final score of every option of the player to move, and the best one."""
    from dicepoker.advisor import advise
    from dicepoker.render import dice_text

    state = _load_game(file)
    if state.finished:
        fail("the game in this record is over: there is nothing to advise")
    advice = advise(state)
    if as_json:
        out = {
            "variant": state.rules.variant,
            "player": state.players[state.seat],
            "turn": state.turn + 1,
            "dice": list(state.dice),
            "rolls_left": state.rolls_left,
            **advice.as_json(),
        }
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    dice = dice_text(state.rules, state.dice) if state.dice else "not rolled yet"
    typer.echo(
        f"{state.players[state.seat]} to move, turn {state.turn + 1}: dice {dice}, "
        f"rolls left {state.rolls_left} ({advice.method})"
    )
    # Ranked by the expert's measure: the expected final score; in a School game with rivals, less
    # a margin for risk, and in its last turns plus the chance of winning (a "win" column).
    best = advice.best.worth
    racing = any(option.win is not None for option in advice.options)
    risky = any(option.merit is not None for option in advice.options)
    for option in sorted(advice.options, key=lambda o: -o.worth):
        mark = "*" if option.action == advice.best.action else " "
        chance = f"  win {100 * option.win:5.1f}%" if option.win is not None else ""
        gap = option.worth - best
        typer.echo(f" {mark} {option.value:10.2f}  {gap:+9.2f}{chance}  {option.action}")
    if racing:
        from dicepoker.bots.school_value import WIN_POINTS

        typer.echo(f"   (the second column counts a sure win as {WIN_POINTS:,.0f} points)")
    elif risky:
        typer.echo("   (against rivals the second column takes a margin for risk off each option)")


def seat_ratings(given: list[str]) -> dict[int, int]:
    """`--rating SEAT=RATING` options as ratings by seat (0-based)."""
    ratings: dict[int, int] = {}
    for text in given:
        seat, _, value = text.partition("=")
        try:
            number, shown_rating = int(seat), int(value)
        except ValueError:
            fail(f"--rating takes SEAT=RATING (e.g. 1=1650), not {text!r}")
        if number < 1:
            fail(f"--rating: seats count from 1, not {number}")
        ratings[number - 1] = shown_rating
    return ratings


@app.command("analyse")
def analyse_command(
    file: Annotated[Path, typer.Argument(help="A game record (JSON); '-' reads standard input.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    all_moves: Annotated[bool, typer.Option("--all", help="List every decision.")] = False,
    rating: Annotated[
        list[str] | None,
        typer.Option(
            "--rating",
            metavar="SEAT=RATING",
            help="A person's shown rating in the game's pool, seat 1-based (repeatable): the "
            "chances judge them at the level it says, as the live table does; a person without "
            "one plays like a newcomer, a bot (the record's 'bots') at its level.",
        ),
    ] = None,
) -> None:
    """Each decision's points lost, each roll's luck and (with rivals) the chances of winning."""
    from dicepoker.record import RecordError, load_record
    from dicepoker.review import analyse
    from dicepoker.winprob.strength import record_levels

    ratings = seat_ratings(rating or [])
    try:
        record = load_record(sys.stdin.buffer.read() if str(file) == "-" else file)
        analysis = analyse(record, record_levels(record, ratings))
    except (RecordError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(analysis.as_json(), ensure_ascii=False))
        return
    names = [p.name for p in analysis.players]
    for decision in analysis.decisions:
        if decision.loss <= 0 and not all_moves:
            continue
        typer.echo(
            f"turn {decision.turn:3d}  {names[decision.seat]:<12} {decision.action!s:<24}"
            f" best {decision.best!s:<24} lost {decision.loss:7.2f}"
        )
    typer.echo(f"\n{analysis.variant} ({analysis.method})")
    for player in analysis.players:
        line = (
            f"{player.name:<12} decisions {player.decisions:4d}  mistakes {player.mistakes:4d}"
            f"  expected points lost {player.loss:9.2f}  luck {player.luck:+8.2f}"
        )
        if player.luck_win is not None and player.win_lost is not None:
            line += f" ({player.luck_win:+.1%})  chance lost {player.win_lost:.1%}"
        typer.echo(f"{line}  play: {player.verdict}")


app.command("analyze", hidden=True)(analyse_command)


@app.command("verify")
def verify_command(
    file: Annotated[Path, typer.Argument(help="A game record (JSON); '-' reads standard input.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check that a record's dice are the ones its commitment promised (docs/fair-dice.md).

    Exit status 0 when every roll matches, 1 otherwise (with the first differing turn and roll).
    """
    from dicepoker.fair import verify_record
    from dicepoker.record import RecordError, load_record

    try:
        record = load_record(sys.stdin.buffer.read() if str(file) == "-" else file)
    except RecordError as exc:
        fail(str(exc))
    result = verify_record(record)
    if as_json:
        typer.echo(json.dumps(result.as_json(), ensure_ascii=False))
        if not result.ok:
            raise typer.Exit(1)
        return
    if not result.ok:
        fail(result.message)
    typer.echo(result.message)


@app.command("simulate")
def simulate_command(
    variant: Annotated[str, typer.Argument(help=VARIANT_LIST + ".")],
    bots: Annotated[str, typer.Option(help="Bot level per seat, comma-separated.")] = "greedy",
    games: Annotated[int, typer.Option(min=1, help="Games to play.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the first game (game g uses seed+g).")] = 0,
    option: OptionList = None,
    records: Annotated[
        Path | None, typer.Option(help="Write each game's record into this folder.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Play bots against each other and print the mean score per seat."""
    from dicepoker.simulate import simulate

    rules = rules_from(variant, option)
    levels = levels_from(bots)
    if not rules.min_players <= len(levels) <= rules.max_players:
        fail(f"{variant} is played by {rules.min_players} to {rules.max_players} players")
    stats, kept = simulate(rules, levels, games, seed, keep_records=records is not None)
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
            for number, record in enumerate(kept):
                path = records / f"{variant}-{seed + number:06d}.json"
                path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write records: {exc}")
    if as_json:
        out = {
            "variant": variant,
            "options": rules.option_dict,
            "games": games,
            "seed": seed,
            "seats": [
                {"seat": n, "bot": s.level, "mean": s.mean, "stderr": s.stderr, "wins": s.wins}
                for n, s in enumerate(stats)
            ],
        }
        typer.echo(json.dumps(out))
        return
    typer.echo(f"{variant} {rules.option_dict} — {games} games, seed {seed}")
    for number, seat in enumerate(stats, start=1):
        typer.echo(
            f"seat {number} {seat.level:>8}: mean {seat.mean:9.2f} ± {seat.stderr:.2f}"
            f"   wins {seat.wins:g}"
        )


@app.command("demo")
def demo_command(
    variant: Annotated[str, typer.Argument(help="The variant to watch.")] = DEFAULT_VARIANT,
    bots: Annotated[
        str, typer.Option(help="Bot level per seat, comma-separated.")
    ] = "greedy,greedy",
    seed: Annotated[int | None, typer.Option(help="Seed for the dice (default: random).")] = None,
    option: OptionList = None,
    quiet: Annotated[bool, typer.Option(help="Only print the final sheets.")] = False,
) -> None:
    """Watch bots play one game in the terminal, move by move."""
    from dicepoker.bots import make_bot
    from dicepoker.dice import SecretDice, SeededDice
    from dicepoker.render import dice_text, game_text
    from dicepoker.simulate import play_game

    rules = rules_from(variant, option)
    levels = levels_from(bots)
    if not rules.min_players <= len(levels) <= rules.max_players:
        fail(f"{variant} is played by {rules.min_players} to {rules.max_players} players")
    bot_list = [
        make_bot(level, None if seed is None else seed + n) for n, level in enumerate(levels)
    ]
    names = [f"{level.capitalize()} {n + 1}" for n, level in enumerate(levels)]

    def show(state: GameState, action: str) -> None:
        if quiet:
            return
        if action.startswith(("score", "strike", "zero", "timeout")):
            typer.echo(f"   -> {action}")
        else:
            mover = state.players[state.seat]
            typer.echo(f"{mover:>10} {action:<12} {dice_text(rules, state.dice)}")

    dice = SeededDice(seed) if seed is not None else SecretDice()
    game = play_game(rules, bot_list, dice, names=names, on_action=show)
    typer.echo("")
    typer.echo(game_text(game.state))


@app.command("solve")
def solve_command(
    variant: Annotated[str, typer.Argument(help="yahtzee, yahtzee15 or poker-dice.")],
    option: OptionList = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Build even if a table is cached.")
    ] = False,
    moments: Annotated[
        bool,
        typer.Option(
            "--moments",
            help="Also build the win probability's tables (the second and third moments), so "
            "that a server's first analyses and live chances do not wait for them.",
        ),
    ] = False,
) -> None:
    """Build (or load) the exact solver's table of VARIANT and print its expected score."""
    from dicepoker.solver import Solver, UnsupportedRulesError, solve_rules

    rules = rules_from(variant, option)
    try:
        report = solve_rules(rules, rebuild=rebuild)
    except UnsupportedRulesError as exc:
        fail(str(exc))
    if moments:
        solver = Solver.for_rules(rules)
        solver.moments_table()
        solver.third_table()
    typer.echo(report.as_json() if as_json else report.text())


@app.command("variants")
def variants_command() -> None:
    """List the variants and their options."""
    for variant in VARIANTS.values():
        typer.echo(f"{variant.name:<11} {variant.title} (rules page {variant.seed})")
        for spec in variant.options:
            default = "unset" if spec.default is None else json.dumps(spec.default)
            typer.echo(f"    {spec.name}: {spec.kind.__name__}, default {default} — {spec.help}")


@app.command("play")
def play_command(
    variant: Annotated[
        str | None, typer.Option(help=f"{VARIANT_LIST} (default {DEFAULT_VARIANT}).")
    ] = None,
    option: OptionList = None,
    seats: Annotated[
        str | None,
        typer.Option(
            help="Who plays, in seat order, e.g. 'human:Ana,human:Bea,bot:greedy' "
            "(without it a setup screen asks)."
        ),
    ] = None,
    lang: Annotated[
        str | None, typer.Option(help="es, pt or en (default: from the locale).")
    ] = None,
    load: Annotated[
        Path | None, typer.Option(help="Continue the game saved in this record (JSON).")
    ] = None,
    server: Annotated[
        str | None, typer.Option(help="Join a game of the web app at this address.")
    ] = None,
    game: Annotated[
        str | None, typer.Option(help="The web game's id (or its link, then --server may go).")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Your seat's token (without one you watch).")
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Take an open seat of the web game under this name.")
    ] = None,
    login: Annotated[
        str | None,
        typer.Option(
            help="Take an open seat of the web game under this account (asks its password)."
        ),
    ] = None,
    seat: Annotated[
        int | None, typer.Option(min=1, help="Which open seat --name or --login takes (1-based).")
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(min=0, help="Seconds a bot waits before each action.")
    ] = 0.6,
    seed: Annotated[int | None, typer.Option(help="Seed for the dice (default: random).")] = None,
    hints: Annotated[bool, typer.Option(help="Start with the hint panel open.")] = False,
) -> None:
    """Play in the terminal: hot seat with friends and bots, or join a game of the web app."""
    from dicepoker.tui.launch import LaunchError, PlayOptions, run_play

    opts = PlayOptions(
        variant=variant,
        options=list(option or []),
        seats=seats,
        lang=lang,
        load=load,
        server=server,
        game=game,
        token=token,
        name=name,
        login=login,
        seat=None if seat is None else seat - 1,
        bot_delay=bot_delay,
        seed=seed,
        hints=hints,
    )
    try:
        after = run_play(opts)
    except LaunchError as exc:
        fail(str(exc))
    for line in after:
        typer.echo(line, err=True)


# `dicepoker admin ...`: accounts and games on the server's database (docs/deploy.md).
app.add_typer(admin_app, name="admin")


def main() -> None:
    app()
