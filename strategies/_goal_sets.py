"""goal-chaser's count of the fewest cards a hike must take to meet today's goal, and of
the row commissions a set of paintings can fulfil (for a 'sold' goal): the tables its
choosers (``strategies/goal_chaser.py``) read. Paintings are bitmasks: see below."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_PAINTED,
    GOAL_SOLD,
    GRID_SIZE,
    MAX_FRAMES,
    N_DIRECTIONS,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    MAX_ROW,
    OBS_COMM_PLACE,
    OBS_GRID,
    OBS_LAND_PLACE,
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_PAINTINGS,
    OBS_POS,
    OBS_ROW,
    OBS_ROW_LEN,
)
from sunset_sim.strategy_tools import (
    card_features,
    hike_goal_met,
    lowest_bit,
    popcount,
    ray_cell,
    stack_empty,
)

NEVER = 99  # no set of cards on the path meets the goal
# The fewest-cards table of the hikes (d, s), at d * GRID_SIZE + s, also marks a cell
# passed through but not a hike's end (R-HIKE-5) and where the hike cannot go on
# (R-HIKE-3/4). A straight hike on the grid has at most GRID_SIZE - 1 steps.
PASS = -1
BLOCKED = -2
MAX_REACH = GRID_SIZE - 1
TABLE_SIZE = N_DIRECTIONS * GRID_SIZE
MAX_PATH = GRID_SIZE  # the cells of a path: the start and at most 4 more
N_SUBSETS = 1 << MAX_PATH
N_FRAME_IDS = MAX_ROW * MAX_FRAMES  # frame s of the j-th commission counted: bit j * 3 + s
MAX_WORD_FRAMES = 64  # card sets with up to 64 frames have one word of tables.land_frames
N_FRAME_K = MAX_WORD_FRAMES + 1  # frame_k: a slot per frame, and a spare (sales_setup)
FIRST_FRAMES = sum(1 << (j * MAX_FRAMES) for j in range(MAX_ROW))  # bits j * 3
POPCOUNT = np.array([bin(m).count("1") for m in range(N_SUBSETS)], dtype=np.int64)

# Paintings are bitmasks over positions: my unsold paintings (by card index; at most
# MAX_PAINTINGS = 64, one int64 word) in one word, the cards a hike or paint option would
# add (in path order) in another; the first-fit search of count_sales takes the held ones
# first, as a list of them followed by the added ones would.


@jit(inline="always")
def nth_bit(mask, n):
    """Index of the n-th (from 0) set bit of a non-negative mask."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_bit(mask)


@jit(inline="always")
def held_count_features(obs, land_features, with_features):
    """How many unsold paintings I hold, and their features: from the observation's list of
    them (not a scan of every landscape's place)."""
    n_held = obs[OBS_N_PAINTINGS]
    features = 0
    if with_features:
        for i in range(n_held):
            features |= card_features(land_features, obs[OBS_PAINTINGS + i])
    return n_held, features


@jit(inline="always")
def held_in_order(obs, held):
    """My unsold paintings by card index (count_sales' first-fit order) in held[:n];
    returns n. The observation lists them in the order taken: sorted through a bitmask
    where every landscape index is below 64, else found by a scan of the place block."""
    n_held = obs[OBS_N_PAINTINGS]
    base = obs[OBS_LAND_PLACE]
    if obs[OBS_COMM_PLACE] - base <= 64:
        mask = np.uint64(0)
        for i in range(n_held):
            mask |= np.uint64(1) << np.uint64(obs[OBS_PAINTINGS + i])
        for i in range(n_held):
            held[i] = lowest_bit(mask)
            mask &= mask - np.uint64(1)
        return n_held
    me = obs[OBS_ME]
    n_held = 0
    for card in range(obs[OBS_COMM_PLACE] - base):
        if obs[base + card] == me:
            held[n_held] = card
            n_held += 1
    return n_held


