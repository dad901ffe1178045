"""The study's targets and suggestions (analysis/targets.py, analysis/suggestions.py):
the bands and the wake-up order on made-up values, and single design mistakes of the
default set that a study must name, or say why it cannot."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from sunset_sim.analysis.experiments import FieldRun
from sunset_sim.analysis.fresh_deals import pooled, weighted
from sunset_sim.analysis.paired_values import POINTS, _mean_ci, paired_value
from sunset_sim.analysis.study import run_study
from sunset_sim.analysis.suggestion_notes import MEASURED_ON, nearest_text, unsettled_note
from sunset_sim.analysis.suggestions import (
    VERIFY_ROUNDS,
    _plausible,
    _verified_rows,
    all_edits_together,
)
from sunset_sim.analysis.targets import Targets, band_status, card_band
from sunset_sim.analysis.wake_order import broken_pairs, lone_pair_notes, out_of_wake_order
from sunset_sim.cards.edit import edit_card
from sunset_sim.cards.loader import load_cards

DEFAULT = load_cards()
FIELD = ["greedy"]
PLAYERS = 3


def test_targets_band():
    targets = Targets()
    low, high = targets.band(np.array([0.1, 0.2, 0.3]), "commission")
    assert (low, high) == pytest.approx((0.2 / 3, 0.4))  # median / 3 to median x 2
    low, high = targets.band(np.array([10.0, 11.0, 12.0]), "plan")
    assert (low, high) == pytest.approx((11.0 - 5.5, 11.0 + 5.5))  # 0.5 x |median|


def test_plan_band_under_the_cap_of_a_later_card():
    """A plan card is held to at most later_margin above any later card; where that cap
    falls under the other cards' band, the band ends at the cap and reaches floor_plan
    below it (it was empty: its low end above its high end)."""
    targets = Targets()
    metric = {"P1": 0.0, "P2": 10.0, "P3": 11.0, "P4": 12.0, "P5": 1.0}
    wake = {"P1": 300, "P2": 315, "P3": 330, "P4": 345, "P5": 360}
    # P5 is out of order with P2, P3 and P4: the one too weak for its time (below)
    assert out_of_wake_order(metric, wake, targets.later_margin) == {"P5": "late"}
    peers = targets.band(np.array([0.0, 10.0, 11.0, 12.0]), "plan")
    half = 3 * np.std([0.0, 10.0, 11.0, 12.0], ddof=1)  # the plain SD: larger here
    assert peers == pytest.approx((10.5 - half, 10.5 + half))
    # held to at most 2 below the best card before it, inside the others' band
    assert card_band(targets, "plan", metric, "P5", wake) == pytest.approx((12.0 - 2.0, peers[1]))
    # the earlier cards are not capped by it (they were: P2-P4 "above" a weak P5)
    assert card_band(targets, "plan", metric, "P4", wake) == pytest.approx(
        targets.band(np.array([0.0, 10.0, 11.0]), "plan")
    )
    # a cap inside the band ends it there and keeps its low end
    metric["P5"] = 12.0
    others = targets.band(np.array([10.0, 11.0, 12.0, 12.0]), "plan")
    low, high = card_band(targets, "plan", metric, "P1", wake)
    assert (low, high) == pytest.approx((others[0], 10.0 + 2.0)) and high < others[1]
    # a cap under the band: the band ends at the cap and reaches floor_plan below it
    # (a band of the floor alone, median +- 3: P1's others 5, 10, 11, 12 give 7.5 to 13.5)
    narrow = Targets(width=0.0, relative=0.0)
    metric = {"P1": 20.0, "P2": 5.0, "P3": 10.0, "P4": 11.0, "P5": 12.0}
    assert out_of_wake_order(metric, wake, narrow.later_margin) == {"P1": "early"}
    assert narrow.band(np.array([5.0, 10.0, 11.0, 12.0]), "plan") == pytest.approx((7.5, 13.5))
    low, high = card_band(narrow, "plan", metric, "P1", wake)
    assert (low, high) == pytest.approx((5.0 + 2.0 - 3.0, 5.0 + 2.0))


def test_plan_band_spans_both_groups_of_plan_values():
    """Plan values come in two groups (early cards about 0, later ones 10-20). With the
    low group the larger (P4 cut to paint 1), the robust SD measured it alone and the
    band excluded every later card: its SD is the plain one where that is larger."""
    targets = Targets()
    others = np.array([0.0, 0.6, 1.9, 1.7, 13.2, 17.1, 20.8])  # P5's others, P4 weak
    robust = 1.4826 * np.median(np.abs(others - np.median(others)))
    assert np.median(others) + 3 * robust < 13.0  # P5 (13.0) fell "above"
    low, high = targets.band(others, "plan")
    half = 3 * np.std(others, ddof=1)
    assert (low, high) == pytest.approx((1.9 - half, 1.9 + half)) and low < 13.0 < high
    # commissions keep the robust SD
    values = np.array([0.1, 0.1, 0.1, 0.1, 0.9])
    assert targets.band(values, "commission") == pytest.approx((0.1 / 3, 0.2))


def test_out_of_wake_order_names_the_card_that_breaks_it():
    """The broken pairs (a card worth more than the margin above a later card) are
    covered by as few cards as possible; a lone pair blames its earlier card."""
    wake = {f"P{i}": 300 + 15 * i for i in range(1, 9)}
    values = [0.0, 0.5, 1.0, 10.0, 11.0, 13.0, 15.0, 18.0]  # in order: nothing
    metric = dict(zip(wake, values, strict=True))
    assert out_of_wake_order(metric, wake, 2.0) == {}
    assert out_of_wake_order({**metric, "P7": 0.0}, wake, 2.0) == {"P7": "late"}
    assert out_of_wake_order({**metric, "P2": 16.0}, wake, 2.0) == {"P2": "early"}
    assert out_of_wake_order({**metric, "P5": 0.0}, wake, 2.0) == {"P4": "early"}  # lone pair
    both = out_of_wake_order({**metric, "P2": 16.0, "P7": 0.0}, wake, 2.0)
    assert both == {"P2": "early", "P7": "late"}
    assert out_of_wake_order({**metric, "P3": math.nan, "P7": 0.0}, wake, 2.0) == {"P7": "late"}


def test_a_weak_late_card_is_named_when_two_cards_before_it_differ_by_chance():
    """The audit's P6 made weak (horizontal, hike 1, paint 1), 300 deals: P4 12.47 (9.85
    to 15.08) and P5 9.50 (6.81 to 12.19) are out of order with each other by their
    values alone, making a triangle with P6 2.01 (0.85 to 3.18). Each card was in two
    pairs, the tie-break took the earliest, and P4 and P5 were named (and weakened) for
    P6's fault. A pair counts only beyond the noise of its two values; and of cards in
    as many pairs, the one breaking the order by the most points is named."""
    wake = {f"P{i}": 300 + 15 * i for i in range(1, 9)}
    metric = dict(zip(wake, [0.0, 0.5, 1.0, 12.47, 9.50, 2.01, 15.0, 18.0], strict=True))
    half = dict.fromkeys(wake, 1.0) | {"P4": 2.615, "P5": 2.69, "P6": 1.165}
    assert set(broken_pairs(metric, wake, 2.0, half)) == {("P4", "P6"), ("P5", "P6")}
    assert out_of_wake_order(metric, wake, 2.0, half) == {"P6": "late"}
    # by the values alone the P4-P5 pair stays, but P6 breaks the order by the most
    assert set(broken_pairs(metric, wake, 2.0)) == {("P4", "P5"), ("P4", "P6"), ("P5", "P6")}
    assert out_of_wake_order(metric, wake, 2.0) == {"P6": "late", "P4": "early"}
    targets = Targets()
    low, high = card_band(targets, "plan", metric, "P6", wake, half_width_of=half)
    # P6 held to at most 2 points below every card before it: below
    assert low == pytest.approx(12.47 - 2.0)
    assert band_status(2.01, 0.85, 3.18, low, high) == "below"
    # P5 is not capped by a card out of order (P6), nor P4 by P5 beyond the noise
    low, high = card_band(targets, "plan", metric, "P4", wake, half_width_of=half)
    assert band_status(12.47, 9.85, 15.08, low, high) in ("inside", "unsettled")


def test_band_status_says_unsettled_for_a_value_outside_with_a_ci_reaching_in():
    """The audit's C10: -0.003 (-0.084 to 0.079) against 0.061 to 0.365 was "inside"."""
    assert band_status(-0.003, -0.084, 0.079, 0.061, 0.365) == "unsettled"
    assert band_status(0.5, 0.37, 0.6, 0.061, 0.365) == "above"
    assert band_status(0.0, -0.1, 0.05, 0.061, 0.365) == "below"
    assert band_status(0.1, -0.1, 0.4, 0.061, 0.365) == "inside"
    assert band_status(math.nan, math.nan, math.nan, 0.061, 0.365) == "no value"


