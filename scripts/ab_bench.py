"""A/B speed of two checkouts on one line-up, alternating processes, in CPU time.

    python scripts/ab_bench.py OLD_CHECKOUT NEW_CHECKOUT --seats goal-chaser --rounds 12

Each round runs one process in each checkout (which one goes first alternates), with that
checkout's own ``.venv`` and a numba cache of its own (under the temporary folder, kept
between calls): two checkouts of one tree sharing a cache would evict each other's
entries of the modules they differ in, and recompile them in every process. A process
plays a warm-up, then ``--games`` games on one thread and reports the games per
CPU-second of that process, so another job on this shared machine slows both sides alike
rather than one. Prints the per-round ratios new / old and their median: quote that, with
the round count, never a single run.

``--new-env NAME=VALUE`` (repeatable) sets a variable for the new side's processes only,
to A/B a setting on one tree (``NUMBA_OPT=2``, ``NUMBA_CPU_FEATURES=...``): give two
checkouts of the same commit, so that each side keeps its own cache.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import run_games
from sunset_sim.rules.options import Rules
from sunset_sim.runner import numba_threads
from sunset_sim.strategy import seat_players
seats, players, games, seed = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tables = build_tables(load_cards(sys.argv[5] or None))
lineup = seat_players(seats, players)
with numba_threads(1):
    run_games(tables, lineup, Rules(), seed, 0, 200)  # compiles or loads, warms caches
    start = time.process_time()
    run_games(tables, lineup, Rules(), seed, 0, games)
    cpu = time.process_time() - start
print(json.dumps({"games_per_cpu_s": games / cpu}))
"""


def run_one(checkout: Path, args: argparse.Namespace, extra_env: dict[str, str]) -> float:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"ab_bench: {python}: no virtual environment in that checkout")
    key = hashlib.sha256(str(checkout.resolve()).encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / "sunset-sim-ab-cache" / key
    env = dict(os.environ, NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=str(cache), **extra_env)
    completed = subprocess.run(
        [
            str(python),
            "-c",
            CHILD,
            args.seats,
            str(args.players),
            str(args.games),
            str(args.seed),
            str(Path(args.cards).resolve()) if args.cards else "",
        ],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"ab_bench: {checkout}: exit {completed.returncode}: {last}")
    return json.loads(completed.stdout.strip().splitlines()[-1])["games_per_cpu_s"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="checkout A (the base)")
    parser.add_argument("new", type=Path, help="checkout B (the change)")
    parser.add_argument("--seats", default="greedy", help="strategy names, comma-separated")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cards", default=None, help="card-set file (default: the shipped set)")
    parser.add_argument(
        "--new-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the new side only (repeatable)",
    )
    args = parser.parse_args(argv)
    new_env = {}
    for item in args.new_env:
        name, equals, value = item.partition("=")
        if not name or not equals:
            parser.error(f"--new-env {item!r}: expected NAME=VALUE")
        new_env[name] = value
    ratios, olds, news = [], [], []
    for round_index in range(args.rounds):
        order = ("old", "new") if round_index % 2 == 0 else ("new", "old")
        rates = {
            side: run_one(getattr(args, side), args, new_env if side == "new" else {})
            for side in order
        }
        olds.append(rates["old"])
        news.append(rates["new"])
        ratios.append(rates["new"] / rates["old"])
        print(
            f"round {round_index + 1}: old {rates['old']:,.0f}  new {rates['new']:,.0f}"
            f"  games/CPU-s  ratio {ratios[-1]:.3f}",
            file=sys.stderr,
        )
    print(
        f"{args.seats} x{args.players}, {args.games} games, {args.rounds} rounds: "
        f"old median {statistics.median(olds):,.0f}, new median {statistics.median(news):,.0f} "
        f"games/CPU-s; new/old median ratio {statistics.median(ratios):.3f} "
        f"(range {min(ratios):.3f}-{max(ratios):.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
