"""The project's one numba ``jit`` wrapper and its on-disk cache, keyed per source file.

Every jitted function (engine, strategies, plug-ins) goes through ``jit``. With caching
on, each function's machine code is saved under ``cache_folder()`` and found again in the
next process, keyed by a digest of everything it compiles from (``dependency_digest``):
the source file of the function and of every jitted function, intrinsic or plain
function it reaches through its global names (found by walking them, not listed by
hand), the values of the constants it reads (``GRID_SIZE``, ``NEXT_CELL`` ...), for a
plug-in every module it imports from its own folder, and the numba, numpy and Python
versions. numba's own cache checks only the function's own file,
so an edit to a helper in another file would load stale code; this digest does not.
Editing one strategy therefore recompiles that strategy (and its adapter,
``engine/decisions.py``) and nothing else; editing ``strategy_tools.py`` recompiles what
uses it.

Where the cache lives: ``NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/sunset-sim/numba``,
else ``~/.cache/sunset-sim/numba``. It is never the installed package. When that folder
cannot be written (no HOME, a read-only folder, a full disk), the code is compiled in
memory and one warning line says so; ``SUNSET_SIM_NO_CACHE=1`` turns the cache off
without a warning, and numba's ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python
(coverage, debugging). ``sunset-sim cache clear`` removes the files this tool wrote there
(``cache_files``) and nothing else.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import re
import sys
import types
import warnings
import weakref
from pathlib import Path

import numba
import numpy as np
from numba.core import caching
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher
from numba.extending import _Intrinsic

from sunset_sim.engine.home_imports import imported_from_home
from sunset_sim.files import temporary_names

CACHE = os.environ.get("SUNSET_SIM_NO_CACHE", "") not in ("1", "true", "yes")
# Modules whose functions are not followed: their versions are in the digest instead.
_LIBRARIES = ("numba", "numpy", "llvmlite")
_warned: set[str] = set()


def cache_home() -> Path | None:
    """``$XDG_CACHE_HOME`` or ``~/.cache``; None where neither names an absolute folder
    (HOME unset or empty: never a cache relative to the current folder)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg)
    home = os.environ.get("HOME")
    if home is None:
        try:
            home = str(Path.home())
        except (RuntimeError, KeyError):
            return None
    return Path(home) / ".cache" if home and os.path.isabs(home) else None


