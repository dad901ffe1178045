"""Benchmark of the fast engine, the reference engine, start-up and memory.

    python scripts/bench.py [--games 200000] [--repeats 5] [--players 4] [--jobs N]
                            [--seed 0] [--reference-games 200] [--memory-games 200000]
                            [--skip cold,warm,memory,reference] [--json]

After a warm-up, every timed figure is the MEDIAN of ``--repeats`` runs (the individual
runs are printed too); repeats are interleaved (greedy all cores, greedy one core,
greedy reference, random ...) so slow drift on a noisy machine hits every figure alike.

Sections:

* fast engine: games/s of ``--games`` games (seed ``--seed``, game indices 0..games-1) on
  the numba kernel, chunked like the runner, with all numba threads (``--jobs``, default
  all cores) and with 1 thread (per core), for a full table of ``greedy`` and of ``random``;
* reference (pure Python) engine: games/s on the first ``--reference-games`` of those same
  games (same seed and indices), one core, and the per-core speed-up fast / reference;
* cold compile: one fresh interpreter with an EMPTY temporary NUMBA_CACHE_DIR imports the
  package and runs 1 game of each built-in strategy (wall time of the whole subprocess);
* warm start: wall time of a fresh ``sunset-sim simulate --games 1000 --quiet`` with the
  normal (warm) cache, median of the repeats after one untimed run that warms the cache;
* memory: peak RSS (of that child alone: see LAUNCHER) and games/s of a fresh
  ``sunset-sim simulate --games G --out tmp.parquet --quiet`` (G = ``--memory-games``;
  the issue's target is 10,000,000).

A progress line per step goes to stderr; the results go to stdout (a table, or with
``--json`` one JSON object whose keys are listed in ``--help``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

SECTIONS = ("cold", "warm", "memory", "reference", "strategies")
STRATEGIES = ("greedy", "random")
WARM_GAMES = 1000
WARMUP_GAMES = 2000

JSON_KEYS = {
    "fast_greedy_games_per_s": "fast engine, greedy table, all --jobs threads (median)",
    "fast_greedy_games_per_s_per_core": "fast engine, greedy table, 1 numba thread (median)",
    "fast_random_games_per_s": "fast engine, random table, all --jobs threads (median)",
    "fast_random_games_per_s_per_core": "fast engine, random table, 1 numba thread (median)",
    "reference_greedy_games_per_s": "reference engine, greedy table, 1 core (median)",
    "reference_random_games_per_s": "reference engine, random table, 1 core (median)",
    "speedup_greedy_per_core": "fast per core / reference, greedy (ratio of the medians)",
    "speedup_random_per_core": "fast per core / reference, random (ratio of the medians)",
    "cold_compile_s": "fresh interpreter, empty numba cache: import + 1 game per strategy",
    "warm_start_s": "fresh `sunset-sim simulate --games 1000 --quiet`, warm cache (median)",
    "peak_memory_mib": "max RSS of `sunset-sim simulate --games G --out x.parquet`, MiB",
    "memory_games": "G, the games of that run (--memory-games)",
    "memory_games_per_s": "G / wall time of that run (start-up and Parquet writing included)",
    "strategy_games_per_s_per_core": "{strategy: games/s}, each registered strategy alone at "
    "the table, 1 numba thread (median; runs sized to about --strategy-seconds)",
    "strategy_ratio_to_greedy": "{strategy: its games/s / greedy's}, from the same repeats",
    "games": "fast-engine games per run (--games)",
    "reference_games": "reference-engine games per run (--reference-games)",
    "repeats": "timed runs per figure (--repeats)",
    "players": "players per game (--players)",
    "seed": "root seed (--seed)",
    "jobs": "numba threads used for the all-cores figures",
    "cores": "CPU cores available to this process",
    "cpu": "CPU model, family and model, widest vector instructions (/proc/cpuinfo)",
    "numba": "numba version",
    "python": "Python version",
    "command": "the command line of this benchmark",
    "skipped": "sections skipped (--skip); their figures are null",
    "elapsed_s": "wall time of the whole benchmark",
    "runs": "every individual run value (lists in run order) behind the medians",
}


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    keys = "\n".join(f"  {key:34s} {text}" for key, text in JSON_KEYS.items())
    parser = argparse.ArgumentParser(
        description="Benchmark the sunset-sim engines: medians of --repeats runs after a warm-up.",
        formatter_class=_HelpFormatter,
        epilog="--json prints one object with these keys (null where a section is skipped):\n"
        + keys,
    )
    parser.add_argument("--games", type=int, default=200_000, help="fast-engine games per run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--players", type=int, default=4, help="players per game")
    parser.add_argument(
        "--jobs", type=int, default=0, help="numba threads for the all-cores figures (0: all cores)"
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    parser.add_argument(
        "--reference-games", type=int, default=200, help="reference-engine games per run"
    )
    parser.add_argument(
        "--memory-games",
        type=int,
        default=200_000,
        help="games of the peak-memory run (the issue's target: 10000000)",
    )
    parser.add_argument(
        "--skip",
        default="",
        help=f"comma list of sections to skip: {','.join(SECTIONS)}",
    )
    parser.add_argument(
        "--strategy-seconds",
        type=float,
        default=2.0,
        help="target length of each timed run of the per-strategy section",
    )
    parser.add_argument(
        "--strategies",
        default="",
        help="comma list of the strategies the per-strategy section times (default: every "
        "registered one; greedy is always included, for the ratios)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = sorted(args.skip - set(SECTIONS))
    if unknown:
        parser.error(f"--skip: unknown section {unknown[0]!r} (known: {', '.join(SECTIONS)})")
    for name in ("games", "repeats", "reference_games", "memory_games"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.jobs < 0 or args.seed < 0:
        parser.error("--jobs and --seed must not be negative")
    return args


def progress(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


# ---- machine ---------------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU's name, family and model, and its widest vector instructions. Under a
    virtual machine the name may be only "AMD EPYC": two such machines of this project
    (2026-12-05 and 2026-12-06) played greedy at 24,000 and 58,000 games/s."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine() or "unknown"
    details = []
    if "cpu family" in fields and "model" in fields:
        details.append(f"family {fields['cpu family']}, model {fields['model']}")
    flags = set(fields.get("flags", "").split())
    if flags:
        details.append(
            "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
        )
    return f"{name} ({'; '.join(details)})" if details else name


def core_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# ---- subprocesses ----------------------------------------------------------------------


CHILD_WARNINGS: list[str] = []  # distinct warning lines from every child's stderr


@dataclass
class Child:
    wall_s: float
    peak_rss_mib: float
    stdout: str
    stderr: str


# Every measured child runs under this launcher, which starts it, waits for it and writes
# its wall time and peak RSS as the last line of stderr. wait4 on a child started from
# this process would not do: Linux carries a process's peak RSS across exec, and a child
# forked (or vforked) from this process starts out with this process's memory, so its
# ru_maxrss was this benchmark's own peak after the strategy section (937 MiB on
# 2026-12-04, where the simulate run itself peaked at 438 MiB). The launcher is a fresh,
# small interpreter, so what it starts begins small.
RSS_MARK = "sunset-bench-child"
LAUNCHER = textwrap.dedent(
    f"""
    import os, subprocess, sys, time
    start = time.perf_counter()
    child = subprocess.Popen(sys.argv[1:])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    sys.stderr.write(f"\\n{RSS_MARK} {{wall!r}} {{usage.ru_maxrss}}\\n")
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


