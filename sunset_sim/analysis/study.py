"""A designer study: every card's value from paired experiments, targets, and rebalance
suggestions that are verified by playing before they are suggested.

1. **Values** (``experiments.restricted_play``): the restricted-play value of every plan
   card, commission and feature type (and landscapes on request).
2. **Edits** (``card_edits``): commission fame +-1 (and, on request, goal fame +-1 and
   every plan card field one step either way) on the same deals: how each edit moves
   the card's own value and every strategy's win share.
3. **Targets** (``Targets``): each card's metric against a band computed from the
   *other* cards of its family; a card is outside only when its whole 95% CI is.
   Commissions: value per fame point within a factor of the others' median (every
   fame point about as easy to earn as any other: an over-priced card is worth far
   more per point, an under-priced one nothing); plan cards: value within a band of
   the others' (no card far more or less worth keeping) and in wake-up order
   (a card out of order with several others is too strong or too weak for its time,
   not they); goals: the share of
   the days a goal was kept by the last player to move.
4. **Suggestions**: for every commission or plan card outside its band, a walk toward
   the band one step at a time (``_search``: at each step, of every field's one-step
   edit, the one that leaves the card's metric on the study's deals nearest the band,
   then nearest its centre), to the first set inside. Each is then VERIFIED by playing
   the whole field on the set with those edits on fresh deals (game indices after the
   study's), before (original set) and after (edited set) with CIs. If the after-value
   is not inside, the walk goes on to its next set inside (four tries); nothing
   unverified is suggested. A plan card may end with edits to several fields: a row
   each. Last, all verified edits together (``suggested-cards.toml``) are played on
   the fresh deals once more, and each card's value there is reported beside its own
   (``after_all_edits``, ``inside_with_all_edits``): edits interact, and the designer
   should see how.
   Goals have no suggestion: no card field changes who moves last (the study says so).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import validation
from sunset_sim.analysis.experiments import (
    FAMILIES,
    POINTS,
    FieldRun,
    Lab,
    Restriction,
    _mean_ci,
    restrictions_for,
    values_frame,
)
from sunset_sim.analysis.stats import Z95
from sunset_sim.analysis.tournament import seatings
from sunset_sim.cards.edit import CardEditError, card_value, edit_card
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.enums import GOAL_FLAG_KEPT
from sunset_sim.rules.options import Rules
from sunset_sim.run.backends import BackendOption, DaskBackend, LocalBackend, using_backend
from sunset_sim.run.progress import ProgressOption, progress_bar
from sunset_sim.strategy import Player, make_player

__all__ = [
    "EDIT_FAMILIES",
    "Study",
    "Targets",
    "card_edits",
    "run_study",
]

EDIT_FAMILIES = ("commission-fame", "goal-fame", "plan")
PLAN_FIELDS = ("wake", "hike", "paint", "directions")
# A stronger plan card wakes earlier (wake -1) or does more (+1); a weaker one the reverse.
STRONGER = {"wake": -1, "hike": 1, "paint": 1, "directions": 1}

Status = Callable[[str], None]


@dataclass(frozen=True)
class Targets:
    """What a balanced card set looks like, per family (see the module docstring).

    Commissions: value per fame point from the other commissions' median / ``ratio`` (a
    card worth nothing is out) to their median x ``over_ratio`` (a card whose points are
    worth twice the others' is over-priced: with 3, fame 1 -> 4, 2 -> 5 and 3 -> 6 stayed
    inside, their points worth 2.5-3.5 times the median, at most 0.7 before). Plan
    cards: value within median +- max(``width`` SDs, ``relative`` x |median|,
    ``floor_plan`` points) of the other plan cards (SD: the larger of the robust SD and
    the plain one: plan values come in two groups, the early cards' and the later ones'),
    and no more than ``later_margin`` points above the value of any card that wakes
    later: restricted play values a card by what replaces it, so an early card given a
    late card's power is worth about as much as that late card, not more, and only the
    wake-up order shows it up. A card out of that order with several others is the one
    held to it (a late card worth less than those before it: too weak for its time), and
    the cards out of order are left out of the others' bands (``out_of_wake_order``).
    Goals: kept by the last player to move on at most ``last_mover`` of the days a goal
    was kept."""

    ratio: float = 3.0
    over_ratio: float = 2.0
    width: float = 3.0
    relative: float = 0.5
    floor_plan: float = 3.0
    floor_commission: float = 0.25  # points per fame, when the others' median is not positive
    later_margin: float = 2.0  # points a plan card may be worth above a later-waking card
    last_mover: float = 0.6

    def describe(self) -> list[str]:
        return [
            "commission: restricted-play value per fame point from the other commissions' "
            f"median / {self.ratio:g} to their median x {self.over_ratio:g} (at fame 0, the "
            "whole value)",
            "plan: restricted-play value within median +- "
            f"max({self.width:g} SD, {self.relative:g} x |median|, "
            f"{self.floor_plan:g} points) of the other plan cards (SD: the larger of the "
            "robust SD and the plain one, as plan values come in two groups), and at most "
            f"{self.later_margin:g} points above any card that wakes later (a card worth "
            "more than a later one is too strong for its wake-up time; where that cap cuts "
            f"into the band, the band ends there and reaches at least {self.floor_plan:g} "
            "points below it); a card out of wake-up order with several others is the one "
            "named (a late card worth less than those before it is too weak for its time: "
            f"at most {self.later_margin:g} points below each), and the cards out of order "
            "are left out of the others' bands",
            f"goal: kept by the last player to move on at most {self.last_mover:.0%} of the "
            "days it was kept",
        ]

    def band(self, others: np.ndarray, family: str) -> tuple[float, float]:
        others = others[np.isfinite(others)]
        if others.size == 0:
            return -math.inf, math.inf
        median = float(np.median(others))
        if family == "commission" and median > 0:
            return median / self.ratio, median * self.over_ratio
        spread = 1.4826 * float(np.median(np.abs(others - median)))
        if family == "plan" and others.size > 1:
            # plan values are two groups by design (the early cards worth about 0 to
            # keep, the later ones 10-20 points): where the low group is the larger, the
            # robust SD measures that group alone, and every later card fell "above"
            # (P4 cut to paint 1: P5-P8 were all to be weakened to paint 1)
            spread = max(spread, float(np.std(others, ddof=1)))
        floor = self.floor_plan if family == "plan" else self.floor_commission
        half = max(self.width * spread, self.relative * abs(median), floor)
        return median - half, median + half


METRIC = {"plan": "value", "commission": "value_per_fame"}
METRIC_TEXT = {
    "plan": "restricted-play value (win-share points)",
    "commission": "restricted-play value per fame point (win-share points)",
}


@dataclass
class Study:
    """Everything a study found; ``study_files.write_study`` puts it in a folder."""

    values: pd.DataFrame
    edits: pd.DataFrame
    targets: pd.DataFrame
    suggestions: pd.DataFrame
    suggested_cards: CardSet | None
    settings: dict
    compare_command: str = ""
    notes: list[str] = field(default_factory=list)

    def outside(self) -> pd.DataFrame:
        """The target rows of the cards outside their targets."""
        return self.targets[self.targets["status"].isin(["above", "below"])]


# --- playing ------------------------------------------------------------------------


# --- card edits -----------------------------------------------------------------------


def _edit_list(cards: CardSet, families: Sequence[str]) -> list[tuple[str, str, int]]:
    unknown = [f for f in families if f not in EDIT_FAMILIES]
    if unknown:
        raise validation.InputError(
            f"edits: {unknown[0]!r} is not one of {', '.join(EDIT_FAMILIES)}"
        )
    edits = []
    for family in families:
        if family == "commission-fame":
            edits += [(c.id, "fame", s) for c in cards.commissions for s in (1, -1)]
        elif family == "goal-fame":
            edits += [(g.id, "fame", s) for g in cards.goals for s in (1, -1)]
        else:
            edits += [(p.id, f, s) for p in cards.plans for f in PLAN_FIELDS for s in (1, -1)]
    return edits


def _share_by_strategy(run: FieldRun) -> dict[str, np.ndarray]:
    """Per strategy, per deal: its mean win share over every seat it holds."""
    out = {}
    for label in sorted({label for table in run.labels for label in table}):
        mask = np.array([[seat == label for seat in table] for table in run.labels])  # (T, P)
        total = (run.share * mask[:, None, :]).sum(axis=(0, 2))
        out[label] = total / mask.sum()
    return out


EDIT_COLUMNS = [
    "card",
    "field",
    "current",
    "edited",
    "measure",
    "item",
    "before",
    "after",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "n",
]


def _edit_rows(lab: Lab, cards: CardSet, card: str, field_: str, steps: int) -> list[dict]:
    try:
        edited = edit_card(cards, card, field_, steps)
    except CardEditError:
        return []  # out of the card's range: no such edit
    common = {
        "card": card,
        "field": field_,
        "current": card_value(cards, card, field_),
        "edited": card_value(edited, card, field_),
    }
    rows = []
    family = "commission" if any(c.id == card for c in cards.commissions) else None
    if family is None and any(p.id == card for p in cards.plans):
        family = "plan"
    if family is not None:
        restriction = Restriction(family, card)
        before, after = lab.cost(cards, restriction), lab.cost(edited, restriction)
        diff, lo, hi = _mean_ci(after - before)
        rows.append(
            {
                **common,
                "measure": "value",
                "item": card,
                "before": float(np.mean(before)),
                "after": float(np.mean(after)),
                "diff": diff,
                "diff_ci_low": lo,
                "diff_ci_high": hi,
                "n": lab.games,
            }  # fmt: skip
        )
    base_shares = _share_by_strategy(lab.base(cards))
    for label, shares in _share_by_strategy(lab.base(edited)).items():
        before = base_shares[label] * POINTS
        diff, lo, hi = _mean_ci(shares * POINTS - before)
        rows.append(
            {
                **common,
                "measure": "win_share",
                "item": label,
                "before": float(before.mean()),
                "after": float(shares.mean() * POINTS),
                "diff": diff,
                "diff_ci_low": lo,
                "diff_ci_high": hi,
                "n": lab.games,
            }  # fmt: skip
        )
    lab.forget(edited)
    return rows


def card_edits(
    strategies: Sequence[str | Player] = ("greedy",),
    players: int = 4,
    games: int = 5000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    families: Sequence[str] = ("commission-fame",),
    edits: Sequence[tuple[str, str, int]] | None = None,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Every edit of ``families`` (or the ``edits`` given as (card, field, steps)) played on
    the same deals as the unedited set. Rows per edit: ``measure`` "value" (the card's
    restricted-play value in points, commissions and plan cards) and "win_share" per
    strategy (points); ``diff`` = after - before with its paired 95% CI; win shares and
    values in points. ``backend``/``scheduler``: as ``simulate`` takes them."""
    card_set = cards if isinstance(cards, CardSet) else load_cards(cards)
    entrants = [s if isinstance(s, Player) else make_player(s) for s in strategies]
    with using_backend(backend, jobs, scheduler) as runner:
        lab = Lab(
            seatings(entrants, players), games, seed, rules or Rules(), 0, jobs, progress,
            backend=runner,
        )  # fmt: skip
        chosen = list(edits) if edits is not None else _edit_list(card_set, families)
        rows = [row for edit in chosen for row in _edit_rows(lab, card_set, *edit)]
    return pd.DataFrame(rows, columns=EDIT_COLUMNS)