def test_a_lone_broken_pair_gets_a_note_naming_both_cards():
    """P5 cut to hike 1 and paint 1 breaks the wake-up order with P4 alone: the study names
    P4 (the earlier card of a lone pair), and a note says P5 may be the one too weak."""
    values = {"P1": 0.0, "P2": 0.5, "P3": 1.0, "P4": 12.0, "P5": 1.5, "P6": 13.0}
    frame = pd.DataFrame(
        {
            "family": "plan",
            "card": list(values),
            "value": list(values.values()),
            "status": ["above" if card == "P4" else "inside" for card in values],
        }
    )
    (note,) = lone_pair_notes(frame, DEFAULT, 2.0)
    assert note.startswith("P4 and P5 are out of wake-up order with each other alone")
    assert "P5 may be too weak for its own" in note
    # a card out of order with several (P5 below P4 and P6 too) is no lone pair
    frame.loc[frame["card"] == "P6", "value"] = 20.0
    frame.loc[frame["card"] == "P3", "value"] = 8.0
    assert lone_pair_notes(frame, DEFAULT, 2.0) == []


def test_a_commission_whose_points_are_worth_twice_the_others_is_over_priced():
    """C11 raised from fame 3 to 6, in the README's field: each of its points is worth
    2.9 times the other commissions' median (95% CI from 2.4 times; 0.7 times at fame 3).
    Inside a factor-3 band, nothing was said; the band now ends at twice the median."""
    field = ["balanced", "commission-hunter", "goal-chaser", "greedy"]
    cards = edit_card(DEFAULT, "C11", "fame", 3)
    study = run_study(field, 4, 1500, 0, cards, families=("commission",), edits=())
    target = study.targets.set_index("card").loc["C11"]
    assert target["status"] == "above"
    assert target["value_ci_low"] < 3 * target["target_high"] / 2  # inside a factor of 3
    (row,) = study.suggestions[study.suggestions["card"] == "C11"].itertuples()
    assert int(row.current) == 6 and int(row.suggested) < 6
    assert row.target_low <= row.after <= row.target_high


