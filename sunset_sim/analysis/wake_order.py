"""Plan cards against the wake-up order (``targets.card_band``'s plan rules): the pairs of
cards out of order by their values (``broken_pairs``, ``out_of_wake_order``) and by their
numbers (a card that matches or beats a later one in every field: ``matching_pairs``,
``numbers_roles``, ``dominated_pairs``, ``above_by_numbers``), and the study's notes on
them. Split from analysis/targets.py, which keeps the bands and imports these."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sunset_sim.cards.model import CardSet, PlanCard

__all__ = [
    "Pairs",
    "above_by_numbers",
    "broken_pairs",
    "by_numbers_notes",
    "by_numbers_pairs",
    "dominated_pairs",
    "earlier_floor",
    "half_widths",
    "lone_pair_notes",
    "lone_pairs",
    "matches_or_beats",
    "matching_pairs",
    "numbers_roles",
    "out_of_wake_order",
    "pair_margin",
    "plan_rows",
    "unnamed_pair_notes",
]


Pairs = frozenset  # of (earlier card, later card) ids


def matching_pairs(cards: CardSet) -> Pairs:
    """(earlier, later) for each pair of plan cards where the earlier is at least as
    strong in every field (hike, paint, every direction of the later) while it wakes
    earlier: by their numbers one of the two is out of line."""
    return frozenset(
        (early.id, late.id)
        for early in cards.plans
        for late in cards.plans
        if early.wake < late.wake and matches_or_beats(early, late)
    )


def dominated_pairs(cards: CardSet) -> Pairs:
    """The ``matching_pairs`` whose earlier card is held to be worth no more than the
    later one (a ``later_margin`` of 0 for that pair): too strong for its time by its
    numbers alone. P7 given all directions, hike 4 and paint 5 beat P8 (6:45, all, 4, 3)
    in everything and was worth 1.75 points more, under the 2-point margin: the study
    named nothing. Not a pair whose later card the numbers call the weak one
    (``numbers_roles``): P6 cut to P4's numbers is matched by P4 and P5, and they were
    held under it and named on gaps within the noise."""
    pairs = matching_pairs(cards)
    _, weak = numbers_roles(pairs)
    return frozenset(pair for pair in pairs if pair[1] not in weak)


def matches_or_beats(strong: PlanCard, weak: PlanCard) -> bool:
    """Whether a plan card is at least as strong as another in every field: hike, paint
    and every direction of the other (wake-up time aside)."""
    return (
        strong.hike >= weak.hike
        and strong.paint >= weak.paint
        and strong.direction_mask & weak.direction_mask == weak.direction_mask
    )


def earlier_floor(
    metric_of: dict[str, float], card: str, wake_of: dict[str, int], margin: float
) -> float:
    """The least a plan card may be worth by the cards that wake before it: ``margin``
    below the best of them (-inf if none)."""
    return max(
        (
            v - margin
            for c, v in metric_of.items()
            if c != card and c in wake_of and wake_of[c] < wake_of[card] and np.isfinite(v)
        ),
        default=-math.inf,
    )


def pair_margin(early: str, late: str, margin: float, dominates: Pairs) -> float:
    """How much more than ``late`` the earlier card ``early`` may be worth."""
    return 0.0 if (early, late) in dominates else margin


def numbers_roles(pairs: Pairs) -> tuple[set[str], set[str]]:
    """The plan cards the numbers alone call too strong for their wake-up time and those
    they call too weak, from ``matching_pairs``: each card in more pairs than any card it
    is paired with, covering the pairs as ``out_of_wake_order`` does (the card in the
    most pairs first), too strong where it is mostly the earlier of its pairs. A pair
    alone cannot tell which of its two cards is wrong: P6 cut to P4's numbers (6:15,
    orthogonal, 2, 2) is matched by P4 and by P5, the one card in both pairs, and is the
    one to blame, not they; P5 alone matching P7 cut to diagonal, 2, 2 blames neither.
    P3 given P6's numbers matches P4 and P6: too strong."""
    pairs = set(pairs)
    strong: set[str] = set()
    weak: set[str] = set()
    while pairs:
        count: dict[str, int] = {}
        for pair in pairs:
            for card in pair:
                count[card] = count.get(card, 0) + 1
        # a card in more pairs than each card it is paired with (never a tie broken by
        # the ids: which card is named must not depend on how the cards are spelt)
        clear = [
            c
            for c in count
            if count[c] >= 2
            and all(count[c] > count[o] for pair in pairs if c in pair for o in pair if o != c)
        ]
        if not clear:  # every pair left stands alone, or ties
            break
        card = min(clear, key=lambda c: (-count[c], c))  # (not partners: any order)
        as_early = sum(early == card for early, _ in pairs)
        if 2 * as_early > count[card]:
            strong.add(card)
        elif 2 * as_early < count[card]:
            weak.add(card)
        pairs = {pair for pair in pairs if card not in pair}
    return strong, weak


