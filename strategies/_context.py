"""The per-decision context of the card-worth strategies (balanced, commission-hunter,
greedy-painter; ``_card_worth`` values cards with it): the visible commissions, how many
frames of each my unsold paintings fill at once and which cards would fill one more, my
worth of a frame of each, and which of them an opponent collects for. Not a strategy.

Whether one more card raises the number of frames my paintings fill at once is Hall's
theorem on at most 3 frames: with d(S) = |S| - (paintings fitting some frame of S) for
each frame subset S, the matching is frames - max(0, max d), and a card with frame mask
m raises it exactly when every S of maximal positive deficiency meets m. ``HALL`` holds
the answer for every holding (counts capped at 3), so a decision looks it up once per
visible commission, and a card's worth is then a table lookup per visible commission
(``tables.land_fit``: the frames of each commission each landscape fits).
"""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._style_tools import (
    MAX_VISIBLE,
    N_WEIGHTS,
    RATE_MISSING,
    W_GOAL,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    MAX_FRAMES,
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_COMM_PLACE,
    OBS_GOAL,
    OBS_LAND_PLACE,
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_N_PLAYERS,
    OBS_PAINTINGS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
)
from sunset_sim.strategy_tools import (
    card_features,
    lowest_bit,
    stack_empty,
)

N_MASKS = 1 << MAX_FRAMES  # frame subsets of a commission
FEW = 6  # prepare's commissions counted at once: a row of 5 and the preview
ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
# PER_MISSING[n] = 1 / max(n, 1): my rate's factor for n frames missing, with no branch
PER_MISSING = np.array([1.0 / max(n, 1) for n in range(MAX_FRAMES + 1)])


def _hall_table() -> np.ndarray:
    """HALL[FRAMES_OFFSET[n] + key]: for the paintings counted by ``key`` (2 bits per
    frame mask m = 1..2^n - 1: how many fit exactly the frames m, capped at 3, which
    changes nothing as no commission has more than 3 frames), the 8-bit mask over m of a
    card that would raise the number of frames filled at once (bits 0-7), and that number
    (bits 8+). By Hall: the matching is n - max(0, max_S d(S)) with
    d(S) = |S| - (paintings fitting some frame of S), and one more card with frames m
    raises it exactly when every S of maximal positive deficiency meets m."""
    parts = []
    for n_frames in range(MAX_FRAMES + 1):
        n_masks = (1 << n_frames) - 1
        keys = np.arange(1 << (2 * n_masks), dtype=np.int64)
        counts = [(keys >> (2 * (m - 1))) & 3 for m in range(1, n_masks + 1)]
        deficiency = []
        for subset in range(1, n_masks + 1):
            fitting = sum(counts[m - 1] for m in range(1, n_masks + 1) if m & subset)
            deficiency.append(bin(subset).count("1") - fitting)
        worst = np.zeros_like(keys)
        for d in deficiency:
            worst = np.maximum(worst, d)
        adds = np.zeros_like(keys)
        for m in range(1, n_masks + 1):
            raises = worst > 0
            for subset, d in enumerate(deficiency, start=1):
                if not m & subset:
                    raises &= d < worst
            adds |= raises.astype(np.int64) << m
        parts.append(adds | ((n_frames - worst) << 8))
    return np.concatenate(parts)


# int16 (entries < 2^10): 33 KB instead of 132 KB, so that its lookups stay in cache
HALL = _hall_table().astype(np.int16)
# where each number of frames starts in HALL
FRAMES_OFFSET = np.cumsum([0] + [1 << (2 * ((1 << n) - 1)) for n in range(MAX_FRAMES)])


@jit(inline="always")
def hall_key(packed):
    """HALL's key (2 bits per frame mask m = 1..7, each count capped at 3) of paintings
    counted in one word, 8 bits per frame mask m (bits 8m..8m+7, each count <= 64). The
    cap takes no branch: a byte b >= 3 exactly when b + 125 sets its bit 7 (b + 125 <= 189:
    no carry into the next byte)."""
    word = np.uint64(packed)
    at_least_3 = ((word + np.uint64(0x7D7D7D7D7D7D7D7D)) >> np.uint64(7)) & np.uint64(
        0x0101010101010101
    )
    capped = word | (at_least_3 * np.uint64(3))  # low 2 bits of each byte: min(b, 3)
    # gathered in three rounds of halving (7 fields, 2 bits each, 2(m - 1) for m = 1..7):
    # pairs of bytes into 4 bits per 16, then 8 bits per 32, then 14 bits
    key = (capped >> np.uint64(8)) & np.uint64(0x03030303030303)
    key = (key | (key >> np.uint64(6))) & np.uint64(0x000F000F000F000F)
    key = (key | (key >> np.uint64(12))) & np.uint64(0x000000FF000000FF)
    key = (key | (key >> np.uint64(24))) & np.uint64(0xFFFF)
    return np.int64(key)


