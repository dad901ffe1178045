"""Resumable runs: ``simulate --out DIR/`` writes a Parquet dataset folder (one file per
chunk and ``_manifest.json``); ``--resume`` finishes an interrupted run with the same rows
and the same printed summary as an uninterrupted one, and refuses another run's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import cli, console_script, fails, ok

from sunset_sim.results import Summary
from sunset_sim.run import RunError, chunk_ranges
from sunset_sim.run.dataset import MANIFEST, part_name, read_dataset, read_manifest
from sunset_sim.runner import simulate, simulate_to_dataset

RUN = ["simulate", "--games", "120", "--players", "3", "--strategy", "greedy"]
RUN += ["--strategy", "random", "--seed", "5", "--chunk-size", "25", "--quiet"]


def summary_lines(stdout: str) -> list[str]:
    """The printed summary without the closing 'results written to ...' line (nor the
    note that greedy sits twice at the 3 seats)."""
    return [
        line for line in stdout.splitlines() if not line.startswith(("results written", "note: "))
    ]


def visible_files(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n != ".lock")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted dataset run and the same run to one Parquet file."""
    folder = tmp_path_factory.mktemp("resume") / "whole"
    whole = cli(*RUN, "--out", f"{folder}/")
    out = ok(whole) + whole.stderr  # the summary, then "results written to" (stderr)
    single = folder.parent / "whole.parquet"
    single_out = ok(cli(*RUN, "--out", single))
    return folder, out, pd.read_parquet(single), single_out


# ---- the dataset folder ----------------------------------------------------------------


def test_dataset_folder_layout(reference):
    folder, out, frame, single_out = reference
    said = [line for line in out.splitlines() if not line.startswith("note: ")]  # (at the end)
    assert said[-1] == f"results written to {folder}{os.sep} (a Parquet dataset folder)"
    assert summary_lines(out) == summary_lines(single_out)
    parts = [part_name(first) for first, _ in chunk_ranges(120, 25)]
    assert visible_files(folder) == sorted([MANIFEST, *parts])
    manifest = read_manifest(folder)
    assert manifest["complete"] is True
    run = manifest["run"]
    assert (run["seed"], run["games"], run["players"], run["chunk_size"]) == (5, 120, 3, 25)
    assert [s["label"] for s in run["strategies"]] == ["greedy", "random", "greedy"]
    assert run["strategies"][1]["params"] == []
    assert len(run["strategies"][0]["params"]) > 0
    assert run["rules"] == {"tie_break": "random", "days": 6}
    assert set(run["cards"]) == {"name", "hash"} and run["engine"]
    chunks = manifest["chunks"]
    assert [c["file"] for c in chunks] == parts
    assert [(c["first_game"], c["games"]) for c in chunks] == chunk_ranges(120, 25)
    for chunk in chunks:
        assert chunk["bytes"] == (folder / chunk["file"]).stat().st_size
        assert chunk["rows"] == chunk["games"] * 3
        rows = pd.read_parquet(folder / chunk["file"])
        assert list(rows["game"].unique()) == list(
            range(chunk["first_game"], chunk["first_game"] + chunk["games"])
        )


def test_dataset_rows_equal_the_single_file(reference):
    folder, _, frame, _ = reference
    pd.testing.assert_frame_equal(read_dataset(folder), frame)
    pd.testing.assert_frame_equal(pd.read_parquet(folder), frame)  # _manifest.json is skipped


def test_the_report_reads_the_same_rows_as_a_plain_conversion(reference):
    """read_results converts column by column, freeing Arrow's memory as it goes
    (arrow_to_pandas); the frame is the one a plain to_pandas() gives."""
    import pyarrow.dataset as ds

    from sunset_sim.analysis.report import read_results
    from sunset_sim.analysis.report.files import _columns
    from sunset_sim.run.dataset import chunk_files

    folder, _, frame, _ = reference
    read, run = read_results(folder)
    files = chunk_files(folder, read_manifest(folder))
    dataset = ds.dataset(files, format="parquet")
    # the report's columns and commissions_won (checked when the report is built; won is
    # checked as the rows are read, then dropped)
    wanted = [name for name in _columns(dataset.schema.names) if name != "won"]
    plain = dataset.to_table(columns=wanted).to_pandas()
    pd.testing.assert_frame_equal(read, plain)
    assert len(read) == len(frame) and run["games"] == 120


