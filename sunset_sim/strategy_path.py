"""Plug-in strategies from folders (``--strategy-path``, ``SUNSET_SIM_STRATEGY_PATH``):
their modules imported under their own names, and played again as edited.

A notebook imports a plug-in once; an edit of its file (or of a helper module beside it)
kept playing the old code under its name, even after ``importlib.reload``: the registry
held the first ``STRATEGY``. ``sunset_sim.strategy.registry`` asks ``edited`` each time,
and where a folder's Python files changed since they were imported, ``forget_modules``
drops that folder's modules so that the registry imports them again (and the compile
cache, keyed by the code, compiles the edit).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import sys
import warnings
from pathlib import Path

# Folders of plug-in strategies named by the user (``--strategy-path``), os.pathsep-separated;
# an environment variable, so that worker processes find the same strategies.
STRATEGY_PATH_VARIABLE = "SUNSET_SIM_STRATEGY_PATH"

# folder (resolved) -> its Python files as imported: (relative path, mtime_ns, size) each
_SEEN: dict[str, tuple] = {}


def folders() -> list[str]:
    """The folders named in ``SUNSET_SIM_STRATEGY_PATH``, in order."""
    return [f for f in os.environ.get(STRATEGY_PATH_VARIABLE, "").split(os.pathsep) if f]


def _files(path: Path, depth: int = 2) -> tuple:
    """The folder's Python files and those of its packages' first level (not deeper: a
    folder such as the current one may hold a whole virtual environment)."""
    found = []
    with contextlib.suppress(OSError):  # (gone, or not a folder: nothing)
        for entry in os.scandir(path):
            if entry.name.endswith(".py") and entry.is_file():
                stat = entry.stat()
                found.append((entry.path, stat.st_mtime_ns, stat.st_size))
            elif depth > 1 and entry.is_dir() and entry.name.isidentifier():
                found += _files(Path(entry.path), depth - 1)
    return tuple(sorted(found))


def edited() -> bool:
    """Whether a folder's Python files changed (edited, added, removed) since imported."""
    return any(_files(Path(folder)) != files for folder, files in _SEEN.items())


def forget_modules() -> None:
    """Drop the modules imported from the plug-in folders, to be imported again."""
    roots = [Path(folder) for folder in _SEEN]
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and any(Path(file).resolve().is_relative_to(root) for root in roots):
            del sys.modules[name]
    _SEEN.clear()
    importlib.invalidate_caches()


def folder_strategies(folder: str, spec_type: type) -> list[tuple[object, Path]]:
    """The ``STRATEGY`` of each module in ``folder`` and the module's file, imported under
    its own name with the folder on ``sys.path`` (so its modules may import each other).
    A module whose ``STRATEGY`` is not a StrategySpec is skipped with a warning; one
    without any is a helper (better named with a leading _, which is never imported).
    (``spec_type``: StrategySpec, which imports this module.) The folder's files are
    noted as they are now (``edited``)."""
    path = Path(folder)
    if not path.is_dir():
        warnings.warn(f"strategy path {folder}: not a folder", stacklevel=3)
        return []
    _SEEN[str(path.resolve())] = _files(path)
    if str(path) not in sys.path:
        sys.path.append(str(path))
    found = []
    for module in pkgutil.iter_modules([str(path)]):
        if module.name.startswith("_"):
            continue
        try:  # a print at import goes to stderr: stdout may be a CSV (--out -)
            with contextlib.redirect_stdout(sys.stderr):
                imported = importlib.import_module(module.name)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - a broken plug-in must not
            # break the tool (nor end it: sys.exit() at import is SystemExit)
            problem = f"exited (SystemExit: {error})" if isinstance(error, SystemExit) else error
            warnings.warn(f"strategy module {path / module.name}: {problem}", stacklevel=3)
            continue
        source = Path(getattr(imported, "__file__", None) or path / module.name)
        home = source.resolve().parent.parent if module.ispkg else source.resolve().parent
        if home != path.resolve():  # the name was taken before this file (json.py, ...)
            warnings.warn(
                f"strategy module {path / module.name}: the module name {module.name!r} is "
                f"already taken by {getattr(imported, '__file__', None) or 'a built-in module'} "
                "(rename the file): skipped",
                stacklevel=3,
            )
            continue
        spec = getattr(imported, "STRATEGY", None)
        if isinstance(spec, spec_type):
            found.append((spec, source))
        elif spec is not None:
            warnings.warn(
                f"strategy module {source}: STRATEGY is not a StrategySpec "
                f"({type(spec).__name__}): skipped",
                stacklevel=3,
            )
    return found
