"""Positions for the bot tests: played, made up, mid-race; and every throw of the free dice."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import product

from dicepoker.bots import GreedyBot
from dicepoker.bots.planner import (
    rule_tables,
)
from dicepoker.dice import SeededDice
from dicepoker.engine import (
    Bonus,
    Cell,
    GameState,
    Mark,
    Roll,
    Sheet,
    apply,
    legal_actions,
    new_game,
)
from dicepoker.rules import Rules, get_rules

VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("school", {}),
    ("school", {"columns": 1}),
    ("school", {"columns": 2}),
    ("yahtzee", {}),
    ("yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}),
    ("yahtzee15", {}),
    ("poker-dice", {}),
]


def played_position(rules: Rules, players: int, rng: random.Random) -> GameState:
    """A position after a random number of turns of mixed random and greedy play, mid-turn."""
    greedy = GreedyBot()
    while True:
        state = new_game(rules, [f"p{i}" for i in range(players)])
        dice = SeededDice(rng.randrange(2**32))
        stop = rng.randrange(rules.cells * players)
        mix = rng.random()
        while not state.finished and state.turn < stop:
            if rng.random() < mix:
                action = rng.choice(legal_actions(state))
            else:
                action = greedy.choose(state)
            state = apply(state, action, dice)
        if state.finished:
            continue
        if state.rolls == 0:
            state = apply(state, legal_actions(state)[0], dice)
        return state


def school_sheet(rules: Rules, rng: random.Random, column: int) -> Sheet:
    """A made-up School sheet, mostly clean, with `column` nearly complete (so that a move can
    earn a column star) and rows nearly complete (row stars)."""
    cols = rules.columns
    space = rule_tables(rules).space
    cells: list[Cell | None] = [None] * rules.cells
    fills = []
    short = set(rng.sample(range(len(rules.rows)), rng.choice([1, 2])))
    for r, row in enumerate(rules.rows):
        fill = column if r in short else rng.randint(column + 1, cols)
        fills.append(fill)
        for c in range(fill):
            if row.school:
                roll = rng.random()
                if roll < 0.04:
                    cell = Cell(Mark.ZERO)
                else:
                    cell = Cell(Mark.CLOSED, used_reserve=roll < 0.15)
            elif rng.random() < 0.04:
                cell = Cell(Mark.STRIKE)
            else:
                made = [
                    int(v)
                    for v, ok in zip(
                        rule_tables(rules).value[r], rule_tables(rules).made[r], strict=True
                    )
                    if ok
                ]
                points = rng.choice(made)
                doubled = rng.random() < 0.3
                cell = Cell(Mark.SCORE, points * 2 if doubled else points, doubled)
            cells[r * cols + c] = cell
    assert space.n_hands == 252
    return Sheet(
        cells=tuple(cells),
        row_fill=tuple(fills),
        reserve=rng.choice([0, 0, 1, 3, 6, 10, 25]),
        filled=sum(fills),
    )


def made_up_position(rules: Rules, rng: random.Random) -> GameState:
    """Two made-up School sheets; the opponent holds a few stars (they are out of reach)."""
    column = rng.randrange(rules.columns)
    mine, theirs = school_sheet(rules, rng, column), school_sheet(rules, rng, column)
    stars = [Bonus("column", c, 50) for c in range(rules.columns) if rng.random() < 0.2]
    stars += [
        Bonus("school_row" if row.school else "combination_row", row.id, 10)
        for row in rules.rows
        if row.star and rng.random() < 0.15
    ]
    state = new_game(rules, ["a", "b"])
    return state._replace(
        sheets=(mine, theirs._replace(stars=tuple(stars))), dice=(1, 2, 3, 4, 5), rolls=1
    )


def positions(variant: str, options: dict[str, object], count: int) -> Iterator[GameState]:
    rules = get_rules(variant, options)
    rng = random.Random(f"{variant}{options}")
    for i in range(count):
        if rules.stars is not None and i % 2:
            yield made_up_position(rules, rng)
        else:
            players = rng.choice([1, 2, 3]) if rules.max_players >= 3 else 1
            yield played_position(rules, players, rng)


def throws(state: GameState, keep: tuple[int, ...]) -> Iterator[list[int]]:
    """Every positional outcome of throwing the dice of `state` not held in `keep` (6^n of them,
    equally likely)."""
    free = [p for p in range(5) if p not in keep]
    for thrown in product(range(1, 7), repeat=len(free)):
        dice = list(state.dice)
        for position, face in zip(free, thrown, strict=True):
            dice[position] = face
        yield dice


def two_player_position(rules: Rules, seed: int, left: int, rolls: int = 1) -> GameState:
    """A 2-player game between `greedy` bots, stopped when seat 1 has `left` empty cells, is to
    move and has rolled `rolls` times."""
    bots = [GreedyBot(), GreedyBot()]
    state, dice = new_game(rules, ["a", "b"]), SeededDice(seed)
    while not (state.seat == 1 and rules.cells - state.sheet.filled == left):
        state = apply(state, bots[state.seat].choose(state), dice)
    for _ in range(rolls):
        state = apply(state, Roll(), dice)
    return state
