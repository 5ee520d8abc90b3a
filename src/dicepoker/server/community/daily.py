"""The daily challenge on the server: the day's seed per preset, its games, the par, the board.

Each preset (a variant with its default options, no turn clock) has one challenge per UTC day.
Its seed is made the first time anyone asks for the day (dicepoker.server.storage.daily_store: every
process gets the one stored row), and each game of the day is an ordinary one-seat game of the
master on that seed, its seed withheld until the day is over (`reveal_at`). The par, the expert's
score on the same dice (dicepoker.daily.par), is computed once, by the process whose claim was
written, off the event loop (the bot workers, or a thread). Scores are read from the finished
games the first time they are asked for and kept with the game's link to the day.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from dicepoker.daily import day_end, parse_day, utc_day
from dicepoker.daily import par as expert_par
from dicepoker.engine import totals
from dicepoker.fair import commitment, new_seed
from dicepoker.master import GameMaster, LiveGame, Refusal
from dicepoker.master.newgame import rules_with_clock
from dicepoker.master.store import StoredGame
from dicepoker.rules import Rules, variant_names
from dicepoker.server.storage.daily_store import DailyEntry, DailyStore, DailyTaken, Day
from dicepoker.server.storage.store import Store

log = logging.getLogger("dicepoker.server")

#: How the par is computed: `par(variant, options, seed)` off the event loop.
ParRunner = Callable[[str, dict[str, Any], str], Awaitable[int]]
#: A claim on a par older than this is taken to be of a process that died while computing it.
PAR_CLAIM_STALE = timedelta(minutes=15)


async def par_in_thread(variant: str, options: dict[str, Any], seed: str) -> int:
    return await asyncio.to_thread(expert_par, variant, options, seed)


@dataclass(frozen=True)
class Player:
    """Who starts a daily game: an account, under its name (`name_key`: the form in which
    names are one, kept with the game when the account is deleted)."""

    name: str
    account_id: int
    name_key: str


@dataclass(frozen=True)
class Board:
    """A day's leaderboard: its finished games, ranked (accounts) and unranked, best first."""

    day: Day
    ranked: list[tuple[int, DailyEntry]]
    unranked: list[DailyEntry]
    playing: int


def preset_rules(preset: str) -> Rules:
    """The rules of a preset's challenge: the variant's default options, no turn clock."""
    rules, _clock = rules_with_clock(preset, {}, 0)
    return rules


