"""Puzzles from real games: the positions of finished games where a person lost a lot.

**Harvest.** A watcher of the master: once a game with a person's seat is over, its analysis
(the one the analysis cache keeps for the finished game) says what each decision lost; every
decision of a person that lost at least `threshold(rules)` expected points becomes a puzzle, the
worst `MAX_PER_GAME` of a game at most. A puzzle keeps the record cut at that decision (every
turn before it, and the rolls of its own turn), the players' names left out, never the best
option. The puzzles are written with the game's `puzzle_harvests` row in one transaction: a game
is harvested once, whichever process sees its end first (a second writer breaks the row's
primary key and keeps nothing), and a sweep at start-up harvests the recent games a process left
undone. Bots' decisions are not harvested: a fallible level errs on purpose, and people's
mistakes are the ones people make.

**Answers.** A guess is judged by the advisor when it is asked (`judge`): the position is
replayed from the stored record prefix, the advisor values every legal option, and the guess's
loss, the best option and the verdict follow from that, never from anything stored.

**Grading.** A guess is graded by what the answer shows: in a position with rivals by the
chance of winning (what the expert plays for there), in solitaire by expected points; the best
option, each option's loss and the verdict all come from that one measure (`judge`).

**Scale.** Both thresholds are shares of the points a turn brings the expert in these rules
(`points_per_turn`: its expected final score over the sheet's cells, the scale the bot ladder's
temperatures use), so that they mean the same in every variant (docs/analysis.md, "Puzzles").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import exc, select

from dicepoker.dice import FixedDice
from dicepoker.engine import (
    Action,
    Forfeit,
    GameState,
    IllegalActionError,
    NotationError,
    Roll,
    apply,
    legal_actions,
    parse_action,
    reason_key,
)
from dicepoker.master import GameMaster, LiveGame, Refusal
from dicepoker.master.tasks import Recent
from dicepoker.protocol import LastMoveView
from dicepoker.protocol.puzzles import Puzzle, PuzzleAnswer, PuzzleOption, Verdict
from dicepoker.ratings import pool_of
from dicepoker.record import RecordError, replay, rules_of
from dicepoker.rules import Rules
from dicepoker.server.community.analysis import AnalysisCache, Runner, in_thread
from dicepoker.server.storage.models import GameRow, PuzzleHarvestRow, PuzzleRow, utcnow
from dicepoker.server.storage.store import Store
from dicepoker.view import game_view, last_move_view

log = logging.getLogger("dicepoker.server")

#: A decision becomes a puzzle when it lost at least this share of a turn's points (about 2 % of
#: the expert's expected final score: 4.9 points in Yahtzee, 0.69 in poker dice, 5.6 in School).
THRESHOLD_SHARE = 0.25
#: A guess is "good" when it loses at most this share of a turn's points (about one point in
#: Yahtzee and School, the analysis's mistake; 0.14 in poker dice, whose points are small).
GOOD_SHARE = 0.05
#: Where a guess is graded by the chance of winning, it is "good" when it gives up at most this
#: much of it (one percentage point: the page shows chances to a tenth of one).
GOOD_CHANCE = 0.01
#: The most puzzles one game gives (its worst decisions): a game played badly throughout does not
#: fill a preset's puzzles by itself.
MAX_PER_GAME = 8
#: The sweep at start-up: finished games of the last few days without a harvest, newest first.
SWEEP_DAYS = 3
SWEEP_LIMIT = 20
#: Harvests that may wait at once in a process. Each holds its finished game in memory and will
#: take seconds of the analysis worker's CPU; a game that ends while this many wait is not
#: harvested (the puzzles are a sample of people's games), so that a server at its capacity
#: (4,000 games end about five a second) neither queues analyses for ever nor keeps their games.
HARVESTS_WAITING = 16
#: A guess's answer gives each option's chance of winning if they can all be judged in this long.
CHANCES_SECONDS = 3.0
#: Below this, a loss is rounding between equally good options (the advisor's `NOISE`).
NOISE = 1e-6
#: The id of a puzzle: 8 URL-safe characters.
ID_BYTES = 6


def points_per_turn(rules: Rules) -> float:
    """The expert's points a turn in these rules (dicepoker.bots.fallible: computed once)."""
    from dicepoker.bots.fallible import points_per_turn as per_turn

    return per_turn(rules)


