"""A card outside its target whose target lies between two steps its fields can take
gets the nearest step still inside its target by its CI on the fresh deals, said to be
not verified inside, rather than nothing (C11 raised from 3 to 9 at 3 players: fame 4
measured 0.51 against a top of 0.39, fame 3 0.06 against a bottom of 0.06, CI -0.04 to
0.16; the card was named and nothing was suggested, so the suggested set left it broken)."""

from __future__ import annotations

import pandas as pd
import pytest

from sunset_sim.analysis import suggestion_notes, suggestions
from sunset_sim.analysis.edit_bounds import EditBand
from sunset_sim.analysis.report.sections.card_values import study_findings
from sunset_sim.analysis.study_files import (
    NEAREST,
    nearest_cards,
    suggested_text,
    suggestion_text,
    suggestions_heading,
)
from sunset_sim.analysis.targets import band_figures, telling_digits
from sunset_sim.cards.edit import edit_card
from sunset_sim.cards.loader import load_cards, parse_cards

BAND = (0.06, 0.39)


class FameDeals:
    """Deals on which a commission's value per fame point depends on its fame alone."""

    games = 800
    tables = (0, 1)

    def __init__(self, per_fame: dict[int, float], half_width: float) -> None:
        self.per_fame = per_fame
        self.half_width = half_width

    def value(self, cards, restriction) -> dict:
        fame = next(c.fame for c in cards.commissions if c.id == restriction.card)
        value = self.per_fame.get(fame, -0.3)
        return {
            "value_per_fame": value,
            "value_per_fame_ci_low": value - self.half_width,
            "value_per_fame_ci_high": value + self.half_width,
        }

    def forget(self, cards) -> None:
        pass


class FixedBand(EditBand):
    """The same band, wherever the walk goes."""

    def __init__(self, *args) -> None:
        self.family = "commission"

    def __call__(self, cards) -> tuple[float, float]:
        return BAND


def _suggest(monkeypatch, per_fame: dict[int, float], half_width: float, later=None):
    """``later``: the value per fame at the card's own (raised) fame on the fresh deals
    after the first batch, where not the first batch's."""
    monkeypatch.setattr(suggestions, "EditBand", FixedBand)
    original = load_cards(None)
    own = next(c.fame for c in original.commissions if c.id == "C11")
    cards = edit_card(original, "C11", "fame", 6)
    target = pd.DataFrame(
        [{"family": "commission", "card": "C11", "status": "above", "target_low": BAND[0],
          "target_high": BAND[1], "value": per_fame[6], "n": FameDeals.games}]
    )  # fmt: skip
    table = {own + step: value for step, value in per_fame.items()}
    deals = FameDeals(table, half_width)
    after = deals if later is None else FameDeals({**table, own + 6: later}, half_width)
    frame, suggested, notes, changed = suggestions.suggest(
        deals, [deals, after, after, after], cards, target, None, None, 4, lambda line: None
    )
    return own, frame, suggested, notes, changed


def test_a_card_measured_inside_on_more_fresh_deals_is_restated_not_edited(monkeypatch):
    """A card called outside on its first batch of fresh deals, whose edit's verification
    went on to more batches, on which the card's own value reached its target: C20 was
    "below" on 200 fresh deals (-0.33, CI -0.68 to 0.01) beside a suggestion whose
    before-value on 800 of them was -0.10 (CI -0.25 to 0.04). The larger sample stands."""
    per_fame = {6: 0.9, 5: 0.9, 4: 0.9, 3: 0.8, 2: 0.7, 1: 0.51, 0: 0.0599}
    _, frame, suggested, notes, changed = _suggest(monkeypatch, per_fame, 0.1, later=0.2)
    assert frame.empty and suggested is None
    # 0.375 (CI 0.33 to 0.42) against a top of 0.39: not settled either way
    assert changed["C11"]["status"] == "unsettled" and changed["C11"]["n"] == 4 * FameDeals.games
    assert changed["C11"]["value"] == pytest.approx((0.9 + 3 * 0.2) / 4)
    (note,) = notes
    assert note.startswith("C11: 0.38 (95% CI 0.33 to 0.42) on 3200 fresh deals")
    assert "unsettled, not above" in note and note.endswith("no edit is suggested for it")
    # the same card still outside on every batch: suggested, nothing restated
    _, frame, _, _, changed = _suggest(monkeypatch, per_fame, 0.1, later=0.8)
    assert frame["card"].tolist() == ["C11"] and changed == {}


