"""Output safety under hostile conditions (issue "Hostile input and hard faults"): one
writer per output file, damaged dataset folders, a full disk on every write path, folders
written whole or not at all, and what a killed writer leaves behind. Split out of
test_hostile.py; every case ends in one line and exit code 2, never a half-written file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import cli, fails, ok

from sunset_sim import files

# ---- single-file output: one writer at a time, nothing half-written -------------------


def test_second_writer_of_the_same_file_is_refused(tmp_path):
    from sunset_sim.runner import _TableWriter

    out = tmp_path / "same.parquet"
    first = _TableWriter(out)  # a run writing it now
    try:
        fails(cli("simulate", "--games", "20", "--quiet", "--out", out), "another sunset-sim run")
        assert not out.exists()
    finally:
        first.abort()
    ok(cli("simulate", "--games", "20", "--quiet", "--out", out))  # the lock is gone
    assert out.is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["same.parquet"]


def test_two_processes_writing_one_file(tmp_path):
    """The reported case: two runs at once, one file. One succeeds with its own rows; the
    other fails at once in one line; nobody reports another run's rows as its own."""

    import pandas as pd
    from conftest import console_script

    out = tmp_path / "same.csv"
    command = [*console_script(), "simulate", "--games", "30000", "--quiet", "--out", str(out)]
    slow = subprocess.Popen(
        [*command, "--seed", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lock = tmp_path / ".same.csv.lock"
    deadline = time.monotonic() + 1800  # a cold cache on a loaded machine compiles first
    while slow.poll() is None and time.monotonic() < deadline:
        if lock.exists() and any(p.name.endswith(".partial") for p in tmp_path.iterdir()):
            break
        time.sleep(0.05)
    second = subprocess.run([*command, "--seed", "6"], capture_output=True, text=True, timeout=1800)
    slow_out, slow_err = slow.communicate(timeout=1800)
    assert slow.returncode == 0, slow_err
    frame = pd.read_csv(out)
    if second.returncode == 0:  # the first had already finished: the file is the second's
        expected = 6
    else:  # refused while the first writes it, or (it finished first) as an existing file
        assert second.returncode == 2
        assert second.stderr.strip().count("\n") == 0
        assert ("another sunset-sim run" in second.stderr) or ("already exists" in second.stderr), (
            second.stderr
        )
        expected = 5
    again = tmp_path / "check.csv"
    ok(cli("simulate", "--games", "30000", "--seed", expected, "--quiet", "--out", again))
    assert frame.equals(pd.read_csv(again))


def test_full_disk_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    from sunset_sim import runner

    def full(self, frame):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner._TableWriter, "_write", full)
    for name in ("out.parquet", "out.csv"):
        out = tmp_path / name
        line = fails(cli("simulate", "--games", "20", "--quiet", "--out", out), str(out))
        assert "No space left on device" in line
    assert list(tmp_path.iterdir()) == []


# ---- dataset folders: damaged chunks and manifests that point elsewhere ---------------

DATASET = ["simulate", "--games", "60", "--players", "2", "--chunk-size", "20", "--quiet"]


def test_resume_replays_a_chunk_damaged_without_a_size_change(tmp_path):
    import pandas as pd

    from sunset_sim.run.dataset import read_dataset, read_manifest

    folder = tmp_path / "ds"
    ok(cli(*DATASET, "--out", f"{folder}/"))
    whole = read_dataset(folder)
    entry = read_manifest(folder)["chunks"][1]
    part = folder / entry["file"]
    data = bytearray(part.read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF  # one flipped byte: same size
    part.write_bytes(bytes(data))
    assert part.stat().st_size == entry["bytes"]
    ok(cli(*DATASET, "--out", folder, "--resume"))
    assert part.read_bytes() != bytes(data)  # played again
    pd.testing.assert_frame_equal(read_dataset(folder), whole)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [("seat", 99, "seat"), ("win_share", 2.0, "win_share"), ("fame", -5, "fame")],
)
def test_read_dataset_checks_rows_as_report_does(tmp_path, column, value, message):
    """A part file rewritten with rows sunset-sim never writes (its checksum in the
    manifest updated to match) was returned by read_dataset as if it were results;
    report refused it. Both now refuse it in one line naming the column."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from sunset_sim.run import RunError
    from sunset_sim.run.dataset import MANIFEST, read_dataset

    folder = tmp_path / "ds"
    ok(cli(*DATASET, "--out", f"{folder}/"))
    manifest = json.loads((folder / MANIFEST).read_text())
    entry = manifest["chunks"][1]
    part = folder / entry["file"]
    table = pq.read_table(part)
    values = table.column(column).to_pylist()
    values[3] = value
    index = table.schema.get_field_index(column)
    column_type = table.schema.field(index).type
    table = table.set_column(index, column, pa.array(values, type=column_type))
    pq.write_table(table, part)
    data = part.read_bytes()
    entry["bytes"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(RunError, match=message) as error:
        read_dataset(folder)
    assert "\n" not in str(error.value)
    fails(cli("report", f"{folder}/", "--out", tmp_path / "report", "--quiet"), message)


@pytest.mark.parametrize("name", ["../../../../etc/passwd", "/etc/passwd", "part-x.parquet"])
def test_manifest_file_entries_never_leave_the_folder(tmp_path, name):
    from sunset_sim.run import RunError
    from sunset_sim.run.dataset import MANIFEST, read_dataset

    folder = tmp_path / "ds"
    ok(cli(*DATASET, "--out", f"{folder}/"))
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["chunks"][0]["file"] = name
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(RunError, match="not this folder's part file"):
        read_dataset(folder)
    fails(cli("report", f"{folder}/", "--out", tmp_path / "report", "--quiet"))


# ---- a full disk on every write path: one line naming the file, nothing half-written ----


def full_disk(monkeypatch):
    from sunset_sim import files

    def no_space(stream, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "_write_data", no_space)


@pytest.mark.parametrize(
    "args",
    [
        ("report", "--games", "40", "--players", "2", "--study-games", "0", "--out", "rep"),
        ("report", "--games", "40", "--players", "2", "--study-games", "30", "--out", "rep"),
        ("play", "--players", "2", "--record", "game.json", "--quiet"),
        ("sweep", "--games", "6", "--quiet", "--rule-values", "days=4,5", "--plot", "s.png"),
        ("study", "--games", "20", "--players", "2", "--families", "plan", "--edits", "none",
         "--quiet", "--out", "st"),
        ("tune", "balanced", "--games", "3", "--players", "2", "--generations", "1",
         "--population", "4", "--validation-games", "4", "--opponent", "greedy", "--quiet",
         "--out", "tuned.json"),
    ],
    ids=["report", "report-with-study", "play-record", "sweep-plot", "study", "tune-out"],
)  # fmt: skip
def test_full_disk_on_every_write_path(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    full_disk(monkeypatch)
    line = fails(cli(*args))
    assert "cannot write" in line and "No space left on device" in line
    assert ".new-" not in line  # the file the user asked for, not the temporary folder
    left = list(tmp_path.rglob("*"))  # not even an empty --out folder
    assert left == [], left


def test_a_full_disk_while_the_manifest_is_written_names_it(tmp_path, monkeypatch):
    """A dataset folder's manifest on a full disk: the line said "output: cannot write"."""
    from sunset_sim.run import dataset

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dataset.json, "dump", no_space)
    out = tmp_path / "run"
    line = fails(cli("simulate", "--games", "20", "--players", "2", "--quiet", "--out", f"{out}/"))
    assert line.startswith(f"error: {out / dataset.MANIFEST}: cannot write"), line


