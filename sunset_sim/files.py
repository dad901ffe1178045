"""Writing output files so that an interrupted run never leaves a half-written one, and
reading the project's JSON files (params, sidecars, manifests, records) with one-line errors."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


class JSONTextError(ValueError):
    """JSON text that cannot be read, in one line without the file's name (the caller
    names the file, in its own error class)."""


class _TooManyDigits(str):
    """Where a whole number too long for Python's int() stood (found again by its field)."""


def parse_json(text: str) -> object:
    """``json.loads`` whose errors are one ``JSONTextError`` line: bad syntax (line and
    column), nesting too deep, or a whole number longer than Python converts (4,300
    digits), named by its field (``params.deny``) rather than by Python's own advice."""
    too_long: list[_TooManyDigits] = []

    def whole(digits: str) -> object:
        try:
            return int(digits)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            too_long.append(_TooManyDigits(digits))
            return too_long[-1]

    try:
        data = json.loads(text, parse_int=whole)
    except json.JSONDecodeError as error:
        raise JSONTextError(
            f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise JSONTextError("nested too deeply") from None
    if too_long:
        raise JSONTextError(
            f"{_field_of(data, too_long[0])}: a number of more than "
            f"{sys.get_int_max_str_digits():,} digits"
        )
    return data


def _field_of(data: object, wanted: object) -> str:
    """The path of ``wanted`` in ``data`` (``run.cards[0]``), without recursion."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if value is wanted:
            return path or "the value"
        if isinstance(value, dict):
            items = [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            items = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
        else:
            continue
        stack.extend(reversed(items))
    return "a value"


def write_atomically(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write to a temporary file beside ``path``, then rename it over ``path``.

    The file gets an ordinary new file's permissions (0666 less the umask), not the
    0600 of a temporary file, so reports and parameter files can be shared."""
    path = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:  # the error names the file the user asked for
        raise OSError(error.errno, error.strerror, str(path)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            _write_data(stream, data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except OSError as error:  # a full disk: nothing half-written, the target named
        Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _write_data(stream, data: bytes) -> None:
    """The one place bytes reach the disk (a test stands in a full disk here)."""
    stream.write(data)
