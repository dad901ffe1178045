"""A strategy's cost per decision, replayed: record the decisions it is asked in real
games, then time its compiled adapter on them, as the engine calls it.

    python scripts/decision_bench.py record goal-chaser gc.npz --games 300
    python scripts/decision_bench.py time goal-chaser gc.npz --by-goal

``record`` plays the games in a plain-Python process (``NUMBA_DISABLE_JIT=1``, so every
decision can be seen; a few seconds per hundred games) with the strategy at every seat,
and saves each decision's kind, observation, options, parameters, random stream state
and choice. ``time``
copies each decision into one workspace and calls the strategy's adapter through its
address, each decision once per pass, and prints nanoseconds per decision by kind (by
kind of daily goal too with --by-goal): the fastest of --passes passes, less the fastest
pass that only copies. It first checks that every choice equals the recorded one, so an
edit that should leave the decisions unchanged is checked on thousands of them.

The engine and the other seats are left out, and the data of a decision is in cache:
the figures are lower than a decision costs inside a game, so compare versions of one
strategy with them, not strategies. --by-goal times each goal's decisions on their own,
where branches are easier to predict than in the mixed run: its figures are lower
still. --variant times another strategy on the recording (a plug-in copy that leaves
out a part, say), counting the choices that differ instead of stopping there. On this
shared 2-core machine the whole run's figure moved by a fifth between processes
(2026-12-03): run ``time`` several times in each checkout, alternately.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# The checkout this script is in, first on the path (here and in the recording process):
# a second checkout (a git worktree, to compare two commits) then times its own code, not
# the installed one's.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RECORD = r"""
import sys
import numpy as np
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine import decisions
from sunset_sim.engine.batch import run_games
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import add_strategy_path, seat_players

name, out, games, players, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
cards, folders = sys.argv[6] or None, sys.argv[7:]
for folder in folders:
    add_strategy_path(folder)
rows = []
adapter_for = decisions.adapter_for


def recording_adapter_for(decide):
    adapter = adapter_for(decide)

    def recorded(kind, n_options, seat, context):
        obs, options, params, streams, tables = context
        stream = streams[seat].copy()  # before the call: the draws it will make
        choice = adapter(kind, n_options, seat, context)
        rows.append((kind, obs.copy(), options[:n_options].copy(), params[seat].copy(), choice, stream))
        return choice

    return recorded


