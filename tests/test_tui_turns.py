"""The terminal counts turns as every page does (`dicepoker.view.turn_count`, the web's turns.js):
the round of the player to move of the game's rounds, through a whole game of two bots."""

from __future__ import annotations

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui.widgets.info import turn_count as shown_count
from dicepoker.view import game_view, turn_count


def test_the_terminal_counts_turns_as_the_pages_do() -> None:
    game = Game(get_rules("school"), ["Ana", "Bea"], SeededDice(5))
    bots = [make_bot("greedy", seed=seat) for seat in range(2)]
    counted = 0
    while not game.state.finished:
        count = turn_count(game.state)
        view = game_view(game.state).to_data()
        assert count is not None
        assert shown_count(view) == (count.round, count.rounds)
        counted += 1
        game.play(bots[game.state.seat].choose(game.state))
    assert shown_count(game_view(game.state).to_data()) is None
    assert counted > 90  # every roll and move of 2 x 45 turns