# --- targets ----------------------------------------------------------------------------


TARGET_COLUMNS = [
    "family",
    "card",
    "metric",
    "value",
    "value_ci_low",
    "value_ci_high",
    "target_low",
    "target_high",
    "status",
    "n",
]


def broken_pairs(
    metric_of: dict[str, float], wake_of: dict[str, int], margin: float
) -> set[tuple[str, str]]:
    """(earlier card, later card) for each pair of plan cards out of wake-up order: the
    earlier worth more than ``margin`` above the later."""
    cards = [c for c, v in metric_of.items() if np.isfinite(v)]
    return {
        (early, late)
        for early in cards
        for late in cards
        if wake_of[early] < wake_of[late] and metric_of[early] > metric_of[late] + margin
    }


def _lone_pair_notes(target_frame: pd.DataFrame, cards: CardSet, margin: float) -> list[str]:
    """A note for each pair of plan cards out of wake-up order with each other alone: the
    study names the earlier as too strong, but the later may be the one too weak, and
    restricted play cannot tell which (the designer should look at both)."""
    plan = target_frame[target_frame["family"] == "plan"]
    metric_of = dict(zip(plan["card"], plan["value"].to_numpy(dtype=float), strict=True))
    status = dict(zip(plan["card"], plan["status"], strict=True))
    wake_of = {p.id: p.wake for p in cards.plans}
    pairs = broken_pairs(metric_of, wake_of, margin)
    notes = []
    for early, late in sorted(pairs):
        if sum(early in pair or late in pair for pair in pairs) == 1 and status[early] == "above":
            notes.append(
                f"{early} and {late} are out of wake-up order with each other alone ({early} "
                f"worth {metric_of[early]:.2f} points, {late} {metric_of[late]:.2f}): {early} "
                f"is named as too strong for its wake-up time, but {late} may be too weak "
                "for its own; restricted play cannot tell which"
            )
    return notes


