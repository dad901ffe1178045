"""Where chunks of games are played: in this process (``local``) or on a Dask cluster.

Both yield one ``BatchArrays`` per chunk, in game order, so whatever writes or sums
the chunks sees the same stream from either. With ``dask``, each chunk is a joblib task
run under ``joblib.parallel_config(backend="dask")`` inside a ``distributed.Client``: the
task plays its range with ``run_games`` on the worker and sends back the raw arrays
(a few MB for 50,000 games), never rows or files. Jitted functions do not travel: a
worker rebuilds the seats from their strategy names and parameter vectors (so every
strategy must be installed on the workers) and compiles or loads the engine and the
strategies' adapters once per process (``engine/compiling.py``; numba's on-disk cache
makes that a load). Each
result comes back with the worker's ``engine_hash``, and a worker running other engine or
strategy code than the driver stops the run rather than mix two engines in one result.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import socket
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np

from sunset_sim.cards.tables import CardTables
from sunset_sim.engine.batch import BatchArrays, thread_pool
from sunset_sim.rules.options import Rules
from sunset_sim.run import SCHEDULER_VARIABLE, START_A_CLUSTER, RunError, scheduler_address
from sunset_sim.run.dask_joblib import ClusterWatch, joblib_dask_backend
from sunset_sim.run.progress import Progress, play_in_steps
from sunset_sim.strategy import Player, registry
from sunset_sim.validation import InputError, number_text

BACKENDS = ("local", "dask")
TIMEOUT_VARIABLE = "SUNSET_SIM_DASK_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT_S = 20.0
MAX_CONNECT_TIMEOUT_S = 3600.0


def connect_timeout() -> float:
    """Seconds to wait for the Dask scheduler: ``SUNSET_SIM_DASK_TIMEOUT`` or 20. Read when
    a Dask run starts (a bad value stopped every local run too, with a traceback, as it
    was read on import), and held to a positive number of seconds in one line."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_CONNECT_TIMEOUT_S
    try:
        seconds = float(number_text(text))
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise InputError(f"{TIMEOUT_VARIABLE}={text[:40]!r}: expected a positive number of seconds")
    if seconds > MAX_CONNECT_TIMEOUT_S:  # (1e300 waited on a refused port for ever)
        raise InputError(
            f"{TIMEOUT_VARIABLE}={text[:40]!r}: at most {MAX_CONNECT_TIMEOUT_S:.0f} seconds"
        )
    return seconds


# (strategy name, parameter vector, label) per seat: what a worker rebuilds seats from.
SeatData = tuple[tuple[str, tuple[float, ...], str], ...]


@dataclass(frozen=True)
class Seating:
    """One table's chunks: a caller that plays several tables (a tournament's rotations,
    a tune's candidates) hands them over together (``play_seatings``), so a cluster plays
    all of them at once rather than one table at a time."""

    tables: CardTables
    seats: Sequence[Player]
    rules: Rules
    seed: int
    ranges: Sequence[tuple[int, int]]
    field: Sequence[Player] = ()
    banned: np.ndarray | None = None
    only: np.ndarray | None = None  # bool per game from ranges[0][0] on: play just those

    def only_for(self, first: int, count: int) -> np.ndarray | None:
        """``only``'s entries for the chunk (first, count), or None (every game)."""
        if self.only is None:
            return None
        offset = first - self.ranges[0][0]
        return self.only[offset : offset + count]


def thread_count(jobs: int | None) -> int:
    """The threads ``jobs`` asks for: all cores when None or 0, at most all cores."""
    cores = numba.config.NUMBA_NUM_THREADS
    return cores if not jobs else min(jobs, cores)


@contextmanager
def numba_threads(jobs: int | None) -> Iterator[int]:
    """Use ``jobs`` numba threads (default: all cores) inside the block (this thread)."""
    previous = numba.get_num_threads()
    wanted = thread_count(jobs)
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)


