"""The player pages and the leaderboard as HTML: the API's answers
(`dicepoker.server.community.players`) drawn on the server in the visitor's language, the rating
graph included (web/graph.py), so the pages need no script to show anything. Names are put in the
page as text (autoescaped). A provisional rating is followed by a question mark ("1874?", as
lichess writes it), outside its number so that the number reads the same either way.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final
from urllib.parse import quote

from babel.dates import format_skeleton
from babel.numbers import format_decimal, format_percent
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from dicepoker import i18n
from dicepoker.master import Refusal
from dicepoker.protocol import Leaderboard, Player, PlayerGame
from dicepoker.rules import get_rules
from dicepoker.server.community.accounts import Account, optional_account
from dicepoker.server.community.players import (
    GAMES_DEFAULT,
    leaderboard_answer,
    player_answer,
)
from dicepoker.server.community.pools import Pool, default_pool, rating_pools
from dicepoker.server.services import services
from dicepoker.web.graph import rating_graph
from dicepoker.web.pages import lang_of_request, not_found_page, render

router = APIRouter(include_in_schema=False)

#: Babel's locale for each language of the site (our Portuguese is Brazilian).
LOCALES: Final = {"en": "en", "es": "es", "pt": "pt_BR"}
#: A bot's default name, its level and seat in English ("Greedy 2"), as the server names it.
_BOT_NAME: Final = re.compile(r"^([A-Z][a-z]+) (\d+)$")


class Words:
    """The page's language: its words, numbers and dates."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.locale = LOCALES.get(lang, "en")

    def __call__(self, msgid: str, **values: Any) -> str:
        text = i18n.gettext(self.lang, msgid)
        return text.format(**values) if values else text

    def number(self, value: float, pattern: str = "#,##0") -> str:
        return str(format_decimal(value, pattern, locale=self.locale))

    def percent(self, value: float) -> str:
        return str(format_percent(value, locale=self.locale))

    def date(self, moment: datetime | str) -> str:
        when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
        return str(format_skeleton("yMMMd", when, locale=self.locale))

    def pool(self, variant: str, columns: int | None) -> str:
        """A pool's name: the game's, and the sheet's columns where the pool is per count."""
        name = self(f"variant.{variant}")
        return name if columns is None else f"{name} · {self('Columns: {n}', n=columns)}"

    def player(self, name: str | None) -> str | None:
        """A seat's name; a bot left with its default name (its level and seat in English,
        as the server names it) is named in the page's language, as the page scripts do."""
        match = _BOT_NAME.match(name or "")
        if match is None:
            return name
        level = f"level.{match.group(1).lower()}"
        known = i18n.gettext(self.lang, level)
        return name if known == level else self("{level} {n}", level=known, n=match.group(2))


def _has_stars(variant: str) -> bool:
    try:
        return any(row.star for row in get_rules(variant).rows)
    except ValueError:
        return False


def _status(game: PlayerGame) -> str:
    words = {"open": "Waiting for players", "running": "Playing", "abandoned": "Abandoned"}
    return words.get(game.status, "Game over")


def _player_context(player: Player, words: Words) -> dict[str, Any]:
    ratings = []
    for rating in player.ratings:
        label = words.pool(rating.variant, rating.columns)
        points = [(datetime.fromisoformat(p.at), p.rating) for p in rating.history]
        graph = rating_graph(points, words.date, words.number)
        ratings.append(
            {
                "label": label,
                "pool": rating.pool,
                "rating": words.number(rating.rating),
                "provisional": rating.provisional,
                "games": words.number(rating.games),
                "graph": graph,
                "graph_title": words(
                    "Rating in {pool} after each rated game, from {first} to {last}.",
                    pool=label,
                    first=words.number(rating.history[0].rating) if rating.history else "",
                    last=words.number(rating.history[-1].rating) if rating.history else "",
                ),
            }
        )
    stats = [
        {
            "label": words.pool(entry.variant, entry.columns),
            "pool": entry.pool,
            "games": words.number(entry.games),
            "mean": words.number(entry.mean_score, "#,##0.0"),
            "best": words.number(entry.best_score),
            "zeros": words.number(entry.zeros_per_game, "#,##0.00"),
            "stars": words.number(entry.stars_per_game, "#,##0.00")
            if _has_stars(entry.variant)
            else None,
            "accuracy": None
            if entry.accuracy is None
            else words.number(entry.accuracy, "#,##0.00"),
            "win_rate": words.percent(entry.win_rate),
        }
        for entry in player.stats
    ]
    games = []
    for game in player.games:
        pool = rating_pools().get(game.pool or "")
        games.append(
            {
                "label": words.pool(game.variant, pool.columns if pool else None),
                "date": words.date(game.created_at),
                "status": game.status,
                "status_text": words(_status(game)),
                "rated": game.rated,
                "players": [words.player(name) for name in game.players],
                "seat": game.seat,
                "score": None if game.score is None else words.number(game.score),
                "place": None if game.place is None else words.number(game.place),
                "links": game.links,
            }
        )
    return {
        "player": player,
        "since": words.date(player.created_at),
        "ratings": ratings,
        "stats": stats,
        "games": games,
    }


