"""A fast-engine kernel per line-up: any registered strategy runs in the numba engine.

The kernel calls one ``decide(strategy_id, ...)`` that dispatches by id to the strategies'
own ``decide`` functions (DESIGN-NOTES: an id plus a float parameter vector, dispatched
inside the kernel, is the pattern that caches well). Which functions it dispatches to
must be known when the kernel compiles, so for every *set* of strategies played
together (sorted by name; a strategy's id is its position in that list) this module
writes a small Python module and imports it:

1. a header: an import of each strategy's ``decide`` and the dispatching ``decide``
   (forced choices are not put to the strategy; an index off the list raises);
2. the text of ``sunset_sim/engine/kernel.py``, read at run time, less its line
   ``from sunset_sim.engine.dispatch import decide``.

The generated file lives in ``<numba cache base>/kernels/<hash>/`` (the base folder of
``engine/jit.py``: ``NUMBA_CACHE_DIR`` or ``~/.cache/sunset-sim/numba``), so each
line-up's kernel has its own source file and therefore its own numba cache entries:
numba keys its cache by source file, and reusing ``kernel.py``'s file with another
dispatch would load stale machine code. The hash covers the generated text (kernel and
dispatch), the source of every file the strategies' jitted functions come from (found by
following the jitted functions that ``decide`` calls, plug-ins outside the repository
included), the engine's own source hash (``jit._source_hash``) and numba's version, so a
change to any of them gives a new file and a fresh compile, never stale code.

With ``SUNSET_SIM_NO_CACHE=1``, or when the base folder cannot be written, the files go
to a temporary folder that lives as long as the process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import types
from collections.abc import Iterable, Sequence
from pathlib import Path

import numba

from sunset_sim.engine import jit as jit_module
from sunset_sim.strategy import StrategyError, StrategySpec

KERNEL_FILE = Path(__file__).with_name("kernel.py")
DISPATCH_IMPORT = "from sunset_sim.engine.dispatch import decide"
FUTURE_IMPORT = "from __future__ import annotations"
INJECTED = "_CODEGEN_STRATEGIES"  # decide functions that cannot be imported by name

_LOCK = threading.Lock()
_MODULES: dict[tuple, tuple[tuple[StrategySpec, ...], types.ModuleType]] = {}
_TEMPORARY: tempfile.TemporaryDirectory | None = None


def lineup(specs: Iterable[StrategySpec]) -> tuple[StrategySpec, ...]:
    """The distinct strategies of a table, sorted by name: a strategy's kernel id is its
    position here. Two different strategies under one name are an error."""
    by_name: dict[str, StrategySpec] = {}
    for spec in specs:
        known = by_name.setdefault(spec.name, spec)
        if known is not spec and known.decide is not spec.decide:
            raise StrategyError(
                f"two different strategies are called {spec.name!r}; give one another name"
            )
    return tuple(by_name[name] for name in sorted(by_name))


def kernel_module(specs: Iterable[StrategySpec]) -> types.ModuleType:
    """The kernel module for these strategies (generated and imported once per process).

    It has everything ``kernel.py`` has (``play_game``, ``play_games``, ``workspace_for``,
    the layout constants) plus ``STRATEGY_NAMES``, the names in kernel-id order."""
    table = lineup(specs)
    if not table:
        raise StrategyError("no strategies to build a kernel for")
    key = tuple((spec.name, id(spec.decide)) for spec in table)
    with _LOCK:
        found = _MODULES.get(key)
        if found is not None:
            return found[1]
        for spec in table:
            _check_compiled(spec)
        body, injected = kernel_source(table)
        digest = kernel_hash(table, body)
        module = _import(digest, _header(table, digest) + body, injected)
        _MODULES[key] = (table, module)  # the specs are kept so their ids stay unique
        return module


def kernel_source(table: Sequence[StrategySpec]) -> tuple[str, tuple]:
    """The generated module's text (without its header comment) and the decide functions
    it takes from its namespace because they cannot be imported by name."""
    names = [spec.name for spec in table]
    lines = [FUTURE_IMPORT, "", "from sunset_sim.engine.jit import jit as _codegen_jit"]
    injected = []
    for number, spec in enumerate(table):
        where = _import_path(spec.decide)
        if where is not None:
            module, attribute = where
            lines.append(f"from {module} import {attribute} as _strategy_{number}  # {spec.name!r}")
        else:
            lines.append(f"_strategy_{number} = {INJECTED}[{len(injected)}]  # {spec.name!r}")
            injected.append(spec.decide)
    lines += ["", f"STRATEGY_NAMES = {tuple(names)!r}", "", "", _dispatch_source(len(table))]
    lines += ["", "# ---- the text of sunset_sim/engine/kernel.py follows ----", ""]
    return "\n".join(lines) + "\n" + _kernel_text(), tuple(injected)


def kernel_hash(table: Sequence[StrategySpec], body: str) -> str:
    """Hash of everything the generated kernel compiles from."""
    digest = hashlib.sha256(b"sunset-sim generated kernel 1\0")
    digest.update(numba.__version__.encode() + b"\0")
    digest.update(jit_module._source_hash().encode() + b"\0")
    digest.update(body.encode())
    for name, path in strategy_files(spec.decide for spec in table):
        digest.update(b"\0" + name.encode() + b"\0")
        try:
            digest.update(Path(path).read_bytes())
        except OSError:  # no source on disk (e.g. defined interactively): hash the name only
            digest.update(b"<no source>")
    return digest.hexdigest()[:20]


def strategy_files(functions: Iterable) -> list[tuple[str, str]]:
    """(module name, source file) of each function reachable from ``functions`` through
    global names that are jitted functions (or plain ones, as under NUMBA_DISABLE_JIT)."""
    seen: set[int] = set()
    files: dict[str, str] = {}
    stack = list(functions)
    while stack:
        function = stack.pop()
        py_func = getattr(function, "py_func", function)
        if id(py_func) in seen or not isinstance(py_func, types.FunctionType):
            continue
        seen.add(id(py_func))
        code = py_func.__code__
        files[code.co_filename] = py_func.__module__
        for name in _global_names(code):
            value = py_func.__globals__.get(name)
            if isinstance(value, numba.core.dispatcher.Dispatcher | types.FunctionType):
                stack.append(value)
    return sorted((module, path) for path, module in files.items())


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _check_compiled(spec: StrategySpec) -> None:
    if numba.config.DISABLE_JIT:
        return
    if not isinstance(spec.decide, numba.core.dispatcher.Dispatcher):
        raise StrategyError(
            f"strategy {spec.name}: decide is not a numba function, so it cannot run in the "
            "fast engine; decorate it with sunset_sim.engine.jit.jit"
        )


def _import_path(function) -> tuple[str, str] | None:
    """(module, attribute) under which ``function`` can be imported, if there is one."""
    py_func = getattr(function, "py_func", function)
    module_name = getattr(py_func, "__module__", None) or ""
    module = sys.modules.get(module_name)
    if module is None or module_name == "__main__":
        return None
    if not all(part.isidentifier() for part in module_name.split(".")):
        return None
    if getattr(module, py_func.__name__, None) is function:
        return module_name, py_func.__name__
    for attribute, value in vars(module).items():
        if value is function and attribute.isidentifier():
            return module_name, attribute
    return None


def _dispatch_source(n_strategies: int) -> str:
    branches = []
    for number in range(n_strategies):
        keyword = "if" if number == 0 else "elif"
        branches.append(
            f"    {keyword} strategy_id == {number}:\n"
            f"        choice = _strategy_{number}(kind, obs, options, n_options, params, rng, tables)"
        )
    return (
        '@_codegen_jit(inline="always")\n'
        "def decide(strategy_id, kind, obs, options, n_options, params, rng, tables):\n"
        '    """The chosen option\'s index. A forced choice (one option) is not put to the\n'
        '    strategy, in either engine, so it draws no random numbers for it."""\n'
        "    if n_options == 1:\n"
        "        return 0\n" + "\n".join(branches) + "\n"
        "    else:\n"
        '        raise ValueError("unknown kernel strategy id")\n'
        "    if choice < 0 or choice >= n_options:\n"
        '        raise ValueError("a strategy chose an option that is not on the list")\n'
        "    return choice\n"
    )


