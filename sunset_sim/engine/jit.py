"""The project's one numba ``jit`` wrapper, so that every kernel shares its defaults.

Caching is on (warm starts in seconds); ``SUNSET_SIM_NO_CACHE=1`` turns it off, and
numba's own ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python (coverage, debugging).

numba's on-disk cache does not notice when a function *called* by a cached kernel
changes in another file (a strategy, say), and fails on read-only install folders. So
the cache lives in a user folder (``NUMBA_CACHE_DIR`` if set, else
``~/.cache/sunset-sim/numba``) under a hash of every source file the kernels compile from.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

CACHE = os.environ.get("SUNSET_SIM_NO_CACHE", "") not in ("1", "true", "yes")
_PACKAGE = Path(__file__).resolve().parents[1]
_STRATEGIES = _PACKAGE.parent / "strategies"
# Modules outside engine/ and strategies/ whose code or constants the kernels compile in.
KERNEL_SOURCES = ("enums.py", "observation.py", "strategy_tools.py")


def _source_hash() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    files = [_PACKAGE / name for name in KERNEL_SOURCES]
    for folder in (_PACKAGE / "engine", _STRATEGIES):
        files += sorted(folder.glob("*.py")) if folder.is_dir() else []
    for file in files:
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _configure_cache() -> None:
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path.home() / ".cache" / "sunset-sim" / "numba")
    numba.config.CACHE_DIR = str(Path(base) / _source_hash())


if CACHE:
    _configure_cache()


def jit(function=None, **options):
    """``numba.njit`` with cache=True and nogil=True unless told otherwise."""
    options.setdefault("cache", CACHE)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")  # no Python exception checks on division
    if function is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(function)
