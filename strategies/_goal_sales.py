"""goal-chaser's sales (``choose_sale``): under a 'sold' goal the sale that leaves the
most sales possible; under 'holds' or 'all features' greedy's choice among the sales that
keep the goal met. Not a strategy."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies import greedy
from sunset_sim.strategies._goal_sets import (
    N_FRAME_IDS,
    N_FRAME_K,
    count_sales,
    sales_setup,
    sold_bound,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_SOLD,
    MAX_FRAMES,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    MAX_ROW,
    OBS_N_PAINTINGS,
    OBS_N_PLAYERS,
    OBS_PAINTINGS,
    OBS_ROW_LEN,
)
from sunset_sim.strategy_tools import (
    sale_value,
    stack_empty,
)


@jit(inline="always")
def handed_mask(options, index, held, n_held):
    """My paintings handed in by sale option ``index``: (bitmask, number)."""
    handed = 0
    n_handed = 0
    for column in range(1, 1 + MAX_FRAMES):  # (a sale row's paintings)
        card = options[index, column]
        for i in range(n_held):
            if held[i] == card:
                handed |= np.int64(1) << i
                n_handed += 1
    return handed, n_handed


@jit(inline="always")
def feature_lanes(land_features, card):
    """One in byte f for each feature type f the landscape shows (card -1: every type of
    the card set), so that a sum of them counts paintings by type."""
    lanes = np.uint64(0)
    for feature in range(land_features.shape[1]):  # (without branches: they mispredict)
        shows = card < 0 or land_features[max(card, 0), feature] > 0
        lanes |= np.uint64(shows) << np.uint64(8 * feature)
    return lanes


@jit(inline="always")
def shown(counts, every_type):
    """Whether each type's count (feature_lanes, at most 64: + 127 sets bit 7 exactly
    when it is above 0, with no carry into the next byte) is above 0."""
    return ((counts + np.uint64(0x7F7F7F7F7F7F7F7F)) & every_type) == every_type


@jit(_nrt=False, wraparound=False)
def choose_sale(
    obs,
    options,
    n_options,
    goal_kind,
    goal_param,
    threshold,
    tables,
):
    """A 'sold' goal: the sale that leaves the most sales possible (then the most fame
    less leftover fame), while that is worth more than threshold (minus goal x the goal's
    fame). 'holds' and 'all features': greedy's choice among the sales that keep the goal
    met if it is. Otherwise greedy's."""
    match = tables.match
    land_frames = tables.land_frames
    comm_frames = tables.comm_frames
    comm_n_frames = tables.comm_n_frames
    comm_fame = tables.comm_fame
    land_icons = tables.land_icons
    land_features = tables.land_features
    frame_ids = stack_empty(N_FRAME_IDS, np.int64)
    frame_k = stack_empty(N_FRAME_K, np.int64)
    n_frames = stack_empty(MAX_ROW, np.int64)
    held = stack_empty(MAX_PAINTINGS, np.int64)
    held_fits = stack_empty(N_FRAME_IDS, np.int64)
    # a 'sold' goal and one sale offered (2 'sold' sales in 5): my paintings fulfil that
    # commission and no other (each one they can fulfil is offered, R-SELL-1), so they
    # allow 1 sale and pursue (below) is known: that sale or greedy's, with no setup.
    # (With more sales of one commission, count_sales still counts it for the paintings
    # left, as it keeps every commission in the row: the setup decides.) Replayed on a
    # set of 'sold' goals: sales 445 -> 355 ns. In a study's restricted games a banned
    # commission is not offered, so this counts the sales the seat may make, where
    # count_sales' row model, which does not know the ban, counted it too: there, and
    # only there, goal-chaser chooses otherwise than before (found on 2026-12-06 when
    # reports/default's commission values for goal-chaser moved by up to 0.11 points).
    if goal_kind == GOAL_SOLD and n_options == 2:
        if goal_param <= 1 or obs[OBS_ROW_LEN] < obs[OBS_N_PLAYERS] + 1:
            if sale_value(options, 1, comm_fame, land_icons, 1.0) > threshold:
                return 1
        return greedy.choose_sale(options, n_options, tables)
    # a 'sold' goal: my paintings allow at most sold_bound sales; where that cannot make
    # it pursue (below), greedy's sale, with no setup
    bound = (
        sold_bound(obs, land_frames, tables.comm_frame_words, 0) if goal_kind == GOAL_SOLD else 0
    )
    if goal_kind == GOAL_SOLD and (
        bound >= goal_param or (bound >= 1 and obs[OBS_ROW_LEN] < obs[OBS_N_PLAYERS] + 1)
    ):
        n_comm, n_held, _ = sales_setup(
            obs, match, land_frames, comm_frames, comm_n_frames, frame_ids, frame_k, n_frames, held,
            held_fits,
        )  # fmt: skip
        all_held = (1 << n_held) - 1 if n_held < MAX_PAINTINGS else -1
        every = MAX_ROW + 1  # count them all
        can = count_sales(n_comm, n_frames, held_fits, held_fits, all_held, 0, every)
        # R-GOAL-3 counts this turn's sales, which the observation does not show: go on
        # selling when the paintings allow the whole goal, or when a sale was made today
        pursue = can >= goal_param or (can >= 1 and obs[OBS_ROW_LEN] < obs[OBS_N_PLAYERS] + 1)
        if pursue:
            best_index = 0
            best_left = -1
            best_value = -1e18
            for index in range(1, n_options):
                handed, _ = handed_mask(options, index, held, n_held)
                rest = all_held & ~handed
                left = count_sales(n_comm, n_frames, held_fits, held_fits, rest, 0, every)
                value = sale_value(options, index, comm_fame, land_icons, 1.0)
                if left > best_left or (left == best_left and value > best_value):
                    best_index = index
                    best_left = left
                    best_value = value
            if best_value > threshold:
                return best_index
    elif goal_kind == GOAL_HOLDS or goal_kind == GOAL_ALL_FEATURES:
        # greedy's sale first: no sale (nothing worth selling) or one that keeps the goal
        # met is the choice (greedy on the rows that keep it takes it too: each row is
        # valued alone, the first best wins), with the goal's test for that row alone
        # (replayed: 'all features' sales 248 -> 160 ns)
        first = greedy.choose_sale(options, n_options, tables)
        if first == 0:
            return 0
        # my paintings counted by feature type, 8 bits per type (at most MAX_FEATURES = 8
        # types, MAX_PAINTINGS = 64 paintings): a sale keeps every type shown when no count
        # falls to 0, three subtractions per sale (against a rescan of my paintings per
        # sale with a search for each one handed in, replayed: 'all features' sales 304 ->
        # 252 ns, 'holds' 253 -> 104)
        n_held = obs[OBS_N_PAINTINGS]
        with_features = goal_kind == GOAL_ALL_FEATURES
        counts = np.uint64(0)
        for i in range(n_held if with_features else 0):
            counts += feature_lanes(land_features, obs[OBS_PAINTINGS + i])
        every_type = feature_lanes(land_features, -1) << np.uint64(7)  # each count's bit 7
        if (goal_kind == GOAL_HOLDS and n_held >= goal_param) or (
            with_features and shown(counts, every_type)
        ):
            # greedy on the sales that keep it ("stop selling" always stays): greedy's
            # choice over those rows, found in place (there may be any number of sales).
            # A sale row's paintings are mine (R-SELL-2): each handed in is one less.
            best_index = 0
            best = 0.0
            for turn in range(n_options):  # greedy's sale, then the others in order
                index = first if turn == 0 else turn
                if turn > 0 and index == first:
                    continue
                left = counts
                n_handed = 0
                for column in range(1, 1 + MAX_FRAMES):  # (a sale row's paintings)
                    card = options[index, column]
                    n_handed += card >= 0
                    if with_features:
                        left -= feature_lanes(land_features, card) if card >= 0 else np.uint64(0)
                if with_features:
                    ok = shown(left, every_type)
                else:
                    ok = n_held - n_handed >= goal_param
                if ok:
                    if turn == 0:
                        return first
                    value = sale_value(options, index, comm_fame, land_icons, 1.0)
                    if value > best:
                        best = value
                        best_index = index
            return best_index
        return first
    return greedy.choose_sale(options, n_options, tables)