def test_a_walk_that_jumps_the_band_notes_its_nearest_step():
    """C02 (one flower and any one card) raised from fame 1 to 5: a whole fame point down
    jumps its target (above it at fame 2, nobody sells it at fame 1), so nothing can be
    suggested; the note names the nearest step on each side of the target, so that the
    designer sees it lies between fame 2 and fame 1."""
    cards = edit_card(DEFAULT, "C02", "fame", 4)
    study = run_study(FIELD, PLAYERS, 3000, 2, cards, families=("commission",), edits=())
    assert "C02" not in set(study.suggestions["card"])
    (note,) = [note for note in study.notes if note.startswith("C02: the walk toward")]
    between = note.split(f"(the target lies between two steps, {MEASURED_ON}: ")[1]
    above, below = between.split("; ")[:2]
    assert above.startswith("fame -3: ") and above.endswith("), above 0.05 to 0.32")
    # fresh deals (never sold on any batch: the bound at all their deals, fresh_deals.weighted)
    assert below == "fame -4: 0.00 (95% CI -0.04 to 0.04), below 0.05 to 0.32)"


def test_the_note_names_the_two_steps_the_walk_crossed_the_target_between():
    """C02 raised to fame 6 (greedy and balanced, 3 players, 400 deals): fame 3 and 2
    both measured 0.49 per point, above the target, and fame 1 0.00, below it. The note
    names fame 2 and fame 1, where the walk crossed, not the first of two equal values;
    with no crossing it names the nearest step; with a step inside, nothing."""

    def step(steps, value, half=0.3, low=0.06, high=0.39):
        miss = max(low - value, value - high, 0.0)
        return (miss, {"fame": steps}, (value, value - half, value + half), low, high)

    walk = [step(-1, 0.68), step(-2, 0.59), step(-3, 0.49), step(-4, 0.49), step(-5, 0.0)]
    walk.append(step(-6, 0.0))
    text = nearest_text(walk, "above")
    assert text.startswith(f" (the target lies between two steps, {MEASURED_ON}: fame -4: ")
    assert "fame -4: 0.49 (95% CI 0.19 to 0.79), above 0.06 to 0.39; fame -5: 0.00" in text
    assert nearest_text(walk[:4], "above") == (
        f" (nearest, {MEASURED_ON}: fame -3: 0.49 (95% CI 0.19 to 0.79), above 0.06 to 0.39)"
    )
    assert nearest_text([*walk, step(-7, 0.2)], "above") == ""
    unmeasured = (math.inf, {"fame": -1}, (math.nan,) * 3, 0.06, 0.39)
    assert nearest_text([unmeasured], "above") == ""
    # a card below its target walks up and crosses the other way
    up = [step(1, 0.0), step(2, 0.5)]
    assert "fame +1: 0.00 (95% CI -0.30 to 0.30), below 0.06 to 0.39; fame +2: 0.50" in (
        nearest_text(up, "below")
    )


