"""The band an edited card is held to while a study's suggestion search walks
(``suggestions``): the card's target on the edited set, and where the walk aims in it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sunset_sim.analysis.targets import METRIC, Targets, card_band
from sunset_sim.analysis.wake_order import (
    dominated_pairs,
    earlier_floor,
    half_widths,
    matches_or_beats,
)
from sunset_sim.cards.model import CardSet


def centre_of(low: float, high: float) -> float:
    """A band's centre, or its finite edge where the other is open."""
    if np.isfinite(low + high):
        return (low + high) / 2
    return high if np.isfinite(high) else low


class EditBand:
    """The card's band on an edited set (``card_band``, from the other cards' values as
    the study measured them, with the edited set's ``dominated_pairs``, whatever the
    card's value on the study: ``card_band``'s ``edited``), called with the edited set:
    (low, high). A commission's is at its edited fame (the cap of its whole value, per
    fame point, moves with the fame). A plan card's is its target while its wake-up time
    stays, and the band at its new time where an edit moves it: the wake-up order is the
    edited set's, as the next study judges it (a tester's P1 given P8's power, moved to
    5:30, was still capped by P2 at 5:15, 1.50 against the 10.40 a study of the
    suggested set gave, and the walk gave up its directions too). A plan card is also
    held to no more than a card waking at its time that it matches or beats in every
    field."""

    def __init__(
        self, values: pd.DataFrame, targets: Targets, target: pd.Series,
        cards: CardSet | None = None,
    ) -> None:  # fmt: skip
        self.family, self.card = target["family"], target["card"]
        self.targets, self.target = targets, target
        metric = METRIC[self.family]
        overall = values[(values["strategy"] == "all") & (values["family"] == self.family)]
        self.metric_of = dict(zip(overall["card"], overall[metric].to_numpy(float), strict=True))
        self.whole_of = dict(zip(overall["card"], overall["value"].to_numpy(float), strict=True))
        self.half = half_widths(overall, metric)
        # the card's wake-up time as measured (None: not known, every edit held to both)
        measured = [plan for plan in (cards.plans if cards else ()) if plan.id == self.card]
        self.wake = measured[0].wake if measured else None

    def __call__(self, cards: CardSet) -> tuple[float, float]:
        wake_of = {plan.id: plan.wake for plan in cards.plans}
        fame_of = {commission.id: commission.fame for commission in cards.commissions}
        low, high = card_band(
            self.targets, self.family, self.metric_of, self.card, wake_of, self.whole_of,
            fame_of.get(self.card), self.half, dominated_pairs(cards), edited=True,
        )  # fmt: skip
        if self.family == "commission":
            return low, high
        # no more than a card waking at the same time that it matches or beats in every
        # field (that card is then never the better pick): P1 given all directions, hike 3
        # and paint 2 was cut to paint 1 and moved to 5:30 beside P3 (diagonal, 2, 1)
        card = next(plan for plan in cards.plans if plan.id == self.card)
        same_time = [
            self.metric_of.get(plan.id, math.nan)
            for plan in cards.plans
            if plan.id != card.id and plan.wake == card.wake and matches_or_beats(card, plan)
        ]
        same_time = [value for value in same_time if np.isfinite(value)]
        if same_time and min(same_time) < high:
            high = min(same_time)
            low = min(low, high - self.targets.floor_plan)
        if self.wake is not None and card.wake != self.wake:  # moved: its new time's band
            return low, high
        return max(low, self.target["target_low"]), min(high, self.target["target_high"])

    def aim(self, cards: CardSet, low: float, high: float) -> float:
        """Where the walk aims in the band (low, high) of ``cards``: its centre, a plan
        card's above the least the cards waking before it allow (aimed at, not required:
        P8 cut to 6.25 under P7's 11.35 made the next study name both, and requiring it
        left P2's walk unverified)."""
        if self.family == "plan":
            wake_of = {plan.id: plan.wake for plan in cards.plans}
            floor = earlier_floor(self.metric_of, self.card, wake_of, self.targets.later_margin)
            low = max(low, min(floor, high - self.targets.floor_plan))
        return centre_of(low, high)
