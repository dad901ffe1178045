"""Compiling ahead: the engine and each strategy's adapter, before the first game.

The engine (``kernel.py``) compiles once for every line-up and each strategy's adapter
once for every line-up it sits in (``decisions.py``); both are then loaded from the disk
cache (``jit.py``). ``prepare`` compiles what is missing up front, so that a command's
progress bar and ETA start after it, and says on stderr what it is doing, and for about
how long, when there is anything to compile. Its estimates are the last compile times
measured on this machine (kept beside the cache), or defaults measured on a 2-core
machine.

numba compiles on one core and holds the GIL while it does, so when several parts are
missing and the disk cache can be written, ``prepare`` compiles them in child processes,
one per core (``CHILD``: the package this process runs, compiling PART ...), and then loads them
from the cache: on 2 cores the engine and the nine built-ins compile in about half the
time. A part a child cannot compile (a strategy defined in this process only, a failed
child) is compiled here as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

import numba
import numpy as np

from sunset_sim.engine import decisions, jit
from sunset_sim.files import write_atomically
from sunset_sim.strategy import StrategyError, StrategySpec, plugin_file

ENGINE = "engine"
# Compile times measured on the 2-core development machine (s), used until this
# machine has measured its own.
DEFAULT_SECONDS = {ENGINE: 55.0, "strategy": 25.0}
# A plug-in not compiled before: most are small (a tester's seven took 0.3 to 2.2 s, and
# read "about 25 s", the built-ins' figure); its own time is recorded after its first compile
PLUGIN_SECONDS = 5.0
TIMES_FILE = jit.TIMES_FILE  # beside the cache; `cache clear` removes it (jit.cache_files)
# How many processes compile at once (default: one per core; 1: only this process).
JOBS_VARIABLE = "SUNSET_SIM_COMPILE_JOBS"

_LOCK = threading.RLock()
_READY: set[tuple] = set()
_STATE = threading.local()  # set while prepare runs its own compile game


def engine_entry():
    """The engine function every batch calls (``kernel.play_games``)."""
    from sunset_sim.engine import kernel

    return kernel.play_games


def check_compilable(spec: StrategySpec) -> None:
    """A strategy runs in the fast engine only if its ``decide`` is a numba function."""
    if numba.config.DISABLE_JIT:
        return
    if not isinstance(spec.decide, numba.core.dispatcher.Dispatcher):
        raise StrategyError(
            f"strategy {spec.name}: decide is not a numba function, so it cannot run in the "
            "fast engine; decorate it with sunset_sim.engine.jit.jit"
        )


IN_PLACE = r"\b(setitem|arr_fill|\w*sort\w*|copyto|put)\((readonly array\([^)]*\))"


def not_compilable(spec: StrategySpec, error: Exception) -> Exception:
    """What to raise when numba cannot compile ``spec``'s ``decide`` (or its adapter):
    for a plug-in from ``--strategy-path``, a StrategyError of one line naming it, its
    file and numba's first line of the problem; for any other strategy (a built-in) the
    error itself, as a bug of this project must surface whole."""
    file = plugin_file(spec)
    if file is None:
        return error
    if not isinstance(error, numba.core.errors.NumbaError):
        # numba's own slip on what it cannot type: "obs += 0" on a read-only array raised
        # an AttributeError from npydecl.py with a 40-line traceback
        frames = traceback.extract_tb(error.__traceback__)
        in_place = any(Path(frame.filename).name == "npydecl.py" for frame in frames)
        shown = "setitem(readonly array())" if in_place else f"{type(error).__name__}: {error}"
        error = numba.core.errors.TypingError(shown)
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    ours = [line for line in lines if decisions.NOT_AN_INDEX in line]  # option_index's
    if ours:
        return StrategyError(f"strategy {spec.name} ({file}): {ours[0].split(': ')[-1]}")
    shown = [line for line in lines if not line.startswith("Failed in nopython mode")]
    detail = (shown or ["numba could not type it"])[0].removeprefix("TypingError: ")
    if detail.endswith(":") and len(shown) > 1:  # "... found for signature:" and the next
        detail += " " + shown[1]  # line holds it (a tester saw it end at "signature:")
    where = next(  # the plug-in's own line numba stopped at (its path may be relative)
        (m[2] for m in (re.match(r'File "(.+)", line (\d+)', line) for line in lines)
         if m and Path(m[1]).name == Path(file).name),
        None,
    )  # fmt: skip
    at = f", line {where}" if where else ""
    # a write, a fill, a sort in place on a read-only argument (decisions.READ_ONLY): the
    # call numba found no version of for it ("arr_fill(readonly array(int32, 1d, C))")
    writes = (re.search(IN_PLACE, line) for line in lines)
    written = next((found for found in writes if found), None)
    if written is not None:
        detail = f"a write to a {written[2]}"
        hint = (
            "obs, options, params and tables are the game's own arrays and read-only: "
            "copy what decide must change into an array of its own (stack_empty)"
        )
    elif "TablesRef" in detail:  # its repr is the type of every card table: kilobytes
        detail = detail.split(" found for signature")[0] + " for tables"
        hint = (
            "on the fast engine tables is a reference to the card tables: read each by "
            "name (tables.land_icons), never by index or as a tuple"
        )
    else:
        hint = (
            "every function decide calls must be numba-compiled too: decorate helpers with "
            "@jit from sunset_sim.engine.jit"
        )
    detail = detail if len(detail) <= 200 else detail[:197] + "..."
    return StrategyError(
        f"strategy {spec.name} ({file}{at}): decide must be numba-compilable and return an "
        f"integer option index; numba: {detail} ({hint})"
    )


def compile_adapter(spec: StrategySpec):
    """``spec``'s adapter, compiled or loaded (``decisions.adapter_for``); a plug-in that
    numba cannot type is a one-line StrategyError (``not_compilable``)."""
    try:
        return decisions.adapter_for(spec.decide)
    except Exception as error:  # (numba's, or its own slip on a plug-in: not_compilable)
        if "NameError" in str(error) and plugin_file(spec):  # (inlining's words for an
            called = decisions.typing_error(spec.decide)  # untyped global: numba's own)
            if isinstance(called, numba.core.errors.NumbaError):
                error = called
        failure = not_compilable(spec, error)
        if failure is error:
            raise
        raise failure from error  # (numba's whole message, for a debugger)


def lineup(specs: Iterable[StrategySpec]) -> tuple[StrategySpec, ...]:
    """The distinct strategies of a table, sorted by name: a strategy's id in the engine
    is its position here. Two different strategies under one name are an error."""
    by_name: dict[str, StrategySpec] = {}
    for spec in specs:
        known = by_name.setdefault(spec.name, spec)
        if known is not spec and known.decide is not spec.decide:
            raise StrategyError(
                f"two different strategies are called {spec.name!r}; give one another name"
            )
    return tuple(by_name[name] for name in sorted(by_name))


def engine_hash(specs: Iterable[StrategySpec]) -> str:
    """Digest of the code these strategies' games compile from (engine, adapters,
    strategies, numba's version): equal digests, equal games."""
    digest = hashlib.sha256(b"sunset-sim engine 2\0")
    digest.update(jit.dependency_digest(engine_entry()).encode())
    digest.update(jit.dependency_digest(decisions.adapter_dispatcher).encode())
    for spec in lineup(specs):
        digest.update(b"\0" + spec.name.encode() + b"\0")
        digest.update(jit.dependency_digest(spec.decide).encode())
    return digest.hexdigest()[:20]


