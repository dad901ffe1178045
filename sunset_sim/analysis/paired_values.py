"""A paired experiment's answer for one restriction: what it cost the restricted seat,
deal by deal (base minus restricted, on the same deals), with 95% CIs, for all seats and
per strategy, and how often the seat used the card when allowed (``experiments`` plays
the games; ``FieldRun`` holds them)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sunset_sim.analysis.restrictions import Restriction, ban_columns
from sunset_sim.analysis.stats import Z95, t_critical
from sunset_sim.cards.model import CardSet

if TYPE_CHECKING:
    from sunset_sim.analysis.experiments import FieldRun

__all__ = [
    "POINTS",
    "VALUE_COLUMNS",
    "half_contrast",
    "paired_value",
    "use_rate",
    "used_by_deal",
    "value_rows",
    "wake_halves",
]

POINTS = 100.0  # win share in points: 1 point = 0.01


def _mean_ci(
    values: np.ndarray, z: float = Z95, bound: float | None = None, games: int = 0
) -> tuple[float, float, float]:
    """Mean and 95% CI of per-deal values: Student's t over the deals (n - 1 degrees of
    freedom), as compare's paired differences take it (a tester's: the same experiment
    read 2.04 points wide here and 2.29 in compare on 12 deals; the normal's runs hot on
    few deals, and on hundreds the two agree to a percent). With ``bound`` (no game moves the
    mean by more than ``bound`` / ``games``: a seat's win share moves by at most 1 in a
    game) and every value the same, the CI is not zero-width: a restriction that changed
    no game's outcome in a few games has not shown that it never would. The half-width
    is then ``bound`` times the Wilson upper limit of the share of games it changes
    (none of ``games`` seen: z^2 / (games + z^2); about 3.7 points of win share on 100
    games, 0.01 points on the 28,000 of 200 deals x 140 rotations)."""
    values = values[np.isfinite(values)]
    n = values.size
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, math.nan
    spread = t_critical(n - 1) if z == Z95 else z  # (another z: as given)
    half = spread * float(values.std(ddof=1)) / math.sqrt(n)
    if bound is not None and float(values.max()) == float(values.min()):
        half = max(half, bound * z * z / (max(games, n) + z * z))
    return mean, mean - half, mean + half


def _per_deal(values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(tables, games) -> per-deal mean over the tables selected by ``mask``."""
    if mask is None:
        return values.mean(axis=0)
    counts = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, (values * mask).sum(axis=0) / counts, np.nan)


def paired_value(
    base: FieldRun, restricted: FieldRun, label: str | None = None
) -> dict[str, float]:
    """What the restriction cost its seat, base minus restricted, per deal: win share in
    points and fame, each with its 95% CI; ``label`` limits it to one strategy's seats.
    Where no game's outcome changed, the CI is ``_mean_ci``'s bound, not 0 to 0: a card
    used in 7% of 50 deals without changing an outcome is not shown to be worth nothing,
    and neither is one nobody used there. Its value in these games is exactly 0 (the
    restricted games are the base games), but 40 deals in which nobody sold a commission
    do not show that nobody would (a zero-width CI called it below its target, and a
    suggestion was "verified" for it); on a study's thousands of deals the bound is a
    few hundredths of a point."""
    mask = None if label is None else base.strategy_mask(label)
    share = _per_deal(base.seat_values(base.share) - restricted.seat_values(restricted.share), mask)
    fame = _per_deal(base.seat_values(base.fame) - restricted.seat_values(restricted.fame), mask)
    games = int(base.share.shape[0] * base.games if mask is None else mask.sum())
    value, lo, hi = _mean_ci(share * POINTS, bound=POINTS, games=games)
    fame_cost, fame_lo, fame_hi = _mean_ci(fame)
    n = int(np.isfinite(share).sum())
    return {
        "value": value,
        "value_ci_low": lo,
        "value_ci_high": hi,
        "fame_cost": fame_cost,
        "fame_cost_ci_low": fame_lo,
        "fame_cost_ci_high": fame_hi,
        "n": n,
        "games": games,
    }


Item = TypeVar("Item")


def wake_halves(
    plans: Sequence[Item], wake: Callable[[Item], float]
) -> tuple[list[Item], list[Item]] | None:
    """The earlier- and the later-waking half of the plan cards (by wake-up time, their
    order within a time; an odd card out in the middle), the halves early rise is weighed
    against paint power with (the study's difference, the report's sentence); None for
    fewer than two cards or all at one time (the halves would be the set's order)."""
    ordered = sorted(plans, key=wake)
    half = len(ordered) // 2
    if half < 1 or wake(ordered[0]) == wake(ordered[-1]):
        return None
    return ordered[:half], ordered[len(ordered) - half :]


