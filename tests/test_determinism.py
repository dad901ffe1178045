"""One seed, one result: the rows and the printed summary of a batch do not depend on the
number of jobs, the chunk size, the backend (local or Dask), the output form (one file
or a dataset folder) or on running it again. Where the chunk layout is the same, the
Parquet bytes are the same too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from sunset_sim.cli import main
from sunset_sim.run.dataset import read_dataset
from sunset_sim.runner import simulate, simulate_to_file

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)
except TypeError:
    RUNNER = CliRunner()

GAMES, CHUNK = 240, 60
RUN = ["simulate", "--games", GAMES, "--players", "4", "--strategy", "greedy"]
RUN += ["--strategy", "random", "--strategy", "greedy:lateness=1", "--seed", "21", "--quiet"]


def run(folder: Path, name: str, *extra) -> tuple[list[str], str, Path]:
    """(printed summary lines, JSON summary, output path) of RUN with ``extra`` options."""
    path = folder / name
    args = [str(a) for a in (*RUN, *extra, "--out", path)]
    result = RUNNER.invoke(main, args)
    assert result.exit_code == 0, (result.output, result.exception)
    lines = [line for line in result.stdout.splitlines() if not line.startswith("results written")]
    as_json = RUNNER.invoke(main, [str(a) for a in (*RUN, *extra, "--format", "json")])
    assert as_json.exit_code == 0, (as_json.output, as_json.exception)
    return lines, as_json.stdout, path


def rows(path: Path) -> pd.DataFrame:
    return read_dataset(path) if path.is_dir() else pd.read_parquet(path)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("determinism")


@pytest.fixture(scope="module")
def baseline(folder):
    """One job, one file, chunks of CHUNK games."""
    return run(folder, "baseline.parquet", "--jobs", "1", "--chunk-size", CHUNK)


def same_everything(result, baseline, same_bytes: bool) -> None:
    lines, as_json, path = result
    assert lines == baseline[0]
    assert json.loads(as_json) == json.loads(baseline[1])
    pd.testing.assert_frame_equal(rows(path), rows(baseline[2]))
    if same_bytes:
        assert path.read_bytes() == baseline[2].read_bytes()


def test_repeated_runs_are_identical(folder, baseline):
    again = run(folder, "again.parquet", "--jobs", "1", "--chunk-size", CHUNK)
    same_everything(again, baseline, same_bytes=True)


def test_two_jobs_give_the_same_bytes(folder, baseline):
    two = run(folder, "jobs2.parquet", "--jobs", "2", "--chunk-size", CHUNK)
    same_everything(two, baseline, same_bytes=True)


@pytest.mark.parametrize("chunk", [1, 7, 59, 61, GAMES, 100_000])
def test_chunk_size_changes_nothing_but_the_row_groups(folder, baseline, chunk):
    other = run(folder, f"chunk{chunk}.parquet", "--jobs", "2", "--chunk-size", chunk)
    same_everything(other, baseline, same_bytes=chunk == CHUNK)


def test_dataset_folder_holds_the_same_rows(folder, baseline):
    one = run(folder, "dataset1", "--jobs", "1", "--chunk-size", CHUNK)
    two = run(folder, "dataset2", "--jobs", "2", "--chunk-size", CHUNK)
    same_everything(one, baseline, same_bytes=False)
    same_everything(two, baseline, same_bytes=False)
    parts = sorted(p.name for p in one[2].glob("part-*.parquet"))
    assert len(parts) == GAMES // CHUNK
    for name in parts:  # every chunk file is byte for byte the same across jobs
        assert (one[2] / name).read_bytes() == (two[2] / name).read_bytes()
    odd = run(folder, "dataset-odd", "--jobs", "2", "--chunk-size", 37)
    same_everything(odd, baseline, same_bytes=False)


def test_csv_holds_the_same_rows(folder, baseline):
    lines, _, path = run(folder, "rows.csv", "--chunk-size", 50)
    assert lines == baseline[0]
    csv = pd.read_csv(path)
    frame = rows(baseline[2])
    for column in ("game", "seat", "fame", "won", "n_winners", "painted_0"):
        assert (csv[column].to_numpy() == frame[column].to_numpy()).all(), column


def test_local_and_dask_are_identical(folder, baseline):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        dask = ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        file = run(folder, "dask.parquet", *dask, "--chunk-size", CHUNK)
        dataset = run(folder, "dask-dataset", *dask, "--chunk-size", CHUNK, "--jobs", "1")
        odd = run(folder, "dask-odd.parquet", *dask, "--chunk-size", 23, "--jobs", "2")
    same_everything(file, baseline, same_bytes=True)
    same_everything(dataset, baseline, same_bytes=False)
    same_everything(odd, baseline, same_bytes=False)
    local_dataset = folder / "dataset1"
    if local_dataset.is_dir():
        for part in local_dataset.glob("part-*.parquet"):
            assert (dataset[2] / part.name).read_bytes() == part.read_bytes()


def test_api_summaries_are_exactly_equal(tmp_path):
    """The summary's sums are whole numbers, so they add up the same in any chunking."""
    kwargs = dict(games=180, players=3, strategies=["greedy", "random"], seed=4)
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.rules.options import Rules

    cards, rules = load_cards(), Rules()
    summaries = [
        simulate_to_file(
            None, 180, 3, ["greedy", "random"], 4, cards, rules, jobs=jobs, chunk_size=chunk
        ).to_dict()
        for jobs, chunk in [(1, 180), (2, 7), (1, 1), (2, 50)]
    ]
    assert all(s == summaries[0] for s in summaries)
    frames = [simulate(**kwargs, chunk_size=chunk, jobs=1) for chunk in (180, 13)]
    pd.testing.assert_frame_equal(frames[0], frames[1])