# ---- a folder of files (report, study) is written whole or not at all ------------------

FOLDER_COMMANDS = {
    "report": ("report", "--games", "40", "--players", "2", "--study-games", "30", "--quiet",
               "--out"),
    "study": ("study", "--games", "20", "--players", "2", "--families", "plan", "--edits",
              "none", "--quiet", "--format", "csv", "--out"),
}  # fmt: skip


def old_folder(folder) -> dict[str, bytes]:
    """An earlier run's folder: one of the command's own files, a stale one, a file of
    the user's own; returns what it holds."""
    (folder / "players-3").mkdir(parents=True)
    (folder / "players-3" / "study.md").write_text("stale study\n")
    (folder / "study.md").write_text("old study\n")
    (folder / "suggested-cards.toml").write_text("# stale\n")
    (folder / "notes.txt").write_text("mine\n")
    return snapshot(folder)


def snapshot(folder) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"/"
        for p in sorted(folder.rglob("*"))
    }


def fail_on_write(monkeypatch, number: int, error: BaseException) -> None:
    """The ``number``-th file written (files._write_data) fails with ``error``."""
    from sunset_sim import files

    written = []
    real = files._write_data

    def failing(stream, data):
        written.append(stream)
        if len(written) == number:
            raise error
        real(stream, data)

    monkeypatch.setattr(files, "_write_data", failing)


