"""Train a masked softmax policy in plain numpy on the vectorized environment (A2C).

    python examples/train_policy.py [--variant yahtzee] [--minutes 3] [--updates N]
        [--envs 256] [--hidden 256] [--seed 0] [--eval-games 2000] [--save weights.npz]

A one-hidden-layer network reads the observation one-hot (each `Discrete` and `MultiDiscrete`
part as `gymnasium.spaces.flatten` makes it) with each `Box` part divided by its bound; its
policy head's logits are masked by `info["action_mask"]`, its value head is the baseline. Each
update plays `--envs` whole games at once on `DicePokerVectorEnv` and takes one Adam step on the
advantage actor-critic loss (GAE advantages, an entropy bonus). No rule is computed here: the
network sees only the observation and the mask.

Prints the mean final score (with its standard error) of the untrained policy and of the trained
one, sampling and greedy, over `--eval-games` games each, next to random play's mean.
With the same `--seed` and `--updates` the run is the same (`--minutes` stops on the clock).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from dataclasses import dataclass
from typing import Any

# One BLAS thread (set before numpy loads): the matrices are small, and threads contending for
# busy cores made a training run several times slower.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402
from gymnasium import spaces  # noqa: E402

import dicepoker.envs  # noqa: E402

Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

LAMBDA = 0.95
ENTROPY = 0.01
VALUE_COEF = 0.5
REWARD_SCALE = 0.01  # the value head predicts points / 100: a few units in every variant


@dataclass(frozen=True)
class _Part:
    key: str
    start: int
    offsets: IntArray | None  # a categorical part: where each component's one-hot begins
    scale: Array | None  # a box part: 1 / its bound


class Features:
    """The observation as a float vector: one-hot categoricals, each `Box` over its bound."""

    def __init__(self, space: spaces.Dict) -> None:
        self.parts: list[_Part] = []
        width = 0
        for key, sub in space.spaces.items():
            if isinstance(sub, spaces.Box):
                bound = np.maximum(np.asarray(sub.high, dtype=np.float32).ravel(), 1.0)
                self.parts.append(_Part(key, width, None, (1.0 / bound).astype(np.float32)))
                width += bound.size
                continue
            if isinstance(sub, spaces.Discrete):
                sizes = np.array([sub.n], dtype=np.int64)
            elif isinstance(sub, spaces.MultiDiscrete):
                sizes = np.asarray(sub.nvec, dtype=np.int64).ravel()
            else:
                raise ValueError(f"observation part {key!r} is neither discrete nor a box")
            offsets = width + np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
            self.parts.append(_Part(key, width, offsets, None))
            width += int(sizes.sum())
        self.width = width

    def __call__(self, obs: dict[str, IntArray]) -> Array:
        """The features of a batch of observations (`games x width`)."""
        rows = len(next(iter(obs.values())))
        out = np.zeros((rows, self.width), dtype=np.float32)
        index = np.arange(rows)[:, None]
        for part in self.parts:
            values = np.asarray(obs[part.key]).reshape(rows, -1)
            if part.offsets is not None:
                out[index, part.offsets + values] = 1.0
            elif part.scale is not None:
                out[:, part.start : part.start + part.scale.size] = values * part.scale
        return out


class Network:
    """x -> relu(x W1 + b1) = h; policy logits h Wp + bp (masked), value h wv + bv."""

    def __init__(self, inputs: int, hidden: int, actions: int, rng: np.random.Generator) -> None:
        def glorot(rows: int, cols: int, gain: float) -> Array:
            bound = gain * math.sqrt(6.0 / (rows + cols))
            return rng.uniform(-bound, bound, (rows, cols)).astype(np.float32)

        self.params: dict[str, Array] = {
            "W1": glorot(inputs, hidden, math.sqrt(2.0)),
            "b1": np.zeros(hidden, dtype=np.float32),
            "Wp": glorot(hidden, actions, 0.01),  # near-uniform at first: random play
            "bp": np.zeros(actions, dtype=np.float32),
            "wv": glorot(hidden, 1, 1.0),
            "bv": np.zeros(1, dtype=np.float32),
        }

    def forward(self, x: Array, mask: npt.NDArray[np.int8]) -> tuple[Array, Array, Array]:
        """The hidden layer, the masked action probabilities and the values."""
        p = self.params
        hidden = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        logits = hidden @ p["Wp"] + p["bp"]
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        values = (hidden @ p["wv"] + p["bv"])[:, 0]
        return hidden, probs.astype(np.float32), values

    def gradients(
        self,
        x: Array,
        mask: npt.NDArray[np.int8],
        actions: IntArray,
        advantages: Array,
        targets: Array,
    ) -> dict[str, Array]:
        """The gradient of the mean actor-critic loss over the samples."""
        p = self.params
        n = len(x)
        pre = x @ p["W1"] + p["b1"]
        hidden = np.maximum(pre, 0.0)
        _, probs, values = self.forward(x, mask)
        logp = np.log(np.where(probs > 0, probs, 1.0))
        entropy = -(probs * logp).sum(axis=1, keepdims=True)
        d_logits = probs * advantages[:, None]  # d(-A log p_a)/dz = A (p - onehot_a)
        d_logits[np.arange(n), actions] -= advantages
        d_logits += ENTROPY * probs * (logp + entropy)  # d(-entropy)/dz
        d_logits /= n
        d_values = (VALUE_COEF * (values - targets) / n)[:, None].astype(np.float32)
        d_hidden = d_logits @ p["Wp"].T + d_values @ p["wv"].T
        d_pre = d_hidden * (pre > 0)
        return {
            "W1": x.T @ d_pre,
            "b1": d_pre.sum(axis=0),
            "Wp": hidden.T @ d_logits,
            "bp": d_logits.sum(axis=0),
            "wv": hidden.T @ d_values,
            "bv": d_values.sum(axis=0),
        }


class Adam:
    """Adam over a dict of arrays, in place."""

    def __init__(self, params: dict[str, Array], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, Array], grads: dict[str, Array]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        scale = self.lr * math.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            params[k] -= (scale * self.m[k] / (np.sqrt(self.v[k]) + 1e-8)).astype(np.float32)


@dataclass
class Batch:
    """The decisions of a batch of whole games, one row per decision."""

    x: Array
    mask: npt.NDArray[np.int8]
    actions: IntArray
    advantages: Array
    targets: Array
    scores: npt.NDArray[np.float64]


def choose(probs: Array, rng: np.random.Generator, greedy: bool) -> IntArray:
    """One action per row: sampled from `probs`, or the likeliest."""
    if greedy:
        best: IntArray = probs.argmax(axis=1).astype(np.int64)
        return best
    cumulative = probs.cumsum(axis=1)
    draws = rng.random((len(probs), 1)) * cumulative[:, -1:]
    picked = (cumulative < draws).sum(axis=1)
    # a draw can land past the last legal action's edge by rounding: take the likeliest then
    bad = probs[np.arange(len(probs)), np.minimum(picked, probs.shape[1] - 1)] == 0
    picked[bad] = probs[bad].argmax(axis=1)
    chosen: IntArray = picked.astype(np.int64)
    return chosen


def play(
    env: gym.vector.VectorEnv,
    features: Features,
    net: Network,
    rng: np.random.Generator,
    *,
    greedy: bool = False,
    learn: bool = False,
) -> tuple[npt.NDArray[np.float64], Batch | None]:
    """One whole game in every slot of `env`: the final scores and, with `learn`, the batch."""
    obs, info = env.reset()
    games = env.num_envs
    live = np.ones(games, dtype=np.bool_)
    scores = np.zeros(games, dtype=np.float64)
    steps: list[tuple[Array, npt.NDArray[np.int8], IntArray, Array, Array, npt.NDArray[np.bool_]]]
    steps = []
    while live.any():
        x = features(obs)
        mask = info["action_mask"]
        _, probs, values = net.forward(x, np.where(live[:, None], mask, 1).astype(np.int8))
        actions = choose(probs, rng, greedy)
        obs, rewards, terminated, _, info = env.step(actions)
        if learn:
            steps.append((x, mask, actions, values, rewards.astype(np.float32), live.copy()))
        ended = live & terminated
        scores[ended] = info["total"][ended]
        live &= ~terminated
    if not learn:
        return scores, None
    advantages = np.zeros((len(steps), games), dtype=np.float32)
    following = np.zeros(games, dtype=np.float32)  # the value of the next decision (0 at the end)
    running = np.zeros(games, dtype=np.float32)
    for t in range(len(steps) - 1, -1, -1):
        _, _, _, values, rewards, alive = steps[t]
        delta = rewards * REWARD_SCALE + following - values
        running = np.where(alive, delta + LAMBDA * running, 0.0).astype(np.float32)
        following = np.where(alive, values, 0.0).astype(np.float32)
        advantages[t] = running
    keep = np.stack([s[5] for s in steps])
    x = np.concatenate([s[0] for s in steps])[keep.ravel()]
    mask = np.concatenate([s[1] for s in steps])[keep.ravel()]
    actions = np.concatenate([s[2] for s in steps])[keep.ravel()]
    values = np.concatenate([s[3] for s in steps])[keep.ravel()]
    adv = advantages.ravel()[keep.ravel()]
    targets = (adv + values).astype(np.float32)
    normalized = ((adv - adv.mean()) / (adv.std() + 1e-8)).astype(np.float32)
    return scores, Batch(x, mask, actions, normalized, targets, scores)


def summary(label: str, scores: npt.NDArray[np.float64]) -> str:
    se = scores.std(ddof=1) / math.sqrt(len(scores)) if len(scores) > 1 else float("nan")
    return f"{label}: mean {scores.mean():.2f} (SE {se:.2f}) over {len(scores):,} games"


def evaluate(
    env_id: str, games: int, seed: int, net: Network, features: Features, *, greedy: bool
) -> npt.NDArray[np.float64]:
    """Final scores of `games` games on their own seed (the same games for every policy)."""
    env = gym.make_vec(env_id, num_envs=games, vectorization_mode="vector_entry_point")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    scores, _ = play(env, features, net, rng, greedy=greedy)
    env.close()
    return scores


def random_scores(env_id: str, games: int, seed: int) -> npt.NDArray[np.float64]:
    """Random legal play on the evaluation games: the floor."""
    env = gym.make_vec(env_id, num_envs=games, vectorization_mode="vector_entry_point")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    live = np.ones(games, dtype=np.bool_)
    scores = np.zeros(games, dtype=np.float64)
    while live.any():
        mask = info["action_mask"]
        actions = np.argmax(rng.random(mask.shape) * np.where(live[:, None], mask, 1), axis=1)
        _, _, terminated, _, info = env.step(actions)
        ended = live & terminated
        scores[ended] = info["total"][ended]
        live &= ~terminated
    env.close()
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    variants = sorted(set(dicepoker.envs.ENV_IDS.values()))
    parser.add_argument("--variant", default="yahtzee", choices=variants)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--updates", type=int, default=None, help="stop after N updates")
    parser.add_argument("--envs", type=int, default=256, help="games per update")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--save", default=None, help="write the weights to this .npz")
    args = parser.parse_args()
    for name in ("envs", "hidden", "eval_games"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_games < 2:
        parser.error("--eval-games must be at least 2 (a standard error needs two games)")
    if args.updates is not None and args.updates < 0:
        parser.error("--updates must be at least 0")
    if not args.minutes > 0 or not args.lr > 0:
        parser.error("--minutes and --lr must be more than 0")
    if args.save and not os.path.isdir(os.path.dirname(os.path.abspath(args.save))):
        parser.error(f"--save: no folder {os.path.dirname(os.path.abspath(args.save))!r}")
    env_id = dicepoker.envs.env_id(args.variant)
    env = gym.make_vec(env_id, num_envs=args.envs, vectorization_mode="vector_entry_point")
    space, action_space = env.single_observation_space, env.single_action_space
    assert isinstance(space, spaces.Dict) and isinstance(action_space, spaces.Discrete)
    features = Features(space)
    actions = int(action_space.n)
    rng = np.random.default_rng(args.seed)
    net = Network(features.width, args.hidden, actions, rng)
    optimizer = Adam(net.params, args.lr)
    eval_seed = args.seed + 1_000_003
    print(
        f"{env_id}: {features.width} features, {actions} actions, hidden {args.hidden}, "
        f"{args.envs} games an update, seed {args.seed}"
    )
    print(summary("random play", random_scores(env_id, args.eval_games, eval_seed)))
    scores = evaluate(env_id, args.eval_games, eval_seed, net, features, greedy=False)
    print(summary("untrained policy", scores))
    env.reset(seed=args.seed)
    start = time.perf_counter()
    deadline = start + 60.0 * args.minutes
    updates, games, decisions = 0, 0, 0
    recent: list[float] = []
    while (args.updates is None and time.perf_counter() < deadline) or (
        args.updates is not None and updates < args.updates
    ):
        _, batch = play(env, features, net, rng, learn=True)
        assert batch is not None
        grads = net.gradients(batch.x, batch.mask, batch.actions, batch.advantages, batch.targets)
        optimizer.step(net.params, grads)
        updates += 1
        games += args.envs
        decisions += len(batch.x)
        recent.append(float(batch.scores.mean()))
        if updates % 50 == 0:
            print(
                f"  update {updates:5d}: {games:,} games, training mean "
                f"{np.mean(recent):.1f}, {time.perf_counter() - start:.0f} s",
                flush=True,
            )
            recent = []
    seconds = time.perf_counter() - start
    print(
        f"trained {updates} updates, {games:,} games, {decisions:,} decisions in {seconds:.0f} s "
        f"({decisions / max(seconds, 1e-9):,.0f} decisions/s)"
    )
    for label, greedy in (("sampling", False), ("greedy", True)):
        scores = evaluate(env_id, args.eval_games, eval_seed, net, features, greedy=greedy)
        print(summary(f"trained policy ({label})", scores))
    if args.save:
        path = args.save if args.save.endswith(".npz") else args.save + ".npz"
        arrays: dict[str, Any] = {"variant": np.array(args.variant), **net.params}
        np.savez(path, **arrays)
        print(f"weights written to {path} (variant, W1, b1, Wp, bp, wv, bv)")


if __name__ == "__main__":
    main()
