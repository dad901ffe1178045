"""An output written after the games: a write that fails then (a full disk) loses that
file alone, never the results printed with it, and a file that appeared at the output
path while the games played is not replaced without --force."""

from __future__ import annotations

import errno

import pytest
from conftest import cli, fails, ok

import sunset_sim.analysis.sweep as sweep_module
import sunset_sim.analysis.tune as tune_module
from sunset_sim.files import NO_CLOBBER, write_atomically

TUNE = ("tune", "balanced", "-n", "6", "--validation-games", "6", "--jobs", "1", "-q")
TUNE += ("-p", "2", "--generations", "1", "--population", "3")
SWEEP = ("sweep", "-n", "3", "-p", "2", "--jobs", "1", "-q", "--param", "balanced:deny=0,1")


@pytest.mark.parametrize(
    ("module", "writer", "command", "printed"),
    [
        (tune_module, "write_params", (*TUNE, "-o"), ("tuned: earliness=", "Validation:")),
        (sweep_module, "plot_sweep", (*SWEEP, "--plot"), ("deals per value", "deny")),
    ],
    ids=["tune", "sweep"],
)
def test_a_full_disk_at_the_end_still_prints_the_results(
    tmp_path, monkeypatch, module, writer, command, printed
):
    """tune's params file (sweep's plot) was written before anything was printed: a disk
    full at that moment ended the run with its error line alone, every tuned value (the
    sweep's tables) lost."""

    def full(data, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(module, writer, full)
    out = tmp_path / "out.png"
    result = cli(*command, out)
    fails(result, f"{out}: cannot write: No space left on device")
    assert all(text in result.stdout for text in printed)
    assert "written" not in result.output


def test_a_file_made_at_the_output_path_while_tune_plays_is_kept(tmp_path, monkeypatch):
    """Checked at the start only, it was replaced at the end, and the run said "params
    written" and exited 0."""
    out = tmp_path / "race.json"
    played = tune_module.tune

    def tune_then_someone_writes(*args, **kwargs):
        result = played(*args, **kwargs)
        out.write_text("precious\n")
        return result

    monkeypatch.setattr(tune_module, "tune", tune_then_someone_writes)
    result = cli(*TUNE, "-o", out)
    fails(result, f"{out}: already exists (made while this run played; use --force)")
    assert out.read_text() == "precious\n"
    assert "tuned: earliness=" in result.stdout
    assert str(out.resolve()) not in NO_CLOBBER  # this command's alone
    # with --force it is replaced, as a file there at the start would be
    monkeypatch.setattr(tune_module, "tune", played)
    assert cli(*TUNE, "-o", out, "--force").exit_code == 0
    assert out.read_text().startswith("{")


def test_write_atomically_keeps_what_appeared_at_a_path_it_may_not_replace(tmp_path):
    path = tmp_path / "x.txt"
    NO_CLOBBER.add(str(path))
    try:
        path.write_text("theirs")
        with pytest.raises(OSError, match="already exists") as info:
            write_atomically(path, "mine")
        assert info.value.errno == errno.EEXIST and info.value.filename == str(path)
        assert path.read_text() == "theirs"
        assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]  # no temporary left
        path.unlink()
        write_atomically(path, "mine")  # nothing there: written
        assert path.read_text() == "mine"
    finally:
        NO_CLOBBER.discard(str(path))


@pytest.mark.parametrize("option", ["--param", "--rule-values"])
def test_a_second_swept_option_is_refused(option):
    """click kept the last of two, silently: the first sweep was never played."""
    values = {"--param": ("balanced:deny=1,2", "balanced:goal=1,2")}
    first, second = values.get(option, ("days=4,5", "tie_break=seat,random"))
    fails(cli("sweep", "-n", "2", "-q", option, first, option, second), f"{option}: given 2 times")


def test_a_parameter_out_of_range_is_named_as_given_and_a_comma_in_a_file_name_is_said():
    fails(
        cli("simulate", "-n", "2", "-q", "--strategy", "balanced:deny=3.0000001"),
        "deny=3.0000001 is outside 0..3",
    )
    fails(
        cli("simulate", "-n", "2", "-q", "--strategy", "balanced:params=a,b.json"),
        "'b.json' is not of the form key=value (a comma separates pairs: rename a params "
        "file with one)",
    )


