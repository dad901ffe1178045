"""The balance report: result rows (one per game and seat) + the card set -> named tables,
findings and a self-contained Markdown/HTML report with plots.

Everything here is vectorised over rows (groupby, bincount, bit matrices times value
columns), so a million 4-player games (4M rows) are summarised in a minute or so. Each
section needs certain columns; a section whose columns are missing (result files from
older versions) is skipped with a note instead of failing.

Every estimate carries n and a 95% CI (``analysis.stats``); groups with fewer than
``min_samples`` observations are marked "too few samples" and never ranked or reported
as findings. The results describe the strategies (bots) that played, not human play.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.cards.model import CardSet
from sunset_sim.files import write_atomically

MIN_SAMPLES = 30
TOO_FEW = "too few samples"
RESULTS_NOTE = (
    "These are results between bots: they describe how these strategies play against "
    "each other, not how people play."
)
WITHIN_NOTE = (
    "Because in a mixed field a raw difference mostly measures which strategies make a "
    "choice, the effect compares seats of the same strategy (chosen vs not chosen by that "
    "strategy) and pools these differences weighted by n (Mantel-Haenszel weights "
    "n1*n0/(n1+n0), 95% CI from the pooled variance; n_effect counts the chosen side in "
    "strategies that made both choices), with the raw difference kept beside it."
)
BASE_COLUMNS = ("game", "seat", "strategy", "fame", "win_share", "n_winners")
OPTIONAL_COLUMNS = (
    "fame_commissions",
    "fame_goals",
    "fame_paintings",
    "end_reason",
    "days_played",
)
DAY_PATTERNS = (
    r"plan_day\d+",
    r"turn_day\d+",
    r"fame_day\d+",
    r"painted_day\d+",
    r"goal_day\d+",
    r"goal_card_day\d+",
    r"commissions_day\d+_\d+",
    r"painted_\d+",
    r"available_\d+",
    r"commissions_shown_\d+",
)
_WANTED = re.compile("|".join(f"(?:{p})" for p in DAY_PATTERNS))
_CHUNK_ROWS = 1 << 16


class ReportInputError(ValueError):
    """The rows cannot be reported on (missing columns, inconsistent with the card set)."""


def wanted_columns(available: Sequence[str]) -> list[str]:
    """The columns of a result file that the report reads (others are never loaded)."""
    keep = set(BASE_COLUMNS) | set(OPTIONAL_COLUMNS)
    return [c for c in available if c in keep or _WANTED.fullmatch(c)]


def check_columns(available: Sequence[str], source: str = "results") -> None:
    """ReportInputError naming the first missing required column."""
    missing = [c for c in BASE_COLUMNS if c not in set(available)]
    if missing:
        raise ReportInputError(
            f"{source}: missing column {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            + ": not a sunset-sim results table"
        )


# ---------------------------------------------------------------------------------------
# the report object


@dataclass
class Finding:
    """One effect: ``effect`` and its CI in the unit named by ``unit``; ``n`` its sample."""

    text: str
    kind: str
    effect: float
    lo: float
    hi: float
    n: int
    p_value: float


@dataclass
class Section:
    key: str
    title: str
    blocks: list[tuple] = field(
        default_factory=list
    )  # ("text", str) | ("table", name) | ("plot", name, title)
    skipped: str | None = None


@dataclass
class Report:
    tables: dict[str, pd.DataFrame]
    findings: list[Finding]
    sections: list[Section]
    meta: dict
    notes: list[str] = field(default_factory=list)

    def headline(self) -> pd.DataFrame:
        """Win share and mean fame per strategy with 95% CIs (the table a CLI prints)."""
        columns = ["strategy", "n", "win_share", "win_share_lo", "win_share_hi"]
        columns += ["fame", "fame_lo", "fame_hi", "note"]
        return self.tables["strategies"][columns]


# ---------------------------------------------------------------------------------------
# helpers


def _ci_columns(prefix: str, mean, lo, hi) -> dict:
    return {prefix: mean, f"{prefix}_lo": lo, f"{prefix}_hi": hi}


def _mark(table: pd.DataFrame, n_column: str | Sequence[str], min_samples: int, by: str | None):
    """Add ``note`` (too few samples) and ``rank`` (by ``by`` descending, big groups only)."""
    columns = [n_column] if isinstance(n_column, str) else list(n_column)
    small = np.zeros(len(table), dtype=bool)
    for column in columns:
        small |= table[column].to_numpy() < min_samples
    table["note"] = np.where(small, TOO_FEW, "")
    if by is not None:
        values = table[by].where(~small)
        table["rank"] = values.rank(ascending=False, method="min").astype("Int64")
    return table


def bit_sums(
    words: np.ndarray,
    values: np.ndarray,
    n_bits: int,
    groups: np.ndarray | None = None,
    n_groups: int = 1,
) -> np.ndarray:
    """``out[i, j]`` = sum of ``values[r, j]`` over rows r whose bit i is set.

    ``words[r, w]`` are uint64 bitmask words (bit i of word w is item 64*w + i). Done in
    chunks as a 0/1 matrix times the value columns, so memory stays small. With
    ``groups`` (a code 0..n_groups-1 per row), the sums are split by group:
    ``out[i, g * m + j]`` sums ``values[r, j]`` over group g's rows (m value columns)."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    if words.ndim == 1:
        words = words[:, None]
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    m = values.shape[1]
    k = n_groups if groups is not None else 1
    out = np.zeros((words.shape[1] * 64, k * m))
    values32 = values.astype(np.float32)
    for start in range(0, len(words), _CHUNK_ROWS):
        chunk = words[start : start + _CHUNK_ROWS]
        bits = np.unpackbits(chunk.view(np.uint8), axis=1, bitorder="little")
        part_values = values32[start : start + _CHUNK_ROWS]
        if groups is not None:
            codes = groups[start : start + _CHUNK_ROWS]
            onehot = (codes[:, None] == np.arange(k)).astype(np.float32)
            part_values = (onehot[:, :, None] * part_values[:, None, :]).reshape(-1, k * m)
        # float32 products (exact for 0/1 and counts; ~1e-7 relative for win shares),
        # added up across chunks in float64
        part = bits.T.astype(np.float32) @ part_values
        out += part.astype(np.float64)
    return out[:n_bits]


def _pool(sums: np.ndarray, m: int) -> np.ndarray:
    """Group-split sums (..., k * m) from ``bit_sums(..., groups=)`` summed over groups."""
    return sums.reshape(*sums.shape[:-1], -1, m).sum(axis=-2)


def _moments(values: np.ndarray) -> np.ndarray:
    """Value columns [1, v, v^2] for ``bit_sums``."""
    values = np.asarray(values, dtype=np.float64)
    return np.column_stack([np.ones_like(values), values, values * values])


def _group_sums(codes: np.ndarray, values: np.ndarray, n_groups: int) -> tuple:
    """(n, sum, sum of squares) of ``values`` per group code 0..n_groups-1 (codes < 0 dropped)."""
    keep = codes >= 0
    codes = codes[keep]
    values = np.asarray(values, dtype=np.float64)[keep]
    n = np.bincount(codes, minlength=n_groups)[:n_groups].astype(np.float64)
    total = np.bincount(codes, weights=values, minlength=n_groups)[:n_groups]
    squares = np.bincount(codes, weights=values * values, minlength=n_groups)[:n_groups]
    return n, total, squares


def _word_columns(frame: pd.DataFrame, prefix: str) -> list[str]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    found = sorted(
        (int(m.group(1)), c) for c in frame.columns if (m := pattern.fullmatch(c)) is not None
    )
    return [c for _, c in found]


def _words(frame: pd.DataFrame, prefix: str) -> np.ndarray | None:
    columns = _word_columns(frame, prefix)
    if not columns:
        return None
    return np.column_stack([frame[c].to_numpy().astype(np.uint64) for c in columns])


