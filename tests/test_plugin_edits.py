"""A plug-in edited while a session runs (a notebook: import, edit the file in an editor,
run the next cell) is played as edited: the registry kept the first STRATEGY, so the old
code played on, with no word, even after ``importlib.reload``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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


def test_an_edit_is_played_after_another_folder_is_added(folder, tmp_path_factory):
    """add_strategy_path empties the registry; the rebuilt one took the edited files as
    its baseline while the old modules stayed imported: the edit was never played."""
    assert _answer() == 0
    _edit(folder, 7)
    strategy_module.add_strategy_path(tmp_path_factory.mktemp("another"))
    assert _answer() == 7


def test_a_helper_deep_in_a_package_is_watched(tmp_path):
    deep = tmp_path / "pkg" / "sub"
    deep.mkdir(parents=True)
    for init in (tmp_path / "pkg", deep):
        (init / "__init__.py").write_text("")
    (deep / "helper.py").write_text("K = 0\n")
    (tmp_path / "not_a_package").mkdir()
    (tmp_path / "not_a_package" / "venv_file.py").write_text("")
    files = [Path(entry[0]) for entry in strategy_path._files(tmp_path)]
    assert deep / "helper.py" in files
    assert tmp_path / "not_a_package" / "venv_file.py" not in files


def test_a_folder_holding_sunset_sim_keeps_its_modules():
    """The current folder of a checkout as the strategy path: an edit there dropped
    sunset_sim's own modules, and the registry came back empty (a second StrategySpec
    class that no STRATEGY was an instance of)."""
    import sunset_sim

    saved = dict(sys.modules)
    try:
        strategy_path._forget(Path(sunset_sim.__file__).resolve().parent.parent)
        assert all(name in sys.modules for name in saved if name.startswith("sunset_sim"))
        assert sys.modules["sunset_sim.strategy"].StrategySpec is strategy_module.StrategySpec
        assert "numpy" in sys.modules and "numba" in sys.modules
    finally:
        sys.modules.update(saved)
