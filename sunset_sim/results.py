"""Result tables: the kernel's arrays as tidy pandas rows (one per game and seat), and
mergeable per-strategy aggregates for summaries that never hold every row in memory."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sunset_sim import enums
from sunset_sim.analysis.stats import ci_columns, proportion_ci
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.engine.jit import jit
from sunset_sim.enums import END_REASON_NAMES, MAX_PLAYERS
from sunset_sim.lazy import LazyModule

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use (lazy.py): simulate's summary is made without it
    pd = LazyModule("pandas")

# The per-seat record's fields as integer columns, named as in enums.SEAT_FIELDS ("won"
# becomes the bool column and win_share below).
SEAT_COLUMNS = {name: column for column, name in enumerate(enums.SEAT_FIELDS) if name != "won"}
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Coded:
    """A categorical column as its codes and categories (made a ``pd.Categorical`` once,
    by ``to_frame`` or ``FrameBuilder``, not for every batch that goes into a frame)."""

    codes: np.ndarray
    categories: list

    def categorical(self) -> pd.Categorical:
        return pd.Categorical.from_codes(self.codes, categories=self.categories)


def to_frame(
    batch: BatchArrays, labels: list[str], plan_ids: list[str] | None = None
) -> pd.DataFrame:
    """One row per game and seat (``frame_columns``, as a frame)."""
    return pd.DataFrame(
        {
            name: column.categorical() if isinstance(column, Coded) else column
            for name, column in frame_columns(batch, labels, plan_ids).items()
        }
    )


def frame_columns(
    batch: BatchArrays, labels: list[str], plan_ids: list[str] | None = None
) -> dict[str, np.ndarray | Coded]:
    """``to_frame``'s columns by name: arrays, and ``Coded`` for the categorical ones.

    One row per game and seat. ``plan_day{d}`` is the plan card kept on day d (card id
    if ``plan_ids`` is given, else its index; missing after an early end), ``turn_day{d}``
    the turn position it gave (0 = first); ``painted_{w}`` bit i of word w: landscape
    64*w+i was painted by that seat.

    For the balance report, per day d (-1 on days not played): ``fame_day{d}`` fame as
    R-END-2 counts it at the end of that day's hike phase, ``painted_day{d}`` cards
    painted, ``goal_day{d}`` GOAL_FLAG_* bits (enums.py), ``commissions_day{d}_{w}``
    bitmask of the commissions this seat completed that day; per game (the same on each
    seat's row): ``goal_card_day{d}`` the goal card index shown, ``available_{w}`` bitmask
    of the landscapes that were on the grid at some time in the game,
    ``commissions_shown_{w}`` of the commissions that were in the row on a day played."""
    n_games, n_players, _ = batch.seat.shape
    games = np.repeat(
        np.arange(batch.first_game, batch.first_game + n_games, dtype=np.int64), n_players
    )
    seats = np.tile(np.arange(n_players, dtype=np.int8), n_games)
    flat = batch.seat.reshape(n_games * n_players, -1)
    if len(set(labels)) == len(labels):
        strategy = Coded(np.tile(np.arange(n_players, dtype=np.int8), n_games), list(labels))
    else:  # as pd.Categorical(values) makes it: the distinct labels sorted
        distinct = sorted(set(labels))
        seat_codes = np.array([distinct.index(label) for label in labels], dtype=np.int8)
        strategy = Coded(np.tile(seat_codes, n_games), distinct)
    data: dict[str, np.ndarray | Coded] = {"game": games, "seat": seats, "strategy": strategy}
    for name, column in SEAT_COLUMNS.items():
        data[name] = flat[:, column].astype(np.int16)
    won = flat[:, enums.R_WON].astype(np.float64)
    data["win_share"] = won / flat[:, enums.R_WINNERS]
    data["won"] = won.astype(bool)
    reasons = np.repeat(batch.game[:, enums.G_END_REASON], n_players)
    data["end_reason"] = Coded(reasons, list(END_REASON_NAMES))
    data["days_played"] = np.repeat(batch.game[:, enums.G_DAYS], n_players).astype(np.int8)
    plans = batch.plan.reshape(n_games * n_players, -1)
    positions = batch.position.reshape(n_games * n_players, -1)
    for day in range(plans.shape[1]):
        if plan_ids is None:
            data[f"plan_day{day + 1}"] = plans[:, day].astype(np.int8)
        else:
            data[f"plan_day{day + 1}"] = Coded(plans[:, day], list(plan_ids))
        data[f"turn_day{day + 1}"] = positions[:, day].astype(np.int8)
    painted = batch.painted.reshape(n_games * n_players, -1)
    for word in range(painted.shape[1]):
        data[f"painted_{word}"] = painted[:, word]
    days = batch.day.reshape(n_games * n_players, plans.shape[1], -1)
    goal_cards = np.repeat(batch.goal, n_players, axis=0)
    completed = commissions_by_day(batch.commission, n_players, plans.shape[1])
    for day in range(plans.shape[1]):
        data[f"fame_day{day + 1}"] = days[:, day, enums.D_FAME].astype(np.int16)
        data[f"painted_day{day + 1}"] = days[:, day, enums.D_PAINTED].astype(np.int8)
        data[f"goal_day{day + 1}"] = days[:, day, enums.D_GOAL].astype(np.int8)
        data[f"goal_card_day{day + 1}"] = goal_cards[:, day]
        for word in range(completed.shape[-1]):
            data[f"commissions_day{day + 1}_{word}"] = completed[:, day, word]
    available = np.repeat(batch.available, n_players, axis=0)
    for word in range(available.shape[1]):
        data[f"available_{word}"] = available[:, word]
    shown = np.repeat(commissions_shown(batch), n_players, axis=0)
    for word in range(shown.shape[1]):
        data[f"commissions_shown_{word}"] = shown[:, word]
    return data


class FrameBuilder:
    """``to_frame``'s rows of many batches, written into columns sized once for ``rows``
    rows: the same frame as ``pd.concat`` of a frame per batch, without a frame per batch
    and a copy of every column at the end (for a million games, seconds of the report's
    playing time). ``keep(names)`` chooses the columns kept.

    A categorical column whose batches share one list of categories keeps it (as concat
    does); where they differ (each seating's strategy labels) the column is categorical
    over every label, in order of first appearance, where concat would make it strings."""

    def __init__(self, rows: int, keep: Callable[[list[str]], list[str]] | None = None) -> None:
        self.rows = rows
        self.keep = keep
        self.filled = 0
        self.columns: dict[str, np.ndarray] = {}
        self.categories: dict[str, list] = {}  # categorical columns: every category seen
        self.mixed: set[str] = set()  # categorical columns whose batches' categories differ

    def add(self, batch: BatchArrays, labels: list[str], plan_ids: list[str] | None = None) -> None:
        data = frame_columns(batch, labels, plan_ids)
        if not self.columns:
            names = list(data) if self.keep is None else self.keep(list(data))
            for name in names:
                column = data[name]
                if isinstance(column, Coded):
                    self.categories[name] = list(column.categories)
                    column = column.codes.astype(np.int16)  # room for a union's codes
                self.columns[name] = np.empty(self.rows, dtype=column.dtype)
        stop = self.filled + len(batch.game) * batch.seat.shape[1]
        if stop > self.rows:
            raise ValueError(f"FrameBuilder: more than the {self.rows} rows it was sized for")
        for name, out in self.columns.items():
            column = data[name]
            if isinstance(column, Coded):
                column = self._codes(name, column)
            out[self.filled : stop] = column
        self.filled = stop

    def _codes(self, name: str, column: Coded) -> np.ndarray:
        """The batch's codes in the column's categories (new ones added at the end)."""
        known = self.categories[name]
        if column.categories == known:
            return column.codes
        self.mixed.add(name)
        for category in column.categories:
            if category not in known:
                known.append(category)
        lookup = np.array([known.index(c) for c in column.categories] + [-1], dtype=np.int16)
        codes = column.codes.astype(np.int64)
        return lookup[np.where(codes < 0, len(column.categories), codes)]

    def frame(self) -> pd.DataFrame:
        if self.filled != self.rows:
            raise ValueError(f"FrameBuilder: {self.filled} of {self.rows} rows were added")
        out: dict[str, np.ndarray | pd.Categorical] = {}
        for name, column in self.columns.items():
            if name not in self.categories:
                out[name] = column
                continue
            categories = self.categories[name]
            if name in self.mixed:  # in order of first appearance, as the strings were
                present = [c for c in range(len(categories)) if (column == c).any()]
                first = sorted(present, key=lambda c: int(np.argmax(column == c)))
                lookup = np.full(len(categories) + 1, -1, dtype=np.int16)
                lookup[first] = np.arange(len(first))
                column = lookup[np.where(column < 0, len(categories), column)]
                categories = [categories[c] for c in first]
            out[name] = pd.Categorical.from_codes(column, categories=categories)
        return pd.DataFrame(out, copy=False)


def commissions_shown(batch: BatchArrays) -> np.ndarray:
    """[games, words] uint64: bit c set when commission c was in the row on a day played
    (a commission dealt in the clean-up before a shortage end never was)."""
    n_games, n_commissions, _ = batch.commission.shape
    masks = np.zeros((n_games, max(1, (n_commissions + 63) // 64)), dtype=np.uint64)
    _shown_masks(batch.commission, batch.game, masks)
    return masks


@jit(_nrt=False)
def _shown_masks(commission, game, masks):
    """``commissions_shown``'s bits, one pass over the games (numpy's fancy indexing per
    commission took a second of a million-game report's playing time)."""
    for g in range(commission.shape[0]):
        days_played = np.int64(game[g, enums.G_DAYS])
        for c in range(commission.shape[1]):
            shown_day = np.int64(commission[g, c, enums.C_SHOWN])
            if shown_day >= 1 and shown_day <= days_played:
                masks[g, c // 64] |= np.uint64(1) << np.uint64(c % 64)


def commissions_by_day(commission: np.ndarray, n_players: int, days: int) -> np.ndarray:
    """[games * seats, days, words] uint64: bit c of a seat's row for day d is set when
    that seat completed commission c on day d (from the kernel's per-commission rows)."""
    n_games, n_commissions, _ = commission.shape
    words = max(1, (n_commissions + 63) // 64)
    masks = np.zeros((n_games, n_players, days, words), dtype=np.uint64)
    _completed_masks(commission, masks)
    return masks.reshape(n_games * n_players, days, words)


@jit(_nrt=False)
def _completed_masks(commission, masks):
    """``commissions_by_day``'s bits, one pass over the games (2 s of numpy's fancy
    indexing per commission in a million-game report). A seat or day outside the masks
    (never from the engine) sets no bit."""
    for g in range(commission.shape[0]):
        for c in range(commission.shape[1]):
            seat = np.int64(commission[g, c, enums.C_SEAT])
            day = np.int64(commission[g, c, enums.C_DAY]) - 1
            if seat < 0 or seat >= masks.shape[1] or day < 0 or day >= masks.shape[2]:
                continue
            masks[g, seat, day, c // 64] |= np.uint64(1) << np.uint64(c % 64)


WIN_SCALE = math.lcm(*range(1, MAX_PLAYERS + 1))  # a win share 1/k times this is whole


@dataclass
class Summary:
    """Per-strategy sums, merged chunk by chunk in any order with the same result.

    ``sums[label]`` is int64 ``[n, Σ s·w, Σ (s·w)², Σ f, Σ f²]`` over the label's seats,
    with w the win share (1/k for a k-way tie), s = ``WIN_SCALE`` (so s·w is a whole
    number) and f the fame: whole numbers add exactly, so a summary does not depend on
    the chunk size, the order chunks finish in or whether it was rebuilt from a manifest."""

    sums: dict[str, np.ndarray] = field(default_factory=dict)
    games: int = 0
    tied_games: int = 0
    shortage_games: int = 0
    violating_games: int = 0  # games that broke an invariant (only when they were checked)
    violations: int = 0  # bitmask over engine/invariants.py's V_* of every violation seen

    def add(self, batch: BatchArrays, labels: list[str]) -> None:
        fame = batch.seat[:, :, enums.R_FAME].astype(np.int64)
        winners = batch.seat[:, :, enums.R_WINNERS].astype(np.int64)
        share = WIN_SCALE * batch.seat[:, :, enums.R_WON].astype(np.int64) // winners
        for seat, label in enumerate(labels):
            row = np.array(
                [
                    len(fame),
                    share[:, seat].sum(),
                    (share[:, seat] ** 2).sum(),
                    fame[:, seat].sum(),
                    (fame[:, seat] ** 2).sum(),
                ],
                dtype=np.int64,
            )
            self.sums[label] = self.sums.get(label, np.zeros(5, dtype=np.int64)) + row
        self.games += len(fame)
        self.tied_games += int((batch.seat[:, 0, enums.R_WINNERS] > 1).sum())
        self.shortage_games += int((batch.game[:, enums.G_END_REASON] == 1).sum())
        broken = batch.game[:, enums.G_VIOLATIONS]
        self.violating_games += int((broken != 0).sum())
        self.violations |= int(np.bitwise_or.reduce(broken)) if len(broken) else 0

    def merge(self, other: Summary) -> None:
        """Add another summary's games to this one (exact: see the class docstring)."""
        for label, row in other.sums.items():
            self.sums[label] = self.sums.get(label, np.zeros(5, dtype=np.int64)) + row
        self.games += other.games
        self.tied_games += other.tied_games
        self.shortage_games += other.shortage_games
        self.violating_games += other.violating_games
        self.violations |= other.violations

    def to_dict(self) -> dict:
        """Plain JSON-ready data (whole numbers only); ``from_dict`` reads it back exactly."""
        return {
            "games": self.games,
            "tied_games": self.tied_games,
            "shortage_games": self.shortage_games,
            "violating_games": self.violating_games,
            "violations": self.violations,
            "sums": {label: [int(v) for v in row] for label, row in self.sums.items()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> Summary:
        sums = {}
        for label, row in data["sums"].items():
            if len(row) != 5 or not all(isinstance(v, int) for v in row):
                raise ValueError(f"summary sums of {label!r}: expected 5 whole numbers")
            sums[str(label)] = np.array(row, dtype=np.int64)
        counts = [data[key] for key in ("games", "tied_games", "shortage_games")]
        counts += [data.get(key, 0) for key in ("violating_games", "violations")]
        if not all(isinstance(v, int) for v in counts):
            raise ValueError("summary counts: expected whole numbers")
        return cls(sums, *counts)

    def table(self) -> pd.DataFrame:
        """Win share (Wilson 95% CI: not zero-width at 0 or 1) and mean fame (normal 95%
        CI) per strategy, named ``measure``, ``measure_ci_low``, ``measure_ci_high``.

        A strategy in several seats of one game contributes one sample per seat."""
        return pd.DataFrame(self.rows())

    def rows(self) -> list[dict]:
        """``table``'s rows, as dicts, highest win share first (ties in the order the
        strategies were first seen, as ``table``'s sort keeps them): made without pandas,
        so that ``simulate`` prints its summary without importing it."""
        rows = []
        for label, (n, sw, _sw2, sf, sf2) in self.sums.items():
            win = proportion_ci(sw / WIN_SCALE, n)
            fame, fame_half = mean_ci(n, float(sf), float(sf2))
            if self.games < 2:  # its seats in one game are not a sample of games either
                fame_half = float("nan")
            rows.append(
                {
                    "strategy": label,
                    "n": int(n),
                    **ci_columns("win_share", *win),
                    **ci_columns("mean_fame", fame, fame - fame_half, fame + fame_half),
                }
            )
        return sorted(rows, key=lambda row: row["win_share"], reverse=True)


def mean_ci(n: float, total: float, total_squares: float) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval from count, sum, sum of
    squares; the half-width is NaN for fewer than 2 (one game has no spread to measure:
    "28 (28 to 28)" claimed certainty), as ``stats.mean_ci_sums`` gives it."""
    if n == 0:
        return float("nan"), float("nan")
    mean = total / n
    if n < 2:
        return mean, float("nan")
    variance = max(total_squares / n - mean * mean, 0.0) * n / (n - 1)
    return mean, Z95 * (variance / n) ** 0.5
