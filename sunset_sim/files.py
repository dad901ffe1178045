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
    handle, temporary = tempfile.mkstemp(
        dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
