"""Progress within a chunk (run/progress.py): the bar moves while a chunk plays, the split
into sub-ranges changes no row, and the API's ``progress=`` option works."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sunset_sim
from sunset_sim.run import progress as progress_module
from sunset_sim.run.progress import combine, play_in_steps, progress_bar

LINEUP = ["greedy", "balanced", "early-bird"]


@pytest.fixture
def tiny_steps(monkeypatch):
    """Sub-ranges of a few games, so a small batch is split many times."""
    monkeypatch.setattr(progress_module, "FIRST_STEP", 7)
    monkeypatch.setattr(progress_module, "MIN_STEP", 3)
    monkeypatch.setattr(progress_module, "STEP_SECONDS", 1e-6)


def test_simulate_with_progress_gives_the_same_frame(tiny_steps):
    told: list[int] = []
    plain = sunset_sim.simulate(games=120, players=3, strategies=LINEUP, seed=5, chunk_size=50)
    stepped = sunset_sim.simulate(
        games=120, players=3, strategies=LINEUP, seed=5, chunk_size=50, progress=told.append
    )
    pd.testing.assert_frame_equal(plain, stepped)
    assert sum(told) == 120
    # progress within each 50-game chunk, not once per chunk
    assert len(told) > 3 and max(told) < 50


def test_restricted_play_in_steps_matches_one_call(tables, tiny_steps):
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import make_player

    seats = [make_player(s) for s in LINEUP]
    width = 1 + tables.plan_wake.shape[0] + tables.land_icons.shape[0] + tables.comm_fame.shape[0]
    banned = np.zeros((3, 3, width), dtype=np.uint8)
    banned[1, 0, 0] = banned[1, 0, 1] = 1  # deal g uses mask g % 3: keyed by the game index
    whole = run_games(tables, seats, Rules(), 11, 1000, 40, banned=banned)
    told: list[int] = []
    parts = play_in_steps(tables, seats, Rules(), 11, 1000, 40, told.append, banned=banned)
    assert sum(told) == 40 and len(told) > 1
    for name, array in whole.arrays().items():
        np.testing.assert_array_equal(array, getattr(parts, name), err_msg=name)
    assert parts.first_game == whole.first_game


@pytest.mark.parametrize("threads", [1, 2])
def test_only_some_games_are_the_same_games(tables, monkeypatch, threads):
    """``only`` plays just the games asked for, each the game run_games plays at its
    index (restricted too), on one thread or split over two; the others stay as
    allocated, and progress counts the whole chunk."""
    import numba

    from sunset_sim.engine.batch import allocate, run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.run import subset
    from sunset_sim.strategy import make_player

    monkeypatch.setattr(progress_module, "STEP_SECONDS", 0.0)  # pieces of 4 games, then of 1
    monkeypatch.setattr(subset, "PIECE_GAMES", 4)
    seats = [make_player(s) for s in LINEUP]
    width = 1 + tables.plan_wake.shape[0] + tables.land_icons.shape[0] + tables.comm_fame.shape[0]
    banned = np.zeros((3, 3, width), dtype=np.uint8)
    banned[1, 0, 0] = banned[1, 0, 1] = 1
    only = np.random.default_rng(3).random(50) < 0.5
    only[:2] = only[-1] = True  # stretches at both ends
    whole = run_games(tables, seats, Rules(), 11, 500, 50, banned=banned)
    empty = allocate(50, 3, Rules().days, tables, 500)
    told: list[int] = []
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        some = play_in_steps(
            tables, seats, Rules(), 11, 500, 50, None if threads > 1 else told.append,
            banned=banned, only=only,
        )  # fmt: skip
    finally:
        numba.set_num_threads(previous)
    for name, array in whole.arrays().items():
        np.testing.assert_array_equal(getattr(some, name)[only], array[only], err_msg=name)
        np.testing.assert_array_equal(
            getattr(some, name)[~only], getattr(empty, name)[~only], err_msg=name
        )
    if threads == 1:  # a piece of 4 games, then one per game (the last game is played)
        assert sum(told) == 50 and min(told) > 0 and len(told) == only.sum() - 3
    with pytest.raises(ValueError, match="only: 3 entries for 50 games"):
        play_in_steps(tables, seats, Rules(), 11, 500, 50, only=only[:3])


def test_tournament_reports_progress_within_chunks(tiny_steps):
    told: list[int] = []
    result = sunset_sim.tournament(
        ["greedy", "random"], players=2, games=40, chunk_size=40, on_chunk=told.append
    )
    assert sum(told) == 2 * 40  # two seatings
    assert max(told) < 40
    assert int(result.standings["n"].sum()) == 2 * 2 * 40


def test_progress_true_draws_a_tqdm_bar_on_stderr(capsys):
    sunset_sim.simulate(games=30, players=2, strategies=["greedy", "random"], progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    # whole games below a thousand ("30.0/30.0" and "2.00/200" before: tqdm's unit scale)
    assert "100%" in captured.err and "30/30" in captured.err and ".0/30" not in captured.err


def test_progress_is_off_by_default(capsys):
    sunset_sim.simulate(games=10, players=2, strategies=["greedy", "random"])
    assert capsys.readouterr().err == ""


def test_progress_option_rejects_other_values():
    with pytest.raises(ValueError, match="progress"), progress_bar("yes", 10):
        pass


def test_combine_tells_every_callback():
    a: list[int] = []
    b: list[int] = []
    assert combine(None, False) is None
    assert combine(a.append) == a.append
    combine(a.append, None, b.append)(3)
    assert a == [3] and b == [3]


def test_cli_bar_moves_within_a_chunk(tiny_steps, monkeypatch, tmp_path):
    """The command line's bar is told of games within a chunk, not once per chunk."""
    from contextlib import contextmanager

    from conftest import cli, ok

    import sunset_sim.cli as cli_module

    told: list[int] = []

    class Bar:
        def update(self, games: int) -> None:
            told.append(games)

    @contextmanager
    def recording(total, stream):
        yield Bar()

    monkeypatch.setattr(cli_module, "games_progress", recording)
    out = tmp_path / "rows.parquet"
    ok(cli("simulate", "--games", "80", "--players", "2", "--chunk-size", "80", "--out", out))
    assert sum(told) == 80 and len(told) > 2