def test_the_nearest_step_within_noise_is_suggested_when_none_is_inside(monkeypatch):
    per_fame = {6: 0.9, 5: 0.9, 4: 0.9, 3: 0.8, 2: 0.7, 1: 0.51, 0: 0.0599}
    own, frame, suggested, notes, _ = _suggest(monkeypatch, per_fame, 0.1)
    assert frame["card"].tolist() == ["C11"]
    row = frame.iloc[0]
    assert (row["current"], row["suggested"]) == (str(own + 6), str(own))  # down: above
    assert not row["after_inside"]
    assert row["after"] == pytest.approx(0.0599)
    assert row["after_ci_high"] >= BAND[0]  # its CI reaches the target
    assert next(c.fame for c in suggested.commissions if c.id == "C11") == own
    assert any("not verified inside" in note and note.startswith("C11: ") for note in notes)
    # 0.0599 against a bottom of 0.06: shown with the digits that part them
    assert suggestion_text(row).endswith(f"target 0.0600 to 0.3900: {NEAREST})")

    class Study:
        def outside(self):
            return pd.DataFrame(
                [{"family": "commission", "card": "C11", "metric": "value per fame",
                  "value": 0.9, "value_ci_low": 0.8, "value_ci_high": 1.0, "n": 800,
                  "status": "above", "target_low": BAND[0], "target_high": BAND[1]}]
            )  # fmt: skip

    study = Study()
    study.suggestions = frame
    (finding,) = study_findings(study)
    assert NEAREST in finding.text and "; suggestion, the nearest step: fame" in finding.text
    assert "verified suggestion" not in finding.text


def test_no_step_is_suggested_when_every_ci_misses_the_target(monkeypatch):
    per_fame = {6: 0.9, 5: 0.9, 4: 0.9, 3: 0.8, 2: 0.7, 1: 0.51, 0: -0.2}
    _, frame, suggested, notes, _ = _suggest(monkeypatch, per_fame, 0.05)
    assert frame.empty and suggested is None
    assert any(note.endswith("nothing suggested for it") for note in notes)


def test_a_step_inside_is_preferred_to_a_nearer_one_outside(monkeypatch):
    per_fame = {6: 0.9, 5: 0.9, 4: 0.9, 3: 0.8, 2: 0.7, 1: 0.40, 0: 0.2}
    own, frame, _, _, _ = _suggest(monkeypatch, per_fame, 0.1)
    assert frame["suggested"].tolist() == [str(own)] and frame["after_inside"].tolist() == [True]


def test_a_step_on_its_targets_edge_to_the_last_bits_is_inside(monkeypatch):
    """Win shares are twelfths: 0.12499999999999999 against a top of 0.12499999999999996
    was "outside the target by its value", and the target "between two steps"."""
    per_fame = {6: 0.9, 5: 0.9, 4: 0.9, 3: 0.8, 2: 0.7, 1: BAND[1] + 1e-15, 0: -0.2}
    own, frame, _, notes, _ = _suggest(monkeypatch, per_fame, 0.1)
    assert frame["suggested"].tolist() == [str(own + 1)]
    assert frame["after_inside"].tolist() == [True]
    assert not any("not verified inside" in note for note in notes)


