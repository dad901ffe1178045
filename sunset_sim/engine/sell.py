"""Phase 2 of a turn in the fast engine: the sales a hand allows (R-SELL-1..3), in the
reference engine's order, and making one (R-SELL-2..4), as ``rules/sell.py`` does."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.hike import put_row
from sunset_sim.engine.jit import jit
from sunset_sim.engine.state import (
    S_COMMISSION_FAME,
    S_COMMISSIONS,
    S_ICONS,
    S_SOLD,
    refresh_fame,
    trace_put,
)
from sunset_sim.enums import C_DAY, C_OFFERED, C_SEAT, MAX_FRAMES, PLACE_DISCARD
from sunset_sim.observation import (
    MAX_PAINTINGS,
    OBS_DISCARD,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_WIDTH,
)
from sunset_sim.strategy_tools import (
    lowest_bit,
    stack_empty,
)

# the enumeration in sale_options has one loop per frame
assert MAX_FRAMES == 3 and OPTION_WIDTH == 1 + MAX_FRAMES + 1


@jit(inline="always")
def firsts_of_kind(mask, same_kind):
    """The hand positions in ``mask`` with no earlier position of the same kind in it:
    one painting of each kind is offered for a frame (R-SELL-1)."""
    firsts = np.uint64(0)
    rest = mask
    while rest:
        i = lowest_bit(rest)
        rest &= rest - np.uint64(1)
        first = (same_kind[i] & mask) == np.uint64(0)
        firsts |= (np.uint64(1) << np.uint64(i)) if first else np.uint64(0)
    return firsts


@jit(inline="always")
def sale_options(obs, tables, hands, seat, n_hand, options, commission_out):
    """R-SELL-1..3 in the reference order (rules/sell.py): row 0 is "stop"; then per
    commission in row order, frame by frame over the hand in the order taken, the first
    unused painting of each feature kind only. Each commission listed is marked offered
    to ``seat`` in ``commission_out`` (C_OFFERED: a study skips a restricted game whose
    seat was never offered the banned commission).

    Returns how many options there are, all of them: rows past ``options.shape[0]`` are
    counted, not written, so the caller can give a larger buffer and ask again (R-SELL-1
    lets a player fulfil any commission in the row; nothing may be left off the list).

    The search runs on bitmasks over hand positions: per frame the paintings that fit it,
    per painting the earlier paintings of the same kind; a loop per frame (it was a
    depth-first search with a stack per depth). With the row's commissions tested
    before any is searched, and the wilderness refill's mask of empty cells
    (cleanup.py), measured with scripts/ab_bench.py against 5a2c5b1 (7 rounds of 25,000
    games): random +5.0%, greedy +3.6%, commission-hunter +1.8%. The row test as one word
    per commission (``tables.comm_frame_words`` and the sign of n_hand - frames, which
    LLVM had compiled to a branch from ``&`` on two bools), against 4d440c9 (7 rounds):
    random +7.5%, greedy +4.6%, commission-hunter +1.0%."""
    put_row(options, 0, -1, -1, -1, -1, -1)
    capacity = options.shape[0]
    n = 1
    if n_hand == 0:
        return n
    # A commission with a frame that no painting fits is skipped before the search
    # (land_frames: one bit per frame; card sets of up to 64 frames take this fast path).
    one_word = tables.land_frames.shape[1] == 1
    held = np.uint64(0)
    hand_frames = stack_empty(MAX_PAINTINGS, np.uint64)  # per hand position (one word)
    if one_word:
        for i in range(n_hand):
            hand_frames[i] = tables.land_frames[hands[seat, i], 0]
            held |= hand_frames[i]
        if held == 0:
            return n
    same_kind = stack_empty(MAX_PAINTINGS, np.uint64)  # earlier positions of the same kind
    kinds = stack_empty(MAX_PAINTINGS, np.int64)
    fit = stack_empty(MAX_FRAMES, np.uint64)  # positions fitting each frame
    kinds_ready = False
    # The row slots whose commission the hand may fill: no more frames than paintings
    # (one distinct painting per frame, R-SELL-2) and, with one word of frames, each
    # frame fitted by some painting. Found for the whole row first, without a branch per
    # commission (which mispredicted), then visited in row order.
    passing = 0
    for slot in range(obs[OBS_ROW_LEN]):
        commission = obs[OBS_ROW + slot]
        # as one word: nonzero if it has more frames than the hand has paintings, or (one
        # word of frames) a frame no painting fits (not "and" / "or", which branch)
        short = np.uint64(n_hand - tables.comm_n_frames[commission]) >> np.uint64(63)
        if one_word:
            short |= tables.comm_frame_words[commission, 0] & ~held
        passing |= (1 if short == np.uint64(0) else 0) << slot
    while passing:
        slot = lowest_bit(passing)
        passing &= passing - 1
        commission = obs[OBS_ROW + slot]
        n_frames = tables.comm_n_frames[commission]
        possible = True
        for f in range(n_frames):
            frame = tables.comm_frames[commission, f]
            mask = np.uint64(0)
            if one_word:
                for i in range(n_hand):
                    mask |= ((hand_frames[i] >> np.uint64(frame)) & np.uint64(1)) << np.uint64(i)
            else:
                for i in range(n_hand):
                    if tables.match[hands[seat, i], frame]:
                        mask |= np.uint64(1) << np.uint64(i)
            fit[f] = mask
            if mask == 0:
                possible = False
                break
        if not possible:
            continue
        if not kinds_ready:
            for i in range(n_hand):
                kind = tables.land_kind[hands[seat, i]]
                kinds[i] = kind
                before = np.uint64(0)
                for j in range(i):
                    if kinds[j] == kind:
                        before |= np.uint64(1) << np.uint64(j)
                same_kind[i] = before
            kinds_ready = True
        listed = n
        # every choice of a painting per frame, in order of hand position per frame, of
        # the paintings fitting it that no earlier frame took, each kind once
        firsts0 = firsts_of_kind(fit[0], same_kind)
        while firsts0:
            i0 = lowest_bit(firsts0)
            firsts0 &= firsts0 - np.uint64(1)
            if n_frames == 1:
                if n < capacity:
                    put_row(options, n, commission, hands[seat, i0], -1, -1, -1)
                n += 1
                continue
            taken0 = np.uint64(1) << np.uint64(i0)
            firsts1 = firsts_of_kind(fit[1] & ~taken0, same_kind)
            while firsts1:
                i1 = lowest_bit(firsts1)
                firsts1 &= firsts1 - np.uint64(1)
                if n_frames == 2:
                    if n < capacity:
                        put_row(options, n, commission, hands[seat, i0], hands[seat, i1], -1, -1)
                    n += 1
                    continue
                taken1 = taken0 | (np.uint64(1) << np.uint64(i1))
                firsts2 = firsts_of_kind(fit[2] & ~taken1, same_kind)
                while firsts2:
                    i2 = lowest_bit(firsts2)
                    firsts2 &= firsts2 - np.uint64(1)
                    if n < capacity:
                        put_row(
                            options, n, commission, hands[seat, i0], hands[seat, i1],
                            hands[seat, i2], -1,
                        )  # fmt: skip
                    n += 1
        if n > listed:
            commission_out[commission, C_OFFERED] |= np.int8(1 << seat)
    return n


@jit(inline="always")
def make_sale(
    obs, options, choice, seat, hands, n_hand, sums, discard, n_discard, row_len, comm_fame,
    comm_n_frames, land_icons, land_place, comm_place, commission_out, day, trace,
):  # fmt: skip
    """R-SELL-2..4: the paintings to the discard pile in frame order (the hand keeps the
    order taken), the commission to the seat, its place in the row left empty until
    clean-up. Returns (n_discard, row_len)."""
    commission = options[choice, 0]
    trace_put(trace, commission)
    for f in range(comm_n_frames[commission]):
        card = options[choice, 1 + f]
        trace_put(trace, card)
        discard[n_discard] = card
        n_discard += 1
        obs[land_place + card] = PLACE_DISCARD
        sums[seat, S_ICONS] -= land_icons[card]
        sums[seat, S_SOLD] += 1
    # the hand and the row closed up in one pass each, every entry written and the write
    # position moved on where it stays (no search that stops where the card is: a branch
    # that mispredicted); the row of an option past its frames holds -1, never in a hand
    sold_0, sold_1, sold_2 = options[choice, 1], options[choice, 2], options[choice, 3]
    kept = 0
    for i in range(n_hand[seat]):
        card = hands[seat, i]
        hands[seat, kept] = card
        kept += (card != sold_0) & (card != sold_1) & (card != sold_2)
    for i in range(kept, n_hand[seat]):
        hands[seat, i] = -1
    n_hand[seat] = kept
    kept = 0
    for slot in range(row_len):
        in_row = obs[OBS_ROW + slot]
        obs[OBS_ROW + kept] = in_row
        kept += in_row != commission
    for slot in range(kept, row_len):
        obs[OBS_ROW + slot] = -1
    row_len = kept
    obs[OBS_ROW_LEN] = row_len
    obs[comm_place + commission] = seat
    sums[seat, S_COMMISSION_FAME] += comm_fame[commission]
    sums[seat, S_COMMISSIONS] += 1
    commission_out[commission, C_SEAT] = seat
    commission_out[commission, C_DAY] = day
    refresh_fame(obs, sums, seat)
    obs[OBS_DISCARD] = n_discard
    return n_discard, row_len
