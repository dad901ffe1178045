"""The card tables (cards/tables.py) against the rule they encode, card by card and frame by
frame: R-SELL-3 (``Frame.matches``) for ``match``, and the per-commission and per-frame
bitmasks built from it (also with the commissions ranked by fame per frame). The tables are
built in whole arrays; these tests rebuild each one with a loop over every pair, as the
rule reads."""

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
    """match, land_fit, land_commissions, land_frames, comm_frame_words and the ranked
    tables, one (card, frame) at a time."""
    frames = [frame for commission in cards.commissions for frame in commission.frames]
    n_lands, n_comm = len(cards.landscapes), len(cards.commissions)
    n_words = max(1, (n_comm + 63) // 64)
    shares = [item.fame / len(item.frames) for item in cards.commissions]
    # rank: how many commissions come first (more fame per frame, or equal and earlier)
    share_rank = np.array(
        [sum(1 for d in range(n_comm) if (-shares[d], d) < (-shares[c], c)) for c in range(n_comm)],
        dtype=np.int32,
    )
    share_by_rank = np.zeros(64 * n_words + 1, dtype=np.float64)
    for commission in range(n_comm):
        share_by_rank[share_rank[commission]] = shares[commission]
    land_commissions_ranked = np.zeros((n_lands, n_words), dtype=np.uint64)
    match = np.zeros((n_lands, len(frames)), dtype=np.uint8)
    land_fit = np.zeros((n_lands, n_comm), dtype=np.uint8)
    land_commissions = np.zeros((n_lands, max(1, (n_comm + 63) // 64)), dtype=np.uint64)
    land_frames = np.zeros((n_lands, max(1, (len(frames) + 63) // 64)), dtype=np.uint64)
    comm_frame_words = np.zeros((n_comm, land_frames.shape[1]), dtype=np.uint64)
    frame = 0
    for commission, item in enumerate(cards.commissions):
        for _ in item.frames:
            comm_frame_words[commission, frame // 64] |= np.uint64(1 << frame % 64)
            frame += 1
    for card, land in enumerate(cards.landscapes):
        frame = 0
        for commission, item in enumerate(cards.commissions):
            for slot, rule in enumerate(item.frames):
                if rule.matches(land.features):  # R-SELL-3
                    match[card, frame] = 1
                    land_fit[card, commission] |= 1 << slot
                    land_commissions[card, commission // 64] |= np.uint64(1 << commission % 64)
                    land_frames[card, frame // 64] |= np.uint64(1 << frame % 64)
                    rank = int(share_rank[commission])  # (an int32: 1 << 31 went negative)
                    land_commissions_ranked[card, rank // 64] |= np.uint64(1 << rank % 64)
                frame += 1
    return {
        "match": match,
        "land_fit": land_fit,
        "land_commissions": land_commissions,
        "land_frames": land_frames,
        "comm_frame_words": comm_frame_words,
        "share_rank": share_rank,
        "land_commissions_ranked": land_commissions_ranked,
        "share_by_rank": share_by_rank,
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
def random_card_set(draw: st.DrawFn, min_commissions: int = 1) -> CardSet:
    """The shipped set with other landscapes and commissions: frames with exact and open
    wild counts, and up to 70 commissions (more than one 64-bit word of them), with fame
    1..9 (equal shares among them, so the ranking's ties are tested too)."""
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
        st.lists(
            st.lists(frame, min_size=1, max_size=MAX_FRAMES),
            min_size=min_commissions,
            max_size=70,
        )
    )
    fames = draw(st.lists(st.integers(1, 9), min_size=len(frame_lists), max_size=70))
    commissions = tuple(
        Commission(f"C{i}", fames[i], tuple(frames)) for i, frames in enumerate(frame_lists)
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


@settings(max_examples=30, deadline=None)
@given(st.one_of(random_card_set(), random_card_set(min_commissions=65)), st.data())
def test_greedy_card_value_is_the_best_share_of_a_visible_commission(
    cards: CardSet, data: st.DataObject
) -> None:
    """greedy's card value reads the ranked tables (one bit scan, or a loop over the row
    past 64 commissions, half the examples): half the icons plus the weight times the best
    fame per frame of a commission in the row or the preview that the card fits a frame
    of."""
    from sunset_sim.strategies import greedy

    from sunset_sim.observation import OBS_CARDS, OBS_PREVIEW, OBS_ROW, OBS_ROW_LEN

    tables = build_tables(cards)
    n_comm = len(cards.commissions)
    commissions = st.integers(0, n_comm - 1)
    row = data.draw(st.lists(commissions, max_size=6, unique=True))
    preview = data.draw(st.one_of(st.just(-1), commissions.filter(lambda c: c not in row)))
    obs = np.full(OBS_CARDS, -1, dtype=np.int32)
    obs[OBS_ROW_LEN] = len(row)
    obs[OBS_ROW : OBS_ROW + len(row)] = row
    obs[OBS_PREVIEW] = preview
    weight = 1.5
    visible = np.uint64(greedy.visible_word(obs, tables.share_rank))  # (boxed as an int)
    for card, land in enumerate(cards.landscapes):
        shares = [
            cards.commissions[c].fame / len(cards.commissions[c].frames)
            for c in [*row, preview]
            if c >= 0 and any(frame.matches(land.features) for frame in cards.commissions[c].frames)
        ]
        expected = 0.5 * sum(land.features) + weight * max(shares, default=0.0)
        got = greedy.card_value(
            obs, tables.land_commissions_ranked, tables.share_rank, tables.share_by_rank,
            tables.land_icons, card, visible, weight,
        )  # fmt: skip
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (card, row, preview)


@pytest.mark.parametrize("word", [0, 1, 8, 6, 1 << 40, 1 << 63, (1 << 64) - 1])
def test_bit_scans(word: int) -> None:
    """trailing_zeros (64 for an empty mask: greedy reads share_by_rank[64] = 0.0 then) and
    lowest_bit, compiled, against Python's integers."""
    from sunset_sim.strategy_tools import lowest_bit, trailing_zeros

    expected = (word & -word).bit_length() - 1 if word else 64
    assert trailing_zeros(np.uint64(word)) == expected
    if word:
        assert lowest_bit(np.uint64(word)) == expected


def test_R_SELL_3_tables_with_a_commission_ranked_past_31() -> None:
    """Found by the property test above: 32 commissions every card fits. Its reference
    loop shifted by an int32 rank, and 1 << 31 went negative; the tables were right."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.model import Commission, Frame, Landscape

    frame = Frame((0, 0, 0, 0, 0), 0, False)
    commissions = tuple(Commission(id=f"C{i}", fame=1, frames=(frame,)) for i in range(33))
    cards = dataclasses.replace(
        load_cards(), landscapes=(Landscape(id="L0", features=(0, 0, 0, 0, 0)),),
        commissions=commissions,
    )  # fmt: skip
    assert_tables_follow_the_rule(cards)
    assert int(build_tables(cards).land_commissions_ranked[0, 0]) == (1 << 33) - 1