def _kernel_text() -> str:
    """kernel.py without its dispatch import (and its __future__ import, which the
    generated header already has at the top, where Python requires it)."""
    lines = KERNEL_FILE.read_text(encoding="utf-8").splitlines()
    if sum(line.strip() == DISPATCH_IMPORT for line in lines) != 1:
        raise RuntimeError(
            f"{KERNEL_FILE} must import its strategy dispatch with exactly one line "
            f"{DISPATCH_IMPORT!r}: the generated kernels replace that line"
        )
    kept = [line for line in lines if line.strip() not in (DISPATCH_IMPORT, FUTURE_IMPORT)]
    return "\n".join(kept) + "\n"


def _header(table: Sequence[StrategySpec], digest: str) -> str:
    return (
        f"# Fast-engine kernel for the strategies {', '.join(repr(s.name) for s in table)}.\n"
        f"# Generated by sunset_sim.engine.codegen (hash {digest}); do not edit: the dispatch\n"
        "# below, then the text of sunset_sim/engine/kernel.py.\n"
    )


def kernels_folder() -> Path:
    """Where the generated kernel files go (see the module docstring)."""
    if jit_module.CACHE and numba.config.CACHE_DIR:
        return Path(numba.config.CACHE_DIR).parent / "kernels"
    return _temporary_folder()


def _temporary_folder() -> Path:
    global _TEMPORARY
    if _TEMPORARY is None:
        _TEMPORARY = tempfile.TemporaryDirectory(prefix="sunset-sim-kernels-")
    return Path(_TEMPORARY.name)


def _write(folder: Path, digest: str, source: str) -> Path:
    """The kernel file, written once and atomically: concurrent processes that generate
    the same kernel agree on one file, whose timestamp then never changes (numba's cache
    index checks it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"kernel_{digest}.py"
    try:
        if path.read_text(encoding="utf-8") == source:
            return path
    except (OSError, UnicodeDecodeError):
        pass
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".kernel-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(source)
        if path.exists():  # a damaged file: replace it
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)  # create if absent: a concurrent writer wins
            except FileExistsError:
                pass
            except OSError:  # no hard links on this file system
                os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path


def _import(digest: str, source: str, injected: tuple) -> types.ModuleType:
    try:
        path = _write(kernels_folder() / digest, digest, source)
    except OSError:  # a read-only cache folder: compile from a temporary copy
        path = _write(_temporary_folder() / digest, digest, source)
    name = f"_sunset_sim_kernel_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    setattr(module, INJECTED, injected)
    sys.modules[name] = module  # numba and pickling look functions' modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


__all__ = ["kernel_module", "kernel_source", "kernel_hash", "lineup", "strategy_files"]