def test_the_steps_outside_whose_ci_reaches_the_band_are_plausible_smallest_first():
    """(miss, edits, (value, CI low, CI high), band low, band high) of each step walked."""
    tried = [
        (0.30, {"fame": -1}, (0.50, 0.30, 0.70), 0.05, 0.20),  # CI above the band
        (0.04, {"fame": -2}, (0.24, 0.10, 0.38), 0.05, 0.20),  # above, CI reaches it
        (0.00, {"fame": -3}, (0.10, 0.00, 0.20), 0.05, 0.20),  # inside: verified already
        (0.03, {"fame": -4}, (0.02, -0.10, 0.14), 0.05, 0.20),  # below, CI reaches it
        (0.05, {"fame": -5}, (0.00, -0.05, 0.04), 0.05, 0.20),  # CI below the band
    ]
    assert [step[1] for step in _plausible(tried)] == [{"fame": -2}, {"fame": -3}, {"fame": -4}]
    assert _plausible([]) == []
    two_fields = [(0.02, {"hike": -1, "paint": -1}, (0.24, 0.10, 0.38), 0.05, 0.20)]
    one_field = [(0.05, {"paint": -2}, (0.25, 0.10, 0.42), 0.05, 0.20)]
    ordered = _plausible(two_fields + one_field + tried[1:2])
    assert [step[1] for step in ordered] == [{"hike": -1, "paint": -1}, {"fame": -2}, {"paint": -2}]
    # (suggest leaves out the steps inside the band it verified already)


def test_a_step_just_outside_on_the_studys_deals_is_verified_on_fresh_ones():
    """C03 (fame 2) raised to 7 in a greedy 4-player field, 2,000 deals: no fame was
    inside its band on the study's deals (fame 2 measured -0.04, fame 1 0.00, each with
    a CI of about +-0.28), and nothing was suggested; the steps whose CI reached the band
    are now verified on fresh deals, and fame 2 is inside there."""
    cards = edit_card(DEFAULT, "C03", "fame", 5)
    study = run_study(["greedy"], 4, 2000, 7, cards, families=("commission",), edits=())
    assert study.targets.set_index("card").loc["C03", "status"] == "above"
    (row,) = study.suggestions[study.suggestions["card"] == "C03"].itertuples()
    assert int(row.current) == 7 and int(row.suggested) < 7
    assert row.target_low <= row.after <= row.target_high
    (note,) = [note for note in study.notes if note.startswith("C03: fame")]
    assert "was outside its target on the study's deals" in note
    assert note.endswith("and inside on the fresh deals")


