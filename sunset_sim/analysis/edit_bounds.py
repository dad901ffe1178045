"""The band an edited card is held to while a study's suggestion search walks
(``suggestions``): the card's target on the edited set, and where the walk aims in it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from sunset_sim.analysis.targets import (
    METRIC,
    Targets,
    card_band,
    dominated_pairs,
    earlier_floor,
    half_widths,
)
from sunset_sim.cards.model import CardSet

Bounds = Callable[[CardSet], tuple[float, float]]


def centre_of(low: float, high: float) -> float:
    """A band's centre, or its finite edge where the other is open."""
    if np.isfinite(low + high):
        return (low + high) / 2
    return high if np.isfinite(high) else low


def bounds_of(values: pd.DataFrame, targets: Targets, target: pd.Series) -> Bounds:
    """The card's band on an edited set (``card_band``, from the other cards' values as
    the study measured them, with the edited set's ``dominated_pairs``, whatever the
    card's value on the study: ``card_band``'s ``edited``). A commission's
    is at its edited fame (the cap of its whole value, per fame point, moves with the
    fame). A plan card's is its target and also the band at its new wake-up time if an
    edit moves it. Both: a later time frees a card from the caps of the cards it no
    longer wakes before, and a walk could then stop at a value that only the move made
    acceptable."""
    family, card = target["family"], target["card"]
    overall = values[(values["strategy"] == "all") & (values["family"] == family)]
    metric_of = dict(zip(overall["card"], overall[METRIC[family]].to_numpy(float), strict=True))
    whole_of = dict(zip(overall["card"], overall["value"].to_numpy(float), strict=True))
    half = half_widths(overall, METRIC[family])

    def bounds(cards: CardSet) -> tuple[float, float]:
        wake_of = {plan.id: plan.wake for plan in cards.plans}
        fame_of = {commission.id: commission.fame for commission in cards.commissions}
        low, high = card_band(
            targets, family, metric_of, card, wake_of, whole_of, fame_of.get(card), half,
            dominated_pairs(cards), edited=True,
        )  # fmt: skip
        if family == "commission":
            return low, high
        return max(low, target["target_low"]), min(high, target["target_high"])

    def centre(cards: CardSet) -> float:
        """Where the walk aims: the band's centre, a plan card's above the least the
        cards waking before it allow (aimed at, not required: P8 cut to 6.25 under
        P7's 11.35 made the next study name both, and requiring it left P2's walk
        unverified)."""
        low, high = bounds(cards)
        if family == "plan":
            wake_of = {plan.id: plan.wake for plan in cards.plans}
            floor = earlier_floor(metric_of, card, wake_of, targets.later_margin)
            low = max(low, min(floor, high - targets.floor_plan))
        return centre_of(low, high)

    bounds.centre = centre  # type: ignore[attr-defined]
    return bounds