def test_without_hard_links_the_path_is_tested_before_the_rename(tmp_path, monkeypatch):
    """Some network filesystems have no hard links: the write still happens, or is
    refused when a file appeared, as with them."""
    import os

    def no_links(source, target):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "y.txt"
    NO_CLOBBER.add(str(path))
    try:
        write_atomically(path, "mine")
        assert path.read_text() == "mine"
        with pytest.raises(OSError, match="already exists"):
            write_atomically(path, "again")
        assert path.read_text() == "mine"
        assert [p.name for p in tmp_path.iterdir()] == ["y.txt"]
    finally:
        NO_CLOBBER.discard(str(path))


def test_a_results_file_made_while_simulate_plays_is_kept(tmp_path, monkeypatch):
    """simulate --out FILE renamed its finished file over one made meanwhile (exit 0)."""
    from sunset_sim import runner

    out = tmp_path / "race.parquet"
    close = runner._TableWriter.close

    def someone_writes_then_close(self):
        out.write_text("precious\n")
        close(self)

    monkeypatch.setattr(runner._TableWriter, "close", someone_writes_then_close)
    result = cli("simulate", "-n", "20", "-p", "2", "-q", "--out", out)
    fails(result, f"{out}: cannot write: already exists (made while this run played")
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race.parquet"]  # nothing left
    # its summary printed before, as the README says (it had printed nothing: the games
    # were played and their figures lost), and the invariants' verdict
    assert "20 games, 2 players" in result.stdout and "greedy" in result.stdout
    out.unlink()
    result = cli("simulate", "-n", "20", "-p", "2", "-q", "--out", out, "--check-invariants")
    assert "invariants: checked in all 20 games, 0 violations" in result.stderr
    assert result.exit_code == 2 and result.stderr.splitlines()[-1].startswith("error: ")


def test_a_sidecar_made_while_simulate_plays_is_the_file_named(tmp_path, monkeypatch):
    """The error named race.csv, which did not exist; race.csv.json had been made."""
    from sunset_sim import runner

    out = tmp_path / "race.csv"
    close = runner._TableWriter.close

    def someone_writes_then_close(self):
        (tmp_path / "race.csv.json").write_text("theirs\n")
        close(self)

    monkeypatch.setattr(runner._TableWriter, "close", someone_writes_then_close)
    result = cli("simulate", "-n", "20", "-p", "2", "-q", "--out", out)
    fails(result, f"{out}.json: cannot write: already exists (made while this run played")
    assert not out.exists() and (tmp_path / "race.csv.json").read_text() == "theirs\n"


def test_a_folder_filled_while_the_run_played_is_kept(tmp_path):
    """report/study --out DIR, empty or absent at the start: another's files put there
    meanwhile were replaced by the swap."""
    from sunset_sim.files import folder_written_whole

    target = tmp_path / "rep"
    NO_CLOBBER.add(str(target))
    try:
        with pytest.raises(OSError, match="holds files now: already exists") as info:
            with folder_written_whole(target) as staging:
                (staging / "report.md").write_text("ours\n")
                target.mkdir()
                (target / "report.md").write_text("mine\n")
        assert info.value.filename == str(target)
        assert (target / "report.md").read_text() == "mine\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no staging left
        (target / "report.md").unlink()  # empty again: written
        with folder_written_whole(target) as staging:
            (staging / "report.md").write_text("ours\n")
        assert (target / "report.md").read_text() == "ours\n"
    finally:
        NO_CLOBBER.discard(str(target))


def test_an_empty_current_folder_is_a_study_output_without_force(tmp_path, monkeypatch):
    """--out . is written in place, its staging folder inside it: that folder was taken
    for another's files, and the run refused its own output."""
    from conftest import ok

    monkeypatch.chdir(tmp_path)
    ok(cli("study", "--strategy", "greedy", "-p", "2", "-n", "5", "--families", "plan",
           "--edits", "none", "-q", "--out", "."))  # fmt: skip
    assert (tmp_path / "study.md").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("theirs", [("r.csv",), ("r.csv", "r.csv.json")])