def threshold(rules: Rules) -> float:
    """The expected points a decision must lose to become a puzzle."""
    return THRESHOLD_SHARE * points_per_turn(rules)


def good_within(rules: Rules) -> float:
    """The most a guess may lose and still be called good."""
    return GOOD_SHARE * points_per_turn(rules)


# --- finding the puzzles of a game -------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A decision that becomes a puzzle: where it was (record turn, 1-based; rolls made in it),
    whose it was, what was played, what it lost, and the record cut there."""

    turn: int
    roll: int
    seat: int
    played: str
    loss: float
    position: dict[str, Any]


def neutral_names(count: int) -> list[str]:
    """The players' names in a puzzle: nobody's own (the page names the seats itself)."""
    return [f"Player {seat + 1}" for seat in range(count)]


def cut(record: Mapping[str, Any], index: int, rolls: int) -> dict[str, Any]:
    """The record up to turn `index` (0-based) and the first `rolls` rolls of it: replaying it
    gives the position of that decision. Only the keys the engine reads are kept (no seed, no
    bot levels), and neutral names."""
    turns = list(record.get("turns") or [])
    partial = [dict(turn) for turn in turns[:index]]
    partial.append({"rolls": [dict(roll) for roll in turns[index].get("rolls", [])[:rolls]]})
    players = record.get("players") or []
    return {
        "variant": record["variant"],
        "options": dict(record.get("options") or {}),
        "players": neutral_names(len(players)),
        "turns": partial,
    }


def find_puzzles(
    record: Mapping[str, Any], people: Sequence[int], analysis: Mapping[str, Any]
) -> list[Found]:
    """The decisions of `people` (seats) in `analysis` (of `record`, `dicepoker.review.analyse`
    as JSON) that lost at least `threshold`, the worst first (at most `MAX_PER_GAME`).

    The analysis names a decision by turn, seat and action; the record is replayed with the
    analysis's own choice of decisions (every one but a turn's first roll and a timeout) to find
    the roll of the turn each was made at.
    """
    rules, _players = rules_of(record)
    placed: list[tuple[int, int, int, str]] = []  # (record turn index, rolls, seat, action)
    index = 0

    def observe(state: GameState, action: Action) -> None:
        nonlocal index
        judged = not state.finished and not isinstance(action, Forfeit)
        if judged and not (isinstance(action, Roll) and state.rolls == 0):
            placed.append((index, state.rolls, state.seat, str(action)))
        if not isinstance(action, Roll):
            index += 1

    replay(record, observer=observe)
    decisions = list(analysis.get("decisions") or [])
    if len(decisions) != len(placed):
        log.warning("puzzles: the analysis does not match the record (%s)", rules.variant)
        return []
    least = threshold(rules)
    wanted = set(people)
    found: list[Found] = []
    for decision, (turn_index, rolls, seat, action) in zip(decisions, placed, strict=True):
        if decision.get("seat") != seat or decision.get("action") != action:
            log.warning("puzzles: decision %s does not match the record", decision)
            return []
        loss = float(decision.get("loss") or 0.0)
        if seat in wanted and loss >= least:
            found.append(
                Found(turn_index + 1, rolls, seat, action, loss, cut(record, turn_index, rolls))
            )
    found.sort(key=lambda item: (-item.loss, item.turn, item.roll))
    return found[:MAX_PER_GAME]


def people_of(seats: Sequence[Mapping[str, Any]]) -> list[int]:
    """The seats a person played (not bots)."""
    return [seat for seat, info in enumerate(seats) if info.get("kind") == "human"]


def new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


# --- the store ---------------------------------------------------------------------------------


class PuzzleStore:
    """The puzzle tables, through the games' store (its engine, and its queue of SQLite
    writers)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def harvested(self, game_id: str) -> bool:
        async with self.store.sessions() as session:
            found = await session.get(PuzzleHarvestRow, game_id)
            return found is not None

    async def save(self, game_id: str, rows: Sequence[PuzzleRow]) -> bool:
        """Write a game's puzzles with its harvest row (once: False when another process wrote
        them a moment ago, and nothing of these is kept)."""
        try:
            async with self.store.transaction() as session:
                if await session.get(PuzzleHarvestRow, game_id) is not None:
                    return False
                session.add(PuzzleHarvestRow(game_id=game_id, puzzles=len(rows)))
                await session.flush()
                session.add_all(rows)
        except exc.IntegrityError:
            return False
        return True

    async def puzzle(self, puzzle_id: str, now: datetime) -> PuzzleRow | None:
        """A puzzle that may be shown now."""
        async with self.store.sessions() as session:
            row = await session.get(PuzzleRow, puzzle_id)
            if row is None or _aware(row.shown_from) > now:
                return None
            return row

    async def pick(self, preset: str, after: str | None, now: datetime) -> PuzzleRow | None:
        """A puzzle of `preset` picked at random (the first id at or after a random one, going
        round), never `after` unless it is the only one: an index walk, however many there are."""
        pivot = new_id()
        base = select(PuzzleRow).where(PuzzleRow.preset == preset, PuzzleRow.shown_from <= now)
        if after:
            base = base.where(PuzzleRow.id != after)
        async with self.store.sessions() as session:
            for query in (
                base.where(PuzzleRow.id >= pivot).order_by(PuzzleRow.id),
                base.where(PuzzleRow.id < pivot).order_by(PuzzleRow.id),
            ):
                row = await session.scalar(query.limit(1))
                if row is not None:
                    return row
        if after:
            return await self.puzzle(after, now)
        return None

    async def unharvested(self, since: datetime, limit: int) -> list[str]:
        """Finished games since `since` that have no harvest, newest first."""
        async with self.store.sessions() as session:
            rows = await session.scalars(
                select(GameRow.id)
                .outerjoin(PuzzleHarvestRow, PuzzleHarvestRow.game_id == GameRow.id)
                .where(
                    GameRow.status == "finished",
                    GameRow.updated_at >= since,
                    PuzzleHarvestRow.game_id.is_(None),
                )
                .order_by(GameRow.updated_at.desc())
                .limit(limit)
            )
            return list(rows)


