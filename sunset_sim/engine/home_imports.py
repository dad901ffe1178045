"""What a user's plug-in module imports from its own folder, for the compile cache's key.

``jit.dependency_files`` walks the names in a function's code; a helper reached as
``pkg.sub.fn``, a class of constants or a file registering an ``@overload`` is not named
there, and an edit to one of them loaded the old machine code. For a module outside this
package, the modules it imports from its own folder (a --strategy-path folder) or its
own installed package are followed too, module by module.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path


def _own_folders() -> list[Path]:
    """The folders of this package and of its built-in strategies."""
    folders = [Path(__file__).resolve().parents[1]]  # sunset_sim/
    strategies = sys.modules.get("sunset_sim.strategies")
    folders += [Path(folder).resolve() for folder in getattr(strategies, "__path__", ())]
    return folders


def _user_root(path: str) -> Path | None:
    """Where a user's module was imported from: the folder holding it (a --strategy-path
    folder) or its outermost package, or the package itself where that folder is a
    site-packages; None for this package's own files."""
    file = Path(path).resolve()
    if any(file.is_relative_to(folder) for folder in _own_folders()):
        return None
    top = None
    folder = file.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        top = folder
        folder = folder.parent
    if folder.name in ("site-packages", "dist-packages"):
        return top
    return folder


def _module_of(value: object) -> types.ModuleType | None:
    if isinstance(value, types.ModuleType):
        return value
    try:
        name = getattr(value, "__module__", None)
    except Exception:  # noqa: BLE001 - any object may sit in a module's globals
        return None
    return sys.modules.get(name) if isinstance(name, str) else None


def imported_from_home(files: set[str]) -> set[str]:
    """The source files of the modules that a user's module (a plug-in, found by the walk)
    imports from its own folder or package, followed module by module: a helper
    sub-package reached as ``pkg.sub.fn``, a class (an IntEnum of constants) defined
    elsewhere, the file registering an ``@overload`` of a function the walk reached.
    The walk follows names in the code only; an edit to one of these must recompile too."""
    roots = {os.path.realpath(path): root for path in files if (root := _user_root(path))}
    if not roots:  # this package's own functions: nothing to follow
        return set()
    queue = []
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        root = roots.pop(os.path.realpath(file), None) if isinstance(file, str) else None
        if root is not None:
            queue.append((module, root))
    found: set[str] = set()
    seen: set[int] = set()
    while queue:
        module, root = queue.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for value in list(vars(module).values()):
            target = _module_of(value)
            file = getattr(target, "__file__", None)
            if not isinstance(file, str) or id(target) in seen:
                continue
            if Path(file).resolve().is_relative_to(root):
                found.add(file)
                queue.append((target, root))
    return found
