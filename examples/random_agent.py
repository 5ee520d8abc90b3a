"""A random agent through the Gymnasium API: uniform over the legal actions (the mask).

    python examples/random_agent.py [ENV_ID] [EPISODES] [--seed N]

Prints the mean final score with its standard error, and the environment's steps per second.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

import dicepoker.envs  # noqa: F401  (registers the environments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id", nargs="?", default="dicepoker/Yahtzee-v0")
    parser.add_argument("episodes", nargs="?", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = gym.make(args.env_id)
    rng = np.random.default_rng(args.seed)
    scores: list[float] = []
    steps = 0
    start = time.perf_counter()
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        score, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, done, _, info = env.step(action)
            score += float(reward)
            steps += 1
        scores.append(score)
    seconds = time.perf_counter() - start
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, len(scores) - 1))
    print(
        f"{args.env_id}: random agent, {len(scores)} episodes: mean {mean:.2f} "
        f"(SE {spread / math.sqrt(len(scores)):.2f}); {steps / seconds:,.0f} steps/s"
    )


if __name__ == "__main__":
    main()