def test_batches_of_different_sizes_are_pooled_by_their_deals():
    equal = [(0.2, 0.1, 0.3), (0.4, 0.2, 0.6)]
    assert weighted([(*m, 1000) for m in equal]) == pytest.approx(pooled(equal))
    value, low, high = weighted([(0.2, 0.1, 0.3, 3000), (0.6, 0.4, 0.8, 1000)])
    assert value == pytest.approx(0.3)  # (3 x 0.2 + 0.6) / 4
    assert (high - low) / 2 == pytest.approx(math.sqrt((0.75 * 0.1) ** 2 + (0.25 * 0.2) ** 2))


def test_a_card_whose_ci_holds_its_bands_edge_is_measured_on_fresh_deals_too():
    """C30 raised from 8 to 13 in a greedy 4-player field, 2,000 deals: 0.19 per point
    against a top of 0.18, its CI from 0.14, was inside its target and nothing was said.
    It is measured on fresh deals (while their pooled interval holds the edge): 0.21
    (0.18 to 0.23) on 10,000 deals, past a top of 0.18 that is itself measured on the
    study's 2,000 deals, with an SD of 0.025 (the whole-value cap of the other cards'
    values): unsettled, and not edited, with a note saying so."""
    cards = edit_card(DEFAULT, "C30", "fame", 5)
    study = run_study(["greedy"], 4, 2000, 4, cards, families=("commission",), edits=())
    target = study.targets.set_index("card").loc["C30"]
    assert target["n"] > 2000 and target["value"] > target["target_high"]
    assert target["value_ci_low"] > target["target_high"]  # past the edge by its CI alone
    assert target["target_high_sd"] > 0.01
    assert target["status"] == "unsettled"
    (note,) = [note for note in study.notes if note.startswith("C30: 0.19 on the study's")]
    assert "the band's own error" in note
    assert study.suggestions[study.suggestions["card"] == "C30"].empty


def test_study_walks_an_over_priced_easy_commission_back_past_six_steps():
    """C08 (two trees) raised from fame 4 to 9: in a greedy field its value per fame
    point falls slowly and is back inside its target only at fame 2, seven steps down;
    the walk stopped at six and nothing was suggested."""
    cards = edit_card(DEFAULT, "C08", "fame", 5)
    study = run_study(FIELD, PLAYERS, 3000, 0, cards, families=("commission",), edits=())
    assert study.targets.set_index("card").loc["C08", "status"] == "above"
    (row,) = study.suggestions[study.suggestions["card"] == "C08"].itertuples()
    assert row.field == "fame" and int(row.current) == 9 and int(row.suggested) <= 9 - 7
    assert row.target_low <= row.after <= row.target_high


def test_a_commissions_whole_value_far_above_the_others_is_over_priced():
    """The band per fame point ends at whole_ratio times the other commissions' median
    whole value over the card's fame: a hard commission at twice its fame keeps a
    typical value per point, and only its whole value shows it."""
    targets = Targets()
    per_point = {"C01": 0.1, "C02": 0.2, "C03": 0.3, "C04": 0.2}
    whole = {"C01": 0.5, "C02": 1.0, "C03": 1.5, "C04": 4.0}
    wake = {}
    # without fame, the per-point band alone (median of the others 0.2)
    assert card_band(targets, "commission", per_point, "C04", wake) == pytest.approx((0.2 / 3, 0.4))
    # at fame 16 the others' median whole value (1.0) x 3 caps it at 3 / 16 per point
    low, high = card_band(targets, "commission", per_point, "C04", wake, whole, 16.0)
    assert (low, high) == pytest.approx((0.2 / 3, 3.0 / 16))
    # at fame 4 the cap (0.75) is above the per-point band's end, which stands
    assert card_band(targets, "commission", per_point, "C04", wake, whole, 4.0) == pytest.approx(
        (0.2 / 3, 0.4)
    )
    # a cap under the band's low end closes the band there, never upside down
    low, high = card_band(targets, "commission", per_point, "C04", wake, whole, 100.0)
    assert low == high == pytest.approx(0.03)
    # fame 0: the whole value counts as its one point
    assert card_band(targets, "commission", per_point, "C04", wake, whole, 0.0)[1] == 0.4


