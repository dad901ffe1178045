"""Batches on the fast engine: chunked, parallel, streamed to tables, files or a
resumable dataset folder, played in this process or on a Dask cluster (``sunset_sim.run``).

Game g of a batch is always game index g under the root seed, whatever the chunk size,
number of jobs or backend, so a result depends only on (seed, games, players, strategies,
cards, rules).
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from sunset_sim import validation
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables, build_tables
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.files import (
    at_forced_exit,
    check_still_free,
    move_into_place,
    open_lock,
    process_tag,
    remove_dead_temporaries,
    signals_held,
    stop_if_signalled,
    write_atomically,
)
from sunset_sim.provenance import METADATA_KEY, provenance, sidecar_path
from sunset_sim.results import Summary, to_frame
from sunset_sim.rules.options import Rules
from sunset_sim.run import OutputTaken, RunError, chunk_ranges
from sunset_sim.run.backends import (  # numba_threads, open_backend: imported from here too
    BackendOption,
    DaskBackend,
    LocalBackend,
    Seating,
    numba_threads,  # noqa: F401
    open_backend,  # noqa: F401
    using_backend,
)
from sunset_sim.run.dataset import DatasetStore, run_identity
from sunset_sim.run.progress import Progress, ProgressOption, progress_bar
from sunset_sim.strategy import Player, make_player

if TYPE_CHECKING:  # imported where a frame is made: simulate's summary needs no pandas
    import pandas as pd

Backend = LocalBackend | DaskBackend

DEFAULT_CHUNK = 50_000


def resolve(
    players: int,
    strategies: Sequence[str | Player] | str,
    cards: CardSet | str | os.PathLike | None,
    rules: Rules | Mapping | Sequence[str] | None,
) -> tuple[CardSet, list[Player], Rules]:
    """Checked inputs (validation.py: the CLI's limits and messages) as the engine takes
    them: the card set, one player per seat (strategies repeated round the table) and the
    rules, which may be given as a ``Rules`` record or a dict such as ``{"days": 4}``."""
    players = validation.check_players(players)
    rules = validation.as_rules(rules)
    card_set = validation.as_cards(cards, players=players, days=rules.days)
    chosen = validation.check_strategies(strategies)  # (empty: refused, as tournament does)
    validation.check_field_fits(len(chosen), players)
    validation.warn_repeated(chosen, players)
    seats = [chosen[seat % len(chosen)] for seat in range(players)]
    return card_set, seats, rules


_TABLES: dict[str, CardTables] = {}  # the last few card sets' tables, by content hash


def _tables(card_set: CardSet) -> CardTables:
    """The card set's tables, built once for a run of calls on the same set (a study
    plays each of its ~80 arms on the same cards); the engine only reads them."""
    tables = _TABLES.get(card_set.content_hash)
    if tables is None:
        tables = _TABLES[card_set.content_hash] = build_tables(card_set)
        while len(_TABLES) > 4:
            del _TABLES[next(iter(_TABLES))]
    return tables


def _entrants(field: Sequence[str | Player]) -> list[Player]:
    """One player per strategy of ``field``: the engine compiles and addresses strategies,
    not seats (a study's field of 140 tables is otherwise 560 entries on every call)."""
    players = [s if isinstance(s, Player) else make_player(s) for s in field]
    return list({id(player.spec): player for player in players}.values())


def iter_batches(
    games: int,
    players: int = 4,
    strategies: Sequence[str | Player] = ("greedy",),
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    field: Sequence[str | Player] = (),
    banned: np.ndarray | None = None,
    progress: Progress | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> Iterator[tuple[BatchArrays, list[str]]]:
    """Yield (raw arrays, seat labels) chunk by chunk: memory stays flat for any ``games``.

    Every command plays its games here (tournament, compare, sweep, report --games,
    study) or through ``play`` (simulate, tune), on ``backend``: "local", "dask" (at
    ``scheduler`` or ``$DASK_SCHEDULER_ADDRESS``), a ``distributed.Client`` or a backend
    already open (``run.backends.using_backend``: a caller with several seatings
    connects once). The rows do not depend on it.
    ``field`` lists every strategy of a study that plays several seatings, so that they
    all run on one generated kernel (compiled once) rather than one per seating.
    ``banned``: restricted play (``engine.batch.run_games``). ``progress(games)`` is told
    of games played, within a chunk too (``run.progress.play_in_steps``)."""
    card_set, seats, rules = resolve(players, strategies, cards, rules)
    tables = _tables(card_set)
    labels = [p.name for p in seats]
    entrants = _entrants(field)
    ranges = chunk_ranges(games, chunk_size, first_game)
    with using_backend(backend, jobs, scheduler) as runner:
        for batch in runner.play(
            tables, seats, rules, seed, ranges, progress, field=entrants, banned=banned
        ):
            yield batch, labels


def iter_seatings(
    games: int,
    players: int,
    tables: Sequence[Sequence[str | Player]],
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    first_game: int = 0,
    field: Sequence[str | Player] = (),
    banned: np.ndarray | None = None,
    progress: Progress | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
    only: Sequence[np.ndarray | None] | None = None,
    first_games: Sequence[int] | None = None,
    bans: Sequence[np.ndarray | None] | None = None,
) -> Iterator[tuple[int, BatchArrays, list[str]]]:
    """(table index, raw arrays, seat labels) for every chunk of every table, in table
    order: the chunks ``iter_batches`` yields table by table, handed to the backend
    together, so that a cluster plays the tables side by side (a tournament's seatings of
    one chunk each would otherwise run one at a time). Same arrays, same order.
    ``only``: per table, None or one bool per game (``Seating.only``): play just those.
    ``first_games``: per table, its own first game (a report's seatings each play their
    own deals), instead of ``first_game`` at every table. ``bans``: per table, its own
    ``banned`` array, instead of ``banned`` at every table."""
    chunk_size = validation.check_chunk_size(chunk_size)  # (a chunk is held in memory)
    validation.check_chunk_plan(games, chunk_size)
    resolved = [resolve(players, table, cards, rules) for table in tables]
    if not resolved:
        return
    card_tables = _tables(resolved[0][0])
    entrants = _entrants(field)
    wanted = list(only) if only is not None else [None] * len(resolved)
    firsts = list(first_games) if first_games is not None else [first_game] * len(resolved)
    masks = list(bans) if bans is not None else [banned] * len(resolved)
    seatings = [
        Seating(
            card_tables,
            seats,
            checked,
            seed,
            chunk_ranges(games, chunk_size, first),
            entrants,
            mask,
            subset,
        )  # fmt: skip
        for (_, seats, checked), subset, first, mask in zip(
            resolved, wanted, firsts, masks, strict=True
        )
    ]
    labels = [[p.name for p in seats] for _, seats, _ in resolved]
    with using_backend(backend, jobs, scheduler) as runner:
        for index, batch in runner.play_seatings(seatings, progress):
            yield index, batch, labels[index]


def simulate(
    games: int = 10_000,
    players: int = 4,
    strategies: Sequence[str | Player] | str = ("greedy",),
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    backend: BackendOption = "local",
    scheduler: str | None = None,
    progress: ProgressOption = False,
) -> pd.DataFrame:
    """Play ``games`` games on the fast engine; one row per game and seat (results.to_frame).

    ``backend="dask"`` plays the chunks on the Dask cluster at ``scheduler`` (or at
    ``$DASK_SCHEDULER_ADDRESS``); ``backend=client`` on an existing ``distributed.Client``'s
    cluster (left open). The rows are the same as a local run's.
    ``progress=True`` shows a bar (``tqdm.auto``: a widget in Jupyter, stderr elsewhere)
    that moves within chunks; a callable is told the games played since its last call
    (they add up to ``games``); off by default.
    Inputs are held to the CLI's limits (validation.InputError, a ValueError, in one
    line): 2 to 4 players, 1 to 10**10 games, seeds 0 to 2**64 - 1; ``rules`` may be a
    ``Rules`` record or a dict such as ``{"days": 4}``. ``frame.attrs["provenance"]``
    records the run and its card set, as a results file does: ``build_report(frame)``
    reports on that set."""
    games, seed, jobs, chunk_size = _checked_run(games, seed, jobs, chunk_size)
    validation.check_progress(progress)
    card_set, seats, rules = resolve(players, strategies, cards, rules)
    plan_ids = [p.id for p in card_set.plans]
    labels = [p.name for p in seats]
    ranges = chunk_ranges(games, chunk_size)
    with progress_bar(progress, games) as on_games:
        frames = []
        chunks = play(backend, jobs, scheduler, card_set, seats, rules, seed, ranges, on_games)
        try:
            for batch in chunks:
                frames.append(to_frame(batch, labels, plan_ids))
                if len(frames) == 1:
                    _check_frame_memory(frames[0], len(batch.seat), games)
        finally:
            chunks.close()
    import pandas as pd

    frame = pd.concat(frames, ignore_index=True)
    # the run's identity and card set, as a file records them: build_report(frame) then
    # reports on the set played (a custom set's games were reported on the packaged one)
    frame.attrs["provenance"] = provenance(games, seats, seed, card_set, rules, chunk_size)
    return frame


def _check_frame_memory(first: pd.DataFrame, first_games: int, games: int) -> None:
    """Refuse, after the first chunk, a run whose rows cannot be held: 10**9 games (about
    590 GiB of rows) played on for ten minutes toward the kill, every game then lost;
    compare, sweep and tune refuse such runs before their games. The rows are held twice
    at the end (the chunks' frames and the frame joined from them)."""
    free = validation.free_memory()
    if free is None or first_games <= 0:
        return
    need = 2 * int(first.memory_usage(deep=True).sum()) * games // first_games
    if need > free:
        raise validation.InputError(
            f"games: not enough memory for this run: {games:,} games' rows need about "
            f"{need / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB free here; use "
            "fewer games, or `sunset-sim simulate --out FILE`, which writes them as played"
        )


def play(
    backend: BackendOption,
    jobs: int | None,
    scheduler: str | None,
    cards: CardSet,
    seats: list[Player],
    rules: Rules,
    seed: int,
    ranges: list[tuple[int, int]],
    progress: Progress | None = None,
) -> Iterator[BatchArrays]:
    """The chunks ``ranges`` in game order on ``backend`` (a name, a ``distributed.Client``
    or one already open); ``progress(games)`` is told of games played as they are."""
    with using_backend(backend, jobs, scheduler) as runner:
        yield from runner.play(_tables(cards), seats, rules, seed, ranges, progress)


def _checked_run(games: object, seed: object, jobs: object, chunk_size: object) -> tuple:
    """The run's numbers held to the CLI's limits, as ``simulate`` holds them (a tester's
    simulate_to_dataset played 2.5 games, wrote a manifest of -5 that its own reader
    refused, and left a locked folder behind for a seed of -1)."""
    games = validation.check_games(games)
    chunk_size = validation.check_chunk_size(chunk_size)  # (a chunk is held in memory)
    validation.check_chunk_plan(games, chunk_size)
    return games, validation.check_seed(seed), validation.check_jobs(jobs), chunk_size


def simulate_to_file(
    path: Path | None,
    games: int,
    players: int,
    strategies: Sequence[str | Player],
    seed: int,
    cards: CardSet,
    rules: Rules,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
    stream: TextIO | None = None,
) -> Summary:
    """Stream a batch to Parquet or CSV (by extension) and return its summary.

    The file is written under a temporary name and renamed when complete, so an
    interrupted run never leaves a file that looks finished. It carries its provenance
    (card set, rules, strategies, seed, games, version: ``sunset_sim.provenance``). With
    ``stream`` (and no ``path``) the rows go there as CSV, one header then every chunk's
    rows, as they are played (``simulate --out -``: a pipe sees rows before the run ends)."""
    games, seed, jobs, chunk_size = _checked_run(games, seed, jobs, chunk_size)
    if path is not None:  # (a text path raised AttributeError; "" ValueError on Path("."))
        path = Path(validation.check_path(path, "path"))
        if not path.name or path.is_dir():  # (Path("") is ".": no file name to write)
            raise validation.InputError(f"path: {path} is a folder, not a results file")
    summary = Summary()
    cards, seats, rules = resolve(players, strategies, cards, rules)
    labels = [p.name for p in seats]
    plan_ids = [p.id for p in cards.plans]
    made = provenance(games, seats, seed, cards, rules, chunk_size) if path is not None else None
    if stream is not None:
        writer = _StreamWriter(stream)
    else:
        writer = _TableWriter(path, made) if path is not None else None
    ranges = chunk_ranges(games, chunk_size)
    try:
        for batch in play(backend, jobs, scheduler, cards, seats, rules, seed, ranges, on_chunk):
            summary.add(batch, labels)
            if writer is not None:
                writer.write(to_frame(batch, labels, plan_ids))
        if writer is not None:
            writer.close()
    except OutputTaken as error:  # the games are played: their summary is still told
        error.summary = summary
        raise
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return summary


def open_dataset(
    folder: str | os.PathLike,
    games: int,
    players: int,
    strategies: Sequence[str | Player],
    seed: int,
    cards: CardSet | str | os.PathLike | None,
    rules: Rules | None,
    chunk_size: int = DEFAULT_CHUNK,
    resume: bool = False,
    force: bool = False,
) -> DatasetStore:
    """Check and take over a dataset folder for this run (``run.dataset.DatasetStore.open``):
    a RunError in one line if it cannot be used, before any game is played."""
    games, seed, _, chunk_size = _checked_run(games, seed, None, chunk_size)
    folder = validation.check_path(folder, "folder")  # ("" wrote into the current folder)
    resume = validation.check_flag(resume, "resume")
    force = validation.check_flag(force, "force")
    cards, seats, rules = resolve(players, strategies, cards, rules)
    identity = run_identity(games, seats, seed, cards, rules, chunk_size)
    store = DatasetStore.open(folder, identity, resume=resume, force=force)
    store.cards_text = cards.source  # the manifest carries the card set (provenance.py)
    return store


def simulate_to_dataset(
    folder: str | os.PathLike | DatasetStore,
    games: int,
    players: int,
    strategies: Sequence[str | Player],
    seed: int,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    resume: bool = False,
    force: bool = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> Summary:
    """Play a batch into a Parquet dataset folder, one file per chunk plus a manifest
    (``run.dataset``), and return its summary. With ``resume``, the chunks an interrupted
    run completed are kept and only the rest are played; the summary is the same as an
    uninterrupted run's. ``folder`` may be a store from ``open_dataset`` (then ``resume``
    and ``force`` were given there); ``on_chunk`` is told the games already done first."""
    games, seed, jobs, chunk_size = _checked_run(games, seed, jobs, chunk_size)
    cards, seats, rules = resolve(players, strategies, cards, rules)
    if isinstance(folder, DatasetStore):
        store = folder
        if store.identity != run_identity(games, seats, seed, cards, rules, chunk_size):
            store.close()
            raise ValueError("the dataset store was opened for another run")
    else:
        store = open_dataset(
            folder, games, players, seats, seed, cards, rules, chunk_size, resume, force
        )
    labels = [p.name for p in seats]
    plan_ids = [p.id for p in cards.plans]
    with store:
        if on_chunk is not None and store.games_done:
            on_chunk(store.games_done)
        pending = store.pending()
        for batch in play(backend, jobs, scheduler, cards, seats, rules, seed, pending, on_chunk):
            count = len(batch.game)
            chunk = Summary()
            chunk.add(batch, labels)
            store.add_chunk(to_frame(batch, labels, plan_ids), batch.first_game, count, chunk)
        return store.finish()


PIPE_PIECE = 1 << 16  # characters per write to a stream: a pipe's buffer on Linux


class _StreamWriter:
    """CSV rows to an open text stream (stdout): the header once, then each chunk."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.header = True

    def write(self, frame: pd.DataFrame) -> None:
        """The chunk's rows as one text, written with Ctrl-C and SIGTERM held until it
        is out: an interrupt leaves the stream at the end of a chunk, never inside a
        game (pandas writing to the stream itself was cut wherever the signal came)."""
        text = frame.to_csv(index=False, header=self.header)
        with signals_held():
            # in pieces of a pipe's size: a reader that stops early (`| head`) is then
            # seen at the next piece (BrokenPipeError, exit 141). A whole chunk in one
            # write went into a pipe that closed under it without an error, and the run
            # ended with exit code 0 as if every row had been read
            for start in range(0, len(text), PIPE_PIECE):
                self.stream.write(text[start : start + PIPE_PIECE])
                self.stream.flush()
        self.header = False

    def close(self) -> None:
        self.stream.flush()

    def abort(self) -> None:
        return None


def _json(data: dict) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")


class _TableWriter:
    """Parquet (pyarrow, one row group per chunk) or CSV, to a temporary file renamed at the
    end. A lock file beside the output (``.NAME.lock``, held for the run) stops a second run
    writing the same file at once: it fails at the start, in one line, instead of two runs
    overwriting each other's rows. The temporary name is this run's own."""

    def __init__(self, path: Path, made: dict | None = None) -> None:
        import fcntl
        import secrets

        self.path = path
        self.made = made  # provenance: Parquet schema metadata, or the CSV's sidecar
        self.lock_path = path.with_name(f".{path.name}.lock")
        try:
            self.lock = open_lock(self.lock_path)  # held until close/abort
        except OSError as error:
            raise RunError(
                f"{path}: cannot write beside it ({self.lock_path.name}): {error.strerror or error}"
            ) from None
        try:
            fcntl.flock(self.lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.lock.close()
            raise RunError(
                f"{path}: another sunset-sim run is writing this file now; wait for it or "
                "choose another --out"
            ) from None
        remove_dead_temporaries(path, ".partial")  # a killed run's, now this one holds the lock
        self.temporary = path.with_name(
            f".{path.name}.{process_tag()}-{secrets.token_hex(4)}.partial"
        )
        at_forced_exit(self._forced_clean_up)
        self.parquet = path.suffix.lower() != ".csv"
        self.writer = None
        self.stream = None

    def write(self, frame: pd.DataFrame) -> None:
        try:
            self._write(frame)
        except OSError as error:  # a full disk, a removed folder: one line, nothing left
            self.abort()
            raise RunError(f"{self.path}: cannot write: {error.strerror or error}") from None

    def _write(self, frame: pd.DataFrame) -> None:
        if self.parquet:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.made is not None:
                metadata = {**(table.schema.metadata or {}), METADATA_KEY: _json(self.made)}
                table = table.replace_schema_metadata(metadata)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.temporary, table.schema, compression="zstd")
            self.writer.write_table(table)
        else:
            if self.stream is None:
                self.stream = open(self.temporary, "w", encoding="utf-8", newline="")  # noqa: SIM115
                frame.to_csv(self.stream, index=False)
            else:
                frame.to_csv(self.stream, index=False, header=False)

    def close(self) -> None:
        try:
            stop_if_signalled()  # (an interrupt Python dropped: the file before stays)
            for handle in (self.writer, self.stream):
                if handle is not None:
                    handle.close()
            sidecar = sidecar_path(self.path)
            if not self.parquet:  # the old sidecar goes first: a CSV killed between the
                # renames has no record (read as such), never another run's beside it
                check_still_free(self.path)  # (not beside another process's CSV)
                check_still_free(sidecar)
                sidecar.unlink(missing_ok=True)
            move_into_place(self.temporary, self.path)  # (a file made meanwhile: kept)
            if not self.parquet and self.made is not None:
                write_atomically(sidecar, _json(self.made).decode("utf-8") + "\n")
        except OSError as error:
            self.abort()
            taken = error.errno == errno.EEXIST  # (made meanwhile: check_still_free's)
            # the file made meanwhile (a CSV's sidecar); else the output, never the
            # temporary name os.replace gives
            where = (error.filename if taken else None) or self.path
            raise (OutputTaken if taken else RunError)(
                f"{where}: cannot write: {error.strerror or error}"
            ) from None
        self._unlock()

    def abort(self) -> None:
        for handle in (self.writer, self.stream):
            try:
                if handle is not None:
                    handle.close()
            except Exception:  # noqa: BLE001 - cleaning up after another error
                pass
        self.writer = self.stream = None
        self.temporary.unlink(missing_ok=True)
        self._unlock()

    def _forced_clean_up(self) -> None:
        """The files of a run still writing, stopped from another thread (cli_watchdog)."""
        if not self.lock.closed:
            self.temporary.unlink(missing_ok=True)
            self.lock_path.unlink(missing_ok=True)

    def _unlock(self) -> None:
        at_forced_exit(self._forced_clean_up, done=True)  # (a notebook's writers: not kept)
        if not self.lock.closed:
            self.lock_path.unlink(missing_ok=True)
            self.lock.close()