class LocalBackend:
    """Chunks one after another in this process, each on ``jobs`` numba threads."""

    name = "local"

    def __init__(self, jobs: int | None = None, check_invariants: bool = False) -> None:
        self.jobs = jobs
        self.check_invariants = check_invariants

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc_info) -> None:
        return None

    def play(
        self,
        tables: CardTables,
        seats: Sequence[Player],
        rules: Rules,
        seed: int,
        ranges: Iterable[tuple[int, int]],
        progress: Progress | None = None,
        field: Sequence[Player] = (),
        banned: np.ndarray | None = None,
        only: np.ndarray | None = None,
    ) -> Iterator[BatchArrays]:
        """The chunks in order; ``progress(games)`` is told of games played within a
        chunk too (``run.progress.play_in_steps``), so a bar moves during a long chunk.
        ``field`` and ``banned`` as ``engine.batch.run_games`` takes them; ``only`` as
        ``Seating.only``."""
        seats = list(seats)
        field = list(field)
        ranges = list(ranges)
        seating = Seating(tables, seats, rules, seed, ranges, field, banned, only)
        with numba_threads(self.jobs):
            for first, count in ranges:
                yield play_in_steps(
                    tables,
                    seats,
                    rules,
                    seed,
                    first,
                    count,
                    progress,
                    self.check_invariants,
                    field,
                    banned,
                    seating.only_for(first, count),
                )

    def play_seatings(
        self, seatings: Iterable[Seating], progress: Progress | None = None
    ) -> Iterator[tuple[int, BatchArrays]]:
        """(seating index, chunk) for every chunk of every seating, in that order.

        Seatings of few games (a study plays thousands of 200-game tables) run side by
        side, one thread each, rather than one after another on all threads: a small
        batch split across threads leaves one idle while the other finishes, and
        measured on 2 cores a study ran about a quarter faster so. Many chunks (at least
        ``MANY_CHUNKS`` per thread: a report's 140 seatings) run side by side too, a
        chunk per thread: the caller writes one chunk's rows while the next ones play,
        where one chunk at a time on every thread left a core idle between chunks. The
        chunks are the same; only when they are played changes."""
        seatings = list(seatings)
        threads = thread_count(self.jobs)
        chunks = [
            (index, first, count) for index, s in enumerate(seatings) for first, count in s.ranges
        ]
        small = all(
            sum(count for _, count in seating.ranges) < SMALL_SEATING for seating in seatings
        )
        side_by_side = (len(seatings) >= 2 and small) or len(chunks) >= MANY_CHUNKS * threads
        if threads < 2 or len(chunks) < 2 or not side_by_side:
            for index, seating in enumerate(seatings):
                for batch in self._play_seating(seating, progress):
                    yield index, batch
            return

        told = progress
        if progress is not None:  # a bar is told from one thread at a time
            lock = threading.Lock()

            def told(games: int) -> None:
                with lock:
                    progress(games)

        def one_thread(index: int, first: int, count: int) -> BatchArrays:
            seating = seatings[index]
            with numba_threads(1):
                return play_in_steps(
                    seating.tables, list(seating.seats), seating.rules, seating.seed, first,
                    count, told, self.check_invariants, list(seating.field), seating.banned,
                    seating.only_for(first, count),
                )  # fmt: skip

        pool = thread_pool(threads, "seating")  # not the batches' pool: they wait on it
        pending: collections.deque = collections.deque()
        try:
            for index, first, count in chunks:
                pending.append((index, pool.submit(one_thread, index, first, count)))
                while len(pending) > 2 * threads:  # a few ahead, results in order
                    done_index, future = pending.popleft()
                    yield done_index, future.result()
            while pending:
                done_index, future = pending.popleft()
                yield done_index, future.result()
        finally:  # stopped early (an error, Ctrl-C): drop what has not started
            for _, future in pending:
                future.cancel()

    def _play_seating(self, seating: Seating, progress: Progress | None) -> Iterator[BatchArrays]:
        return self.play(
            seating.tables,
            seating.seats,
            seating.rules,
            seating.seed,
            seating.ranges,
            progress,
            seating.field,
            seating.banned,
            seating.only,
        )


SMALL_SEATING = 5000  # games: below this, seatings play side by side (play_seatings)
MANY_CHUNKS = 16  # chunks per thread: with this many, chunks play side by side too


