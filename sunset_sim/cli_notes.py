"""How the command line speaks on stderr besides errors: warnings in one line each, notes
held back until a command has done its work, and status lines. cli.py installs
``OneLineWarnings`` for each command and calls ``say_notes`` when it ends well."""

from __future__ import annotations

import re
import warnings

import click

from sunset_sim.validation import one_line

_UNPARSED = re.compile(
    r"Environment variable '(\w+)' is defined but its associated value '(.*?)' could not be "
    r"parsed\."
)


def _numba_setting(text: str) -> str:
    """numba's warning on a NUMBA_* variable it cannot read (NUMBA_DISABLE_JIT=x) held a
    whole traceback: here, one line saying which variable and that numba ignores it."""
    found = _UNPARSED.match(text)
    if found is None:
        return text
    return (
        f"environment variable {found[1]}: its value {found[2]!r} could not be read; numba "
        "ignores it"
    )


class OneLineWarnings:
    """Warnings (a plug-in strategy that failed to load, a strategy path that is not a
    folder) as one line each on stderr, without Python's file, line and source echo. A
    note ("note: ...", fewer strategies than seats) is held back until the command has
    done its work (``say_notes``), so that a command that fails, on bad input or a
    worker's fault, still says so in one line. Each line once per command."""

    def __init__(self) -> None:
        self.said: set[str] = set()
        self.held: list[str] = []

    def __call__(self, message, category, filename, lineno, file=None, line=None) -> None:
        text = one_line(_numba_setting(" ".join(str(message).split())))
        if text in self.said:
            return
        self.said.add(text)
        if text.startswith("note: "):
            self.held.append(text)
        else:
            click.echo(f"warning: {text}", err=True)

    def flush(self) -> None:
        for text in self.held:
            click.echo(text, err=True)
        self.held.clear()


def say_notes() -> None:
    """Print the notes held back so far (``OneLineWarnings``)."""
    if isinstance(warnings.showwarning, OneLineWarnings):
        warnings.showwarning.flush()


def say(text: str) -> None:
    """A status line on stderr ("results written to ..."), its control characters escaped
    as in error lines: a newline in a file name broke it in two."""
    click.echo(one_line(text, None), err=True)