@jit(inline="always")
def hall_entry(counts, offset, n_frames):
    """HALL's entry for the paintings counted in counts[offset + m] (how many fit exactly
    the frames m of a commission with n_frames frames, each <= 64)."""
    packed = 0
    for m in range(1, 1 << n_frames):
        packed |= counts[offset + m] << (8 * m)
    return np.int64(HALL[FRAMES_OFFSET[n_frames] + hall_key(packed)])


@jit(inline="always")
def frames_filled(packed, n_frames):
    """How many frames of a commission paintings fill at once; ``packed``: how many fit
    exactly the frames m, 8 bits per m (``hall_key``)."""
    return np.int64(HALL[FRAMES_OFFSET[n_frames] + hall_key(packed)]) >> 8


# The per-decision context, in two stack arrays (a call passes each array as 7+ words, so
# the workers take these two and the few card tables they read; the ``tables`` reference
# instead of those tables, one word, played no faster: balanced and commission-hunter 0.999):
# ints[VIS + k] visible commission k, ints[ADDS + k] / ints[DENY + k] the frame masks m of
# the cards that add a frame of it for me / that an opponent collects for (bit m),
# ints[BASE + k] the frames of it my paintings fill, ints[COUNTS + k] how many of my
# paintings fit exactly its frames m, 8 bits per m (``hall_key``); floats[RATE + k] my
# worth of one more frame of it,
# floats[SHARE + k] its fame per frame, floats[WEIGHTS + w] the weights.
# Then, by the frame mask m a card fits (``fit_tables``): floats[TARGET_FIT + m] the rate
# of the target commission if such a card adds a frame of it, floats[OTHER_FIT + 8k + m]
# the same for the other visible commissions, floats[DENY_FIT + 8k + m] the fame per
# frame of commission k if an opponent collects for it (0 where not).
VIS = 0
ADDS = MAX_VISIBLE
DENY = 2 * MAX_VISIBLE
BASE = 3 * MAX_VISIBLE
COUNTS = 4 * MAX_VISIBLE
PLAN_HIKE = COUNTS + MAX_VISIBLE  # hike_scan's plan cards: their reach, paint, directions
PLAN_PAINT = PLAN_HIKE + PLAN_HAND
PLAN_DIRECTIONS = PLAN_PAINT + PLAN_HAND
N_INTS = PLAN_DIRECTIONS + PLAN_HAND
RATE = 0
SHARE = MAX_VISIBLE
WEIGHTS = 2 * MAX_VISIBLE
TARGET_FIT = WEIGHTS + N_WEIGHTS
OTHER_FIT = TARGET_FIT + N_MASKS
DENY_FIT = OTHER_FIT + MAX_VISIBLE * N_MASKS
N_FLOATS = DENY_FIT + MAX_VISIBLE * N_MASKS


@jit(inline="always")
def others_paintings(obs, block, me, n_seats):
    """Bitmask over landscapes block .. block + 63: the other players' unsold paintings
    (public places), found without a branch per card: most cards are on the grid, in
    the deck or sold, so a branch would mispredict."""
    first = obs[OBS_LAND_PLACE] + block
    places = obs[first : first + min(64, obs[OBS_COMM_PLACE] - first)]
    theirs = np.uint64(0)
    for offset in range(places.shape[0]):
        # an unsigned index: no wraparound test, so the loop vectorizes without gathers
        seat = places[np.uint64(offset)]
        bit = np.uint64(1) << np.uint64(offset)
        theirs |= bit if seat >= 0 and seat < n_seats and seat != me else np.uint64(0)
    return theirs


