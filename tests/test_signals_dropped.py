"""A Ctrl-C or SIGTERM that Python drops: raised inside a finalizer (a ``__del__``, a
weakref callback), the exception is printed as "Exception ignored" and the run goes on.
A hostile tester saw 1 run in 14 to 20 then finish, replace its --force output and exit
0. The handlers note every signal (``files.note_signal``): nothing is committed after
one, and the run still ends 130 (SIGINT) or 143 (SIGTERM)."""

from __future__ import annotations

import signal

import pytest
from conftest import cli
from test_output_safety import FOLDER_COMMANDS, old_folder, snapshot

from sunset_sim import files


def _dropped_signal_on_write(monkeypatch, number: int, kind: int) -> None:
    """The ``number``-th file written notes ``kind`` as the handler does, and goes on
    (as when the exception the handler raised was dropped)."""
    written = []
    real = files._write_data

    def noting(stream, data):
        written.append(stream)
        if len(written) == number:
            files.note_signal(kind)
        real(stream, data)

    monkeypatch.setattr(files, "_write_data", noting)


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_a_folder_is_not_replaced_after_a_dropped_interrupt(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    before = old_folder(out)
    _dropped_signal_on_write(monkeypatch, 2, signal.SIGINT)
    result = cli(*FOLDER_COMMANDS[command], out, "--force")
    assert result.exit_code == 130, (result.output, result.exception)
    assert result.stderr.splitlines()[-1] == f"interrupted; {out} left as it was"
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_results_file_is_not_replaced_after_a_dropped_sigterm(tmp_path, monkeypatch):
    from sunset_sim import runner

    out = tmp_path / "r.csv"
    out.write_text("the old results\n")
    real = runner._TableWriter._write

    def noting(self, frame):
        files.note_signal(signal.SIGTERM)
        real(self, frame)

    monkeypatch.setattr(runner._TableWriter, "_write", noting)
    result = cli("simulate", "--games", "30", "--out", out, "--force", "--quiet")
    assert result.exit_code == 143, (result.output, result.exception)
    assert out.read_text() == "the old results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_a_command_that_writes_nothing_still_ends_interrupted(monkeypatch, tmp_path):
    """... and the signals noted were the command's: a file the API writes after it in
    the same process (a notebook, a test worker) is written. CI once crashed a test
    worker: write_params, after another test's interrupted command, raised
    KeyboardInterrupt."""
    from sunset_sim.analysis import tournament

    real = tournament.seatings

    def noting(*args, **kwargs):
        files.note_signal(signal.SIGINT)
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament, "seatings", noting)
    result = cli("tournament", "--strategy", "greedy", "--strategy", "random", "-n", "20")
    assert result.exit_code == 130, (result.output, result.exception)
    try:  # (a KeyboardInterrupt here would end the whole test session, not this test)
        files.write_atomically(tmp_path / "after.txt", "written\n")
    except KeyboardInterrupt:
        pytest.fail("the interrupted command's signal stopped a later write")
    assert (tmp_path / "after.txt").read_text() == "written\n"
    # and the next run starts afresh: the signal was this run's
    monkeypatch.setattr(tournament, "seatings", real)
    again = cli("tournament", "--strategy", "greedy", "--strategy", "random", "-n", "20")
    assert again.exit_code == 0, again.output


def test_a_failure_after_a_dropped_signal_is_the_interrupt(monkeypatch):
    """A Ctrl-C raised inside the compiler's ctypes callback was dropped there and numba
    then failed ("no compiled object yet for <Library ...>"): 80 lines of traceback and
    exit 1. A failure after a signal is the signal's: its one line and exit 130."""
    from sunset_sim.analysis import tournament

    def noting_then_failing(*args, **kwargs):
        files.note_signal(signal.SIGINT)
        raise RuntimeError("no compiled object yet for <Library 'adapter'>")

    monkeypatch.setattr(tournament, "seatings", noting_then_failing)
    result = cli("tournament", "--strategy", "greedy", "--strategy", "random", "-n", "20")
    assert result.exit_code == 130, (result.output, result.exception)
    assert result.stderr.splitlines() == ["interrupted; no output written"]

    def failing(*args, **kwargs):  # without a signal: the failure is the failure
        raise RuntimeError("a bug")

    monkeypatch.setattr(tournament, "seatings", failing)
    result = cli("tournament", "--strategy", "greedy", "--strategy", "random", "-n", "20")
    assert isinstance(result.exception, RuntimeError)