decisions.adapter_for = recording_adapter_for
run_games(build_tables(load_cards(cards)), seat_players([name], players), Rules(), seed, 0, games)
np.savez_compressed(
    out,
    kind=np.array([r[0] for r in rows], dtype=np.int64),
    obs=np.stack([r[1] for r in rows]),
    n_options=np.array([len(r[2]) for r in rows], dtype=np.int64),
    options=np.concatenate([r[2] for r in rows]),
    params=np.stack([r[3] for r in rows]),
    choice=np.array([r[4] for r in rows], dtype=np.int64),
    stream=np.stack([r[5] for r in rows]),
    strategy=np.array(name),
    cards=np.array(cards or ""),
)
print(f"{len(rows):,} decisions of {games} games written to {out}")
"""


def record(args: argparse.Namespace) -> int:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=path)
    command = [sys.executable, "-c", RECORD, args.strategy, str(args.out), str(args.games)]
    cards = str(Path(args.cards).resolve()) if args.cards else ""  # (read again by ``time``)
    command += [str(args.players), str(args.seed), cards, *args.strategy_path]
    return subprocess.run(command, env=env, check=False).returncode


def replay(args: argparse.Namespace) -> int:
    import numba

    from sunset_sim import enums
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.decisions import (
        address_of,
        call_strategy,
        context_type,
        strategy_functions,
        with_fault_slot,
    )
    from sunset_sim.observation import OBS_GOAL, OPTION_WIDTH
    from sunset_sim.strategy import add_strategy_path, seat_players

    for folder in args.strategy_path:
        add_strategy_path(folder)
    data = dict(np.load(args.recording))
    missing = {"kind", "obs", "options", "n_options", "params", "choice", "stream"} - set(data)
    if missing or "strategy" not in data:
        print(f"decision_bench.py: {args.recording}: not a recording of `record`", file=sys.stderr)
        return 2
    if str(data["strategy"]) != args.strategy and not args.variant:
        print(f"decision_bench.py: {args.recording}: recorded {data['strategy']}", file=sys.stderr)
        return 2
    cards = str(data["cards"]) or None
    tables = build_tables(load_cards(cards))
    decide = seat_players([args.strategy], 1)[0].spec.decide
    functions = with_fault_slot(strategy_functions([decide]))  # strategy 0, as the engine calls
    context_of = context_type()
    kinds, n_options = data["kind"], data["n_options"]
    first = np.concatenate([[0], np.cumsum(n_options)[:-1]]).astype(np.int64)

    @numba.njit(nogil=True)
    def play_rows(functions, rows, call, out, kinds, data_obs, n_options, first, data_options,
                  data_params, data_streams, tables):  # fmt: skip
        """Copy each decision of ``rows`` into the workspace and, with ``call``, ask it."""
        obs = np.empty(data_obs.shape[1], dtype=np.int32)
        options = np.full((max(n_options.max(), 1), OPTION_WIDTH), -1, dtype=np.int32)
        params = np.empty((1, data_params.shape[1]), dtype=np.float64)
        streams = np.empty((1, data_streams.shape[1]), dtype=np.uint64)
        context = address_of((obs, options, params, streams, tables), context_of)
        for i in rows:
            obs[:] = data_obs[i]
            for row in range(n_options[i]):
                options[row, :] = data_options[first[i] + row]
            params[0, :] = data_params[i]
            streams[0, :] = data_streams[i]
            if call:
                out[i] = call_strategy(functions, 0, kinds[i], n_options[i], 0, context)
        return 0

    data_obs, data_options, data_params = data["obs"], data["options"], data["params"]
    out = np.full(kinds.shape[0], -1, dtype=np.int64)

    def play(rows: np.ndarray, call: bool) -> None:
        play_rows(functions, rows, call, out, kinds, data_obs, n_options, first, data_options,
                  data_params, data["stream"], tables)  # fmt: skip

    play(np.arange(kinds.shape[0], dtype=np.int64), True)
    differ = int((out != data["choice"]).sum())
    if differ:
        print(f"{differ:,} of {kinds.shape[0]:,} choices differ from the recorded ones")
        if not args.variant:
            return 1
    else:
        print(f"{args.strategy}: all {kinds.shape[0]:,} choices equal the recorded ones")

    def seconds(rows: np.ndarray) -> float:
        best = {True: float("inf"), False: float("inf")}
        for _ in range(args.passes):
            for call in (True, False):
                start = time.perf_counter()
                play(rows, call)
                best[call] = min(best[call], time.perf_counter() - start)
        return best[True] - best[False]

    goal = data_obs[:, OBS_GOAL]
    goal_kind = np.where(goal >= 0, tables.goal_kind[np.maximum(goal, 0)], -1)
    kind_names = {
        enums.DECIDE_PLAN: "plan",
        enums.DECIDE_HIKE: "hike",
        enums.DECIDE_PAINT: "paint",
        enums.DECIDE_SALE: "sale",
    }
    total = 0.0
    for kind, name in kind_names.items():
        rows = np.nonzero(kinds == kind)[0].astype(np.int64)
        if not rows.shape[0]:
            continue
        spent = seconds(rows)
        total += spent
        line = f"{name:6} {rows.shape[0]:8,} decisions {spent / rows.shape[0] * 1e9:7.0f} ns"
        if args.by_goal:
            parts = []
            for code in sorted(set(goal_kind[rows].tolist())):
                subset = rows[goal_kind[rows] == code]
                label = enums.GOAL_KIND_NAMES[code] if code >= 0 else "no goal"
                ns = seconds(subset) / subset.shape[0] * 1e9
                parts.append(f"{label} {ns:.0f} x{subset.shape[0]:,}")
            line += "  (" + ", ".join(parts) + ")"
        print(line)
    print(f"all    {kinds.shape[0]:8,} decisions {total * 1e3:7.2f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    path_help = "a folder of strategy modules (as sunset-sim --strategy-path); repeatable"
    recording = commands.add_parser("record", help="record a strategy's decisions")
    recording.add_argument("strategy")
    recording.add_argument("out", type=Path, help="the recording (.npz)")
    recording.add_argument("--games", type=int, default=300)
    recording.add_argument("--players", type=int, default=4)
    recording.add_argument("--seed", type=int, default=7)
    recording.add_argument("--cards", default=None, help="card-set file (default: shipped)")
    recording.add_argument("--strategy-path", action="append", default=[], help=path_help)
    timing = commands.add_parser("time", help="time the strategy on a recording")
    timing.add_argument("strategy")
    timing.add_argument("recording", type=Path)
    timing.add_argument("--passes", type=int, default=9, help="passes; the fastest counts")
    timing.add_argument("--by-goal", action="store_true", help="also by kind of daily goal")
    timing.add_argument("--strategy-path", action="append", default=[], help=path_help)
    timing.add_argument(
        "--variant",
        action="store_true",
        help="time it even if it is not the recorded strategy or its choices differ (a "
        "variant that leaves out a part: what that part costs); differences are counted",
    )
    args = parser.parse_args(argv)
    return record(args) if args.command == "record" else replay(args)


if __name__ == "__main__":
    sys.exit(main())
