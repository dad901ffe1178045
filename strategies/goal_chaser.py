"""goal-chaser: today's goal first, waking late to be the last to meet it (R-GOAL-2)."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies import greedy
from sunset_sim.strategies._goal_sales import choose_sale
from sunset_sim.strategies._goal_sets import (
    BASE,
    BLOCKED,
    MAX_REACH,
    N_CONTEXT,
    N_FRAME_IDS,
    N_FRAME_K,
    N_HELD,
    N_SUBSETS,
    NEVER,
    PASS,
    TABLE_SIZE,
    card_frames,
    count_sales,
    fewest_ray,
    fewest_setup,
    fitted,
    held_count_features,
    nth_bit,
    sales_setup,
    sold_bound,
    sold_directions,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_SOLD,
    GOAL_STEPS,
    GRID_SIZE,
    MAX_FRAMES,
    N_CELLS,
    N_DIRECTIONS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    MAX_ROW,
    OBS_GOAL,
    OBS_GRID,
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_PLAN,
    OBS_POS,
    OPTION_WIDTH,
)
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import (
    DIRECTION_CLASS_ARRAY,
    card_features,
    hike_goal_met,
    lowest_bit,
    others_mask,
    popcount,
    ray_cell,
    stack_empty,
    whole_paint_set,
)

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("lateness", 0.3, 0.0, 2.0, "greedy's fame lost per 15 minutes later wake-up"),
    Parameter("commission", 1.0, 0.0, 3.0, "greedy's weight of a card's best commission use"),
    Parameter(
        "goal",
        1.0,
        0.0,
        3.0,
        "greedy's goal weight; a sale toward a 'sold' goal may lose up to goal x the goal's fame",
    ),
)
LATENESS, COMMISSION, GOAL = parameter_indices(PARAMETERS, "lateness", "commission", "goal")

# At most 1 + 8 x 4 hike options and 2^5 paint options: the kept ones fit a bitmask.
MAX_KEPT = 64
KEPT_SIZE = MAX_KEPT * OPTION_WIDTH


@jit(inline="always")
def outranked(wake_of, kept):
    """The cards that can no longer be chosen: a kept card wakes later (or as late, and
    comes first). They need no more walks: choose_plan keeps the latest-waking card, the
    first of equals, and kept cards stay kept. (Bits past the options may be set.)"""
    if kept == 0:
        return 0
    best = lowest_bit(kept)
    bits = kept & (kept - 1)
    while bits:
        index = lowest_bit(bits)
        bits &= bits - 1
        if wake_of[index] > wake_of[best]:
            best = index
    out = 0
    for index in range(PLAN_HAND):  # (without branches; a fixed count: unrolled)
        later = wake_of[best] > wake_of[index] or (wake_of[best] == wake_of[index] and best < index)
        out |= np.int64(later) << index
    return out


@jit(_nrt=False, wraparound=False)
def choose_plan(
    obs,
    options,
    n_options,
    goal_kind,
    goal_param,
    tables,
):
    """The latest-waking card that can meet the goal now (the fewest cards of one of its
    hikes within its paint number), -1 if none can. The cards share each direction's
    walk, made only while one of them may still meet the goal that way and may still
    be chosen (see outranked).

    Not asked for a 'sold' goal (decide takes greedy's card): that search (which cards
    a hike takes to sell n commissions, for each card) cost more than all of greedy's
    choices that day, and keeping the latest card that could did not win more (issue 16:
    40,000 deals x 4 seatings against balanced, greedy and commission-hunter, win share
    0.257 with it, 0.258 without)."""
    plan_directions = tables.plan_directions
    plan_hike = tables.plan_hike
    plan_paint = tables.plan_paint
    plan_wake = tables.plan_wake
    land_features = tables.land_features
    match = tables.match
    land_frames = tables.land_frames
    comm_frames = tables.comm_frames
    comm_n_frames = tables.comm_n_frames
    occupied = others_mask(obs)
    start = obs[OBS_POS + obs[OBS_ME]]
    # each card's hike (at most MAX_REACH) and paint numbers, and by direction the cards
    # that hike that way, read once (not once per direction). The loops over the cards
    # run PLAN_HAND times (R-PLAN-1; n_options is at most that), 0 past the options: a
    # fixed count is unrolled, with no vectorized copy that never runs.
    hike_of = stack_empty(PLAN_HAND, np.int64)
    paint_of = stack_empty(PLAN_HAND, np.int64)
    wake_of = stack_empty(PLAN_HAND, np.int64)
    by_direction = stack_empty(N_DIRECTIONS, np.int64)
    for direction in range(N_DIRECTIONS):
        by_direction[direction] = 0
    limit = 0
    everything = (1 << n_options) - 1
    for index in range(PLAN_HAND):
        hike_of[index] = 0
        paint_of[index] = 0
        wake_of[index] = 0
        if index < n_options:
            plan = np.uint64(options[index, 0])  # (no wraparound test)
            hike_of[index] = min(plan_hike[plan], MAX_REACH)
            paint_of[index] = plan_paint[plan]
            wake_of[index] = plan_wake[plan]
            limit = max(limit, paint_of[index])
            directions = np.int64(plan_directions[plan])
            for direction in range(N_DIRECTIONS):
                by_direction[direction] |= ((directions >> direction) & 1) << index
    context = stack_empty(N_CONTEXT, np.int64)
    subset_bits = stack_empty(N_SUBSETS, np.int64)
    frame_ids = stack_empty(N_FRAME_IDS, np.int64)
    frame_k = stack_empty(N_FRAME_K, np.int64)
    n_frames = stack_empty(MAX_ROW, np.int64)
    held = stack_empty(MAX_PAINTINGS, np.int64)
    held_fits = stack_empty(N_FRAME_IDS, np.int64)
    added_fits = stack_empty(N_FRAME_IDS, np.int64)
    table = stack_empty(TABLE_SIZE, np.int64)
    stay, row_frames = fewest_setup(
        obs, goal_kind, goal_param, occupied, min(limit, NEVER - 1), land_features, match,
        land_frames, comm_frames, comm_n_frames, subset_bits, frame_ids, frame_k, n_frames, held,
        held_fits, added_fits, context,
    )  # fmt: skip
    # bitmasks over the cards: kept, with a legal hike found, and those that cannot be
    # kept ('painted', 'holds': a hike's fewest is at least floor, or NEVER)
    kept = 0
    legal = 0
    done = 0
    floor = 0
    if goal_kind == GOAL_PAINTED:
        floor = min(goal_param, NEVER)
    elif goal_kind == GOAL_HOLDS:
        floor = min(max(goal_param - context[N_HELD], 0), NEVER)
    stay_legal = not (occupied >> start) & 1  # R-HIKE-5
    # 'steps': a card hiking fewer steps never meets it (R-GOAL-3); 'moved': a direction
    # of another class never does. Neither needs its walk: the walks mark the cards with a
    # legal hike only for the stay, whose fewest is NEVER under these goals.
    short = goal_param if goal_kind == GOAL_STEPS else 0
    for index in range(PLAN_HAND):  # (without branches)
        done |= np.int64(paint_of[index] < floor or hike_of[index] < short) << index
        kept |= np.int64(stay_legal and stay <= paint_of[index]) << index
    kept &= everything
    if stay_legal:
        legal = everything
    done |= outranked(wake_of, kept)
    for direction in range(N_DIRECTIONS):
        pending = by_direction[direction] & ~(kept | done)
        if goal_kind == GOAL_MOVED and DIRECTION_CLASS_ARRAY[direction] != goal_param:
            pending = 0
        if pending == 0:
            continue
        reach = 0
        ray_limit = 0
        for index in range(PLAN_HAND):  # the pending cards' largest (without branches)
            on = -((pending >> index) & 1)
            reach = max(reach, hike_of[index] & on)
            ray_limit = max(ray_limit, paint_of[index] & on)
        fewest_ray(
            obs, goal_kind, goal_param, occupied, direction, reach, min(ray_limit, NEVER - 1),
            context, row_frames, land_features, match, land_frames, subset_bits, frame_ids, frame_k,
            n_frames, held_fits, added_fits, table,
        )  # fmt: skip
        while pending:
            index = lowest_bit(pending)
            pending &= pending - 1
            for steps in range(1, hike_of[index] + 1):
                fewest = table[direction * GRID_SIZE + steps]
                if fewest == BLOCKED:
                    break
                if fewest != PASS:
                    legal |= 1 << index
                    if fewest <= paint_of[index]:
                        kept |= 1 << index
                        break
        done |= outranked(wake_of, kept)
    best_index = -1
    best_wake = 0
    for index in range(n_options):
        if not (legal >> index) & 1 and stay <= paint_of[index]:  # the stay: its one hike
            kept |= 1 << index
        if (kept >> index) & 1 and (best_index < 0 or wake_of[index] > best_wake):
            best_index = index
            best_wake = wake_of[index]
    return best_index


@jit(_nrt=False, wraparound=False)
def hike_keep(
    obs,
    options,
    n_options,
    goal_kind,
    goal_param,
    directions,
    reach,
    paint,
    tables,
    first,
):
    """Bitmask of the hike options whose path has cards that meet the goal, at most
    paint of them (the plan card's). Option ``first`` (greedy's choice; -1: none) is
    tested first, with its direction's walk alone: if it meets the goal, just its bit."""
    land_features = tables.land_features
    match = tables.match
    land_frames = tables.land_frames
    comm_frames = tables.comm_frames
    comm_n_frames = tables.comm_n_frames
    keep = 0
    if not (
        goal_kind == GOAL_PAINTED
        or goal_kind == GOAL_HOLDS
        or goal_kind == GOAL_ALL_FEATURES
        or goal_kind == GOAL_SOLD
    ):  # moved, edge, steps: the hike alone decides
        start = obs[OBS_POS + obs[OBS_ME]]
        for index in range(n_options):
            direction = options[index, 0]
            steps = options[index, 1]
            cell = start  # the end cell: one lookup (not a walk of varying length)
            if steps > 0:  # a legal hike's end holds a card: never -1 (R-HIKE-4)
                cell = ray_cell(obs, start, direction, steps)
            met = hike_goal_met(goal_kind, goal_param, direction, steps, cell, 0)
            keep |= np.int64((0 if met else NEVER) <= paint) << index  # (without branches)
        return keep
    everything = (1 << n_options) - 1
    # 'painted', 'holds': every option's fewest is at least the cards still needed (or
    # NEVER), and 0 for each legal hike where none are (R-GOAL-3)
    if goal_kind == GOAL_PAINTED and goal_param > paint:
        return 0
    if goal_kind == GOAL_HOLDS:
        need = max(goal_param - obs[OBS_N_PAINTINGS], 0)
        if need > paint:
            return 0
        if need == 0:
            return everything
    live = -1  # the directions whose fewest_ray is needed
    if goal_kind == GOAL_SOLD:
        live = sold_directions(
            obs, land_frames, tables.comm_frame_words, directions, reach, goal_param
        )
        if live == 0 and directions != 0:  # no hike meets it, nor staying
            return 0
    occupied = others_mask(obs)
    limit = min(paint, NEVER - 1)
    context = stack_empty(N_CONTEXT, np.int64)
    subset_bits = stack_empty(N_SUBSETS, np.int64)
    frame_ids = stack_empty(N_FRAME_IDS, np.int64)
    frame_k = stack_empty(N_FRAME_K, np.int64)
    n_frames = stack_empty(MAX_ROW, np.int64)
    held = stack_empty(MAX_PAINTINGS, np.int64)
    held_fits = stack_empty(N_FRAME_IDS, np.int64)
    added_fits = stack_empty(N_FRAME_IDS, np.int64)
    table = stack_empty(TABLE_SIZE, np.int64)
    stay, row_frames = fewest_setup(
        obs, goal_kind, goal_param, occupied, limit, land_features, match, land_frames, comm_frames,
        comm_n_frames, subset_bits, frame_ids, frame_k, n_frames, held, held_fits, added_fits,
        context,
    )  # fmt: skip
    base = context[BASE]
    if (goal_kind == GOAL_ALL_FEATURES or goal_kind == GOAL_SOLD) and (base <= 1 or limit < 1):
        # every hike's fewest is the stay's (fewest_ray: no set with more cells does better)
        return everything if base <= paint else 0
    walk = directions & live  # the directions to walk
    lead = -1  # first's direction, walked first (one fewest_ray in the code, not two)
    if first >= 0:
        lead = options[first, 0]
        if lead < 0 and stay <= paint:  # staying
            return np.int64(1) << first
    for turn in range(N_DIRECTIONS + 1):
        direction = lead if turn == 0 else turn - 1
        if direction < 0 or not (walk >> direction) & 1 or (turn > 0 and direction == lead):
            continue
        fewest_ray(
            obs, goal_kind, goal_param, occupied, direction, reach, limit, context, row_frames,
            land_features, match, land_frames, subset_bits, frame_ids, frame_k, n_frames,
            held_fits, added_fits, table,
        )  # fmt: skip
        if turn == 0 and table[direction * GRID_SIZE + options[first, 1]] <= paint:
            return np.int64(1) << first
    for index in range(n_options):
        direction = options[index, 0]
        fewest = stay
        if direction >= 0:  # (NEVER the way of no live direction: sold_directions)
            fewest = (
                table[direction * GRID_SIZE + options[index, 1]]
                if (live >> direction) & 1
                else NEVER
            )
        if fewest <= paint:
            keep |= 1 << index
    return keep


