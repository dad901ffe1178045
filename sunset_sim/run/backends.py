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

import os
import socket
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numba
import numpy as np

from sunset_sim.cards.tables import CardTables
from sunset_sim.engine.batch import BatchArrays, run_games
from sunset_sim.rules.options import Rules
from sunset_sim.run import RunError
from sunset_sim.run.progress import Progress, play_in_steps
from sunset_sim.strategy import Player, registry

BACKENDS = ("local", "dask")
CONNECT_TIMEOUT_S = float(os.environ.get("SUNSET_SIM_DASK_TIMEOUT", "20"))

# (strategy name, parameter vector, label) per seat: what a worker rebuilds seats from.
SeatData = tuple[tuple[str, tuple[float, ...], str], ...]


@contextmanager
def numba_threads(jobs: int | None) -> Iterator[int]:
    """Use ``jobs`` numba threads (default: all cores) inside the block (this thread)."""
    previous = numba.get_num_threads()
    wanted = (
        numba.config.NUMBA_NUM_THREADS if not jobs else min(jobs, numba.config.NUMBA_NUM_THREADS)
    )
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
    ) -> Iterator[BatchArrays]:
        """The chunks in order; ``progress(games)`` is told of games played within a
        chunk too (``run.progress.play_in_steps``), so a bar moves during a long chunk."""
        seats = list(seats)
        with numba_threads(self.jobs):
            for first, count in ranges:
                yield play_in_steps(
                    tables, seats, rules, seed, first, count, progress, self.check_invariants
                )


class DaskBackend:
    """Chunks as joblib tasks on the Dask cluster whose scheduler is at ``scheduler``.

    ``jobs`` is the number of numba threads a task uses on its worker (default: all of
    the worker's ``NUMBA_NUM_THREADS``). A worker process plays one chunk at a time, so
    start workers with ``--nthreads 1`` (docs/cluster.md)."""

    name = "dask"

    def __init__(
        self, scheduler: str, jobs: int | None = None, check_invariants: bool = False
    ) -> None:
        self.scheduler = scheduler
        self.jobs = jobs
        self.check_invariants = check_invariants
        self.client = None

    def __enter__(self) -> DaskBackend:
        distributed = import_dask()
        try:
            self.client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - any failure to connect is one line
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunError(
                f"--scheduler {self.scheduler}: cannot connect to the Dask scheduler ({message})"
            ) from None
        return self

    def __exit__(self, *exc_info) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def play(
        self,
        tables: CardTables,
        seats: Sequence[Player],
        rules: Rules,
        seed: int,
        ranges: Iterable[tuple[int, int]],
        progress: Progress | None = None,
    ) -> Iterator[BatchArrays]:
        """The chunks in order; ``progress(games)`` once per chunk (played remotely)."""
        import joblib

        if self.client is None:
            raise RuntimeError("DaskBackend.play outside its with-block")
        data = seat_data(seats)
        expected = engine_hash(seats)
        tasks = (
            joblib.delayed(play_chunk)(
                tables, data, rules, seed, first, count, self.jobs, self.check_invariants
            )
            for first, count in ranges
        )
        with joblib.parallel_config(backend="dask"):
            # ordered results, one chunk per task (no auto-batching of "fast" tasks)
            parallel = joblib.Parallel(n_jobs=-1, batch_size=1, return_as="generator")
            results = parallel(tasks)
            try:
                for worker, engine, batch in results:
                    if engine != expected:
                        raise RunError(
                            f"worker {worker} runs other engine or strategy code than this "
                            f"machine (hash {engine}, here {expected}): install the same "
                            "sunset-sim there"
                        )
                    if callable(progress):
                        progress(len(batch.game))
                    yield batch
            finally:  # stopped early: cancel the rest without joblib's warning about it
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    results.close()


def open_backend(
    name: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    check_invariants: bool = False,
) -> LocalBackend | DaskBackend:
    """A backend to use in a ``with`` block (the Dask one connects when entered).

    With ``check_invariants`` every game's invariants are checked (engine/invariants.py)."""
    if name == "local":
        return LocalBackend(jobs, check_invariants)
    if name == "dask":
        if not scheduler:
            raise RunError(
                "--backend dask needs --scheduler ADDRESS (start one with `dask scheduler`, "
                "and workers with `dask worker ADDRESS --nthreads 1`)"
            )
        return DaskBackend(scheduler, jobs, check_invariants)
    raise RunError(f"--backend: {name!r} is not one of {', '.join(BACKENDS)}")


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
                "(a module in strategies/ or a sunset_sim.strategies entry point, installed "
                "on every worker)"
            )
    return tuple((p.spec.name, tuple(float(v) for v in p.params), p.label) for p in seats)


# ---- on the worker ---------------------------------------------------------------------

_KERNEL_LOCK = threading.Lock()  # one chunk at a time per process: it uses numba's threads
_SEATS: dict[SeatData, tuple[list[Player], str]] = {}


def worker_seats(data: SeatData) -> tuple[list[Player], str]:
    """The seats for ``data`` in this process and their engine hash (built once, so the
    kernel is too)."""
    found = _SEATS.get(data)
    if found is None:
        known = registry()
        seats = []
        for name, params, label in data:
            if name not in known:
                raise RunError(
                    f"strategy {name!r} is not installed on worker {socket.gethostname()} "
                    f"(known there: {', '.join(known)})"
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
) -> tuple[str, str, BatchArrays]:
    """One chunk on a worker: (host, engine hash, games first .. first + count - 1 as
    raw arrays)."""
    seats, engine = worker_seats(data)
    with _KERNEL_LOCK, numba_threads(jobs):
        batch = run_games(tables, seats, rules, seed, first, count, check_invariants)
        return socket.gethostname(), engine, batch


__all__ = [
    "BACKENDS",
    "DaskBackend",
    "engine_hash",
    "LocalBackend",
    "import_dask",
    "numba_threads",
    "open_backend",
    "play_chunk",
    "seat_data",
]