def plan_rows(target_frame: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict]:
    """A target frame's plan rows, and their values and statuses by card."""
    plan = target_frame[target_frame["family"] == "plan"]
    value_of = dict(zip(plan["card"], plan["value"].to_numpy(dtype=float), strict=True))
    return plan, value_of, dict(zip(plan["card"], plan["status"], strict=True))


def by_numbers_pairs(
    target_frame: pd.DataFrame, cards: CardSet, margin: float
) -> set[tuple[str, str]]:
    """(card, later card) for each plan card worth more than a later card it matches or
    beats in hike, paint and directions, where the numbers say it is the one too strong
    (``numbers_roles``): their target's cap is then no question of noise. P3
    given P6's numbers (5:30, orthogonal, 3, 2) beat P4 (5:45, orthogonal, 2, 2) and was
    worth 9.82 (CI 9.13 to 10.51) to P4's 8.94: "unsettled" against that cap's SD on
    1,000 deals and on 3,000, and on two seeds of three never named. Not where the later
    card is the one too weak for its time (below its target, or named "late" by
    ``out_of_wake_order``): P7 cut to hike 1 and paint 1 is matched by P3 and P5, and
    they are not to blame; nor where the numbers cannot tell (a sound P4 and P5 were
    named on gaps of 0.1 to 0.4 points to P6 cut to P4's numbers)."""
    plan, value_of, status = plan_rows(target_frame)
    wake_of = {p.id: p.wake for p in cards.plans}
    dominates = dominated_pairs(cards)
    strong, _ = numbers_roles(matching_pairs(cards))
    weak = {
        card
        for card, role in out_of_wake_order(
            value_of, wake_of, margin, half_widths(plan), dominates
        ).items()
        if role == "late"
    }
    return {
        (early, late)
        for early, late in dominates
        if early in strong
        and early in value_of
        and late in value_of
        and value_of[early] > value_of[late]
        and late not in weak
        and status[late] != "below"
    }


def above_by_numbers(target_frame: pd.DataFrame, cards: CardSet, margin: float) -> set[str]:
    """The plan cards above their targets by their numbers (``by_numbers_pairs``)."""
    return {early for early, _ in by_numbers_pairs(target_frame, cards, margin)}


def broken_pairs(
    metric_of: dict[str, float],
    wake_of: dict[str, int],
    margin: float,
    half_width_of: dict[str, float] | None = None,
    dominates: Pairs = frozenset(),
) -> dict[tuple[str, str], float]:
    """(earlier card, later card) for each pair of plan cards out of wake-up order: the
    earlier worth more than ``margin`` above the later (0 where the earlier is at least
    as strong by its numbers: ``dominates``, ``dominated_pairs``), beyond the noise when
    ``half_width_of`` gives each value's 95% CI half-width (the difference's CI, taken as
    sqrt(h1^2 + h2^2), clears the margin: two late cards a few points apart by chance
    made a triangle with a weak third, and the tie-break then blamed the two good
    cards). Each pair maps to how far it breaks the order (points beyond the margin)."""
    cards = [c for c, v in metric_of.items() if np.isfinite(v)]
    half = half_width_of or {}
    pairs = {}
    for early in cards:
        for late in cards:
            if wake_of[early] >= wake_of[late]:
                continue
            excess = (
                metric_of[early] - metric_of[late] - pair_margin(early, late, margin, dominates)
            )
            noise = math.hypot(half.get(early, 0.0), half.get(late, 0.0))
            if excess > (noise if np.isfinite(noise) else math.inf):
                pairs[(early, late)] = excess
    return pairs