def test_a_hard_commission_at_twice_its_fame_is_named_and_walked_back():
    """C29 (three frames) doubled from fame 8 to 16 in the README's field: its value per
    point stays inside the per-point band; its whole value is several times the others'
    median, so it is named and walked back down to a verified fame."""
    field = ["balanced", "commission-hunter", "goal-chaser", "greedy"]
    cards = edit_card(DEFAULT, "C29", "fame", 8)
    study = run_study(field, 4, 1500, 0, cards, families=("commission",), edits=())
    target = study.targets.set_index("card").loc["C29"]
    assert target["status"] == "above"
    assert target["value_ci_low"] < 2 * np.median(  # inside the per-point band alone
        study.values.query("strategy == 'all' and family == 'commission' and card != 'C29'")[
            "value_per_fame"
        ]
    )
    (row,) = study.suggestions[study.suggestions["card"] == "C29"].itertuples()
    assert int(row.current) == 16 and int(row.suggested) < 16
    assert row.target_low <= row.after <= row.target_high


class _Batch:
    """A stand-in for one Lab of fresh deals: the original set's value, and an edited
    set's as given."""

    games = 100
    tables = [[], []]

    def __init__(self, after: tuple[float, float, float], use_rate: float = 0.5) -> None:
        self.after = after
        self.use_rate = use_rate

    def value(self, cards, restriction) -> dict:
        v = (1.0, 0.9, 1.1) if cards is DEFAULT else self.after
        names = ("value_per_fame", "value_per_fame_ci_low", "value_per_fame_ci_high")
        return {**dict(zip(names, v, strict=True)), "use_rate": self.use_rate}

    def forget(self, cards) -> None:
        pass


def test_a_verification_at_the_bands_edge_plays_more_fresh_deals():
    """While the after-value's CI holds an edge of the band, the next batch of fresh
    deals is played and the value taken over all of them (up to VERIFY_ROUNDS batches);
    a clear answer stops at the first batch, inside or not."""
    target = pd.Series({"family": "commission", "card": "C05", "status": "above"})

    def verify(*afters):
        batches = [_Batch(after) for after in afters]
        return _verified_rows(
            batches, DEFAULT, target, {"fame": -1}, lambda _: None, lambda _: (0.06, 0.36)
        )

    (row,) = verify((0.20, 0.15, 0.25), (9.0, 9.0, 9.0))  # clear: one batch
    assert (row["after"], row["n"], row["games"]) == (0.20, 100, 200)
    assert verify((0.45, 0.40, 0.50), (0.0, 0.0, 0.0)) == []  # clearly outside
    # 0.38 +- 0.1 holds the edge 0.36; with 0.30 +- 0.1: 0.34 +- 0.071, still; and so on
    (row,) = verify((0.38, 0.28, 0.48), (0.30, 0.20, 0.40), (0.34, 0.24, 0.44), (0.34, 0.24, 0.44))
    assert row["n"] == 400 and row["after"] == pytest.approx(0.34)
    assert (row["after_ci_low"], row["after_ci_high"]) == pytest.approx((0.34 - 0.05, 0.34 + 0.05))
    assert (row["current"], row["suggested"]) == ("3", "2")
    # the pooled value can fall outside too: judged on all the deals played
    assert verify((0.35, 0.25, 0.45), (0.45, 0.44, 0.46)) == []
    # never more than VERIFY_ROUNDS batches, however long the edge stays in the CI
    (row,) = verify(*[(0.34, 0.24, 0.44)] * (VERIFY_ROUNDS + 2))
    assert row["n"] == 100 * VERIFY_ROUNDS
    # such a suggestion is made, with a note that its CI still reaches outside; a clear
    # one gets none
    note = unsettled_note(row)
    assert note.startswith("C05: the suggested edit's value 0.34 is inside 0.06 to 0.36, but")
    assert "(0.29 to 0.39, 400 fresh deals) still reaches outside" in note
    (clear,) = verify((0.20, 0.15, 0.25))
    assert unsettled_note(clear) == ""