class DaskBackend:
    """Chunks as joblib tasks on the Dask cluster whose scheduler is at ``scheduler``, or
    on the cluster of an existing ``distributed.Client`` (``client``: used as it is and
    left open, since its owner closes it).

    ``jobs`` is the number of numba threads a task uses on its worker (default: all of
    the worker's ``NUMBA_NUM_THREADS``). A worker process plays one chunk at a time, so
    start workers with ``--nthreads 1`` (docs/cluster.md)."""

    name = "dask"

    def __init__(
        self,
        scheduler: str | None = None,
        jobs: int | None = None,
        check_invariants: bool = False,
        client: object | None = None,
    ) -> None:
        self.scheduler = scheduler or _client_address(client)
        self.jobs = jobs
        self.check_invariants = check_invariants
        self.given = client  # the caller's Client: never closed here
        self.client = None
        self.logger_level: int | None = None

    def __enter__(self) -> DaskBackend:
        if self.given is not None:
            self.client = self.given
            return self
        timeout = connect_timeout()
        distributed = import_dask()
        # a lost scheduler is said once, in the run's own line: the client's logger had
        # printed "... distributed.client - ERROR - Failed to reconnect ..." before it
        logger = logging.getLogger("distributed.client")
        self.logger_level = logger.level
        logger.setLevel(logging.CRITICAL)
        try:
            self.client = distributed.Client(self.scheduler, timeout=timeout)
        except Exception as error:  # noqa: BLE001 - any failure to connect is one line
            self._restore_logger()
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunError(
                f"--scheduler {self.scheduler}: cannot connect to the Dask scheduler ({message})"
            ) from None
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            if self.client is not None and self.given is None:
                self.client.close()
        finally:
            self.client = None
            self._restore_logger()

    def _restore_logger(self) -> None:
        if self.logger_level is not None:
            logging.getLogger("distributed.client").setLevel(self.logger_level)
            self.logger_level = None

    def play(
        self,
        tables: CardTables,
        seats: Sequence[Player],
        rules: Rules,
        seed: int,
        ranges: Iterable[tuple[int, int]],
        progress: Progress | None = None,
        field: Sequence[Player] = (),
        banned: np.ndarray | None = None,
        only: np.ndarray | None = None,
    ) -> Iterator[BatchArrays]:
        """The chunks in order; ``progress(games)`` once per chunk (played remotely).
        ``field`` travels as ``field_data`` (only its strategies' code matters to the
        kernel)."""
        seating = Seating(tables, seats, rules, seed, list(ranges), field, banned, only)
        for _, batch in self.play_seatings([seating], progress):
            yield batch

    def play_seatings(
        self, seatings: Iterable[Seating], progress: Progress | None = None
    ) -> Iterator[tuple[int, BatchArrays]]:
        """(seating index, chunk) for every chunk of every seating, in that order; the
        chunks of all the seatings are tasks of one joblib call, so the workers play
        them side by side (a few seatings of one chunk each keep every worker busy)."""
        import joblib

        if self.client is None:
            raise RuntimeError("DaskBackend.play outside its with-block")
        prepared = [  # checked here, before any task: a strategy a worker cannot rebuild
            (
                seating,
                seat_data(seating.seats),
                field_data(seating.field),
                engine_hash(seating.seats),
            )
            for seating in seatings
        ]
        dispatched: collections.deque[tuple[int, str]] = collections.deque()

        def tasks():  # lazily: joblib takes a few ahead of the results (pre_dispatch)
            for index, (seating, data, entrants, expected) in enumerate(prepared):
                for first, count in seating.ranges:
                    dispatched.append((index, expected))  # results come back in this order
                    yield joblib.delayed(play_chunk)(
                        seating.tables,
                        data,
                        seating.rules,
                        seating.seed,
                        first,
                        count,
                        self.jobs,
                        self.check_invariants,
                        entrants,
                        seating.banned,
                        seating.only_for(first, count),
                    )

        # this backend's client, not whichever Client was made last in this process
        watch = ClusterWatch(self.client, connect_timeout())
        with (
            joblib.parallel_config(backend=joblib_dask_backend(), client=self.client),
            watch,
        ):
            # ordered results, one chunk per task (no auto-batching of "fast" tasks)
            parallel = joblib.Parallel(n_jobs=-1, batch_size=1, return_as="generator")
            try:
                results = parallel(tasks())
            except TimeoutError as error:  # joblib: "... has no worker after 10 seconds. ..."
                reason = (str(error).splitlines() or ["no worker"])[0].split(". ")[0]
                raise RunError(
                    f"--scheduler {self.scheduler}: {reason}; start workers "
                    "for it (dask worker ADDRESS) or name another --scheduler"
                ) from None
            watched = watch.failures(self.scheduler, results)
            try:
                for worker, engine, batch in watched:
                    index, expected = dispatched.popleft()
                    if engine != expected:
                        raise RunError(
                            f"worker {worker} runs other engine or strategy code than this "
                            f"machine (hash {engine}, here {expected}): install the same "
                            "sunset-sim there, with the same plug-in files (a "
                            "--strategy-path folder the workers read)"
                        )
                    if callable(progress):
                        progress(len(batch.game))
                    yield index, batch
            finally:  # stopped early: cancel the rest without joblib's warning about it
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    watched.close()
                    results.close()


