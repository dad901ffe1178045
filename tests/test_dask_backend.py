"""The Dask backend: ``simulate --backend dask --scheduler ADDRESS`` plays the chunks as
joblib tasks on a cluster and gives the same tables as a local run. The cluster tests
use a LocalCluster of two worker processes and are skipped where dask and distributed
are not installed (they are the optional extra ``dask``: ``pip install -e '.[dask]'``)."""

from __future__ import annotations

import dataclasses
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from sunset_sim.cli import main
from sunset_sim.run import RunError
from sunset_sim.run.dataset import read_dataset
from sunset_sim.runner import simulate
from sunset_sim.strategy import Player, make_player

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)
except TypeError:
    RUNNER = CliRunner()

RUN = ["simulate", "--games", "150", "--players", "4", "--strategy", "greedy"]
RUN += ["--strategy", "random", "--seed", "8", "--chunk-size", "40", "--quiet"]


def cli(*args):
    return RUNNER.invoke(main, [str(a) for a in args])


def ok(result) -> str:
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result.stdout


def fails(result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert result.stdout == ""
    return lines[0]


def body(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if not line.startswith("results written")]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as local_cluster:
        yield local_cluster


# ---- without a cluster -----------------------------------------------------------------


def test_missing_dask_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = cli(*RUN, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", tmp_path)
    fails(result, "the dask backend needs dask and distributed", "pip install -e '.[dask]'")
    assert list(tmp_path.iterdir()) == []


def test_dask_needs_a_scheduler_and_a_scheduler_needs_dask():
    fails(cli(*RUN, "--backend", "dask"), "--backend dask needs --scheduler ADDRESS")
    fails(cli(*RUN, "--scheduler", "tcp://127.0.0.1:1"), "--scheduler: only for --backend dask")
    result = cli(*RUN, "--backend", "ray")  # a click usage error, like --format x
    assert result.exit_code == 2 and "'ray' is not one of 'local', 'dask'" in result.stderr


def test_unreachable_scheduler_is_one_line(monkeypatch, tmp_path):
    pytest.importorskip("distributed")
    from sunset_sim.run import backends

    monkeypatch.setenv(backends.TIMEOUT_VARIABLE, "1")
    result = cli(*RUN, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", tmp_path)
    fails(result, "--scheduler tcp://127.0.0.1:1: cannot connect to the Dask scheduler")
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_without_workers_is_one_line(tmp_path):
    """joblib waits 10 s for a worker, then raised TimeoutError: a 75-line traceback whose
    advice was a Python call."""
    import socket
    import subprocess
    import sys
    import time

    pytest.importorskip("distributed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(600):  # until it listens
            with socket.socket() as check:
                if check.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        result = cli(*RUN, "--backend", "dask", "--scheduler", address)
    finally:
        scheduler.terminate()
        scheduler.wait(timeout=60)
    fails(result, f"--scheduler {address}: ", "no worker", "start workers")


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "0"])
def test_a_bad_dask_timeout_is_one_line_and_no_matter_for_local_runs(monkeypatch, value):
    """SUNSET_SIM_DASK_TIMEOUT=abc was read on import: every run, local ones too, ended in
    a traceback; -1 or nan reached Dask as a confusing one-liner."""
    from sunset_sim.run import backends

    monkeypatch.setenv(backends.TIMEOUT_VARIABLE, value)
    ok(cli("simulate", "--games", "5", "--quiet"))
    result = cli(*RUN, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1")
    fails(result, f"SUNSET_SIM_DASK_TIMEOUT='{value}': expected a positive number of seconds")


def test_a_dask_timeout_past_an_hour_is_refused(monkeypatch):
    """1e300 waited on a port that refuses every connection for as long as it said."""
    from sunset_sim.run import backends

    monkeypatch.setenv(backends.TIMEOUT_VARIABLE, "1e300")
    result = cli(*RUN, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1")
    fails(result, "SUNSET_SIM_DASK_TIMEOUT='1e300': at most 3600 seconds")
    monkeypatch.setenv(backends.TIMEOUT_VARIABLE, "3600")
    assert backends.connect_timeout() == 3600.0


# ---- on a LocalCluster -----------------------------------------------------------------


def test_dask_gives_the_same_tables_as_one_local_job(cluster, tmp_path):
    local, remote = tmp_path / "local.parquet", tmp_path / "dask.parquet"
    local_out = ok(cli(*RUN, "--jobs", "1", "--out", local))
    address = cluster.scheduler_address
    remote_out = ok(cli(*RUN, "--backend", "dask", "--scheduler", address, "--out", remote))
    assert body(remote_out) == body(local_out)
    pd.testing.assert_frame_equal(pd.read_parquet(remote), pd.read_parquet(local))
    assert remote.read_bytes() == local.read_bytes()
    # the chunks really ran on the workers: each one that got a task built its seats there
    import distributed

    with distributed.Client(address) as client:
        built = client.run(lambda: len(sys.modules["sunset_sim.run.backends"]._SEATS))
    assert sum(built.values()) >= 1, built


def test_dask_dataset_folder_and_resume(cluster, tmp_path):
    address = cluster.scheduler_address
    local, remote = tmp_path / "local", tmp_path / "remote"
    local_out = ok(cli(*RUN, "--jobs", "1", "--out", local))
    ok(cli(*RUN, "--backend", "dask", "--scheduler", address, "--jobs", "1", "--out", remote))
    for part in sorted(local.glob("part-*.parquet")):
        assert (remote / part.name).read_bytes() == part.read_bytes()
    # interrupted locally, finished on the cluster
    (remote / "part-000000000080.parquet").unlink()
    resumed = ok(
        cli(*RUN, "--backend", "dask", "--scheduler", address, "--out", remote, "--resume")
    )
    assert body(resumed) == body(local_out)
    pd.testing.assert_frame_equal(read_dataset(remote), read_dataset(local))


def test_dask_api_matches_local(cluster):
    kwargs = dict(games=90, players=3, strategies=["greedy:lateness=1", "random"], seed=2)
    local = simulate(**kwargs, chunk_size=30, jobs=1)
    remote = simulate(**kwargs, chunk_size=30, backend="dask", scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(remote, local)


def test_dask_refuses_an_unregistered_strategy(cluster):
    greedy = make_player("greedy")
    renamed = Player(dataclasses.replace(greedy.spec, name="my-greedy"), greedy.params)
    with pytest.raises(RunError, match="my-greedy: the dask backend needs registered strategies"):
        simulate(
            games=10,
            players=2,
            strategies=[renamed, greedy],
            backend="dask",
            scheduler=cluster.scheduler_address,
        )


def test_a_worker_with_other_code_stops_the_run(cluster, monkeypatch, tmp_path):
    from sunset_sim.run import backends

    monkeypatch.setattr(backends, "engine_hash", lambda seats: "driver-code")
    address = cluster.scheduler_address
    result = cli(*RUN, "--backend", "dask", "--scheduler", address, "--out", tmp_path / "x")
    fails(result, "runs other engine or strategy code than this machine", "here driver-code")


@pytest.mark.parametrize("case", ["killed", "no worker"])
def test_a_cluster_that_fails_mid_run_ends_it_in_one_line(monkeypatch, case):
    """A chunk whose worker dies: with no failure allowed the scheduler gives the task up
    (KilledWorker), which left joblib waiting forever; a worker without a nanny to start
    it again leaves the cluster without one, where the run also waited forever. Each ends
    the run with a RunError of one line."""
    import os
    import subprocess

    distributed = pytest.importorskip("distributed")
    dask = pytest.importorskip("dask")
    from sunset_sim.run import backends

    def dies(*args, **kwargs):
        os._exit(1)

    monkeypatch.setattr(backends, "play_chunk", dies)
    monkeypatch.setenv(backends.TIMEOUT_VARIABLE, "2")
    worker = None
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0 if case == "killed" else 9}),
        distributed.LocalCluster(
            n_workers=1 if case == "killed" else 0, threads_per_worker=1, processes=True,
            host="127.0.0.1", dashboard_address=None,
        ) as lonely,
    ):  # fmt: skip
        address = lonely.scheduler_address
        try:
            if case == "no worker":
                worker = subprocess.Popen(
                    [sys.executable, "-m", "distributed.cli.dask_worker", address,
                     "--no-nanny", "--nthreads", "1", "--no-dashboard"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                with distributed.Client(address) as client:
                    client.wait_for_workers(1, timeout=120)
            with pytest.raises(RunError) as caught:
                simulate(40, 2, ["greedy"], seed=1, backend="dask", scheduler=address)
        finally:
            if worker is not None:
                worker.kill()
                worker.wait(timeout=60)
    message = str(caught.value)
    expected = "KilledWorker" if case == "killed" else "the cluster has had no worker for 2 s"
    assert expected in message and "\n" not in message, message
    assert message.startswith(f"--scheduler {address}: ")


def test_the_clients_own_error_lines_are_quiet_while_the_run_owns_it(cluster):
    """A scheduler killed mid-run printed distributed.client's "ERROR - Failed to
    reconnect to scheduler" line beside the run's own one-line error (docs/cluster.md:
    one line); the logger is as it was once the run's client is closed."""
    import logging

    from sunset_sim.run.backends import DaskBackend

    logger = logging.getLogger("distributed.client")
    before = logger.level
    with DaskBackend(scheduler=cluster.scheduler_address):
        assert logger.level == logging.CRITICAL
    assert logger.level == before
