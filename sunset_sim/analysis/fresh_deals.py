"""Fresh deals for a designer study (``study.run_study`` steps 3 and 4): the batches of
deals after the study's, the pooling of a measure over batches, and ``refine_targets``,
which judges a card outside its band, or at its edge, on fresh deals alone before an
edit is sought for it. Apart from ``suggestions`` (the walks and their verification),
which plays its verifications on the same batches."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from sunset_sim.analysis.experiments import Lab, Restriction
from sunset_sim.analysis.targets import METRIC, Targets, band_figures, band_status, inside_interval
from sunset_sim.analysis.wake_order import above_by_numbers
from sunset_sim.cards.model import CardSet

__all__ = [
    "VERIFY_ROUNDS",
    "fresh_batches",
    "measured_metric",
    "metric_and_use",
    "pooled",
    "refine_targets",
    "straddles",
    "weighted",
]

Status = Callable[[str], None]


def measured_metric(lab: Lab, cards: CardSet, family: str, card: str) -> tuple:
    """The family's target metric (value, or value per fame point) with its CI."""
    return _metric(lab.value(cards, Restriction(family, card)), family)


def metric_and_use(lab: Lab, cards: CardSet, family: str, card: str) -> tuple[tuple, float]:
    """``measured_metric`` and how often the restricted seat used the card (``use_rate``:
    0 where no game changed, and the CI is only the bound of one that might)."""
    row = lab.value(cards, Restriction(family, card))
    return _metric(row, family), row.get("use_rate", math.nan)  # (NaN: not known)


def _metric(row: dict, family: str) -> tuple:
    name = METRIC[family]
    return row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"]


VERIFY_ROUNDS = 4  # the most batches of fresh deals one verification plays