def test_a_step_at_which_nobody_used_the_card_is_not_the_nearest_step():
    """An edit outside its band whose CI still reaches it is kept for ``suggest``'s
    nearest step, unless the seat never used the card on any batch: then no game changed
    and its CI is only the bound of one that might (C07 3 -> 1, sold by nobody, was
    suggested as "within the noise of its target")."""
    target = pd.Series({"family": "commission", "card": "C05", "status": "above"})

    def near_after(use_rate, after=(0.0, -0.3, 0.3)):
        near, outside = [], []
        batches = [_Batch(after, use_rate) for _ in range(VERIFY_ROUNDS)]
        rows = _verified_rows(
            batches, DEFAULT, target, {"fame": -2}, lambda _: None, lambda _: (0.04, 0.23),
            outside, near,
        )  # fmt: skip
        assert rows == [] and len(outside) == 1  # outside by its value either way
        return near

    assert near_after(0.0) == []
    assert len(near_after(0.02)) == 1  # sold now and then: its CI is the noise's
    assert len(near_after(float("nan"))) == 1  # not known: judged by the CI alone


def test_study_files_describe_the_targets_the_study_was_given(tmp_path):
    """study.md (and the report's study section) print the targets the study held its
    cards to: custom Targets in Python were described as the defaults."""
    from sunset_sim.analysis.study_files import study_markdown

    custom = Targets(over_ratio=1.5, whole_ratio=4.0)
    study = run_study(FIELD, 2, 40, 0, families=("commission",), edits=(), targets=custom,
                      suggest=False)  # fmt: skip
    text = study_markdown(study)
    assert "median x 1.5" in text and "at most 4 x the other commissions'" in text
    assert "median x 2 " not in text
    assert study.target_text() == custom.describe()


def test_a_restriction_that_changed_no_game_has_no_zero_width_ci():
    """Every deal's difference 0 (a commission no seat sold in 100 games): the value is
    0 but its CI spans what 100 games cannot rule out (Wilson's limit for 0 of 100 games
    changed, times the most a game can move a win share, 100 points), so it is not
    called below its target; on 28,000 games the same zeros are a tight 0. A sample that
    varies keeps its normal CI, and a measure with no bound (fame) keeps its own."""
    zeros = np.zeros(50)
    value, low, high = _mean_ci(zeros, bound=POINTS, games=100)
    limit = 100 * 1.959964**2 / (100 + 1.959964**2)
    assert (
        value == 0
        and low == pytest.approx(-limit, rel=1e-4)
        and high == pytest.approx(limit, rel=1e-4)
    )
    assert _mean_ci(zeros, bound=POINTS, games=28_000)[2] < 0.02
    assert _mean_ci(zeros)[1:] == (0.0, 0.0)
    varied = np.array([0.0, 25.0, -25.0, 50.0] * 10)
    assert _mean_ci(varied, bound=POINTS, games=80) == _mean_ci(varied)


def test_the_reports_value_tables_name_the_cards_measured_on_more_deals():
    """A commission measured on fresh deals has one figure in the targets and findings
    (those deals) and another in the table of the study's own values: the table's heading
    says which cards and on how many deals (as many as the study's, one batch of them)."""
    from sunset_sim.analysis.report.sections.card_values import _measured_again

    targets = pd.DataFrame(
        {"family": ["commission", "commission", "plan"], "card": ["C10", "C11", "P1"],
         "n": [200, 200, 200], "measured_on": ["fresh", "study", "study"]}
    )  # fmt: skip
    study = SimpleNamespace(settings={"games": 200}, targets=targets)
    heading = _measured_again(study, "commission")
    assert "study's 200 deals" in heading and "C10 on 200 fresh" in heading
    assert "C11" not in heading
    # a study made before the column: the rows on more deals than the study's own
    older = targets.drop(columns="measured_on").assign(n=[400, 200, 200])
    assert "C10 on 400" in _measured_again(
        SimpleNamespace(settings={"games": 200}, targets=older), "commission"
    )
    assert _measured_again(study, "plan") == ""


class _FixedLab:
    """A lab whose every value per fame point is ``value`` (95% CI +-0.1) on 2,000 deals."""

    games = 2000

    def __init__(self, value: float) -> None:
        self.measured = value

    def prefetch(self, cards, restrictions) -> None:
        self.prefetched = [r.card for r in restrictions]

    def value(self, cards, restriction) -> dict:
        v = self.measured
        return {
            "value_per_fame": v,
            "value_per_fame_ci_low": v - 0.1,
            "value_per_fame_ci_high": v + 0.1,
        }