def test_manifest_sums_give_the_summary(reference):
    folder, _, frame, _ = reference
    total = Summary()
    for chunk in read_manifest(folder)["chunks"]:
        total.merge(Summary.from_dict(chunk["summary"]))
    table = total.table().set_index("strategy")
    by_strategy = frame.groupby("strategy", observed=True)
    assert (table["n"] == by_strategy.size()).all()
    assert np.allclose(table["win_share"], by_strategy["win_share"].mean()[table.index])
    assert np.allclose(table["mean_fame"], by_strategy["fame"].mean()[table.index])
    assert total.games == 120


# ---- a real process killed mid-run, then resumed ----------------------------------------


def test_killed_run_resumes_to_the_same_rows_and_summary(tmp_path):
    games, chunk = 1500, 10
    args = ["simulate", "--games", games, "--players", "3", "--strategy", "greedy"]
    args += ["--strategy", "random", "--seed", "11", "--chunk-size", chunk, "--jobs", "1"]
    args = [str(a) for a in args]
    folder = tmp_path / "killed"
    process = subprocess.Popen(
        [*console_script(), *args, "--quiet", "--out", f"{folder}/"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 1800  # a cold numba cache on a loaded machine compiles first
    done = 0
    try:
        while not done:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no chunk was written in time"
            try:
                done = len(json.loads((folder / MANIFEST).read_text())["chunks"])
            except (OSError, ValueError):  # not there yet (the manifest is renamed in whole)
                pass
            time.sleep(0.002)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    manifest = read_manifest(folder)
    assert not manifest["complete"]
    kept = {c["first_game"] for c in manifest["chunks"]}
    assert 1 <= len(kept) < games // chunk, len(kept)
    with pytest.raises(RunError, match="not complete"):
        read_dataset(folder)
    # what a kill between writing a part and listing it leaves, and a half-written part
    last = games - chunk
    assert last not in kept
    (folder / part_name(last)).write_bytes(b"written but never listed")
    (folder / f".{part_name(last)}.partial").write_bytes(b"half")

    resumed = subprocess.run(
        [*console_script(), *args, "--out", f"{folder}/", "--resume"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    chunks = f"{len(kept)} chunk{'s' if len(kept) != 1 else ''}"
    assert f"resuming {folder}: {chunks} ({len(kept) * chunk:,} games)" in resumed.stderr
    whole = tmp_path / "whole"
    uninterrupted = ok(cli(*args, "--quiet", "--out", f"{whole}/"))
    assert summary_lines(resumed.stdout) == summary_lines(uninterrupted)
    assert f"{games:,} games, 3 players" in resumed.stdout

    manifest = read_manifest(folder)
    assert manifest["complete"]
    firsts = [c["first_game"] for c in manifest["chunks"]]
    assert firsts == [first for first, _ in chunk_ranges(games, chunk)]  # none lost, none twice
    assert sum(c["games"] for c in manifest["chunks"]) == games
    assert visible_files(folder) == visible_files(whole)  # strays gone
    for name in visible_files(whole):
        if name != MANIFEST:
            assert (folder / name).read_bytes() == (whole / name).read_bytes(), name
    rows = read_dataset(folder).sort_values(["game", "seat"], ignore_index=True)
    expected = read_dataset(whole).sort_values(["game", "seat"], ignore_index=True)
    pd.testing.assert_frame_equal(rows, expected)
    assert len(rows) == games * 3 and not rows.duplicated(["game", "seat"]).any()


# ---- refusing what does not fit --------------------------------------------------------


@pytest.fixture
def started(tmp_path) -> Path:
    """A dataset folder of RUN with its last two chunks missing, as if interrupted."""
    folder = tmp_path / "run"
    ok(cli(*RUN, "--out", f"{folder}/"))
    manifest = json.loads((folder / MANIFEST).read_text())
    for chunk in manifest["chunks"][-2:]:
        (folder / chunk["file"]).unlink()
    manifest["chunks"] = manifest["chunks"][:-2]
    manifest["complete"] = False
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def test_resume_finishes_an_interrupted_run(started, reference):
    out = ok(cli(*RUN, "--out", started, "--resume"))
    assert summary_lines(out) == summary_lines(reference[1])
    pd.testing.assert_frame_equal(read_dataset(started), reference[2])


def test_resume_plays_a_listed_chunk_again_if_its_file_is_gone_or_damaged(started, reference):
    first = read_manifest(started)["chunks"][0]["file"]
    (started / first).write_bytes(b"truncated")
    out = ok(cli(*RUN, "--out", started, "--resume"))
    assert summary_lines(out) == summary_lines(reference[1])
    pd.testing.assert_frame_equal(read_dataset(started), reference[2])


def test_resume_of_a_complete_run_only_prints_the_summary(reference, tmp_path):
    folder = reference[0]
    before = {n: (folder / n).read_bytes() for n in visible_files(folder) if n != MANIFEST}
    out = ok(cli(*RUN, "--out", folder, "--resume"))
    assert summary_lines(out) == summary_lines(reference[1])
    assert {n: (folder / n).read_bytes() for n in before} == before
    assert read_manifest(folder)["complete"]


@pytest.mark.parametrize("key", ["sums", "tied_games"])
def test_resume_never_prints_a_summary_edited_in_the_manifest(reference, tmp_path, key):
    """A finished run's --resume prints the manifest's summaries: each is checked against
    its part file's own copy (it printed a mean fame of 0.000, exit 0)."""
    folder = tmp_path / "edited"
    shutil.copytree(reference[0], folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    entry = manifest["chunks"][1]["summary"]
    if key == "sums":
        entry["sums"]["greedy"][3] = 0  # the fame sum
    else:
        entry["tied_games"] = 0 if entry["tied_games"] else 1
    (folder / MANIFEST).write_text(json.dumps(manifest))
    fails(
        cli(*RUN, "--out", folder, "--resume"),
        f"chunk {part_name(25)}: its summary differs from the one in its part file",
    )


def run_args(seed=5, games=120, players=3, strategies=("greedy", "random"), chunk=25, extra=()):
    args = ["simulate", "--games", games, "--players", players, "--seed", seed]
    args += ["--chunk-size", chunk, "--quiet", *extra]
    for strategy in strategies:
        args += ["--strategy", strategy]
    return args


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"seed": 6}, "the seed differs (manifest 5, command 6)"),
        ({"games": 130}, "the number of games differs (manifest 120, command 130)"),
        ({"players": 4}, "the number of players differs (manifest 3, command 4)"),
        ({"strategies": ["greedy:lateness=1", "random"]}, "the strategies differ (manifest greedy"),
        ({"chunk": 30}, "the chunk size differs (manifest 25, command 30)"),
        ({"extra": ["--rule", "tie_break=seat"]}, "the rules differ"),
        ({"extra": ["--cards", "{cards}"]}, "the card set differs"),
    ],
    ids=lambda x: str(x) if isinstance(x, dict) else "",
)
def test_resume_refuses_another_run(started, change, needle, cards_file):
    if "extra" in change:
        change = {"extra": [e.replace("{cards}", str(cards_file)) for e in change["extra"]]}
    before = sorted(os.listdir(started))
    result = cli(*run_args(**change), "--out", started, "--resume")
    fails(result, str(started), "--resume", needle, "--force")
    assert result.stdout == ""
    assert sorted(os.listdir(started)) == before
    ok(cli(*run_args(), "--out", started, "--resume"))  # the original arguments still resume


@pytest.fixture(scope="module")
def cards_file(tmp_path_factory) -> Path:
    from sunset_sim.cards.loader import default_cards_text

    path = tmp_path_factory.mktemp("cards") / "cards.toml"
    path.write_text(default_cards_text() + "\n# the same cards, another hash\n")
    return path


def test_existing_folder_needs_force_or_resume(started):
    result = cli(*RUN, "--out", started)
    fails(result, "already exists", "--force", "--resume")
    ok(cli(*RUN, "--out", started, "--force"))
    assert read_manifest(started)["complete"]


def test_force_replaces_only_a_dataset(tmp_path, started):
    (started / "notes.txt").write_text("mine")
    fails(cli(*RUN, "--out", started, "--force"), "notes.txt", "move them away")
    fails(cli(*RUN, "--out", started, "--resume"), "notes.txt")
    assert (started / "notes.txt").read_text() == "mine"


def test_an_empty_or_missing_folder_starts_afresh(tmp_path, reference):
    empty = tmp_path / "empty"
    empty.mkdir()
    ok(cli(*RUN, "--out", empty))
    missing = tmp_path / "new"
    out = ok(cli(*RUN, "--out", missing, "--resume"))
    assert summary_lines(out) == summary_lines(reference[1])
    for folder in (empty, missing):
        pd.testing.assert_frame_equal(read_dataset(folder), reference[2])


def test_resume_without_a_manifest_is_refused(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / part_name(0)).write_bytes(b"x")
    fails(cli(*RUN, "--out", folder, "--resume"), f"no {MANIFEST} to resume from")


def test_damaged_manifest_is_one_line(started):
    (started / MANIFEST).write_text("{not json")
    fails(cli(*RUN, "--out", started, "--resume"), MANIFEST, "damaged")


@pytest.mark.parametrize("first_game", [25.0, False, "25"], ids=["float", "bool", "text"])
def test_a_chunk_entry_of_the_wrong_type_is_one_line_on_resume(started, first_game):
    """A first game written 25.0 gave a traceback on --resume (a format code), and False
    (equal to 0) resumed and said the run was written, into a folder report refuses."""
    manifest = json.loads((started / MANIFEST).read_text())
    manifest["chunks"][-1]["first_game"] = first_game
    (started / MANIFEST).write_text(json.dumps(manifest))
    fails(cli(*RUN, "--out", started, "--resume"), MANIFEST, "damaged chunk entry")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--out", "{tmp}/run", "--resume", "--force"], "--resume and --force exclude each other"),
        (["--out", "{tmp}/x.parquet", "--resume"], "--resume: only a dataset folder"),
        (["--resume"], "--resume: only a dataset folder"),
        (["--out", "{tmp}/x.txt"], "the output must end in .parquet or .csv"),
        (["--out", "{tmp}/no/such/run/"], "does not exist"),
    ],
)
def test_bad_dataset_arguments(tmp_path, args, needle):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = cli(*RUN, *args)
    fails(result, needle)
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_the_folder_should_be(tmp_path):
    path = tmp_path / "run"
    path.write_text("x")
    fails(cli(*RUN, "--out", f"{path}/"), "exists and is not a folder")
    folder = tmp_path / "data.parquet"
    folder.mkdir()
    fails(cli(*RUN, "--out", folder, "--force"), "is a folder")


