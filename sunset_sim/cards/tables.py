"""Card data turned into integer tables once, for the numba engine and the strategies.

Card *indices* (position in the card set) index these tables; frames of all
commissions are numbered globally so that ``match[card, frame]`` is one lookup
(DESIGN-NOTES: precomputed card-x-frame match tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from sunset_sim.cards.model import CardSet, Frame
from sunset_sim.enums import MAX_FRAMES


class CardTables(NamedTuple):
    land_features: np.ndarray  # int32 [L, F] icon counts
    land_icons: np.ndarray  # int32 [L]
    land_kind: np.ndarray  # int32 [L] id of the card's feature multiset (equal = interchangeable)
    comm_fame: np.ndarray  # int32 [C]
    comm_n_frames: np.ndarray  # int32 [C]
    comm_frames: np.ndarray  # int32 [C, MAX_FRAMES] global frame index, -1 padded
    match: np.ndarray  # uint8 [L, total frames] R-SELL-3
    land_commissions: np.ndarray  # uint64 [L, ceil(C/64)] bit c: the card fits a frame of c
    goal_kind: np.ndarray  # int32 [G]
    goal_param: np.ndarray  # int32 [G]
    goal_fame: np.ndarray  # int32 [G]
    plan_wake: np.ndarray  # int32 [K] minutes after midnight
    plan_directions: np.ndarray  # int32 [K] bitmask over enums.DIRECTION_NAMES
    plan_hike: np.ndarray  # int32 [K]
    plan_paint: np.ndarray  # int32 [K]
    comm_share: np.ndarray  # float64 [C] fame per frame (fame / number of frames)
    land_frames: np.ndarray  # uint64 [L, ceil(total frames/64)] bit f: the card fits frame f
    land_fit: np.ndarray  # uint8 [L, C] bit s: the card fits frame s of commission c
    comm_frame_words: np.ndarray  # uint64 [C, ceil(total frames/64)] bit f: c's frame f
    # The commissions ranked by comm_share, highest first (ties by index): a card's best
    # share among a set of commissions is then its lowest set bit (greedy's card value,
    # one bit scan with no loop).
    share_rank: np.ndarray  # int32 [C] the commission's rank
    land_commissions_ranked: np.ndarray  # uint64 [L, ceil(C/64)] bit r: fits rank r's frame
    share_by_rank: np.ndarray  # float64 [64 ceil(C/64) + 1] comm_share of rank r, 0.0 after


def frame_matches(features: np.ndarray, frames: Sequence[Frame]) -> np.ndarray:
    """R-SELL-3 for every landscape (rows of ``features``, icon counts per feature type)
    and every frame at once: bool [landscapes, frames]. The same test as ``Frame.matches``,
    in whole arrays (a study builds tables for ~70 edited sets; one Python call per pair
    took 20 ms a set). tests/test_card_tables.py holds the two equal."""
    n_features = len(frames[0].required) if frames else np.shape(features)[-1]
    features = np.asarray(features, dtype=np.int64).reshape(len(features), n_features)
    required = np.array([f.required for f in frames], dtype=np.int64).reshape(
        len(frames), n_features
    )
    wild = np.array([f.wild for f in frames], dtype=np.int64)
    is_open = np.array([f.open for f in frames], dtype=bool)
    contained = (features[:, None, :] >= required[None, :, :]).all(axis=2)
    extra = features.sum(axis=1)[:, None] - required.sum(axis=1)[None, :]
    return contained & np.where(is_open, extra >= wild, extra == wild)


def _bit_words(flags: np.ndarray) -> np.ndarray:
    """bool [rows, n] as uint64 [rows, max(1, ceil(n / 64))]: bit j of word j // 64."""
    n_rows, n = flags.shape
    words = np.zeros((n_rows, max(1, (n + 63) // 64)), dtype=np.uint64)
    for first in range(0, n, 64):
        block = flags[:, first : first + 64]
        weights = np.left_shift(np.uint64(1), np.arange(block.shape[1], dtype=np.uint64))
        words[:, first // 64] = np.bitwise_or.reduce(np.where(block, weights, np.uint64(0)), axis=1)
    return words


def build_tables(cards: CardSet) -> CardTables:
    n_features = len(cards.features)
    land_features = np.array([c.features for c in cards.landscapes], dtype=np.int32).reshape(
        len(cards.landscapes), n_features
    )
    kinds: dict[tuple[int, ...], int] = {}
    land_kind = np.array(
        [kinds.setdefault(c.features, len(kinds)) for c in cards.landscapes], dtype=np.int32
    )
    frames = [frame for commission in cards.commissions for frame in commission.frames]
    comm_frames = np.full((len(cards.commissions), MAX_FRAMES), -1, dtype=np.int32)
    next_frame = 0
    for index, commission in enumerate(cards.commissions):
        for slot in range(len(commission.frames)):
            comm_frames[index, slot] = next_frame
            next_frame += 1
    match = frame_matches(land_features, frames).astype(np.uint8)
    land_fit = np.zeros((len(cards.landscapes), len(cards.commissions)), dtype=np.uint8)
    for slot in range(MAX_FRAMES):
        has = comm_frames[:, slot] >= 0
        land_fit[:, has] |= match[:, comm_frames[has, slot]] << slot
    land_commissions = _bit_words(land_fit != 0)  # fits some frame of the commission
    land_frames = _bit_words(match != 0)
    frame_owner = np.repeat(
        np.arange(len(cards.commissions)), [len(c.frames) for c in cards.commissions]
    )
    comm_frame_words = _bit_words(
        frame_owner[None, :] == np.arange(len(cards.commissions))[:, None]
    )
    comm_share = np.array([c.fame / len(c.frames) for c in cards.commissions], np.float64)
    by_share = np.argsort(-comm_share, kind="stable")  # rank -> commission
    share_rank = np.empty(len(by_share), dtype=np.int32)
    share_rank[by_share] = np.arange(len(by_share), dtype=np.int32)
    land_commissions_ranked = _bit_words(land_fit[:, by_share] != 0)
    share_by_rank = np.zeros(64 * land_commissions_ranked.shape[1] + 1, dtype=np.float64)
    share_by_rank[: len(by_share)] = comm_share[by_share]
    return CardTables(
        land_features=land_features,
        land_icons=land_features.sum(axis=1).astype(np.int32),
        land_kind=land_kind,
        comm_fame=np.array([c.fame for c in cards.commissions], dtype=np.int32),
        comm_n_frames=np.array([len(c.frames) for c in cards.commissions], dtype=np.int32),
        comm_frames=comm_frames,
        match=match,
        land_commissions=land_commissions,
        goal_kind=np.array([g.kind for g in cards.goals], dtype=np.int32),
        goal_param=np.array([g.param for g in cards.goals], dtype=np.int32),
        goal_fame=np.array([g.fame for g in cards.goals], dtype=np.int32),
        plan_wake=np.array([p.wake for p in cards.plans], dtype=np.int32),
        plan_directions=np.array([p.direction_mask for p in cards.plans], dtype=np.int32),
        plan_hike=np.array([p.hike for p in cards.plans], dtype=np.int32),
        plan_paint=np.array([p.paint for p in cards.plans], dtype=np.int32),
        comm_share=comm_share,
        land_frames=land_frames,
        land_fit=land_fit,
        comm_frame_words=comm_frame_words,
        share_rank=share_rank,
        land_commissions_ranked=land_commissions_ranked,
        share_by_rank=share_by_rank,
    )