def test_a_finding_names_every_field_of_a_cards_edit():
    """The findings line gave "verified suggestion: hike 4 → 2 (1.72 ...)" for an edit of
    three fields (directions, paint and hike together): a designer changed the hike alone."""
    rows = [
        {"card": "P2", "field": field, "current": old, "suggested": new, "after": 1.72,
         "after_ci_low": 1.07, "after_ci_high": 2.37, "n": 800, "target_low": -5.0,
         "target_high": 1.88, "after_inside": True}
        for field, old, new in (("directions", "all", "orthogonal"), ("paint", 3, 1),
                                ("hike", 4, 2))
    ]  # fmt: skip

    class Study:
        suggestions = pd.DataFrame(rows)

        def outside(self):
            return pd.DataFrame(
                [{"family": "plan", "card": "P2", "metric": "value", "value": 23.4,
                  "value_ci_low": 20.0, "value_ci_high": 26.0, "n": 400, "status": "above",
                  "target_low": -5.0, "target_high": 1.88}]
            )  # fmt: skip

    (finding,) = study_findings(Study())
    assert (
        "verified suggestion: directions all → orthogonal, paint 3 → 1, hike 4 → 2 "
        "(together) (1.72, 95% CI 1.07 to 2.37, on 800 fresh deals; its CI reaches outside"
    ) in finding.text


def test_the_heading_over_nearest_steps_does_not_call_them_verified():
    """study.md and the CLI listed nearest steps (after_inside false) under "Verified
    suggestions (8 cards, 8 fields)"."""
    frame = pd.DataFrame(
        {"card": ["C07", "P2", "P2", "C14"], "after_inside": [True, True, True, False]}
    )
    assert suggestions_heading(frame) == (
        "Suggestions (3 cards, 4 fields; 2 verified inside their targets, 1 the nearest "
        "step, not verified inside)"
    )
    verified = frame.assign(after_inside=True)
    assert suggestions_heading(verified) == "Verified suggestions (3 cards, 4 fields)"
    assert suggestions_heading(frame.iloc[:0]) == "Verified suggestions (0 cards, 0 fields)"
    # a tester's: C01 at 0.321 under a top of 0.324, its CI to 0.45, was counted verified
    # inside (and measured above its target on 8,000 new deals)
    measured = frame.assign(
        after_ci_low=[0.24, 1.0, 1.0, 0.1], after_ci_high=[0.45, 2.0, 2.0, 0.3],
        target_low=[0.05, -5.0, -5.0, 0.05], target_high=[0.324, 3.0, 3.0, 0.2],
    )  # fmt: skip
    assert suggestions_heading(measured) == (
        "Suggestions (3 cards, 4 fields; 1 verified inside their targets, 1 inside by value, "
        "the CI reaching outside: likely, not certain, 1 the nearest step, not verified inside)"
    )
    header = suggested_text(load_cards(), load_cards(), ["C14"], ["C07"]).splitlines()[0]
    assert (
        header.endswith(
            "not verified inside their targets (the nearest step): C14; inside by value, their "
            "CIs reaching outside (likely, not certain): C07"
        )
        and "the verified" not in header
    )


def test_suggested_cards_header_names_the_edits_not_verified_inside():
    """suggested-cards.toml's header said "with the verified suggestions ... applied"
    over a file holding two nearest steps (C06, C07 3 -> 1, each worth 0.00): a tester
    would apply them as tested fixes. It now names them."""
    default = load_cards()
    edited = edit_card(edit_card(default, "C06", "fame", -2), "C07", "fame", -2)
    frame = pd.DataFrame({"card": ["C05", "C06", "C07"], "after_inside": [True, False, False]})
    assert nearest_cards(frame) == ["C06", "C07"]
    first = suggested_text(default, edited, nearest_cards(frame)).splitlines()[0]
    assert "verified suggestions" not in first
    assert first.endswith("not verified inside their targets (the nearest step): C06, C07")
    verified = suggested_text(default, edited, nearest_cards(frame.assign(after_inside=True)))
    assert "with the verified suggestions of a sunset-sim study applied" in verified
    # a study of that file replaces its header, whichever it was
    once = parse_cards(suggested_text(default, edited, ["C06"]), "suggested.toml")
    twice = suggested_text(once, edited)
    assert sum("sunset-sim study" in line for line in twice.splitlines()) == 1