def test_a_slow_strategy_is_played_a_game_or_two_at_a_time():
    """A signal is seen between kernel calls: a plug-in taking seconds a game was stopped
    only after the first 64 games (minutes). Sub-ranges start at 2 games, fall to 1 when a
    game takes longer than a step, and grow at most 4-fold at the built-ins' rates."""
    assert progress_module.FIRST_STEP <= 2
    assert progress_module.next_step(2, 4.0) == 1  # 2 s a game
    assert progress_module.next_step(1, 2.0) == 1
    assert progress_module.next_step(2, 1e-4) == 8  # fast: 4-fold
    assert progress_module.next_step(1000, progress_module.STEP_SECONDS) == 1000
    assert progress_module.next_step(1000, 2 * progress_module.STEP_SECONDS) == 500


def test_without_a_progress_callback_the_games_are_played_in_steps_too(tables, monkeypatch):
    """Ctrl-C in Python (no progress callback) stopped the caller, but the threads of the
    one kernel call for the whole chunk played on: a plug-in taking a second a game kept
    them busy, and the next simulate waited 95 s for them. The chunk is played in
    sub-ranges whatever the callback, the same rows as one call."""
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import make_player

    seats = [make_player(s) for s in LINEUP]
    whole = run_games(tables, seats, Rules(), 3, 500, 60)
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(args[5])  # the sub-range's games
        return run_games(*args, **kwargs)

    monkeypatch.setattr(progress_module, "run_games", counted)
    parts = play_in_steps(tables, seats, Rules(), 3, 500, 60)
    assert len(calls) > 1 and calls[0] == progress_module.FIRST_STEP and sum(calls) == 60
    for name, array in whole.arrays().items():
        np.testing.assert_array_equal(array, getattr(parts, name), err_msg=name)