@jit(inline="always")
def card_frames(match, land_frames, frame_ids, frame_k, n_comm, row_frames, card):
    """Bit j * 3 + s: the card fits frame s of the j-th commission counted (R-SELL-3)."""
    bits = 0
    if land_frames.shape[1] == 1:  # up to 64 frames: one word per card
        fits = land_frames[card, 0] & row_frames
        while fits:
            bits |= 1 << frame_k[lowest_bit(fits)]
            fits &= fits - np.uint64(1)
        return bits
    for k in range(n_comm * MAX_FRAMES):
        if frame_ids[k] >= 0 and match[card, frame_ids[k]] != 0:
            bits |= 1 << k
    return bits


@jit(inline="always")
def sales_setup(
    obs,
    match,
    land_frames,
    comm_frames,
    comm_n_frames,
    frame_ids,
    frame_k,
    n_frames,
    held,
    held_fits,
):
    """The row's commissions in count_sales' order (fewer frames first, then row order):
    n_frames[j], their frames' indices frame_ids[j * 3 + s] (-1 past the last) and, for
    card sets of up to 64 frames, frame_k[frame] = j * 3 + s; my paintings (held[:n], by
    card index) and held_fits[j * 3 + s], the bitmask of those that fit frame s of the
    j-th. Returns (n_comm, n_held, the row's frames as a bitmask)."""
    # each commission's place in that order is its rank by (frames, slot), found without
    # branches (which commission has how many frames varies: a pass per frame count with
    # a test per slot mispredicted); an absent frame (comm_frames' -1) writes frame_k's
    # spare last slot
    n_comm = obs[OBS_ROW_LEN]  # (every commission has 1 to MAX_FRAMES frames)
    row_frames = np.uint64(0)
    keys = stack_empty(MAX_ROW, np.int64)
    for slot in range(n_comm):
        keys[slot] = comm_n_frames[obs[OBS_ROW + slot]] * MAX_ROW + slot
    one_word = land_frames.shape[1] == 1
    for slot in range(n_comm):
        commission = obs[OBS_ROW + slot]
        rank = 0
        for other in range(n_comm):
            rank += keys[other] < keys[slot]
        n_frames[rank] = comm_n_frames[commission]
        for s in range(MAX_FRAMES):
            k = rank * MAX_FRAMES + s
            frame = comm_frames[commission, s]
            frame_ids[k] = frame
            held_fits[k] = 0
            if one_word:
                row_frames |= np.uint64(frame >= 0) << np.uint64(max(frame, 0))
                frame_k[frame if frame >= 0 else MAX_WORD_FRAMES] = k
    n_held = held_in_order(obs, held)
    for i in range(n_held):
        if one_word:  # each frame the card fits, straight to its k (card_frames' bits unmade)
            fits = land_frames[held[i], 0] & row_frames
            while fits:
                held_fits[frame_k[lowest_bit(fits)]] |= np.int64(1) << i
                fits &= fits - np.uint64(1)
        else:
            bits = card_frames(match, land_frames, frame_ids, frame_k, n_comm, row_frames, held[i])
            while bits:
                held_fits[lowest_bit(bits)] |= np.int64(1) << i
                bits &= bits - 1
    return n_comm, n_held, row_frames


@jit(inline="always")
def first(held, added):
    """The first painting of (held, added), not both empty, as a one-bit pair."""
    if held:
        return np.int64(1) << lowest_bit(held), 0
    return 0, np.int64(1) << lowest_bit(added)