def out_of_wake_order(
    metric_of: dict[str, float], wake_of: dict[str, int], margin: float
) -> dict[str, str]:
    """The plan cards that break the wake-up order (a card worth more than ``margin``
    above a card that wakes later), each as "early" (too strong for its wake-up time) or
    "late" (too weak for it). A card out of order with several others is the one to
    change, not each of them: a weak late card is worth less than every card before it,
    and blaming those would weaken the set's good cards. So the broken pairs are covered
    by as few cards as possible: the card in the most pairs first (a tie: the earlier,
    as a single broken pair cannot tell which of its two is wrong), until none is left."""
    cards = [c for c, v in metric_of.items() if np.isfinite(v)]
    pairs = broken_pairs(metric_of, wake_of, margin)
    culprits: dict[str, str] = {}
    while pairs:
        count = {c: sum(c in pair for pair in pairs) for c in cards}
        card = max(cards, key=lambda c: (count[c], -wake_of[c]))
        as_early = sum(pair[0] == card for pair in pairs)
        culprits[card] = "early" if 2 * as_early >= count[card] else "late"
        pairs = {pair for pair in pairs if card not in pair}
    return culprits


def _bounds(
    targets: Targets, family: str, metric_of: dict[str, float], card: str,
    wake_of: dict[str, int],
) -> tuple[float, float]:  # fmt: skip
    """The card's target band from the other cards' metrics (``metric_of``, card id to
    metric). A plan card is also held to the wake-up order (``wake_of``: the wake-up times
    of the set, edited or not): at most ``later_margin`` above every card that wakes
    later, and a card too weak for its time (``out_of_wake_order``: "late") at least
    ``later_margin`` below every card that wakes earlier. The cards out of order are left
    out of the other cards' bands and caps (a weak late card dragged the others' median
    down and capped every card before it). Where a cap cuts into the band, the band ends
    at the cap and reaches at least ``floor_plan`` points beyond it, so that a card is
    never asked to be above one bound and below the other."""
    if family != "plan":
        others = np.array([v for c, v in metric_of.items() if c != card], dtype=float)
        return targets.band(others, family)
    culprits = out_of_wake_order(metric_of, wake_of, targets.later_margin)
    peers = {
        c: v for c, v in metric_of.items() if c != card and c not in culprits and np.isfinite(v)
    }
    low, high = targets.band(np.array(list(peers.values()), dtype=float), family)
    later = [v for c, v in peers.items() if wake_of[c] > wake_of[card]]
    if later and min(later) + targets.later_margin < high:
        high = min(later) + targets.later_margin
        low = min(low, high - targets.floor_plan)
    earlier = [v for c, v in peers.items() if wake_of[c] < wake_of[card]]
    if culprits.get(card) == "late" and earlier and max(earlier) - targets.later_margin > low:
        low = max(earlier) - targets.later_margin
        high = max(high, low + targets.floor_plan)
    return low, high