def missing(specs: Iterable[StrategySpec]) -> list[str]:
    """What a first game of these strategies would compile: "engine" and strategy names."""
    if numba.config.DISABLE_JIT:
        return []
    engine = engine_entry()
    names = [] if engine.overloads or jit.is_cached(engine) else [ENGINE]
    for spec in lineup(specs):
        adapter = decisions.adapter_dispatcher(spec.decide)
        if not adapter.overloads and not jit.is_cached(adapter):
            names.append(spec.name)
    return names


def prepare(specs: Iterable[StrategySpec], announce: bool = True) -> float:
    """Compile (or load) the engine and these strategies' adapters now; seconds spent.

    With ``announce``, a compile says so first on stderr, with its expected length."""
    specs = lineup(specs)
    for spec in specs:
        check_compilable(spec)
    key = tuple((spec.name, id(spec.decide)) for spec in specs)
    if numba.config.DISABLE_JIT or key in _READY or getattr(_STATE, "active", False):
        return 0.0
    with _LOCK:
        _STATE.active = True
        try:
            return _prepare(specs, key, announce)
        finally:
            _STATE.active = False


def _prepare(specs: tuple[StrategySpec, ...], key: tuple, announce: bool) -> float:
    todo = missing(specs)
    times = _load_times()
    groups = _child_groups(specs, todo, times) if todo else []
    if todo and announce:
        strategies = [name for name in todo if name != ENGINE]
        what = []
        if ENGINE in todo:
            what.append("the engine")
        if strategies:
            what.append(
                ("strategy " if len(strategies) == 1 else "strategies ") + ", ".join(strategies)
            )
        in_children = {name for group in groups for name in group}
        plugins = {spec.name for spec in specs if plugin_file(spec) is not None}
        seconds = sum(_estimate(times, name, plugins) for name in todo if name not in in_children)
        seconds += max(
            (sum(_estimate(times, name, plugins) for name in g) for g in groups), default=0
        )
        cached = isinstance(getattr(engine_entry(), "_cache", None), jit.DependencyCache)
        if cached and jit.cache_writable():
            when = f"first run only, about {_duration(seconds)}; cached in {jit.cache_folder()}"
        elif cached:  # (said once, with the reason, by DependencyCache.save_overload)
            when = f"about {_duration(seconds)}, on every run: {jit.cache_folder()} is read-only"
        else:
            when = f"about {_duration(seconds)}, on every run: nothing can be cached"
        print(
            f"sunset-sim: compiling {' and '.join(what)} ({when})",
            file=sys.stderr,
            flush=True,
        )
    start = time.perf_counter()
    elsewhere = _compile_in_children(groups, times) if groups else set()
    for spec in specs:
        begin = time.perf_counter()
        compile_adapter(spec)
        if spec.name in todo and spec.name not in elsewhere:
            times[f"strategy:{spec.name}"] = round(time.perf_counter() - begin, 1)
    begin = time.perf_counter()
    _compile_engine(specs)
    if ENGINE in todo and ENGINE not in elsewhere:
        times[ENGINE] = round(time.perf_counter() - begin, 1)
    if todo:
        _save_times(times)
    _READY.add(key)
    return time.perf_counter() - start


