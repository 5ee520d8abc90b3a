"""The analysis with luck and skill, in a real browser: the curve of the chances of winning over
the whole game, the verdict, the luck and the key moments of every player, on the end screen
of the table and in the replay viewer (static/js/curve.js, analysis.js, replay.js).

A finished Yahtzee game of two bots that both err (casual and intermediate), made over the API
once per module; its analysis (GET /api/games/{id}/analysis, the real one) is the reference the
pages are checked against: one line per player with a point per position of the curve, each at
its chance; the swings marked where the curve moved; the verdict in plain words in every
language; the key moments linking to the replay viewer's position, which shows the move played
against the expert's choice; axe-core finds nothing on the panel, in both themes, on a desktop
and a phone. A game alone has no curve, and a panel without the new fields (an older server)
still shows the old one.

As in test_browser.py: one `dicepoker serve` (bots instant) and one Chromium per module, a
context per person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from typing import Any, Final

import pytest
from playwright.sync_api import Browser, Page, Route, ViewportSize, expect

from browser_support import ROOT, Api, OpenPerson, Person, people
from dicepoker import i18n
from dicepoker.server.community.analysis import turn_seats
from live_server import LiveServer

expect.set_options(timeout=30_000)

open_person = pytest.fixture(people, name="open_person")

AXE: Final = ROOT / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP: Final[ViewportSize] = {"width": 1280, "height": 900}
PHONE: Final[ViewportSize] = {"width": 360, "height": 740}
#: The verdicts' words (static/js/analysis.js, verdictText), by the analysis's code.
VERDICTS: Final = {
    "perfect": "Perfect play: every decision was the expert's.",
    "excellent": "Excellent play: close to the expert's.",
    "strong": "Strong play: a few small slips.",
    "decent": "Decent play: some points lost along the way.",
    "shaky": "Shaky play: several costly decisions.",
    "weak": "Weak play: many points lost to better choices.",
}
#: Everything the plot shows, read at once (the plot may be drawn again as its box settles).
READ_PLOT: Final = """() => {
  const svg = document.querySelector("#analysis svg.curve");
  const numbers = (text) => text.trim().split(/\\s+/).map((pair) => pair.split(",").map(Number));
  const levels = [...svg.querySelectorAll(".curve-grid line:not(.curve-turn):not(.curve-even)")]
    .map((line) => Number(line.getAttribute("y1")));
  return {
    label: svg.getAttribute("aria-label"),
    role: svg.getAttribute("role"),
    viewBox: svg.getAttribute("viewBox").split(" ").map(Number),
    levels,
    even: Number(svg.querySelector(".curve-grid line.curve-even").getAttribute("y1")),
    lines: [...svg.querySelectorAll("polyline.curve-line")].map((line) => ({
      seat: Number(line.dataset.seat),
      dash: line.getAttribute("stroke-dasharray"),
      colour: getComputedStyle(line).stroke,
      points: numbers(line.getAttribute("points")),
    })),
    swings: [...svg.querySelectorAll(".curve-swing")].map((mark) => ({
      index: Number(mark.dataset.index),
      seat: Number(mark.dataset.seat),
      title: mark.querySelector("title").textContent,
      x: Number(mark.querySelector("circle").getAttribute("cx")),
      y: Number(mark.querySelector("circle").getAttribute("cy")),
    })),
    now: svg.querySelector(".curve-now").getAttribute("display") === "none"
      ? null : Number(svg.querySelector(".curve-now").getAttribute("x1")),
  };
}"""
#: axe-core on the analysis panel only; the serious and critical violations, each with where.
RUN_AXE: Final = """async () => {
  const result = await axe.run("#analysis", { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => [n.target.join(" "), n.failureSummary]) }));
}"""
NO_TRANSITIONS: Final = "*, *::before, *::after { transition: none !important; }"


# --- the game and its analysis -----------------------------------------------------------------


def finish(api: Api, seats: list[dict[str, str]]) -> tuple[str, dict[str, Any]]:
    """A Yahtzee game of `seats` (bots), played to its end; its id and its analysis."""
    response = api.post("/api/games", {"variant": "yahtzee", "options": {}, "seats": seats})
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    api.wait_for_game(game_id, lambda g: g["status"] == "finished", timeout=120)
    analysis: dict[str, Any] = api.get(f"/api/games/{game_id}/analysis")
    return game_id, analysis


@pytest.fixture(scope="module")
def duel(api: Api) -> tuple[str, dict[str, Any]]:
    """Two bots that both make mistakes: every player has key moments, the curve moves."""
    game_id, analysis = finish(
        api, [{"kind": "bot", "level": "casual"}, {"kind": "bot", "level": "intermediate"}]
    )
    curve = analysis["curve"]
    assert len(curve) > 50, len(curve)
    assert all(len(point["chances"]) == 2 for point in curve)
    assert 1 <= len(analysis["swings"]) <= 3, analysis["swings"]
    for player in analysis["players"]:
        assert player["verdict"] in VERDICTS, player["verdict"]
        assert key_moments(player), player
    return game_id, analysis


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: run `bash scripts/check-js` first")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture
def axe_person(browser: Browser) -> Iterator[Any]:
    """axe_person(viewport) -> a Person whose page may inject axe-core (bypass_csp)."""
    contexts = []

    def make(viewport: ViewportSize) -> Person:
        context = browser.new_context(viewport=viewport, bypass_csp=True, reduced_motion="reduce")
        context.set_default_timeout(30_000)
        contexts.append(context)
        return Person(context.new_page())

    yield make
    for context in contexts:
        context.close()


# --- the page's numbers, as Intl writes them in English -----------------------------------------


def rounded(value: float, places: int) -> str:
    """`value` to `places` decimals as Intl.NumberFormat writes it: from the shortest decimal
    that reads back as the number (ICU's), halves away from zero."""
    quantum = Decimal(1).scaleb(-places)
    return str(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def signed(text: str, value: float) -> str:
    """`text` (a magnitude) with the page's sign: none for zero, else + or a real minus."""
    if not re.search(r"[1-9]", text):
        return text
    return ("+" if value > 0 else "\u2212") + text


def signed_points(value: float) -> str:
    """+12.3, −4.0 (analysis.js signedDec)."""
    return signed(rounded(abs(value), 1), value)


def signed_percent(fraction: float) -> str:
    """+3.8%, −10%, 0% (curve.js signedPct: one decimal at most)."""
    text = rounded_percent(abs(fraction))
    return signed(f"{text}%", fraction)


def rounded_percent(fraction: float) -> str:
    """A fraction as a percentage with one decimal at most (ICU moves the decimal point of the
    shortest decimal: 0.5445 is 54.45 %, rounded to 54.5 %)."""
    quantum = Decimal("0.1")
    text = str((Decimal(repr(fraction)) * 100).quantize(quantum, rounding=ROUND_HALF_UP))
    return text.removesuffix(".0")


def action_words(action: str, dice: list[int]) -> str:
    """An action as the page says it in English: keeps by the faces kept, lowest first."""
    verb, *rest = action.split()
    if verb == "score":
        return f"score {i18n.gettext('en', f'row.yahtzee.{rest[0]}')}"
    if verb in ("keep", "hold"):
        return "keep " + " ".join(str(face) for face in sorted(dice[int(p)] for p in rest))
    assert verb == "roll", action
    return "roll all"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def decision_words(decision: dict[str, Any], record: dict[str, Any]) -> str:
    """The replay viewer's and the key moments' line for a decision that lost points."""
    roll = record["turns"][decision["turn"] - 1]["rolls"][decision["roll"] - 1]
    dice = roll["dice"]
    words = [
        f"Played: {action_words(decision['action'], dice)}",
        f"Expert: {action_words(decision['best'], dice)}",
        f"{signed_points(-decision['loss'])} points",
    ]
    lost = decision.get("win_lost")
    if isinstance(lost, float | int) and re.search(r"[1-9]", signed_percent(-lost)):
        words.append(f"{signed_percent(-lost)} chance of winning")
    return " · ".join(words)


def where_words(moment: dict[str, Any], record: dict[str, Any], name: str) -> str:
    """Where a decision was, as every page says it (turns.js): the mover's round of the game's
    rounds (a Yahtzee sheet's 13 cells), the mover, the roll; the record's turn counts every
    player's turns and is never shown."""
    seats = turn_seats(record)
    seat = seats[moment["turn"] - 1]
    assert seat == moment["seat"]
    turn = seats[: moment["turn"]].count(seat)
    return f"Turn {turn} of 13 · {name} · roll {moment['roll']}"


def key_moments(player: dict[str, Any]) -> list[dict[str, Any]]:
    """The key moments the page lists: those that lost a tenth of a point (0.0 is none)."""
    return [moment for moment in player["key_moments"] if moment["loss"] >= 0.05]


# --- checks ------------------------------------------------------------------------------------


def check_plot(page: Page, analysis: dict[str, Any]) -> dict[str, Any]:
    """The plot draws the analysis's curve: a line per player, a point per position, each at its
    chance; x moves forward along the game; the swings are marked on their player's line at
    the point they reached. Returns what was read."""
    curve = analysis["curve"]
    names = [player["name"] for player in sorted(analysis["players"], key=lambda p: p["seat"])]
    plot: dict[str, Any] = page.evaluate(READ_PLOT)
    assert plot["role"] == "img"
    for name in names:
        assert name in plot["label"], (name, plot["label"])
    top, bottom = min(plot["levels"]), max(plot["levels"])
    assert bottom - top > 100, plot["levels"]
    assert plot["even"] == pytest.approx((top + bottom) / 2, abs=0.11)
    lines = plot["lines"]
    assert [line["seat"] for line in lines] == list(range(len(names)))
    # Told apart without colour (a dash) and by colour.
    assert len({line["dash"] for line in lines}) == len(lines), lines
    assert len({line["colour"] for line in lines}) == len(lines), lines
    for line in lines:
        points = line["points"]
        assert len(points) == len(curve), (len(points), len(curve))
        xs = [x for x, _y in points]
        assert all(a < b for a, b in pairwise(xs)), xs
        for (_x, y), point in zip(points, curve, strict=True):
            wanted = bottom - point["chances"][line["seat"]] * (bottom - top)
            assert y == pytest.approx(wanted, abs=0.11), (y, wanted, point)
    marks = plot["swings"]
    assert [(m["index"], m["seat"]) for m in marks] == [
        (s["index"], s["seat"]) for s in analysis["swings"]
    ]
    for number, (mark, swing) in enumerate(zip(marks, analysis["swings"], strict=True), 1):
        x, y = lines[swing["seat"]]["points"][swing["index"]]
        assert (mark["x"], mark["y"]) == (pytest.approx(x, abs=0.11), pytest.approx(y, abs=0.11))
        cause = "decision" if swing["cause"] == "decision" else "roll"
        title = mark["title"]
        assert title.startswith(f"{number}. {names[swing['seat']]} "), title
        assert signed_percent(swing["change"]) in title, (title, swing)
        assert re.search(rf" after (a|their own) {cause}\b", title), (title, swing)
    return plot


def check_cards(page: Page, game_id: str, analysis: dict[str, Any]) -> None:
    """Per player: the verdict in words, the luck in points and in chance, the chance lost by
    decisions, and the key moments linking to the replay viewer where they were made."""
    for player in analysis["players"]:
        card = page.locator(f'#analysis .an-player[data-seat="{player["seat"]}"]')
        expect(card.locator(".an-verdict")).to_have_text(VERDICTS[player["verdict"]])
        expect(card.locator(".an-luck dd")).to_have_text(signed_points(player["luck"]))
        expect(card.locator(".an-luck-win dd")).to_have_text(signed_percent(player["luck_win"]))
        expect(card.locator(".an-win-lost dd")).to_have_text(signed_percent(-player["win_lost"]))
        moments = card.locator(".an-moment")
        shown = key_moments(player)
        expect(moments).to_have_count(len(shown))
        for index, moment in enumerate(shown):
            link = moments.nth(index).locator("a")
            href = f"/replay/g/{game_id}?turn={moment['turn'] - 1}&roll={moment['roll']}"
            expect(link).to_have_attribute("href", href)
            assert moment.get("link") in (None, href), (moment, href)


# --- the end screen ----------------------------------------------------------------------------


def test_the_end_screen_draws_the_whole_game_and_its_key_moments_open_the_replay(
    server: LiveServer, api: Api, open_person: OpenPerson, duel: tuple[str, dict[str, Any]]
) -> None:
    game_id, analysis = duel
    record = api.record(game_id)
    person = open_person(viewport=DESKTOP)
    page = person.page
    page.goto(f"{server.url}/g/{game_id}?lang=en")
    expect(page.locator("#analysis svg.curve")).to_be_visible()
    expect(page.locator("#analysis .curve-title")).to_have_text("Chance of winning over the game")
    check_plot(page, analysis)
    # The legend names each player with its final chance; the swings are listed in words.
    names = [p["name"] for p in sorted(analysis["players"], key=lambda p: p["seat"])]
    expect(page.locator("#analysis .curve-legend-name")).to_have_text(names)
    items = page.locator("#analysis .curve-swings li")
    expect(items).to_have_count(len(analysis["swings"]))
    for item, swing in zip(items.all(), analysis["swings"], strict=True):
        expect(item.locator(".curve-swing-text")).to_contain_text(signed_percent(swing["change"]))
        expect(item.locator("a")).to_have_attribute(
            "href", re.compile(rf"^/replay/g/{game_id}\?turn=\d+&roll=\d+$")
        )
    # The hidden table: a row per turn of a player, and the end.
    rows = page.locator("#analysis table.curve-table tbody tr")
    expect(rows).to_have_count(len(record["turns"]) // 2 + 1)
    expect(rows.last.locator("th")).to_have_text("End of the game")
    check_cards(page, game_id, analysis)

    # A key moment opens the replay viewer where it was made, the expert's choice shown.
    player = max(analysis["players"], key=lambda p: p["key_moments"][0]["loss"])
    moment = key_moments(player)[0]
    card = page.locator(f'#analysis .an-player[data-seat="{player["seat"]}"]')
    expect(card.locator(".an-moment").first.locator(".decision-line")).to_have_text(
        decision_words(moment, record)
    )
    card.locator(".an-moment a").first.click()
    page.wait_for_url(re.compile(rf"/replay/g/{game_id}\?turn=\d+&roll=\d+$"))
    position = page.locator("#replay-position")
    expect(position).to_have_text(where_words(moment, record, player["name"]))
    line = page.locator("#turn-analysis .ta-decision")
    expect(line).to_have_text(decision_words(moment, record))
    # The viewer's curve marks where it is.
    expect(page.locator("#analysis svg.curve .curve-now")).not_to_have_attribute("display", "none")
    plot = page.evaluate(READ_PLOT)
    index = next(
        i
        for i, point in enumerate(analysis["curve"])
        if (point["turn"], point["roll"]) == (moment["turn"] - 1, moment["roll"])
    )
    assert plot["now"] == pytest.approx(plot["lines"][0]["points"][index][0], abs=0.11)
    person.assert_clean()


def test_the_replay_viewer_jumps_to_a_key_moment_in_place(
    server: LiveServer, api: Api, open_person: OpenPerson, duel: tuple[str, dict[str, Any]]
) -> None:
    """In the viewer's own panel a key moment moves the viewer (no new page): the position, the
    decision's line and the mark on the curve follow; a position without a decision has no
    line. The moment's words are the viewer's position's, and its link, opened afresh, opens
    that same position."""
    game_id, analysis = duel
    record = api.record(game_id)
    person = open_person(viewport=DESKTOP)
    page = person.page
    page.goto(f"{server.url}/replay/g/{game_id}")
    expect(page.locator("#analysis svg.curve")).to_be_visible()
    first = analysis["players"][0]["name"]
    expect(page.locator("#replay-position")).to_have_text(f"Turn 1 of 13 · {first}")
    expect(page.locator("#turn-analysis .ta-decision")).to_have_count(0)  # nothing rolled yet
    opened: list[tuple[str, str]] = []
    for player in analysis["players"]:
        moment = key_moments(player)[-1]
        link = page.locator(f'#analysis .an-player[data-seat="{player["seat"]}"] .an-moment a')
        words = where_words(moment, record, player["name"])
        expect(link.last).to_have_text(words)
        link.last.click()
        position = page.locator("#replay-position")
        expect(position).to_have_text(words)
        expect(page.locator("#turn-analysis .ta-decision")).to_have_text(
            decision_words(moment, record)
        )
        assert page.url == f"{server.url}/replay/g/{game_id}", page.url  # no new page
        href = link.last.get_attribute("href")
        assert href == f"/replay/g/{game_id}?turn={moment['turn'] - 1}&roll={moment['roll']}"
        opened.append((href, words))
    # The same links opened as addresses: each opens the position its words name.
    for href, words in opened:
        page.goto(server.url + href)
        expect(page.locator("#replay-position")).to_have_text(words)
    person.assert_clean()


# --- every language ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_the_panel_speaks_the_players_language(
    server: LiveServer, open_person: OpenPerson, duel: tuple[str, dict[str, Any]], lang: str
) -> None:
    game_id, analysis = duel
    person = open_person(viewport=DESKTOP)
    page = person.page
    page.goto(f"{server.url}/g/{game_id}?lang={lang}")
    expect(page.locator("#analysis svg.curve")).to_be_visible()
    title = i18n.gettext(lang, "Chance of winning over the game")
    assert title != "Chance of winning over the game"
    expect(page.locator("#analysis .curve-title")).to_have_text(title)
    for player in analysis["players"]:
        english = VERDICTS[player["verdict"]]
        words = i18n.gettext(lang, english)
        assert words != english, (lang, english)
        card = page.locator(f'#analysis .an-player[data-seat="{player["seat"]}"]')
        expect(card.locator(".an-verdict")).to_have_text(words)
        expect(card.locator("h4").first).to_have_text(i18n.gettext(lang, "Key moments"))
        played = i18n.gettext(lang, "Played")
        expect(card.locator(".an-moment .dn-played").first).to_contain_text(f"{played}: ")
    swings = page.locator("#analysis .curve-swing-text")
    expect(swings.first).not_to_contain_text(re.compile(r"\bafter\b"))
    person.assert_clean()


# --- accessibility and a phone -----------------------------------------------------------------


@pytest.mark.parametrize("where", ["end", "replay"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_panel_is_axe_clean_and_fits_a_phone(
    server: LiveServer,
    axe_person: Any,
    axe_source: str,
    duel: tuple[str, dict[str, Any]],
    where: str,
    size: str,
) -> None:
    game_id, analysis = duel
    person = axe_person(PHONE if size == "phone" else DESKTOP)
    page = person.page
    page.goto(f"{server.url}/g/{game_id}" if where == "end" else f"{server.url}/replay/g/{game_id}")
    expect(page.locator("#analysis svg.curve")).to_be_visible()
    expect(page.locator("#analysis .an-moment").first).to_be_visible()
    if where == "replay":
        page.locator("#analysis .an-moment a").first.click()
        expect(page.locator("#turn-analysis .ta-decision")).to_be_visible()
    # The plot is drawn at its box's width, inside the page: nothing scrolls sideways.
    page.wait_for_function(
        """() => {
          const plot = document.querySelector("#analysis .curve-plot");
          const svg = plot.querySelector("svg.curve");
          const width = Number(svg.getAttribute("viewBox").split(" ")[2]);
          return Math.abs(width - plot.clientWidth) < 24;
        }"""
    )
    box = page.locator("#analysis svg.curve").bounding_box()
    width = (PHONE if size == "phone" else DESKTOP)["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    check_plot(page, analysis)
    page.add_style_tag(content=NO_TRANSITIONS)
    page.add_script_tag(content=axe_source)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect(page.locator("html")).to_have_attribute("data-theme", scheme)
        found = page.evaluate(RUN_AXE)
        assert found == [], f"{where} {size} ({scheme}): {found}"
    person.assert_clean()


def test_the_axe_check_of_the_panel_can_fail(
    server: LiveServer, axe_person: Any, axe_source: str, duel: tuple[str, dict[str, Any]]
) -> None:
    """The check above is not blind: a plot without its name fails it."""
    game_id, _analysis = duel
    page = axe_person(DESKTOP).page
    page.goto(f"{server.url}/g/{game_id}")
    curve = page.locator("#analysis svg.curve")
    expect(curve).to_be_visible()
    expect(curve).to_have_attribute("aria-label", re.compile(".+"))  # drawn with its name
    page.add_script_tag(content=axe_source)
    # The page may draw the panel once more as its data settles (a new plot, named again), so
    # the name is taken away again until axe has looked at a plot without one.
    ids: set[str] = set()
    for _ in range(5):
        page.evaluate("document.querySelector('#analysis svg.curve').removeAttribute('aria-label')")
        ids = {v["id"] for v in page.evaluate(RUN_AXE)}
        if curve.get_attribute("aria-label") is None:
            break
    assert "svg-img-alt" in ids, ids


# --- without a curve ---------------------------------------------------------------------------


def test_a_game_alone_has_no_curve_but_its_verdict_and_luck(
    server: LiveServer, api: Api, open_person: OpenPerson
) -> None:
    game_id, analysis = finish(api, [{"kind": "bot", "level": "casual"}])
    assert analysis["curve"] == []
    (player,) = analysis["players"]
    assert player["luck_win"] is None and player["win_lost"] is None
    person = open_person(viewport=DESKTOP)
    page = person.page
    page.goto(f"{server.url}/g/{game_id}")
    card = page.locator("#analysis .an-player")
    expect(card.locator(".an-verdict")).to_have_text(VERDICTS[player["verdict"]])
    expect(card.locator(".an-luck dd")).to_have_text(signed_points(player["luck"]))
    expect(page.locator("#analysis .curve-section")).to_have_count(0)
    expect(card.locator(".an-luck-win")).to_have_count(0)
    expect(card.locator(".an-win-lost")).to_have_count(0)
    person.assert_clean()


OLD_PLAYER_KEYS: Final = ("seat", "name", "decisions", "mistakes", "expected_loss", "mean_loss")
OLD_DECISION_KEYS: Final = ("turn", "seat", "action", "best", "value", "best_value", "loss")


def older(analysis: dict[str, Any]) -> dict[str, Any]:
    """The analysis as a server before the luck and the curve answered it."""

    def decision(d: dict[str, Any]) -> dict[str, Any]:
        return {key: d[key] for key in OLD_DECISION_KEYS}

    return {
        "variant": analysis["variant"],
        "method": analysis["method"],
        "players": [
            {
                **{key: p[key] for key in OLD_PLAYER_KEYS},
                "worst": [decision(d) for d in p["worst"]],
            }
            for p in analysis["players"]
        ],
        "decisions": [decision(d) for d in analysis["decisions"]],
    }


def test_an_analysis_without_the_new_fields_still_shows_the_panel(
    server: LiveServer, api: Api, open_person: OpenPerson, duel: tuple[str, dict[str, Any]]
) -> None:
    game_id, analysis = duel
    record = api.record(game_id)
    person = open_person(viewport=DESKTOP)
    page = person.page

    def strip(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, json=older(response.json()))

    page.route(re.compile(r"/api/games/[A-Za-z0-9_-]+/analysis$"), strip)
    page.goto(f"{server.url}/replay/g/{game_id}")
    rows = page.locator("#analysis .an-worst tbody tr")
    expect(rows.first).to_be_visible()
    expect(page.locator("#analysis .curve-section")).to_have_count(0)
    expect(
        page.locator("#analysis .an-verdict, #analysis .an-luck, #analysis .an-moment")
    ).to_have_count(0)
    # The worst moves still link to where they were made (placed by the record), and the viewer
    # there still shows the decision against the expert's.
    worst = max((p["worst"][0] for p in analysis["players"]), key=lambda d: d["loss"])
    seat = worst["seat"]
    page.locator(f'#analysis .an-player[data-seat="{seat}"] .an-worst tbody a').first.click()
    expect(page.locator("#replay-position")).to_contain_text(f" · roll {worst['roll']}")
    line = decision_words({**worst, "win_lost": None}, record)
    expect(page.locator("#turn-analysis .ta-decision")).to_have_text(line)
    person.assert_clean()
