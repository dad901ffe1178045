"""A module imported on first use: pandas takes about 0.25 s to import, and the commands
that print only a summary (``simulate`` without ``--out``) need none of it."""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands for module ``name``: the first attribute read imports it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        module: ModuleType = importlib.import_module(self._name)
        return getattr(module, attribute)


__all__ = ["LazyModule"]
