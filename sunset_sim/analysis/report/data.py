"""The result rows reshaped once for every section (``_Data``), the column checks, and the
vectorised helpers the sections share: group and bit-matrix sums, within-strategy
effects, CI columns and "too few samples" marks."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.checks import (
    check_card_days,
    check_card_words,
    check_day_fame,
    check_plans_and_turns,
)
from sunset_sim.analysis.report.model import MIN_SAMPLES, TOO_FEW, ReportInputError
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.jit import jit
from sunset_sim.result_rows import DAY_PATTERNS, any_of

BASE_COLUMNS = ("game", "seat", "strategy", "fame", "win_share", "n_winners")
OPTIONAL_COLUMNS = (
    "fame_commissions",
    "fame_goals",
    "fame_paintings",
    "end_reason",
    "days_played",
)
# what each optional column feeds: a report from results without it says what is left out
OPTIONAL_USE = {
    "fame_commissions": "its row of 'where fame comes from' and the check of fame against its parts",
    "fame_goals": "its row of 'where fame comes from' and the check of fame against its parts",
    "fame_paintings": "its row of 'where fame comes from' and the check of fame against its parts",
    "end_reason": "the table of how games ended",
    "days_played": "the days played (and every game is taken to have played all its days)",
}
_WANTED = any_of(DAY_PATTERNS)  # the per-day and per-word columns, as results.py names them


def wanted_columns(available: Sequence[str]) -> list[str]:
    """The columns of a result file that the report reads (others are never loaded)."""
    keep = set(BASE_COLUMNS) | set(OPTIONAL_COLUMNS)
    return [c for c in available if c in keep or _WANTED.fullmatch(c)]


def check_columns(available: Sequence[str], source: str = "results") -> None:
    """ReportInputError naming the first missing required column, or a repeated one
    (pandas renamed a CSV's second ``fame_paintings`` to ``fame_paintings.1``, and the
    report read the goals' column as the paintings', exit 0)."""
    seen: set[str] = set()
    for name in available:
        if name in seen and name != "":  # (a spreadsheet's empty trailing columns: unread)
            raise ReportInputError(f"{source}: column {name!r} appears twice")
        seen.add(name)
    missing = [c for c in BASE_COLUMNS if c not in seen]
    if missing:
        raise ReportInputError(
            f"{source}: missing column {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            + ": not a sunset-sim results table"
        )


def _match(pattern: str, column: str) -> bool:
    regex = re.escape(pattern).replace(r"\*", r"\d+")
    return re.fullmatch(regex, column) is not None


# ---------------------------------------------------------------------------------------
# helpers


def _ci_columns(prefix: str, mean, lo, hi) -> dict:
    return stats.ci_columns(prefix, mean, lo, hi)


WITHIN_TOO_FEW = f"within-strategy effect: {TOO_FEW}"
WITHIN_NONE = "within-strategy effect: no strategy in both groups"
ANY_BOTH = "_n_smaller_any"  # n_smaller over every strategy on both sides (_within's 8th)


def _mark(
    table: pd.DataFrame,
    n_column: str | Sequence[str],
    min_samples: int,
    by: str | None,
    within: bool = True,
):
    """Add ``note`` (too few samples) and ``rank`` (by ``by`` descending, big groups only).
    A table with a within-strategy effect is also marked where its ``n_smaller`` is under
    ``min_samples``: with no strategy both taking and leaving a card often enough, the
    effect is empty, and the row says so, "within-strategy effect: too few samples" (a
    commission only random completed, and every feature type beside random's seats, had
    an empty effect and no note; a blanket "too few samples" then read as if its own n
    were); ``within=False`` for a table that notes its effect's own small samples."""
    columns = [n_column] if isinstance(n_column, str) else list(n_column)
    notes = np.full(len(table), "", dtype=object)
    small = np.zeros(len(table), dtype=bool)
    # a row small by a later count names it: P5 read "too few samples" beside 8,984
    # choices, its raw difference resting on the 16 seats that never chose it
    for column in reversed(columns):
        few = table[column].to_numpy() < min_samples
        named = TOO_FEW if column == columns[0] else f"{column[2:].replace('_', ' ')}: {TOO_FEW}"
        notes[few] = named
        small |= few
    if within and "n_smaller" in table and "n_smaller" not in columns:
        smaller = table["n_smaller"].to_numpy()
        few_within = ~small & (smaller < min_samples)
        # none at all: no strategy is on both sides (each seat held one strategy all run),
        # which no number of games mends; not where strategies are on both sides but each
        # under min_samples (n_smaller counts only those that carry weight: 150 games read
        # "no strategy in both groups" beside 22 and 12 completers of each)
        anywhere = table[ANY_BOTH].to_numpy() if ANY_BOTH in table else smaller
        notes[few_within] = np.where(anywhere[few_within] == 0, WITHIN_NONE, WITHIN_TOO_FEW)
        small |= few_within
    if ANY_BOTH in table:
        del table[ANY_BOTH]
    table["note"] = notes
    table.attrs["min_samples"] = min_samples  # (a plot greys its own small samples)
    if by is not None:
        values = table[by].where(~small)
        table["rank"] = values.rank(ascending=False, method="min").astype("Int64")
        table.attrs["rank_by"] = by  # (rank_big_groups ranks again by it)
    return table


