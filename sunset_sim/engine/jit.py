"""The project's one numba ``jit`` wrapper, so that every kernel shares its defaults.

Caching is on (warm starts in seconds); ``SUNSET_SIM_NO_CACHE=1`` turns it off, and
numba's own ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python (coverage, debugging).
Set ``NUMBA_CACHE_DIR`` where the install folder is read-only.
"""

from __future__ import annotations

import os

import numba

CACHE = os.environ.get("SUNSET_SIM_NO_CACHE", "") not in ("1", "true", "yes")


def jit(function=None, **options):
    """``numba.njit`` with cache=True and nogil=True unless told otherwise."""
    options.setdefault("cache", CACHE)
    options.setdefault("nogil", True)
    if function is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(function)
