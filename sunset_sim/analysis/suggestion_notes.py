"""The words of a designer study's suggestions (``suggestions.suggest``): an edit, a step
measured on the way to a card's target and where the target lay among the steps, and
the notes on a suggestion verified but not beyond doubt, or suggested as the nearest
step. Split from analysis/suggestions.py, which searches and verifies."""

from __future__ import annotations

import math

from sunset_sim.analysis.fresh_deals import straddles
from sunset_sim.analysis.targets import band_figures, band_side

__all__ = [
    "MEASURED_ON",
    "edit_text",
    "near_note",
    "nearest_text",
    "step_side",
    "step_text",
    "unsettled_note",
    "with_fresh",
]


def edit_text(edits: dict[str, int]) -> str:
    return ", ".join(f"{field_} {steps:+d}" for field_, steps in edits.items())


def step_side(step: tuple) -> str:
    """ "above" or "below" the band (the step's own), "" inside or unknown (NaN)."""
    return band_side(step[2][0], step[3], step[4])


def step_text(step: tuple) -> str:
    _, edits_tried, measure, low, high = step
    value, low_text, high_text = band_figures(measure[0], low, high)
    return (
        f"{edit_text(edits_tried)}: {value} (95% CI {measure[1]:.2f} to "
        f"{measure[2]:.2f}), {step_side(step)} {low_text} to {high_text}"
    )


def with_fresh(tried: list, fresh: list) -> list:
    """The steps measured, each verified one as measured on the fresh deals (more deals,
    and the measure the verdict was taken on): C05 fame 1, 0.42 and "above" on the study's
    200 deals, was -0.38 and below on 800 fresh ones, and the note put the target between
    fame 1 and 0 where it lay between 2 and 1."""
    again = {tuple(sorted(step[1].items())): step for step in fresh}
    return [again.get(tuple(sorted(step[1].items())), step) for step in tried]


def nearest_text(tried: list, status: str) -> str:
    """Where the target lay among the steps measured, when none was inside (verified
    steps as measured on the fresh deals: ``with_fresh``). Where the walk crossed it (its first step past the band, on the other
    side from ``status``, and the last step before that still on this side), the target
    falls between two values the fields can take (a commission no one sells at fame 1
    and too rich at 2): the designer chooses between them, or edits another card. Else
    the step that came nearest."""
    if not tried or any(step[0] == 0.0 for step in tried):
        return ""
    far = "below" if status == "above" else "above"
    crossed = next((i for i, step in enumerate(tried) if step_side(step) == far), None)
    before = [step for step in tried[:crossed] if step_side(step) == status] if crossed else []
    if before:
        pair = f"{step_text(before[-1])}; {step_text(tried[crossed])}"
        return f" (the target lies between two steps, {MEASURED_ON}: {pair})"
    nearest = min(tried, key=lambda step: step[0])
    if not math.isfinite(nearest[0]):  # (every step unmeasured: NaN values)
        return ""
    return f" (nearest, {MEASURED_ON}: {step_text(nearest)})"


MEASURED_ON = "on the study's deals or, where verified, the fresh ones"


def unsettled_note(row: dict) -> str:
    """A note for a verified suggestion whose CI still holds an edge of its target after
    every batch of fresh deals played for it: inside by its value, not beyond doubt
    (a small study's CI may be wider than the target)."""
    low, high = row["target_low"], row["target_high"]
    if not straddles((row["after"], row["after_ci_low"], row["after_ci_high"]), low, high):
        return ""
    after, low_text, high_text = band_figures(row["after"], low, high)
    return (
        f"{row['card']}: the suggested edit's value {after} is inside {low_text} "
        f"to {high_text}, but its 95% CI ({row['after_ci_low']:.2f} to {row['after_ci_high']:.2f}, "
        f"{row['n']:,} fresh deals) still reaches outside: likely, not certain; more deals "
        "(--verify-games) would settle it"
    )


def near_note(row: dict) -> str:
    """Why an edit outside its target by its value is suggested: nothing measured was
    inside, and this one's CI on the fresh deals still reaches the target after every
    batch played for it, so a study would not name the edited card (``band_status``:
    unsettled). The target lay between two values a field can take (C11 raised from 3
    to 9: fame 4 above its band, fame 3 at its bottom edge) or needs more deals than the
    study has; suggesting nothing left the card as broken as it was."""
    side = "above" if row["after"] > row["target_high"] else "below"
    after, low, high = band_figures(row["after"], row["target_low"], row["target_high"])
    return (
        f"suggested: the nearest step within the noise of its target, {after} "
        f"(95% CI {row['after_ci_low']:.2f} to {row['after_ci_high']:.2f}, {row['n']:,} fresh "
        f"deals), just {side} {low} to {high} by its value "
        "and inside by its CI: not verified inside; more deals (--verify-games) or a "
        "change to another card would settle it"
    )