def run_child(command: list[str], env: dict[str, str] | None = None) -> Child:
    """Run a fresh process under LAUNCHER: its wall time (perf_counter, from just before
    it starts to its end) and its own peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.run(
            [sys.executable, "-c", LAUNCHER, *command], stdout=out, stderr=err, env=env
        )
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    lines = stderr.rstrip("\n").split("\n")
    mark = lines[-1].split() if lines else []
    if process.returncode != 0 or len(mark) != 3 or mark[0] != RSS_MARK:
        raise RuntimeError(
            f"{shlex.join(command)} failed with exit code {process.returncode}:\n{stderr[-2000:]}"
        )
    stderr = "\n".join(lines[:-1])
    wall, rss = float(mark[1]), int(mark[2])
    for line in stderr.splitlines():
        if "Warning" in line and line.strip() not in CHILD_WARNINGS:
            CHILD_WARNINGS.append(line.strip())
    rss_kib = rss if sys.platform != "darwin" else rss / 1024
    return Child(wall, rss_kib / 1024, stdout, stderr)


def cli_command() -> list[str]:
    """The ``sunset-sim`` console script beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).parent / "sunset-sim"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "sunset_sim.cli"]


def simulate_command(args: argparse.Namespace, games: int) -> list[str]:
    command = cli_command() + ["simulate", "--games", str(games), "--quiet"]
    command += ["--players", str(args.players), "--seed", str(args.seed)]
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    return command


