"""One run pipeline (issue 14): every command plays its chunks through run/backends.py, so
each one runs on Dask as well as here, with the same results. ``backend=`` takes "local",
"dask" (``scheduler`` or ``$DASK_SCHEDULER_ADDRESS``), an existing ``distributed.Client``
or an open backend. The cluster is one in-process LocalCluster with one worker: small and
quick, and the worker's module state (which seats it built) can be looked at directly."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from sunset_sim.cli import main
from sunset_sim.run import backends
from sunset_sim.run.backends import DaskBackend, LocalBackend, open_backend
from sunset_sim.runner import simulate
from sunset_sim.validation import InputError

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)
except TypeError:
    RUNNER = CliRunner()


def cli(*args) -> str:
    result = RUNNER.invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result.stdout


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


@pytest.fixture
def played_on(monkeypatch):
    """Where each chunk was played: a worker's address, or "driver" when it was played in
    this process outside any worker (joblib's shortcut for a one-thread cluster). The
    cluster is in-process, so the wrapped function is the one that runs there."""
    where: list[str] = []
    worker_seats = backends.worker_seats  # what play_chunk calls first, wherever it runs

    def recorded(data):
        import distributed

        try:
            where.append(distributed.get_worker().address)
        except ValueError:
            where.append("driver")
        return worker_seats(data)

    monkeypatch.setattr(backends, "worker_seats", recorded)
    return where


def on_cluster(where: list[str]) -> None:
    """Every chunk since the last check was played on a worker; then start afresh."""
    assert where, "no chunk was played on the cluster"
    assert "driver" not in where, f"chunks played outside the cluster: {where}"
    where.clear()


# ---- choosing a backend (no cluster) -------------------------------------------------


def test_backend_choices(monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    assert isinstance(open_backend(None), LocalBackend)
    assert isinstance(open_backend("local"), LocalBackend)
    # the Python API names its own arguments, not the command line's options
    with pytest.raises(InputError, match="^backend='dask' needs scheduler=ADDRESS or DASK_SCHED"):
        open_backend("dask")  # (a missing argument: a ValueError, as every bad input)
    with pytest.raises(InputError, match="^scheduler: only with backend='dask'"):
        open_backend("local", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match="^scheduler: only with backend='dask'"):
        simulate(games=4, players=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match="^backend: int is not 'local', 'dask' or a distrib"):
        open_backend(42)
    with pytest.raises(InputError, match="^backend: 'ray' is not 'local', 'dask' or a distrib"):
        simulate(games=4, players=2, backend="ray")
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.0.0.5:8786")
    chosen = open_backend("dask")  # not entered: nothing connects
    assert isinstance(chosen, DaskBackend) and chosen.scheduler == "tcp://10.0.0.5:8786"
    assert open_backend("dask", scheduler="tcp://10.0.0.6:8786").scheduler == "tcp://10.0.0.6:8786"


def test_a_bad_backend_on_the_command_line_is_one_line(monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    for command in (
        ["tournament", "--strategy", "greedy", "--strategy", "random", "-n", "5"],
        ["compare", "-n", "5", "--b-rule", "days=4"],
        ["sweep", "--param", "balanced:deny=0,1", "-n", "5"],
        ["tune", "balanced", "-n", "2", "--generations", "1", "--population", "4"],
    ):
        result = RUNNER.invoke(main, [*command, "--backend", "dask"])
        assert result.exit_code == 2, (command, result.output, result.exception)
        lines = result.stderr.splitlines()
        assert lines[-1] == (
            "error: --backend dask needs --scheduler ADDRESS or DASK_SCHEDULER_ADDRESS (start "
            "one with `dask scheduler`, and workers with `dask worker ADDRESS --nthreads 1`)"
        ), (command, result.stderr)
        assert result.stdout == ""


def test_every_command_refuses_a_scheduler_without_dask_before_it_compiles(monkeypatch):
    """--scheduler with the local backend was refused only where the backend opened: by
    then tournament, report and tune had compiled (minutes on a cold cache)."""
    from sunset_sim.engine import compiling

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled before --scheduler was checked")

    monkeypatch.setattr(compiling, "prepare", no_compile)
    games = ["-n", "5"]
    for command in (
        ["simulate", *games],
        ["tournament", "--strategy", "greedy", "--strategy", "random", *games],
        ["compare", *games, "--b-rule", "days=4"],
        ["sweep", "--param", "balanced:deny=0,1", *games],
        ["tune", "balanced", *games, "--generations", "1", "--population", "4"],
        ["report", "--games", "5", "--out", "never-written"],
        ["study", "--games", "5", "--out", "never-written"],
        ["value", "--games", "5", "--out", "never-written"],
    ):
        result = RUNNER.invoke(main, [*command, "--scheduler", "tcp://127.0.0.1:1"])
        assert result.exit_code == 2, (command, result.output, result.exception)
        assert result.stderr.splitlines() == ["error: --scheduler: only for --backend dask"], (
            command,
            result.stderr,
        )


# ---- on a LocalCluster: the same results as a local run ------------------------------


def test_simulate_on_an_existing_client(client, played_on):
    kwargs = dict(games=120, players=3, strategies=["greedy", "random"], seed=5, chunk_size=50)
    local = simulate(**kwargs, jobs=1)
    remote = simulate(**kwargs, backend=client)  # was: 'Client' object has no attribute 'play'
    pd.testing.assert_frame_equal(remote, local)
    on_cluster(played_on)
    assert client.status == "running"  # the caller's client is left open


def test_scheduler_address_from_the_environment(client, played_on, monkeypatch):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    kwargs = dict(games=60, players=2, strategies=["greedy", "random"], seed=9, chunk_size=25)
    pd.testing.assert_frame_equal(simulate(**kwargs, backend="dask"), simulate(**kwargs, jobs=1))
    on_cluster(played_on)
    command = ["tournament", "--strategy", "greedy", "--strategy", "random", "-n", "40"]
    command += ["--rating-games", "20", "--format", "json", "-q"]
    assert json.loads(cli(*command, "--backend", "dask")) == json.loads(cli(*command))
    on_cluster(played_on)


def test_api_commands_on_a_client_match_local(client, played_on):
    from sunset_sim.analysis.sweep import sweep
    from sunset_sim.analysis.tournament import tournament
    from sunset_sim.analysis.tune import tune
    from sunset_sim.analysis.whatif import compare

    small = dict(games=60, seed=3, chunk_size=25)
    local = tournament(["greedy", "random", "balanced"], players=3, rating_games=30, **small)
    remote = tournament(
        ["greedy", "random", "balanced"], players=3, rating_games=30, backend=client, **small
    )
    for name in ("standings", "head_to_head", "by_seat", "by_turn_position"):
        pd.testing.assert_frame_equal(getattr(remote, name), getattr(local, name))
    on_cluster(played_on)

    arguments = dict(strategies=["greedy", "random"], players=2, rules_b={"days": 4}, **small)
    pd.testing.assert_frame_equal(compare(**arguments, backend=client), compare(**arguments))
    on_cluster(played_on)

    arguments = dict(param="balanced:deny=0,1", strategies=["greedy"], players=2, **small)
    pd.testing.assert_frame_equal(sweep(**arguments, backend=client), sweep(**arguments))
    on_cluster(played_on)

    arguments = dict(games=8, players=2, generations=2, population=3, validation_games=10)
    arguments.update(seed=4, chunk_size=5)
    here = tune("balanced", **arguments)
    there = tune("balanced", **arguments, backend=client)
    assert there.best == here.best and there.difference == here.difference
    pd.testing.assert_frame_equal(there.history, here.history)
    pd.testing.assert_frame_equal(there.validation, here.validation)
    on_cluster(played_on)


def test_commands_on_the_cluster_match_local(client, played_on, tmp_path):
    address = ["--backend", "dask", "--scheduler", client.scheduler.address]
    commands = [
        ["compare", "-n", "40", "-p", "2", "--b-rule", "days=4", "--format", "json", "-q"],
        ["sweep", "--param", "balanced:deny=0,1", "-n", "30", "-p", "2", "--format", "json", "-q"],
    ]
    for command in commands:
        assert json.loads(cli(*command, *address)) == json.loads(cli(*command)), command
        on_cluster(played_on)
    tune = ["tune", "balanced", "-n", "6", "-p", "2", "--generations", "1", "--population", "4"]
    tune += ["--validation-games", "8", "--format", "json", "-q"]
    here = json.loads(cli(*tune, "-o", tmp_path / "here.json"))
    there = json.loads(cli(*tune, *address, "-o", tmp_path / "there.json"))
    assert there == here
    on_cluster(played_on)


def test_restricted_play_and_study_on_a_client_match_local(client, played_on):
    """Restricted play: the ban masks travel to the worker with the chunks."""
    from sunset_sim.analysis.experiments import restricted_play
    from sunset_sim.analysis.study import run_study

    arguments = dict(strategies=["greedy", "random"], players=2, games=40, seed=6)
    arguments["families"] = ("commission",)
    pd.testing.assert_frame_equal(
        restricted_play(**arguments, backend=client), restricted_play(**arguments)
    )
    on_cluster(played_on)
    arguments = dict(players=2, games=30, seed=2, families=("commission",), edits=())
    here = run_study(["greedy", "random"], **arguments)
    there = run_study(["greedy", "random"], **arguments, backend=client)
    for name in ("values", "targets", "suggestions"):
        pd.testing.assert_frame_equal(getattr(there, name), getattr(here, name))
    on_cluster(played_on)


def test_report_and_study_commands_on_the_cluster_match_local(client, played_on, tmp_path):
    address = ["--backend", "dask", "--scheduler", client.scheduler.address]
    report = ["report", "--games", "60", "-p", "2", "--strategy", "greedy", "--strategy"]
    report += ["random", "--study-games", "30", "--format", "json", "-q"]
    here = cli(*report, "--out", tmp_path / "here")
    there = cli(*report, *address, "--out", tmp_path / "there")
    assert json.loads(there) == json.loads(here)
    for name in ("values.csv", "targets.csv", "tables/strategies.csv"):
        assert (tmp_path / "there" / name).read_text() == (tmp_path / "here" / name).read_text()
    on_cluster(played_on)
    study = ["study", "-n", "30", "-p", "2", "--families", "commission", "--edits", "none"]
    study += ["--format", "json", "-q"]
    here = cli(*study, "--out", tmp_path / "study-here")
    there = cli(*study, *address, "--out", tmp_path / "study-there")
    assert json.loads(there) == json.loads(here)
    on_cluster(played_on)


def test_the_tables_of_a_command_go_to_the_cluster_together(client, monkeypatch):
    """A tournament's seatings (one chunk each here) are handed over in one call, so the
    workers play them side by side rather than one seating at a time."""
    from sunset_sim.analysis.tournament import tournament

    calls = []
    play_seatings = DaskBackend.play_seatings

    def counted(self, seatings, progress=None):
        seatings = list(seatings)
        calls.append(len(seatings))
        return play_seatings(self, seatings, progress)

    monkeypatch.setattr(DaskBackend, "play_seatings", counted)
    tournament(["greedy", "random", "balanced"], players=3, games=20, backend=client)
    assert calls == [3]  # three rotations of the table, one call
