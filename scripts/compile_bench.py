"""Compile-time and throughput benchmark for the compiled-once engine (issue "Compile once").

    python scripts/compile_bench.py                      # everything below, ~15 min
    python scripts/compile_bench.py --skip-cold          # without the empty-cache runs
    python scripts/compile_bench.py --old-ref ecf87a8    # also the old engine's throughput

Each figure is measured in a fresh process, as a user meets it:

- cold: an empty compile cache, time to the first game of greedy + random;
- new line-up: after ``warmup`` of the built-ins, the first game of a line-up never
  played before;
- edited strategy: in a copy of the source tree that shares the warm cache, one
  strategy file is edited; the first game of a line-up without it, then with it;
- warm: time to the first game with everything cached, and the process's import time;
- throughput: games per second on one thread (greedy x4 and random x4), and with
  ``--old-ref`` the same for that commit's engine, alternating in one run, so the ratio
  is measured under the same load.

Medians of ``--repeat`` runs; this machine is shared, so quote ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FIRST_GAME = r"""
import json, sys, time
start = time.perf_counter()
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import run_games
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players
tables = build_tables(load_cards())
imported = time.perf_counter()
players = seat_players(sys.argv[1].split(","), int(sys.argv[2]))
run_games(tables, players, Rules(), 1, 0, 1)
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "first_game_s": done - imported}))
"""

THROUGHPUT = r"""
import json, sys, time
import numba
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import run_games
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players
numba.set_num_threads(1)
tables = build_tables(load_cards())
players = seat_players([sys.argv[1]], 4)
games = int(sys.argv[2])
run_games(tables, players, Rules(), 1, 0, 200)
start = time.perf_counter()
run_games(tables, players, Rules(), 1, 0, games)
print(json.dumps({"games_per_s": games / (time.perf_counter() - start)}))
"""


def run_python(code: str, args: list[str], env: dict, cwd: Path = ROOT) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark step failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def environment(cache: Path, source: Path | None = None) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("SUNSET_SIM_NO_CACHE", None)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    return env


def median(values: list[float]) -> float:
    return statistics.median(values)


def show(label: str, values: list[float], unit: str = "s") -> None:
    shown = ", ".join(f"{v:.2f}" if unit == "s" else f"{v:,.0f}" for v in values)
    middle = median(values)
    print(
        f"{label}: median {middle:.2f} {unit} ({shown})"
        if unit == "s"
        else f"{label}: median {middle:,.0f} {unit} ({shown})",
        flush=True,
    )


def copy_source(target: Path) -> Path:
    for name in ("sunset_sim", "strategies"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", type=int, default=20000, help="games per throughput run")
    parser.add_argument("--skip-cold", action="store_true")
    parser.add_argument("--old-ref", help="a commit whose engine to compare throughput with")
    options = parser.parse_args()
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="sunset-bench-") as scratch:
        scratch_path = Path(scratch)
        old = scratch_path / "old"
        if options.old_ref:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), options.old_ref],
                check=True,
                capture_output=True,
            )
        if not options.skip_cold:
            sources = {"new": ROOT, "old": old} if options.old_ref else {"new": ROOT}
            cold: dict[str, list[float]] = {name: [] for name in sources}
            for number in range(options.repeat):  # alternating, so both meet the same load
                for name, source in sources.items():
                    cache = scratch_path / f"cold-{name}-{number}"
                    env = environment(cache, None if name == "new" else source)
                    cold[name].append(
                        run_python(FIRST_GAME, ["greedy,random", "2"], env, source)["first_game_s"]
                    )
            for name, values in cold.items():
                label = "cold first game, greedy + random" + ("" if name == "new" else ", old")
                results[label] = values
                show(label, values)
        warm_cache = scratch_path / "warm"
        env = environment(warm_cache)
        done = subprocess.run(
            [sys.executable, "-m", "sunset_sim.cli", "warmup"],
            env=env,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr[-3000:])
        print("warmup: " + done.stdout.strip().splitlines()[0], flush=True)
        lineups = [
            "balanced,goal-chaser,early-bird,lookahead",
            "late-riser,greedy-painter,random",
            "commission-hunter,balanced",
            "goal-chaser,random,greedy",
        ]
        fresh = [
            run_python(FIRST_GAME, [lineup, "4"], env)["first_game_s"]
            for lineup in lineups[: max(options.repeat, 1)]
        ]
        results["new line-up of built-ins, first game"] = fresh
        show("new line-up of built-ins, first game", fresh)
        warm = [run_python(FIRST_GAME, ["greedy,random", "2"], env) for _ in range(options.repeat)]
        results["warm first game"] = [w["first_game_s"] for w in warm]
        results["warm import"] = [w["import_s"] for w in warm]
        show("warm first game", results["warm first game"])
        show("warm import (numpy, numba, pandas, the package)", results["warm import"])
        source = copy_source(scratch_path / "edited")
        edited_env = environment(warm_cache, source)
        target = source / "strategies" / "goal_chaser.py"
        without, with_edit = [], []
        for number in range(options.repeat):
            target.write_text(target.read_text() + f"\n# benchmark edit {number}\n")
            without.append(
                run_python(FIRST_GAME, ["greedy,random", "2"], edited_env, source)["first_game_s"]
            )
            with_edit.append(
                run_python(FIRST_GAME, ["goal-chaser,greedy", "2"], edited_env, source)[
                    "first_game_s"
                ]
            )
        results["after editing goal_chaser.py: greedy + random"] = without
        results["after editing goal_chaser.py: goal-chaser + greedy"] = with_edit
        show("after editing goal_chaser.py, first game of greedy + random", without)
        show("after editing goal_chaser.py, first game of goal-chaser + greedy", with_edit)
        engines = {"new": (env, ROOT)}
        if options.old_ref:
            engines["old"] = (environment(scratch_path / "old-cache", old), old)
        try:
            for strategy in ("greedy", "random"):
                rates: dict[str, list[float]] = {name: [] for name in engines}
                for engine_env, cwd in engines.values():  # compile outside the timing
                    run_python(THROUGHPUT, [strategy, "200"], engine_env, cwd)
                for _ in range(options.repeat):
                    for name, (engine_env, cwd) in engines.items():
                        rates[name].append(
                            run_python(THROUGHPUT, [strategy, str(options.games)], engine_env, cwd)[
                                "games_per_s"
                            ]
                        )
                for name, values in rates.items():
                    results[f"{strategy} x4, one thread, {name} engine"] = values
                    show(f"{strategy} x4, one thread, {name} engine", values, "games/s")
                if "old" in rates:
                    ratio = median(rates["new"]) / median(rates["old"])
                    print(f"{strategy}: new / old = {ratio:.3f}", flush=True)
        finally:
            if options.old_ref:
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(ROOT),
                        "worktree",
                        "remove",
                        "--force",
                        str(scratch_path / "old"),
                    ],
                    capture_output=True,
                )
    print(json.dumps({key: [round(v, 3) for v in values] for key, values in results.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