@jit(_nrt=False, wraparound=False)
def paint_keep(
    obs,
    options,
    n_options,
    goal_kind,
    goal_param,
    tables,
    first,
):
    """Bitmask of the paint options that meet the goal (the hike decided the goals of
    other kinds). Option ``first`` (greedy's choice; -1: none) is tested first: if it
    meets the goal, just its bit."""
    land_features = tables.land_features
    match = tables.match
    land_frames = tables.land_frames
    comm_frames = tables.comm_frames
    comm_n_frames = tables.comm_n_frames
    everything = (1 << n_options) - 1
    n_held = 0
    held_features = 0
    if goal_kind == GOAL_HOLDS or goal_kind == GOAL_ALL_FEATURES:
        n_held, held_features = held_count_features(
            obs, land_features, goal_kind == GOAL_ALL_FEATURES
        )
    elif goal_kind != GOAL_PAINTED and goal_kind != GOAL_SOLD:
        return everything
    full = (1 << land_features.shape[1]) - 1
    if (goal_kind == GOAL_HOLDS and n_held >= goal_param) or (
        goal_kind == GOAL_ALL_FEATURES and held_features == full
    ):  # met by my paintings: every paint set meets it
        return everything
    if goal_kind == GOAL_SOLD:  # no set of the path's cards meets it: keep none
        cells = 0
        for index in range(n_options):
            for column in range(OPTION_WIDTH):
                cell = options[index, column]
                cells |= (1 << max(cell, 0)) if cell >= 0 else 0
        if sold_bound(obs, land_frames, tables.comm_frame_words, cells) < goal_param:
            return 0
    frame_ids = stack_empty(N_FRAME_IDS, np.int64)
    frame_k = stack_empty(N_FRAME_K, np.int64)
    n_frames = stack_empty(MAX_ROW, np.int64)
    held = stack_empty(MAX_PAINTINGS, np.int64)
    held_fits = stack_empty(N_FRAME_IDS, np.int64)
    added_fits = stack_empty(N_FRAME_IDS, np.int64)
    cell_fits = stack_empty(N_CELLS, np.int64)
    n_comm = 0
    all_held = 0
    valid = 0
    row_frames = np.uint64(0)
    done = 0  # bitmask over the cells whose cell_fits are known
    if goal_kind == GOAL_SOLD:
        n_comm, n_held, row_frames = sales_setup(
            obs, match, land_frames, comm_frames, comm_n_frames, frame_ids, frame_k, n_frames, held,
            held_fits,
        )  # fmt: skip
        all_held = (1 << n_held) - 1 if n_held < MAX_PAINTINGS else -1
        for k in range(n_comm * MAX_FRAMES):
            if frame_ids[k] >= 0:
                valid |= 1 << k
            if held_fits[k] != 0:
                held_features |= 1 << k  # 'sold': the frames my paintings fit
    keep = 0
    for turn in range(n_options + 1):  # first, then the others in order
        index = first if turn == 0 else turn - 1
        if index < 0 or (turn > 0 and index == first):
            continue
        n = 0
        features = held_features
        for column in range(OPTION_WIDTH):
            cell = options[index, column]
            if cell < 0:
                continue
            if goal_kind == GOAL_ALL_FEATURES:
                features |= card_features(land_features, obs[OBS_GRID + cell])
            elif goal_kind == GOAL_SOLD:
                if not (done >> cell) & 1:
                    card = obs[OBS_GRID + cell]
                    cell_fits[cell] = card_frames(
                        match, land_frames, frame_ids, frame_k, n_comm, row_frames, card
                    )
                    done |= 1 << cell
                features |= cell_fits[cell]
            n += 1
        if goal_kind == GOAL_PAINTED:
            meets = n >= goal_param
        elif goal_kind == GOAL_HOLDS:
            meets = n_held + n >= goal_param
        elif goal_kind == GOAL_ALL_FEATURES:
            meets = features == full
        else:
            meets = fitted(n_comm, valid, features) >= goal_param
            if meets:  # the cards in column order, after mine
                for k in range(n_comm * MAX_FRAMES):
                    added_fits[k] = 0
                n = 0
                for column in range(OPTION_WIDTH):
                    cell = options[index, column]
                    if cell >= 0:
                        bits = cell_fits[cell]
                        while bits:
                            added_fits[lowest_bit(bits)] |= 1 << n
                            bits &= bits - 1
                        n += 1
                count = count_sales(
                    n_comm, n_frames, held_fits, added_fits, all_held, (1 << n) - 1, goal_param
                )
                meets = count >= goal_param
        if meets:
            if turn == 0:
                return np.int64(1) << index
            keep |= 1 << index
    return keep


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    """greedy's choice, among the options that meet today's goal where some do (a plan
    card: the latest-waking of them); greedy's code is inlined twice (first where cards
    decide the goal, then on the kept rows), not once per fallback. Under a 'painted',
    'holds' or 'all features' goal, a paint set that holds every other is that choice
    (whole_paint_set: greedy values a card at least half its icons, and it meets the
    goal if any set does). Not under 'sold': paint_keep counts the sales a set allows in
    one order of its cards, and a set with one more card can count fewer (1 paint
    decision in 26,369, in 290 recorded games). Nor where the hike decided the goal, or
    there is none: that is greedy's choice, found in less time than the set's search."""
    goal = obs[OBS_GOAL]
    if (
        kind == DECIDE_PAINT
        and goal >= 0
        and (
            tables.goal_kind[goal] == GOAL_PAINTED
            or tables.goal_kind[goal] == GOAL_HOLDS
            or tables.goal_kind[goal] == GOAL_ALL_FEATURES
        )
    ):
        whole = whole_paint_set(obs, options, n_options, tables.land_icons, 0.5)
        if whole >= 0:
            return whole
    rows_in = options
    n_rows = n_options
    keep = 0  # the kept options greedy chooses among, when not all
    if goal >= 0:
        goal_kind = tables.goal_kind[goal]
        goal_param = tables.goal_param[goal]
        # goals a set of cards decides (under the others: greedy's paint set)
        cards_decide = (
            goal_kind == GOAL_PAINTED
            or goal_kind == GOAL_HOLDS
            or goal_kind == GOAL_ALL_FEATURES
            or goal_kind == GOAL_SOLD
        )
        if kind == DECIDE_SALE:
            # goals a sale can decide: choose_sale; else (and under a 'holds' goal my
            # paintings do not meet) greedy's sale
            if (
                goal_kind == GOAL_SOLD
                or goal_kind == GOAL_ALL_FEATURES
                or (goal_kind == GOAL_HOLDS and obs[OBS_N_PAINTINGS] >= goal_param)
            ):
                return choose_sale(
                    obs,
                    options,
                    n_options,
                    goal_kind,
                    goal_param,
                    -params[GOAL] * tables.goal_fame[goal],
                    tables,
                )
        elif kind == DECIDE_PLAN:
            # (a 'sold' goal: greedy's card. Which cards a hike must take to sell n
            # commissions was the dearest search of this strategy, and keeping the
            # latest card that could did not win more: see choose_plan)
            if goal_kind != GOAL_SOLD:
                index = choose_plan(
                    obs,
                    options,
                    n_options,
                    goal_kind,
                    goal_param,
                    tables,
                )
                if index >= 0:
                    return index
        elif kind == DECIDE_HIKE or cards_decide:
            # greedy's choice first where cards decide the goal (a dear test): kept, it is
            # the choice (greedy on kept rows with it takes it: rows are valued alone, the
            # first best wins), the rest untested; so where none or all are kept (replayed:
            # hikes 407 -> 383 ns, paints 188 -> 175; scripts/ab_bench.py: 1.013)
            first = -1
            if cards_decide:
                first = greedy.decide(kind, obs, options, n_options, params, rng, tables)
            if kind == DECIDE_HIKE:
                plan = obs[OBS_PLAN + obs[OBS_ME]]
                keep = hike_keep(
                    obs,
                    options,
                    n_options,
                    goal_kind,
                    goal_param,
                    tables.plan_directions[plan],
                    tables.plan_hike[plan],
                    tables.plan_paint[plan],
                    tables,
                    first,
                )
            else:
                keep = paint_keep(obs, options, n_options, goal_kind, goal_param, tables, first)
            if first >= 0 and (keep == 0 or (keep >> first) & 1):
                return first
            n_keep = popcount(keep)
            if n_keep == 1:
                return lowest_bit(keep)
            if 1 < n_keep < n_options:  # greedy on the kept rows, in their order
                rows = stack_empty(KEPT_SIZE, np.int32)
                bits = keep
                for n in range(n_keep):
                    index = lowest_bit(bits)
                    bits &= bits - 1
                    for column in range(OPTION_WIDTH):
                        rows[n * OPTION_WIDTH + column] = options[index, column]
                rows_in = rows[: n_keep * OPTION_WIDTH].reshape((n_keep, OPTION_WIDTH))
                n_rows = n_keep
            else:
                keep = 0
    choice = greedy.decide(kind, obs, rows_in, n_rows, params, rng, tables)
    return nth_bit(keep, choice) if keep else choice


STRATEGY = StrategySpec(
    name="goal-chaser",
    description="Puts today's goal first. When a plan card in hand can meet the goal from "
    "where it stands, it keeps the LATEST-waking such card, to act late and be the last to "
    "meet the goal (R-GOAL-2: the last to meet it keeps it); for a 'sold' goal it keeps "
    "greedy's card. It hikes, paints and sells so as to meet the goal (selling more for a "
    "'sold' goal, holding paintings back for 'holds' and 'all features'), choosing among "
    "those moves as greedy would; with no goal in reach it plays greedy.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
