"""The ``sunset-sim`` console script and ``python -m sunset_sim``: the command line, with
Ctrl-C and SIGTERM answered while it loads.

Importing the command line (click, numpy, pandas, numba) takes about half a second, in
which a Ctrl-C used to print Python's traceback and a SIGTERM ended the process without a
word. Here both end with the command line's own line, "interrupted; no output written"
(nothing has started), and exit 130 or 143. This module imports nothing heavy itself.
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED_LINE = "interrupted; no output written\n"


class _TerminatedWhileLoading(BaseException):
    """SIGTERM while the command line loads (a BaseException: no import catches it)."""


def _terminate_while_loading(number: int, frame) -> None:
    raise _TerminatedWhileLoading


def main() -> None:
    """Load the command line, then run it (``sunset_sim.cli.main``)."""
    sigterm = getattr(signal, "SIGTERM", None)
    previous = None
    if sigterm is not None and signal.getsignal(sigterm) in (signal.SIG_DFL, None):
        previous = signal.signal(sigterm, _terminate_while_loading)
    try:
        try:
            from sunset_sim.cli import main as command_line
        finally:  # (inside the outer try: a signal here is answered too)
            if previous is not None:
                signal.signal(sigterm, previous)
    except KeyboardInterrupt:
        _say_and_exit(128 + signal.SIGINT)
    except _TerminatedWhileLoading:
        _say_and_exit(128 + sigterm)
    command_line()


def _say_and_exit(code: int) -> None:
    try:
        sys.stderr.write(INTERRUPTED_LINE)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # (standard error closed: the code alone)
        pass
    raise SystemExit(code)