BackendOption = str | LocalBackend | DaskBackend | object | None


def open_backend(
    name: BackendOption = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    check_invariants: bool = False,
) -> LocalBackend | DaskBackend:
    """A backend to use in a ``with`` block (the Dask one connects when entered).

    ``name``: ``"local"`` (or None), ``"dask"`` (the scheduler at ``scheduler``, else at
    ``$DASK_SCHEDULER_ADDRESS``) or an existing ``distributed.Client`` (its cluster; left
    open). With ``check_invariants`` every game's invariants are checked
    (engine/invariants.py). Another ``name``, or a ``scheduler`` for a backend that takes
    none, is an InputError naming the argument (the command line checks its own options
    first, cli_common.check_backend_options, and names them)."""
    if name is None or name == "local":
        if scheduler:
            raise InputError("scheduler: only with backend='dask' (the local backend has none)")
        return LocalBackend(jobs, check_invariants)
    if _is_client(name):
        if scheduler:
            raise InputError("scheduler: not with a Client as the backend (it has its own)")
        return DaskBackend(None, jobs, check_invariants, client=name)
    if name == "dask":
        scheduler = scheduler_address(scheduler)
        if not scheduler:  # (an argument missing: bad input, a ValueError as the others)
            raise InputError(
                f"backend='dask' needs scheduler=ADDRESS or {SCHEDULER_VARIABLE} "
                f"({START_A_CLUSTER})"
            )
        return DaskBackend(scheduler, jobs, check_invariants)
    # a bad input, named as the API argument (the command line's --backend is a choice)
    shown = repr(name)[:40] if isinstance(name, str) else type(name).__name__
    choices = ", ".join(repr(choice) for choice in BACKENDS)
    raise InputError(f"backend: {shown} is not {choices} or a distributed.Client")


@contextmanager
def using_backend(
    backend: BackendOption = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    check_invariants: bool = False,
) -> Iterator[LocalBackend | DaskBackend]:
    """An open backend for the block: ``backend`` itself if it is one already open (a
    caller playing several seatings connects once), else ``open_backend(...)`` entered."""
    if isinstance(backend, LocalBackend | DaskBackend):
        yield backend
        return
    with open_backend(backend, jobs, scheduler, check_invariants) as runner:
        yield runner


def _is_client(value: object) -> bool:
    """A ``distributed.Client``, recognised without importing distributed."""
    module = sys.modules.get("distributed")
    return module is not None and isinstance(value, module.Client)


def _client_address(client: object | None) -> str | None:
    if client is None:
        return None
    try:
        return client.scheduler.address  # type: ignore[attr-defined]
    except AttributeError:
        return None


# How to get the extra: sunset-sim is not on a package index, so from a checkout (or
# the two packages directly, for an installed wheel).
DASK_INSTALL = "pip install -e '.[dask]' in a sunset-sim checkout, or pip install dask distributed"