def _targets(values: pd.DataFrame, targets: Targets, cards: CardSet) -> pd.DataFrame:
    rows = []
    overall = values[values["strategy"] == "all"]
    wake = {plan.id: plan.wake for plan in cards.plans}
    for family, name in METRIC.items():
        part = overall[overall["family"] == family].reset_index(drop=True)
        metric_of = dict(zip(part["card"], part[name].to_numpy(dtype=float), strict=True))
        for _, row in part.iterrows():
            low, high = _bounds(targets, family, metric_of, row["card"], wake)
            value, lo, hi = row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"]
            if not np.isfinite(value):
                status = "no value"
            elif lo > high:
                status = "above"
            elif hi < low:
                status = "below"
            else:
                status = "inside"
            rows.append(
                [
                    family,
                    row["card"],
                    METRIC_TEXT[family],
                    value,
                    lo,
                    hi,
                    low,
                    high,
                    status,
                    int(row["n"]),
                ]  # fmt: skip
            )
    return pd.DataFrame(rows, columns=TARGET_COLUMNS)


def _goal_targets(cards: CardSet, base: FieldRun, targets: Targets) -> pd.DataFrame:
    """Per goal card: the share of the days it was kept that the keeper moved last."""
    kept = np.zeros(len(cards.goals))
    last = np.zeros(len(cards.goals))
    players = base.players
    for raw in base.raw:
        flags = raw["goal_flags"]  # (games, P, days)
        positions = raw["position"]
        goals = raw["goal"]  # (games, days)
        keeper = (flags & GOAL_FLAG_KEPT) > 0
        moved_last = keeper & (positions == players - 1)
        for day in range(goals.shape[1]):
            card = goals[:, day]
            shown = card >= 0
            np.add.at(kept, card[shown], keeper[shown, :, day].sum(axis=1))
            np.add.at(last, card[shown], moved_last[shown, :, day].sum(axis=1))
    rows = []
    for index, goal in enumerate(cards.goals):
        n = int(kept[index])
        share = last[index] / n if n else math.nan
        half = _proportion_half(share, n)
        status = (
            "no value" if not n else ("above" if share - half > targets.last_mover else "inside")
        )
        rows.append(
            [
                "goal",
                goal.id,
                "share of keeps by the last to move",
                share,
                share - half,
                share + half,
                0.0,
                targets.last_mover,
                status,
                n,
            ]  # fmt: skip
        )
    return pd.DataFrame(rows, columns=TARGET_COLUMNS)


