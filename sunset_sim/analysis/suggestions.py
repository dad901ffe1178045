"""A designer study's suggestions (``study.run_study`` step 4): for every commission or
plan card outside its target, a walk toward the band one step at a time on the study's
deals, each set inside VERIFIED by playing the whole field on fresh deals before it is
suggested (and, if none is, the sets outside whose CI on the study's deals still reached
the band, nearest first); then all verified edits are played together once more.
Before them, ``fresh_deals.refine_targets`` measures a card outside its band, or at its
edge, on fresh deals: a suggestion is sought only for a card still outside there.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from sunset_sim.analysis.edit_bounds import EditBand
from sunset_sim.analysis.experiments import Lab, Restriction
from sunset_sim.analysis.fresh_deals import (
    VERIFY_ROUNDS,
    Status,
    measured_metric,
    metric_and_use,
    pooled,
    restated,
    straddles,
)
from sunset_sim.analysis.suggestion_notes import (
    edit_text,
    near_note,
    nearest_text,
    unsettled_note,
    with_fresh,
)
from sunset_sim.analysis.targets import (
    METRIC,
    METRIC_TEXT,
    Targets,
    band_figures,
    inside_band,
)
from sunset_sim.analysis.wake_order import (
    above_by_numbers,
    dominated_pairs,
    lone_pairs,
    matches_or_beats,
)
from sunset_sim.cards.difficulty import FAME_MIN
from sunset_sim.cards.edit import CardEditError, card_value, edit_card
from sunset_sim.cards.model import CardSet

__all__ = [
    "PLAN_FIELDS",
    "SUGGESTION_COLUMNS",
    "suggest",
    "walk_limit",
]


PLAN_FIELDS = ("wake", "hike", "paint", "directions")
# A stronger plan card wakes earlier (wake -1) or does more (+1); a weaker one the reverse.
STRONGER = {"wake": -1, "hike": 1, "paint": 1, "directions": 1}


def _candidates(cards: CardSet, family: str, card: str, status: str) -> list:
    """Every field's one-step edit that moves the card's metric toward its band (those
    the field's range allows): ``(field, steps, edited set)``."""
    sign = -1 if status == "above" else 1
    if family == "commission":  # never under FAME_MIN: a fame-0 card no one sells read
        fame = int(card_value(cards, card, "fame"))  # as "inside"
        fields = [("fame", sign)] if fame + sign >= FAME_MIN else []
    else:
        fields = [(f, sign * STRONGER[f]) for f in PLAN_FIELDS]
    found = []
    for field_, steps in fields:
        try:
            found.append((field_, steps, edit_card(cards, card, field_, steps)))
        except CardEditError:
            continue
    return found


def _search(
    lab: Lab, cards: CardSet, target: pd.Series, max_steps: int, status: Status, bounds: EditBand,
    tried: list | None = None,
) -> Iterator[dict[str, int]]:  # fmt: skip
    """A walk toward the band, one step at a time: at each step every field's one-step
    edit of the set walked so far (commissions: fame; plan cards: wake, hike, paint,
    directions) is measured on the study's deals, and the one that leaves the metric
    nearest the band (then nearest where it aims, ``EditBand.aim``) is taken. Yields the
    edits so far (field -> steps) each time the walk is inside the band, until
    ``max_steps`` steps or no field can move further.

    Steps may mix fields: an early card made strong in several fields at once came back
    inside its band only by giving up some of more than one (one field at a time fell
    short at every size, and a later wake-up time raised its value). ``tried``, if given,
    ends up holding every edit measured: (miss, edits, (value, CI low, CI high), low,
    high), for the steps outside that may yet be inside (``_plausible``) and the note
    when none is (a whole fame point can jump the band)."""
    family, card = target["family"], target["card"]
    edits: dict[str, int] = {}
    current = cards
    for _ in range(max_steps):
        best = None
        for field_, steps, edited in _candidates(current, family, card, target["status"]):
            walked = {**edits, field_: edits.get(field_, 0) + steps}
            step = _measured_step(lab, edited, target, walked, status, bounds)
            miss, _, measure, low, high = step
            value = measure[0]
            aim = bounds.aim(edited, low, high)
            key = (miss, abs(value - aim) if np.isfinite(value) else math.inf)
            if best is None or key < best[0]:
                best = (key, walked, edited)
            if tried is not None:
                tried.append(step)
        if best is None:
            return
        (miss, _), edits, current = best
        if miss == 0.0:
            yield dict(edits)


def _measured_step(
    lab: Lab, edited: CardSet, target: pd.Series, walked: dict[str, int], status: Status,
    bounds: EditBand, how: str = "",
) -> tuple:  # fmt: skip
    """One edit measured on the study's deals, as ``tried`` holds it: (miss, edits,
    (value, CI low, CI high), band low, band high); miss is how far outside (0 inside)."""
    family, card = target["family"], target["card"]
    measure = measured_metric(lab, edited, family, card)
    lab.forget(edited)
    low, high = bounds(edited)
    value = measure[0]
    status(
        f"  {card} {edit_text(walked)}: {value:.2f} ({how or f'target {low:.2f} to {high:.2f}'})"
    )
    return _miss(value, low, high), walked, measure, low, high


def _miss(value: float, low: float, high: float) -> float:
    """How far ``value`` lies outside low .. high (0 inside, to ``EDGE``; inf unmeasured):
    a step's order in ``tried``."""
    if not np.isfinite(value):
        return math.inf
    return 0.0 if inside_band(value, low, high) else max(low - value, value - high)


def _pruned(
    lab: Lab, cards: CardSet, target: pd.Series, walked: dict[str, int], status: Status,
    bounds: EditBand, tried: list,
) -> dict[str, int]:  # fmt: skip
    """The walk's edits less each field it did not need: a plan card's walk may take
    steps of one field that move its value little before those of the field that
    brings it in, so each field is left out in turn (``PLAN_FIELDS`` order) and stays
    out where the card is still inside on the study's deals without it. (P1 given paint
    4 at 3 players: paint 4 -> 3 changed nothing with hike 1, so the walk first woke it
    later; "wake 5:00 -> 5:30 and paint 4 -> 1" was suggested where paint 4 -> 1 alone,
    the card as it was, is inside, and P1 then woke after two later cards.)"""
    edits = dict(walked)
    for field_ in [f for f in PLAN_FIELDS if f in walked]:
        if len(edits) == 1:
            break
        fewer = {f: steps for f, steps in edits.items() if f != field_}
        edited = _apply(cards, [(target["card"], f, steps) for f, steps in fewer.items()])
        step = _measured_step(lab, edited, target, fewer, status, bounds, f"without {field_}")
        tried.append(step)
        if step[0] == 0.0:
            edits = fewer
    return edits


def _plausible(tried: list) -> list:
    """The steps measured that may be inside the band: inside on the study's deals (a
    field walked alone: ``_single_fields``; ``suggest`` leaves out those it verified
    already), or outside with a 95% CI there still reaching it; the smallest edit first
    (then the nearest): a low-fame commission's value
    per point is wide on a few thousand deals (C03 raised from 2 to 7 in a greedy 4-player
    field, 2,000 deals: fame 2 measured -0.04 there, below its band, and 0.15 on 8,000
    fresh deals, inside), so they are verified too. Nearest first verified C14 4 -> 2
    (its value on the study's deals 0.00, CI -0.37 to 0.37, the nearest by chance), below
    its band on new seeds, before 4 -> 3, inside on each."""
    reach = [
        step
        for step in tried
        if step[0] == 0.0 or (step[0] > 0.0 and step[2][1] <= step[4] and step[2][2] >= step[3])
    ]
    return sorted(reach, key=lambda step: (sum(abs(v) for v in step[1].values()), step[0]))


def _single_fields(
    lab: Lab, cards: CardSet, target: pd.Series, limit: int, status: Status, bounds: EditBand,
    tried: list,
) -> None:  # fmt: skip
    """Each field of a plan card walked alone, up to ``limit`` steps, measured on the
    study's deals into ``tried`` (the steps not measured already): the walk takes the
    step nearest the band each time, and noise can send it down another field and stall
    it (P2 made hike 3 and paint 3: hike -1 looked nearer than paint -1, and paint 3 -> 1
    alone, inside on two seeds, was never measured)."""
    family, card = target["family"], target["card"]
    measured = [step[1] for step in tried]
    for field_, steps, edited in _candidates(cards, family, card, target["status"]):
        for size in range(1, limit + 1):
            walked = {field_: size * steps}
            if walked not in measured:
                tried.append(_measured_step(lab, edited, target, walked, status, bounds, "alone"))
            try:
                edited = edit_card(edited, card, field_, steps)
            except CardEditError:
                break


def _out_of_dominance(
    lab: Lab, cards: CardSet, target: pd.Series, status: Status, bounds: EditBand, tried: list,
    most: int = 2,
) -> None:  # fmt: skip
    """The ``most`` nearest steps outside only as they still match or beat a later card in
    every field (``dominated_pairs``: held to no more than its value), each with one step
    of every other field on top, measured into ``tried``. P2 made all, hike 3 and paint 3:
    paint 3 -> 1 alone (1.82) was held under P3's value, as P2 then beat P3 in everything,
    and no walk measured it with fewer directions beside it."""
    card = target["card"]
    measured = [step[1] for step in tried]

    def edited(edits: dict[str, int]) -> CardSet:
        return _apply(cards, [(card, field_, steps) for field_, steps in edits.items()])

    held = [
        step
        for step in sorted(tried, key=lambda step: step[0])
        if 0.0 < step[0] < math.inf
        and any(early == card for early, _ in dominated_pairs(edited(step[1])))
    ]
    for step in held[:most]:
        for field_, steps, more in _candidates(edited(step[1]), "plan", card, target["status"]):
            walked = {**step[1], field_: step[1].get(field_, 0) + steps}
            if field_ in step[1] or walked in measured:
                continue
            measured.append(walked)
            tried.append(_measured_step(lab, more, target, walked, status, bounds, "fewer ties"))


SUGGESTION_COLUMNS = [
    "card",
    "field",
    "current",
    "suggested",
    "metric",
    "before",
    "after",
    "after_ci_low",
    "after_ci_high",
    "n",
    "before_ci_low",
    "before_ci_high",
    "target_low",
    "target_high",
    "after_inside",
    "games",
    "after_all_edits",
    "inside_with_all_edits",
    # a plan card named for a pair out of wake-up order with this later card alone: or
    # that card is the one too weak, which restricted play cannot tell ("" otherwise)
    "or_too_weak",
]


def plan_edit_notes(suggested: CardSet, edited: Sequence[str]) -> list[str]:
    """Notes on the suggested plan cards that a tester's loop of studies tripped on: several
    edited at once (each was measured beside the others as they were, so one card out of
    line moves the others' values and targets: P2 given P8's power put P8 above its
    target, which was inside on the shipped set, and studies of the suggested sets went
    on to weaken P7, then P6), and a card that matches or beats another waking at the
    same time in every field (the targets hold a card under later cards only)."""
    plans = {p.id: p for p in suggested.plans}
    ours = [card for card in edited if card in plans]
    notes = []
    if len(ours) > 1:
        notes.append(
            f"{', '.join(ours)}: several plan cards get an edit, each measured beside the "
            "others as they were; one card out of line moves the others' values and targets, "
            "so apply the edit of the card you changed (or the furthest outside) first and "
            "study that set again before editing the others"
        )
    for card in ours:
        mine = plans[card]
        for other in plans.values():
            if other.id == card or other.wake != mine.wake:
                continue
            for strong, weak in ((mine, other), (other, mine)):
                # (a strict one: two cards alike beat each other both ways)
                if matches_or_beats(strong, weak) and not matches_or_beats(weak, strong):
                    notes.append(
                        f"{card}: as suggested it wakes at the same time as {other.id} and "
                        f"{strong.id} matches or beats {weak.id} in hike, paint and "
                        f"directions, so {weak.id} is never the better pick at that time"
                    )
    return notes


def _apply(cards: CardSet, edits: Sequence[tuple[str, str, int]]) -> CardSet:
    for card, field_, steps in edits:
        cards = edit_card(cards, card, field_, steps)
    return cards


def all_edits_together(
    verify_lab: Lab, cards: CardSet, suggested: CardSet, frame: pd.DataFrame
) -> tuple[list[float], list[bool], list[str]]:
    """Each suggested card's value with every suggested edit made (``suggested``) on the
    first fresh deals, whether it is inside its target there, and a note per card that
    is not (the edits interact: the report and study.md say so, not only a column). One
    card's edits alone are the set its verification played, on more deals: its value
    there (a 300-deal check of the same set said "the edits interact", of one edit)."""
    if frame["card"].nunique() == 1:
        return frame["after"].tolist(), frame["after_inside"].tolist(), []
    plans = {p.id for p in cards.plans}
    verify_lab.prefetch(
        suggested,
        [
            Restriction("plan" if card in plans else "commission", card)
            for card in dict.fromkeys(frame["card"])
        ],
    )
    together, inside, notes = [], [], []
    for _, row in frame.iterrows():
        family = "plan" if row["card"] in plans else "commission"
        value, value_low, value_high = measured_metric(verify_lab, suggested, family, row["card"])
        together.append(value)
        inside.append(inside_band(value, row["target_low"], row["target_high"]))
        if not inside[-1] and not any(note.startswith(f"{row['card']}: ") for note in notes):
            figures = band_figures(value, row["target_low"], row["target_high"])
            notes.append(  # (once per card: a plan card's fields share one value)
                f"{row['card']}: with all the suggested edits together (suggested-cards.toml) "
                f"{figures[0]} (95% CI {value_low:.2f} to {value_high:.2f}) on "
                f"{verify_lab.games:,} fresh deals, outside its target {figures[1]} "
                f"to {figures[2]}"
                + (
                    " (its CI reaches the target: it may be noise)"
                    if value_low <= row["target_high"] and value_high >= row["target_low"]
                    else ""
                )
                + ": the edits interact; check it again on the suggested set (a study of "
                "suggested-cards.toml)"
            )
    return together, inside, notes


def _verified_rows(
    labs: Sequence[Lab], cards: CardSet, target: pd.Series, edits: dict[str, int],
    status: Status, bounds: EditBand, outside: list | None = None, near: list | None = None,
) -> list[dict]:  # fmt: skip
    """Play the set with this card's edits on the fresh deals: a row per edited field
    (each with the value after all of them) if the after-value is inside the target,
    else none (``bounds``: the band the edited card must be in, ``EditBand``).

    ``labs``: batches of fresh deals, the first ``verify_lab``. While the after-value's
    CI holds an edge of the band, the next batch is played too and the value is taken
    over all of them (so a card measured at the edge, a low-fame commission's value per
    point say, is judged on more deals, whichever side it first fell); the before-value
    is taken on the same batches. (The all-edits check plays the first batch alone.)
    ``outside``: where an edit that fails is put as ``tried`` holds a step (measured on
    the fresh deals), for the note on where the target lies; ``near``: where such an edit
    whose CI still reaches the band after every batch is put, as (miss, edit size, its
    rows), for ``suggest``'s nearest step."""
    family, card = target["family"], target["card"]
    edited = _apply(cards, [(card, field_, steps) for field_, steps in edits.items()])
    lab = labs[0]
    low, high = bounds(edited)
    measures = []
    uses = []
    for batch in labs[:VERIFY_ROUNDS]:
        measure, use = metric_and_use(batch, edited, family, card)
        measures.append(measure)
        uses.append(use)
        batch.forget(edited)
        after = pooled(measures)
        if not straddles(after, low, high):
            break
    before = pooled(
        [measured_metric(batch, cards, family, card) for batch in labs[: len(measures)]]
    )
    inside = inside_band(after[0], low, high)
    deals = lab.games * len(measures)
    status(
        f"  verify {card} {edit_text(edits)} on {deals} fresh deals: before "
        f"{before[0]:.2f}, after {after[0]:.2f} ({'inside' if inside else 'outside'} "
        f"{low:.2f} to {high:.2f})"
    )
    rows = [
        {
            "card": card,
            "field": field_,
            "current": card_value(cards, card, field_),
            "suggested": card_value(edited, card, field_),
            "metric": METRIC_TEXT[family],
            "before": before[0],
            "after": after[0],
            "after_ci_low": after[1],
            "after_ci_high": after[2],
            "n": deals,
            "before_ci_low": before[1],
            "before_ci_high": before[2],
            "target_low": low,
            "target_high": high,
            "after_inside": inside,
            "games": deals * len(lab.tables),
            "steps": steps,  # not a column: for applying the edit
        }
        for field_, steps in edits.items()
    ]
    if inside:
        return rows
    miss = _miss(after[0], low, high)
    if outside is not None:
        outside.append((miss, edits, after, low, high))
    # a step at which the seat never used the card (a commission nobody sold) is not
    # within noise of its target: no game changed, and its CI is only the bound of one
    # that might (paired_values._mean_ci). Suggested as the nearest step, C07 3 -> 1 was
    # dead on every later seed; the note names it as the nearest step instead
    used = not all(use == 0.0 for use in uses)
    if near is not None and used and (after[1] <= high and after[2] >= low):
        near.append((miss, sum(abs(v) for v in edits.values()), rows))
    return []


def walk_limit(cards: CardSet, target: pd.Series, max_steps: int) -> int:
    """The most steps of a card's walk: ``max_steps`` for a plan card; a commission's may
    go down to fame 1 (FAME_MIN) or up to the set's highest commission fame (at least
    ``max_steps`` either way): an over-priced easy card's value per point falls slowly
    (C08 raised from 4 to 9 in a greedy field was back inside only at 2, seven steps
    down), and a card no one sells at any fame the set uses was walked to 32."""
    if target["family"] == "plan":
        return max_steps
    fame = {commission.id: commission.fame for commission in cards.commissions}
    own = fame[target["card"]]
    room = own - FAME_MIN if target["status"] == "above" else max(fame.values()) - own
    return max(max_steps, room)


def suggest(
    study_lab: Lab,
    batches: Sequence[Lab],
    cards: CardSet,
    target_frame: pd.DataFrame,
    values: pd.DataFrame,
    targets: Targets,
    max_steps: int,
    status: Status,
    attempts: int = 4,
    by_numbers: set[str] | None = None,
    lone: dict[str, str] | None = None,
) -> tuple[pd.DataFrame, CardSet | None, list[str], dict[str, dict]]:
    """Search and verify an edit per card outside its target (module docstring);
    ``batches``: the fresh deals (``fresh_batches``). Also returns, by card, the target
    columns of a card whose verification measured it on more fresh deals than its status
    rests on, and found it no longer outside (``fresh_deals.restated``): no edit for it."""
    notes = []
    changed: dict[str, dict] = {}
    verify_lab = batches[0]  # (the others: for verifications that stay at the band's edge)
    # above by their numbers (on the study's deals, as ``card_targets`` judged them, else
    # on ``target_frame``): no more deals restate these (``targets``: None in tests)
    margin = (targets or Targets()).later_margin
    if by_numbers is None:
        by_numbers = above_by_numbers(target_frame, cards, margin)
    if lone is None:  # (as its note says them: on the study's deals, given by run_study)
        lone = lone_pairs(target_frame, cards, margin)
    chosen = target_frame["status"].isin(["above", "below"]) & target_frame["family"].isin(METRIC)
    rows: list[dict] = []
    edits: list[tuple[str, str, int]] = []
    for _, target in target_frame[chosen].iterrows():
        card = target["card"]
        first_note = len(notes)
        status(f"searching an edit for {target['family']} {card} ({target['status']})")
        bounds = EditBand(values, targets, target, cards)
        found: list[dict] = []
        tries = 0
        limit = walk_limit(cards, target, max_steps)
        tried: list = []
        verified: list[dict[str, int]] = []
        fresh: list = []  # the steps verified and found outside, as measured on fresh deals
        near: list = []  # those of them whose CI still reaches the band (``_verified_rows``)
        for walked in _search(study_lab, cards, target, limit, status, bounds, tried):
            walked = _pruned(study_lab, cards, target, walked, status, bounds, tried)
            if walked in verified:
                continue
            found = _verified_rows(batches, cards, target, walked, status, bounds, fresh, near)
            verified.append(walked)
            tries += 1
            if found or tries == attempts:
                break
            notes.append(
                f"{card}: {edit_text(walked)} was inside its target on the study's deals "
                "but not on the fresh deals; the search walked on"
            )
        if not found and target["family"] == "plan":
            _single_fields(study_lab, cards, target, limit, status, bounds, tried)
            _out_of_dominance(study_lab, cards, target, status, bounds, tried)
        plausible = [] if found else _plausible(tried)
        plausible = [step for step in plausible if step[1] not in verified][: attempts - tries]
        for miss, walked, measure, low, high in plausible:
            found = _verified_rows(batches, cards, target, walked, status, bounds, fresh, near)
            if found and miss > 0:
                figures = band_figures(measure[0], low, high)
                notes.append(
                    f"{card}: {edit_text(walked)} was outside its target on the study's "
                    f"deals ({figures[0]}, 95% CI {measure[1]:.2f} to {measure[2]:.2f}, "
                    f"against {figures[1]} to {figures[2]}) and inside on the fresh deals"
                )
            if found:
                break
        if not found:
            searched = (
                f"{card}: the walk toward its target (up to {limit} steps, within the "
                "values its fields may take, each step the one that left it nearest"
                + (", and each field alone" if target["family"] == "plan" else "")
                + ") found no edit verified inside it"
                + nearest_text(with_fresh(tried, fresh), target["status"])
            )
            if not near:
                notes.append(searched + "; nothing suggested for it")
                continue
            found = min(near, key=lambda entry: entry[:2])[2]
            notes.append(searched + "; " + near_note(found[0]))
        else:
            unsettled = unsettled_note(found[0])
            if unsettled:
                notes.append(unsettled)
        before = (found[0]["before"], found[0]["before_ci_low"], found[0]["before_ci_high"])
        change = None if card in by_numbers else restated(target, before, found[0]["n"])
        if change is not None:  # (its search's notes are of a card not outside)
            del notes[first_note:]
            notes.append(change["note"])
            changed[card] = change["values"]
            continue
        rows.extend({**row, "or_too_weak": lone.get(card, "")} for row in found)
        edits.extend((card, row["field"], row["steps"]) for row in found)
    frame = pd.DataFrame(rows, columns=SUGGESTION_COLUMNS)
    if not rows:
        return frame, None, notes, changed
    suggested = _apply(cards, edits)
    notes += plan_edit_notes(suggested, list(dict.fromkeys(frame["card"])))
    status(f"checking all {len(rows)} edit(s) together on the fresh deals")
    together, inside, more = all_edits_together(verify_lab, cards, suggested, frame)
    notes += more
    frame["after_all_edits"] = together
    frame["inside_with_all_edits"] = inside
    return frame, suggested, notes, changed
