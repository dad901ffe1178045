"""Smoke test of scripts/bench.py: a tiny run gives every JSON key a positive figure.

No timing thresholds: only that the benchmark runs and reports what --help promises.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench.py"
NUMBERS = (
    "fast_greedy_games_per_s",
    "fast_greedy_games_per_s_per_core",
    "fast_random_games_per_s",
    "fast_random_games_per_s_per_core",
    "reference_greedy_games_per_s",
    "reference_random_games_per_s",
    "speedup_greedy_per_core",
    "speedup_random_per_core",
    "warm_start_s",
    "peak_memory_mib",
    "memory_games",
    "memory_games_per_s",
    "games",
    "reference_games",
    "repeats",
    "players",
    "jobs",
    "cores",
    "elapsed_s",
)


def test_bench_smoke():
    command = [sys.executable, str(BENCH), "--games", "2000", "--repeats", "2"]
    command += ["--reference-games", "10", "--memory-games", "2000", "--skip", "cold", "--json"]
    # two strategies, not all nine: each alone at a table is a kernel of its own, and on
    # an empty numba cache compiling all of them takes over ten minutes
    command += ["--strategy-seconds", "0.05", "--strategies", "random"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)

    help_text = subprocess.run(
        [sys.executable, str(BENCH), "--help"], capture_output=True, text=True, check=True
    ).stdout
    for key in result:
        assert key in help_text, f"JSON key {key} is not listed in --help"

    for key in NUMBERS:
        value = result[key]
        assert isinstance(value, int | float) and value > 0, (key, value)
    assert result["cold_compile_s"] is None and result["skipped"] == ["cold"]
    assert (result["games"], result["repeats"], result["players"]) == (2000, 2, 4)
    assert result["memory_games"] == 2000
    assert result["cpu"] and result["numba"] and result["command"]

    runs = result["runs"]
    for key in NUMBERS[:9]:  # the figures that are medians of --repeats runs
        assert len(runs[key]) == 2 and all(v > 0 for v in runs[key]), key
    assert runs["memory"]["peak_rss_mib"] == result["peak_memory_mib"]

    speeds = result["strategy_games_per_s_per_core"]
    assert set(speeds) == {"greedy", "random"}
    assert all(value > 0 for value in speeds.values()), speeds
    assert result["strategy_ratio_to_greedy"]["greedy"] == 1.0
    assert all(len(values) == 2 for values in runs["strategy_games_per_s_per_core"].values())


def _bench_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_script", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def test_child_peak_memory_is_the_childs_own():
    """A child's peak RSS must not include this (large) process's: Linux carries the peak
    across exec, and bench.py's memory figure once read 937 MiB for a 438 MiB run."""
    import numpy as np

    bench = _bench_module()
    parent = np.ones(40_000_000)  # 305 MiB, touched
    small = bench.run_child([sys.executable, "-c", "pass"])
    large = bench.run_child(
        [sys.executable, "-c", "import numpy as np; np.ones(30_000_000).sum()"]
    )  # 229 MiB in the child
    assert parent.sum() == 40_000_000
    assert small.peak_rss_mib < 100, small.peak_rss_mib
    assert 229 < large.peak_rss_mib < 229 + 150, large.peak_rss_mib
    assert small.wall_s > 0 and large.wall_s > small.wall_s


def test_child_failure_is_reported():
    bench = _bench_module()
    code = "import sys; sys.stderr.write('boom'); sys.exit(3)"
    try:
        bench.run_child([sys.executable, "-c", code])
    except RuntimeError as error:
        assert "exit code 3" in str(error) and "boom" in str(error)
    else:
        raise AssertionError("a failing child was not reported")