def test_a_refused_csv_leaves_no_sidecar_of_its_own_beside_another_file(
    tmp_path, monkeypatch, theirs
):
    """The sidecar was written before the CSV was refused: the other process's CSV was
    left with this run's provenance (4 players where it had 2), and a report on it failed."""
    from sunset_sim import runner

    out = tmp_path / "r.csv"
    close = runner._TableWriter.close

    def someone_writes_then_close(self):
        for name in theirs:
            (tmp_path / name).write_text(f"theirs {name}\n")
        close(self)

    monkeypatch.setattr(runner._TableWriter, "close", someone_writes_then_close)
    fails(cli("simulate", "-n", "8", "-p", "2", "-q", "--out", out), "already exists")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(theirs)
    for name in theirs:
        assert (tmp_path / name).read_text() == f"theirs {name}\n"


def test_a_folder_output_through_a_link_or_replaced_by_a_file_is_kept(tmp_path):
    from sunset_sim.cli_outputs import keep_what_appears
    from sunset_sim.files import folder_written_whole

    real, link, spot = tmp_path / "real", tmp_path / "link", tmp_path / "spot"
    real.mkdir()
    link.symlink_to(real)
    keep_what_appears(link)  # (outside a command: until discarded below)
    keep_what_appears(spot)
    try:
        with pytest.raises(OSError, match="holds files now"):
            with folder_written_whole(link) as staging:  # written where the link leads
                (staging / "report.md").write_text("ours\n")
                (real / "report.md").write_text("theirs\n")
        assert (real / "report.md").read_text() == "theirs\n"
        with pytest.raises(OSError, match="a file now: already exists"):
            with folder_written_whole(spot) as staging:
                (staging / "report.md").write_text("ours\n")
                spot.write_text("theirs\n")
        assert spot.read_text() == "theirs\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real", "spot"]
    finally:
        for path in (link, real, spot):
            NO_CLOBBER.discard(str(path))


@pytest.mark.parametrize("killed_at", ["move_into_place", "write_atomically"])
def test_a_csv_killed_between_its_renames_never_sits_beside_another_runs_record(
    tmp_path, monkeypatch, killed_at
):
    """simulate --out x.csv --force over an earlier run, killed between the two renames:
    the new sidecar went first, so the old rows sat beside the new record (seed 6 said,
    seed 5 played) and report read them as the new run. Now the old sidecar goes first:
    the rows read as having no record, never as another run's."""
    from sunset_sim import runner
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.provenance import read_provenance
    from sunset_sim.rules.options import Rules

    out = tmp_path / "x.csv"
    ok(cli("simulate", "-n", "20", "-s", "5", "-q", "-o", out))
    old_rows = out.read_bytes()

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # (as SIGKILL: nothing after it runs)

    monkeypatch.setattr(runner, killed_at, killed)
    with pytest.raises(KeyboardInterrupt):
        runner.simulate_to_file(out, 20, 4, ["greedy"], 6, load_cards(), Rules())
    record = read_provenance(out)
    rows_are_old = out.read_bytes() == old_rows
    assert record is None or (record["seed"] == 5 and rows_are_old)
    assert rows_are_old == (killed_at == "move_into_place")


def test_a_failed_rename_names_the_output_not_its_temporary(tmp_path, monkeypatch):
    """os.replace names the temporary file: ".race.csv.PID@HOST-....partial: cannot
    write: Is a directory" named a file the user never named."""
    from sunset_sim import runner

    def refuse(temporary, path):
        raise OSError(errno.EISDIR, "Is a directory", str(temporary))

    monkeypatch.setattr(runner, "move_into_place", refuse)
    out = tmp_path / "race.csv"
    fails(cli("simulate", "-n", "20", "-p", "2", "-q", "--out", out), f"{out}: cannot write: Is a")
