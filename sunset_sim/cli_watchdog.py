"""Ctrl-C and SIGTERM while compiled code never returns (a plug-in stuck in a loop).

Python runs a signal handler in the main thread, between bytecodes. A batch of one block
plays in the main thread, inside compiled code that releases no control to Python until
its games end, so a strategy that never returns left Ctrl-C and SIGTERM unanswered: no
line, no exit, until SIGKILL. The signal's C handler still writes its number to the
wake-up file descriptor (``signal.set_wakeup_fd``); a thread reading it sees every signal
at once. Where the Python handler has not run ``GRACE_S`` seconds later, it prints the
one line the command would have printed and ends the process with 128 + the signal.
(On several threads the main thread waits for the blocks and answers the signal itself;
``cli.OneLineErrors.main`` then ends the process without waiting for a stuck block.)
Whatever the run had committed is kept (atomic writes: nothing half-written is
committed), and its output locks and temporary files are removed (``files.at_forced_exit``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator

from sunset_sim.files import FORCED_EXIT_CLEAN_UP, SIGNALS_SEEN, SIGNALS_TAKEN
from sunset_sim.validation import one_line

GRACE_S = 5.0  # a game plays in well under a second; a slow plug-in's game in seconds
_KEPT: list[str | Callable[[], str]] = []  # what the run leaves if stopped now


def note_kept(kept: str | Callable[[], str]) -> None:
    """What an interrupt leaves behind from now on (``cli_common.on_interrupt``'s line)."""
    _KEPT[:] = [kept]


def _kept_line() -> str:
    kept = _KEPT[0] if _KEPT else "no output written"
    try:
        return kept() if callable(kept) else kept
    except Exception:  # noqa: BLE001 - the main thread may be anywhere: say less, not crash
        return "what was committed before is kept"


def _force_exit(number: int, line: str) -> None:
    try:
        for clean_up in list(FORCED_EXIT_CLEAN_UP):
            with contextlib.suppress(Exception):
                clean_up()
        print(one_line(line, None), file=sys.stderr, flush=True)
    finally:
        os._exit(128 + number)


def _watch(receiver: socket.socket, numbers: frozenset[int], stopped: threading.Event) -> None:
    """Until the block ends (end of file on ``receiver``): GRACE_S after a signal that
    Python's handler has not taken, the line and the exit."""
    received = []
    while True:
        try:
            data = receiver.recv(64)
        except OSError:
            return
        if not data or stopped.is_set():
            return
        received += [number for number in data if number in numbers]
        if not received or stopped.wait(GRACE_S) or len(SIGNALS_TAKEN) >= len(received):
            continue  # none of ours, the block ended, or Python's handler took them
        line = (
            f"interrupted; {_kept_line()} (a strategy had not returned {GRACE_S:.0f} s after "
            "the signal: stopped there)"
        )
        _force_exit(received[0], line)


@contextlib.contextmanager
def exit_when_interrupted(own_process: bool) -> Iterator[None]:
    """A command interrupted in a process of its own (the console script's or ``python
    -m``'s, not a caller's) has cleaned up and said its line when it raises SystemExit:
    it exits now, not after its threads, as one playing a strategy that never returns
    would hold Python's exit forever."""
    try:
        yield
    except SystemExit as done:
        if own_process and SIGNALS_SEEN:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(done.code if isinstance(done.code, int) else 1)
        raise


@contextlib.contextmanager
def stuck_watch(numbers: frozenset[int]) -> Iterator[None]:
    """Watch for ``numbers`` (signals whose Python handler notes them in SIGNALS_TAKEN)
    for the block; main thread only. Where the wake-up descriptor is taken (an event
    loop's), nothing is watched."""
    _KEPT.clear()
    FORCED_EXIT_CLEAN_UP.clear()
    SIGNALS_TAKEN.clear()
    receiver, sender = socket.socketpair()
    sender.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(sender.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError):
        previous = None
    if previous is None or previous != -1:  # not ours to take, or not settable here
        if previous is not None:
            signal.set_wakeup_fd(previous)
        receiver.close()
        sender.close()
        yield
        return
    stopped = threading.Event()
    watcher = threading.Thread(
        target=_watch,
        args=(receiver, numbers, stopped),
        name="sunset-sim-signals",
        daemon=True,
    )
    watcher.start()
    try:
        yield
    finally:
        stopped.set()
        signal.set_wakeup_fd(-1)
        sender.close()  # the watcher's recv returns b"" and it ends
        watcher.join(timeout=1.0)
        receiver.close()