@router.get("/players/{name}", response_class=HTMLResponse)
async def player_page(request: Request, name: str, before: str | None = None) -> HTMLResponse:
    """A player's page: ratings with their graphs, stats per preset, games (20 at a time)."""
    words = Words(lang_of_request(request))
    try:
        player = await player_answer(
            services(request).accounts, name[:100], (before or "")[:64] or None, GAMES_DEFAULT
        )
    except Refusal as refusal:
        if refusal.code == "not_found":
            return await not_found_page(request)
        raise
    own = f"/players/{quote(player.name)}"
    account = await optional_account(request)
    return await render(
        request,
        "player.html",
        "Player",
        page="players",
        account=account,
        # Your own page is where the header's name leads: it links the account's settings.
        own_page=account is not None and account.name.casefold() == player.name.casefold(),
        **_player_context(player, words),
        older=f"{own}?before={quote(player.next_before)}" if player.next_before else None,
        newest=own if before else None,
    )


def _picker(words: Words, chosen: Pool) -> list[dict[str, Any]]:
    return [
        {"id": pool.id, "label": words.pool(pool.variant, pool.columns), "chosen": pool == chosen}
        for pool in rating_pools().values()
    ]


def _board_context(board: Leaderboard, words: Words) -> dict[str, Any]:
    return {
        "board": board,
        "label": words.pool(board.variant, board.columns),
        "entries": [
            {
                "rank": words.number(entry.rank),
                "name": entry.name,
                "rating": words.number(entry.rating),
                "provisional": entry.provisional,
                "games": words.number(entry.games),
            }
            for entry in board.entries
        ],
    }


async def best_pool(request: Request, account: Account | None) -> Pool:
    """The pool a leaderboard opens on for the visitor: where their established rating is
    highest, else the pool of the most games they finished (rated ones first), else the default
    game's. A board with the visitor on it, not an empty one of a game they never play."""
    if account is None:
        return default_pool()
    try:
        player = await player_answer(services(request).accounts, account.name, None, 1)
    except Refusal:
        return default_pool()
    known = rating_pools()
    established = [r for r in player.ratings if not r.provisional and r.pool in known]
    if established:
        return known[max(established, key=lambda r: r.rating).pool]
    played = {r.pool: (r.games, 0) for r in player.ratings if r.pool in known}
    for stats in player.stats:
        if stats.pool in known:
            rated = played.get(stats.pool, (0, 0))[0]
            played[stats.pool] = (rated, stats.games)
    if not played:
        return default_pool()
    # The most rated games first (that board can list the visitor), then the most played.
    return known[max(played, key=lambda pool: played[pool])]


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard_page(request: Request, pool: str | None = None) -> HTMLResponse:
    """The best players of a pool (the visitor's best pool first, `best_pool`), with a picker of
    the pools."""
    words = Words(lang_of_request(request))
    account = await optional_account(request)
    chosen = rating_pools().get(pool) if pool else await best_pool(request, account)
    if chosen is None:
        return await not_found_page(request)
    board = await leaderboard_answer(services(request).accounts, chosen.id)
    return await render(
        request,
        "leaderboard.html",
        "Leaderboard",
        page="leaderboard",
        account=account,
        pools=_picker(words, chosen),
        **_board_context(board, words),
    )
