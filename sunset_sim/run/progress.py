"""Progress within a chunk, and progress bars that work in a terminal and in Jupyter.

A chunk (50,000 games by default) can take minutes with a slow strategy, so a bar that
moves once per chunk looks stuck. ``play_in_steps`` plays a chunk as several kernel calls
on consecutive sub-ranges, each sized to take about ``STEP_SECONDS``, and reports after
each; it returns the same ``BatchArrays`` as one call: every game depends only on (seed,
game index), and restricted play picks its mask by the game index too, so the split
changes no row (tests/test_progress.py compares the frames).

``progress_bar`` turns the API's ``progress=`` argument into a callback: ``False`` (the
default: a library call prints nothing unless asked), ``True`` (a ``tqdm.auto`` bar: a
widget in Jupyter, text on stderr elsewhere) or a callable told the number of games
each time some are played.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from sunset_sim.cards.tables import CardTables
from sunset_sim.engine.batch import BatchArrays, run_games
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player
from sunset_sim.validation import check_progress

Progress = Callable[[int], None]
ProgressOption = bool | Progress | None

STEP_SECONDS = 0.4  # a bar moves at least this often (well under the second asked for)
# games in the first sub-range, before the rate is known, and the fewest in any: a signal
# (Ctrl-C, SIGTERM) is seen between kernel calls, so a plug-in that takes seconds a game
# was stopped only after 64 of them (a minute and more; the kernel call's Python costs
# about 0.1 ms, so small first steps cost nothing at the built-ins' rates)
FIRST_STEP = 2
MIN_STEP = 1


def next_step(size: int, seconds: float) -> int:
    """The games of the next sub-range, after ``size`` took ``seconds``: about
    STEP_SECONDS, growing at most 4-fold (a short first call times poorly)."""
    return max(MIN_STEP, min(4 * size, int(size * STEP_SECONDS / max(seconds, 1e-6))))


def play_in_steps(
    tables: CardTables,
    seats: list[Player],
    rules: Rules,
    seed: int,
    first_game: int,
    count: int,
    progress: Progress | None = None,
    check_invariants: bool = False,
    field: Sequence[Player] = (),
    banned: np.ndarray | None = None,
    only: np.ndarray | None = None,
) -> BatchArrays:
    """Games first_game .. first_game + count - 1, as ``engine.batch.run_games`` plays
    them, in sub-ranges of about ``STEP_SECONDS`` each, calling ``progress(games)``
    after each one if given (same rows as a single call). Without a progress callback
    too: Ctrl-C in Python stops the caller between kernel calls, but the threads of the
    call under way play on, and with a plug-in taking a second a game a whole chunk kept
    them busy (the next call waited 95 s); a sub-range is a few seconds at most.
    ``only`` (bool, one per game): play just those games (``run.subset.play_only``; the
    other rows are left as allocated)."""
    if only is not None:
        from sunset_sim.run.subset import play_only

        if len(only) != count:
            raise ValueError(f"only: {len(only)} entries for {count} games")
        return play_only(
            tables, seats, rules, seed, first_game, only, check_invariants, field, banned,
            progress,
        )  # fmt: skip
    parts = []
    done = 0
    step = min(FIRST_STEP, count)
    while done < count:
        size = min(step, count - done)
        started = time.perf_counter()
        parts.append(
            run_games(
                tables, seats, rules, seed, first_game + done, size, check_invariants, field, banned
            )
        )
        done += size
        if callable(progress):
            progress(size)
        step = next_step(size, time.perf_counter() - started)
    return concatenate(parts)


def concatenate(parts: Sequence[BatchArrays]) -> BatchArrays:
    """Consecutive batches as one (the first one's ``first_game``)."""
    if len(parts) == 1:
        return parts[0]
    names = parts[0].arrays().keys()
    return BatchArrays(
        parts[0].first_game,
        **{name: np.concatenate([getattr(p, name) for p in parts]) for name in names},
    )


def combine(*callbacks: Progress | None) -> Progress | None:
    """One callback that tells each of ``callbacks`` (None when there are none)."""
    chosen = [c for c in callbacks if callable(c)]
    if len(chosen) < 2:
        return chosen[0] if chosen else None

    def tell(games: int) -> None:
        for callback in chosen:
            callback(games)

    return tell


@contextmanager
def progress_bar(
    progress: ProgressOption, total: int, label: str = "games"
) -> Iterator[Progress | None]:
    """The callback for an API call's ``progress=`` option over ``total`` games.

    ``True``: a ``tqdm.auto`` bar (Jupyter widget or stderr text), closed at the end of the
    block; a callable: itself; ``False``/``None``: no callback."""
    if progress is None or progress is False:
        yield None
        return
    if callable(progress):
        yield progress
        return
    check_progress(progress)  # not True either: an InputError naming progress
    from tqdm.std import tqdm as text_tqdm

    # Jupyter without ipywidgets: the text bar (shown as stderr), asked for at once
    # (tqdm.auto's widget, failing, also printed "IProgress not found. Please update
    # jupyter and ipywidgets."); looked up, not imported, so no IPython is loaded for it
    if importlib.util.find_spec("ipywidgets") is None:
        tqdm = text_tqdm
    else:
        from tqdm.auto import tqdm
    # (1.2M games, but whole counts below a thousand: tqdm's scale drew "2.00/200")
    scaled = total is None or total >= 1000
    settings = {"total": total, "desc": label, "unit": "game", "unit_scale": scaled}
    try:
        bar = tqdm(**settings, mininterval=0.5)
    except ImportError:  # a widget that still cannot be drawn: the text bar
        bar = text_tqdm(**settings, mininterval=0.5)
    with bar:
        yield bar.update


__all__ = ["Progress", "ProgressOption", "combine", "concatenate", "play_in_steps", "progress_bar"]
