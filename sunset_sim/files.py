"""Writing output files, and folders of them, so that an interrupted run or a full disk
never leaves a half-written one, and reading the project's JSON files (params, sidecars,
manifests, records) with one-line errors."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path


class JSONTextError(ValueError):
    """JSON text that cannot be read, in one line without the file's name (the caller
    names the file, in its own error class)."""


class _TooManyDigits(str):
    """Where a whole number too long for Python's int() stood (found again by its field)."""


def parse_json(text: str) -> object:
    """``json.loads`` whose errors are one ``JSONTextError`` line: bad syntax (line and
    column), nesting too deep, a key twice in one object, or a whole number longer than
    Python converts (4,300 digits), named by its field (``params.deny``) rather than by
    Python's own advice."""
    too_long: list[_TooManyDigits] = []

    def whole(digits: str) -> object:
        try:
            return int(digits)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            too_long.append(_TooManyDigits(digits))
            return too_long[-1]

    def no_key_twice(pairs: list[tuple[str, object]]) -> dict:
        # a key twice is ambiguous, not "the last one wins" (json's own rule)
        data = dict(pairs)
        if len(data) != len(pairs):
            seen: set[str] = set()
            key = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise JSONTextError(f"key {key[:40]!r} appears more than once")
        return data

    try:
        data = json.loads(text, parse_int=whole, object_pairs_hook=no_key_twice)
    except json.JSONDecodeError as error:
        raise JSONTextError(
            f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise JSONTextError("nested too deeply") from None
    if too_long:
        raise JSONTextError(
            f"{_field_of(data, too_long[0])}: a number of more than "
            f"{sys.get_int_max_str_digits():,} digits"
        )
    return data


def _field_of(data: object, wanted: object) -> str:
    """The path of ``wanted`` in ``data`` (``run.cards[0]``), without recursion."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if value is wanted:
            return path or "the value"
        if isinstance(value, dict):
            items = [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            items = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
        else:
            continue
        stack.extend(reversed(items))
    return "a value"


# This machine, in the names of temporary files: on a filesystem that several machines
# share, a process number says nothing about another machine's processes.
HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
# A process tag as names carry it: PID@HOST (PID alone in names made before 2026-12-04).
TAG = r"\d+(?:@[0-9a-f]{8})?"


def process_tag() -> str:
    """This process, as the names of its temporary files carry it (``tag_running``)."""
    return f"{os.getpid()}@{HOST}"


def tag_running(tag: str) -> bool:
    """Whether the process a name's tag (``TAG``) names may still run: a process of
    another machine always may (its files are never removed from here); one of this
    machine (or of a name without a machine) runs if ``process_running`` says so."""
    pid, _, host = tag.partition("@")
    if host and host != HOST:
        return True
    return process_running(int(pid))


def temporary_names(name: str) -> re.Pattern:
    """The names of ``write_atomically``'s temporary files for a file called ``name``
    (``.NAME.PID@HOST-XXXXXXXX.tmp`` beside it; ``.NAME.XXXXXXXX.tmp`` and
    ``.NAME.PID-XXXXXXXX.tmp`` before 2026-12-04):
    what a clean-up may remove after a crash."""
    return re.compile(rf"\.{re.escape(name)}\..+\.tmp")


# The signals this run was sent (``note_signal``: the command line's SIGINT and SIGTERM
# handlers). Python prints and drops an exception raised inside a finalizer (``__del__``,
# a weakref callback): an interrupt landing there was lost, and the run went on to
# replace its --force output and exit 0. Every commit asks ``stop_if_signalled`` first.
SIGNALS_SEEN: list[int] = []


# Every SIGINT or SIGTERM a Python handler of this tool took, held ones too
# (signals_held): what cli_watchdog counts as answered
SIGNALS_TAKEN: list[int] = []


def note_signal(number: int) -> None:
    SIGNALS_SEEN.append(number)
    SIGNALS_TAKEN.append(number)


# What a run stopped without its own clean-up (cli_watchdog: a strategy that never
# returns) still undoes: each removes a lock or temporary file, safe from another thread
FORCED_EXIT_CLEAN_UP: list[Callable[[], None]] = []


def at_forced_exit(clean_up: Callable[[], None], done: bool = False) -> None:
    """Add ``clean_up`` to that list, or with ``done`` take it out (its files are gone)."""
    if not done:
        FORCED_EXIT_CLEAN_UP.append(clean_up)
    elif clean_up in FORCED_EXIT_CLEAN_UP:
        FORCED_EXIT_CLEAN_UP.remove(clean_up)


def stop_if_signalled() -> None:
    """KeyboardInterrupt if this run was sent a signal, even one Python dropped: nothing
    is committed after an interrupt."""
    if SIGNALS_SEEN:
        raise KeyboardInterrupt


# Output files that did not exist when the command checked them and may not be replaced
# (no --force): written only if nothing appeared there while it played (cli_common)
NO_CLOBBER: set[str] = set()
MADE_MEANWHILE = "already exists (made while this run played; use --force)"


def open_lock(path: str | os.PathLike):
    """A lock file, opened for flock: created if missing, never through a link (a link
    would make the tool create or open a file the user did not name) and only a regular
    file (a FIFO blocked the open forever). OSError, with its reason, otherwise."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symbolic link") from None
        raise
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "it is not a regular file")
    return os.fdopen(descriptor, "a+b")