@jit(inline="always")
def prepare(
    obs, land_features, land_fit, land_commissions, comm_n_frames, comm_fame, comm_share,
    include_preview, rate_mode, preview_factor, with_deny, with_features, ints, floats,
):  # fmt: skip
    """Once per decision: the context above for the visible commissions (the row, then the
    preview if wanted). My rate of a frame is fame per frame (RATE_SHARE) or per frame still
    missing (RATE_MISSING), times ``preview_factor`` for the preview. An opponent collects
    for a commission when one of their unsold paintings (public) fits one of its frames;
    then every card that fits a frame is worth denying. Returns (number visible, my unsold
    paintings, their features as a bitmask: 0 unless ``with_features``, as only an "all
    features" goal reads them)."""
    me = obs[OBS_ME]
    n_seats = obs[OBS_N_PLAYERS]
    n_vis = 0
    for slot in range(obs[OBS_ROW_LEN]):
        ints[VIS + n_vis] = obs[OBS_ROW + slot]
        n_vis += 1
    preview_slot = -1
    if include_preview and obs[OBS_PREVIEW] >= 0:
        ints[VIS + n_vis] = obs[OBS_PREVIEW]
        preview_slot = n_vis
        n_vis += 1
    one_word = land_commissions.shape[1] == 1
    n_held = obs[OBS_N_PAINTINGS]
    held = obs[OBS_PAINTINGS : OBS_PAINTINGS + n_held]  # my unsold paintings
    held_features = 0
    for i in range(n_held if with_features else 0):
        held_features |= card_features(land_features, held[np.uint64(i)])
    collected = np.uint64(0)  # one word: commissions some opponent's painting fits
    started = stack_empty(MAX_VISIBLE, np.int64)  # more: 1 where an opponent collects
    for k in range(n_vis if with_deny and not one_word else 0):
        started[k] = 0
    first = obs[OBS_LAND_PLACE]
    n_landscapes = obs[OBS_COMM_PLACE] - first
    if with_deny and one_word:
        places = obs[first : first + n_landscapes]
        for card in range(n_landscapes):
            # an unsigned index: no wraparound test, so the loop vectorizes without gathers.
            # Every word is loaded and masked: "word if theirs else 0" compiled to masked
            # loads (vpmaskmovq), three times as slow on AMD EPYC (80 against 26 ns for 60
            # cards, alone); scripts/ab_bench.py, 7 rounds: balanced 1.027 of its speed.
            # (A place < 0, not a seat, is a large unsigned one.)
            seat = np.uint32(places[np.uint64(card)])
            theirs = (seat < np.uint32(n_seats)) & (seat != np.uint32(me))
            mask = np.uint64(theirs) * ALL_ONES
            collected |= land_commissions[np.uint64(card), 0] & mask
    for block in range(0, n_landscapes if with_deny and not one_word else 0, 64):
        theirs = others_paintings(obs, block, me, n_seats)
        while theirs:
            card = block + lowest_bit(theirs)
            theirs &= theirs - np.uint64(1)
            for k in range(n_vis):
                if land_fit[card, ints[VIS + k]]:
                    started[k] = 1
    # my paintings' counts per frame mask m of each visible commission, 8 bits per m of
    # one word (at most MAX_PAINTINGS = 64 each). Up to FEW commissions (4 players: the
    # row and the preview), the paintings in the outer loop and the FEW in the inner one
    # (a fixed count: unrolled, the sums in registers; past the last, the last again):
    # commissions outer and paintings inner took a loop exit per commission. In
    # alternating runs against 60a618e: balanced 1.020-1.025 of its speed, greedy-painter
    # 1.024, commission-hunter 1.013 (a loop over blocks of FEW for any row: 1.010).
    if n_vis <= FEW:
        columns = stack_empty(FEW, np.int64)
        few_counts = stack_empty(FEW, np.int64)
        for k in range(FEW):
            columns[k] = ints[VIS + min(k, n_vis - 1)] if n_vis > 0 else 0
            few_counts[k] = 0
        for i in range(n_held):
            card = np.uint64(held[np.uint64(i)])
            for k in range(FEW):
                m = np.int64(land_fit[card, np.uint64(columns[k])])  # (not uint8)
                few_counts[k] += np.int64(1) << (8 * m)
        for k in range(FEW):
            ints[COUNTS + k] = few_counts[k]
    else:
        for k in range(n_vis):
            commission = np.uint64(ints[VIS + k])  # (unsigned indices: no wraparound tests)
            counts = 0
            for i in range(n_held):
                m = np.int64(land_fit[np.uint64(held[np.uint64(i)]), commission])  # (not uint8)
                counts += np.int64(1) << (8 * m)
            ints[COUNTS + k] = counts
    for k in range(n_vis):
        commission = np.uint64(ints[VIS + k])  # (unsigned indices: no wraparound tests)
        counts = ints[COUNTS + k]
        n_frames = comm_n_frames[commission]
        if one_word:
            is_started = with_deny and ((collected >> commission) & np.uint64(1)) != 0
        else:
            is_started = started[k] != 0
        key = np.uint64(FRAMES_OFFSET[np.uint64(n_frames)] + hall_key(counts))
        hall = np.int64(HALL[key])
        ints[ADDS + k] = hall & 255
        base = hall >> 8
        ints[BASE + k] = base
        floats[SHARE + k] = comm_share[commission]
        # (1 / frames missing from a table: no division; x 1.0 off the preview, no branch)
        if rate_mode == RATE_MISSING:
            rate = comm_fame[commission] * PER_MISSING[np.uint64(n_frames - base)]
        else:
            rate = comm_share[commission]
        floats[RATE + k] = rate * (preview_factor if k == preview_slot else 1.0)
        ints[DENY + k] = (1 << (1 << n_frames)) - 2 if is_started else 0  # m = 1 .. 2^n - 1
    return n_vis, n_held, held_features


@jit(inline="always")
def context(
    obs, tables, include_preview, rate_mode, preview_factor, with_deny, weights, ints, floats
):
    """``prepare`` with the card tables it reads, then the weights (icons, target, other,
    deny, goal: W_* order) into floats. Returns (number visible, my unsold paintings,
    their features if today's goal is "all features" and weighs anything, else 0)."""
    for w in range(N_WEIGHTS):
        floats[WEIGHTS + w] = weights[w]
    goal = obs[OBS_GOAL]
    with_features = (
        goal >= 0 and tables.goal_kind[goal] == GOAL_ALL_FEATURES and weights[W_GOAL] != 0.0
    )
    return prepare(
        obs, tables.land_features, tables.land_fit, tables.land_commissions,
        tables.comm_n_frames, tables.comm_fame, tables.comm_share, include_preview,
        rate_mode, preview_factor, with_deny, with_features, ints, floats,
    )  # fmt: skip