def pooled(measures: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The mean and 95% CI of equally sized batches' (value, CI low, CI high), as if
    one sample (``weighted`` with equal weights)."""
    return weighted([(*measure, 1) for measure in measures])


def straddles(measure: tuple[float, float, float], low: float, high: float) -> bool:
    """Whether an edge of the band lies inside the CI: inside or outside is not yet told."""
    return any(measure[1] < edge < measure[2] for edge in (low, high) if np.isfinite(edge))


def weighted(measures: Sequence[tuple[float, float, float, int]]) -> tuple[float, float, float]:
    """The mean and 95% CI of batches' (value, CI low, CI high, deals), as if one sample:
    the mean weighted by deals, its standard error from the batches'."""
    deals = np.array([m[3] for m in measures], dtype=float)
    weights = deals / deals.sum()
    values = np.array([m[0] for m in measures])
    halves = np.array([(m[2] - m[1]) / 2 for m in measures])
    value = float((weights * values).sum())
    half = float(np.sqrt(((weights * halves) ** 2).sum()))
    scaled = halves * deals
    if (
        len(measures) > 1
        and (values == 0.0).all()
        and scaled.min() > 0
        and scaled.max() <= 1.01 * scaled.min()
    ):
        # 0 exactly in every batch, each CI the same bound per deal: no game changed in
        # any (a commission nobody sells), and each CI is the bound for its own deals
        # (paired_values' _mean_ci), which shrinks as 1 / deals, not 1 / sqrt(deals):
        # pooled as an error, C02 (never sold, 0.00 on 8,000 fresh deals) kept a CI of
        # +-0.048 that reached its band, where the bound at 8,000 deals is +-0.024
        half = float(scaled.max() / deals.sum())
    return value, value - half, value + half


def fresh_batches(verify_lab: Lab) -> list[Lab]:
    """``verify_lab`` and the batches of fresh deals after it (VERIFY_ROUNDS in all)."""
    return [verify_lab] + [
        replace(
            verify_lab,
            first_game=verify_lab.first_game + k * verify_lab.games,
            _runs={},
            _sets={},
        )  # fmt: skip
        for k in range(1, VERIFY_ROUNDS)
    ]


def fresh_status(
    measure: tuple[float, float, float], low: float, high: float, edge_sds: tuple
) -> str:
    """A card's status on fresh deals, for a card the study's deals found outside or at
    an edge: ``band_status``, except that "inside" must be settled too (``settled``);
    else it is "unsettled". The fresh deals overturn the study's verdict only where they
    settle it: with --verify-games 5, P3 at 16.73 (CI 14.10 to 19.36) above its band on
    1,500 deals was called "inside" on 20 fresh ones, 0.00 (CI -24.00 to 24.00), and
    nothing was sought for it."""
    found = band_status(*measure, low, high, *edge_sds)
    if found == "inside" and not settled(measure, low, high, edge_sds):
        return "unsettled"
    return found


def settled(measure: tuple[float, float, float], low: float, high: float, edge_sds: tuple) -> bool:
    """Whether a value's status against its band is settled: outside beyond the noise of
    both (``band_status``'s above or below), or inside with each end of its CI, widened
    by the SD of the edge it is held to, inside the band. (``noisy_interval`` widens the
    ends by the opposite edges' SDs, as an outside verdict needs: for an inside one, C04
    at 0.22, CI 0.18 to 0.26, read settled against a top of 0.2674 whose own SD is 0.022.)"""
    found = band_status(*measure, low, high, *edge_sds)
    if found in ("above", "below"):
        return True
    if found != "inside":
        return False
    lowest, highest = inside_interval(*measure, *edge_sds)
    return lowest > low and highest < high


def refine_targets(
    batches: Sequence[Lab], cards: CardSet, target_frame: pd.DataFrame, status: Status,
    margin: float = Targets.later_margin,
) -> tuple[pd.DataFrame, list[str]]:  # fmt: skip
    """A commission or plan card outside its band on the study's deals, or "unsettled"
    there (its value outside the band, its CI holding an edge), is measured on fresh
    deals, batch by batch while their pooled CI still holds the edge; the row then gives
    the value on the fresh deals alone and its status there (``band_status``: above or
    below if its CI is, unsettled if it still reaches in). The study's deals are left out:
    they chose the card for being outside, so pooling them leans the value outward (and
    with the looks at each batch, a card on its band's edge was called outside twice as
    often as its 95% CI says: 5.2% of the time against 2.5%, 3.2% now).
    (C30 raised from 8 to 13 in a greedy 4-player field, 2,000 deals: 0.19 per point
    against a top of 0.18, CI from 0.14, was inside. And a card outside: C30 at 0.02,
    CI -0.02 to 0.06, below 0.06 to 0.28 on a study's 1,000 deals, a 3.5-SE outlier, was
    0.16 on 1,000 fresh ones and 0.10 to 0.20 on seven other seeds; only its edit's
    value was checked on the fresh deals, and a fame +1 was "verified".) Returns the frame
    and a note per card measured again, except those still outside as they were."""
    frame = target_frame.copy()
    notes = []
    by_numbers = above_by_numbers(
        target_frame, cards, margin
    )  # (settled: no deals would change it)
    for index, row in target_frame.iterrows():
        low, high, value = row["target_low"], row["target_high"], row["value"]
        edge_sds = (row["target_low_sd"], row["target_high_sd"])
        if row["family"] not in METRIC or row["status"] not in ("unsettled", "above", "below"):
            continue
        if row["card"] in by_numbers:
            continue
        measures = []
        for batch in batches:
            measures.append(
                (*measured_metric(batch, cards, row["family"], row["card"]), batch.games)
            )
            taken = weighted(measures)
            if settled(taken, low, high, edge_sds):
                break
        found = fresh_status(taken, low, high, edge_sds)
        deals = sum(m[3] for m in measures)
        frame.loc[index, ["value", "value_ci_low", "value_ci_high"]] = taken
        frame.loc[index, ["status", "n", "measured_on"]] = [found, deals, "fresh"]
        status(f"  {row['card']} measured on {deals} deals: {taken[0]:.2f} ({found})")
        more = (
            " (its CI, or the band's own error, still holding an edge of the band; more "
            "deals, --games and --verify-games, would settle it)"
            if found == "unsettled"
            else ""
        )
        was, low_text, high_text = band_figures(value, low, high, taken[0])
        now = band_figures(taken[0], low, high, value)[0]
        if row["status"] != "unsettled":
            if found != row["status"]:
                notes.append(
                    f"{row['card']}: {was} (95% CI {row['value_ci_low']:.2f} to "
                    f"{row['value_ci_high']:.2f}) on the study's deals, {row['status']} "
                    f"{low_text} to {high_text}; {now} (95% CI {taken[1]:.2f} to "
                    f"{taken[2]:.2f}) on {deals} fresh deals: {found}{more}"
                    + ("" if found in ("above", "below") else ", so no edit is sought for it")
                )
            continue
        notes.append(
            f"{row['card']}: {was} on the study's deals, outside {low_text} to "
            f"{high_text} but with a CI holding its edge; {now} (95% CI "
            f"{taken[1]:.2f} to {taken[2]:.2f}) on {deals} fresh deals: {found}{more}"
        )
    return frame, notes


def restated(target: pd.Series, before: tuple[float, float, float], deals: int) -> dict | None:
    """A card's target row measured again on more fresh deals than ``refine_targets``
    took (the before-value of an edit's verification: the same batches and the next),
    where its status there differs; else None. The larger sample's verdict stands: C20
    was "below" on 200 fresh deals, -0.33 (CI -0.68 to 0.01), while its suggestion's
    before-value on 800 of them, -0.10 (CI -0.25 to 0.04), reached its target."""
    if not deals > target.get("n", math.inf):
        return None
    low, high = target["target_low"], target["target_high"]
    edge_sds = (target.get("target_low_sd", 0.0), target.get("target_high_sd", 0.0))
    found = fresh_status(before, low, high, edge_sds)
    if found == target["status"]:
        return None
    now, low_text, high_text = band_figures(before[0], low, high, target["value"])
    note = (
        f"{target['card']}: {now} (95% CI {before[1]:.2f} to {before[2]:.2f}) on "
        f"{deals} fresh deals, measured while an edit was verified, against "
        f"{band_figures(target['value'], low, high, before[0])[0]} on the first "
        f"{int(target['n'])}: "
        f"{found}, not {target['status']} {low_text} to {high_text}, so no edit is suggested "
        "for it"
    )
    columns = ["value", "value_ci_low", "value_ci_high", "status", "n", "measured_on"]
    return {
        "values": dict(zip(columns, [*before, found, deals, "fresh"], strict=True)),
        "note": note,
    }
