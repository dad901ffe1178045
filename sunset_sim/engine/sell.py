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
    per painting the earlier paintings of the same kind."""
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
    candidates = stack_empty(MAX_FRAMES, np.uint64)  # fitting and unused, per depth
    untried = stack_empty(MAX_FRAMES, np.uint64)
    chosen = stack_empty(MAX_FRAMES, np.int64)  # hand position chosen, per depth
    kinds_ready = False
    for slot in range(obs[OBS_ROW_LEN]):
        commission = obs[OBS_ROW + slot]
        n_frames = tables.comm_n_frames[commission]
        if one_word:
            # its frames, all at once: one test, where a test per frame mispredicted
            needed = np.uint64(0)
            for f in range(MAX_FRAMES):
                frame = tables.comm_frames[commission, f]
                needed |= (np.uint64(1) << np.uint64(frame)) if frame >= 0 else np.uint64(0)
            # one distinct painting per frame (R-SELL-2); a frame no painting fits
            if (n_frames > n_hand) | ((needed & ~held) != np.uint64(0)):
                continue
        elif n_frames > n_hand:
            continue
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
        used = np.uint64(0)  # positions chosen at depths 0 .. depth-1
        candidates[0] = fit[0]
        untried[0] = fit[0]
        depth = 0
        while depth >= 0:
            if depth == n_frames:
                if n < capacity:
                    options[n, 0] = commission
                    for f in range(MAX_FRAMES):
                        options[n, 1 + f] = hands[seat, chosen[f]] if f < n_frames else -1
                    for column in range(1 + MAX_FRAMES, OPTION_WIDTH):
                        options[n, column] = -1
                n += 1
                depth -= 1
                used &= ~(np.uint64(1) << np.uint64(chosen[depth]))
                continue
            rest = untried[depth]
            found = -1
            while rest:
                i = lowest_bit(rest)
                rest &= rest - np.uint64(1)
                if not (same_kind[i] & candidates[depth]):  # first of its kind here
                    found = i
                    break
            untried[depth] = rest
            if found >= 0:
                chosen[depth] = found
                used |= np.uint64(1) << np.uint64(found)
                depth += 1
                if depth < n_frames:
                    candidates[depth] = fit[depth] & ~used
                    untried[depth] = candidates[depth]
            else:
                depth -= 1
                if depth >= 0:
                    used &= ~(np.uint64(1) << np.uint64(chosen[depth]))
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
        for i in range(n_hand[seat]):
            if hands[seat, i] == card:
                for j in range(i, n_hand[seat] - 1):
                    hands[seat, j] = hands[seat, j + 1]
                n_hand[seat] -= 1
                hands[seat, n_hand[seat]] = -1
                break
        discard[n_discard] = card
        n_discard += 1
        obs[land_place + card] = PLACE_DISCARD
        sums[seat, S_ICONS] -= land_icons[card]
        sums[seat, S_SOLD] += 1
    for slot in range(row_len):
        if obs[OBS_ROW + slot] == commission:
            for j in range(slot, row_len - 1):
                obs[OBS_ROW + j] = obs[OBS_ROW + j + 1]
            row_len -= 1
            obs[OBS_ROW + row_len] = -1
            break
    obs[OBS_ROW_LEN] = row_len
    obs[comm_place + commission] = seat
    sums[seat, S_COMMISSION_FAME] += comm_fame[commission]
    sums[seat, S_COMMISSIONS] += 1
    commission_out[commission, C_SEAT] = seat
    commission_out[commission, C_DAY] = day
    refresh_fame(obs, sums, seat)
    obs[OBS_DISCARD] = n_discard
    return n_discard, row_len
