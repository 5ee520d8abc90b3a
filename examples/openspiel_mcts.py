"""OpenSpiel's own MCTS against its uniform random bot, in a 2-player game of dicepoker.

    python examples/openspiel_mcts.py [--variant yahtzee] [--games 10] [--simulations 20]
                                      [--rollouts 1] [--seed 0]

MCTS (`open_spiel.python.algorithms.mcts.MCTSBot` with a `RandomRolloutEvaluator`) and
`open_spiel.python.bots.uniform_random` take the seats in turn (MCTS first in the even games);
the dice are the game's chance nodes, sampled with their probabilities. Prints MCTS's win rate
(a tie counts a half) with its standard error, each side's mean score and the time per game.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator
from open_spiel.python.bots.uniform_random import UniformRandomBot

from dicepoker.engine import totals
from dicepoker.envs.openspiel import game_name
from dicepoker.rules import VARIANTS


def play(game: pyspiel.Game, bots: list[pyspiel.Bot], rng: np.random.RandomState) -> pyspiel.State:
    """One game to its end: chance nodes sampled, each seat's bot asked at its turn."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=chances)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="yahtzee", choices=list(VARIANTS))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=20, help="MCTS simulations a move")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts a leaf")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.games < 1 or args.simulations < 1 or args.rollouts < 1:
        parser.error("--games, --simulations and --rollouts must be at least 1")

    game = pyspiel.load_game(game_name(args.variant), {"players": 2})
    rng = np.random.RandomState(args.seed)
    evaluator = RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=rng)
    mcts = MCTSBot(game, 2.0, args.simulations, evaluator, random_state=rng)
    points = 0.0
    scores: dict[str, list[int]] = {"mcts": [], "random": []}
    start = time.perf_counter()
    for number in range(args.games):
        seat = number % 2  # MCTS's seat
        bots: list[pyspiel.Bot] = [UniformRandomBot(1 - seat, rng)] * 2
        bots[seat] = mcts
        end = play(game, bots, rng)
        points += (end.returns()[seat] + 1) / 2  # win 1, tie 0.5, loss 0
        final = totals(end.engine_state)
        scores["mcts"].append(final[seat])
        scores["random"].append(final[1 - seat])
    seconds = (time.perf_counter() - start) / args.games
    rate = points / args.games
    error = math.sqrt(rate * (1 - rate) / args.games)
    means = {side: sum(values) / len(values) for side, values in scores.items()}
    print(
        f"{game_name(args.variant)}, 2 players: MCTS ({args.simulations} simulations, "
        f"{args.rollouts} rollout) against uniform random, {args.games} games (seed {args.seed})"
    )
    print(f"MCTS win rate {rate:.3f} (SE {error:.3f})")
    print(f"mean scores: MCTS {means['mcts']:.1f}, random {means['random']:.1f}")
    print(f"{seconds:.1f} s a game")


if __name__ == "__main__":
    main()