class DailyService:
    """The daily challenges of one server process."""

    def __init__(
        self,
        store: Store,
        master: GameMaster,
        *,
        par_runner: ParRunner = par_in_thread,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.days = DailyStore(store)
        self.master = master
        self.par_runner = par_runner
        self.now = now or master.now
        self._par_tasks: dict[int, asyncio.Task[None]] = {}

    # --- days --------------------------------------------------------------------------------

    def today(self) -> date:
        return utc_day(self.now())

    def is_over(self, day: date) -> bool:
        return self.now() >= day_end(day)

    @staticmethod
    def check_preset(preset: str) -> str:
        if preset not in variant_names():
            raise Refusal("not_found", f"no daily challenge for {preset!r}: no such preset")
        return preset

    def parse_date(self, text: str | None) -> date:
        """The day asked for (today when not given). 400 for a date that is not YYYY-MM-DD,
        404 for a day after today (its challenge does not exist yet)."""
        if text is None:
            return self.today()
        try:
            day = parse_day(text)
        except ValueError as exc:
            raise Refusal("bad_request", f"date: {exc}") from None
        if day > self.today():
            raise Refusal("not_found", f"the challenge of {day} is not made yet (it is the future)")
        return day

    async def challenge(self, preset: str, day: date) -> Day:
        """The challenge of `preset` on `day`: today's is made on first asking; a past day's
        only exists if someone asked for it that day (else 404)."""
        self.check_preset(preset)
        found = await self.days.day(preset, day)
        if found is None:
            if day != self.today():
                raise Refusal("not_found", f"there was no {preset} challenge on {day}")
            seed = new_seed()
            found = await self.days.make_day(preset, day, seed, commitment(seed))
        self.ensure_par(found)
        return found

    # --- the par -----------------------------------------------------------------------------

    def ensure_par(self, day: Day) -> None:
        """Start computing the day's par unless it is known or being computed (here, or by
        another process that claimed it)."""
        if day.par is not None or self.master.closing:
            return
        running = self._par_tasks.get(day.id)
        if running is not None and not running.done():
            return
        self._par_tasks[day.id] = asyncio.create_task(
            self._compute_par(day), name=f"par-{day.preset}-{day.day}"
        )

    async def _compute_par(self, day: Day) -> None:
        if not await self.days.claim_par(day.id, self.now(), PAR_CLAIM_STALE):
            return  # known already, or another process computes it
        rules = preset_rules(day.preset)
        try:
            score: int | None = await self.par_runner(rules.variant, rules.option_dict, day.seed)
        except asyncio.CancelledError:
            await asyncio.shield(self.days.set_par(day.id, None))  # let another process retry
            raise
        except Exception:
            log.exception("the par of %s %s could not be computed", day.preset, day.day)
            score = None
        await self.days.set_par(day.id, score)

    async def close(self) -> None:
        tasks = [task for task in self._par_tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- games -------------------------------------------------------------------------------

    async def start(self, preset: str, player: Player) -> tuple[LiveGame, str, Day]:
        """Start `player`'s game of today's challenge: the live game, its seat's token and the
        day. 409 `daily_played` when the account, or an account of its name before, has one
        today already (nothing changes).

        Only accounts play today's dice, once each: an unranked game on them, anyone's and as
        often as they like, would be an oracle that shows the day's dice before the ranked game
        (docs/fair-play.md)."""
        day = await self.challenge(preset, self.today())
        found = await self.days.account_game(preset, day.day, player.account_id, player.name_key)
        if found is not None:
            raise _played(found.game_id)

        async def save(game: StoredGame) -> None:
            try:
                await self.days.add_game(game, day, player.account_id, player.name, player.name_key)
            except DailyTaken as taken:  # another request of the account won a moment ago
                raise _played(taken.game_id) from None

        rules = preset_rules(preset)
        # The account's seat (its history, its name).
        seat: dict[str, Any] = {"kind": "human", "name": player.name, "account": player.account_id}
        live, tokens = await self.master.create(
            rules.variant,
            dict(rules.option_dict),
            [seat],
            0,
            dice_seed=day.seed,
            reveal_at=day_end(day.day),
            save=save,
        )
        token = tokens[0]
        assert token is not None  # a named person's seat always has one
        return live, token, day

    async def mine(self, day: Day, account_id: int | None) -> DailyEntry | None:
        """The account's game of the day (None: none, or nobody logged in)."""
        if account_id is None:
            return None
        found = await self.days.account_game(day.preset, day.day, account_id)
        if found is None:
            return None
        return (await self._scored([found]))[0]

    async def count(self, day: Day) -> int:
        return len(await self.days.entries(day.preset, day.day))

    async def board(self, day: Day) -> Board:
        """The day's finished games, best score first (earlier games first among equals); the
        ranked ones placed, ties sharing a place."""
        entries = await self._scored(await self.days.entries(day.preset, day.day))
        finished = sorted(
            (entry for entry in entries if entry.score is not None),
            key=lambda entry: (-(entry.score or 0), entry.created_at),
        )
        ranked: list[tuple[int, DailyEntry]] = []
        for index, entry in enumerate(e for e in finished if e.account_id is not None):
            tied = ranked and ranked[-1][1].score == entry.score
            ranked.append((ranked[-1][0] if tied else index + 1, entry))
        unranked = [entry for entry in finished if entry.account_id is None]
        playing = sum(1 for entry in entries if entry.score is None)
        return Board(day, ranked, unranked, playing)

    async def _scored(self, entries: list[DailyEntry]) -> list[DailyEntry]:
        """The entries with the scores of the games that finished since they were last read
        (read from the game, then kept with its link)."""
        found: list[tuple[str, int]] = []
        scored: list[DailyEntry] = []
        for entry in entries:
            if entry.score is None and entry.status == "finished":
                live = await self.master.load(entry.game_id)
                if live is not None and live.game.state.finished:
                    score = totals(live.game.state)[0]
                    found.append((entry.game_id, score))
                    entry = _with_score(entry, score)
                    self.master.release(live)
            scored.append(entry)
        await self.days.set_scores(found)
        return scored


def _with_score(entry: DailyEntry, score: int) -> DailyEntry:
    return DailyEntry(
        entry.game_id, entry.account_id, entry.name, entry.status, score, entry.created_at
    )


def _played(game_id: str | None) -> Refusal:
    extra = {"game": game_id} if game_id else {}
    return Refusal(
        "daily_played", "you have started this preset's challenge today already", **extra
    )