def import_dask():
    """The ``distributed`` module, or a one-line RunError naming the extra to install."""
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError as error:
        raise RunError(
            f"the dask backend needs dask and distributed ({error}): {DASK_INSTALL}"
        ) from None
    return distributed


def engine_hash(seats: Sequence[Player]) -> str:
    """Hash of the code these seats' games compile from (the generated kernel's source,
    the strategies' source files, numba's version): equal hashes, equal games."""
    from sunset_sim.engine.compiling import engine_hash as digest

    return digest(p.spec for p in seats)


def seat_data(seats: Sequence[Player]) -> SeatData:
    """What a worker needs to rebuild the seats: strategies are found there by name."""
    known = registry()
    for player in seats:
        if known.get(player.spec.name) is not player.spec:
            raise RunError(
                f"strategy {player.spec.name}: the dask backend needs registered strategies "
                "(a sunset_sim.strategies entry point installed on every worker, or a module "
                "of a --strategy-path folder every worker has: SUNSET_SIM_STRATEGY_PATH)"
            )
    return tuple((p.spec.name, tuple(float(v) for v in p.params), p.label) for p in seats)


def field_data(field: Sequence[Player]) -> SeatData:
    """A study's field as the worker needs it, built once per run: one seat per
    (registered) strategy, at its defaults (the engine compiles and addresses strategies
    by these; only their code matters), which ``worker_seats`` builds once per process."""
    known = registry()
    names = []
    for player in field:
        if known.get(player.spec.name) is not player.spec:
            seat_data([player])  # the same one-line RunError
        if player.spec.name not in names:
            names.append(player.spec.name)
    return tuple(
        (name, tuple(float(v) for v in known[name].param_vector()), name) for name in names
    )


# ---- on the worker ---------------------------------------------------------------------

_KERNEL_LOCK = threading.Lock()  # one chunk at a time per process: it uses numba's threads
_SEATS: dict[SeatData, tuple[list[Player], str]] = {}


def worker_seats(data: SeatData) -> tuple[list[Player], str]:
    """The seats for ``data`` in this process and their engine hash (built once, so the
    kernel is too)."""
    found = _SEATS.get(data)
    known = registry()  # (a plug-in edited since: its new spec, so build the seats again)
    if found is None or any(known.get(p.spec.name) is not p.spec for p in found[0]):
        seats = []
        for name, params, label in data:
            if name not in known:
                raise RunError(
                    f"strategy {name!r} is not installed on worker {socket.gethostname()} "
                    f"(known there: {', '.join(known)}; a plug-in's folder must be in "
                    "SUNSET_SIM_STRATEGY_PATH where the worker starts: set it, then start "
                    "or restart the workers)"
                )
            seats.append(Player(known[name], np.array(params, dtype=np.float64), label))
        found = _SEATS[data] = (seats, engine_hash(seats))
    return found


def play_chunk(
    tables: CardTables,
    data: SeatData,
    rules: Rules,
    seed: int,
    first: int,
    count: int,
    jobs: int | None,
    check_invariants: bool = False,
    field: SeatData = (),
    banned: np.ndarray | None = None,
    only: np.ndarray | None = None,
) -> tuple[str, str, BatchArrays]:
    """One chunk on a worker: (host, engine hash, games first .. first + count - 1 as
    raw arrays; with ``only``, just those games: ``run.subset.play_only``)."""
    seats, engine = worker_seats(data)
    entrants = worker_seats(field)[0] if field else []
    with _KERNEL_LOCK, numba_threads(jobs):
        batch = play_in_steps(
            tables, seats, rules, seed, first, count, None, check_invariants, entrants,
            banned, only,
        )  # fmt: skip
        return socket.gethostname(), engine, batch


__all__ = [
    "BACKENDS",
    "BackendOption",
    "DaskBackend",
    "engine_hash",
    "field_data",
    "LocalBackend",
    "import_dask",
    "joblib_dask_backend",
    "numba_threads",
    "open_backend",
    "play_chunk",
    "SCHEDULER_VARIABLE",
    "Seating",
    "seat_data",
    "using_backend",
]