def _proportion_half(p: float, n: int) -> float:
    """Half-width of the normal 95% interval of a proportion (0 with no data)."""
    return Z95 * math.sqrt(p * (1 - p) / n) if n else 0.0


# --- suggestions ------------------------------------------------------------------------


def _candidates(cards: CardSet, family: str, card: str, status: str) -> list:
    """Every field's one-step edit that moves the card's metric toward its band (those
    the field's range allows): ``(field, steps, edited set)``."""
    sign = -1 if status == "above" else 1
    if family == "commission":
        fields = [("fame", sign)]
    else:
        fields = [(f, sign * STRONGER[f]) for f in PLAN_FIELDS]
    found = []
    for field_, steps in fields:
        try:
            found.append((field_, steps, edit_card(cards, card, field_, steps)))
        except CardEditError:
            continue
    return found


def _measured_metric(lab: Lab, cards: CardSet, family: str, card: str) -> tuple:
    """The family's target metric (value, or value per fame point) with its CI."""
    row = lab.value(cards, Restriction(family, card))
    name = METRIC[family]
    return row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"]


def _centre(low: float, high: float) -> float:
    if np.isfinite(low + high):
        return (low + high) / 2
    return high if np.isfinite(high) else low


def _edit_text(edits: dict[str, int]) -> str:
    return ", ".join(f"{field_} {steps:+d}" for field_, steps in edits.items())


Bounds = Callable[[CardSet], tuple[float, float]]


def _search(
    lab: Lab, cards: CardSet, target: pd.Series, max_steps: int, status: Status, bounds: Bounds,
    nearest: list | None = None,
) -> Iterator[dict[str, int]]:  # fmt: skip
    """A walk toward the band, one step at a time: at each step every field's one-step
    edit of the set walked so far (commissions: fame; plan cards: wake, hike, paint,
    directions) is measured on the study's deals, and the one that leaves the metric
    nearest the band (then nearest its centre) is taken. Yields the edits so far
    (field -> steps) each time the walk is inside the band, until ``max_steps``
    steps or no field can move further.

    Steps may mix fields: an early card made strong in several fields at once came back
    inside its band only by giving up some of more than one (one field at a time fell
    short at every size, and a later wake-up time raised its value). ``nearest``, if
    given, ends up holding the walk's step nearest the band: (miss, edits, value, low,
    high), for the note when no step is inside (a whole fame point can jump the band)."""
    family, card = target["family"], target["card"]
    edits: dict[str, int] = {}
    current = cards
    for _ in range(max_steps):
        best = None
        for field_, steps, edited in _candidates(current, family, card, target["status"]):
            value = _measured_metric(lab, edited, family, card)[0]
            lab.forget(edited)
            low, high = bounds(edited)
            tried = {**edits, field_: edits.get(field_, 0) + steps}
            status(f"  {card} {_edit_text(tried)}: {value:.2f} (target {low:.2f} to {high:.2f})")
            miss = max(low - value, value - high, 0.0) if np.isfinite(value) else math.inf
            key = (miss, abs(value - _centre(low, high)) if np.isfinite(value) else math.inf)
            if best is None or key < best[0]:
                best = (key, tried, edited)
            if nearest is not None and (not nearest or miss < nearest[0][0]):
                nearest[:] = [(miss, tried, value, low, high)]
        if best is None:
            return
        (miss, _), edits, current = best
        if miss == 0.0:
            yield dict(edits)


