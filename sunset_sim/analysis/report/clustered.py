"""The report's comparisons of win share between two sides of a group (seat i against the
other seats, a card's painters against those who passed it, a goal's keeper against the
seats that saw it), with their standard errors
taken over games: the seats of a game share its win (their shares sum to 1), so a game's
rows on the two sides are not independent samples, and the intervals that took them as
such were 10-30% too narrow (over 39 seeds, seats' win effect spread 1.24-1.28 times the
stated, first-turn 1.30, commissions 1.15, landscapes 1.12; coverage 0.87-0.92).

The point estimates are unchanged (``_within``'s stratified difference, ``diff_ci_sums``'
raw one). The variance is the sum over games of the square of each game's summed
influence, the influence of a row on side a of stratum s being w_s (y - mean_as) / (n_as W)
(W the strata's total weight) and on side b minus the same with side b's mean and count:
the linearised (sandwich) variance with games as clusters. An interval is never made
narrower than the one taking the rows as independent (a side without a single win keeps
that interval's floor)."""

from __future__ import annotations

import numpy as np

from sunset_sim.analysis import stats
from sunset_sim.engine.jit import jit
from sunset_sim.strategy_tools import lowest_bit


@jit(_nrt=False)
def _game_squares(in_a, in_b, y, strata, players, coef_a, mean_a, coef_b, mean_b, sums, out):
    """out[c] += (game's summed influence on item c)^2 for every game (rows sorted by game,
    ``players`` rows each); ``sums`` is scratch of out's length."""
    n_items = out.shape[0]
    for start in range(0, y.shape[0] - players + 1, players):
        for c in range(n_items):
            sums[c] = 0.0
        for row in range(start, start + players):
            s = strata[row]
            if s < 0:
                continue
            value = y[row]
            for word in range(in_a.shape[1]):  # the set bits only (a row is on few sides)
                side_a = in_a[row, word]
                bits = side_a | in_b[row, word]
                while bits:
                    c = 64 * word + lowest_bit(bits)
                    on_a = (side_a >> np.uint64(c & 63)) & np.uint64(1)
                    bits &= bits - np.uint64(1)
                    if c >= n_items:
                        continue
                    if on_a:
                        sums[c] += coef_a[c, s] * (value - mean_a[c, s])
                    else:
                        sums[c] -= coef_b[c, s] * (value - mean_b[c, s])
        for c in range(n_items):
            out[c] += sums[c] * sums[c]


def over_games(
    result: tuple,
    a: np.ndarray,
    b: np.ndarray,
    in_a: np.ndarray,
    in_b: np.ndarray,
    data,
    stratified: bool = True,
    m: int = 3,
    min_n: float = 2,
    values: np.ndarray | None = None,
) -> tuple:
    """``result`` (diff, lo, hi, p, ...: ``_within``'s or ``diff_ci_sums``', one entry per
    item) with lo, hi and p from the standard error over games (module docstring).

    ``a``/``b``: per item, the n, sum and sum-of-squares columns (the first three of ``m``)
    of each side, split by strategy as ``bit_sums(..., groups=)`` gives them if
    ``stratified``, else pooled; ``in_a``/``in_b``: per row, bitmask words of the items
    whose side a / side b the row is on; ``data``: the report's rows (win share, strategy,
    players), sorted by game; ``values``: per row, the measure compared (win share unless
    given: fame, say, with a/b holding its sums)."""
    diff = np.atleast_1d(np.asarray(result[0], dtype=np.float64))
    n_items = diff.shape[0]
    k = data.k if stratified else 1
    a = np.asarray(a, dtype=np.float64).reshape(n_items, k, m)
    b = np.asarray(b, dtype=np.float64).reshape(n_items, k, m)
    na, ta, nb, tb = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    used, weight = stats.stratum_weights(na, nb, min_n)
    if stratified:  # the effect's own weights: a stratum whose win share never varies
        # carries none (stats._strata); with its weight in the total, the error over
        # games came out 0.85-0.96 of the right one
        rate = values is None
        weight = stats.carried_weights(na, ta, a[..., 2], nb, tb, b[..., 2], min_n, rate)
        used = used & (weight > 0)
    else:  # one stratum: the plain difference of means
        weight = used * 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        total = weight.sum(axis=-1, keepdims=True)
        coef_a = np.where(used, weight / (na * total), 0.0)
        coef_b = np.where(used, weight / (nb * total), 0.0)
        mean_a = np.where(used, ta / na, 0.0)
        mean_b = np.where(used, tb / nb, 0.0)
    strata = data.strategy if stratified else np.zeros(len(data.win), dtype=np.int64)
    squares = np.zeros(n_items)
    _game_squares(
        np.ascontiguousarray(in_a, dtype=np.uint64).reshape(len(data.win), -1),
        np.ascontiguousarray(in_b, dtype=np.uint64).reshape(len(data.win), -1),
        np.asarray(data.win if values is None else values, dtype=np.float64),
        np.asarray(strata, dtype=np.int64),
        data.players, coef_a, mean_a, coef_b, mean_b, np.zeros(n_items), squares,
    )  # fmt: skip
    games = len(data.win) // data.players
    se = np.sqrt(squares * games / max(games - 1, 1))
    lo = np.atleast_1d(np.asarray(result[1], dtype=np.float64))
    hi = np.atleast_1d(np.asarray(result[2], dtype=np.float64))
    # never narrower than the rows taken apart, and NaN where that is (a side of one row:
    # np.fmax dropped the NaN, and a zero-width interval with p = 0 read as certain)
    se = np.maximum(se, (hi - lo) / (2 * stats.Z95))
    se = np.where(np.isfinite(diff), se, np.nan)
    p = stats.z_test_p(diff, se)
    low, high = diff - stats.Z95 * se, diff + stats.Z95 * se
    if values is None:  # a difference of win shares
        low, high = stats.rate_difference_bounds(low, high)
    return (diff, low, high, p, *result[4:])


def side_words(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """For a code per row (a seat, a turn position; < 0: neither side), the bitmask words
    of side a (the row's own code) and side b (every other code) for ``over_games``."""
    codes = np.asarray(codes, dtype=np.int64)
    valid = codes >= 0
    own = np.where(valid, np.uint64(1) << np.maximum(codes, 0).astype(np.uint64), np.uint64(0))
    every = np.uint64((1 << n_codes) - 1)
    others = np.where(valid, every & ~own, np.uint64(0))
    return own[:, None], others[:, None]
