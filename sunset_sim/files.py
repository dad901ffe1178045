"""Writing output files so that an interrupted run never leaves a half-written one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
