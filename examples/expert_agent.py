"""The expert through the Gymnasium API: `ExpertPolicy` chooses each action index.

    python examples/expert_agent.py [ENV_ID] [EPISODES] [--seed N] [--regret]

Prints the mean final score with its standard error. In Yahtzee the expert is the exact solver,
whose expected score is 254.59 (docs/solver.md); `--regret` (games the solver covers) also sums,
per episode, the optimal value lost by each action (0 for the expert: a check of the yardstick).
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

from dicepoker.envs import ExpertPolicy, optimal_action_values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id", nargs="?", default="dicepoker/Yahtzee-v0")
    parser.add_argument("episodes", nargs="?", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--regret", action="store_true")
    args = parser.parse_args()
    env = gym.make(args.env_id, optimal_value=args.regret)
    policy = ExpertPolicy(seed=args.seed)
    scores: list[float] = []
    regret = 0.0
    start = time.perf_counter()
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        score, done = 0.0, False
        while not done:
            action = policy(env)
            if args.regret:
                values = optimal_action_values(env)
                regret += float(np.nanmax(values) - values[action])
            _, reward, done, _, _ = env.step(action)
            score += float(reward)
        scores.append(score)
    seconds = time.perf_counter() - start
    n = len(scores)
    mean = sum(scores) / n
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1))
    line = f"{args.env_id}: expert, {n} episodes: mean {mean:.2f} (SE {spread / math.sqrt(n):.2f})"
    if args.regret:
        line += f", regret {regret / n:.4f} a game"
    print(f"{line}; {n / seconds:,.1f} episodes/s")


if __name__ == "__main__":
    main()