def cache_folder() -> Path | None:
    """Where compiled code is kept (see the module docstring); None when nowhere."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    home = cache_home()
    return None if home is None else home / "sunset-sim" / "numba"


def cache_writable() -> bool:
    """Whether compiled code can be kept: the cache folder, or the nearest folder above
    it that exists (it is made on first use), is writable. A read-only cache still loads
    what it holds; the compile notice then says the new code is not kept."""
    folder = cache_folder()
    while folder is not None and not folder.exists():
        folder = None if folder.parent == folder else folder.parent
    return folder is not None and folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


# What this tool writes in ``cache_folder()``, and all that ``clear_cache`` removes (the
# folder may be NUMBA_CACHE_DIR, shared with other programs, or hold the user's files):
# - one folder per module (``_Locator``) holding numba's index and data files of each
#   function, FUNCTION-f.pyXY.nbi and FUNCTION-f.pyXY.N.nbc (``-f``: our disambiguator;
#   numba's own locator puts a line number there), while written with numba's
#   ``.tmp.UID`` suffix; an index is ours only if it carries our source stamp;
# - compiling.py's compile times, TIMES_FILE, written through a temporary file
#   (files.write_atomically's; ``.times-*.tmp`` before this version).
SOURCE_STAMP = "sunset-sim"
TIMES_FILE = "compile-times.json"
TIMES_TEMPORARY = re.compile(rf"\.times-.*\.tmp|{temporary_names(TIMES_FILE).pattern}")
_CACHE_FILE = re.compile(r"(?P<base>.+-f\.py\d+\w*?)\.(?:nbi|\d+\.nbc)(?:\.tmp\.[0-9a-f]+)?")


def _own_index(path: Path) -> bool:
    """Whether an index file carries our source stamp (numba pickles it near the start)."""
    try:
        with open(path, "rb") as stream:
            return SOURCE_STAMP.encode() in stream.read(512)
    except OSError:
        return False


def _module_cache_files(folder: str) -> list[Path]:
    names = {entry.name for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)}
    own_bases: dict[str, bool] = {}
    found = []
    for name in sorted(names):
        match = _CACHE_FILE.fullmatch(name)
        if match is None:
            continue
        base = match["base"]
        if base not in own_bases:
            index = f"{base}.nbi"
            own_bases[base] = index in names and _own_index(Path(folder, index))
        if own_bases[base]:
            found.append(Path(folder, name))
    return found


def cache_files(folder: Path | None = None) -> list[Path]:
    """This tool's own files in the compile cache folder (default ``cache_folder()``):
    never a file it did not write, whatever else the folder holds."""
    folder = cache_folder() if folder is None else folder
    if folder is None or not folder.is_dir():
        return []
    found = []
    for entry in os.scandir(folder):
        if entry.is_file(follow_symlinks=False):
            if entry.name == TIMES_FILE or TIMES_TEMPORARY.fullmatch(entry.name):
                found.append(Path(entry.path))
        elif entry.is_dir(follow_symlinks=False):
            found.extend(_module_cache_files(entry.path))
    return found


def clear_cache() -> tuple[Path | None, int, int]:
    """Remove this tool's compiled code and compile times (``cache_files``), then the
    module folders that held them (or are named after this package's modules) once empty,
    and the default folder (not one named by
    NUMBA_CACHE_DIR) if nothing else is left: (the folder, files removed, their bytes)."""
    folder = cache_folder()
    files = cache_files(folder)
    size = 0
    for path in files:
        size += path.lstat().st_size
        path.unlink()
    emptied = {path.parent for path in files} - {folder}
    if folder is not None and folder.is_dir():  # made for this package's modules at import
        emptied |= {path for path in folder.glob("sunset_sim.*") if not path.is_symlink()}
    for module_folder in sorted(emptied):
        with contextlib.suppress(OSError):  # not empty: it holds someone else's files
            module_folder.rmdir()
    if folder is not None and not os.environ.get("NUMBA_CACHE_DIR"):
        with contextlib.suppress(OSError):
            folder.rmdir()
    return folder, len(files), size


def warn_once(message: str) -> None:
    """One warning line on stderr per distinct message and process."""
    if message not in _warned:
        _warned.add(message)
        print(f"sunset-sim: warning: {message}", file=sys.stderr)


# ---- what a function compiles from ----------------------------------------------------

# Both caches are for one process. A file's digest is kept with the size and time of the
# file it was read from, so a source edited while a notebook runs is read again; a
# function's, under the function itself (weakly: a later function given a freed one's
# id() must not inherit its digest).
_FILE_DIGESTS: dict[str, tuple[tuple[int, int], bytes]] = {}
_DIGESTS: weakref.WeakKeyDictionary[types.FunctionType, str] = weakref.WeakKeyDictionary()


def _file_digest(path: str) -> bytes:
    try:
        status = os.stat(path)
    except OSError:  # no source on disk (defined interactively): its code is hashed
        return b"<no source>"
    stamp = (status.st_mtime_ns, status.st_size)
    found = _FILE_DIGESTS.get(path)
    if found is not None and found[0] == stamp:
        return found[1]
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).digest()
    except OSError:
        return b"<no source>"
    _FILE_DIGESTS[path] = (stamp, digest)
    return digest


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _code_names(constant)
    return names


def _is_library(value: object) -> bool:
    module = getattr(value, "__module__", None) or ""
    return module.split(".")[0] in _LIBRARIES


def _python_function(value: object) -> types.FunctionType | None:
    """The Python function behind a jitted function, an intrinsic or a plain function."""
    if isinstance(value, Dispatcher):
        value = value.py_func
    elif isinstance(value, _Intrinsic):
        value = value._defn
    if isinstance(value, types.FunctionType) and not _is_library(value):
        return value
    return None


def _code_bytes(code: types.CodeType) -> bytes:
    """A function's code as it is in memory: its bytecode, names and constants (nested
    code included; not its line numbers). The files' text alone missed a file edited
    after its module was imported (the old code was cached under the new text's key,
    and every later process loaded it), and code with no file (``python -c``, stdin),
    where only the bytecode was hashed: ``return 0`` and ``return 2`` differ only in
    their constants."""
    parts = [code.co_code, repr((code.co_names, code.co_varnames, code.co_freevars)).encode()]
    for constant in code.co_consts:
        is_code = isinstance(constant, types.CodeType)
        parts.append(_code_bytes(constant) if is_code else _stable_repr(constant))
    return b"\0".join(parts)


def _stable_repr(value: object) -> bytes:
    """repr, the same in every process: a frozenset's order follows the hash seed."""
    if isinstance(value, frozenset | set):
        return b"{" + b",".join(sorted(_stable_repr(member) for member in value)) + b"}"
    if isinstance(value, tuple):
        return b"(" + b",".join(_stable_repr(member) for member in value) + b")"
    return repr(value).encode()