def check_still_free(path: str | os.PathLike) -> None:
    """Raise (EEXIST) if ``path`` may not be replaced (``NO_CLOBBER``) and something is
    there now: for a file written with others (a CSV's sidecar), asked before any is."""
    if os.path.abspath(path) in NO_CLOBBER and os.path.lexists(path):
        raise OSError(errno.EEXIST, MADE_MEANWHILE, str(path))


def move_into_place(temporary: str | os.PathLike, path: str | os.PathLike) -> None:
    """Rename a finished temporary file to ``path``; where ``path`` may not be replaced
    (``NO_CLOBBER``), only if nothing appeared there meanwhile (a hard link fails on an
    existing name; where the filesystem has none, the name is tested first)."""
    if os.path.abspath(path) not in NO_CLOBBER:
        os.replace(temporary, path)
        return
    check_still_free(path)
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise OSError(errno.EEXIST, MADE_MEANWHILE, str(path)) from None
    except OSError:  # no hard links there (some network filesystems)
        if os.path.lexists(path):
            raise OSError(errno.EEXIST, MADE_MEANWHILE, str(path)) from None
        os.replace(temporary, path)
    Path(temporary).unlink(missing_ok=True)


def write_atomically(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write to a temporary file beside ``path``, then rename it over ``path``.

    The file gets an ordinary new file's permissions (0666 less the umask), not the
    0600 of a temporary file, so reports and parameter files can be shared."""
    path = Path(path)
    remove_dead_temporaries(path, ".tmp")  # a killed writer's (SIGKILL: no clean-up ran)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent if str(path.parent) else ".",
            prefix=f".{path.name}.{process_tag()}-",
            suffix=".tmp",
        )
    except OSError as error:  # the error names the file the user asked for
        raise OSError(error.errno, error.strerror, str(path)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            _write_data(stream, data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(temporary, 0o666 & ~_umask())
        stop_if_signalled()
        move_into_place(temporary, path)
    except OSError as error:  # a full disk: nothing half-written, the target named
        Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _write_data(stream, data: bytes) -> None:
    """The one place bytes reach the disk (a test stands in a full disk here)."""
    stream.write(data)


@contextlib.contextmanager
def folder_written_whole(
    path: str | os.PathLike,
    owned: Callable[[str], bool] = lambda name: True,
    done: Callable[[], None] | None = None,
) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path`` to write its files into; when the
    block ends without error it becomes ``path`` (an old ``path`` renamed aside, the new
    one renamed in, the old one deleted), so ``path`` holds its old files or all the new
    ones, never a half (a full disk, Ctrl-C). On any error or interrupt the temporary
    folder, and any parent folder made for it, is removed and ``path`` left as it was.

    Entries of an old ``path`` for which ``owned(name)`` is false (files of the user's
    own) are carried into the new one. ``done`` runs once the new folder is in place,
    before a Ctrl-C that came during the swap is raised. A ``path`` that is a mount
    point or holds the current folder cannot be renamed: its new entries are written in a
    temporary folder inside it and swapped in one by one."""
    shown = Path(path)
    target = Path(os.path.abspath(path))
    if shown.is_symlink() and shown.is_dir():  # the folder the link names is the output
        target = Path(os.path.realpath(path))
    made = _make_parents(target.parent, shown)
    in_place = target.is_dir() and (os.path.ismount(target) or _holds_cwd(target))
    with signals_held():
        _clear_leftovers(target, owned, in_place)
    try:
        staging = Path(
            tempfile.mkdtemp(
                dir=target if in_place else target.parent,
                prefix=f".{'sunset-sim' if in_place else target.name}.new-{process_tag()}-",
            )
        )
    except OSError as error:
        _remove_made(made)
        raise OSError(error.errno, error.strerror, str(shown)) from None
    try:
        yield staging
        stop_if_signalled()
        if str(target) in NO_CLOBBER and os.path.lexists(target) and not target.is_dir():
            raise OSError(errno.EEXIST, f"a file now: {MADE_MEANWHILE}", str(shown))
        theirs = os.listdir(target) if target.is_dir() else []
        if str(target) in NO_CLOBBER and [name for name in theirs if name != staging.name]:
            # empty or absent when the run began (no --force): another's files since (our
            # staging folder is inside it where it is the current folder)
            raise OSError(errno.EEXIST, f"holds files now: {MADE_MEANWHILE}", str(shown))
        with signals_held():
            if in_place:
                _swap_entries(staging, target, owned)
            else:
                _swap_folder(staging, target, owned)
            if done is not None:
                done()
    except BaseException as error:
        with signals_held():
            shutil.rmtree(staging, ignore_errors=True)
            _remove_made(made)
        name = getattr(error, "filename", None)
        if isinstance(error, OSError) and name and str(name).startswith(str(staging)):
            # the error names the file the user will look for, not the temporary folder
            raise OSError(
                error.errno, error.strerror, str(shown) + str(name)[len(str(staging)) :]
            ) from None
        raise


def _swap_folder(staging: Path, target: Path, owned: Callable[[str], bool]) -> None:
    """``staging`` becomes ``target`` in two renames; undone if one of them fails."""
    carried: list[str] = []
    aside = None
    try:
        if target.is_dir():
            staging.chmod(stat.S_IMODE(target.stat().st_mode))
            for entry in sorted(os.listdir(target)):
                if not owned(entry) and not (staging / entry).exists():
                    os.rename(target / entry, staging / entry)
                    carried.append(entry)
            aside = target.with_name(f".{target.name}.old-{process_tag()}-{secrets.token_hex(4)}")
            os.rename(target, aside)
        else:
            staging.chmod(0o777 & ~_umask())
        os.rename(staging, target)
    except OSError:
        if aside is not None and aside.exists() and not target.exists():
            os.rename(aside, target)
        for entry in carried:
            os.rename(staging / entry, target / entry)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def _swap_entries(staging: Path, target: Path, owned: Callable[[str], bool]) -> None:
    """``staging``'s entries into ``target`` (which cannot be renamed), the old ones of
    this writer moved aside first; undone if a rename fails."""
    aside = Path(tempfile.mkdtemp(dir=target, prefix=f".sunset-sim.old-{process_tag()}-"))
    internal = {staging.name, aside.name}
    moved_aside: list[str] = []
    moved_in: list[str] = []
    try:
        for entry in sorted(os.listdir(target)):
            if entry not in internal and (owned(entry) or (staging / entry).exists()):
                os.rename(target / entry, aside / entry)
                moved_aside.append(entry)
        for entry in sorted(os.listdir(staging)):
            os.rename(staging / entry, target / entry)
            moved_in.append(entry)
    except OSError:
        for entry in moved_in:
            os.rename(target / entry, staging / entry)
        for entry in moved_aside:
            os.rename(aside / entry, target / entry)
        aside.rmdir()
        raise
    shutil.rmtree(aside, ignore_errors=True)
    staging.rmdir()


def _clear_leftovers(target: Path, owned: Callable[[str], bool], in_place: bool) -> None:
    """What a writer of ``target`` that was killed (SIGKILL, a power cut: no clean-up ran)
    left: its staging folder ``.NAME.new-PID-*`` and the old folder it set aside,
    ``.NAME.old-PID-*`` (inside ``target`` when it was written in place, NAME then
    ``sunset-sim``). Only those of a process that no longer runs are touched. A swap cut
    between its two renames is finished (the staging folder is only renamed in once
    whole); the user's own files carried into a staging folder go back; the rest is
    removed."""
    folder, name = (target, "sunset-sim") if in_place else (target.parent, target.name)
    pattern = re.compile(rf"\.{re.escape(name)}\.(new|old)-({TAG})-")
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return
    dead: dict[str, list[Path]] = {"new": [], "old": []}
    for entry in entries:
        match = pattern.match(entry)
        if match and (folder / entry).is_dir() and not tag_running(match[2]):
            dead[match[1]].append(folder / entry)
    with contextlib.suppress(OSError):
        if in_place:  # the old entries not yet replaced go back
            for aside in dead["old"]:
                for entry in os.listdir(aside):
                    if not os.path.lexists(target / entry):
                        os.rename(aside / entry, target / entry)
        elif not os.path.lexists(target) and dead["old"]:
            if dead["new"]:  # cut between the renames: the new folder was whole
                os.rename(dead["new"].pop(), target)
            else:
                os.rename(dead["old"].pop(), target)
        elif target.is_dir():  # files of the user's carried into the staging folder
            for staging in dead["new"]:
                for entry in os.listdir(staging):
                    if not owned(entry) and not os.path.lexists(target / entry):
                        os.rename(staging / entry, target / entry)
    for leftover in dead["new"] + dead["old"]:
        shutil.rmtree(leftover, ignore_errors=True)


def remove_dead_temporaries(path: Path, suffix: str) -> None:
    """Remove the ``.NAME.TAG-XXXXXXXX{suffix}`` files a killed writer of ``path`` left
    beside it (``process_tag``), those of processes of this machine that have ended
    only: ``write_atomically``'s ``.tmp`` files, and ``simulate --out``'s ``.partial``
    file, which holds a run's whole output until the end (gigabytes no one sees). A live
    writer's files, and another machine's, are left alone."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.({TAG})-\w+{re.escape(suffix)}")
    folder = path.parent if str(path.parent) else Path(".")
    with contextlib.suppress(OSError):
        for entry in os.listdir(folder):
            match = pattern.fullmatch(entry)
            if match and not tag_running(match[1]):
                (folder / entry).unlink(missing_ok=True)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists (another user's counts; off POSIX, always true:
    there ``os.kill`` would end it)."""
    if os.name != "posix" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _holds_cwd(folder: Path) -> bool:
    """Whether the current folder is ``folder`` or inside it (renaming it would leave
    the shell that ran the command in a deleted folder)."""
    try:
        here = Path(os.getcwd()).resolve()
    except OSError:
        return False
    return here == folder.resolve() or folder.resolve() in here.parents


def _make_parents(folder: Path, shown: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the ones made, to remove if nothing is
    written after all."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    made = []
    try:
        for parent in reversed(missing):
            parent.mkdir()
            made.append(parent)
    except OSError as error:
        _remove_made(made)
        raise OSError(error.errno, error.strerror, str(shown)) from None
    return made


def _remove_made(made: list[Path]) -> None:
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C (SIGINT) and SIGTERM wait until the block is done, then act as usual: the
    renames that swap a folder in, or the removal of a half-written one, are never cut
    halfway. Only the main thread can set handlers (the others run the block as is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(number: int, frame) -> None:
        caught.append(number)
        SIGNALS_TAKEN.append(number)  # (answered: a long block is not a stuck strategy)

    previous = {}
    for kind in (signal.SIGINT, *(getattr(signal, n, None) for n in ("SIGTERM", "SIGHUP"))):
        if kind is not None and signal.getsignal(kind) not in (None, signal.SIG_IGN):
            previous[kind] = signal.signal(kind, hold)
    try:
        yield
    finally:
        for kind, handler in previous.items():
            signal.signal(kind, handler)
        if caught:
            signal.raise_signal(caught[0])


def file_digest(path: Path) -> str:
    """SHA-256 of a file (a dataset's part: a chunk damaged without a change of size is
    not kept)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def flush_file(path: Path) -> None:
    """Make a file's contents durable before it is renamed into place."""
    with open(path, "rb") as stream:
        os.fsync(stream.fileno())


def flush_folder(folder: Path) -> None:
    """Make renames in ``folder`` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
