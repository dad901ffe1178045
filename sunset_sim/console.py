"""The ``sunset-sim`` console script and ``python -m sunset_sim``: the command line, with
Ctrl-C, SIGTERM and SIGHUP answered while it loads.

Importing the command line (click, numpy, pandas, numba) takes about half a second, in
which a Ctrl-C used to print Python's traceback and a SIGTERM or SIGHUP ended the process
without a word. Here each ends with the command line's own line, "interrupted; no output
written" (nothing has started), and exit 128 + the signal. The signal is raised as a
KeyboardInterrupt (Python's compiler drops any other exception raised while it compiles a
module: the run then went on to exit 0) and noted, so that one dropped where it landed
(a finalizer) still ends the run once the import returns. A signal after the import and
before the command's own handlers are in place is answered the same way. This module
imports nothing heavy itself.
"""

from __future__ import annotations

import os
import re
import signal
import sys

INTERRUPTED_LINE = "interrupted; no output written\n"
_RECEIVED: list[int] = []  # the signals taken while loading


class _EndedWhileLoading(KeyboardInterrupt):
    """A signal (its number) while the command line loads."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _end_while_loading(number: int, frame) -> None:
    _RECEIVED.append(number)
    raise _EndedWhileLoading(number)


def _check_environment() -> None:
    """numba reads NUMBA_NUM_THREADS when the engine starts: 0 or -1 gave its traceback
    (exit 1), a word a warning holding a flattened traceback (exit 0). One line, exit 2."""
    text = os.environ.get("NUMBA_NUM_THREADS")
    if text is None or (re.fullmatch(r"\s*\+?[0-9]+\s*", text) and int(text) >= 1):
        return  # (ASCII digits: "²" passed isdigit() and then failed int(), a traceback)
    try:
        sys.stderr.write(
            f"error: NUMBA_NUM_THREADS: expected a whole number of threads, at least 1, "
            f"got {text!r}\n"
        )
    except (OSError, ValueError, AttributeError):
        pass
    raise SystemExit(2)


def main() -> None:
    """Load the command line, then run it (``sunset_sim.cli.main``)."""
    _check_environment()
    ending = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    ending = [n for n in ending if signal.getsignal(n) in (signal.SIG_DFL, None)]  # (nohup)
    interrupt = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        for number in ending + ([signal.SIGINT] if interrupt else []):
            signal.signal(number, _end_while_loading)
        from sunset_sim.cli import main as command_line

        if interrupt:  # (Python's own again: the command line notes it and takes it over)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if _RECEIVED:  # raised where Python drops it (a finalizer) while loading
            raise _EndedWhileLoading(_RECEIVED[0])
        command_line()  # (its handlers replace these for the command, then put them back)
    except _EndedWhileLoading as ended:
        _say_and_exit(128 + ended.number)
    except KeyboardInterrupt:  # Ctrl-C before the command's own handling (or after it)
        _say_and_exit(128 + signal.SIGINT)


def _say_and_exit(code: int) -> None:
    try:
        sys.stderr.write(INTERRUPTED_LINE)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # (standard error closed: the code alone)
        pass
    raise SystemExit(code)