@jit(inline="always")
def count_sales(n_comm, n_frames, held_fits, added_fits, free_held, free_added, enough):
    """How many row commissions these paintings can fulfil one after another (a greedy
    estimate: commissions with fewer frames first, each with the first fit found: the
    lexicographically first distinct painting per frame, R-SELL-2); stops at enough."""
    count = 0
    for j in range(n_comm):
        if count >= enough:
            break
        k = j * MAX_FRAMES
        h0 = held_fits[k] & free_held
        a0 = added_fits[k] & free_added
        if n_frames[j] == 1:
            if h0 or a0:
                uh, ua = first(h0, a0)
                free_held &= ~uh
                free_added &= ~ua
                count += 1
            continue
        h1 = held_fits[k + 1] & free_held
        a1 = added_fits[k + 1] & free_added
        h2 = held_fits[k + 2] & free_held
        a2 = added_fits[k + 2] & free_added
        while h0 or a0:
            ah, aa = first(h0, a0)
            h0 &= ~ah
            a0 &= ~aa
            bh_left = h1 & ~ah
            ba_left = a1 & ~aa
            found = False
            while bh_left or ba_left:
                bh, ba = first(bh_left, ba_left)
                bh_left &= ~bh
                ba_left &= ~ba
                if n_frames[j] == 2:
                    found = True
                    free_held &= ~(ah | bh)
                    free_added &= ~(aa | ba)
                    break
                ch_left = h2 & ~(ah | bh)
                ca_left = a2 & ~(aa | ba)
                if ch_left or ca_left:
                    ch, ca = first(ch_left, ca_left)
                    found = True
                    free_held &= ~(ah | bh | ch)
                    free_added &= ~(aa | ba | ca)
                    break
            if found:
                count += 1
                break
    return count


@jit(inline="always")
def fitted(n_comm, valid, covered):
    """How many of the commissions have each frame (valid: their bits j * 3 + s) fitted
    by some painting (covered): an upper bound of count_sales."""
    missing = valid & ~covered
    return n_comm - popcount((missing | (missing >> 1) | (missing >> 2)) & FIRST_FRAMES)


# fewest_setup's results for fewest_ray, in a small int64 array
N_HELD = 0
N_COMM = 1
ALL_HELD = 2  # bitmask of my paintings
START_FITS = 3  # card_frames of the start cell's card if it can be painted
N_START = 4  # 1 if the start cell can be painted (R-PAINT-1/2), else 0
BASE = 5  # fewest over the subsets of the start cell
FULL = 6  # every feature type
VALID = 7  # the frames of the commissions counted (bits j * 3 + s)
N_CONTEXT = 8


@jit(inline="always")
def fewest_setup(
    obs,
    goal_kind,
    goal_param,
    occupied,
    limit,
    land_features,
    match,
    land_frames,
    comm_frames,
    comm_n_frames,
    subset_bits,
    frame_ids,
    frame_k,
    n_frames,
    held,
    held_fits,
    added_fits,
    context,
):
    """What the hikes share for fewest_ray (in context and the arrays after comm_n_frames:
    subset_bits[subset of the path's cells] holds, with my paintings, their features for
    'all features' and the frames they fit for 'sold', for the subsets tried);
    returns (the stay's fewest cards, the row's frames). fewest cards: taken on a hike's
    path (selling as planned) to meet the goal, NEVER if no set does; counts above limit
    read as NEVER (they are only compared with paint values up to limit)."""
    start = obs[OBS_POS + obs[OBS_ME]]
    start_card = obs[OBS_GRID + start]
    n_start = 1 if start_card >= 0 and not (occupied >> start) & 1 else 0
    full = (1 << land_features.shape[1]) - 1
    n_held = 0
    n_comm = 0
    all_held = 0
    start_fits = 0
    row_frames = np.uint64(0)
    base = NEVER
    valid = 0
    if goal_kind == GOAL_HOLDS:
        n_held, _ = held_count_features(obs, land_features, False)
    elif goal_kind == GOAL_ALL_FEATURES:
        _, subset_bits[0] = held_count_features(obs, land_features, True)
        if subset_bits[0] == full:
            base = 0
        if n_start:
            subset_bits[1] = subset_bits[0] | card_features(land_features, start_card)
            if base > 1 and limit >= 1 and subset_bits[1] == full:
                base = 1
    elif goal_kind == GOAL_SOLD:
        n_comm, n_held, row_frames = sales_setup(
            obs, match, land_frames, comm_frames, comm_n_frames, frame_ids, frame_k, n_frames, held,
            held_fits,
        )  # fmt: skip
        all_held = (1 << n_held) - 1 if n_held < MAX_PAINTINGS else -1
        subset_bits[0] = 0
        for k in range(n_comm * MAX_FRAMES):
            added_fits[k] = 0
            if frame_ids[k] >= 0:
                valid |= 1 << k
            if held_fits[k] != 0:
                subset_bits[0] |= 1 << k
        if count_sales(n_comm, n_frames, held_fits, added_fits, all_held, 0, goal_param) >= (
            goal_param
        ):
            base = 0
        if n_start:
            start_fits = card_frames(
                match, land_frames, frame_ids, frame_k, n_comm, row_frames, start_card
            )
            subset_bits[1] = subset_bits[0] | start_fits
            bits = start_fits
            while bits:
                added_fits[lowest_bit(bits)] = 1
                bits &= bits - 1
            if base > 1 and limit >= 1 and fitted(n_comm, valid, subset_bits[1]) >= goal_param:
                count = count_sales(
                    n_comm, n_frames, held_fits, added_fits, all_held, 1, goal_param
                )
                if count >= goal_param:
                    base = 1
    if goal_kind == GOAL_PAINTED:
        stay = goal_param if n_start >= goal_param else NEVER
    elif goal_kind == GOAL_HOLDS:
        need = max(goal_param - n_held, 0)
        stay = need if n_start >= need else NEVER
    elif goal_kind == GOAL_ALL_FEATURES or goal_kind == GOAL_SOLD:
        stay = base
    else:  # moved, edge, steps: the hike alone decides
        stay = 0 if hike_goal_met(goal_kind, goal_param, -1, 0, start, 0) else NEVER
    context[N_HELD] = n_held
    context[N_COMM] = n_comm
    context[ALL_HELD] = all_held
    context[START_FITS] = start_fits
    context[N_START] = n_start
    context[BASE] = base
    context[FULL] = full
    context[VALID] = valid
    return stay, row_frames


