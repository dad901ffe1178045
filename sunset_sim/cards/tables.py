"""Card data turned into integer tables once, for the numba engine and the strategies.

Card *indices* (position in the card set) index these tables; frames of all
commissions are numbered globally so that ``match[card, frame]`` is one lookup
(DESIGN-NOTES: precomputed card-x-frame match tables).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sunset_sim.cards.model import CardSet
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
    match = np.array(
        [[frame.matches(card.features) for frame in frames] for card in cards.landscapes],
        dtype=np.uint8,
    ).reshape(len(cards.landscapes), len(frames))
    words = max(1, (len(cards.commissions) + 63) // 64)
    land_commissions = np.zeros((len(cards.landscapes), words), dtype=np.uint64)
    for card in range(len(cards.landscapes)):
        for commission in range(len(cards.commissions)):
            frames = comm_frames[commission][comm_frames[commission] >= 0]
            if match[card, frames].any():
                land_commissions[card, commission // 64] |= np.uint64(1 << (commission % 64))
    land_frames = np.zeros((len(cards.landscapes), max(1, (match.shape[1] + 63) // 64)), np.uint64)
    for card, frame in zip(*np.nonzero(match), strict=True):
        land_frames[card, frame // 64] |= np.uint64(1 << (int(frame) % 64))
    land_fit = np.zeros((len(cards.landscapes), len(cards.commissions)), dtype=np.uint8)
    for commission in range(len(cards.commissions)):
        for slot in range(MAX_FRAMES):
            if comm_frames[commission, slot] >= 0:
                land_fit[:, commission] |= match[:, comm_frames[commission, slot]] << slot
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
        comm_share=np.array([c.fame / len(c.frames) for c in cards.commissions], np.float64),
        land_frames=land_frames,
        land_fit=land_fit,
    )
