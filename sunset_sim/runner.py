"""Batches on the fast engine: chunked, parallel, streamed to tables or files.

Game g of a batch is always game index g under the root seed, whatever the chunk size or
number of jobs, so a result depends only on (seed, games, players, strategies, cards, rules).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numba
import pandas as pd

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import BatchArrays, run_games
from sunset_sim.results import Summary, to_frame
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player, make_player, seat_players

DEFAULT_CHUNK = 50_000


def resolve(
    players: int,
    strategies: Sequence[str | Player],
    cards: CardSet | str | os.PathLike | None,
    rules: Rules | None,
) -> tuple[CardSet, list[Player], Rules]:
    card_set = cards if isinstance(cards, CardSet) else load_cards(cards)
    if all(isinstance(s, str) for s in strategies):
        seats = seat_players(list(strategies), players)
    else:
        chosen = [s if isinstance(s, Player) else make_player(s) for s in strategies]
        seats = [chosen[seat % len(chosen)] for seat in range(players)]
    return card_set, seats, rules or Rules()


@contextmanager
def numba_threads(jobs: int | None) -> Iterator[int]:
    """Use ``jobs`` numba threads (default: all cores) inside the block."""
    previous = numba.get_num_threads()
    wanted = (
        numba.config.NUMBA_NUM_THREADS if not jobs else min(jobs, numba.config.NUMBA_NUM_THREADS)
    )
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)


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
) -> Iterator[tuple[BatchArrays, list[str]]]:
    """Yield (raw arrays, seat labels) chunk by chunk: memory stays flat for any ``games``."""
    card_set, seats, rules = resolve(players, strategies, cards, rules)
    tables = build_tables(card_set)
    labels = [p.name for p in seats]
    with numba_threads(jobs):
        for start in range(first_game, first_game + games, chunk_size):
            count = min(chunk_size, first_game + games - start)
            yield run_games(tables, seats, rules, seed, start, count), labels


def simulate(
    games: int = 1000,
    players: int = 4,
    strategies: Sequence[str | Player] = ("greedy",),
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
) -> pd.DataFrame:
    """Play ``games`` games on the fast engine; one row per game and seat (results.to_frame)."""
    card_set = cards if isinstance(cards, CardSet) else load_cards(cards)
    plan_ids = [p.id for p in card_set.plans]
    frames = [
        to_frame(batch, labels, plan_ids)
        for batch, labels in iter_batches(
            games, players, strategies, seed, card_set, rules, jobs, chunk_size
        )
    ]
    return pd.concat(frames, ignore_index=True)


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
) -> Summary:
    """Stream a batch to Parquet or CSV (by extension) and return its summary.

    The file is written under a temporary name and renamed when complete, so an
    interrupted run never leaves a file that looks finished."""
    summary = Summary()
    plan_ids = [p.id for p in cards.plans]
    writer = _TableWriter(path) if path is not None else None
    try:
        for batch, labels in iter_batches(
            games, players, strategies, seed, cards, rules, jobs, chunk_size
        ):
            summary.add(batch, labels)
            if writer is not None:
                writer.write(to_frame(batch, labels, plan_ids))
            if on_chunk is not None:
                on_chunk(len(batch.game))
        if writer is not None:
            writer.close()
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return summary


class _TableWriter:
    """Parquet (pyarrow, one row group per chunk) or CSV, to a temporary file renamed at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temporary = path.with_name(f".{path.name}.partial")
        self.parquet = path.suffix.lower() != ".csv"
        self.writer = None
        self.stream = None

    def write(self, frame: pd.DataFrame) -> None:
        if self.parquet:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
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
        for handle in (self.writer, self.stream):
            if handle is not None:
                handle.close()
        os.replace(self.temporary, self.path)

    def abort(self) -> None:
        for handle in (self.writer, self.stream):
            try:
                if handle is not None:
                    handle.close()
            except Exception:  # noqa: BLE001 - cleaning up after another error
                pass
        self.temporary.unlink(missing_ok=True)