@jit(inline="always")
def covered(obs, comm_frame_words, union):
    """How many of the row's commissions have each frame fitted by some card whose
    frames (one word of tables.land_frames) are in ``union``: what ``fitted`` counts, an
    upper bound of count_sales over every set of those cards."""
    count = 0
    for slot in range(obs[OBS_ROW_LEN]):
        missing = comm_frame_words[obs[OBS_ROW + slot], 0] & ~union
        count += missing == np.uint64(0)
    return count


@jit(inline="always")
def held_frames(obs, land_frames):
    """The frames my unsold paintings fit, as one word (card sets of up to 64 frames)."""
    union = np.uint64(0)
    for i in range(obs[OBS_N_PAINTINGS]):
        union |= land_frames[obs[OBS_PAINTINGS + i], 0]
    return union


@jit(inline="always")
def sold_bound(obs, land_frames, comm_frame_words, cells):
    """For a 'sold' goal: ``covered`` over my paintings and the cards of ``cells`` (a
    bitmask), so an upper bound of the sales any set of them allows (count_sales).
    Where it is below the goal, no set meets it: the choosers return before
    ``sales_setup`` (replayed on a card set whose goals are all 'sold', the same choices:
    hikes 805 -> 664 ns, paint sets 470 -> 304, sales 490 -> 447; it was checked after
    the setup before; hikes: see sold_directions). Card sets of up to 64 frames (one word
    per card); else MAX_ROW + 1 (no bound)."""
    if land_frames.shape[1] != 1:
        return MAX_ROW + 1
    union = held_frames(obs, land_frames)
    while cells:
        union |= land_frames[obs[OBS_GRID + lowest_bit(cells)], 0]
        cells &= cells - 1
    return covered(obs, comm_frame_words, union)


@jit(inline="always")
def sold_directions(obs, land_frames, comm_frame_words, directions, reach, goal_param):
    """For a 'sold' goal: the directions (a bitmask, of ``directions``) in which a hike
    of up to ``reach`` steps may meet it: ``covered`` over my paintings, my cell's card
    and the cards that way is at least ``goal_param``. In the others no set of the cards
    a hike takes meets it (nor staying: its cards are in every direction's), and
    hike_keep walks them no more (replayed on the 'sold' set: hikes 664 -> 571 ns, the
    same choices, against sold_bound over every direction at once). Every direction (-1)
    for card sets of more than 64 frames."""
    if land_frames.shape[1] != 1:
        return -1
    start = obs[OBS_POS + obs[OBS_ME]]
    mine = held_frames(obs, land_frames)
    if obs[OBS_GRID + start] >= 0:
        mine |= land_frames[obs[OBS_GRID + start], 0]
    live = 0
    for direction in range(N_DIRECTIONS):
        if (directions >> direction) & 1:
            union = mine
            for steps in range(1, min(reach, MAX_REACH) + 1):
                cell = ray_cell(obs, start, direction, steps)
                if cell < 0:  # R-HIKE-3, R-HIKE-4
                    break
                union |= land_frames[obs[OBS_GRID + cell], 0]
            live |= np.int64(covered(obs, comm_frame_words, union) >= goal_param) << direction
    return live


