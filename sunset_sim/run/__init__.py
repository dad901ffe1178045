"""Running batches at scale: where chunks are played (``backends``) and the resumable
Parquet dataset folder they are written to (``dataset``).

A chunk is a contiguous range of game indices; game g always depends only on (seed, g),
so the same games come out whatever the backend, the number of jobs or the chunk size.
``sunset_sim.runner`` is the API on top (``simulate``, ``simulate_to_file``,
``simulate_to_dataset``); see docs/cluster.md for running on a Dask cluster.
"""

from __future__ import annotations

import os

# where the scheduler is when --backend dask has no --scheduler (Dask's own variable)
SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"
# how to start a cluster, for the error that finds none
START_A_CLUSTER = (
    "start one with `dask scheduler`, and workers with `dask worker ADDRESS --nthreads 1`"
)


def scheduler_address(scheduler: str | None) -> str:
    """The Dask scheduler's address: ``scheduler``, else $DASK_SCHEDULER_ADDRESS ('' if
    neither is set)."""
    return scheduler or os.environ.get(SCHEDULER_VARIABLE, "").strip()


class RunError(Exception):
    """A run that cannot go ahead, in one line: a scheduler that cannot be reached, a
    missing optional dependency, a dataset folder that belongs to another run."""


class OutputTaken(RunError):
    """The output file was made by another process while the games played: it is left
    as it is, and the run's summary (``summary``, set where known) is still printed."""

    summary: object = None


def chunk_ranges(games: int, chunk_size: int, first_game: int = 0) -> list[tuple[int, int]]:
    """(first game, number of games) of each chunk, in game order."""
    if chunk_size < 1:
        raise ValueError(f"chunk size {chunk_size} is not positive")
    end = first_game + games
    return [(start, min(chunk_size, end - start)) for start in range(first_game, end, chunk_size)]


__all__ = ["RunError", "chunk_ranges"]