def _constant_bytes(value: object) -> bytes | None:
    """How a compile-time constant is hashed; None for values that are not constants."""
    if isinstance(value, bool | int | float | str | bytes | type(None)):
        return repr(value).encode()
    if isinstance(value, np.ndarray):
        return str(value.dtype).encode() + repr(value.shape).encode() + value.tobytes()
    if isinstance(value, np.generic):
        return repr((str(value.dtype), value.item())).encode()
    if isinstance(value, numba.core.types.Type):
        return repr(value).encode()
    if isinstance(value, tuple):
        parts = [_constant_bytes(member) for member in value]
        return None if any(part is None for part in parts) else b"(" + b",".join(parts) + b")"
    if isinstance(value, type) and issubclass(value, enum.Enum):  # its members' values
        return repr([(member.name, member.value) for member in value]).encode()
    return None


def _overload_implementations() -> dict[int, list[types.FunctionType]]:
    """Each Python function with an ``@overload`` (numba's typing registry), by id, to
    the functions implementing it (a template's ``_overload_func``)."""
    from numba.core.typing import templates

    found: dict[int, list[types.FunctionType]] = {}
    for function, typ in list(templates.builtin_registry.globals):
        for template in getattr(typ, "templates", ()):
            implementation = _python_function(getattr(template, "_overload_func", None))
            if implementation is not None:
                found.setdefault(id(function), []).append(implementation)
    return found


def dependency_files(function: object) -> tuple[list[str], list[tuple[str, bytes]]]:
    """The source files ``function`` compiles from and the constants it reads.

    Follows global names (and ``module.attribute`` names) to jitted functions,
    intrinsics and plain functions, closure cells and default arguments, skipping numba,
    numpy and llvmlite (their versions are hashed instead); then, for a user's module,
    the modules it imports from its own folder (``home_imports.imported_from_home``)."""
    files: set[str] = set()
    constants: dict[str, bytes] = {}
    seen: set[int] = set()
    overloads = _overload_implementations()
    stack = [_python_function(function)]
    while stack:
        py_func = stack.pop()
        if py_func is None or id(py_func) in seen:
            continue
        seen.add(id(py_func))
        # what numba compiles for a call of it: its @overload implementations too (a
        # tester's read a value from a data file at import: edited, the old code ran)
        stack.extend(overloads.get(id(py_func), ()))
        code = py_func.__code__
        files.add(code.co_filename)
        where = f"{py_func.__module__}.{py_func.__qualname__}"
        constants[f"{where}:code"] = hashlib.sha256(_code_bytes(code)).digest()
        # default argument values compile in as constants: one read from a data file
        # at import, then edited, kept the old code, and results, with no compile
        defaults = list(enumerate(py_func.__defaults__ or ()))
        defaults += sorted((py_func.__kwdefaults__ or {}).items())
        for key, default in defaults:
            inner = _python_function(default)
            if inner is not None:
                stack.append(inner)
                continue
            constant = _constant_bytes(default)
            if constant is not None:
                constants[f"{where}:default:{key}"] = constant
        names = _code_names(code)
        modules: set[int] = set()
        values = [(name, py_func.__globals__.get(name)) for name in names]
        for cell, name in zip(py_func.__closure__ or (), code.co_freevars, strict=False):
            try:
                values.append((name, cell.cell_contents))
            except ValueError:  # an empty cell
                continue
        for name, value in values:
            if isinstance(value, types.ModuleType):
                if value.__name__.split(".")[0] in _LIBRARIES or id(value) in modules:
                    continue
                modules.add(id(value))  # (a sub-module's names too: pkg.sub.K)
                values.extend(
                    (f"{value.__name__}.{attribute}", getattr(value, attribute))
                    for attribute in names
                    if hasattr(value, attribute)
                )
                continue
            inner = _python_function(value)
            if inner is not None:
                stack.append(inner)
                continue
            if isinstance(value, tuple | list):  # a table of functions: TABLE[0]()
                stack.extend(_python_function(member) for member in value)
            constant = _constant_bytes(value)
            if constant is not None:
                constants[f"{py_func.__module__}.{name}"] = constant
    files |= imported_from_home(files)
    return sorted(files), sorted(constants.items())


def compiled_key(function: object) -> str:
    """The cache entry's key: ``dependency_digest``, and numba's ``NUMBA_BOUNDSCHECK``
    where it is set, which changes the code compiled (a tester's: code cached without the
    checks was loaded under NUMBA_BOUNDSCHECK=1, where writing-a-strategy.md promises an
    IndexError for an index out of range, and code with them was loaded after). Unset,
    the key is the digest alone, as the entries cached before it was counted."""
    digest = dependency_digest(function)
    checks = numba.config.BOUNDSCHECK
    return digest if checks is None else f"{digest}:boundscheck={int(checks)}"