def rank_big_groups(tables: dict[str, pd.DataFrame], min_group: int) -> None:
    """Rank again, in each table with a smaller group per effect (``n_smaller``), only the
    effects whose smaller group is at least ``min_group`` (issue 12: shown, never ranked;
    a 2-player report ranked first a plan card whose effect rested on 35 seats)."""
    for table in tables.values():
        by = table.attrs.get("rank_by")
        if by is None or "rank" not in table or "n_smaller" not in table:
            continue
        big = table["rank"].notna() & (table["n_smaller"].astype(float).fillna(-1) >= min_group)
        ranked = table[by].where(big).rank(ascending=False, method="min")
        table["rank"] = ranked.astype("Int64")


_SCALES = (1.0, 12.0, 144.0)  # win shares are multiples of 1/12 (1 to 4 winners), squares of 1/144
ALL_ONES = -2  # _whole_scale: every value is 1.0


def bit_sums(
    words: np.ndarray,
    values: np.ndarray,
    n_bits: int,
    groups: np.ndarray | None = None,
    n_groups: int = 1,
) -> np.ndarray:
    """``out[i, j]`` = sum of ``values[r, j]`` over rows r whose bit i is set.

    ``words[r, w]`` are uint64 bitmask words (bit i of word w is item 64*w + i). With
    ``groups`` (a code 0..n_groups-1 per row; others are left out), the sums are split by
    group: ``out[i, g * m + j]`` sums ``values[r, j]`` over group g's rows (m value columns).

    Per byte of the words, the rows' values are summed by (byte value, group) in one
    compiled pass (``_byte_sums``), and each bit's sum is the sum over the byte values that have
    it set. A column of whole multiples of 1/12 or 1/144 (counts, fame, win shares and
    their squares) is summed as whole numbers, exactly (every partial sum below 2**53),
    so its sums are the exact ones, correctly rounded; any other column is summed in
    float64 (a float32 matrix product did all of this before, about 10x slower and
    rounding win shares to about 1e-7)."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    if words.ndim == 1:
        words = words[:, None]
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    rows, m = values.shape
    k = n_groups if groups is not None else 1
    n_bytes = min(words.shape[1] * 8, -(-n_bits // 8))
    out = np.zeros((words.shape[1] * 64, k * m))
    if rows == 0 or n_bytes == 0:
        return out[:n_bits]
    codes = (
        np.zeros(0, np.int64) if groups is None else np.asarray(groups).astype(np.int64, copy=False)
    )
    found = np.array([_whole_scale_index(values[:, j]) for j in range(m)], dtype=np.int64)
    scales = np.array([1.0 if f < 0 else _SCALES[f] for f in found])
    sums = np.zeros((n_bytes, 256 * (k + 1), m))
    _byte_sums(words.view(np.uint8), codes, k, values, found, np.array(_SCALES), sums)
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    table = bits.T.astype(np.float64)  # (8 bits, 256 byte values)
    for byte in range(n_bytes):
        by_value = sums[byte, : 256 * k].reshape(k, 256, m).transpose(1, 0, 2).reshape(256, k * m)
        out[8 * byte : 8 * byte + 8] = table @ by_value
    return out[:n_bits] / np.tile(scales, k)


@jit(_nrt=False)
def _byte_sums(as_bytes, codes, k, values, found, scales, sums):
    """``sums[b, 256 * g + v, j]``: column j summed over group g's rows whose byte b is v
    (rows outside the groups in the spare g = k), as ``bit_sums`` scales it (``found[j]``:
    ALL_ONES counts, -1 as it is, else ``rint(value * scales[found[j]])``). One pass over
    the rows; each sum adds its rows in row order, so the sums are those of a
    ``np.bincount`` per byte and column, to the bit (that was bytes x columns passes, each
    with its own temporaries: most of ``bit_sums``' 2.4 s in a 1M-game report)."""
    n_bytes = sums.shape[0]
    grouped = codes.shape[0] > 0
    for row in range(as_bytes.shape[0]):
        group = 0
        if grouped:
            code = codes[row]
            group = code if code >= 0 and code < k else k
        for j in range(values.shape[1]):  # each value scaled once, then added per byte
            mode = found[j]
            value = values[row, j]
            if mode == ALL_ONES:
                value = 1.0
            elif mode >= 0:
                value = np.rint(value * scales[mode])
            for byte in range(n_bytes):
                sums[byte, 256 * group + as_bytes[row, byte], j] += value


def _whole_scale_index(column: np.ndarray) -> int:
    """The index in ``_SCALES`` of the first scale that makes every value a whole number
    small enough to sum exactly in float64, ALL_ONES for a column of ones, else -1."""
    return int(_whole_scale(column, np.array(_SCALES), 2.0**52 / max(len(column), 1)))


@jit(_nrt=False)
def _whole_scale(column, scales, limit):
    """ALL_ONES, or the index of the first scale s with |rint(v s)| <= limit and
    |v s - rint(v s)| <= 1e-9 s for every value v (NaN passes neither), or -1: one pass
    per scale tried, stopping at the first value that fails, not numpy's several whole
    passes with a temporary each (2.5 s of a 1M-game report's analysis)."""
    ones = True
    for value in column:
        if value != 1.0:
            ones = False
            break
    if ones:
        return ALL_ONES
    for index in range(scales.shape[0]):
        scale = scales[index]
        fits = True
        for value in column:
            scaled = value * scale
            whole = np.rint(scaled)
            if not (abs(whole) <= limit and abs(scaled - whole) <= 1e-9 * scale):
                fits = False
                break
        if fits:
            return index
    return -1


def _pool(sums: np.ndarray, m: int) -> np.ndarray:
    """Group-split sums (..., k * m) from ``bit_sums(..., groups=)`` summed over groups."""
    return sums.reshape(*sums.shape[:-1], -1, m).sum(axis=-2)


def _moments(values: np.ndarray) -> np.ndarray:
    """Value columns [1, v, v^2] for ``bit_sums``."""
    values = np.asarray(values, dtype=np.float64)
    return np.column_stack([np.ones_like(values), values, values * values])


def _group_sums(codes: np.ndarray, values: np.ndarray, n_groups: int) -> tuple:
    """(n, sum, sum of squares) of ``values`` per group code 0..n_groups-1 (others dropped)."""
    n = np.zeros(n_groups)
    total = np.zeros(n_groups)
    squares = np.zeros(n_groups)
    _group_sums_nb(np.asarray(codes), np.asarray(values, dtype=np.float64), n, total, squares)
    return n, total, squares


@jit(_nrt=False)
def _group_sums_nb(codes, values, n, total, squares):
    """One pass over the rows, each group's sums in row order: the same sums, to the bit,
    as a ``np.bincount`` per column (three passes and two temporaries, 1.5 s of a
    1M-game report's analysis)."""
    n_groups = n.shape[0]
    for row in range(codes.shape[0]):
        code = codes[row]
        if code < 0 or code >= n_groups:
            continue
        value = values[row]
        n[code] += 1.0
        total[code] += value
        squares[code] += value * value


def _mask_words(indices: Sequence[int], n_words: int) -> np.ndarray:
    mask = np.zeros(n_words, dtype=np.uint64)
    for i in indices:
        mask[i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return mask


def _days(frame: pd.DataFrame, prefix: str) -> list[int]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    return sorted(int(m.group(1)) for c in frame.columns if (m := pattern.fullmatch(c)))


def _bonferroni_z(m: int, alpha: float = 0.05) -> float:
    """The two-sided z threshold for family-wise level ``alpha`` over ``m`` tests."""
    target = alpha / m
    lo, hi = 0.0, 40.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > target:
            lo = mid
        else:
            hi = mid
    return hi


# ---------------------------------------------------------------------------------------
# the data, reshaped per game


@dataclass
class _Data:
    frame: pd.DataFrame
    cards: CardSet
    games: int
    players: int
    days: list[int]
    win: np.ndarray  # (rows,)
    fame: np.ndarray
    days_played: np.ndarray  # (rows,)
    strategy: np.ndarray  # (rows,) strategy code 0..k-1 (the strata of the within-strategy effects)
    strategies: list[str]  # the strategy of each code

    def per_game(self, values) -> np.ndarray:
        return np.asarray(values).reshape(self.games, self.players)

    @property
    def k(self) -> int:
        return len(self.strategies)

    def seats_fixed(self) -> bool:
        """Each seat held one strategy in every game, and there are several strategies:
        seat and strategy are then mixed (``groupby("seat")["strategy"].nunique()``, on
        the codes)."""
        seat = np.tile(np.arange(self.players), self.games)
        known = self.strategy >= 0
        pairs = np.unique(seat[known] * max(self.k, 1) + self.strategy[known])
        per_seat = np.bincount(pairs // max(self.k, 1), minlength=self.players)
        return bool((per_seat == 1).all() and self.k > 1)

    def strategy_sums(self, values: np.ndarray) -> np.ndarray:
        """(k, 3): n, sum and sum of squares of ``values`` per strategy."""
        return np.column_stack(_group_sums(self.strategy, values, self.k))


def _prepare(frame: pd.DataFrame, cards: CardSet) -> _Data:
    """The report's data from a results frame whose columns and rows ``build_report``
    checked (``check_columns``, ``check_rows``: whole games), sorted by game and seat."""
    if len(frame) == 0:
        raise ReportInputError("results: no rows")
    seat = frame["seat"].to_numpy()
    players = int(seat.max()) + 1  # whole games of seats 0 to players - 1: check_rows
    expected = np.tile(np.arange(players), len(frame) // players)
    game = frame["game"].to_numpy()
    ordered = (
        len(frame) % players == 0
        and np.array_equal(seat, expected)
        and bool((game[::players] == game[players - 1 :: players]).all())
    )
    if not ordered:
        frame = frame.sort_values(["game", "seat"], kind="stable", ignore_index=True)
    days = _days(frame, "plan_day") or _days(frame, "turn_day") or _days(frame, "fame_day")
    if "days_played" in frame:
        days_played = frame["days_played"].to_numpy().astype(np.int16)
    else:
        days_played = np.full(len(frame), max(days, default=0), dtype=np.int16)
    check_card_words(frame, cards, players)
    check_card_days(frame, cards, players)
    check_day_fame(frame, cards)
    check_plans_and_turns(frame, cards, players)
    codes, labels = strategy_codes(frame["strategy"])
    return _Data(
        frame=frame,
        cards=cards,
        games=len(frame) // players,
        players=players,
        days=days,
        win=frame["win_share"].to_numpy().astype(np.float64),
        fame=frame["fame"].to_numpy().astype(np.float64),
        days_played=days_played,
        strategy=codes.astype(np.int64),
        strategies=[str(label) for label in labels],
    )


def strategy_codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """``pd.factorize(column.astype(str), sort=False)`` as (int64 codes, labels): a code
    per row in order of first appearance, -1 where missing. A categorical column (the
    report's own games) is coded from its few categories, not from millions of strings."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        codes, labels = pd.factorize(column.astype(str), sort=False)
        return codes.astype(np.int64), [str(label) for label in labels]
    categories = column.cat.categories
    raw = column.cat.codes.to_numpy().astype(np.int64)
    used, first = np.unique(raw, return_index=True)
    keep = used >= 0
    used, first = used[keep], first[keep]
    lookup = np.full(len(categories) + 1, -1, dtype=np.int64)  # the last entry: missing
    labels: list[str] = []
    for code in used[np.argsort(first, kind="stable")]:  # in order of first appearance
        label = str(categories[code])
        if label not in labels:  # two categories with one text are one label, as factorize
            labels.append(label)
        lookup[code] = labels.index(label)
    return lookup[raw], labels


def _effect_columns(prefix: str, result) -> dict:
    """The stratified (within-strategy) effect columns from ``_within``, and ``n_smaller``:
    the size of the smaller group the effect rests on (summed over the strategies that
    carry weight), which a reader needs to judge it."""
    diff, lo, hi, p = result[:4]
    # a difference of win shares (a completer's effect read +91.3 to +101.0)
    lo, hi = stats.rate_difference_bounds(lo, hi)
    columns = {**_ci_columns(prefix, diff, lo, hi), f"{prefix}_p": p}
    if len(result) > 6:
        columns["n_smaller"] = int(result[6])
    if len(result) > 7:  # (read by _mark, then dropped)
        columns[ANY_BOTH] = int(result[7])
    return columns


def _within(a: np.ndarray, b: np.ndarray, m: int = 3, columns=(0, 1, 2), min_n: int = MIN_SAMPLES):
    """Within-strategy difference a - b, pooled over strategies (stratified_diff_sums),
    plus a 7th value: per group, the smaller side's observations summed over the strategies
    that carry weight (``n_smaller``).

    ``a``/``b`` are (..., k * m) sums split by strategy as ``bit_sums(..., groups=)`` gives
    them; ``columns`` name the count, sum and sum-of-squares columns among the m. A
    strategy with fewer than ``min_n`` observations on either side is left out."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a.reshape(*a.shape[:-1], -1, m)
    b = b.reshape(*b.shape[:-1], -1, m)
    n, t, q = columns
    result = stats.stratified_diff_sums(  # (every effect here is one of win share)
        a[..., n], a[..., t], a[..., q], b[..., n], b[..., t], b[..., q], min_n=min_n, rate=True
    )
    sums = (a[..., n], a[..., t], a[..., q], b[..., n], b[..., t], b[..., q])
    carried = stats.carried_weights(*sums, min_n=min_n, rate=True) > 0
    least = np.minimum(a[..., n], b[..., n])
    smaller = np.where(carried, least, 0.0).sum(axis=-1)
    # (an 8th: the same over every strategy on both sides, too few or not, so that a note
    # tells "none on both sides" from "too few on each")
    return (*result, smaller, least.sum(axis=-1))