def test_a_value_rounded_onto_its_band_edge_is_shown_with_more_digits():
    """ "0.64 → 0.28 (...; target 0.05 to 0.28: outside the target by its value)": the
    after-value was 0.28125 against a top of 0.27778."""
    assert telling_digits(0.28125, 0.05, 0.27778) == 3
    assert telling_digits(0.2, 0.05, 0.27778) == 2
    assert telling_digits(0.27781, 0.05, 0.27778) == 4
    assert telling_digits(0.25, 0.05, 0.25) == 2  # equal: no digits can part them
    row = pd.Series(
        {
            "card": "C05", "field": "fame", "current": 3, "suggested": 2, "metric": "value",
            "before": 0.64, "after": 0.28125, "after_ci_low": 0.1, "after_ci_high": 0.45,
            "n": 400, "target_low": 0.05, "target_high": 0.27778, "after_inside": False,
            "likely": False,
        }
    )  # fmt: skip
    assert "0.281 (after" in suggestion_text(row)
    assert "target 0.050 to 0.278" in suggestion_text(row)


def test_the_notes_show_a_value_apart_from_its_band_edges():
    """The study's notes named a value and its band with 2 decimals alone, so "0.05 ...
    outside 0.05 to 0.31" could be read (0.0512 against a bottom of 0.0498): each note
    that sets a value against its band writes them with ``band_figures``."""
    assert band_figures(0.0512, 0.0498, 0.31) == ("0.051", "0.050", "0.310")
    assert band_figures(0.2, 0.05, 0.31) == ("0.20", "0.05", "0.31")
    # with another value against the same band: the digits that tell both apart (a note
    # read "0.05 ... outside 0.07 to 0.39; 0.070 on fresh deals")
    assert band_figures(0.05, 0.0701, 0.39, 0.0712) == ("0.050", "0.070", "0.390")
    step = (0.0017, {"fame": -1}, (0.0481, 0.01, 0.09), 0.0498, 0.31)
    assert "0.048 (95% CI 0.01 to 0.09), below 0.050 to 0.310" in suggestion_notes.step_text(step)
    row = {
        "card": "C05", "after": 0.0481, "after_ci_low": 0.01, "after_ci_high": 0.09,
        "n": 400, "target_low": 0.0498, "target_high": 0.31,
    }  # fmt: skip
    assert "0.048 (95% CI" in suggestion_notes.near_note(row)
    assert "below 0.050 to 0.310" in suggestion_notes.near_note(row)
    row["after"] = 0.0512
    assert "value 0.051 is inside 0.050 to 0.310" in suggestion_notes.unsettled_note(row)


def test_a_commissions_walk_reaches_fame_1_or_the_sets_highest_fame():
    """A plan card's walk is max_steps long; a commission's goes down to fame 1 or up to
    the set's highest commission fame (at least max_steps): 6 steps left an over-priced
    easy card unsuggested. Never to fame 0 (FAME_MIN is 1): C05 3 -> 0 was suggested,
    its after-value 0.00 a card no one sells, "inside" by the CI floor of a value that
    never moved, and the study's note put the target between fame 2 and fame 1."""
    default = load_cards()
    top = max(c.fame for c in default.commissions)
    cards = edit_card(default, "C08", "fame", 5)  # 4 -> 9
    plan = pd.Series({"family": "plan", "card": "P3", "status": "above"})
    assert suggestions.walk_limit(cards, plan, 6) == 6
    above = pd.Series({"family": "commission", "card": "C08", "status": "above"})
    assert suggestions.walk_limit(cards, above, 6) == 8
    assert [step[:2] for step in suggestions._candidates(cards, "commission", "C08", "above")] == [
        ("fame", -1)
    ]
    one = edit_card(cards, "C08", "fame", -8)
    assert suggestions._candidates(one, "commission", "C08", "above") == []  # not to 0
    assert suggestions._candidates(one, "commission", "C08", "below")[0][:2] == ("fame", 1)
    zero = edit_card(cards, "C08", "fame", -9)  # a card at 0 may still go up
    assert suggestions._candidates(zero, "commission", "C08", "below")[0][:2] == ("fame", 1)
    assert suggestions.walk_limit(cards, above, 12) == 12
    below = pd.Series({"family": "commission", "card": "C02", "status": "below"})  # fame 1
    assert suggestions.walk_limit(cards, below, 6) == max(6, max(top, 9) - 1)