def half_contrast(
    base: FieldRun, first: list[FieldRun], second: list[FieldRun]
) -> tuple[float, float, float]:
    """The second group of restrictions' mean value less the first's (win share in points),
    with its 95% CI, taken deal by deal: every value is measured against the same base on
    the same deals, so the cards' values are correlated (0.5 to 0.7 among the plan cards)
    and combining their own intervals as if independent made this one about 13% too
    narrow. (All seats; the restricted seat is the same in every arm of a deal.)"""

    def mean_value(runs: list[FieldRun]) -> np.ndarray:
        base_share = base.seat_values(base.share)
        return np.mean([_per_deal(base_share - run.seat_values(run.share)) for run in runs], axis=0)

    return _mean_ci((mean_value(second) - mean_value(first)) * POINTS)


def used_by_deal(cards: CardSet, base: FieldRun, restriction: Restriction) -> np.ndarray | None:
    """(tables, games) bool: the restricted seat used the card in that unrestricted game
    (kept the plan card on some day, completed the commission, painted the landscape or
    one with the feature type); None without the raw records."""
    if not base.raw:
        return None
    seats = base.restricted_seat()
    rows = np.arange(base.games)
    used = []
    for raw in base.raw:
        if restriction.family == "plan":
            index = [p.id for p in cards.plans].index(restriction.card)
            used.append((raw["plan"][rows, seats] == index).any(axis=1))
        elif restriction.family == "commission":
            index = [c.id for c in cards.commissions].index(restriction.card)
            used.append(raw["commission"][rows, index] == seats)
        else:
            n_plan = len(cards.plans)
            columns = [c - 1 - n_plan for c in ban_columns(cards, restriction)]
            painted = raw["painted"][rows, seats]  # (games, words) uint64
            hit = np.zeros(base.games, dtype=bool)
            for land in columns:
                hit |= (painted[:, land // 64] >> np.uint64(land % 64)) & np.uint64(1) > 0
            used.append(hit)
    return np.array(used)


def use_rate(used: np.ndarray | None, mask: np.ndarray | None = None) -> float:
    """How often the restricted seat used the card (``used_by_deal``), over the deals of
    ``mask`` (one strategy's seats: ``FieldRun.strategy_mask``) or all; NaN where none
    or not known."""
    if used is None:
        return math.nan
    chosen = used if mask is None else used[mask]
    return float(np.mean(chosen)) if chosen.size else math.nan


def card_fame(cards: CardSet, restriction: Restriction) -> float:
    if restriction.family == "commission":
        return float(next(c.fame for c in cards.commissions if c.id == restriction.card))
    return math.nan


def value_rows(
    cards: CardSet,
    base: FieldRun,
    restricted: FieldRun,
    restriction: Restriction,
    by_strategy: bool = True,
) -> list[dict]:
    """Rows of ``restricted_play``'s frame for one restriction: all seats, then per strategy."""
    common = {
        "family": restriction.family,
        "card": restriction.card,
        "fame": card_fame(cards, restriction),
    }
    used_games = used_by_deal(cards, base, restriction)  # once: every row takes its share
    common["use_rate"] = use_rate(used_games)
    rows = [{**common, "strategy": "all", **paired_value(base, restricted)}]
    if by_strategy:
        labels = sorted({label for table in base.labels for label in table})
        if len(labels) > 1:
            for label in labels:
                rate = use_rate(used_games, base.strategy_mask(label))  # its own seats'
                value = paired_value(base, restricted, label)
                rows.append({**common, "strategy": label, "use_rate": rate, **value})
    for row in rows:
        # per fame point; a fame-0 commission's whole value counts as its one point, so
        # that one nobody sells for nothing is below the others (it had no value at all,
        # and no target could name it)
        fame = row["fame"]
        for key in ("value", "value_ci_low", "value_ci_high"):
            row[f"{key.replace('value', 'value_per_fame')}"] = (
                row[key] / max(fame, 1.0) if fame >= 0 else math.nan
            )
    return rows


VALUE_COLUMNS = [
    "family",
    "card",
    "strategy",
    "fame",
    "value",
    "value_ci_low",
    "value_ci_high",
    "value_per_fame",
    "value_per_fame_ci_low",
    "value_per_fame_ci_high",
    "fame_cost",
    "fame_cost_ci_low",
    "fame_cost_ci_high",
    "use_rate",
    "n",
    "games",
]