def _compile_engine(specs: tuple[StrategySpec, ...]) -> None:
    """One game on the default cards compiles ``play_games`` for its only signature."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import Player

    if engine_entry().overloads:
        return
    spec = specs[0] if specs else None
    if spec is None:
        from sunset_sim.strategy import registry

        spec = registry()["random"]
    players = [Player(spec, np.array([p.default for p in spec.parameters]))] * 2
    run_games(build_tables(load_cards()), players, Rules(), 0, 0, 1)


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _child_groups(specs: tuple[StrategySpec, ...], todo: list[str], times: dict) -> list[list[str]]:
    """The missing parts a fresh process can find (the engine, registered strategies),
    split into one group per core, longest first onto the least loaded group; no groups
    when one core, one part, no disk cache, or SUNSET_SIM_COMPILE_JOBS=1."""
    from sunset_sim.strategy import registry

    try:
        jobs = int(os.environ.get(JOBS_VARIABLE, "") or _workers())
    except ValueError:
        jit.warn_once(f"{JOBS_VARIABLE}={os.environ[JOBS_VARIABLE][:40]!r} is not a whole "
                  "number of processes; ignored")  # fmt: skip
        jobs = _workers()
    known = registry()
    parts = [
        name
        for name in todo
        if name == ENGINE or any(spec.name == name and known.get(name) is spec for spec in specs)
    ]
    cached = isinstance(getattr(engine_entry(), "_cache", None), jit.DependencyCache)
    jobs = min(jobs, len(parts))
    if jobs < 2 or not cached:
        return []
    groups: list[list[str]] = [[] for _ in range(jobs)]
    load = [0.0] * jobs
    for name in sorted(parts, key=lambda part: -_estimate(times, part)):
        smallest = load.index(min(load))
        groups[smallest].append(name)
        load[smallest] += _estimate(times, name)
    return groups


# A child's program (``python -P -c CHILD ROOT PARENT PART ...``). ``-m`` put the current
# folder first on the path: a ``sunset_sim`` folder there was imported instead of the
# package this process runs (a tester's file ran in both children). So ``-P`` and the
# folder holding this process's package, for that import only. Linux ends the child
# with its parent (PR_SET_PDEATHSIG): a parent killed with SIGKILL left its children
# compiling for minutes (numba holds the GIL: no thread of the child could watch).
CHILD = """\
import os, sys
root, parent = sys.argv.pop(1), int(sys.argv.pop(1))
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
except (OSError, AttributeError):
    pass