@pytest.mark.parametrize("existing", [False, True], ids=["fresh", "force"])
@pytest.mark.parametrize("command", FOLDER_COMMANDS)
@pytest.mark.parametrize("fault", ["full-disk", "ctrl-c"])
def test_a_folder_is_written_whole_or_not_at_all(tmp_path, monkeypatch, command, existing, fault):
    """A full disk or Ctrl-C on the third file of a report or study: the old --out folder
    is left exactly as it was (--force), or no folder at all is left (fresh, its parent
    folders too); the one line names the output (Ctrl-C: exit 130, what was kept).
    Before, the old files were deleted first and the new ones left half-written."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "runs" / "out"
    out.parent.mkdir()  # the folder --out goes in must exist (cli_outputs.check_out_folder)
    before = old_folder(out) if existing else None
    if fault == "full-disk":
        fail_on_write(monkeypatch, 3, OSError(28, "No space left on device"))
    else:
        fail_on_write(monkeypatch, 3, KeyboardInterrupt())
    args = (*FOLDER_COMMANDS[command], out, *(("--force",) if existing else ()))
    result = cli(*args)
    if fault == "full-disk":
        line = fails(result, "cannot write: No space left on device", f"{out}{os.sep}")
        assert ".new-" not in line
    else:
        assert result.exit_code == 130, (result.output, result.exception)
        kept = f"{out} left as it was" if existing else f"nothing written to {out}"
        assert result.stderr == f"interrupted; {kept}\n"
    if existing:
        assert snapshot(out) == before
        assert sorted(p.name for p in out.parent.iterdir()) == ["out"]
    else:
        assert list(out.parent.iterdir()) == []


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_force_replaces_the_commands_files_and_keeps_the_users(tmp_path, monkeypatch, command):
    """--force over an earlier run: its files (a stale suggested set; a report's stale
    study in players-3/) are gone, a file of the user's own is kept, no temporary folder;
    an interrupt once the folder is in place says it is complete."""
    import sunset_sim.cli_report
    import sunset_sim.cli_study

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    old_folder(out)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    module = sunset_sim.cli_report if command == "report" else sunset_sim.cli_study
    monkeypatch.setattr(module, "print_tables", interrupted)
    result = cli(*FOLDER_COMMANDS[command], out, "--force")
    assert result.exit_code == 130, (result.output, result.exception)
    assert result.stderr.splitlines()[-1] == f"interrupted; the {command} in {out} is complete"
    names = {p.name for p in out.iterdir()}
    assert {"notes.txt", "study.md", "values.csv"} <= names
    stale = out / "suggested-cards.toml"  # gone, or this run's own suggested set
    assert not stale.exists() or stale.read_text() != "# stale\n"
    assert ("players-3" in names) == (command == "study")  # a report's, not a study's
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "study.md").read_text() != "old study\n"
    assert command != "report" or (out / "report.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_ctrl_c_during_the_swap_waits_until_the_folder_is_in(tmp_path):
    """Ctrl-C while the new folder is renamed in is held until the swap is done (then
    raised): never a moment with the old folder aside and the new one not in."""
    import signal

    from sunset_sim.files import folder_written_whole

    out = tmp_path / "out"
    out.mkdir()
    (out / "a.csv").write_text("old")
    seen = []
    with pytest.raises(KeyboardInterrupt):
        with folder_written_whole(
            out, done=lambda: (signal.raise_signal(signal.SIGINT), seen.append("done"))
        ) as staging:
            (staging / "a.csv").write_text("new")
    assert seen == ["done"] and (out / "a.csv").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_folder_that_cannot_be_renamed_is_swapped_entry_by_entry(tmp_path, monkeypatch):
    """--out . (or a mount point): its entries are swapped in one by one, the user's kept."""
    from sunset_sim.files import folder_written_whole

    (tmp_path / "a.csv").write_text("old")
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    with folder_written_whole(".", owned=lambda name: name.endswith(".csv")) as staging:
        (staging / "a.csv").write_text("new")
        (staging / "b.csv").write_text("new")
    assert snapshot(tmp_path) == {"a.csv": b"new", "b.csv": b"new", "notes.txt": b"mine"}