SUGGESTION_COLUMNS = [
    "card",
    "field",
    "current",
    "suggested",
    "metric",
    "before",
    "after",
    "ci_low",
    "ci_high",
    "n",
    "before_ci_low",
    "before_ci_high",
    "target_low",
    "target_high",
    "games",
    "after_all_edits",
    "inside_with_all_edits",
]


def _apply(cards: CardSet, edits: Sequence[tuple[str, str, int]]) -> CardSet:
    for card, field_, steps in edits:
        cards = edit_card(cards, card, field_, steps)
    return cards


def _verified_rows(
    lab: Lab, cards: CardSet, target: pd.Series, edits: dict[str, int], status: Status,
    bounds: Bounds,
) -> list[dict]:  # fmt: skip
    """Play the set with this card's edits on the fresh deals: a row per edited field
    (each with the value after all of them) if the after-value is inside the target,
    else none (``bounds``: the band the edited card must be in, ``_bounds_of``)."""
    family, card = target["family"], target["card"]
    edited = _apply(cards, [(card, field_, steps) for field_, steps in edits.items()])
    before = _measured_metric(lab, cards, family, card)
    after = _measured_metric(lab, edited, family, card)
    lab.forget(edited)
    low, high = bounds(edited)
    inside = low <= after[0] <= high
    status(
        f"  verify {card} {_edit_text(edits)} on {lab.games} fresh deals: before "
        f"{before[0]:.2f}, after {after[0]:.2f} ({'inside' if inside else 'outside'} "
        f"{low:.2f} to {high:.2f})"
    )
    if not inside:
        return []
    return [
        {
            "card": card,
            "field": field_,
            "current": card_value(cards, card, field_),
            "suggested": card_value(edited, card, field_),
            "metric": METRIC_TEXT[family],
            "before": before[0],
            "after": after[0],
            "ci_low": after[1],
            "ci_high": after[2],
            "n": lab.games,
            "before_ci_low": before[1],
            "before_ci_high": before[2],
            "target_low": low,
            "target_high": high,
            "games": lab.games * len(lab.tables),
            "steps": steps,  # not a column: for applying the edit
        }
        for field_, steps in edits.items()
    ]


def _bounds_of(values: pd.DataFrame, targets: Targets, target: pd.Series) -> Bounds:
    """The card's band on an edited set: its target, and for a plan card whose wake-up
    time an edit moves, also the band at the new time (``_bounds``, from the other
    cards' values as the study measured them). Both: a later time frees a card from the
    caps of the cards it no longer wakes before, and a walk could then stop at a value
    that only the move made acceptable."""
    family, card = target["family"], target["card"]
    overall = values[(values["strategy"] == "all") & (values["family"] == family)]
    metric_of = dict(zip(overall["card"], overall[METRIC[family]].to_numpy(float), strict=True))

    def bounds(cards: CardSet) -> tuple[float, float]:
        wake_of = {plan.id: plan.wake for plan in cards.plans}
        low, high = _bounds(targets, family, metric_of, card, wake_of)
        return max(low, target["target_low"]), min(high, target["target_high"])

    return bounds


def _walk_limit(cards: CardSet, target: pd.Series, max_steps: int) -> int:
    """The most steps of a card's walk: ``max_steps`` for a plan card; a commission's may
    go down to fame 0 or up to the set's highest commission fame (at least ``max_steps``
    either way): an over-priced easy card's value per point falls slowly (C08 raised from
    4 to 9 in a greedy field was back inside only at 2, seven steps down), and a card no
    one sells at any fame the set uses was walked to 32."""
    if target["family"] == "plan":
        return max_steps
    fame = {commission.id: commission.fame for commission in cards.commissions}
    own = fame[target["card"]]
    room = own if target["status"] == "above" else max(fame.values()) - own
    return max(max_steps, room)


