"""scripts/decision_bench.py: a recording replays to the same choices through the compiled
adapter, and a changed choice is reported. No timing thresholds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "decision_bench.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=900
    )


def test_record_then_replay_checks_every_choice(tmp_path):
    recording = tmp_path / "greedy.npz"
    done = _run("record", "greedy", str(recording), "--games", "6")
    assert done.returncode == 0, done.stderr[-2000:]
    data = dict(np.load(recording))
    assert data["kind"].shape[0] > 100 and (data["n_options"] > 1).all()

    done = _run("time", "greedy", str(recording), "--passes", "1", "--by-goal")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"all {data['kind'].shape[0]:,} choices equal" in done.stdout
    for kind in ("plan", "hike", "paint"):
        assert kind in done.stdout

    changed = tmp_path / "changed.npz"
    data["choice"][3] = (data["choice"][3] + 1) % data["n_options"][3]
    np.savez(changed, **data)
    done = _run("time", "greedy", str(changed), "--passes", "1")
    assert done.returncode == 1 and "1 of" in done.stdout and "differ" in done.stdout
    done = _run("time", "random", str(recording))
    assert done.returncode == 2 and "recorded greedy" in done.stderr


def test_a_strategy_that_draws_random_numbers_replays_its_draws(tmp_path):
    recording = tmp_path / "random.npz"
    assert _run("record", "random", str(recording), "--games", "3").returncode == 0
    done = _run("time", "random", str(recording), "--passes", "1")
    assert done.returncode == 0 and "choices equal" in done.stdout, done.stdout + done.stderr


PLUGIN = """
from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    return n_options - 1


STRATEGY = StrategySpec(name="last-option-bench", description="the last option", decide=decide)
"""


def test_a_strategy_from_a_folder(tmp_path):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "last_option_bench.py").write_text(PLUGIN, encoding="utf-8")
    recording = tmp_path / "last.npz"
    path = ["--strategy-path", str(folder)]
    done = _run("record", "last-option-bench", str(recording), "--games", "3", *path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = dict(np.load(recording))
    assert (data["choice"] == data["n_options"] - 1).all()
    done = _run("time", "last-option-bench", str(recording), "--passes", "1", *path)
    assert done.returncode == 0 and "choices equal" in done.stdout, done.stderr[-2000:]

    # --variant: another strategy timed on it, its different choices counted, not refused
    done = _run("time", "greedy", str(recording), "--passes", "1", "--variant")
    assert done.returncode == 0, done.stderr[-2000:]
    first = done.stdout.splitlines()[0]  # "N of M choices differ from the recorded ones"
    assert first.endswith(f"of {data['kind'].shape[0]:,} choices differ from the recorded ones")
    assert int(first.split()[0].replace(",", "")) > 0  # greedy does not always take the last
    assert "all " in done.stdout and " ms" in done.stdout  # and it went on to time them