def _dead_pid() -> int:
    """The pid of a process that has ended."""

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _leftover(folder, files: dict[str, str]):
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text)
    return folder


def test_a_killed_writers_leftovers_are_cleared_by_the_next_write(tmp_path):
    """A SIGKILL during report/study left .NAME.new-* (and, between the renames,
    .NAME.old-*) beside --out for good. The next write of the same folder removes those
    of processes that have ended, carrying the user's own files back, and leaves a
    running writer's alone."""

    from sunset_sim.files import folder_written_whole

    dead = _dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        out = tmp_path / "out"
        out.mkdir()
        (out / "a.csv").write_text("old")
        # killed while writing, after carrying the user's notes into its staging folder
        _leftover(tmp_path / f".out.new-{dead}-x1", {"a.csv": "half", "notes.txt": "mine"})
        running = _leftover(tmp_path / f".out.new-{live.pid}-x2", {"a.csv": "busy"})
        other = _leftover(tmp_path / f".other.new-{dead}-x3", {"a.csv": "not ours"})
        with folder_written_whole(out, owned=lambda n: n.endswith(".csv")) as staging:
            (staging / "a.csv").write_text("new")
        assert snapshot(out) == {"a.csv": b"new", "notes.txt": b"mine"}
        assert running.is_dir() and other.is_dir()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["out", running.name, other.name]
        )
    finally:
        live.kill()
        live.wait()


