"""Confidence intervals and tests shared by the analysis modules (report, compare, sweep).

Stable API (every interval is a two-sided 95% interval unless ``z`` says otherwise):

- ``mean_ci(values) -> (mean, lo, hi, n)``: mean with a normal-approximation CI. Use it
  for fractional win shares (1/k per k-way tie), fame, margins.
- ``mean_ci_sums(n, total, squares) -> (mean, lo, hi)``: the same from count, sum and sum
  of squares; accepts NumPy arrays (vectorised over groups).
- ``proportion_ci(k, n) -> (p, lo, hi)``: Wilson score interval for k successes in n
  trials; accepts arrays. ``k`` may be fractional: a win share (1/k per k-way tie) summed
  over n games is a rate in [0, 1] whose variance is at most p(1 - p), so the Wilson
  interval covers it (slightly wide with many ties) and, unlike a normal interval, is
  not zero-width at 0 or 1. Every rate the package reports uses it.
- ``rate_ci_sums(n, total, squares) -> (p, lo, hi)``: the same Wilson interval for a rate
  given as count and sum (``squares`` is accepted and unused, so it replaces
  ``mean_ci_sums`` where the values are shares in [0, 1]).
- ``deal_rate_ci(per_deal, per_deal_games) -> (p, lo, hi)``: a rate measured as one mean
  per deal over ``per_deal_games`` games (seat rotations, several seats): the Wilson
  interval at the deals' effective number of trials, p(1 - p) / (variance of a deal's
  mean), between the deals and all their games. Wilson over the deals alone treated each
  deal's mean of 4 games as one trial: about twice too wide.
- ``cluster_rate_ci(successes, trials) -> (p, lo, hi)``: a rate pooled over clusters
  (deals) given per cluster: the Wilson interval at the effective number of trials,
  p(1 - p) / (the ratio estimate's variance over clusters), at most all the trials.
- ``cluster_mean_ci(totals, counts) -> (mean, lo, hi)``: a mean pooled over clusters
  (deals) given per cluster, with the ratio estimate's variance over the clusters.
- ``ci_columns(measure, value, lo, hi) -> dict``: the one naming scheme of every table,
  frame and file: ``measure``, ``measure_ci_low``, ``measure_ci_high``.
- ``diff_ci(a_values, b_values) -> (diff, lo, hi, p_value)``: difference of means a - b
  (Welch standard error, normal approximation) and the two-sided z-test p-value.
  Differences of rates keep this normal interval, cut at -1 and 1
  (``rate_difference_bounds``). ``compare``'s paired differences over deals take
  Student's t instead (``t_critical``, ``t_test_p``; ``whatif.paired_diff``): with the
  normal's, an A/A comparison on 20 deals marked 9% of seeds.
- ``diff_ci_sums(na, ta, qa, nb, tb, qb) -> (diff, lo, hi, p_value)``: the same from
  sums; accepts arrays.
- ``stratified_diff_sums(na, ta, qa, nb, tb, qb) -> (diff, lo, hi, p_value, n_a, n_b)``:
  a difference of means a - b computed within each stratum (last axis) and pooled with
  Mantel-Haenszel weights ``na * nb / (na + nb)``; CI from the pooled variance.
- ``z_test_p(diff, se) -> p``: two-sided p-value of a normal z statistic;
  ``t_test_p(t, df)`` and ``t_critical(df)`` Student's t's, and ``t_mean_ci(values)`` a
  mean's interval and p-value by them.
- ``balance(win_share_by_seat) -> float``: Ludii's Balance, 1 - (largest - smallest seat
  win rate); 1 is perfectly fair.
- ``balance_ci(shares) -> (balance, lo, hi, n)``: Balance with a CI from a per-game
  ``(games, seats)`` array of win shares (simultaneous intervals for the seats' pairwise
  differences, from a normal approximation of the seat means); ``seat_gaps`` gives its
  bounds on the range of seat rates at any confidence (``compare``'s Balance difference).

Degenerate inputs never raise: an empty sample gives NaN everywhere; a sample of one
gives its value with a NaN interval; a constant sample gives a zero-width interval.
"""