def dependency_digest(function: object) -> str:
    """Digest of everything ``function`` compiles from (see ``dependency_files``)."""
    py_func = _python_function(function)
    found = _DIGESTS.get(py_func)
    if found is not None:
        return found
    digest = hashlib.sha256(b"sunset-sim compile 1\0")
    for version in (numba.__version__, np.__version__, sys.version):
        digest.update(version.encode() + b"\0")
    files, constants = dependency_files(py_func)
    # by name and content, in that order, not by where the file lies: a checkout has the
    # strategies in strategies/, a wheel in sunset_sim/strategies/, and sorted by path the
    # same files came in another order (random's and lookahead's engine hash differed
    # between the two, so a run started with one could not be resumed with the other)
    for name, content in sorted((os.path.basename(path), _file_digest(path)) for path in files):
        digest.update(name.encode() + b"\0" + content)
    for name, value in constants:
        digest.update(name.encode() + b"\0" + value + b"\0")
    digest.update(py_func.__code__.co_code)  # covers functions without a source file
    found = digest.hexdigest()[:24]
    _DIGESTS[py_func] = found
    return found


# ---- numba's cache, keyed by that digest ---------------------------------------------


class _Locator(caching._CacheLocator):
    """One folder per module under ``cache_folder()``; freshness is in the index key."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        module = py_func.__module__ or "module"
        self._cache_path = str(cache_folder() / module.replace("<", "").replace(">", ""))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return SOURCE_STAMP  # the index key carries the dependency digest instead

    def get_disambiguator(self):
        # Not the line number (numba's default): an edit that moves a function then keeps
        # its index file, whose stale entries ``_IndexFile.save`` drops.
        return "f"

    @classmethod
    def from_function(cls, py_func, py_file):
        if cache_folder() is None:
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()  # OSError when it cannot be written
        except OSError:
            path = locator.get_cache_path()
            if not (os.path.isdir(path) and os.access(path, os.R_OK | os.X_OK)):
                raise  # nothing to read either: the caller warns, code compiles in memory
            # read-only, as a cache warmed when a container was built: what it holds is
            # loaded (it was compiled again on every run), and a function it lacks
            # compiles in memory with one warning (DependencyCache.save_overload)
        return locator


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]

    def check_cachable(self, cres):
        # numba warns for each function that cannot be cached; ours are all cacheable
        # except a few with dynamic globals, which then simply compile each run.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return super().check_cachable(cres)


class _IndexFile(caching.IndexDataCacheFile):
    def _load_index(self):
        """numba's index, or none where the file is damaged (cut short, overwritten):
        numba raised pickle's error, a traceback on every run; now the functions compile
        and the next save writes a whole index over it."""
        try:
            return super()._load_index()
        except Exception as error:  # noqa: BLE001 - whatever a damaged pickle raises
            warn_once(f"ignoring an unreadable compile cache index {self._index_path}: {error}")
            return {}

    def save(self, key, data):
        """Save, dropping entries for the same signature (and the same NUMBA_BOUNDSCHECK:
        a debugging run's build leaves the usual one) compiled from older sources."""
        overloads = self._load_index()
        setting = lambda entry: str(entry[2]).partition(":")[2]  # noqa: E731
        stale = [
            old
            for old in overloads
            if old[:2] == key[:2] and old != key and setting(old) == setting(key)
        ]
        if stale:
            for old in stale:
                try:
                    os.unlink(self._data_path(overloads.pop(old)))
                except OSError:
                    pass
            self._save_index(overloads)
        super().save(key, data)


class DependencyCache(caching.FunctionCache):
    """numba's function cache with the dependency digest in its index key."""

    _impl_class = _Impl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _IndexFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

    def _index_key(self, sig, codegen):
        return (sig, codegen.magic_tuple(), compiled_key(self._py_func))

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception as error:  # noqa: BLE001 - damaged (a pickle cut short or
            # overwritten raises UnpicklingError, EOFError, ...): compile, and the save
            # that follows replaces the entry
            warn_once(  # (once for the cache, not once per entry: 12 lines for one cache)
                f"ignoring unreadable compile cache entries in {cache_folder()} "
                f"({type(error).__name__}); compiling them again"
            )
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError as error:
            self.disable()
            warn_once(  # (the cache's folder, not each module's: 4 lines for one cache)
                f"cannot write the compile cache in {cache_folder()} ({error.strerror or error}); "
                "compiling in memory, so the next run compiles again"
            )


def is_cached(dispatcher) -> bool:
    """Whether the disk cache holds code for ``dispatcher`` compiled from its current
    sources (for some signature): its first call then loads rather than compiles."""
    cache = getattr(dispatcher, "_cache", None)
    if not isinstance(cache, DependencyCache):
        return False
    try:
        index = cache._cache_file._load_index()
        folder = cache._cache_file._cache_path
    except Exception:  # unreadable: it will compile
        return False
    digest = compiled_key(dispatcher.py_func)
    # an index entry whose code file is gone or empty compiles too (silently, it was
    # thought loaded: no compile notice before a two-minute wait)
    return any(
        key[2] == digest and _nonempty(os.path.join(folder, name)) for key, name in index.items()
    )


def _nonempty(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _attach_cache(dispatcher: Dispatcher) -> None:
    folder = cache_folder()
    if folder is None:
        warn_once(
            "no cache folder (HOME and XDG_CACHE_HOME unset or not absolute; set "
            "NUMBA_CACHE_DIR): compiling in memory, so every run compiles again"
        )
        return
    try:
        dispatcher._cache = DependencyCache(dispatcher.py_func)
    except OSError as error:
        warn_once(
            f"cannot write the compile cache in {folder} ({error.strerror or error}); "
            "compiling in memory, so every run compiles again"
        )


def _compile_with(dispatcher: Dispatcher, loop_vectorize: bool, wraparound: bool) -> None:
    """Compile ``dispatcher`` with LLVM's loop vectorizer off and/or without numba's
    wrap-around of negative array indices (``x[-1]``).

    numba reads the vectorizer setting from its config when it builds each optimization
    pipeline, and calls ``arrayobj.fix_integer_index`` at every integer index; the
    compiler lock keeps other threads' compiles out while either is changed. The
    vectorizer setting also reaches functions first compiled as its callees (the
    strategies' own code keeps numba's default); the index rule applies only to the code
    of this function and what is inlined into it (its LLVM name is checked), so that a
    shared helper's meaning never depends on which caller compiled it first."""
    from numba.core import itanium_mangler
    from numba.np import arrayobj

    compile_with_defaults = dispatcher.compile
    python_function = dispatcher.py_func
    parts = f"{python_function.__module__}.{python_function.__qualname__}".split(".")
    own_name = "_ZN" + "".join(itanium_mangler.mangle_identifier(part) for part in parts)

    def fix_integer_index(context, builder, index_type, index, size):
        if builder.function.name.startswith(own_name):
            return context.cast(builder, index, index_type, numba.types.intp)
        return numba_fix_integer_index(context, builder, index_type, index, size)

    numba_fix_integer_index = arrayobj.fix_integer_index

    def compile_with_settings(signature):
        with global_compiler_lock:
            saved_vectorize = numba.config.LOOP_VECTORIZE
            saved_index = arrayobj.fix_integer_index
            if not loop_vectorize:
                numba.config.LOOP_VECTORIZE = 0
            if not wraparound:
                arrayobj.fix_integer_index = fix_integer_index
            try:
                return compile_with_defaults(signature)
            finally:
                numba.config.LOOP_VECTORIZE = saved_vectorize
                arrayobj.fix_integer_index = saved_index

    dispatcher.compile = compile_with_settings


def jit(function=None, **options):
    """``numba.njit`` with nogil, numpy's error model and the dependency-keyed cache.

    ``cache=False`` opts a function out of the disk cache; ``loop_vectorize=False``
    compiles it without LLVM's loop vectorizer, and ``wraparound=False`` without numba's
    wrap-around of negative indices, for code that never indexes from the end (the
    engine: see ``kernel.play_games``)."""
    cache = options.pop("cache", CACHE) and CACHE
    loop_vectorize = options.pop("loop_vectorize", True)
    wraparound = options.pop("wraparound", True)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")  # no Python exception checks on division

    def decorate(python_function):
        dispatcher = numba.njit(**options)(python_function)
        if not numba.config.DISABLE_JIT:
            if cache:
                _attach_cache(dispatcher)
            if not (loop_vectorize and wraparound):
                _compile_with(dispatcher, loop_vectorize, wraparound)
        return dispatcher

    return decorate if function is None else decorate(function)


__all__ = [
    "CACHE",
    "DependencyCache",
    "cache_folder",
    "cache_files",
    "cache_home",
    "clear_cache",
    "dependency_digest",
    "dependency_files",
    "is_cached",
    "jit",
    "warn_once",
]