@pytest.mark.parametrize("staged", [True, False], ids=["between-renames", "old-only"])
def test_a_swap_cut_between_its_renames_is_finished(tmp_path, staged):
    """Killed after the old folder was set aside and before the new one was renamed in:
    no --out folder at all. The next write puts the whole new folder (or, without one,
    the old) back before it starts."""
    from sunset_sim.files import folder_written_whole

    dead = _dead_pid()
    out = tmp_path / "out"
    _leftover(tmp_path / f".out.old-{dead}-x1", {"a.csv": "old", "b.csv": "old"})
    if staged:
        _leftover(tmp_path / f".out.new-{dead}-x2", {"a.csv": "new", "notes.txt": "mine"})
    seen = {}
    with folder_written_whole(out, owned=lambda n: n.endswith(".csv")) as staging:
        seen = snapshot(out)
        (staging / "a.csv").write_text("newest")
    if staged:
        assert seen == {"a.csv": b"new", "notes.txt": b"mine"}
    else:
        assert seen == {"a.csv": b"old", "b.csv": b"old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (out / "a.csv").read_text() == "newest"


def test_a_killed_simulates_partial_file_is_removed_by_the_next_run(tmp_path):
    """simulate --out FILE writes into .FILE.PID@HOST-XXXX.partial until the end: a SIGKILL left
    it (the whole run's rows, gigabytes for a big run) hidden beside the output for good.
    The next run writing FILE removes those of ended processes once it holds the lock,
    and leaves a running process's alone."""

    dead = _dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        killed = tmp_path / f".out.csv.{dead}-0a1b2c3d.partial"
        running = tmp_path / f".out.csv.{live.pid}-0a1b2c3d.partial"
        other = tmp_path / f".other.csv.{dead}-0a1b2c3d.partial"
        for partial in (killed, running, other):
            partial.write_text("rows\n")
        ok(cli("simulate", "--games", "5", "--players", "2", "--out", tmp_path / "out.csv"))
        assert not killed.exists()
        assert running.exists() and other.exists()
    finally:
        live.kill()
        live.wait()


def test_a_killed_single_file_writers_temporary_is_removed_by_the_next_write(tmp_path):
    """write_atomically's temporary (.NAME.PID@HOST-XXXX.tmp) stayed for good after a SIGKILL
    mid-write (report files, parameter files, manifests). The next write of that file
    removes those of ended processes and leaves a running writer's alone."""
    from sunset_sim.files import write_atomically

    target = tmp_path / "params.json"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from sunset_sim import files\n"
            "def stuck(stream, data):\n"
            "    stream.write(data[:3]); stream.flush(); print('writing', flush=True)\n"
            "    time.sleep(60)\n"
            "files._write_data = stuck\n"
            "files.write_atomically(sys.argv[1], '{\"a\": 1}')\n",
            str(target),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert writer.stdout.readline() == "writing\n"
        writer.kill()
        writer.wait()
        (killed,) = tmp_path.glob(".params.json.*.tmp")
        assert killed.name.startswith(f".params.json.{writer.pid}@{files.HOST}-")
        running = tmp_path / f".params.json.{live.pid}-abc_123.tmp"
        other = tmp_path / f".other.json.{writer.pid}-abc_123.tmp"
        running.write_text("{")
        other.write_text("{")
        write_atomically(target, "{}")
        assert target.read_text() == "{}"
        assert not killed.exists()
        assert running.exists() and other.exists()
    finally:
        live.kill()
        live.wait()


def test_a_killed_in_place_swap_is_cleared_by_the_next_write(tmp_path, monkeypatch):
    """--out . written entry by entry: a killed writer's staging folder inside it is
    removed, and old entries it had set aside and not yet replaced come back."""
    from sunset_sim.files import folder_written_whole

    dead = _dead_pid()
    (tmp_path / "notes.txt").write_text("mine")
    _leftover(tmp_path / f".sunset-sim.new-{dead}-x1", {"a.csv": "half"})
    _leftover(tmp_path / f".sunset-sim.old-{dead}-x2", {"b.csv": "old"})
    monkeypatch.chdir(tmp_path)
    with folder_written_whole(".", owned=lambda name: name.endswith(".csv")) as staging:
        seen = snapshot(tmp_path)
        (staging / "a.csv").write_text("new")
    assert {k: v for k, v in seen.items() if not k.startswith(".")} == {
        "b.csv": b"old",
        "notes.txt": b"mine",
    }
    assert snapshot(tmp_path) == {"a.csv": b"new", "notes.txt": b"mine"}


def test_full_disk_in_a_dataset_folder(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from sunset_sim.run.dataset import read_manifest

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    folder = tmp_path / "ds"
    monkeypatch.setattr(pq, "write_table", no_space)
    line = fails(cli(*DATASET, "--out", f"{folder}/"))
    assert "cannot write" in line and "No space left on device" in line
    assert read_manifest(folder)["chunks"] == []  # nothing listed, nothing half there
    assert not [p for p in folder.iterdir() if p.name.startswith("part-") or "partial" in p.name]
    monkeypatch.undo()
    ok(cli(*DATASET, "--out", folder, "--resume"))


def test_another_machines_temporaries_are_never_removed(tmp_path):
    """On a filesystem several machines share, a process number says nothing about
    another machine's processes: the names carry the machine (PID@HOST), and the
    clean-up removes only this machine's files of ended processes (and those of names
    made before the machine was in them, as before)."""
    target = tmp_path / "params.json"
    dead = _dead_pid()
    elsewhere = "0" * 8 if files.HOST != "0" * 8 else "1" * 8
    mine = tmp_path / f".params.json.{dead}@{files.HOST}-abc_123.tmp"
    theirs = tmp_path / f".params.json.{dead}@{elsewhere}-abc_123.tmp"
    old_style = tmp_path / f".params.json.{dead}-abc_123.tmp"
    for temporary in (mine, theirs, old_style):
        temporary.write_text("{")
    files.write_atomically(target, "{}")
    assert not mine.exists() and not old_style.exists()
    assert theirs.exists()
    assert files.tag_running(f"{dead}@{elsewhere}") and not files.tag_running(f"{dead}")
    assert files.process_tag() == f"{os.getpid()}@{files.HOST}"