def half_widths(frame: pd.DataFrame, metric: str = "value") -> dict[str, float]:
    """Card id to the half-width of its ``metric``'s 95% CI (a targets or values frame;
    none for a frame without CI columns: the values alone then decide)."""
    if f"{metric}_ci_high" not in frame or f"{metric}_ci_low" not in frame:
        return {}
    half = (frame[f"{metric}_ci_high"] - frame[f"{metric}_ci_low"]).to_numpy(dtype=float) / 2
    return dict(zip(frame["card"], half, strict=True))


def lone_pairs(target_frame: pd.DataFrame, cards: CardSet, margin: float) -> dict[str, str]:
    """Each plan card named above its target for a pair out of wake-up order with one
    later card alone, to that later card where restricted play cannot tell which of the
    two is wrong (the earlier does not match or beat it in every field): P5 cut to hike 1
    and paint 1 had P4 named and weakened, with nothing beside the suggestion to say P5
    might be the one."""
    return {
        early: late
        for early, late, dominated, _ in _lone_pairs(target_frame, cards, margin)
        if not dominated
    }


def _lone_pairs(
    target_frame: pd.DataFrame, cards: CardSet, margin: float
) -> list[tuple[str, str, bool, str]]:
    """(earlier, later, whether the earlier matches or beats the later, the values in
    words) for each pair out of wake-up order with each other alone whose earlier card is
    above its target."""
    plan, metric_of, status = plan_rows(target_frame)
    wake_of = {p.id: p.wake for p in cards.plans}
    dominates = dominated_pairs(cards)
    pairs = broken_pairs(metric_of, wake_of, margin, half_widths(plan), dominates)
    for early, late in dominates:  # (out of order by their numbers, whatever the noise)
        if early in metric_of and late in metric_of and metric_of[early] > metric_of[late]:
            pairs.setdefault((early, late), metric_of[early] - metric_of[late])
    found = []
    by_numbers = above_by_numbers(target_frame, cards, margin)  # (``by_numbers_notes``)
    for early, late in sorted(pairs):
        if early in by_numbers:
            continue
        if sum(early in pair or late in pair for pair in pairs) == 1 and status[early] == "above":
            worth = (
                f"({early} worth {metric_of[early]:.2f} points on the study's deals, {late} "
                f"{metric_of[late]:.2f})"
            )
            found.append((early, late, (early, late) in dominates, worth))
    return found


def by_numbers_notes(target_frame: pd.DataFrame, cards: CardSet, margin: float) -> list[str]:
    """Why each card ``above_by_numbers`` is above its target while its CI may reach
    into the band: the later cards it matches or beats and is worth more than."""
    _, value_of, _ = plan_rows(target_frame)
    dominates = dominated_pairs(cards)
    pairs = by_numbers_pairs(target_frame, cards, margin)
    notes = []
    for card in sorted({early for early, _ in pairs}):
        beaten = sorted(late for early, late in dominates if early == card)
        below = sorted(late for early, late in pairs if early == card)
        notes.append(
            f"{card}: above its target by its numbers: it matches or beats "
            f"{' and '.join(beaten)} in hike, paint and directions and wakes earlier, and is "
            f"worth more than {' and '.join(below)} ({value_of[card]:.2f} points on the "
            "study's deals, against "
            + " and ".join(f"{value_of[late]:.2f}" for late in below)
            + "), whatever the noise"
        )
    return notes


