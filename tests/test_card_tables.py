"""The card tables (cards/tables.py) against the rule they encode, card by card and frame by
frame: R-SELL-3 (``Frame.matches``) for ``match``, and the per-commission and per-frame
bitmasks built from it. The tables are built in whole arrays; these tests rebuild each one
with a loop over every pair, as the rule reads."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.model import CardSet, Commission, Frame, Landscape
from sunset_sim.cards.tables import build_tables, frame_matches
from sunset_sim.enums import MAX_FRAMES


def loop_tables(cards: CardSet) -> dict[str, np.ndarray]:
    """match, land_fit, land_commissions and land_frames, one (card, frame) at a time."""
    frames = [frame for commission in cards.commissions for frame in commission.frames]
    n_lands, n_comm = len(cards.landscapes), len(cards.commissions)
    match = np.zeros((n_lands, len(frames)), dtype=np.uint8)
    land_fit = np.zeros((n_lands, n_comm), dtype=np.uint8)
    land_commissions = np.zeros((n_lands, max(1, (n_comm + 63) // 64)), dtype=np.uint64)
    land_frames = np.zeros((n_lands, max(1, (len(frames) + 63) // 64)), dtype=np.uint64)
    for card, land in enumerate(cards.landscapes):
        frame = 0
        for commission, item in enumerate(cards.commissions):
            for slot, rule in enumerate(item.frames):
                if rule.matches(land.features):  # R-SELL-3
                    match[card, frame] = 1
                    land_fit[card, commission] |= 1 << slot
                    land_commissions[card, commission // 64] |= np.uint64(1 << commission % 64)
                    land_frames[card, frame // 64] |= np.uint64(1 << frame % 64)
                frame += 1
    return {
        "match": match,
        "land_fit": land_fit,
        "land_commissions": land_commissions,
        "land_frames": land_frames,
    }


def assert_tables_follow_the_rule(cards: CardSet) -> None:
    tables = build_tables(cards)
    for name, expected in loop_tables(cards).items():
        got = getattr(tables, name)
        assert got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected, err_msg=name)
    frame = 0
    for commission, item in enumerate(cards.commissions):
        assert tables.comm_n_frames[commission] == len(item.frames)
        for slot in range(MAX_FRAMES):
            expected_frame = frame + slot if slot < len(item.frames) else -1
            assert tables.comm_frames[commission, slot] == expected_frame
        frame += len(item.frames)


def test_R_SELL_3_shipped_set_tables_follow_the_rule() -> None:
    assert_tables_follow_the_rule(load_cards())


@st.composite
def random_card_set(draw: st.DrawFn) -> CardSet:
    """The shipped set with other landscapes and commissions: frames with exact and open
    wild counts, and up to 70 commissions (more than one 64-bit word of them)."""
    base = load_cards()
    n_features = len(base.features)
    counts = st.lists(st.integers(0, 3), min_size=n_features, max_size=n_features)
    landscapes = tuple(
        Landscape(f"L{i}", tuple(features))
        for i, features in enumerate(draw(st.lists(counts, min_size=1, max_size=70)))
    )
    required = st.lists(st.integers(0, 2), min_size=n_features, max_size=n_features)
    frame = st.builds(
        lambda need, wild, is_open: Frame(tuple(need), wild, is_open),
        required,
        st.integers(0, 3),
        st.booleans(),
    )
    frame_lists = draw(
        st.lists(st.lists(frame, min_size=1, max_size=MAX_FRAMES), min_size=1, max_size=70)
    )
    commissions = tuple(
        Commission(f"C{i}", 3, tuple(frames)) for i, frames in enumerate(frame_lists)
    )
    return dataclasses.replace(base, landscapes=landscapes, commissions=commissions)


@settings(max_examples=60, deadline=None)
@given(random_card_set())
def test_R_SELL_3_tables_follow_the_rule_on_any_set(cards: CardSet) -> None:
    assert_tables_follow_the_rule(cards)


@pytest.mark.parametrize("n_frames", [0, 1, 5])
def test_frame_matches_shapes(n_frames: int) -> None:
    features = np.array([[1, 0, 2], [0, 0, 0]])
    frames = [Frame((1, 0, 0), 0, True)] * n_frames
    result = frame_matches(features, frames)
    assert result.shape == (2, n_frames) and result.dtype == bool
    if n_frames:
        assert result[:, 0].tolist() == [True, False]  # (1,0,2) holds a mountain and more
    assert frame_matches([], frames).shape == (0, n_frames)  # no landscapes: nothing fits
