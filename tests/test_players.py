"""Player pages and leaderboards over the API, on SQLite and on PostgreSQL: a history written
row by row (the seats, the results, the ratings) read back as the page and the leaderboard, with
every sum checked against values computed by hand; unknown names and pools are 404."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicepoker.ratings import Rating, pools, shown
from dicepoker.server.community.accounts import Accounts
from dicepoker.server.community.pools import rating_pools, shown_rating
from dicepoker.server.settings import Settings
from dicepoker.server.storage.models import (
    GamePlayerRow,
    GameResultRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
)
from dicepoker.site import create_app
from live_server import fresh_postgres_database

ORIGIN = {"origin": "http://testserver"}
PASSWORD = "correct horse"
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SCHOOL_3 = {"columns": 3}
VARIANT_OF = {"school-3": "school", "yahtzee": "yahtzee"}


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return str(tmp_path_factory.mktemp("players") / "players.db")
    return fresh_postgres_database()


@pytest.fixture(scope="module")
def client(database: str) -> Iterator[TestClient]:
    settings = Settings(
        database=database, bot_delay=0, bot_workers=0, login_rate=0, login_name_rate=0, http_rate=0
    )
    with TestClient(create_app(settings), headers=ORIGIN) as test_client:
        _seed(test_client)
        yield test_client


def _app(client: TestClient) -> Any:
    return client.app


def _accounts(client: TestClient) -> Accounts:
    accounts: Accounts = _app(client).state.services.accounts
    return accounts


def _call(client: TestClient, function: Any, *args: Any) -> Any:
    assert client.portal is not None  # the client runs the app (its lifespan) on a portal
    return client.portal.call(function, *args)


def _sign_up(client: TestClient, name: str) -> int:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    client.cookies.clear()
    account = _call(client, _accounts(client).by_name, name)
    assert account is not None
    return int(account.id)


def _add(client: TestClient, rows: list[Any]) -> None:
    store = _app(client).state.services.store

    async def write() -> None:
        async with store.sessions() as session, session.begin():
            for row in rows:
                session.add(row)
                await session.flush()  # in order: a game before the rows that refer to it

    _call(client, write)


def _game(
    game_id: str,
    variant: str,
    options: dict[str, Any],
    names: list[str | None],
    account: int,
    *,
    status: str = "finished",
    at: datetime = START,
) -> GameRow:
    seats: list[dict[str, Any]] = []
    for seat, name in enumerate(names):
        if name is None:
            seats.append({"kind": "human", "name": None})
        elif seat == 0:
            seats.append(
                {"kind": "human", "name": name, "token_hash": "0" * 64, "account": account}
            )
        else:
            seats.append({"kind": "bot", "name": name, "level": "greedy"})
    return GameRow(
        id=game_id,
        variant=variant,
        options=options,
        seats=seats,
        status=status,
        seq=10,
        turn_seconds=0,
        created_at=at,
        updated_at=at,
        rated=True,
    )


def _result(
    game_id: str, account: int, pool: str, players: int, at: datetime, **values: Any
) -> GameResultRow:
    values.setdefault("tied", 1)
    return GameResultRow(
        game_id=game_id,
        seat=0,
        account_id=account,
        variant=VARIANT_OF[pool],
        pool=pool,
        players=players,
        finished_at=at,
        **values,
    )


def _rating(account: int, pool: str, mu: float, sigma: float, games: int) -> RatingRow:
    return RatingRow(account_id=account, pool=pool, mu=mu, sigma=sigma, games=games)


#: Marta's finished games: (id, pool, variant, options, players, score, place, tied, zeros,
#: stars, lost, decisions), oldest first; then a running game.
MARTA = [
    ("m1", "school-3", 2, 300, 1, 1, 2, 1, 12.5, 50),
    ("m2", "school-3", 2, 250, 2, 1, 4, 0, 30.0, 60),
    ("m3", "school-3", 3, 280, 1, 2, 1, 2, None, None),  # a first shared by two seats
    ("m4", "school-3", 1, 310, 1, 1, 0, 3, 5.0, 40),
    ("m5", "yahtzee", 4, 200, 3, 1, 3, 0, 8.0, 39),
]


def _seed(client: TestClient) -> None:
    """Marta's history (five finished games, one running, ratings in one pool), and the
    other accounts of the leaderboard."""
    marta = _sign_up(client, "Marta")
    bea, caio, dora, eva = (_sign_up(client, name) for name in ("Bea", "Caio", "Dora", "Eva"))
    rows: list[Any] = []
    for n, (game_id, pool, players, score, place, tied, zeros, stars, lost, decisions) in enumerate(
        MARTA
    ):
        at = START + timedelta(hours=n)
        variant = VARIANT_OF[pool]
        options = SCHOOL_3 if pool == "school-3" else {}
        bots = [f"Greedy {seat}" for seat in range(1, players)]
        rows.append(_game(game_id, variant, options, ["Marta", *bots], marta))
        # m4 and m5 share their time: the game id orders them (paging must not lose one).
        joined = START + timedelta(hours=min(n, 3))
        rows.append(GamePlayerRow(game_id=game_id, seat=0, account_id=marta, created_at=joined))
        rows.append(
            _result(
                game_id,
                marta,
                pool,
                players,
                at,
                score=score,
                place=place,
                tied=tied,
                zeros=zeros,
                stars=stars,
                lost=lost,
                decisions=decisions,
            )
        )
    running = START + timedelta(hours=9)
    rows.append(_game("m6", "yahtzee15", {}, ["Marta", None], marta, status="open", at=running))
    rows.append(GamePlayerRow(game_id="m6", seat=0, account_id=marta, created_at=running))
    # Bea's game, which is not Marta's.
    rows.append(_game("b1", "school", SCHOOL_3, ["Bea", "Greedy 1"], bea))
    rows.append(GamePlayerRow(game_id="b1", seat=0, account_id=bea, created_at=START))
    rows.append(_result("b1", bea, "school-3", 2, START, score=999, place=1, zeros=0, stars=9))
    # Ratings: Marta's after three rated games of school-3 (30, 5), and none yet in yahtzee.
    for n, (mu, sigma) in enumerate([(26.0, 7.0), (28.0, 6.0), (30.0, 5.0)]):
        rows.append(
            RatingChangeRow(
                account_id=marta,
                game_id=f"m{n + 1}",
                pool="school-3",
                mu_before=25.0,
                sigma_before=8.0,
                mu_after=mu,
                sigma_after=sigma,
                created_at=START + timedelta(hours=n),
            )
        )
    rows += [
        _rating(marta, "school-3", 30.0, 5.0, 3),
        _rating(marta, "yahtzee", 25.0, 8.0, 0),  # no rated game: not shown
        _rating(caio, "school-3", 30.0, 5.0, 5),  # Marta's rating, more games: before her
        _rating(bea, "school-3", 34.0, 4.0, 1),  # higher and surer: first
        _rating(dora, "school-3", 20.0, 2.0, 0),  # no rated game: not on the leaderboard
        _rating(eva, "school-3", 50.0, 1.0, 9),  # disabled below: not on the leaderboard
        _rating(bea, "yahtzee", 20.0, 3.0, 2),
    ]
    _add(client, rows)
    _call(client, _accounts(client).set_disabled, eva, True)


def _page(client: TestClient, name: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/players/{name}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _code(response: Any) -> str:
    code: str = response.json()["error"]["code"]
    return code


# --- the player page ---------------------------------------------------------------------------


def test_an_unknown_player_is_404(client: TestClient) -> None:
    for name in ("Nobody", "x", "<b>Marta</b>", "Mar ta"):
        response = client.get(f"/api/players/{name}")
        assert response.status_code == 404 and _code(response) == "not_found", name


def test_a_disabled_or_deleted_account_is_404(client: TestClient) -> None:
    assert client.get("/api/players/Eva").status_code == 404  # disabled
    gone = _sign_up(client, "Gone")
    _add(
        client,
        [
            _game("g1", "yahtzee", {}, ["Gone"], gone),
            GamePlayerRow(game_id="g1", seat=0, account_id=gone),
            _result("g1", gone, "yahtzee", 1, START, score=150, place=1, zeros=0, stars=0),
        ],
    )
    assert client.get("/api/players/gone").status_code == 200
    _call(client, _accounts(client).delete, gone)
    response = client.get("/api/players/Gone")
    assert response.status_code == 404 and _code(response) == "not_found"


def test_the_name_is_found_in_any_case(client: TestClient) -> None:
    for asked in ("Marta", "marta", "MARTA", "mArTa"):
        assert _page(client, asked)["name"] == "Marta"


def test_stats_per_preset_are_the_sums_of_the_results(client: TestClient) -> None:
    stats = {entry["pool"]: entry for entry in _page(client, "Marta")["stats"]}
    assert set(stats) == {"school-3", "yahtzee"}
    school = stats["school-3"]
    assert school["variant"] == "school" and school["columns"] == 3
    assert school["games"] == 4
    assert school["mean_score"] == pytest.approx((300 + 250 + 280 + 310) / 4)
    assert school["best_score"] == 310
    assert school["zeros_per_game"] == pytest.approx(7 / 4)
    assert school["stars_per_game"] == pytest.approx(6 / 4)
    # m3 has no analysis yet: accuracy over the other three, per decision.
    assert school["analysed"] == 3
    assert school["accuracy"] == pytest.approx((12.5 + 30.0 + 5.0) / (50 + 60 + 40))
    # Firsts: m1, m4 whole, m3 shared by two (a half); m2 second.
    assert school["win_rate"] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    yahtzee = stats["yahtzee"]
    assert yahtzee["columns"] is None
    assert (yahtzee["games"], yahtzee["best_score"], yahtzee["win_rate"]) == (1, 200, 0)
    assert yahtzee["mean_score"] == 200 and yahtzee["zeros_per_game"] == 3
    assert yahtzee["accuracy"] == pytest.approx(8 / 39)


def test_a_preset_with_no_analysed_game_has_no_accuracy(client: TestClient) -> None:
    alone = _sign_up(client, "Unanalysed")
    _add(
        client,
        [
            _game("u1", "yahtzee", {}, ["Unanalysed"], alone),
            _result("u1", alone, "yahtzee", 1, START, score=180, place=1, zeros=1, stars=0),
        ],
    )
    (stats,) = _page(client, "Unanalysed")["stats"]
    assert stats["analysed"] == 0 and stats["accuracy"] is None
    assert stats["win_rate"] == 1


def test_games_are_newest_first_with_their_links(client: TestClient) -> None:
    page = _page(client, "Marta")
    games = page["games"]
    assert [game["id"] for game in games] == ["m6", "m5", "m4", "m3", "m2", "m1"]
    assert page["next_before"] is None
    running = games[0]
    assert running["status"] == "open" and running["variant"] == "yahtzee15"
    assert running["players"] == ["Marta", None]
    assert running["score"] is None and running["place"] is None
    assert running["finished_at"] is None
    assert running["links"] == {"table": "/g/m6"}
    shared = games[3]
    assert (shared["id"], shared["score"], shared["place"]) == ("m3", 280, 1)
    assert shared["pool"] == "school-3" and shared["options"] == SCHOOL_3
    assert shared["players"] == ["Marta", "Greedy 1", "Greedy 2"]
    assert shared["links"] == {
        "table": "/g/m3",
        "replay": "/replay/g/m3",
        "analysis": "/replay/g/m3#analysis",
        "analysis_api": "/api/games/m3/analysis",
    }
    assert shared["finished_at"].startswith("2026-03-01T14:00:00")
    assert shared["created_at"].startswith("2026-03-01T14:00:00")


def test_games_are_paged(client: TestClient) -> None:
    seen: list[str] = []
    before: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 2}
        if before is not None:
            params["before"] = before
        page = _page(client, "marta", **params)
        pages += 1
        assert len(page["games"]) <= 2
        seen += [game["id"] for game in page["games"]]
        before = page["next_before"]
        if before is None:
            break
        assert before == page["games"][-1]["id"]
    assert pages == 3
    assert seen == ["m6", "m5", "m4", "m3", "m2", "m1"]  # m5 and m4 joined at the same time
    assert _page(client, "Marta", before="m2")["games"][0]["id"] == "m1"
    assert _page(client, "Marta", before="m1")["games"] == []


def test_bad_paging_is_a_clear_error(client: TestClient) -> None:
    for params in ({"before": "b1"}, {"before": "nope"}, {"limit": 0}, {"limit": 101}):
        response = client.get("/api/players/Marta", params=params)
        assert response.status_code == 400 and _code(response) == "bad_request", params


def test_ratings_with_their_history(client: TestClient) -> None:
    (rating,) = _page(client, "Marta")["ratings"]  # yahtzee: no rated game yet, not shown
    assert rating["pool"] == "school-3" and rating["columns"] == 3
    assert rating["games"] == 3
    assert rating["rating"] == shown_rating(30.0, 5.0)
    history = rating["history"]
    assert [point["game_id"] for point in history] == ["m1", "m2", "m3"]
    assert [point["rating"] for point in history] == [
        shown_rating(26.0, 7.0),
        shown_rating(28.0, 6.0),
        shown_rating(30.0, 5.0),
    ]
    assert history[0]["at"].startswith("2026-03-01T12:00:00")
    assert _page(client, "Dora")["ratings"] == []


def test_the_pages_show_the_ratings_own_number() -> None:
    for mu, sigma in ((25.0, 25 / 3), (26.0, 7.0), (31.5, 2.0)):
        assert shown_rating(mu, sigma) == shown(Rating(mu, sigma))
    # The leaderboard ranks by what the shown number grows with.
    assert shown_rating(26.0, 7.0) < shown_rating(28.0, 6.0) < shown_rating(30.0, 5.0)


# --- the leaderboard ---------------------------------------------------------------------------


def test_the_leaderboard_ranks_by_shown_rating(client: TestClient) -> None:
    response = client.get("/api/leaderboard/school-3")
    assert response.status_code == 200
    board = response.json()
    assert (board["pool"], board["variant"], board["columns"]) == ("school-3", "school", 3)
    entries = board["entries"]
    # Caio and Marta share a rating and a rank (Caio has more games); Dora has no rated game,
    # Eva is disabled.
    assert [(e["rank"], e["name"], e["games"]) for e in entries] == [
        (1, "Bea", 1),
        (2, "Caio", 5),
        (2, "Marta", 3),
    ]
    assert [e["rating"] for e in entries] == [
        shown_rating(34.0, 4.0),
        shown_rating(30.0, 5.0),
        shown_rating(30.0, 5.0),
    ]
    limited = client.get("/api/leaderboard/school-3", params={"limit": 2}).json()["entries"]
    assert [entry["name"] for entry in limited] == ["Bea", "Caio"]
    assert [e["name"] for e in client.get("/api/leaderboard/yahtzee").json()["entries"]] == ["Bea"]
    assert client.get("/api/leaderboard/poker-dice").json()["entries"] == []


def test_every_pool_has_a_leaderboard_and_others_are_404(client: TestClient) -> None:
    assert set(rating_pools()) == set(pools())  # dicepoker.ratings's pools
    assert {"school-1", "school-3", "school-6", "yahtzee", "yahtzee15", "poker-dice"} <= set(
        rating_pools()
    )
    for pool in rating_pools():
        assert client.get(f"/api/leaderboard/{pool}").status_code == 200, pool
    for pool in ("school", "school-7", "school-0", "chess", "YAHTZEE"):
        response = client.get(f"/api/leaderboard/{pool}")
        assert response.status_code == 404 and _code(response) == "not_found", pool
    for limit in (0, 201, "many"):
        response = client.get("/api/leaderboard/school-3", params={"limit": limit})
        assert response.status_code == 400 and _code(response) == "bad_request", limit


# --- the pages ---------------------------------------------------------------------------------


def _html(client: TestClient, path: str, lang: str = "en", status: int = 200) -> str:
    response = client.get(path + ("&" if "?" in path else "?") + f"lang={lang}")
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    page: str = response.text
    return page


def test_the_player_page_shows_ratings_stats_and_games(client: TestClient) -> None:
    page = _html(client, "/players/MARTA")
    assert '<h1 class="player-title">Marta</h1>' in page
    assert "Member since" in page
    # The rating, its graph (three points, a line and a dot) and its leaderboard.
    assert f'<span class="rating-number">{shown_rating(30.0, 5.0):,}</span>' in page
    graph = page.split('<svg class="rating-graph"', 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in graph and "<title" in graph
    points = graph.split('points="', 1)[1].split('"', 1)[0].split()
    assert len(points) == 3
    heights = [float(point.split(",")[1]) for point in points]
    assert heights[0] > heights[1] > heights[2]  # rising: higher on the page
    assert 'href="/leaderboard?pool=school-3"' in page
    # The stats: School with three columns first (hand-computed means), win rate 62.5 %.
    school = page.split('<article class="stat-card" data-pool="school-3">', 1)[1]
    school = school.split("</article>", 1)[0]
    for cell in ("285.0", "310", "1.75", "1.50", "0.32", "62%"):
        assert f"<dd>{cell}</dd>" in school, cell
    yahtzee = page.split('<article class="stat-card" data-pool="yahtzee">', 1)[1]
    yahtzee = yahtzee.split("</article>", 1)[0]
    assert "<dd>200</dd>" in yahtzee and "Stars per game" not in yahtzee  # it has no stars
    # The games: the open one links to its table, the finished ones to replay and analysis.
    assert page.count('class="history-game"') == 6
    assert 'href="/g/m6"' in page and 'href="/g/m1"' not in page
    assert 'href="/replay/g/m1"' in page and 'href="/replay/g/m1#analysis"' in page
    assert "Waiting for players" in page and "Game over" in page


def test_the_player_page_pages_its_games(client: TestClient) -> None:
    # 20 games a page: give another player 21.
    many = _sign_up(client, "Many")
    rows: list[Any] = []
    for n in range(21):
        game_id = f"many{n:02d}"
        rows.append(_game(game_id, "yahtzee", {}, ["Many"], many, status="running"))
        at = START + timedelta(minutes=n)
        rows.append(GamePlayerRow(game_id=game_id, seat=0, account_id=many, created_at=at))
    _add(client, rows)
    first = _html(client, "/players/Many")
    assert first.count('class="history-game"') == 20
    assert 'href="/g/many20"' in first and 'href="/g/many00"' not in first
    assert 'href="/players/Many?before=many01" rel="next"' in first
    second = _html(client, "/players/Many?before=many01")
    assert second.count('class="history-game"') == 1 and 'href="/g/many00"' in second
    assert 'href="/players/Many"' in second and 'rel="next"' not in second


def test_an_unknown_player_page_is_the_404_page(client: TestClient) -> None:
    page = _html(client, "/players/nobody_at_all", lang="es", status=404)
    assert "Página no encontrada" in page


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_the_pages_speak_the_visitors_language(client: TestClient, lang: str) -> None:
    from test_web_words import ENGLISH, attribute_text, visible_text

    for path in ("/players/Marta", "/leaderboard", "/leaderboard?pool=yahtzee"):
        page = _html(client, path, lang=lang)
        words = re.findall(r"[A-Za-z]+", f"{visible_text(page)} {attribute_text(page)}")
        assert sorted({w for w in words if w.lower() in ENGLISH}) == [], (path, lang)
    marta = _html(client, "/players/Marta", lang=lang)
    assert ("Codicioso 1" if lang == "es" else "Guloso 1") in marta  # the bots' names
    assert "Greedy" not in marta
    assert "1,75" in marta  # zeros per game, in the language's numbers


def test_names_are_text_never_markup(client: TestClient) -> None:
    marked = _sign_up(client, "Marked")
    game = _game("x1", "yahtzee", {}, ["Marked", "<img src=x onerror=alert(1)>"], marked)
    game.seats[1] = {"kind": "human", "name": "<img src=x onerror=alert(1)>", "token_hash": "1"}
    _add(client, [game, GamePlayerRow(game_id="x1", seat=0, account_id=marked)])
    page = _html(client, "/players/Marked")
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_leaderboard_page(client: TestClient) -> None:
    page = _html(client, "/leaderboard")  # the default game's pool first
    assert '<option value="school-3" selected>' in page
    assert all(f'<option value="{pool}"' in page for pool in rating_pools())
    names = re.findall(r'<th scope="row" class="lb-name"><a href="/players/(\w+)">', page)
    assert names == ["Bea", "Caio", "Marta"]
    yahtzee = _html(client, "/leaderboard?pool=yahtzee")
    assert re.findall(r'class="lb-name"><a href="/players/(\w+)">', yahtzee) == ["Bea"]
    assert "Nobody has a rated game" in _html(client, "/leaderboard?pool=poker-dice")
    assert "Page not found" in _html(client, "/leaderboard?pool=chess", status=404)
