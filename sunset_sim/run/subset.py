"""Some games of a chunk, not all: restricted play skips the deals its restriction cannot
touch (``analysis.experiments.Lab``: a commission never in the row leaves the restricted
seat's game exactly the base game's, so about half of every commission arm is known
without playing it).

Each game still depends only on (seed, game index), so a game played here is the same
game ``engine.batch.run_games`` plays at that index. The rows of the games left out stay
as ``engine.batch.allocate`` made them; the caller fills them in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numba
import numpy as np

from sunset_sim.cards.tables import CardTables
from sunset_sim.engine.batch import (
    BatchArrays,
    play_block,
    prepare_batch,
    thread_pool,
)
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player

STEP_SECONDS = 0.4  # progress is told at least this often (run.progress's step)


def runs(only: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each stretch of consecutive True entries of ``only``."""
    flags = np.concatenate([[False], np.asarray(only, dtype=bool), [False]])
    edges = np.flatnonzero(flags[1:] != flags[:-1])
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def play_only(
    tables: CardTables,
    seats: list[Player],
    rules: Rules,
    seed: int,
    first_game: int,
    only: np.ndarray,
    check_invariants: bool = False,
    field: Sequence[Player] = (),
    banned: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> BatchArrays:
    """Games first_game + i for every i where ``only[i]`` is True, one kernel call per
    stretch of consecutive ones, on one thread (a seating of a study plays on its own
    thread: ``LocalBackend.play_seatings``) or split over ``numba.get_num_threads()``
    threads by stretches. ``progress`` is told ``len(only)`` games in all (those left out
    count as done), in steps of about ``STEP_SECONDS``."""
    only = np.asarray(only, dtype=bool)
    arguments, out = prepare_batch(tables, seats, rules, first_game, len(only), field, banned)
    no_trace = np.zeros(1, dtype=np.int32)
    stretches = runs(only)
    threads = 1 if numba.config.DISABLE_JIT else max(1, numba.get_num_threads())

    def play(part: list[tuple[int, int]]) -> None:
        for start, stop in part:
            play_block(
                tables, seats, rules, seed, arguments, out, start, stop, no_trace,
                check_invariants,
            )  # fmt: skip

    if threads > 1 and len(stretches) > 1 and not callable(progress):
        # the kernel releases the GIL: the parts run on `threads` cores at once
        list(thread_pool(threads).map(play, _split(stretches, threads)))
        return out
    told, started = 0, time.perf_counter()
    for start, stop in stretches:
        play([(start, stop)])
        if callable(progress) and time.perf_counter() - started >= STEP_SECONDS:
            progress(stop - told)
            told, started = stop, time.perf_counter()
    if callable(progress) and told < len(only):
        progress(len(only) - told)
    return out


def _split(stretches: list[tuple[int, int]], parts: int) -> list[list[tuple[int, int]]]:
    """The stretches in ``parts`` consecutive groups of about equal games."""
    sizes = np.cumsum([stop - start for start, stop in stretches])
    bounds = np.searchsorted(sizes, sizes[-1] * np.arange(1, parts) / parts, side="right")
    groups = np.split(np.arange(len(stretches)), bounds)
    return [[stretches[i] for i in group] for group in groups if len(group)]


__all__ = ["play_only", "runs"]