def test_a_folder_written_by_another_run_is_locked(tmp_path):
    import fcntl

    from sunset_sim.run.dataset import LOCK

    folder = tmp_path / "locked"
    folder.mkdir()
    with open(folder / LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fails(cli(*RUN, "--out", folder, "--resume"), "another sunset-sim run is writing")
    ok(cli(*RUN, "--out", folder, "--resume"))


# ---- the Python API ----------------------------------------------------------------------


def test_simulate_to_dataset_api(tmp_path, reference):
    folder = tmp_path / "api"
    seen = []
    summary = simulate_to_dataset(
        folder, 120, 3, ["greedy", "random"], 5, chunk_size=25, on_chunk=seen.append
    )
    # told of games as they are played (within a chunk too: run.progress), 120 in all
    assert sum(seen) == 120 and len(seen) >= 5
    frame = simulate(120, 3, ["greedy", "random"], 5, chunk_size=25)
    pd.testing.assert_frame_equal(read_dataset(folder), frame)
    pd.testing.assert_frame_equal(frame, reference[2])
    seen.clear()
    again = simulate_to_dataset(
        folder, 120, 3, ["greedy", "random"], 5, chunk_size=25, on_chunk=seen.append, resume=True
    )
    assert seen == [120]  # told the games already done, then nothing left to play
    assert again.to_dict() == summary.to_dict()
    with pytest.raises(RunError, match="already exists"):
        simulate_to_dataset(folder, 120, 3, ["greedy", "random"], 5, chunk_size=25)


# ---- summaries add up exactly --------------------------------------------------------------


def test_summary_merges_exactly_in_any_order():
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import seat_players

    seats = seat_players(["greedy", "random", "random"], 3)
    labels = [p.name for p in seats]
    tables = build_tables(load_cards())
    batches = [run_games(tables, seats, Rules(), 9, first, 30) for first in range(0, 150, 30)]
    whole = Summary()
    for batch in batches:
        whole.add(batch, labels)
    backwards = Summary()
    for batch in reversed(batches):
        part = Summary()
        part.add(batch, labels)
        backwards.merge(Summary.from_dict(json.loads(json.dumps(part.to_dict()))))
    assert backwards.to_dict() == whole.to_dict()
    pd.testing.assert_frame_equal(backwards.table(), whole.table())
    with pytest.raises(ValueError):
        Summary.from_dict({**whole.to_dict(), "sums": {"x": [1.5, 0, 0, 0, 0]}})


def test_an_interrupted_single_file_run_says_how_to_keep_the_games(tmp_path, monkeypatch):
    """Ctrl-C during `simulate --out FILE` leaves no file (it is written whole at the end):
    the command says so and names the folder form that keeps every finished chunk."""
    from conftest import cli

    import sunset_sim.runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sunset_sim.runner, "simulate_to_file", interrupted)
    out = tmp_path / "big.parquet"
    result = cli("simulate", "--games", "100", "--out", out, "--quiet")
    assert result.exit_code == 130, result.output  # 128 + SIGINT, one line
    assert result.stderr.startswith(f"interrupted; nothing written to {out}")
    assert f"--out {tmp_path / 'big'}/ keeps every finished chunk" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and not out.exists()


