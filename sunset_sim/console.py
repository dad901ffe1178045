"""The ``sunset-sim`` console script and ``python -m sunset_sim``: the command line, with
Ctrl-C, SIGTERM and SIGHUP answered while it loads.

Importing the command line (click, numpy, pandas, numba) takes about half a second, in
which a Ctrl-C used to print Python's traceback and a SIGTERM or SIGHUP ended the process
without a word. Here each ends with the command line's own line, "interrupted; no output
written" (nothing has started), and exit 128 + the signal. This module imports nothing
heavy itself."""

from __future__ import annotations

import signal
import sys

INTERRUPTED_LINE = "interrupted; no output written\n"


class _TerminatedWhileLoading(BaseException):
    """SIGTERM or SIGHUP while the command line loads (a BaseException: no import catches
    it)."""


def _terminate_while_loading(number: int, frame) -> None:
    raise _TerminatedWhileLoading(number)


def main() -> None:
    """Load the command line, then run it (``sunset_sim.cli.main``)."""
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):  # (SIGHUP left ignored under nohup)
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, None):
            previous[number] = signal.signal(number, _terminate_while_loading)
    try:
        try:
            from sunset_sim.cli import main as command_line
        finally:  # (inside the outer try: a signal here is answered too)
            for number, handler in previous.items():
                signal.signal(number, handler)
    except KeyboardInterrupt:
        _say_and_exit(128 + signal.SIGINT)
    except _TerminatedWhileLoading as ended:
        _say_and_exit(128 + ended.args[0])
    command_line()


def _say_and_exit(code: int) -> None:
    try:
        sys.stderr.write(INTERRUPTED_LINE)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # (standard error closed: the code alone)
        pass
    raise SystemExit(code)