if os.getppid() != parent:
    sys.exit(1)
sys.path.insert(0, root)
import sunset_sim
sys.path.remove(root)
from sunset_sim.engine import compiling
sys.exit(compiling._child_main(sys.argv[1:]))
"""


def _compile_in_children(groups: list[list[str]], times: dict) -> set[str]:
    """Compile each group in a child process, all at once, into the disk cache; the
    names compiled there, their times merged into ``times``."""
    import sunset_sim

    root = str(Path(sunset_sim.__file__).resolve().parent.parent)
    children = [
        subprocess.Popen(
            [sys.executable, "-P", "-c", CHILD, root, str(os.getpid()), *group],
            env={**os.environ, JOBS_VARIABLE: "1"},  # a child compiles in itself only
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for group in groups
    ]
    done: set[str] = set()
    for child in children:
        try:
            output, _ = child.communicate()
        except BaseException:  # interrupted: take the children down too
            for other in children:
                other.kill()
            raise
        if child.returncode != 0:
            continue  # whatever it did not finish is compiled here
        try:
            measured = json.loads(output.strip().splitlines()[-1]) if output.strip() else {}
        except ValueError:
            measured = {}
        if isinstance(measured, dict):
            for name, seconds in measured.items():
                if isinstance(seconds, int | float):
                    done.add(name)
                    times[ENGINE if name == ENGINE else f"strategy:{name}"] = seconds
    return done


def _child_main(names: list[str]) -> int:
    """Compile these parts into the disk cache; print their times as one JSON line."""
    from sunset_sim.strategy import registry

    _STATE.active = True  # compile here, in this process: no notice, no nested prepare
    known = registry()
    measured: dict[str, float] = {}
    for name in names:
        begin = time.perf_counter()
        if name == ENGINE:
            _compile_engine(())
        else:
            compile_adapter(known[name])
        measured[name] = round(time.perf_counter() - begin, 1)
    print(json.dumps(measured))
    return 0


def _estimate(times: dict, name: str, plugins: set[str] | frozenset = frozenset()) -> float:
    if name == ENGINE:
        return float(times.get(ENGINE, DEFAULT_SECONDS[ENGINE]))
    default = PLUGIN_SECONDS if name in plugins else DEFAULT_SECONDS["strategy"]
    return float(times.get(f"strategy:{name}", default))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(5, round(seconds / 5) * 5):.0f} s"
    return f"{seconds / 60:.0f} min"


def _times_path():
    folder = jit.cache_folder()
    return None if folder is None else folder / TIMES_FILE


def _load_times() -> dict:
    path = _times_path()
    try:
        loaded = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return {}
    return (
        {k: v for k, v in loaded.items() if isinstance(v, int | float)}
        if isinstance(loaded, dict)
        else {}
    )


def _save_times(times: dict) -> None:
    """Best effort: a cache folder that cannot be written only loses the estimates."""
    path = _times_path()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # its temporary file is one that jit.TIMES_TEMPORARY names: `cache clear` removes it
        write_atomically(path, json.dumps(times, indent=1, sort_keys=True))
    except OSError:
        pass


__all__ = [
    "check_compilable",
    "compile_adapter",
    "engine_hash",
    "missing",
    "not_compilable",
    "prepare",
]