def test_an_interrupted_dataset_run_says_how_many_games_it_keeps(tmp_path, monkeypatch):
    """Ctrl-C after the first of four chunks of `simulate --out DIR/`: the line says how
    many games the folder keeps (it said only "every finished chunk")."""
    from conftest import cli

    import sunset_sim.runner

    real = sunset_sim.runner.DatasetStore.add_chunk

    def interrupted_after_one(self, *args, **kwargs):
        real(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(sunset_sim.runner.DatasetStore, "add_chunk", interrupted_after_one)
    out = tmp_path / "run"
    result = cli("simulate", "--games", "40", "--chunk-size", "10", "--out", f"{out}/", "-q")
    assert result.exit_code == 130, result.output
    assert result.stderr == (
        f"interrupted; {out}{os.sep} keeps every finished chunk (10 of 40 games); the same "
        "command with --resume finishes the run\n"
    )


def _forged_copy(reference, tmp_path, forge) -> Path:
    """A copy of the complete reference folder with ``forge(manifest)`` applied."""
    folder = tmp_path / "forged"
    shutil.copytree(reference[0], folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    forge(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def _set_summary(key, value):
    def forge(manifest):
        summary = manifest["chunks"][1]["summary"]
        if key == "rename":
            summary["sums"]["other"] = summary["sums"].pop("greedy")
        elif key == "sums":
            summary["sums"]["greedy"][0] = value
        else:
            summary[key] = value

    return forge


@pytest.mark.parametrize(
    ("forge", "needle"),
    [
        (_set_summary("sums", 999), "sums count 1024 seats and 25 wins; the chunk's 25 games"),
        (_set_summary("tied_games", 500), "summary.tied_games is 500, outside 0 to"),
        (_set_summary("rename", None), "summary.sums: 'other' is not a strategy of this run"),
        (_set_summary("games", "x"), "summary: summary counts: expected whole numbers"),
    ],
    ids=["seats", "ties", "label", "games-text"],
)
def test_resume_refuses_a_chunk_summary_its_games_cannot_have(reference, tmp_path, forge, needle):
    """The audit: --resume adds the summary up from the manifest, and printed a forged
    one (a win share of 0.056, 841.7% tied games, a strategy that never played); a part
    file's SHA-256 does not cover its summary. Each chunk's summary is now held to its
    games: one row per seat, one win per game, counts within the games, the run's labels."""
    folder = _forged_copy(reference, tmp_path, forge)
    fails(cli(*RUN, "--out", folder, "--resume"), f"{MANIFEST}: chunk {part_name(25)}: ", needle)


def test_report_refuses_a_complete_manifest_that_leaves_games_out(reference, tmp_path):
    """The audit: run.games cut to 30 or the last chunk's entry dropped (its file still
    there) were reported as 120 and 100 games, without a word."""

    def fewer_games(manifest):
        manifest["run"]["games"] = 30

    def chunk_dropped(manifest):
        manifest["chunks"] = manifest["chunks"][:-1]

    def chunk_and_games_dropped(manifest):
        chunk_dropped(manifest)
        manifest["run"]["games"] = 100

    out = tmp_path / "rep"
    for forge, needle in [
        (fewer_games, "complete, but its chunks hold 120 games and run.games is 30"),
        (chunk_dropped, "complete, but its chunks hold 100 games and run.games is 120"),
        (chunk_and_games_dropped, f"{part_name(100)}: a part file the manifest does not list"),
    ]:
        folder = _forged_copy(reference, tmp_path, forge)
        fails(cli("report", folder, "--out", out, "-q"), needle)
        shutil.rmtree(folder)
    assert not out.exists()


def test_report_refuses_a_chunk_whose_sha256_was_taken_out(reference, tmp_path):
    """With its SHA-256 left out of the manifest, another run's part file (another card
    set) put in a chunk's place was reported as this run's games."""

    def no_digest(manifest):
        del manifest["chunks"][1]["sha256"]

    folder = _forged_copy(reference, tmp_path, no_digest)
    needle = f"chunk {part_name(25)} has no SHA-256"
    fails(cli("report", folder, "--out", tmp_path / "rep", "-q"), needle)
