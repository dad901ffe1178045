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
from sunset_sim.run.progress import FIRST_STEP, next_step
from sunset_sim.strategy import Player

PIECE_GAMES = FIRST_STEP  # the first piece's games when progress is told


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
    """Games first_game + i for every i where ``only[i]`` is True, on one thread (a
    seating of a study plays on its own thread: ``LocalBackend.play_seatings``) or split
    over ``numba.get_num_threads()`` threads. Each thread's games are one kernel call
    (with ``progress``, one per piece of about ``STEP_SECONDS``); ``progress`` is told
    ``len(only)`` games in all (those left out count as done)."""
    only = np.asarray(only, dtype=bool)
    arguments, out = prepare_batch(tables, seats, rules, first_game, len(only), field, banned)
    no_trace = np.zeros(1, dtype=np.int32)
    rows = np.flatnonzero(only).astype(np.int64)
    threads = 1 if numba.config.DISABLE_JIT else max(1, numba.get_num_threads())

    def play(part: np.ndarray) -> None:
        play_block(tables, seats, rules, seed, arguments, out, part, no_trace, check_invariants)

    if not callable(progress):
        if threads > 1 and len(rows) > 1:
            # the kernel releases the GIL: the parts run on `threads` cores at once
            list(thread_pool(threads).map(play, np.array_split(rows, threads)))
        elif len(rows):
            play(rows)
        return out
    done, covered, piece = 0, 0, PIECE_GAMES  # rows played; positions of `only` told
    while done < len(rows):
        started = time.perf_counter()
        part = rows[done : done + piece]
        play(part)
        done += len(part)
        progress(int(part[-1]) + 1 - covered)
        covered = int(part[-1]) + 1
        piece = next_step(len(part), time.perf_counter() - started)
    if covered < len(only):
        progress(len(only) - covered)
    return out


__all__ = ["play_only"]