from __future__ import annotations

import functools
import math

import numpy as np

# a group of fewer observations is marked (the report's tables, a tournament's by-seat and
# by-turn-position win shares) and never ranked or reported as a finding
MIN_SAMPLES = 30
TOO_FEW = "too few samples"

Z95 = 1.959963984540054
# Fewer deals than this give no verdict ("significant", "beats"): the intervals assume
# many (two deals gave p = 2.6e-55 and zero-width intervals marked significant; compare
# and tune take Student's t, 7% wider than the normal at 20 deals)
MIN_VERDICT_DEALS = 20
# measures never below 0 (fame, R-END-2): ci_columns cuts their normal intervals at 0
NEVER_NEGATIVE = frozenset({"mean_fame"})
CI_LOW = "_ci_low"  # suffixes of an interval's columns: win_share, win_share_ci_low, ...
CI_HIGH = "_ci_high"

_ERFC = np.frompyfunc(math.erfc, 1, 1)

__all__ = [
    "CI_HIGH",
    "CI_LOW",
    "Z95",
    "balance",
    "balance_ci",
    "seat_gaps",
    "ci_columns",
    "cluster_mean_ci",
    "cluster_rate_ci",
    "deal_rate_ci",
    "diff_ci",
    "diff_ci_sums",
    "mean_ci",
    "mean_ci_sums",
    "proportion_ci",
    "rate_ci_sums",
    "carried_weights",
    "rate_difference_bounds",
    "rate_floor_bounds",
    "stratified_diff_sums",
    "stratum_weights",
    "t_critical",
    "t_mean_ci",
    "t_test_p",
    "z_test_p",
]


def _scalar(value):
    """A 0-d array or NumPy scalar as a Python float; arrays unchanged."""
    array = np.asarray(value)
    return float(array) if array.ndim == 0 else array