@jit(inline="always")
def fewest_ray(
    obs,
    goal_kind,
    goal_param,
    occupied,
    direction,
    reach,
    limit,
    context,
    row_frames,
    land_features,
    match,
    land_frames,
    subset_bits,
    frame_ids,
    frame_k,
    n_frames,
    held_fits,
    added_fits,
    table,
):
    """table[direction * GRID_SIZE + s]: the fewest cards of the hike (direction, s) for
    s up to reach (PASS, BLOCKED: see above). A hike's path is the previous one's plus
    its end, so only the subsets with the new cell are tried."""
    n_held = context[N_HELD]
    n_comm = context[N_COMM]
    all_held = context[ALL_HELD]
    full = context[FULL]
    valid = context[VALID]
    n_cells = context[N_START]
    fewest = context[BASE]
    by_cards = goal_kind == GOAL_ALL_FEATURES or goal_kind == GOAL_SOLD
    if goal_kind == GOAL_SOLD:  # back to the start cell's
        for k in range(n_comm * MAX_FRAMES):
            added_fits[k] = 0
        bits = context[START_FITS]
        while bits:
            added_fits[lowest_bit(bits)] = 1
            bits &= bits - 1
    start = obs[OBS_POS + obs[OBS_ME]]
    for steps in range(1, min(reach, MAX_REACH) + 1):
        cell = ray_cell(obs, start, direction, steps)  # (not waiting on the step before)
        key = direction * GRID_SIZE + steps
        if cell < 0:  # R-HIKE-3, R-HIKE-4
            table[key] = BLOCKED
            break
        if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end here
            table[key] = PASS
            continue
        card = obs[OBS_GRID + cell]
        low = 1 << n_cells  # the new cell's bit among the path's cells
        n_cells += 1
        if by_cards and (fewest <= 1 or limit < 1):  # no set with the new cell does better
            table[key] = fewest
        elif goal_kind == GOAL_PAINTED:
            table[key] = goal_param if n_cells >= goal_param else NEVER
        elif goal_kind == GOAL_HOLDS:
            need = max(goal_param - n_held, 0)
            table[key] = need if n_cells >= need else NEVER
        elif goal_kind == GOAL_ALL_FEATURES:
            added = card_features(land_features, card)
            for mask in range(low, 2 * low):
                size = POPCOUNT[mask]
                if size < fewest and size <= limit:  # (then so were those it extends)
                    subset_bits[mask] = subset_bits[mask - low] | added
                    if subset_bits[mask] == full:
                        fewest = size
            table[key] = fewest
        elif goal_kind == GOAL_SOLD:
            added = card_frames(match, land_frames, frame_ids, frame_k, n_comm, row_frames, card)
            bits = added
            while bits:
                added_fits[lowest_bit(bits)] |= low
                bits &= bits - 1
            for mask in range(low, 2 * low):
                size = POPCOUNT[mask]
                if size < fewest and size <= limit:  # (then so were those it extends)
                    subset_bits[mask] = subset_bits[mask - low] | added
                    # a card that fits no frame adds nothing to the subset without it
                    if (
                        added != 0
                        and fitted(n_comm, valid, subset_bits[mask]) >= goal_param
                        and count_sales(
                            n_comm, n_frames, held_fits, added_fits, all_held, mask, goal_param
                        )
                        >= goal_param
                    ):
                        fewest = size
            table[key] = fewest
        else:
            met = hike_goal_met(goal_kind, goal_param, direction, steps, cell, 0)
            table[key] = 0 if met else NEVER
