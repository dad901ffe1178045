"""A plug-in edited while a session runs (a notebook: import, edit the file in an editor,
run the next cell) is played as edited: the registry kept the first STRATEGY, so the old
code played on, with no word, even after ``importlib.reload``."""

from __future__ import annotations

import os
import sys

import pytest

from sunset_sim import strategy as strategy_module
from sunset_sim import strategy_path
from sunset_sim.runner import simulate

PLUGIN = """\
from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec
from {helper} import ANSWER


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    return min(ANSWER, n_options - 1)


STRATEGY = StrategySpec(name="edited-in-session", description="a test", decide=decide)
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A strategy path holding the plug-in and its helper module (ANSWER = 0)."""
    helper = f"edited_helper_{os.getpid()}"
    (tmp_path / "edited_in_session.py").write_text(PLUGIN.format(helper=helper))
    (tmp_path / f"{helper}.py").write_text("ANSWER = 0\n")
    monkeypatch.setenv(strategy_module.STRATEGY_PATH_VARIABLE, str(tmp_path))
    strategy_module._REGISTRY.clear()
    yield tmp_path / f"{helper}.py"
    strategy_path.forget_modules()
    strategy_module._REGISTRY.clear()
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def _answer() -> int:
    decide = strategy_module.registry()["edited-in-session"].decide
    return decide.py_func(0, None, None, 50, None, None, None)


def _edit(helper, answer: int) -> None:
    stat = helper.stat()
    helper.write_text(f"ANSWER = {answer}\n")
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))  # (.pyc by time)


def test_an_edited_helper_module_is_imported_again(folder):
    assert _answer() == 0
    assert _answer() == 0  # (nothing changed: the same spec, not imported again)
    first = strategy_module.registry()["edited-in-session"]
    assert strategy_module.registry()["edited-in-session"] is first
    _edit(folder, 7)
    assert _answer() == 7


def test_a_plugin_edited_between_two_runs_plays_the_edit(folder):
    def fame() -> float:
        frame = simulate(
            games=40, players=2, strategies=["edited-in-session", "greedy"], seed=1, jobs=1
        )
        return float(frame.loc[frame["strategy"] == "edited-in-session", "fame"].mean())

    first = fame()
    _edit(folder, 49)  # the last option where it was the first
    assert fame() != first


def test_a_worker_builds_its_seats_again_for_an_edited_plugin(folder):
    """A Dask worker keeps its seats per line-up; an edited plug-in gets new ones (its
    engine hash then matches the driver's, which reads the same folder)."""
    from sunset_sim.run.backends import seat_data, worker_seats

    data = seat_data([strategy_module.make_player("edited-in-session")])
    first, first_hash = worker_seats(data)
    assert worker_seats(data)[0] is first  # (unchanged: built once)
    _edit(folder, 7)
    second, second_hash = worker_seats(data)
    assert second[0].spec is strategy_module.registry()["edited-in-session"]
    assert second_hash != first_hash and _answer() == 7