def test_a_card_outside_its_target_with_all_edits_together_gets_a_note():
    """Each edit is verified alone; with all of them made, a card can fall outside again
    (C10 in the README's report: 2 -> 3 verified at 0.05, -0.04 with the others). That
    was only a column of suggestions.csv; it is now a note in study.md and the report."""
    cards = load_cards()
    frame = pd.DataFrame(
        {"card": ["C10", "C05"], "target_low": [0.04, 0.04], "target_high": [0.27, 0.27]}
    )
    together, inside, notes = all_edits_together(_FixedLab(-0.04), cards, cards, frame)
    assert together == [-0.04, -0.04] and inside == [False, False]
    assert len(notes) == 2 and notes[0].startswith("C10: with all the suggested edits together")
    assert "-0.04 (95% CI -0.14 to 0.06) on 2,000 fresh deals" in notes[0]
    assert "(its CI reaches the target: it may be noise)" in notes[0]
    clearly = all_edits_together(_FixedLab(-0.3), cards, cards, frame)[2]
    assert "outside its target 0.04 to 0.27: the edits interact" in clearly[0]
    assert all_edits_together(_FixedLab(0.1), cards, cards, frame)[1:] == ([True, True], [])


def test_a_card_that_changed_no_outcome_is_not_shown_worth_nothing():
    """100 games (50 deals, 2 rotations) in which no outcome changed: the card's CI is
    +-3.7 points, whether the seat used it there or not (it was a zero-width 0 to 0: a
    commission used in 7% of deals, or sold by nobody in a 40-deal study, was called
    below its target and given a "verified" suggestion); on 28,000 games the bound is a
    hundredth of a point."""
    zeros = np.zeros((2, 50, 2))
    run = FieldRun(0, 2, [["a", "b"], ["b", "a"]], zeros, zeros)
    value = paired_value(run, run)
    assert value["value"] == 0 and value["value_ci_high"] == pytest.approx(3.70, abs=0.01)
    assert value["value_ci_low"] == -value["value_ci_high"] and value["games"] == 100
    many = np.zeros((140, 200, 2))
    big = FieldRun(0, 2, [["a", "b"], ["b", "a"]] * 70, many, many)
    assert paired_value(big, big)["value_ci_high"] == pytest.approx(0.0137, abs=0.001)


def test_suggested_cards_keep_the_files_line_endings_one_header_and_the_size_limit():
    """The audit: a CRLF file got a header in LF; studying a suggested set stacked a
    second header; a file near the loader's 1 MiB limit gave a suggested-cards.toml the
    loader refused."""
    from sunset_sim.analysis.study_files import suggested_text
    from sunset_sim.cards.fields import MAX_FILE_BYTES
    from sunset_sim.cards.loader import parse_cards

    crlf = parse_cards(DEFAULT.source.replace("\n", "\r\n"), "crlf.toml")
    text = suggested_text(crlf, edit_card(crlf, "C05", "fame", -1))
    assert text.count("\n") == text.count("\r\n")
    again = parse_cards(text, "suggested.toml")
    twice = suggested_text(again, edit_card(again, "C06", "fame", -1))
    assert sum("with the verified suggestions" in line for line in twice.splitlines()) == 1
    assert [c.fame for c in parse_cards(twice, "x").commissions[4:6]] == [
        DEFAULT.commissions[4].fame - 1,
        DEFAULT.commissions[5].fame - 1,
    ]
    padding = "#" * (MAX_FILE_BYTES - 40 - len(DEFAULT.source.encode())) + "\n"
    big = parse_cards(padding + DEFAULT.source, "big.toml")
    text = suggested_text(big, edit_card(big, "C05", "fame", 2))
    assert len(text.encode()) <= MAX_FILE_BYTES
    assert parse_cards(text, "x").commissions[4].fame == DEFAULT.commissions[4].fame + 2


def test_a_several_field_edit_says_its_rows_go_together():
    """A plan card's verified edit of several fields is a row per field, each with the
    whole edit's effect: study.md and the CLI say they are applied together."""
    from sunset_sim.analysis.study_files import joint_edit_lines

    rows = pd.DataFrame({"card": ["P6", "P6", "C01", "P6"]})
    assert joint_edit_lines(rows) == [
        "P6: its 3 rows are one edit (each shows the effect of all of them): apply them together"
    ]
    assert joint_edit_lines(rows[rows["card"] == "C01"]) == []