def _suggest(
    study_lab: Lab,
    verify_lab: Lab,
    cards: CardSet,
    target_frame: pd.DataFrame,
    values: pd.DataFrame,
    targets: Targets,
    max_steps: int,
    status: Status,
    attempts: int = 4,
) -> tuple[pd.DataFrame, CardSet | None, list[str]]:
    """Search and verify an edit per card outside its target (module docstring)."""
    notes = []
    chosen = target_frame["status"].isin(["above", "below"]) & target_frame["family"].isin(METRIC)
    rows: list[dict] = []
    edits: list[tuple[str, str, int]] = []
    for _, target in target_frame[chosen].iterrows():
        card = target["card"]
        status(f"searching an edit for {target['family']} {card} ({target['status']})")
        bounds = _bounds_of(values, targets, target)
        found: list[dict] = []
        tries = 0
        limit = _walk_limit(cards, target, max_steps)
        nearest: list = []
        for walked in _search(study_lab, cards, target, limit, status, bounds, nearest):
            found = _verified_rows(verify_lab, cards, target, walked, status, bounds)
            tries += 1
            if found or tries == attempts:
                break
            notes.append(
                f"{card}: {_edit_text(walked)} was inside its target on the study's deals "
                "but not on the fresh deals; the search walked on"
            )
        if not found:
            closest = ""
            if nearest and nearest[0][0] > 0.0:  # no step inside even on the study's deals
                _, edits_tried, value, low, high = nearest[0]
                closest = (
                    f" (nearest on the study's deals: {_edit_text(edits_tried)}, {value:.2f} "
                    f"against {low:.2f} to {high:.2f})"
                )
            notes.append(
                f"{card}: no edit of up to {limit} steps, within the values its fields "
                f"may take, was verified inside its target{closest}; nothing suggested for it"
            )
            continue
        rows.extend(found)
        edits.extend((card, row["field"], row["steps"]) for row in found)
    frame = pd.DataFrame(rows, columns=SUGGESTION_COLUMNS)
    if not rows:
        return frame, None, notes
    suggested = _apply(cards, edits)
    status(f"checking all {len(rows)} edit(s) together on the fresh deals")
    together, inside = [], []
    plans = {p.id for p in cards.plans}
    verify_lab.prefetch(
        suggested,
        [
            Restriction("plan" if card in plans else "commission", card)
            for card in dict.fromkeys(frame["card"])
        ],
    )
    for _, row in frame.iterrows():
        family = "plan" if row["card"] in plans else "commission"
        value = _measured_metric(verify_lab, suggested, family, row["card"])[0]
        together.append(value)
        inside.append(bool(row["target_low"] <= value <= row["target_high"]))
    frame["after_all_edits"] = together
    frame["inside_with_all_edits"] = inside
    return frame, suggested, notes


# --- the study --------------------------------------------------------------------------