def mean_ci_sums(n, total, squares, z: float = Z95):
    """Mean and its CI from count, sum and sum of squares (vectorised; NaN where n == 0).

    Returns ``(mean, lo, hi)``; the interval is NaN where n < 2."""
    n = np.asarray(n, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    squares = np.asarray(squares, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / n, np.nan)
        variance = np.maximum(squares / n - mean * mean, 0.0) * n / (n - 1)
        half = np.where(n > 1, z * np.sqrt(variance / n), np.nan)
    return _scalar(mean), _scalar(mean - half), _scalar(mean + half)


def mean_ci(values, z: float = Z95) -> tuple[float, float, float, int]:
    """Mean of ``values`` with its normal-approximation CI: ``(mean, lo, hi, n)``."""
    array = np.asarray(values, dtype=np.float64).ravel()
    n = array.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(array.mean())
    if n == 1:
        return mean, math.nan, math.nan, 1
    half = z * float(array.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half, n


def proportion_ci(k, n, z: float = Z95):
    """Wilson score interval: ``(p, lo, hi)`` for k successes in n trials (vectorised)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, np.nan)
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        # the interval always holds p; min/max only guard against rounding at p = 0 or 1
        lo = np.where(n > 0, np.clip(np.minimum(centre - half, p), 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(np.maximum(centre + half, p), 0.0, 1.0), np.nan)
    return _scalar(p), _scalar(lo), _scalar(hi)


def rate_ci_sums(n, total, squares=None, z: float = Z95):
    """A rate's Wilson interval from count and sum: ``(p, lo, hi)`` (vectorised).

    For shares in [0, 1] (a win share gives 1/k per k-way tie): the interval stays inside
    [0, 1] and has nonzero width at 0 and 1, where a normal interval collapses to a point
    ("0.000 (0.000 to 0.000)" for a strategy that never wins). ``squares`` is ignored."""
    return proportion_ci(total, n, z)


def deal_rate_ci(per_deal, per_deal_games: float, z: float = Z95):
    """A rate from one mean per deal, each over ``per_deal_games`` games (see the module
    docstring): ``(p, lo, hi)``; never narrower than the games taken as independent, nor
    wider than the deals taken as single trials."""
    values = np.asarray(per_deal, dtype=np.float64).ravel()
    games = max(float(per_deal_games), 1.0)
    return cluster_rate_ci(values * games, np.full(values.size, games), z, least=values.size)


def _ratio_estimate(totals, counts) -> tuple[float, float, float, int]:
    """sum(totals) / sum(counts) over clusters, with the ratio estimate's variance over
    them (0 for fewer than two): ``(ratio, variance, sum(counts), clusters)``."""
    totals = np.asarray(totals, dtype=np.float64).ravel()
    counts = np.asarray(counts, dtype=np.float64).ravel()
    n = float(counts.sum())
    clusters = int((counts > 0).sum())
    if n <= 0:
        return math.nan, math.nan, n, clusters
    ratio = float(totals.sum()) / n
    variance = 0.0
    if clusters > 1:
        residual = totals - ratio * counts
        variance = clusters / (clusters - 1) * float((residual**2).sum()) / n**2
    return ratio, variance, n, clusters


def cluster_mean_ci(totals, counts, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of sum(totals) / sum(counts), given per cluster (a deal: its
    seatings share the cards, so its games are not independent): Student's t interval
    (clusters - 1 degrees of freedom) with the ratio estimate's variance over the
    clusters. (The normal's covered a tournament's mean fame 84.6% of the time on 4
    deals, 91.9% on 10.)"""
    mean, variance, n, clusters = _ratio_estimate(totals, counts)
    if n <= 0 or clusters < 2:
        return mean, math.nan, math.nan
    half = (t_critical(clusters - 1) if z == Z95 else z) * math.sqrt(variance)
    return mean, mean - half, mean + half


def cluster_rate_ci(
    successes, trials, z: float = Z95, least: float = 1.0, most: float | None = None
):
    """``(p, lo, hi)`` of sum(successes) / sum(trials), given per cluster (a deal: its
    games share the cards, so they are not independent trials): Wilson at the effective
    number of trials p(1 - p) / var(p), var(p) the ratio estimate's variance over the
    clusters, between ``least`` and all the trials (all of them when the clusters do not
    vary, as at p = 0 or 1: then at most ``most``, the games, where a game counts several
    trials: a head-to-head's 4 seat pairs a game of two seats each read 1.00 (0.86 to
    1.00) from 6 games, Wilson at 24)."""
    p, variance, total, _ = _ratio_estimate(successes, trials)
    if total <= 0:
        return proportion_ci(0.0, 0, z)
    effective = total if most is None else min(total, max(float(most), min(least, total)))
    if variance > 0:
        effective = min(max(p * (1 - p) / variance, min(least, total)), total)
    return proportion_ci(p * effective, effective, z)


def outward(value: float, decimals: int, side: int) -> float:
    """An interval's end rounded to ``decimals`` away from its middle (``side`` -1: a lower
    end, down; +1: an upper end, up), so that the interval printed holds the one computed:
    0 wins in 3,000 games, an upper end of 0.128%, print "0.0 to 0.2", not "0.0 to 0.1"."""
    if not math.isfinite(value):
        return value
    unit = 10**decimals
    # (a hair inside first: 0.2 x 1000 is 200.00000000000003, not to be raised)
    step = math.ceil(value * unit - 1e-6) if side > 0 else math.floor(value * unit + 1e-6)
    return step / unit + 0.0  # (+ 0.0: no "-0.000")


def ends_text(lo: float, hi: float, decimals: int, scale: float = 1.0, sign: str = "") -> str:
    """``"lo to hi"``, each end times ``scale`` and rounded outward (``outward``); ``sign``
    "+" writes both signed."""
    low, high = outward(scale * lo, decimals, -1), outward(scale * hi, decimals, 1)
    return f"{low:{sign}.{decimals}f} to {high:{sign}.{decimals}f}"


def ci_columns(measure: str, value, lo, hi) -> dict:
    """``{measure: value, measure_ci_low: lo, measure_ci_high: hi}``: the one name scheme
    for an interval in every table, frame and file (``CI_LOW``/``CI_HIGH``). A measure
    that is never negative (``NEVER_NEGATIVE``) has its interval cut at 0, in every command
    alike (simulate's summary and the report once went below 0 where tournament and sweep
    did not)."""
    if measure in NEVER_NEGATIVE:
        lo = max(lo, 0.0) if np.ndim(lo) == 0 else np.maximum(lo, 0.0)  # (NaN stays NaN)
    return {measure: value, f"{measure}{CI_LOW}": lo, f"{measure}{CI_HIGH}": hi}


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified
    Lentz), for ``x < (a + 1) / (a + b + 2)``."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, 300):
        for step in (0, 1):
            if step == 0:
                term = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            else:
                term = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1.0 + term * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + term / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return value


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        + a * math.log(x) + b * math.log1p(-x)
    )  # fmt: skip
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_test_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom."""
    if math.isnan(t) or not df > 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    return _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


@functools.lru_cache(maxsize=1024)
def t_critical(df: float, confidence: float = 0.95) -> float:
    """Student's t quantile for a two-sided ``confidence`` interval (``df`` > 0), by
    bisection on ``t_test_p`` (t(19) = 2.0930 at 95%, the normal's 1.9600 as df grows)."""
    low, high = 0.0, 1e7
    for _ in range(200):
        middle = (low + high) / 2
        if t_test_p(middle, df) > 1.0 - confidence:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def t_mean_ci(values, z: float = Z95) -> tuple[float, float, float, float]:
    """Mean of ``values`` with Student's t interval and the two-sided p-value that it is 0
    (n - 1 degrees of freedom): ``(mean, lo, hi, p)``; NaN interval and p under two
    values. A zero spread gives p 0 for a mean that is not 0 and 1 for one that is, as
    ``z_test_p``. For means over few deals (compare's and tune's paired differences)."""
    array = np.asarray(values, dtype=np.float64).ravel()
    n = array.size
    if n < 2:
        return mean_ci(array, z)[:3] + (math.nan,)
    mean = float(array.mean())
    se = float(array.std(ddof=1)) / math.sqrt(n)
    half = t_critical(n - 1, math.erf(z / math.sqrt(2))) * se
    if math.isnan(se):
        p = math.nan
    elif se > 0:
        p = t_test_p(mean / se, n - 1)
    else:
        p = 0.0 if mean != 0 else 1.0
    return mean, mean - half, mean + half, p


def z_test_p(diff, se):
    """Two-sided p-value of ``diff / se`` under a standard normal (vectorised).

    A zero standard error gives p = 0 for a nonzero difference and 1 for none."""
    diff = np.asarray(diff, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(diff) / se
        z = np.where(se > 0, z, np.where(diff != 0, np.inf, 0.0))
    p = np.asarray(_ERFC(z / math.sqrt(2)), dtype=np.float64)
    p = np.where(np.isnan(diff) | np.isnan(se), np.nan, p)
    return _scalar(p)


def diff_ci_sums(na, ta, qa, nb, tb, qb, z: float = Z95, rate: bool = False):
    """Difference of two means (a - b) from their sums: ``(diff, lo, hi, p_value)``.

    Welch standard error, normal approximation; vectorised over groups. With ``rate``
    (values in [0, 1], a win share), a side whose values are all the same takes the rule
    of succession's variance, as in ``stratified_diff_sums``: 9 seats that all lost gave
    "+33.3 (33.0 to 33.6), p = 0", narrower than their own rate's interval."""
    na, ta, qa, nb, tb, qb = (np.asarray(v, dtype=np.float64) for v in (na, ta, qa, nb, tb, qb))
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = ta / na, tb / nb
        va = np.maximum(qa / na - ma * ma, 0.0) * na / (na - 1)
        vb = np.maximum(qb / nb - mb * mb, 0.0) * nb / (nb - 1)
        if rate:
            va = np.where(va <= 1e-12, _succession_variance(ta, na), va)
            vb = np.where(vb <= 1e-12, _succession_variance(tb, nb), vb)
        se = np.sqrt(va / na + vb / nb)
        ok = (na > 1) & (nb > 1)
        diff = np.where((na > 0) & (nb > 0), ma - mb, np.nan)
        se = np.where(ok, se, np.nan)
    p = z_test_p(diff, se)
    low, high = diff - z * se, diff + z * se
    if rate:
        low, high = rate_difference_bounds(low, high)
    return _scalar(diff), _scalar(low), _scalar(high), p


def rate_floor_bounds(
    values_a, values_b, lo: float, hi: float, mean: bool = False
) -> tuple[float, float]:
    """A rate difference's interval where every deal's difference is 0 while the two sides
    differ in what they play (0 wins of N against 0 of N; or the same games on every
    deal): the paired t had no spread to go on and said "0 (0 to 0)", as if the
    difference were known. There, N deals with no difference bound the share of deals
    where one appears by Wilson's interval for 0 of N, and such a deal moves a rate by at
    most 1: +-z^2 / (N + z^2), as the study's edits that changed no game are bounded.
    Other cases keep (lo, hi), one deal too (no interval from one). The caller leaves out
    an A/A check (the same games). ``mean``: a mean, not a rate, which such a deal moves
    by at most the largest value seen, at least a point (compare's fame rows; a tester's
    random at 6.25 fame on both sides of 20 deals read "0 (0 to 0), p = 1" where 4,000
    deals found +0.06)."""
    a = np.asarray(values_a, dtype=np.float64).ravel()
    b = np.asarray(values_b, dtype=np.float64).ravel()
    if a.size < 2 or a.size != b.size or not (a == b).all():
        return lo, hi
    _, _, reach = proportion_ci(0.0, a.size)
    most = max(float(np.abs(a).max()), 1.0) if mean else 1.0  # (a == b here)
    return -float(reach) * most, float(reach) * most


def rate_difference_bounds(low, high):
    """A difference of two rates lies in -1 .. 1: its normal interval cut there (a
    seat's "+50.2 pt (-10.0 to +110.3)" on few games). NaN stays NaN."""
    with np.errstate(invalid="ignore"):
        return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def stratum_weights(na, nb, min_n: float = 2) -> tuple[np.ndarray, np.ndarray]:
    """(used, weight) per stratum of a stratified difference: a stratum with fewer than
    ``min_n`` (at least two) observations on either side carries no weight, the others
    Mantel-Haenszel's ``na * nb / (na + nb)`` (``stratified_diff_sums``, and the report's
    intervals over games, ``report.clustered``)."""
    na, nb = np.asarray(na, dtype=np.float64), np.asarray(nb, dtype=np.float64)
    least = max(float(min_n), 2.0)
    used = (na >= least) & (nb >= least)
    with np.errstate(invalid="ignore", divide="ignore"):
        return used, np.where(used, na * nb / (na + nb), 0.0)


def stratified_diff_sums(
    na, ta, qa, nb, tb, qb, z: float = Z95, min_n: float = 2, rate: bool = False
):
    """A difference of means a - b taken within strata and pooled (vectorised).

    Each argument is an array whose last axis is the strata (for instance the strategies:
    "chosen by strategy s" vs "not chosen by strategy s"); leading axes are groups. The
    per-stratum differences are pooled with Mantel-Haenszel weights ``na * nb / (na + nb)``
    (the weights of a risk difference; largest for big, balanced strata), and the standard
    error is ``sqrt(sum w^2 (va/na + vb/nb)) / sum w``. A stratum with fewer than
    ``min_n`` (at least two) observations on either side carries no weight (a handful of
    observations can show a zero variance by chance); where no stratum has any weight,
    everything is NaN. With ``rate`` (values in [0, 1], a win share), a side whose
    values are all the same (no wins in 96 games) takes the variance of the rule of
    succession's rate, (t + 1) / (n + 2), instead of 0, which had made the pooled CI far
    too narrow (a table's 0.67 points (0.57 to 0.77) rested on 96 games without a
    win). Returns ``(diff, lo, hi, p_value, n_a, n_b)``, ``n_a``/``n_b`` the observations in
    the strata that carry weight."""
    na, ta, qa, nb, tb, qb = (np.asarray(v, dtype=np.float64) for v in (na, ta, qa, nb, tb, qb))
    used, w, ma, mb, va, vb = _strata(na, ta, qa, nb, tb, qb, min_n, rate)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = w.sum(axis=-1)
        diff = np.where(total > 0, (w * (ma - mb)).sum(axis=-1) / total, np.nan)
        variance = (w * w * np.where(used, va / na + vb / nb, 0.0)).sum(axis=-1)
        se = np.where(total > 0, np.sqrt(variance) / total, np.nan)
    p = z_test_p(diff, se)
    carried = w > 0  # (used, and informative)
    n_a = np.where(carried, na, 0.0).sum(axis=-1)
    n_b = np.where(carried, nb, 0.0).sum(axis=-1)
    low, high = diff - z * se, diff + z * se
    if rate:
        low, high = rate_difference_bounds(low, high)
    return (
        _scalar(diff),
        _scalar(low),
        _scalar(high),
        p,
        _scalar(n_a),
        _scalar(n_b),
    )


def carried_weights(na, ta, qa, nb, tb, qb, min_n: float = 2, rate: bool = False) -> np.ndarray:
    """Each stratum's weight in ``stratified_diff_sums`` (0 where it carries none): the
    strata an effect rests on (the report's ``n_smaller``)."""
    args = (np.asarray(v, dtype=np.float64) for v in (na, ta, qa, nb, tb, qb))
    return _strata(*args, min_n, rate)[1]


def _strata(na, ta, qa, nb, tb, qb, min_n, rate):
    """(used, weight, mean a, mean b, variance a, variance b) per stratum (arrays)."""
    used, w = stratum_weights(na, nb, min_n)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma = np.where(used, ta / na, 0.0)
        mb = np.where(used, tb / nb, 0.0)
        va = np.where(used, np.maximum(qa / na - ma * ma, 0.0) * na / (na - 1), 0.0)
        vb = np.where(used, np.maximum(qb / nb - mb * mb, 0.0) * nb / (nb - 1), 0.0)
        if rate:
            # a stratum in which the outcome never varies, the same on both sides (random
            # never wins, chosen or not), tells nothing of the effect: it carries no weight
            # (with its weight, its 0 pulled the effect toward 0 by random's share of the
            # seats, and its seats counted in n_smaller: 313 of a finding's 1,073), and
            # where no other stratum does, the effect is NaN (too few), not "+0.0 (-0.4
            # to +0.4)" from the rule of succession's variance alone
            still = (va <= 1e-12) & (vb <= 1e-12) & (ma == mb)
            va = np.where(used & (va <= 1e-12), _succession_variance(ta, na), va)
            vb = np.where(used & (vb <= 1e-12), _succession_variance(tb, nb), vb)
            w = np.where(still, 0.0, w)
    return used, w, ma, mb, va, vb


def _succession_variance(total, n):
    """The Bernoulli variance at the rule of succession's rate (total + 1) / (n + 2)."""
    rate = (total + 1.0) / (n + 2.0)
    return rate * (1.0 - rate)


def diff_ci(a_values, b_values, z: float = Z95) -> tuple[float, float, float, float]:
    """Difference of means a - b with its CI and the two-sided z-test p-value."""
    a = np.asarray(a_values, dtype=np.float64).ravel()
    b = np.asarray(b_values, dtype=np.float64).ravel()
    result = diff_ci_sums(a.size, a.sum(), (a * a).sum(), b.size, b.sum(), (b * b).sum(), z)
    return tuple(float(v) for v in result)  # type: ignore[return-value]


def balance(win_share_by_seat) -> float:
    """Ludii's Balance: 1 - (largest - smallest) of the seats' win rates (NaN if empty)."""
    rates = np.asarray(win_share_by_seat, dtype=np.float64).ravel()
    rates = rates[~np.isnan(rates)]
    if rates.size == 0:
        return math.nan
    return float(1.0 - (rates.max() - rates.min()))


def seat_gaps(shares, draws: int = 4000, seed: int = 0):
    """``(balance, gaps, n_games)`` from per-game win shares ``shares[g, s]``: ``gaps(c)``
    gives the (smallest, largest) range of the true seat rates that Tukey's simultaneous
    intervals for every pair of seats' difference allow at confidence c (``balance_ci``);
    None where there is no interval (fewer than 2 games or seats)."""
    array = np.asarray(shares, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0:
        return math.nan, None, 0
    n = array.shape[0]
    means = array.mean(axis=0)
    value = balance(means)
    if n < 2 or len(means) < 2:
        return value, None, n
    cov = np.atleast_2d(np.cov(array, rowvar=False)) / n
    first, second = np.triu_indices(len(means), 1)  # every pair of seats
    gap = np.abs(means[first] - means[second])

    def pair_errors(cov: np.ndarray) -> np.ndarray:
        variance = cov[first, first] + cov[second, second] - 2 * cov[first, second]
        return np.sqrt(np.clip(variance, 0.0, None))

    pair_se = pair_errors(cov)
    if not np.any(pair_se > 1e-12):
        # no seat's share varied (seat 1 won all 6 games; every deal's seatings shared
        # alike): "0.000 (0.000 to 0.000)" at any n. As Wilson's interval adds z**2 / 2
        # wins and losses to a rate's, z**2 / 2 games more, split among the seats (each
        # winning one alone), give the spread, on the scale of the rows: a multinomial
        # game at succession rates was ten times too wide for deals' averaged shares,
        # and one game more left the upper side at 3.1 / n where 0 of n allows 3.7 / n
        seats = len(means)
        rows = np.vstack([array, np.eye(seats)])
        weights = np.concatenate([np.ones(n), np.full(seats, Z95 * Z95 / 2 / seats)])
        cov = np.atleast_2d(np.cov(rows, rowvar=False, aweights=weights, ddof=0)) / n
        pair_se = pair_errors(cov)
    rng = np.random.default_rng(seed)
    # eigen-decomposition: the covariance is singular (shares sum to 1 per game)
    eigenvalues, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
    errors = rng.standard_normal((draws, len(means))) @ root.T
    scaled = np.abs(errors[:, first] - errors[:, second]) / np.where(pair_se > 0, pair_se, 1.0)
    largest = scaled.max(axis=1)

    def gaps(confidence: float) -> tuple[float, float]:
        critical = float(np.quantile(largest, confidence))
        widest = float(np.max(gap + critical * pair_se))
        return max(0.0, float(np.max(gap - critical * pair_se))), widest

    return value, gaps, n


def balance_ci(
    shares, draws: int = 4000, seed: int = 0, z: float = Z95
) -> tuple[float, float, float, int]:
    """Balance with a 95% CI from per-game win shares, ``shares[g, s]`` for seat s.

    The seat means are asymptotically normal with covariance Σ/n (Σ the per-game
    covariance of the seats' shares, which sum to 1 in a game). ``draws`` draws from that
    normal give the critical value c of the largest standardized error of a difference
    between two seats (Tukey's simultaneous intervals), so that every pair's interval
    d +- c SE holds at once with 95%; the range of the true seat rates (the largest pair
    difference) then lies between the largest lower end (at least 0) and the largest
    upper end, and the interval is 1 minus those (clipped to [0, 1]). It covers at least
    95% whatever the seats' rates: the reflected bootstrap of max - min it replaced
    covered a fair game's Balance of 1 only 84-88% of the time (max - min is not smooth
    where the seats are equal). Returns ``(balance, lo, hi, n_games)``."""
    value, gaps, n = seat_gaps(shares, draws, seed)
    if gaps is None:
        return value, math.nan, math.nan, n
    narrowest, widest = gaps(math.erf(z / math.sqrt(2)))
    lo, hi = 1.0 - widest, 1.0 - narrowest
    return value, float(np.clip(lo, 0.0, 1.0)), float(np.clip(hi, 0.0, 1.0)), n