def _mask_words(indices: Sequence[int], n_words: int) -> np.ndarray:
    mask = np.zeros(n_words, dtype=np.uint64)
    for i in indices:
        mask[i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return mask


def _days(frame: pd.DataFrame, prefix: str) -> list[int]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    return sorted(int(m.group(1)) for c in frame.columns if (m := pattern.fullmatch(c)))


def _plan_codes(column: pd.Series, cards: CardSet, name: str) -> np.ndarray:
    """Plan card index per row (-1 where none): from card ids, indices or strings."""
    ids = [p.id for p in cards.plans]
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = [str(c) for c in column.cat.categories]
        unknown = [c for c in categories if c not in ids]
        if unknown:
            raise ReportInputError(
                f"column {name!r}: plan card {unknown[0]!r} is not in the card set "
                f"{cards.name!r} (pass the card set the games were played with: --cards FILE)"
            )
        lookup = np.array([ids.index(c) for c in categories] + [-1], dtype=np.int16)
        codes = column.cat.codes.to_numpy().astype(np.int64)
        return lookup[np.where(codes < 0, len(categories), codes)]
    if column.dtype.kind in "iu":
        codes = column.to_numpy().astype(np.int16)
        if codes.max(initial=-1) >= len(ids):
            raise ReportInputError(
                f"column {name!r}: plan index {int(codes.max())} but the card set has "
                f"{len(ids)} plan cards"
            )
        return np.where(codes < 0, -1, codes).astype(np.int16)
    text = column.astype("string").fillna("")
    lookup = {card_id: i for i, card_id in enumerate(ids)}
    values = text.map(lambda v: lookup.get(v, -2 if v else -1)).to_numpy().astype(np.int16)
    if (values == -2).any():
        bad = text[values == -2].iloc[0]
        raise ReportInputError(f"column {name!r}: plan card {bad!r} is not in the card set")
    return values


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


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

    def strategy_sums(self, values: np.ndarray) -> np.ndarray:
        """(k, 3): n, sum and sum of squares of ``values`` per strategy."""
        return np.column_stack(_group_sums(self.strategy, values, self.k))


def _prepare(frame: pd.DataFrame, cards: CardSet) -> _Data:
    check_columns(list(frame.columns))
    if len(frame) == 0:
        raise ReportInputError("results: no rows")
    seat = frame["seat"].to_numpy()
    players = int(seat.max()) + 1
    expected = np.tile(np.arange(players), len(frame) // players)
    game = frame["game"].to_numpy()
    ordered = (
        len(frame) % players == 0
        and np.array_equal(seat, expected)
        and bool((game[::players] == game[players - 1 :: players]).all())
    )
    if not ordered:
        frame = frame.sort_values(["game", "seat"], kind="stable", ignore_index=True)
        seat = frame["seat"].to_numpy()
        counts = frame.groupby("game", sort=False, observed=True).size()
        if counts.nunique() != 1 or len(frame) % players:
            raise ReportInputError(
                "column 'seat': games have different numbers of seats (one results table "
                "per player count)"
            )
    days = _days(frame, "plan_day") or _days(frame, "turn_day") or _days(frame, "fame_day")
    if "days_played" in frame:
        days_played = frame["days_played"].to_numpy().astype(np.int16)
    else:
        days_played = np.full(len(frame), max(days, default=0), dtype=np.int16)
    codes, labels = pd.factorize(frame["strategy"].astype(str), sort=False)
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


def _effect_columns(prefix: str, result) -> dict:
    """The stratified (within-strategy) effect columns from ``stats.stratified_diff_sums``."""
    diff, lo, hi, p, _, _ = result
    return {**_ci_columns(prefix, diff, lo, hi), f"{prefix}_p": p}


def _within(a: np.ndarray, b: np.ndarray, m: int = 3, columns=(0, 1, 2), min_n: int = MIN_SAMPLES):
    """Within-strategy difference a - b, pooled over strategies (stratified_diff_sums).

    ``a``/``b`` are (..., k * m) sums split by strategy as ``bit_sums(..., groups=)`` gives
    them; ``columns`` name the count, sum and sum-of-squares columns among the m. A
    strategy with fewer than ``min_n`` observations on either side is left out."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a.reshape(*a.shape[:-1], -1, m)
    b = b.reshape(*b.shape[:-1], -1, m)
    n, t, q = columns
    return stats.stratified_diff_sums(
        a[..., n], a[..., t], a[..., q], b[..., n], b[..., t], b[..., q], min_n=min_n
    )


# ---------------------------------------------------------------------------------------
# sections: each returns tables (and may append findings); skipped when columns are missing


def strategy_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame = data.frame
    codes, labels = pd.factorize(frame["strategy"].astype(str), sort=False)
    k = len(labels)
    n, sw, qw = _group_sums(codes, data.win, k)
    _, sf, qf = _group_sums(codes, data.fame, k)
    rows = []
    total_n, total_w, total_q = len(data.win), data.win.sum(), (data.win**2).sum()
    for i, label in enumerate(labels):
        win = stats.mean_ci_sums(n[i], sw[i], qw[i])
        fame = stats.mean_ci_sums(n[i], sf[i], qf[i])
        diff = stats.diff_ci_sums(
            n[i], sw[i], qw[i], total_n - n[i], total_w - sw[i], total_q - qw[i]
        )
        rows.append(
            {
                "strategy": label,
                "n": int(n[i]),
                **_ci_columns("win_share", *win),
                **_ci_columns("fame", *fame),
                **_ci_columns("vs_field", *diff[:3]),
                "vs_field_p": diff[3],
            }
        )
    table = pd.DataFrame(rows)
    table = _mark(table, "n", min_samples, "win_share").sort_values(
        ["rank", "win_share"], ascending=[True, False], na_position="last", ignore_index=True
    )
    tables = {"strategies": table}
    parts = [c for c in ("fame_commissions", "fame_goals", "fame_paintings") if c in frame]
    if parts:
        rows = []
        for column in parts:
            values = frame[column].to_numpy().astype(np.float64)
            gn, gs, gq = _group_sums(codes, values, k)
            for i, label in enumerate(labels):
                mean = stats.mean_ci_sums(gn[i], gs[i], gq[i])
                share = gs[i] / sf[i] if sf[i] else math.nan
                rows.append(
                    {
                        "strategy": label,
                        "source": column.removeprefix("fame_"),
                        "n": int(gn[i]),
                        **_ci_columns("fame", *mean),
                        "share_of_fame": share,
                    }
                )
        tables["fame_sources"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
    fame_int = data.fame.astype(np.int64)
    low = int(fame_int.min())
    counts = []
    for i, label in enumerate(labels):
        bins = np.bincount(fame_int[codes == i] - low)
        nz = np.nonzero(bins)[0]
        counts.append(
            pd.DataFrame(
                {
                    "strategy": label,
                    "fame": nz + low,
                    "count": bins[nz],
                    "share": bins[nz] / max(bins.sum(), 1),
                }
            )
        )
    tables["fame_distribution"] = pd.concat(counts, ignore_index=True)
    return tables


def plan_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    plan_days = _days(frame, "plan_day")
    n_plans = len(cards.plans)
    rows_n = len(frame)
    chosen_words = np.zeros(rows_n, dtype=np.uint64)
    picks = np.zeros(n_plans)
    sums = {key: np.zeros((3, n_plans)) for key in ("turn", "painted", "gained")}
    seen = dict.fromkeys(sums, False)
    previous_fame = np.zeros(rows_n, dtype=np.float64)
    for day in plan_days:  # accumulated day by day: memory stays at a few columns
        codes = _plan_codes(frame[f"plan_day{day}"], cards, f"plan_day{day}")
        played = (codes >= 0) & (data.days_played >= day)
        codes = np.where(played, codes, -1)
        chosen_words |= np.where(
            played, np.left_shift(np.uint64(1), codes.clip(0).astype(np.uint64)), np.uint64(0)
        )
        picks += np.bincount(codes[codes >= 0], minlength=n_plans)[:n_plans]
        columns = {"turn": f"turn_day{day}", "painted": f"painted_day{day}"}
        values = {k: frame[c].to_numpy() for k, c in columns.items() if c in frame}
        fame_column = f"fame_day{day}"
        if fame_column in frame:
            now = frame[fame_column].to_numpy().astype(np.float64)
            values["gained"] = now - previous_fame
            previous_fame = np.where(now >= 0, now, previous_fame)
        for key, value in values.items():
            seen[key] = True
            sums[key] += np.array(_group_sums(codes, value, n_plans))
    seat_days = int(picks.sum())
    turn_n, turn_s, turn_q = sums["turn"] if seen["turn"] else np.full((3, n_plans), np.nan)
    paint_n, paint_s, paint_q = (
        sums["painted"] if seen["painted"] else np.full((3, n_plans), np.nan)
    )
    gain_n, gain_s, gain_q = sums["gained"] if seen["gained"] else np.full((3, n_plans), np.nan)
    # win share of seat-games that chose the card (at most once a game) vs those that did
    # not: raw, and within each strategy (pooled over strategies)
    split = bit_sums(chosen_words, _moments(data.win), n_plans, data.strategy, data.k)
    not_split = data.strategy_sums(data.win).ravel()[None, :] - split
    sums = _pool(split, 3)
    total = np.array([rows_n, data.win.sum(), (data.win**2).sum()])
    effect = _within(split, not_split, min_n=min_samples)
    rows = []
    for i, card in enumerate(cards.plans):
        pick = stats.proportion_ci(picks[i], seat_days)
        win = stats.mean_ci_sums(*sums[i])
        other = total - sums[i]
        diff = stats.diff_ci_sums(*sums[i], *other)
        rows.append(
            {
                "plan": card.id,
                "wake": card.wake_label,
                "wake_minutes": card.wake,
                "directions": card.directions,
                "hike": card.hike,
                "paint": card.paint,
                "n": int(picks[i]),
                **_ci_columns("pick_rate", *pick),
                **_ci_columns(
                    "turn_position", *stats.mean_ci_sums(turn_n[i], turn_s[i], turn_q[i])
                ),
                **_ci_columns(
                    "cards_painted", *stats.mean_ci_sums(paint_n[i], paint_s[i], paint_q[i])
                ),
                **_ci_columns("fame_gained", *stats.mean_ci_sums(gain_n[i], gain_s[i], gain_q[i])),
                **_ci_columns("win_when_chosen", *win),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *diff[:3]),
                "win_diff_p": diff[3],
                "n_not_chosen": int(other[0]),
            }
        )
    table = pd.DataFrame(rows)
    if np.all(np.isnan(table["cards_painted"])):
        table = table.drop(columns=[c for c in table if c.startswith("cards_painted")])
    if np.all(np.isnan(table["fame_gained"])):
        table = table.drop(columns=[c for c in table if c.startswith("fame_gained")])
    return {"plan_cards": _mark(table, ["n", "n_not_chosen"], min_samples, "win_effect")}


def landscape_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    painted = _words(frame, "painted_")
    available = _words(frame, "available_")
    n_cards = len(cards.landscapes)
    if painted.shape[1] * 64 < n_cards:
        raise ReportInputError(
            f"columns 'painted_*': {painted.shape[1] * 64} bits for {n_cards} landscapes "
            "(pass the card set the games were played with: --cards FILE)"
        )
    passed = available & ~painted
    values = np.column_stack([_moments(data.win), data.fame, data.fame**2])
    took_split = bit_sums(painted, values, n_cards, data.strategy, data.k)
    left_split = bit_sums(passed, values, n_cards, data.strategy, data.k)
    took, left = _pool(took_split, 5), _pool(left_split, 5)
    effect = _within(took_split, left_split, 5, min_n=min_samples)
    rows = []
    for i, card in enumerate(cards.landscapes):
        win = stats.diff_ci_sums(*took[i, :3], *left[i, :3])
        fame = stats.diff_ci_sums(took[i, 0], *took[i, 3:], left[i, 0], *left[i, 3:])
        rows.append(
            {
                "card": card.id,
                "features": _feature_text(card.features, cards.features),
                "icons": card.icons,
                "n": int(took[i, 0]),
                "n_passed": int(left[i, 0]),
                **_ci_columns(
                    "paint_rate", *stats.proportion_ci(took[i, 0], took[i, 0] + left[i, 0])
                ),
                **_ci_columns("win_painted", *stats.mean_ci_sums(*took[i, :3])),
                **_ci_columns("win_passed", *stats.mean_ci_sums(*left[i, :3])),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *win[:3]),
                "win_diff_p": win[3],
                **_ci_columns("fame_diff", *fame[:3]),
            }
        )
    tables = {"landscapes": _mark(pd.DataFrame(rows), ["n", "n_passed"], min_samples, "win_effect")}
    # per feature type: painted at least one card showing it vs had one available, took none
    n_words = painted.shape[1]
    feature_took = np.zeros(len(frame), dtype=np.uint64)
    feature_left = np.zeros(len(frame), dtype=np.uint64)
    for f in range(len(cards.features)):
        mask = _mask_words([i for i, c in enumerate(cards.landscapes) if c.features[f]], n_words)
        has = ((painted & mask) != 0).any(axis=1)
        could = ((passed & mask) != 0).any(axis=1) & ~has
        bit = np.uint64(1) << np.uint64(f)
        feature_took |= np.where(has, bit, np.uint64(0))
        feature_left |= np.where(could, bit, np.uint64(0))
    n_features = len(cards.features)
    took_split = bit_sums(feature_took, values, n_features, data.strategy, data.k)
    left_split = bit_sums(feature_left, values, n_features, data.strategy, data.k)
    took_f, left_f = _pool(took_split, 5), _pool(left_split, 5)
    effect = _within(took_split, left_split, 5, min_n=min_samples)
    icon_matrix = np.array([c.features for c in cards.landscapes], dtype=np.float64)
    icons_painted = took[:, 0] @ icon_matrix / len(frame)
    rows = []
    for f, name in enumerate(cards.features):
        win = stats.diff_ci_sums(*took_f[f, :3], *left_f[f, :3])
        fame = stats.diff_ci_sums(took_f[f, 0], *took_f[f, 3:], left_f[f, 0], *left_f[f, 3:])
        rows.append(
            {
                "feature": name,
                "n": int(took_f[f, 0]),
                "n_passed": int(left_f[f, 0]),
                "icons_painted_per_seat": icons_painted[f],
                **_ci_columns("win_painted", *stats.mean_ci_sums(*took_f[f, :3])),
                **_ci_columns("win_passed", *stats.mean_ci_sums(*left_f[f, :3])),
                **_effect_columns("win_effect", [v[f] for v in effect]),
                "n_effect": int(effect[4][f]),
                **_ci_columns("win_diff", *win[:3]),
                "win_diff_p": win[3],
                **_ci_columns("fame_diff", *fame[:3]),
            }
        )
    tables["features"] = _mark(pd.DataFrame(rows), ["n", "n_passed"], min_samples, "win_effect")
    return tables


def _feature_text(counts: Sequence[int], names: Sequence[str]) -> str:
    return " ".join(name for name, count in zip(names, counts, strict=True) for _ in range(count))


def commission_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    """Per commission: how often it was shown and completed, when, and the completer's
    win share against seats that saw it and did not complete it (raw and within strategy).

    With ``commissions_shown_*`` (the commissions in the row on a day played) the
    completion rate is completed / shown; older results fall back to completed / games."""
    frame, cards = data.frame, data.cards
    n_comm = len(cards.commissions)
    days = sorted({d for d in _days_words(frame, "commissions_day")})
    day_counts = np.zeros((n_comm, len(days)))
    completed = None
    for j, day in enumerate(days):
        words = _words(frame, f"commissions_day{day}_")
        completed = words if completed is None else completed | words
        day_counts[:, j] = bit_sums(words, np.ones(len(frame)), n_comm)[:, 0]
    shown = _words(frame, "commissions_shown_")
    if shown is not None and shown.shape[1] != completed.shape[1]:
        shown = None  # a different layout: not comparable bit for bit
    # the seats compared with the completers: those that saw it (or, without the shown
    # column, every other seat) and did not complete it
    other = (shown if shown is not None else ~np.zeros_like(completed)) & ~completed
    moments = _moments(data.win)
    win_split = bit_sums(completed, moments, n_comm, data.strategy, data.k)
    other_split = bit_sums(other, moments, n_comm, data.strategy, data.k)
    win, rest = _pool(win_split, 3), _pool(other_split, 3)
    effect = _within(win_split, other_split, min_n=min_samples)
    if shown is not None:
        first_seat = shown[:: data.players]  # the same on each seat's row of a game
        shown_games = bit_sums(first_seat, np.ones(len(first_seat)), n_comm)[:, 0]
    day_values = np.array(days, dtype=np.float64)
    rows = []
    for i, card in enumerate(cards.commissions):
        k = day_counts[i].sum()
        day = stats.mean_ci_sums(k, day_counts[i] @ day_values, day_counts[i] @ day_values**2)
        completer = stats.mean_ci_sums(*win[i])
        diff = stats.diff_ci_sums(*win[i], *rest[i])
        row = {
            "commission": card.id,
            "fame": card.fame,
            "paintings": len(card.frames),
            "fame_per_painting": card.fame / len(card.frames),
            "n": int(k),
            "games": data.games,
        }
        if shown is not None:
            n_shown = max(shown_games[i], k)  # completed implies shown
            row["n_shown"] = int(n_shown)
            row.update(_ci_columns("shown_rate", *stats.proportion_ci(n_shown, data.games)))
            row.update(_ci_columns("completion_rate", *stats.proportion_ci(k, n_shown)))
        else:
            row.update(_ci_columns("completion_rate", *stats.proportion_ci(k, data.games)))
        row.update(
            {
                **_ci_columns("day_completed", *day),
                **_ci_columns("completer_win", *completer),
                **_effect_columns("completer_win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("completer_win_diff", *diff[:3]),
                "completer_win_diff_p": diff[3],
            }
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    table = _mark(table, "n", min_samples, "completer_win_effect")
    _pricing(table, data.games)
    return {"commissions": table}


def _days_words(frame: pd.DataFrame, prefix: str) -> list[int]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)_\d+")
    return [int(m.group(1)) for c in frame.columns if (m := pattern.fullmatch(c))]


def _pricing(table: pd.DataFrame, games: int) -> None:
    """Over/under-priced: each commission's completion rate and completer win share
    against a straight-line fit on fame per painting over the other commissions.

    A positive completion residual means it is completed more often than commissions with
    the same fame per painting (easy fame: under-priced); negative, over-priced. Flagged
    when the residual's z (sampling error of the rate and of the fit) exceeds 1.96 after a
    Bonferroni correction over the commissions."""
    x = table["fame_per_painting"].to_numpy(dtype=np.float64)
    ok = (table["note"] == "").to_numpy()
    m = max(int(ok.sum()), 1)
    threshold = abs(stats.Z95) if m == 1 else _bonferroni_z(m)
    for column, residual_name in (
        ("completion_rate", "completion_residual"),
        ("completer_win", "win_residual"),
    ):
        y = table[column].to_numpy(dtype=np.float64)
        se = (table[f"{column}_hi"] - table[f"{column}_lo"]).to_numpy(dtype=np.float64) / (
            2 * stats.Z95
        )
        residual = np.full(len(table), np.nan)
        z = np.full(len(table), np.nan)
        for i in range(len(table)):
            others = ok.copy()
            others[i] = False
            others &= np.isfinite(y)
            if others.sum() < 3 or not np.isfinite(y[i]) or np.ptp(x[others]) == 0:
                continue
            slope, intercept = np.polyfit(x[others], y[others], 1)
            fitted = slope * x[others] + intercept
            spread = np.sqrt(((y[others] - fitted) ** 2).sum() / max(others.sum() - 2, 1))
            residual[i] = y[i] - (slope * x[i] + intercept)
            # leave-one-out prediction: the commission's sampling error and the scatter of
            # the others about the line (the line itself is uncertain too)
            z[i] = residual[i] / math.hypot(se[i], spread) if math.hypot(se[i], spread) else 0
        table[residual_name] = residual
        table[f"{residual_name}_z"] = z
    flag = np.full(len(table), "", dtype=object)
    zc = table["completion_residual_z"].to_numpy()
    flag[(zc > threshold) & ok] = "under-priced"
    flag[(zc < -threshold) & ok] = "over-priced"
    table["price_flag"] = flag


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


def goal_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    days = [d for d in _days(frame, "goal_card_day") if f"goal_day{d}" in frame]
    n_goals = len(cards.goals)
    shown = np.zeros(n_goals)
    claimed = np.zeros(n_goals)
    contested = np.zeros(n_goals)
    taken = np.zeros(n_goals)
    keeper = np.zeros((n_goals, data.k, 3))  # seats that kept it, per strategy: n, sum, sq
    seen = np.zeros((n_goals, data.k, 3))  # every seat of a game where it was shown
    played = data.per_game(data.days_played)[:, 0]
    win = data.per_game(data.win)
    strategy = data.per_game(data.strategy)
    for day in days:
        card = data.per_game(frame[f"goal_card_day{day}"].to_numpy().astype(np.int64))[:, 0]
        card = np.where((played >= day) & (card >= 0) & (card < n_goals), card, -1)
        flags = data.per_game(frame[f"goal_day{day}"].to_numpy().astype(np.int64))
        flags = np.where(flags >= 0, flags, 0)
        valid = card >= 0
        c = card[valid]
        shown += np.bincount(c, minlength=n_goals)[:n_goals]
        f = flags[valid]
        claimed += np.bincount(c, weights=((f & 4) != 0).any(axis=1), minlength=n_goals)[:n_goals]
        contested += np.bincount(c, weights=((f & 1) != 0).sum(axis=1) >= 2, minlength=n_goals)[
            :n_goals
        ]
        taken += np.bincount(c, weights=((f & 2) != 0).any(axis=1), minlength=n_goals)[:n_goals]
        keeps = ((f & 4) != 0).ravel()
        # one code per (goal card, strategy) for each seat of the games that showed it
        cell = (np.repeat(c, data.players) * data.k + strategy[valid].ravel()).astype(np.int64)
        seat_moments = _moments(win[valid].ravel())
        size = n_goals * data.k
        for j in range(3):
            weights = seat_moments[:, j]
            seen[..., j] += np.bincount(cell, weights=weights, minlength=size)[:size].reshape(
                n_goals, data.k
            )
            keeper[..., j] += np.bincount(cell[keeps], weights=weights[keeps], minlength=size)[
                :size
            ].reshape(n_goals, data.k)
    others = seen - keeper
    effect = _within(keeper.reshape(n_goals, -1), others.reshape(n_goals, -1), min_n=min_samples)
    keeper_all, others_all = keeper.sum(axis=1), others.sum(axis=1)
    diff = np.column_stack(stats.diff_ci_sums(*keeper_all.T, *others_all.T))
    rows = []
    for g, card in enumerate(cards.goals):
        rows.append(
            {
                "goal": card.id,
                "kind": _goal_text(card),
                "fame": card.fame,
                "n": int(shown[g]),
                **_ci_columns("claim_rate", *stats.proportion_ci(claimed[g], shown[g])),
                **_ci_columns("contested_rate", *stats.proportion_ci(contested[g], shown[g])),
                **_ci_columns("taken_rate", *stats.proportion_ci(taken[g], shown[g])),
                "n_kept": int(keeper_all[g, 0]),
                **_ci_columns("keeper_win", *stats.mean_ci_sums(*keeper_all[g])),
                **_effect_columns("keeper_win_effect", [v[g] for v in effect]),
                "n_effect": int(effect[4][g]),
                **_ci_columns("keeper_win_diff", *diff[g, :3]),
                "keeper_win_diff_p": diff[g, 3],
            }
        )
    return {"goals": _mark(pd.DataFrame(rows), "n", min_samples, None)}


def _goal_text(goal) -> str:
    from sunset_sim.cards.summary import goal_param_text
    from sunset_sim.enums import GOAL_KIND_NAMES

    parameter = goal_param_text(goal.kind, goal.param)
    return GOAL_KIND_NAMES[goal.kind] + (f" {parameter}" if parameter else "")


def fairness_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame = data.frame
    seat = frame["seat"].to_numpy().astype(np.int64)
    n, s, q = _group_sums(seat, data.win, data.players)
    _, fs, fq = _group_sums(seat, data.fame, data.players)
    total = np.array([n.sum(), s.sum(), q.sum()])
    # within strategy: seat i vs the other seats held by the same strategy (NaN when each
    # seat always held one strategy: there is nothing to compare within a strategy)
    cell = _cell_sums(seat, data.players, data)
    rest = (cell.sum(axis=0) - cell).reshape(data.players, -1)
    effect = _within(cell.reshape(data.players, -1), rest, min_n=min_samples)
    rows = []
    for i in range(data.players):
        diff = stats.diff_ci_sums(n[i], s[i], q[i], *(total - [n[i], s[i], q[i]]))
        rows.append(
            {
                "seat": i,
                "n": int(n[i]),
                **_ci_columns("win_share", *stats.mean_ci_sums(n[i], s[i], q[i])),
                **_ci_columns("fame", *stats.mean_ci_sums(n[i], fs[i], fq[i])),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *diff[:3]),
                "win_diff_p": diff[3],
            }
        )
    tables = {"seats": _mark(pd.DataFrame(rows), "n", min_samples, "win_share")}
    if any(len(np.unique(data.strategy[seat == i])) > 1 for i in range(data.players)):
        rows = []  # strategies rotated through the seats: each strategy's win share per seat
        for code, label in enumerate(data.strategies):
            for i in range(data.players):
                sn, ss, sq = cell[i, code]
                rows.append(
                    {
                        "strategy": label,
                        "seat": i,
                        "n": int(sn),
                        **_ci_columns("win_share", *stats.mean_ci_sums(sn, ss, sq)),
                    }
                )
        tables["strategy_seats"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
    value, lo, hi, games = stats.balance_ci(data.per_game(data.win))
    tables["balance"] = pd.DataFrame(
        [{"measure": "balance", "n": games, "balance": value, "balance_lo": lo, "balance_hi": hi}]
    )
    turn_days = _days(frame, "turn_day")
    if turn_days:
        rows = []
        all_sums = np.zeros((data.players, 3))
        for day in turn_days:
            position = frame[f"turn_day{day}"].to_numpy().astype(np.int64)
            position = np.where(data.days_played >= day, position, -1)
            position = np.where(position < data.players, position, -1)
            pn, ps, pq = _group_sums(position, data.win, data.players)
            all_sums += np.column_stack([pn, ps, pq])
            for p in range(data.players):
                rows.append(_position_row(str(day), p, pn[p], ps[p], pq[p], n.sum(), s.sum()))
        for p in range(data.players):
            rows.append(_position_row("all", p, *all_sums[p], None, None))
        tables["turn_positions"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
        # day-1 turn position (one per seat-game: independent samples) vs the others,
        # raw and within strategy
        first = turn_days[0]
        position = frame[f"turn_day{first}"].to_numpy().astype(np.int64)
        position = np.where((data.days_played >= first) & (position < data.players), position, -1)
        cell = _cell_sums(position, data.players, data)
        rest = cell.sum(axis=0) - cell
        effect = _within(
            cell.reshape(data.players, -1), rest.reshape(data.players, -1), min_n=min_samples
        )
        pooled, pooled_rest = cell.sum(axis=1), rest.sum(axis=1)
        rows = []
        for p in range(data.players):
            diff = stats.diff_ci_sums(*pooled[p], *pooled_rest[p])
            rows.append(
                {
                    "day": first,
                    "position": p,
                    "n": int(pooled[p, 0]),
                    **_ci_columns("win_share", *stats.mean_ci_sums(*pooled[p])),
                    **_effect_columns("win_effect", [v[p] for v in effect]),
                    "n_effect": int(effect[4][p]),
                    **_ci_columns("win_diff", *diff[:3]),
                    "win_diff_p": diff[3],
                }
            )
        tables["first_turn"] = _mark(pd.DataFrame(rows), "n", min_samples, "win_effect")
    # game shape: ties, end reasons, margins, lead changes
    winners = data.per_game(frame["n_winners"].to_numpy())[:, 0]
    shape = []
    tie = stats.proportion_ci((winners > 1).sum(), data.games)
    shape.append({"measure": "tied games, % (more than one winner)", "n": data.games, **_pct(tie)})
    fame = data.per_game(data.fame)
    ordered = np.sort(fame, axis=1)
    margin = ordered[:, -1] - ordered[:, -2]
    mean = stats.mean_ci(margin)
    shape.append(
        {"measure": "score margin (winner - runner-up)", "n": data.games, **_vci(mean[:3])}
    )
    close = stats.proportion_ci((margin <= 2).sum(), data.games)
    shape.append({"measure": "close games, % (margin 0 to 2)", "n": data.games, **_pct(close)})
    if "days_played" in frame:
        played = data.per_game(data.days_played)[:, 0]
        shape.append({"measure": "days played", "n": data.games, **_vci(stats.mean_ci(played)[:3])})
    bins = np.bincount(margin.astype(np.int64))
    nz = np.nonzero(bins)[0]
    tables["margins"] = pd.DataFrame(
        {"margin": nz, "games": bins[nz], "share": bins[nz] / data.games}
    )
    if "end_reason" in frame:
        reasons = data.per_game(frame["end_reason"].astype(str).to_numpy())[:, 0]
        values, counts = np.unique(reasons, return_counts=True)
        rows = []
        for value, count in zip(values, counts, strict=True):
            rows.append(
                {
                    "end_reason": value,
                    "n": data.games,
                    "games": int(count),
                    **_ci_columns("share", *stats.proportion_ci(count, data.games)),
                }
            )
        tables["end_reasons"] = pd.DataFrame(rows)
    fame_days = [d for d in _days(frame, "fame_day")]
    if fame_days:
        lead, changes = _lead_table(data, fame_days)
        tables["lead_by_day"] = _mark(lead, ["n", "n_comparable"], min_samples, None)
        shape.append(
            {
                "measure": "lead changes per game",
                "n": data.games,
                **_vci(stats.mean_ci(changes)[:3]),
            }
        )
    tables["game_shape"] = pd.DataFrame(shape)
    return tables


def _cell_sums(codes: np.ndarray, n_codes: int, data: _Data) -> np.ndarray:
    """(n_codes, k, 3): n, sum and sum of squares of win share per (code, strategy); rows
    with a negative code are left out."""
    cell = np.where(codes >= 0, codes * data.k + data.strategy, -1)
    sums = _group_sums(cell, data.win, n_codes * data.k)
    return np.stack(sums, axis=-1).reshape(n_codes, data.k, 3)


def _pct(triple) -> dict:
    return _vci([100 * v for v in triple])


def _vci(triple) -> dict:
    return {"value": triple[0], "value_lo": triple[1], "value_hi": triple[2]}


def _position_row(day, position, n, s, q, _total_n, _total_s) -> dict:
    return {
        "day": day,
        "position": position,
        "n": int(n),
        **_ci_columns("win_share", *stats.mean_ci_sums(n, s, q)),
    }


def _lead_table(data: _Data, fame_days: list[int]) -> tuple[pd.DataFrame, np.ndarray]:
    """Per day: how often the sole leader changed from the last sole leader, how often the
    day's leaders include a final winner; and each game's number of lead changes."""
    won = data.per_game(data.win) > 0
    played = data.per_game(data.days_played)[:, 0]
    last = np.full(data.games, -1)
    changes = np.zeros(data.games)
    rows = []
    for day in fame_days:
        fame = data.per_game(data.frame[f"fame_day{day}"].to_numpy().astype(np.int64))
        alive = (played >= day) & (fame >= 0).all(axis=1)
        top = fame.max(axis=1, keepdims=True)
        leaders = fame == top
        sole = leaders.sum(axis=1) == 1
        leader = np.where(sole, leaders.argmax(axis=1), -1)
        changed = alive & sole & (last >= 0) & (leader != last)
        comparable = alive & sole & (last >= 0)
        changes += changed
        holds = alive & (leaders & won).any(axis=1)
        k = int(alive.sum())
        rows.append(
            {
                "day": day,
                "n": k,
                **_ci_columns("sole_leader", *stats.proportion_ci((alive & sole).sum(), k)),
                **_ci_columns(
                    "lead_change", *stats.proportion_ci(changed.sum(), int(comparable.sum()))
                ),
                "n_comparable": int(comparable.sum()),
                **_ci_columns("leader_wins", *stats.proportion_ci(holds.sum(), k)),
            }
        )
        last = np.where(alive & sole, leader, last)
    return pd.DataFrame(rows), changes


# ---------------------------------------------------------------------------------------
# findings


# The kinds of finding, in the order they are listed; each gets up to ``per_kind_limit``.
FINDING_KINDS = {
    "strategies": "strategy",
    "plan_cards": "plan card",
    "landscapes": "landscape/feature",
    "features": "landscape/feature",
    "commissions": "commission",
    "goals": "goal",
    "seats": "seat/turn position",
    "first_turn": "seat/turn position",
}


def _findings(
    tables: dict[str, pd.DataFrame],
    limit: int,
    per_kind_limit: int = 3,
    confounded: bool = False,
    min_samples: int = MIN_SAMPLES,
) -> list[Finding]:
    """The strongest effects: significant after a Bonferroni correction over every
    candidate, groups with enough samples only. Effects that a strategy's choices could
    confound are the within-strategy (stratified) ones. Every kind gets its strongest
    effect listed before any kind gets a second, and no kind more than
    ``per_kind_limit``; within a kind the larger effects come first."""
    candidates: list[tuple[str, str, float, float, float, int, float, str]] = []

    def add(table_name, label_fn, effect, unit_text, n_column="n", raw=None):
        table = tables.get(table_name)
        if table is None or effect not in table:
            return
        for _, row in table.iterrows():
            if row.get("note", "") or not np.isfinite(row[effect]):
                continue
            if int(row[n_column]) < min_samples:
                continue
            unit = unit_text
            if raw is not None and np.isfinite(row[raw]):
                unit += f" (raw difference {_points(row[raw])})"
            candidates.append(
                (
                    label_fn(row),
                    table_name,
                    float(row[effect]),
                    float(row[f"{effect}_lo"]),
                    float(row[f"{effect}_hi"]),
                    int(row[n_column]),
                    float(row[f"{effect}_p"]),
                    unit,
                )
            )

    within = "within the same strategy"
    add(
        "strategies",
        lambda r: f"strategy {r.strategy}",
        "vs_field",
        "points of win share against the rest of the field",
    )
    add(
        "plan_cards",
        lambda r: f"plan card {r.plan} ({r.wake})",
        "win_effect",
        f"points of win share when chosen vs not chosen, {within}",
        "n_effect",
        "win_diff",
    )
    add(
        "landscapes",
        lambda r: f"landscape {r.card} ({r.features})",
        "win_effect",
        f"points of win share when painted vs available and passed over, {within}",
        "n_effect",
        "win_diff",
    )
    add(
        "features",
        lambda r: f"feature {r.feature}",
        "win_effect",
        f"points of win share when painted vs available and passed over, {within}",
        "n_effect",
        "win_diff",
    )
    add(
        "commissions",
        lambda r: f"commission {r.commission} (fame {r.fame})",
        "completer_win_effect",
        f"points of win share for the seat that completes it vs seats that did not, {within}",
        "n_effect",
        "completer_win_diff",
    )
    add(
        "goals",
        lambda r: f"goal {r.goal} ({r.kind})",
        "keeper_win_effect",
        f"points of win share for the seat that keeps it vs the other seats, {within}",
        "n_effect",
        "keeper_win_diff",
    )
    if not confounded:
        add(
            "seats",
            lambda r: f"seat {r.seat}",
            "win_effect",
            f"points of win share against the other seats, {within}",
            "n_effect",
            "win_diff",
        )
    add(
        "first_turn",
        lambda r: f"turn position {r.position} on day {r.day}",
        "win_effect",
        f"points of win share against the other turn positions, {within}",
        "n_effect",
        "win_diff",
    )
    findings = []
    if candidates:
        threshold = _bonferroni_z(len(candidates))
        p_limit = math.erfc(threshold / math.sqrt(2))
        kept = [c for c in candidates if c[6] <= p_limit]
        kept.sort(key=lambda c: -abs(c[2]))
        order = list(dict.fromkeys(FINDING_KINDS.values()))
        by_kind: dict[str, list] = {kind: [] for kind in order}
        for candidate in kept:
            by_kind[FINDING_KINDS[candidate[1]]].append(candidate)
        chosen: dict[str, list] = {kind: [] for kind in order}
        count = 0
        for rank in range(per_kind_limit):  # round by round: every kind's best first
            for kind in order:
                if rank < len(by_kind[kind]) and count < limit:
                    chosen[kind].append(by_kind[kind][rank])
                    count += 1
        for kind in order:
            for label, name, effect, lo, hi, n, p, unit in chosen[kind]:
                text = (
                    f"{label}: {_points(effect)} {unit}, 95% CI {100 * lo:.1f} to "
                    f"{100 * hi:.1f}, n = {n:,}"
                )
                findings.append(Finding(text, name, effect, lo, hi, n, p))
    commissions = tables.get("commissions")
    if commissions is not None and "price_flag" in commissions:
        flagged = commissions[commissions["price_flag"] != ""]
        flagged = flagged.reindex(
            flagged["completion_residual_z"].abs().sort_values(ascending=False).index
        )
        shown = "n_shown" in flagged
        for _, row in flagged.head(per_kind_limit).iterrows():
            base = "of the games it was shown in" if shown else "of games"
            n = int(row.n_shown) if shown else int(row.games)
            findings.append(
                Finding(
                    f"commission {row.commission} (fame {row.fame}, {row.fame_per_painting:.1f} "
                    f"per painting) looks {row.price_flag}: completed in "
                    f"{100 * row.completion_rate:.1f}% {base} (95% CI "
                    f"{100 * row.completion_rate_lo:.1f} to {100 * row.completion_rate_hi:.1f}), "
                    f"{_points(row.completion_residual)} points against commissions of the same "
                    f"fame per painting, n = {n:,} games",
                    "commission_price",
                    float(row.completion_residual),
                    math.nan,
                    math.nan,
                    n,
                    math.nan,
                )
            )
    return findings


# ---------------------------------------------------------------------------------------
# build


def build_report(
    frame: pd.DataFrame,
    cards: CardSet,
    min_samples: int = MIN_SAMPLES,
    max_findings: int = 18,
    title: str = "Sunset over Water balance report",
    source: str = "",
    on_step: Callable[[str], None] | None = None,
    study=None,
) -> Report:
    """Every table of the report from the result rows and the card set they used.

    Sections whose columns are missing are skipped with a note (``Report.notes``).
    ``study`` (``analysis.study.Study``): its card values, targets and verified
    suggestions become the report's "Card values and rebalance suggestions" section."""
    data = _prepare(frame, cards)
    tables: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    columns = set(data.frame.columns)

    def step(name: str, needs: Sequence[str], function) -> bool:
        missing = [c for c in needs if not (c in columns or any(_match(c, x) for x in columns))]
        if missing:
            notes.append(f"{name}: skipped, the results have no {missing[0]} column")
            return False
        if on_step is not None:
            on_step(name)
        tables.update(function(data, min_samples))
        return True

    step("who wins", [], strategy_tables)
    step("plan cards", ["plan_day*"], plan_tables)
    step("landscape cards", ["painted_*", "available_*"], landscape_tables)
    step("commissions", ["commissions_day*_*"], commission_tables)
    step("daily goals", ["goal_card_day*", "goal_day*"], goal_tables)
    step("fairness and game shape", [], fairness_tables)
    for name in ("plan_cards",):
        if name in tables:
            for column in ("cards_painted", "fame_gained"):
                if column not in tables[name]:
                    source_column = "painted_day*" if column == "cards_painted" else "fame_day*"
                    notes.append(
                        f"plan cards: {column.replace('_', ' ')} not shown, the results have "
                        f"no {source_column} column"
                    )
    if "commissions" in tables and "n_shown" not in tables["commissions"]:
        notes.append(
            "commissions: the results have no commissions_shown_* column (older results), so "
            "completion rate is completed / all games, not completed / games it was shown in, "
            "and the completer is compared with every other seat"
        )
    if "lead_by_day" not in tables:
        notes.append("lead changes: skipped, the results have no fame_day* column")
    seat_strategies = data.frame.groupby("seat", observed=True)["strategy"].nunique()
    confounded = bool(
        (seat_strategies == 1).all() and data.frame["strategy"].astype(str).nunique() > 1
    )
    if confounded:
        notes.append(
            "each seat held one strategy in every game, so seat differences (and Balance) mix "
            "seat advantage with strategy strength; rotate seats (`sunset-sim tournament`) "
            "or seat one strategy everywhere to measure seat fairness"
        )
    findings = _findings(tables, max_findings, confounded=confounded, min_samples=min_samples)
    meta = {
        "title": title,
        "source": source,
        "games": data.games,
        "players": data.players,
        "rows": len(data.frame),
        "strategies": list(dict.fromkeys(data.frame["strategy"].astype(str))),
        "cards": f"{cards.name} ({cards.content_hash[:12]})",
        "min_samples": min_samples,
        "seats_confounded": confounded,
        "mixed_field": len(data.strategies) > 1,
    }
    report = Report(tables, findings, [], meta, notes)
    report.sections = _sections(report)
    if study is not None:
        report.tables.update(study_tables(study))
        report.sections.insert(1, study_section(study))
    return report


def study_tables(study) -> dict[str, pd.DataFrame]:
    """The study's frames with the report's ``x``/``x_lo``/``x_hi`` column names."""
    values = study.values[study.values["strategy"] == "all"]
    tables = {}
    for family in ("plan", "commission", "feature", "landscape"):
        part = values[values["family"] == family]
        if part.empty:
            continue
        table = {"card": part["card"].to_numpy()}
        if family == "commission":
            table["fame"] = part["fame"].astype(int).to_numpy()
        table |= {
            "value": part["value"].to_numpy(),
            "value_lo": part["value_ci_low"].to_numpy(),
            "value_hi": part["value_ci_high"].to_numpy(),
        }
        if family == "commission":
            table |= {
                "value_per_fame": part["value_per_fame"].to_numpy(),
                "value_per_fame_lo": part["value_per_fame_ci_low"].to_numpy(),
                "value_per_fame_hi": part["value_per_fame_ci_high"].to_numpy(),
            }
        table |= {
            "fame_cost": part["fame_cost"].to_numpy(),
            "fame_cost_lo": part["fame_cost_ci_low"].to_numpy(),
            "fame_cost_hi": part["fame_cost_ci_high"].to_numpy(),
            "use_rate": part["use_rate"].to_numpy(),
            "n": part["n"].to_numpy(),
        }
        tables[f"study_{family}"] = pd.DataFrame(table)
    outside = study.targets[study.targets["status"].isin(["above", "below"])]
    tables["study_outside"] = pd.DataFrame(
        {
            "family": outside["family"].to_numpy(),
            "card": outside["card"].to_numpy(),
            "measured": outside["value"].to_numpy(),
            "measured_lo": outside["ci_low"].to_numpy(),
            "measured_hi": outside["ci_high"].to_numpy(),
            "target_low": outside["target_low"].to_numpy(),
            "target_high": outside["target_high"].to_numpy(),
            "status": outside["status"].to_numpy(),
            "metric": outside["metric"].to_numpy(),
        }
    )
    found = study.suggestions
    tables["study_suggestions"] = pd.DataFrame(
        {
            "card": found["card"].to_numpy(),
            "field": found["field"].to_numpy(),
            "current": found["current"].to_numpy(),
            "suggested": found["suggested"].to_numpy(),
            "before": found["before"].to_numpy(dtype=float),
            "before_lo": found["before_ci_low"].to_numpy(dtype=float),
            "before_hi": found["before_ci_high"].to_numpy(dtype=float),
            "after": found["after"].to_numpy(dtype=float),
            "after_lo": found["ci_low"].to_numpy(dtype=float),
            "after_hi": found["ci_high"].to_numpy(dtype=float),
            "target_low": found["target_low"].to_numpy(dtype=float),
            "target_high": found["target_high"].to_numpy(dtype=float),
            "n": found["n"].to_numpy(dtype=int),
        }
    )
    return tables


def study_section(study) -> Section:
    """Card values from paired experiments and the verified suggestions (analysis.study)."""
    from sunset_sim.analysis.study import Targets

    settings = study.settings
    tables = study_tables(study)
    s = Section("card-values", "Card values and rebalance suggestions")
    s.blocks.append(
        (
            "text",
            f"Paired experiments on {settings['games']:,} deals x {settings['tables']} "
            f"rotation(s) of the field {', '.join(settings['strategies'])} "
            f"({settings['players']} players): each card's value is what a seat loses when "
            "it may never keep that plan card (when it has another choice), sell to that "
            "commission or paint that feature type, on the same deals (win share in points, "
            "1 point = 0.01; fame), with 95% CIs and n deals. Targets:",
        )
    )
    s.blocks.append(("list", Targets().describe()))
    if study.suggestions.empty:
        s.blocks.append(("text", "Verified suggestions: none."))
    else:
        s.blocks.append(
            (
                "text",
                "Verified suggestions (suggestions.csv; the edited set is "
                "suggested-cards.toml): the smallest edit that brings each card inside its "
                "target, verified by playing the edited set on fresh deals (before and after "
                "on the same fresh deals).",
            )
        )
        s.blocks.append(("table", "study_suggestions"))
        if study.compare_command:
            s.blocks.append(("text", f"Check it on your own deals: {study.compare_command}"))
    if study.notes:
        s.blocks.append(("list", list(study.notes)))
    if len(tables["study_outside"]):
        s.blocks += [("text", "Cards outside their targets:"), ("table", "study_outside")]
    for family, title in (
        ("plan", "Plan cards"),
        ("commission", "Commissions"),
        ("feature", "Feature types"),
        ("landscape", "Landscapes"),
    ):
        if f"study_{family}" in tables:
            s.blocks += [("text", f"{title}: restricted-play value"), ("table", f"study_{family}")]
    return s


def _match(pattern: str, column: str) -> bool:
    regex = re.escape(pattern).replace(r"\*", r"\d+")
    return re.fullmatch(regex, column) is not None


def _sections(report: Report) -> list[Section]:
    t = report.tables
    meta = report.meta
    sections = []
    s = Section("who-wins", "Who wins")
    s.blocks.append(
        (
            "text",
            "Win share counts a k-way tie as 1/k of a win; vs_field is the strategy's win share "
            "minus that of every other seat in the same games. A strategy in several seats "
            "counts once per seat.",
        )
    )
    s.blocks += [("table", "strategies"), ("plot", "fame_distribution", "Score distributions")]
    if "fame_sources" in t:
        s.blocks += [
            ("text", "Where fame comes from (mean fame per seat and share of all fame):"),
            ("table", "fame_sources"),
            ("plot", "fame_sources", "Where fame comes from"),
        ]
    sections.append(s)
    s = Section("plan-cards", "Early rise vs paint power")
    if "plan_cards" in t:
        s.blocks.append(
            (
                "text",
                "Per plan card: pick rate among all plan choices (seat-days), the turn "
                "position it gave (0 = first), cards painted and fame gained that day, win "
                "share of the seats that chose it in the game, and the difference from those "
                "that did not: win_effect within each strategy (the effect), win_diff raw. "
                + WITHIN_NOTE,
            )
        )
        s.blocks += [("table", "plan_cards"), ("plot", "plan_tradeoff", "The trade-off")]
        strategies = t["strategies"]
        extremes = strategies[
            strategies["strategy"].str.split(":").str[0].isin(["early-bird", "late-riser"])
        ]
        if len(extremes):
            t["plan_extremes"] = extremes[
                ["strategy", "n", "win_share", "win_share_lo", "win_share_hi"]
                + ["vs_field", "vs_field_lo", "vs_field_hi", "vs_field_p", "note"]
            ].reset_index(drop=True)
            s.blocks += [
                (
                    "text",
                    '"Always earliest" (early-bird) and "always most powerful" (late-riser) '
                    "against the field:",
                ),
                ("table", "plan_extremes"),
            ]
        else:
            s.blocks.append(
                (
                    "text",
                    "Neither early-bird (always earliest) nor late-riser (always most "
                    "powerful) played in these games; add them with --strategy to compare.",
                )
            )
    else:
        s.skipped = "no plan columns"
    sections.append(s)
    s = Section("card-value", "Card value")
    if "landscapes" in t:
        s.blocks += [
            (
                "text",
                "Landscapes: win share of seats that painted the card vs seats in games where "
                "it was on the grid and they passed it over, within each strategy (win_effect) "
                "and raw (win_diff), and the raw difference in fame (fame_diff). These are "
                "associations, not causes: strong seats paint more. " + WITHIN_NOTE,
            ),
            ("table", "landscapes"),
            ("plot", "landscape_value", "Landscape value"),
            ("text", "Feature types (painted at least one card showing it vs passed over all):"),
            ("table", "features"),
        ]
    if "commissions" in t:
        s.blocks += [
            (
                "text",
                (
                    "Commissions: shown rate (share of games it was in the row on a day "
                    "played), completion rate (completed / games it was shown in), "
                    if "n_shown" in t["commissions"]
                    else "Commissions: completion rate over all games (these results do not "
                    "record which commissions were shown), "
                )
                + "mean day completed, the completer's win share and its difference from "
                "seats that saw it and did not complete it (completer_win_effect within each "
                "strategy, completer_win_diff raw), and pricing against commissions of the "
                "same fame per painting (completion_residual: positive = completed more often "
                "than its fame per painting predicts, flagged under-priced when significant "
                "after a Bonferroni correction; over-priced when negative).",
            ),
            ("table", "commissions"),
            ("plot", "commission_pricing", "Commission pricing"),
        ]
    if "goals" in t:
        s.blocks += [
            (
                "text",
                "Daily goals, per day shown: claim rate (someone kept it), contested (two or "
                "more met it), taken from another player, the keeper's win share and its "
                "difference from the other seats on those days (keeper_win_effect within each "
                "strategy, keeper_win_diff raw; seat-days, so a goal shown on several days of "
                "a game counts each day).",
            ),
            ("table", "goals"),
        ]
    if "plan_cards" in t:
        s.blocks.append(("text", "Plan cards: see Early rise vs paint power above."))
    sections.append(s)
    s = Section("fairness", "Fairness and game shape")
    if meta.get("seats_confounded"):
        s.blocks.append(
            (
                "text",
                "Caution: each seat held the same strategy in every game, so these seat "
                "differences mix seat advantage with strategy strength.",
            )
        )
    s.blocks += [
        (
            "text",
            "Win share by seat; win_effect compares a seat with the other seats held by the "
            "same strategy (empty when every seat always held one strategy).",
        ),
        ("table", "seats"),
        (
            "text",
            "Balance = 1 - the largest gap between seats' win rates (1 is perfectly fair); "
            "CI from a parametric bootstrap of the seat means.",
        ),
        ("table", "balance"),
        ("plot", "seats", "Win share by seat and turn position"),
    ]
    if "turn_positions" in t:
        s.blocks += [
            (
                "text",
                "Win share by turn position (0 = first to act), per day and over all days "
                '("all" counts seat-days, so its CI is optimistic).',
            ),
            ("table", "turn_positions"),
        ]
    if "first_turn" in t:
        s.blocks += [
            (
                "text",
                "Day-1 turn position against the other positions (one sample per seat and "
                "game): win_effect within each strategy, win_diff raw. The position follows "
                "from the plan card chosen, so this overlaps the plan card effects.",
            ),
            ("table", "first_turn"),
        ]
    if "strategy_seats" in t:
        s.blocks += [
            (
                "text",
                "The strategies rotated through the seats; each strategy's win share per seat "
                "(the strategy rows above pool over seats):",
            ),
            ("table", "strategy_seats"),
        ]
    s.blocks += [("table", "game_shape")]
    if "end_reasons" in t:
        s.blocks += [("table", "end_reasons")]
    s.blocks += [("plot", "margins", "Score margins")]
    if "lead_by_day" in t:
        s.blocks += [
            (
                "text",
                "Lead by day: games with a sole leader after the day, lead changes (sole leader "
                "differs from the previous sole leader) and how often the day's leaders "
                "include a final winner.",
            ),
            ("table", "lead_by_day"),
            ("plot", "lead_by_day", "Lead by day"),
        ]
    sections.append(s)
    s = Section("findings", "Findings")
    if report.findings:
        s.blocks.append(("list", [f.text for f in report.findings]))
    else:
        s.blocks.append(("text", "No effect is significant at these sample sizes."))
    s.blocks.append(
        (
            "text",
            f"Effects are listed when significant at the 5% level after a Bonferroni "
            f"correction over every candidate, the strongest of each kind first (at most "
            f"three per kind); groups with fewer than {meta['min_samples']} "
            f'samples are marked "{TOO_FEW}" and never ranked or listed. '
            + (WITHIN_NOTE + " " if meta.get("mixed_field") else "")
            + RESULTS_NOTE,
        )
    )
    sections.insert(0, s)
    return sections


# ---------------------------------------------------------------------------------------
# formatting and writing


_RATE_WORDS = ("win", "rate", "share", "vs_field", "sole_leader", "lead_change", "leader_wins")


def _is_rate(column: str) -> bool:
    """Whether a column holds a proportion or win share (shown in percent)."""
    if column == "n" or column.startswith("n_") or column.endswith(("_z", "_p")):
        return False
    return any(word in column for word in _RATE_WORDS) or column.endswith("residual")


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Strings for a report: ``x (lo to hi)`` for every column with ``_lo``/``_hi``
    partners; rates and win shares in percent; p-values in short scientific form."""
    out = {}
    columns = list(table.columns)
    skip = {c for c in columns if c.endswith(("_lo", "_hi"))}
    for column in columns:
        if column in skip or column == "wake_minutes":
            continue
        values = table[column]
        if f"{column}_lo" in table and f"{column}_hi" in table:
            rate = _is_rate(column)
            out[column] = [
                _ci_text(v, lo, hi, rate, 3 if column == "balance" else 2)
                for v, lo, hi in zip(
                    values, table[f"{column}_lo"], table[f"{column}_hi"], strict=True
                )
            ]
        elif column.endswith("_p"):
            out[column] = [_p_text(v) for v in values]
        elif values.dtype.kind == "f":
            rate = _is_rate(column) or column == "share_of_fame"
            out[column] = [_number(v, rate) for v in values]
        elif values.dtype.kind in "iu" or str(values.dtype) == "Int64":
            out[column] = ["" if pd.isna(v) else f"{int(v):,}" for v in values]
        else:
            out[column] = ["" if pd.isna(v) else str(v) for v in values]
    return pd.DataFrame(out)


def _number(value, rate: bool) -> str:
    if value is None or not np.isfinite(value):
        return ""
    return f"{100 * value:.1f}%" if rate else f"{value:.2f}"


def _ci_text(value, lo, hi, rate: bool, digits: int = 2) -> str:
    """Balance is shown to 3 decimals: its gaps between seats are often under 0.01."""
    if not np.isfinite(value):
        return ""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return _number(value, rate)
    if rate:
        return f"{100 * value:.1f}% ({100 * lo:.1f} to {100 * hi:.1f})"
    return f"{value:.{digits}f} ({lo:.{digits}f} to {hi:.{digits}f})"


def _p_text(value) -> str:
    if value is None or not np.isfinite(value):
        return ""
    return "<1e-300" if value < 1e-300 else f"{value:.2g}"


def _markdown_table(table: pd.DataFrame) -> str:
    shown = display_table(table)
    header = "| " + " | ".join(shown.columns) + " |"
    rule = "|" + "|".join("---" for _ in shown.columns) + "|"
    lines = [header, rule]
    for row in shown.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


def _html_table(table: pd.DataFrame) -> str:
    shown = display_table(table)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = "".join(f"<td>{html.escape(str(v))}</td>" for v in row)
        marked = ' class="few"' if TOO_FEW in row else ""
        body.append(f"<tr{marked}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _header_lines(report: Report) -> list[str]:
    meta = report.meta
    lines = [
        f"{meta['games']:,} games, {meta['players']} players ({meta['rows']:,} seat rows); "
        f"strategies: {', '.join(meta['strategies'])}; cards: {meta['cards']}"
        + (f"; source: {meta['source']}" if meta["source"] else ""),
        "Every estimate is shown as value (95% CI); n is the sample size. " + RESULTS_NOTE,
    ]
    return lines


def render_markdown(report: Report, images: dict[str, str]) -> str:
    lines = [f"# {report.meta['title']}", ""]
    lines += [line + "\n" for line in _header_lines(report)]
    for section in report.sections:
        lines += [f"## {section.title}", ""]
        if section.skipped:
            lines += [f"_Skipped: {section.skipped}._", ""]
        for block in section.blocks:
            if block[0] == "text":
                lines += [block[1], ""]
            elif block[0] == "list":
                lines += [f"- {item}" for item in block[1]] + [""]
            elif block[0] == "table" and block[1] in report.tables:
                lines += [_markdown_table(report.tables[block[1]]), ""]
            elif block[0] == "plot" and block[1] in images:
                lines += [f"![{block[2]}]({images[block[1]]})", ""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in report.notes] + [""]
    return "\n".join(lines)


_CSS = """
body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#eee}td:first-child{text-align:left}
tr.few{color:#999}
img{max-width:100%}
"""


def render_html(report: Report, images: dict[str, bytes]) -> str:
    import base64

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(report.meta['title'])}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(report.meta['title'])}</h1>",
    ]
    parts += [f"<p>{html.escape(line)}</p>" for line in _header_lines(report)]
    for section in report.sections:
        parts.append(f'<h2 id="{section.key}">{html.escape(section.title)}</h2>')
        if section.skipped:
            parts.append(f"<p><em>Skipped: {html.escape(section.skipped)}.</em></p>")
        for block in section.blocks:
            if block[0] == "text":
                parts.append(f"<p>{html.escape(block[1])}</p>")
            elif block[0] == "list":
                items = "".join(f"<li>{html.escape(item)}</li>" for item in block[1])
                parts.append(f"<ul>{items}</ul>")
            elif block[0] == "table" and block[1] in report.tables:
                parts.append(_html_table(report.tables[block[1]]))
            elif block[0] == "plot" and block[1] in images:
                data = base64.b64encode(images[block[1]]).decode("ascii")
                parts.append(
                    f'<figure><img alt="{html.escape(block[2])}" '
                    f'src="data:image/png;base64,{data}"></figure>'
                )
    if report.notes:
        parts.append("<h2>Notes</h2><ul>")
        parts += [f"<li>{html.escape(note)}</li>" for note in report.notes]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(
    report: Report, out_dir: str | Path, on_step: Callable[[str], None] | None = None
) -> list[Path]:
    """Write ``report.md``, the PNG plots and ``report.html`` (images embedded) into
    ``out_dir`` (created if needed); returns the paths written."""
    from sunset_sim.analysis import plots

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    images: dict[str, str] = {}
    payloads: dict[str, bytes] = {}
    for name, png in plots.render_all(report, on_step=on_step).items():
        path = out / f"{name}.png"
        write_atomically(path, png)
        written.append(path)
        images[name] = path.name
        payloads[name] = png
    markdown = out / "report.md"
    write_atomically(markdown, render_markdown(report, images).encode("utf-8"))
    page = out / "report.html"
    write_atomically(page, render_html(report, payloads).encode("utf-8"))
    return [markdown, page, *written]


# ---------------------------------------------------------------------------------------
# reading result files


def read_results(path: str | Path) -> tuple[pd.DataFrame, dict | None]:
    """Only the report's columns of a result file (Parquet or CSV) or dataset folder.

    Returns ``(frame, run)``: ``run`` is a dataset folder's recorded run identity (cards
    name and hash, strategies, ...) or None. ReportInputError for anything unreadable."""
    path = Path(path)
    if not path.exists():
        raise ReportInputError(f"{path}: no such file or folder")
    if path.is_dir():
        from sunset_sim.run import RunError
        from sunset_sim.run.dataset import read_manifest

        try:
            manifest = read_manifest(path)
        except RunError as error:
            raise ReportInputError(str(error)) from None
        if not manifest.get("complete"):
            raise ReportInputError(f"{path}: the run is not complete (continue it with --resume)")
        entries = sorted(manifest["chunks"], key=lambda entry: entry["first_game"])
        files = [str(path / entry["file"]) for entry in entries]
        if not files:
            raise ReportInputError(f"{path}: the dataset has no chunks")
        missing = [f for f in files if not Path(f).is_file()]
        if missing:
            raise ReportInputError(f"{missing[0]}: listed in the manifest but missing")
        import pyarrow.dataset as ds

        try:
            dataset = ds.dataset(files, format="parquet")
            names = dataset.schema.names
            check_columns(names, str(path))
            frame = dataset.to_table(columns=wanted_columns(names)).to_pandas()
        except ReportInputError:
            raise
        except Exception as error:  # noqa: BLE001 - any pyarrow failure is a bad input
            raise ReportInputError(f"{path}: unreadable dataset ({_first_line(error)})") from None
        return frame, manifest.get("run")
    if path.suffix.lower() == ".csv":
        try:
            names = list(pd.read_csv(path, nrows=0).columns)
        except Exception as error:  # noqa: BLE001
            raise ReportInputError(f"{path}: unreadable CSV ({_first_line(error)})") from None
        check_columns(names, str(path))
        frame = pd.read_csv(path, usecols=wanted_columns(names))
        for column in _word_columns(frame, "painted_") + _word_columns(frame, "available_"):
            frame[column] = frame[column].astype(np.uint64)
        return frame, None
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
        names = handle.schema_arrow.names
    except Exception as error:  # noqa: BLE001
        raise ReportInputError(
            f"{path}: not a Parquet results file ({_first_line(error)})"
        ) from None
    check_columns(names, str(path))
    try:
        frame = handle.read(columns=wanted_columns(names)).to_pandas()
    except Exception as error:  # noqa: BLE001
        raise ReportInputError(f"{path}: unreadable ({_first_line(error)})") from None
    return frame, None


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
