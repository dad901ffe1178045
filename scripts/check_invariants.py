"""Check the fast engine's invariants on many games (issue: scale-out and robustness).

    python scripts/check_invariants.py --games 1000000 [--players 2 3 4] [--seed S]

Plays the games with every invariant of sunset_sim/engine/invariants.py checked at the
end of each day, for each player count and for greedy, random and mixed tables, and
prints the number of violating games (exit 1 if any).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sunset_sim import enums
from sunset_sim.cards import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import run_games
from sunset_sim.engine.invariants import VIOLATION_NAMES
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players

LINEUPS = (("greedy",), ("random",), ("greedy", "random"))
TIE_BREAKS = ("random", "seat", "lowest-fame")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk-size", type=int, default=50_000)
    args = parser.parse_args(argv)
    tables = build_tables(load_cards())
    configs = [(p, lineup, tie) for p in args.players for lineup in LINEUPS for tie in TIE_BREAKS]
    per_config = -(-args.games // len(configs))
    checked = violating = 0
    seen = 0
    started = time.perf_counter()
    for players, lineup, tie_break in configs:
        seats = seat_players(list(lineup), players)
        for first in range(0, per_config, args.chunk_size):
            count = min(args.chunk_size, per_config - first)
            batch = run_games(
                tables, seats, Rules(tie_break=tie_break), args.seed, first, count, True
            )
            broken = batch.game[:, enums.G_VIOLATIONS]
            checked += count
            violating += int((broken != 0).sum())
            seen |= int(np.bitwise_or.reduce(broken))
            print(f"checked {checked:,} games, {violating} violating", file=sys.stderr, flush=True)
    names = [name for bit, name in enumerate(VIOLATION_NAMES) if seen >> bit & 1]
    print(
        f"check_invariants: {checked:,} games ({len(configs)} configurations: players "
        f"{args.players}, line-ups {', '.join('+'.join(x) for x in LINEUPS)}, tie-breaks "
        f"{', '.join(TIE_BREAKS)}); {violating} violating games"
        + (f" ({'; '.join(names)})" if names else "")
        + f"; {time.perf_counter() - started:.1f} s"
    )
    return 1 if violating else 0


if __name__ == "__main__":
    sys.exit(main())