COLD_CODE = textwrap.dedent(
    """
    import json, sys, time
    start = time.perf_counter()
    from sunset_sim.runner import simulate
    imported = time.perf_counter()
    first = {}
    for name in ("greedy", "random"):  # each line-up compiles its own kernel
        t = time.perf_counter()
        simulate(games=1, players=int(sys.argv[1]), strategies=[name], seed=int(sys.argv[2]))
        first[name] = time.perf_counter() - t
    print(json.dumps({"import_s": imported - start, "first_game_s": first,
                      "inside_s": time.perf_counter() - start}))
    """
)


def cold_compile(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="sunset-bench-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("SUNSET_SIM_NO_CACHE", None)  # a real first run: compile and write the cache
        env.pop("NUMBA_DISABLE_JIT", None)
        child = run_child([sys.executable, "-c", COLD_CODE, str(args.players), str(args.seed)], env)
        cache_files = sum(len(files) for _, _, files in os.walk(cache))
    inside = json.loads(child.stdout.strip().splitlines()[-1])
    return {"wall_s": child.wall_s, **inside, "cache_files_written": cache_files}


# ---- in-process engines ----------------------------------------------------------------


def timed_fast(tables, seats, rules, seed: int, games: int) -> float:
    """Games/s of games 0..games-1 on the kernel, in chunks of the runner's size."""
    from sunset_sim.engine.batch import run_games
    from sunset_sim.runner import DEFAULT_CHUNK

    start = time.perf_counter()
    for first in range(0, games, DEFAULT_CHUNK):
        run_games(tables, seats, rules, seed, first, min(DEFAULT_CHUNK, games - first))
    return games / (time.perf_counter() - start)


def timed_reference(cards, tables, seats, rules, seed: int, games: int) -> float:
    from sunset_sim.play import play_reference

    start = time.perf_counter()
    for game in range(games):
        play_reference(cards, seats, seed, game, rules, tables)
    return games / (time.perf_counter() - start)


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def engines(args: argparse.Namespace, runs: dict) -> tuple[dict, int]:
    """Fast engine (all threads and 1 thread) and reference engine, interleaved repeats.

    Returns the medians and the number of numba threads of the all-cores figures."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import numba_threads
    from sunset_sim.strategy import seat_players

    cards = load_cards()
    tables = build_tables(cards)
    rules = Rules()
    tables_of = {name: seat_players([name], args.players) for name in STRATEGIES}
    reference = "reference" not in args.skip
    for name in STRATEGIES:
        runs[f"fast_{name}_games_per_s"] = []
        runs[f"fast_{name}_games_per_s_per_core"] = []
        if reference:
            runs[f"reference_{name}_games_per_s"] = []

    with numba_threads(args.jobs or None) as jobs:
        progress(f"warm-up (compiles if the numba cache is cold), {jobs} threads")
        for seats in tables_of.values():
            timed_fast(tables, seats, rules, args.seed, min(args.games, WARMUP_GAMES))
            with numba_threads(1):
                timed_fast(tables, seats, rules, args.seed, min(args.games, WARMUP_GAMES))
            if reference:
                timed_reference(cards, tables, seats, rules, args.seed, 2)

        for repeat in range(args.repeats):
            for name, seats in tables_of.items():
                progress(f"repeat {repeat + 1}/{args.repeats}: {name}")
                value = timed_fast(tables, seats, rules, args.seed, args.games)
                runs[f"fast_{name}_games_per_s"].append(value)
                with numba_threads(1):
                    value = timed_fast(tables, seats, rules, args.seed, args.games)
                runs[f"fast_{name}_games_per_s_per_core"].append(value)
                if reference:
                    value = timed_reference(
                        cards, tables, seats, rules, args.seed, args.reference_games
                    )
                    runs[f"reference_{name}_games_per_s"].append(value)

    figures: dict = {}
    for name in STRATEGIES:
        per_core = f"fast_{name}_games_per_s_per_core"
        ref_key = f"reference_{name}_games_per_s"
        figures[f"fast_{name}_games_per_s"] = median(runs[f"fast_{name}_games_per_s"])
        figures[per_core] = median(runs[per_core])
        figures[ref_key] = median(runs.get(ref_key, []))
        figures[f"speedup_{name}_per_core"] = None
        if reference:
            figures[f"speedup_{name}_per_core"] = figures[per_core] / figures[ref_key]
            runs[f"speedup_{name}_per_core"] = [
                fast / ref for fast, ref in zip(runs[per_core], runs[ref_key], strict=True)
            ]
    return figures, jobs


def strategy_speeds(args: argparse.Namespace, runs: dict) -> tuple[dict, dict]:
    """Games/s per core of each registered strategy alone at the table (the issue's "within
    2x of greedy" check and the lookahead's cost), runs sized to --strategy-seconds."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import numba_threads
    from sunset_sim.strategy import registry, seat_players

    tables = build_tables(load_cards())
    rules = Rules()
    names = list(registry())
    if args.strategies:
        wanted = {"greedy", *(n.strip() for n in args.strategies.split(",") if n.strip())}
        unknown = sorted(wanted - set(names))
        if unknown:
            raise SystemExit(f"bench.py: --strategies: unknown strategy {unknown[0]!r}")
        names = [name for name in names if name in wanted]
    sized: dict[str, int] = {}
    speeds: dict[str, list[float]] = {name: [] for name in names}
    with numba_threads(1):
        for name in names:
            progress(f"strategies: warm-up {name}")
            seats = seat_players([name], args.players)
            timed_fast(tables, seats, rules, args.seed, 50)  # compiles if the cache is cold
            rate = timed_fast(tables, seats, rules, args.seed, 200)
            sized[name] = max(200, int(rate * args.strategy_seconds))
        for repeat in range(args.repeats):
            for name in names:
                progress(f"strategies: repeat {repeat + 1}/{args.repeats}: {name}")
                seats = seat_players([name], args.players)
                speeds[name].append(timed_fast(tables, seats, rules, args.seed, sized[name]))
    runs["strategy_games_per_s_per_core"] = speeds
    runs["strategy_games_per_run"] = sized
    medians = {name: median(values) for name, values in speeds.items()}
    ratios = {}
    if "greedy" in speeds:
        for name, values in speeds.items():
            per_run = [v / g for v, g in zip(values, speeds["greedy"], strict=True)]
            ratios[name] = median(per_run)
    return medians, ratios


# ---- the benchmark ---------------------------------------------------------------------


def benchmark(args: argparse.Namespace) -> dict:
    import numba

    begin = time.perf_counter()
    runs: dict = {}
    result: dict = dict.fromkeys(JSON_KEYS)
    result.update(
        games=args.games,
        reference_games=args.reference_games,
        repeats=args.repeats,
        players=args.players,
        seed=args.seed,
        cores=core_count(),
        cpu=cpu_model(),
        numba=numba.__version__,
        python=platform.python_version(),
        command=shlex.join([Path(sys.argv[0]).as_posix()] + sys.argv[1:]),
        skipped=sorted(args.skip),
    )

    # Cold compile first: a fresh interpreter, so the order does not matter to it, and a
    # failure here is cheap to see.
    if "cold" not in args.skip:
        progress("cold compile: fresh interpreter, empty NUMBA_CACHE_DIR")
        cold = cold_compile(args)
        runs["cold_compile"] = cold
        result["cold_compile_s"] = cold["wall_s"]

    figures, jobs = engines(args, runs)
    result.update(figures)
    result["jobs"] = jobs

    if "strategies" not in args.skip:
        speeds, ratios = strategy_speeds(args, runs)
        result["strategy_games_per_s_per_core"] = speeds
        result["strategy_ratio_to_greedy"] = ratios

    if "warm" not in args.skip:
        command = simulate_command(args, WARM_GAMES)
        progress(f"warm start: {shlex.join(command)} (1 untimed + {args.repeats})")
        runs["warm_start_untimed_first_s"] = run_child(command).wall_s
        runs["warm_start_s"] = [run_child(command).wall_s for _ in range(args.repeats)]
        result["warm_start_s"] = median(runs["warm_start_s"])

    if "memory" not in args.skip:
        with tempfile.TemporaryDirectory(prefix="sunset-bench-") as folder:
            out = Path(folder) / "tmp.parquet"
            command = simulate_command(args, args.memory_games) + ["--out", str(out)]
            progress(f"memory: {shlex.join(command)}")
            child = run_child(command)
            if not out.is_file():
                raise RuntimeError(f"{shlex.join(command)} wrote no {out}")
            runs["memory"] = {
                "wall_s": child.wall_s,
                "peak_rss_mib": child.peak_rss_mib,
                "parquet_mib": out.stat().st_size / 2**20,
            }
        result["peak_memory_mib"] = child.peak_rss_mib
        result["memory_games"] = args.memory_games
        result["memory_games_per_s"] = args.memory_games / child.wall_s

    result["elapsed_s"] = time.perf_counter() - begin
    runs["child_warnings"] = list(CHILD_WARNINGS)
    result["runs"] = runs
    return result


# ---- printing --------------------------------------------------------------------------


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "skipped"
    return f"{value:,.{digits}f}"


def _list(values: list[float] | None, digits: int = 0) -> str:
    return "  ".join(_num(v, digits) for v in values) if values else ""


def format_report(result: dict) -> str:
    runs = result["runs"]
    lines = [
        "sunset-sim benchmark",
        f"command   {result['command']}",
        f"machine   {result['cores']} cores, {result['cpu']}; numba {result['numba']}, "
        f"Python {result['python']}",
        f"settings  {result['players']} players, seed {result['seed']}; fast engine "
        f"{result['games']:,} games/run, reference {result['reference_games']:,} games/run "
        f"(games 0..n-1); median of {result['repeats']} runs after a warm-up",
    ]
    if result["skipped"]:
        lines.append(f"skipped   {', '.join(result['skipped'])}")
    rows: list[tuple[str, str, str]] = []
    for name in STRATEGIES:
        key = f"fast_{name}_games_per_s"
        rows.append(
            (f"fast {name}, {result['jobs']} threads  games/s", _num(result[key]), _list(runs[key]))
        )
        key += "_per_core"
        rows.append((f"fast {name}, 1 thread  games/s", _num(result[key]), _list(runs[key])))
        key = f"reference_{name}_games_per_s"
        rows.append(
            (f"reference {name}, 1 core  games/s", _num(result[key], 1), _list(runs.get(key), 1))
        )
        key = f"speedup_{name}_per_core"
        rows.append((f"speed-up per core {name}  x", _num(result[key], 1), _list(runs.get(key), 1)))
    cold = runs.get("cold_compile")
    if cold:
        first = ", ".join(f"{k} {v:.2f}" for k, v in cold["first_game_s"].items())
        detail = f"import {cold['import_s']:.2f}; first game {first}; {cold['cache_files_written']} cache files"
    else:
        detail = ""
    rows.append(("cold compile (empty cache)  s", _num(result["cold_compile_s"], 2), detail))
    rows.append(
        (
            f"warm start (simulate --games {WARM_GAMES})  s",
            _num(result["warm_start_s"], 2),
            _list(runs.get("warm_start_s"), 2)
            + (
                f"  (untimed first {runs['warm_start_untimed_first_s']:.2f})"
                if "warm_start_untimed_first_s" in runs
                else ""
            ),
        )
    )
    memory = runs.get("memory")
    games = f"{result['memory_games']:,}" if result["memory_games"] else "G"
    rows.append(
        (
            f"peak memory (simulate --games {games} --out)  MiB",
            _num(result["peak_memory_mib"], 1),
            f"wall {memory['wall_s']:.2f} s, Parquet {memory['parquet_mib']:.1f} MiB"
            if memory
            else "",
        )
    )
    rows.append(("  that run  games/s", _num(result["memory_games_per_s"]), ""))
    for name, speed in (result["strategy_games_per_s_per_core"] or {}).items():
        ratio = (result["strategy_ratio_to_greedy"] or {}).get(name)
        rows.append(
            (
                f"{name} alone, 1 thread  games/s",
                _num(speed),
                (f"x{ratio:.2f} of greedy; " if ratio is not None else "")
                + _list(runs["strategy_games_per_s_per_core"][name]),
            )
        )
    width = max(len(r[0]) for r in rows)
    lines.append("")
    lines.append(f"{'figure':{width}s}  {'median':>10s}  runs / detail")
    for label, value, detail in rows:
        lines.append(f"{label:{width}s}  {value:>10s}  {detail}".rstrip())
    lines.append("")
    for warning in runs["child_warnings"]:
        lines.append(f"warning from a subprocess: {warning}")
    lines.append(f"benchmark took {result['elapsed_s']:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = benchmark(args)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(format_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