def run_study(
    strategies: Sequence[str | Player],
    players: int = 4,
    games: int = 5000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
    families: Sequence[str] = ("plan", "commission", "feature"),
    edits: Sequence[str] = ("commission-fame",),
    targets: Targets | None = None,
    suggest: bool = True,
    verify_games: int | None = None,
    max_steps: int = 6,
    check_field: Sequence[str | Player] | None = None,
    check_games: int | None = None,
    jobs: int | None = None,
    progress: ProgressOption = None,
    status: Status | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> Study:
    """The whole study (module docstring): values, edits, targets, verified suggestions.

    ``games`` deals are played at every rotation of the table for each arm;
    ``verify_games`` fresh deals (default ``games``) verify the suggestions;
    ``max_steps``: the longest walk of a plan card's search (a commission's may go down to
    fame 0 or up to the set's highest commission fame); ``check_field`` replays the values
    with a second field (``check_games`` deals) and marks in
    ``targets.holds_in_check_field`` each finding that holds with it too.
    ``progress``: a callable told the games played, or True for a ``tqdm.auto`` bar over
    the values and edits (Jupyter or stderr; the suggestions' search is not counted).
    ``backend``/``scheduler``: where the chunks are played, as ``simulate`` takes them
    ("local", "dask", a ``distributed.Client``); the same study on any.
    Inputs are held to the command line's limits (``InputError``, one line naming the
    argument); ``rules`` may be a ``Rules`` record or a dict such as ``{"days": 4}``."""
    arguments = dict(locals())  # the call as given, to repeat it under a bar
    players = validation.check_players(players)
    games = validation.check_games(games)
    seed = validation.check_seed(seed)
    jobs = validation.check_jobs(jobs)
    if verify_games is not None:
        verify_games = validation.check_games(verify_games, "verify_games")
    if check_games is not None:
        check_games = validation.check_games(check_games, "check_games")
    max_steps = validation.check_whole(max_steps, "max_steps")
    if not isinstance(suggest, bool):
        raise validation.InputError(
            f"suggest: {validation.one_line(repr(suggest))} is not True or False"
        )
    if targets is not None and not isinstance(targets, Targets):
        raise validation.InputError(
            f"targets: {type(targets).__name__} is not a Targets (analysis.study.Targets)"
        )
    families = validation.check_names(families, "families", FAMILIES)
    edits = validation.check_names(edits, "edits", EDIT_FAMILIES, allow_empty=True)
    rules = validation.as_rules(rules)
    card_set = validation.as_cards(cards, players=players, days=rules.days)
    entrants = validation.check_strategies(strategies)
    if check_field:  # None or empty: no second field
        check_field = validation.check_strategies(check_field, "check_field")
    arguments.update(
        players=players, games=games, seed=seed, jobs=jobs, verify_games=verify_games,
        check_games=check_games, families=families, edits=edits, rules=rules,
        cards=card_set, strategies=entrants, check_field=check_field,
    )  # fmt: skip
    if progress is True:
        tables = len(seatings(entrants, players))
        arms = 1 + len(restrictions_for(card_set, families)) + 2 * len(_edit_list(card_set, edits))
        with progress_bar(True, arms * games * tables) as bar:
            return run_study(**{**arguments, "progress": bar})
    if not isinstance(backend, LocalBackend | DaskBackend):  # connect once for every arm
        with using_backend(backend, jobs, scheduler) as runner:
            return run_study(**{**arguments, "backend": runner, "scheduler": None})
    targets = targets or Targets()
    say = status or (lambda text: None)
    tables = seatings(entrants, players)
    lab = Lab(tables, games, seed, rules, 0, jobs, progress, backend=backend)
    say(f"values: {len(families)} famil(ies) on {games} deals x {len(tables)} table(s)")
    base = lab.base(card_set)
    values = values_frame(lab, card_set, restrictions_for(card_set, families))
    edit_rows = []
    if edits:
        say(f"edits: {', '.join(edits)}")
        for edit in _edit_list(card_set, edits):
            edit_rows.extend(_edit_rows(lab, card_set, *edit))
    edit_frame = pd.DataFrame(edit_rows, columns=EDIT_COLUMNS)
    target_frame = _targets(values, targets, card_set)
    target_frame = pd.concat(
        [target_frame, _goal_targets(card_set, base, targets)],
        ignore_index=True,
    )
    notes = [
        f"{row['card']}: kept by the last player to move on {row['value']:.0%} of its days; "
        "no card field changes who moves last, so nothing is suggested for it"
        for _, row in target_frame.iterrows()
        if row["family"] == "goal" and row["status"] == "above"
    ]
    notes += _lone_pair_notes(target_frame, card_set, targets.later_margin)
    if check_field:
        target_frame["holds_in_check_field"] = _check(
            check_field, players, check_games or games, seed, card_set, rules, families,
            targets, target_frame, jobs, progress, say, backend,
        )  # fmt: skip
    suggestions = pd.DataFrame(columns=SUGGESTION_COLUMNS)
    suggested = None
    if suggest:
        lab.progress = None  # the search and the verification play an unknown number of arms
        verify_lab = Lab(
            tables, verify_games or games, seed, rules, games, jobs, None, backend=backend
        )
        suggestions, suggested, more = _suggest(
            lab, verify_lab, card_set, target_frame, values, targets, max_steps, say
        )
        notes += more
    settings = {
        "strategies": [p.name for p in entrants],
        "players": players,
        "games": games,
        "verify_games": verify_games or games,
        "seed": seed,
        "cards": card_set.path,
        "cards_name": card_set.name,
        "rules": rules.to_dict(),
        "families": list(families),
        "edits": list(edits),
        "tables": len(tables),
    }
    return Study(values, edit_frame, target_frame, suggestions, suggested, settings, notes=notes)


def _check(
    check_field, players, games, seed, cards, rules, families, targets, study_targets,
    jobs, progress, say, backend="local",
) -> list:  # fmt: skip
    """Per target row: True/False whether the second field finds the same status."""
    entrants = [s if isinstance(s, Player) else make_player(s) for s in check_field]
    lab = Lab(seatings(entrants, players), games, seed, rules, 0, jobs, progress, backend=backend)
    say(f"check field {', '.join(p.name for p in entrants)}: {games} deals")
    base = lab.base(cards)
    wanted = restrictions_for(cards, [f for f in families if f in METRIC])
    values = values_frame(lab, cards, wanted, by_strategy=False)
    checked = pd.concat(
        [_targets(values, targets, cards), _goal_targets(cards, base, targets)], ignore_index=True
    )
    status_of = {(r["family"], r["card"]): r["status"] for _, r in checked.iterrows()}
    return [
        status_of.get((row["family"], row["card"])) == row["status"]
        for _, row in study_targets.iterrows()
    ]
