"""Plug-in strategies from folders (``--strategy-path``, ``SUNSET_SIM_STRATEGY_PATH``):
their modules imported under their own names, and played again as edited.

A notebook imports a plug-in once; an edit of its file (or of a helper module beside it)
kept playing the old code under its name, even after ``importlib.reload``: the registry
held the first ``STRATEGY``. ``sunset_sim.strategy.registry`` asks ``edited`` each time
and builds itself again where a folder's Python files changed since they were imported;
``folder_strategies`` then drops that folder's modules (``_forget``), so that they are
imported again (and the compile cache, keyed by the code, compiles the edit). Never this
package's own modules nor an installed one, wherever the folder is: the current folder
of a checkout holds ``sunset_sim`` itself, and dropping it made a second StrategySpec
class that no plug-in's STRATEGY was an instance of.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

# Folders of plug-in strategies named by the user (``--strategy-path``), os.pathsep-separated;
# an environment variable, so that worker processes find the same strategies.
STRATEGY_PATH_VARIABLE = "SUNSET_SIM_STRATEGY_PATH"

# folder (resolved) -> its Python files as imported: (path, mtime_ns, size) each
_SEEN: dict[str, tuple] = {}


def folders() -> list[str]:
    """The folders named in ``SUNSET_SIM_STRATEGY_PATH``, in order."""
    return [f for f in os.environ.get(STRATEGY_PATH_VARIABLE, "").split(os.pathsep) if f]


def _files(path: Path) -> tuple:
    """The folder's Python files and those of its packages (folders with an __init__.py,
    at any depth; not other folders: the current one may hold a virtual environment)."""
    found = []
    with contextlib.suppress(OSError):  # (gone, or not a folder: nothing)
        for entry in os.scandir(path):
            if entry.name.endswith(".py") and entry.is_file():
                stat = entry.stat()
                found.append((entry.path, stat.st_mtime_ns, stat.st_size))
            elif entry.is_dir() and (Path(entry.path) / "__init__.py").is_file():
                found += _files(Path(entry.path))
    return tuple(sorted(found))


def edited() -> bool:
    """Whether a folder's Python files changed (edited, added, removed) since imported."""
    return any(_files(Path(folder)) != files for folder, files in _SEEN.items())


def _kept() -> list[Path]:
    """Where modules are never dropped from: this package and the installed ones."""
    import sunset_sim

    roots = {Path(sunset_sim.__file__).resolve().parent, *map(Path, (sys.prefix, sys.base_prefix))}
    return [root.resolve() for root in roots]


def _forget(root: Path) -> None:
    """Drop the modules imported from ``root`` (a plug-in folder), to be imported again."""
    kept = _kept()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file or name == "__main__" or name.split(".")[0] == "sunset_sim":
            continue
        where = Path(file).resolve()
        if where.is_relative_to(root) and not any(where.is_relative_to(k) for k in kept):
            del sys.modules[name]
    importlib.invalidate_caches()


def forget_modules() -> None:
    """Drop the modules imported from every plug-in folder seen (a test's clean-up)."""
    for folder in list(_SEEN):
        _forget(Path(folder))
    _SEEN.clear()


@contextlib.contextmanager
def one_command() -> Iterator[None]:
    """The folders a command line names (``--strategy-path``) are that command's: after
    it, the variable, ``sys.path`` and the modules imported from them are as before, and
    the registry is built again. In one process (a notebook's or a test's CliRunner) a
    later command naming another folder with a strategy of the same name played the first
    folder's ("the name is taken ...: skipped"), and the API knew the plug-in too."""
    before = os.environ.get(STRATEGY_PATH_VARIABLE)
    seen, on_path = set(_SEEN), set(sys.path)
    try:
        yield
    finally:
        if os.environ.get(STRATEGY_PATH_VARIABLE) != before:
            added = [f for f in folders() if f not in (before or "").split(os.pathsep)]
            if before is None:
                del os.environ[STRATEGY_PATH_VARIABLE]
            else:
                os.environ[STRATEGY_PATH_VARIABLE] = before
            for folder in set(_SEEN) - seen:
                _forget(Path(folder))
                del _SEEN[folder]
            sys.path[:] = [p for p in sys.path if p in on_path or p not in added]
            from sunset_sim import strategy  # (imported by add_strategy_path already)

            strategy.forget_registry()


def _shown(path: str | Path) -> str:
    """A path in a warning, its control characters escaped (``\\n``): the one-line
    warnings join a message's lines, so a newline in a folder's name read as a space."""
    from sunset_sim.validation import one_line

    return one_line(str(path), None)


def folder_strategies(folder: str, spec_type: type) -> list[tuple[object, Path]]:
    """The ``STRATEGY`` of each module in ``folder`` and the module's file, imported under
    its own name with the folder on ``sys.path`` (so its modules may import each other).
    A module whose ``STRATEGY`` is not a StrategySpec is skipped with a warning; one
    without any is a helper (better named with a leading _, which is never imported).
    (``spec_type``: StrategySpec, which imports this module.) The folder's files are
    noted as they are now (``edited``)."""
    path = Path(folder)
    if not path.is_dir():
        warnings.warn(f"strategy path {_shown(folder)}: not a folder", stacklevel=3)
        return []
    key, files = str(path.resolve()), _files(path)
    if _SEEN.get(key, files) != files:  # edited since imported: import its modules again
        _forget(Path(key))  # (also where the registry was emptied by add_strategy_path)
    _SEEN[key] = files
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
            warnings.warn(f"strategy module {_shown(path / module.name)}: {problem}", stacklevel=3)
            continue
        source = Path(getattr(imported, "__file__", None) or path / module.name)
        home = source.resolve().parent.parent if module.ispkg else source.resolve().parent
        if home != path.resolve():  # the name was taken before this file (json.py, ...)
            warnings.warn(
                f"strategy module {_shown(path / module.name)}: the module name {module.name!r} is "
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
                f"strategy module {_shown(source)}: STRATEGY is not a StrategySpec "
                f"({type(spec).__name__}): skipped",
                stacklevel=3,
            )
    return found