def unnamed_pair_notes(target_frame: pd.DataFrame, cards: CardSet) -> list[str]:
    """A note for each plan card that matches or beats a later one in every field while
    neither is named (the earlier above its target, the later below): the numbers say
    one of the two is out of line (``numbers_roles`` may say which), and restricted play
    does not. P7 cut to diagonal, 2, 2 was matched by P5 and nothing was said."""
    plan, value_of, status = plan_rows(target_frame)
    highs = plan["target_high"] if "target_high" in plan else pd.Series(math.nan, plan.index)
    high_of = dict(zip(plan["card"], highs.to_numpy(dtype=float), strict=True))
    worth = {  # (a card judged again on fresh deals gives its value there)
        row["card"]: f"{row['card']} {row['value']:.2f} points on "
        + ("fresh deals" if row.get("measured_on") == "fresh" else "the study's deals")
        for _, row in plan.iterrows()
    }
    pairs = matching_pairs(cards)
    strong, weak = numbers_roles(pairs)
    held_pairs = dominated_pairs(cards)
    notes = []
    for early, late in sorted(pairs):
        if early not in status or late not in status:
            continue
        if status[early] == "above" or status[late] == "below":
            continue
        if not (np.isfinite(value_of[early]) and np.isfinite(value_of[late])):
            continue
        blamed = late if late in weak else early if early in strong else None
        which = (
            f"by their numbers {blamed} is the one ({'matched by' if blamed == late else 'matching'} "
            "more cards than the other)"
            if blamed
            else "their numbers alone do not tell which"
        )
        held = (  # still held under the later card's value, and unsettled above it
            f"; {early} is held to no more than {late}'s value and is unsettled against it: "
            "more deals would tell"
            if status[early] == "unsettled"
            and (early, late) in held_pairs
            and value_of[early] > high_of[early]
            else ""
        )
        notes.append(
            f"{early} matches or beats {late} in hike, paint and directions and wakes earlier: "
            f"one of the two is out of line ({early} too strong for its wake-up time, or "
            f"{late} too weak for its own); {which} ({worth[early]}, {worth[late]}), and "
            f"restricted play does not tell it: neither is named{held}"
        )
    return notes


def lone_pair_notes(target_frame: pd.DataFrame, cards: CardSet, margin: float) -> list[str]:
    """A note for each pair of plan cards out of wake-up order with each other alone: the
    study names the earlier as too strong, but the later may be the one too weak, and
    restricted play cannot tell which (the designer should look at both)."""
    notes = []
    for early, late, dominated, worth in _lone_pairs(target_frame, cards, margin):
        if dominated:  # the numbers tell: no margin, no doubt
            notes.append(
                f"{early} matches or beats {late} in hike, paint and directions and wakes "
                f"earlier, and is worth more {worth}: {early} is named as too strong for "
                f"its wake-up time (or else {late} does too little for its own)"
            )
            continue
        notes.append(
            f"{early} and {late} are out of wake-up order with each other alone {worth}: "
            f"{early} is named as too strong for its wake-up time, but {late} may be too "
            "weak for its own; restricted play cannot tell which"
        )
    return notes


def _blame(
    card: str, pairs: dict[tuple[str, str], float], wake_of: dict[str, int]
) -> tuple[int, float, int]:
    """How strongly ``card`` is blamed for the broken pairs: the pairs it is in, then the
    points by which they break the order (rounded: equal sums stay equal), then earlier."""
    mine = [excess for pair, excess in pairs.items() if card in pair]
    return len(mine), round(sum(mine), 9), -wake_of[card]


def out_of_wake_order(
    metric_of: dict[str, float],
    wake_of: dict[str, int],
    margin: float,
    half_width_of: dict[str, float] | None = None,
    dominates: Pairs = frozenset(),
) -> dict[str, str]:
    """The plan cards that break the wake-up order (a card worth more than ``margin``
    above a card that wakes later: ``broken_pairs``), each as "early" (too strong for its
    wake-up time) or "late" (too weak for it). A card out of order with several others is
    the one to change, not each of them: a weak late card is worth less than every card
    before it, and blaming those would weaken the set's good cards. So the broken pairs
    are covered by as few cards as possible: the card in the most pairs first; of those,
    the one that breaks the order by the most points (the odd one out of three cards in
    reverse order); then the earlier, as a single broken pair cannot tell which of its two
    is wrong; until none is left."""
    cards = [c for c, v in metric_of.items() if np.isfinite(v)]
    pairs = broken_pairs(metric_of, wake_of, margin, half_width_of, dominates)
    culprits: dict[str, str] = {}
    while pairs:
        blame = {card: _blame(card, pairs, wake_of) for card in cards}
        card = max(cards, key=blame.__getitem__)
        count = blame[card][0]
        as_early = sum(pair[0] == card for pair in pairs)
        culprits[card] = "early" if 2 * as_early >= count else "late"
        pairs = {pair: excess for pair, excess in pairs.items() if card not in pair}
    return culprits
