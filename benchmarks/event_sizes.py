"""What an event weighs on the wire: `dicepoker.v2` (what it changed) against `dicepoker.v1` (the
whole view), in bytes of JSON text.

For one seeded random School game of 3 columns (every move a random legal action, to its end),
played on a game master with one subscriber of each subprotocol, prints per number of players:
the average event of each, the average roll and move of `dicepoker.v2`, and the ratio of all the
text told.

    python benchmarks/event_sizes.py [--players 2 4] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics

from dicepoker.dice import SeededDice
from dicepoker.engine import Roll, legal_actions
from dicepoker.master import GameMaster, MemoryStore, messages


async def measure(players: int, seed: int) -> dict[str, float]:
    master = GameMaster(MemoryStore(), dice=SeededDice(seed))
    seats = [{"kind": "human", "name": f"P{n}"} for n in range(players)]
    live, _ = await master.create("school", {"columns": 3}, seats, None)
    changed = master.broadcaster.subscribe(live)
    whole = master.broadcaster.subscribe(live, whole=True)
    messages.welcome(live, None)  # a client arrived: its view is the one the changes start from
    rng = random.Random(seed)
    rolls: list[int] = []
    moves: list[int] = []
    v1: list[int] = []
    while not live.game.state.finished:
        state = live.game.state
        action = rng.choice(legal_actions(state))
        await master.act(live, state.seat, str(action), live.seq)
        (rolls if isinstance(action, Roll) else moves).append(len(changed.get_nowait()))
        v1.append(len(whole.get_nowait()))
    await master.close()
    v2 = rolls + moves
    return {
        "players": players,
        "events": len(v2),
        "v2_mean": round(statistics.mean(v2)),
        "v1_mean": round(statistics.mean(v1)),
        "v2_roll": round(statistics.mean(rolls)),
        "v2_move": round(statistics.mean(moves)),
        "ratio": round(sum(v2) / sum(v1), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [asyncio.run(measure(players, args.seed)) for players in args.players]
    if args.json:
        print(json.dumps(rows))
        return
    for row in rows:
        print(
            f"School 3 columns, {row['players']} players, {row['events']} events: "
            f"v2 {row['v2_mean']} B an event (a roll {row['v2_roll']}, a move {row['v2_move']}), "
            f"v1 {row['v1_mean']} B; v2/v1 {row['ratio']}"
        )


if __name__ == "__main__":
    main()