def _aware(moment: datetime) -> datetime:
    """A stored time with its offset (SQLite hands datetimes back without one)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


# --- the harvester -----------------------------------------------------------------------------


class Puzzles:
    """Harvests the puzzles of games as they end (see the module's docstring) and answers the
    routes of `/api/puzzles`."""

    def __init__(
        self,
        store: Store,
        master: GameMaster,
        analyses: AnalysisCache,
        answering: Runner = in_thread,
    ) -> None:
        self.book = PuzzleStore(store)
        self.master = master
        self.analyses = analyses
        # Where a guess is judged: the chances of winning load numba, so a server's worker, at
        # a person's priority (`WorkQueue.answer`).
        self.answering = answering
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._done = Recent()
        self.skipped = 0  # games that ended while HARVESTS_WAITING harvests waited
        # One game's harvest at a time per process: its analysis is seconds of CPU, and the
        # advisor's answers to people come first.
        self._one = asyncio.Semaphore(1)
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        if not live.game.state.finished or live.id in self._done or self.master.closing:
            return
        self._done.add(live.id)
        if len(self._tasks) >= HARVESTS_WAITING:
            self.skipped += 1
            log.debug("puzzles: game %s not harvested, %d harvests wait", live.id, len(self._tasks))
            return
        task = asyncio.create_task(self._harvest(live), name=f"puzzles-{live.id}")
        self._tasks[live.id] = task
        task.add_done_callback(lambda _done: self._tasks.pop(live.id, None))

    def holds(self, game_id: str) -> bool:
        return game_id in self._tasks

    @property
    def waiting(self) -> int:
        """The harvests that wait or run in this process."""
        return len(self._tasks)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _harvest(self, live: LiveGame) -> None:
        try:
            await self.harvest(live)
        except asyncio.CancelledError:
            raise
        except Exception:  # a puzzle must never take the server down; the sweep retries
            log.exception("puzzles of game %s", live.id)
            self._done.discard(live.id)

    async def harvest(self, live: LiveGame) -> int:
        """Make the finished game's puzzles (once); how many were written (0 when none, or
        when another process harvested it)."""
        if await self.book.harvested(live.id):
            return 0
        people = people_of(live.seats)
        found: list[Found] = []
        if people:
            async with self._one:
                record = live.record()
                analysis = await self.analyses.analysis(f"game:{live.id}", record, live.levels())
                found = await asyncio.to_thread(find_puzzles, record, people, analysis)
        now = utcnow()
        # A daily game's puzzles would show that day's dice to those still to play it.
        shown = max(now, live.reveal_at) if live.reveal_at is not None else now
        rules = live.rules
        rows = [
            PuzzleRow(
                id=new_id(),
                game_id=live.id,
                preset=rules.variant,
                pool=pool_of(rules),
                variant=rules.variant,
                options=dict(rules.option_dict),
                position=item.position,
                seat=item.seat,
                turn=item.turn,
                roll=item.roll,
                played=item.played,
                loss=round(item.loss, 4),
                shown_from=shown,
                created_at=now,
            )
            for item in found
        ]
        return len(rows) if await self.book.save(live.id, rows) else 0

    async def sweep(self) -> None:
        """Harvest the recent finished games a process left undone (it stopped between a
        game's end and its harvest)."""
        since = utcnow() - timedelta(days=SWEEP_DAYS)
        for game_id in await self.book.unharvested(since, SWEEP_LIMIT):
            live = await self.master.load(game_id)
            if live is not None:
                self.look(live)

    # --- the routes' answers -------------------------------------------------------------------

    async def next(self, preset: str, after: str | None) -> Puzzle:
        row = await self.book.pick(preset, after, utcnow())
        if row is None:
            raise Refusal("no_puzzle", f"no {preset} puzzle yet: they come from finished games")
        return await asyncio.to_thread(puzzle_view, row)

    async def get(self, puzzle_id: str) -> Puzzle:
        return await asyncio.to_thread(puzzle_view, await self.row(puzzle_id))

    async def row(self, puzzle_id: str) -> PuzzleRow:
        row = await self.book.puzzle(puzzle_id, utcnow())
        if row is None:
            raise Refusal("not_found", "no such puzzle")
        return row

    async def answer(self, puzzle_id: str, action: str) -> PuzzleAnswer:
        row = await self.row(puzzle_id)
        answer: PuzzleAnswer = await self.answering(judge, row.id, row.position, action, row.played)
        return answer


# --- a puzzle's view and the judgement of a guess ---------------------------------------------


def position_state(position: Mapping[str, Any]) -> tuple[GameState, list[LastMoveView | None]]:
    """The state a puzzle's record prefix replays to, and each seat's last move before it."""
    trail: dict[int, tuple[GameState, Action]] = {}

    def observe(state: GameState, action: Action) -> None:
        if not isinstance(action, Roll):
            trail[state.seat] = (state, action)

    try:
        state = replay(position, observer=observe).state
    except RecordError as error:  # a stored puzzle always replays: this is a bug
        raise Refusal("internal", f"the puzzle does not replay: {error}") from None
    moves = [
        last_move_view(*trail[seat]) if seat in trail else None
        for seat in range(len(state.players))
    ]
    return state, moves


def puzzle_view(row: PuzzleRow) -> Puzzle:
    """What `GET` answers: the position as the table draws it, and its options unvalued."""
    state, moves = position_state(row.position)
    turns = row.position.get("turns") or []
    rolls = turns[-1].get("rolls", []) if turns else []
    kept = list(rolls[-1].get("keep", [])) if rolls else []
    return Puzzle.build(
        id=row.id,
        url=f"/puzzles/{row.id}",
        preset=row.preset,
        pool=row.pool,
        variant=row.variant,
        options=dict(row.options),
        seat=state.seat,
        turn=row.turn,
        roll=row.roll,
        state=game_view(state, kept=kept, last_moves=moves),
        actions=[str(action) for action in legal_actions(state)],
    )


def read_guess(state: GameState, text: str) -> Action:
    """The guessed action if it is legal here, else a refusal with the engine's reason."""
    try:
        action = parse_action(text)
    except NotationError as error:
        raise Refusal("bad_move", str(error)) from None
    if action in legal_actions(state):
        return action
    if isinstance(action, Forfeit):
        raise Refusal("bad_move", "running out of time is not an option here")
    try:
        apply(state, action, FixedDice([1] * state.rules.dice))
    except IllegalActionError as error:
        said = reason_key(error.reason)
        extra: dict[str, Any] = {}
        if said is not None:
            extra = {"reason": said[0], "params": dict(said[1])}
        raise Refusal("bad_move", str(error.reason), **extra) from None
    raise Refusal("bad_move", f"{text!r} is not an option here")


def _choice(state: GameState, action: Action) -> object:
    """Options that are the same choice (holds of the same faces) are judged once."""
    if isinstance(action, Roll):
        return ("keep", tuple(sorted(state.dice[p] for p in action.keep)))
    return action


_PREPARING: set[str] = set()
_PREPARING_LOCK = threading.Lock()


def chances(state: GameState, actions: Sequence[Action]) -> dict[Action, float] | None:
    """The mover's chance of finishing first after each action (dicepoker.winprob), or None:
    a solitaire game, the variant's tables not loaded yet (they are then loaded in the
    background for the next time), a judgement that failed or took too long."""
    try:
        from dicepoker import winprob
    except Exception:
        return None
    if len(state.players) < 2:
        return None
    rules = state.rules
    try:
        if not winprob.ready(rules):
            _prepare_later(rules)
            return None
        deadline = time.monotonic() + CHANCES_SECONDS
        judged: dict[object, float] = {}
        out: dict[Action, float] = {}
        for action in actions:
            key = _choice(state, action)
            if key not in judged:
                if time.monotonic() > deadline:
                    return None
                found = winprob.chances_after(state, action)
                if found is None:
                    return None
                judged[key] = float(found[state.seat])
            out[action] = judged[key]
        return out
    except Exception:  # the chances are a bonus: the values are the answer
        log.warning("puzzles: no chances of winning for %s", rules.variant, exc_info=True)
        return None


def _prepare_later(rules: Rules) -> None:
    """Load the win-probability tables of `rules` in a thread of their own, once."""
    key = repr(rules)
    with _PREPARING_LOCK:
        if key in _PREPARING:
            return
        _PREPARING.add(key)

    def work() -> None:
        from dicepoker import winprob

        with contextlib.suppress(Exception):
            winprob.prepare(rules)

    threading.Thread(target=work, name="puzzles-winprob", daemon=True).start()


def by_chance(state: GameState, wins: Sequence[float | None]) -> bool:
    """Whether a guess is graded by the chance of winning: in a position with rivals, where every
    option's chance is known (what the expert plays for when there is someone to beat); else,
    in solitaire or while the variant's tables load, by expected points. The puzzle page reads
    the same rule from the answer (the players of its position, a `win` on every option)."""
    return len(state.players) > 1 and bool(wins) and all(win is not None for win in wins)


def judge(puzzle_id: str, position: Mapping[str, Any], guess: str, played: str) -> PuzzleAnswer:
    """The advisor's answer to a guess: every legal option valued now, the best first, and what
    the guess loses (`dicepoker.advisor.advise`; nothing stored is read but the position).

    The answer grades by what it shows: the best option (the star) is the one with the highest
    figure of the measure (`by_chance`), each option's `loss` is the best figure less its own, in
    that measure, as the figures are sent (rounded), and the verdict follows from the loss. So a
    guess shown with a higher chance than the starred option cannot be called a mistake."""
    from dicepoker.advisor import advise

    state, _moves = position_state(position)
    action = read_guess(state, guess)
    advice = advise(state)
    won = chances(state, [option.action for option in advice.options])

    def figures(found: Any) -> dict[str, Any]:
        values: dict[str, Any] = {"action": str(found.action), "value": round(found.value, 4)}
        if found.merit is not None:
            values["worth"] = round(found.merit, 4)
        win = won.get(found.action) if won is not None else found.win
        if win is not None:
            values["win"] = round(min(1.0, max(0.0, win)), 4)
        return values

    valued = [figures(found) for found in advice.options]
    chance = by_chance(state, [values.get("win") for values in valued])
    measure = "win" if chance else "value"
    # The best figure first; among equals the expert's own order (its measure, then notation).
    worth = {str(found.action): found.worth for found in advice.options}
    valued.sort(key=lambda v: (-v[measure], -worth[v["action"]], v["action"]))
    top = valued[0][measure]
    options = []
    for values in valued:
        lost = round(top - values[measure], 4)
        options.append(PuzzleOption.build(**values, loss=lost if lost > NOISE else 0.0))
    by_action = {option.action: option for option in options}
    chosen = by_action[str(action)]
    try:
        played_option: PuzzleOption | None = by_action[str(parse_action(played))]
    except (KeyError, NotationError):
        played_option = None
    loss = chosen.loss
    good = GOOD_CHANCE if chance else good_within(state.rules)
    verdict: Verdict = "best" if loss <= 0 else "good" if loss <= good else "mistake"
    return PuzzleAnswer.build(
        id=puzzle_id,
        action=str(action),
        method=advice.method,
        verdict=verdict,
        loss=loss,
        good_within=round(good, 4),
        best=options[0],
        chosen=chosen,
        played=played_option,
        options=options,
    )