def test_a_shared_field_kernel_plays_the_same_games():
    """A tournament names its whole field (every adapter compiled up front); a seat's games
    must not depend on which other strategies the field holds."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import kernel_arguments, run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import make_player, seat_players

    tables = build_tables(load_cards())
    seats = seat_players(["greedy", "random"], 2)
    field = [make_player(name) for name in ("random", "greedy", "early-bird")]
    alone = run_games(tables, seats, Rules(), 5, 0, 40)
    shared = run_games(tables, seats, Rules(), 5, 0, 40, field=field)
    for name, array in alone.arrays().items():
        assert (array == getattr(shared, name)).all(), name
    functions, ids, _ = kernel_arguments(seats, field)
    assert len(functions) == 3 and ids.tolist() == [1, 2]  # early-bird, greedy, random


@pytest.mark.parametrize("many", [False, True])
def test_small_seatings_side_by_side_give_the_same_chunks_in_order(monkeypatch, many):
    """LocalBackend plays seatings of few games side by side, one thread each, and the
    chunks of many seatings too, one chunk per thread (run/backends.py): the same
    (seating, chunk) stream as one seating after another."""
    import numpy as np

    from sunset_sim.run import backends

    if many:  # seatings too big to count as small, but chunks enough to share out
        monkeypatch.setattr(backends, "SMALL_SEATING", 10)
        monkeypatch.setattr(backends, "MANY_CHUNKS", 6)

    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.rules.options import Rules
    from sunset_sim.run.backends import SMALL_SEATING, LocalBackend, Seating
    from sunset_sim.strategy import seat_players

    tables = build_tables(load_cards())
    lineups = (["greedy", "random"], ["random", "greedy"], ["greedy", "greedy"])
    seatings = [
        Seating(tables, seat_players(names, 2), Rules(), 5, [(0, 30), (30, 20)])
        for names in lineups * 2
    ]
    assert (50 < SMALL_SEATING) != many
    told: list[int] = []
    apart = list(LocalBackend(1).play_seatings(seatings))
    together = list(LocalBackend(2).play_seatings(seatings, told.append))
    assert [index for index, _ in together] == [index for index, _ in apart]
    assert [index for index, _ in apart] == [i for i in range(6) for _ in range(2)]
    for (_, a), (_, b) in zip(apart, together, strict=True):
        assert a.first_game == b.first_game
        for name, array in a.arrays().items():
            assert np.array_equal(array, b.arrays()[name]), name
    assert sum(told) == 6 * 50  # every game reported to the bar once
