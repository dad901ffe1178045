"""greedy: a one-ply heuristic that values each card by its icons and commission use."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    GOAL_PAINTED,
    GRID_SIZE,
    N_CELLS,
    N_DIRECTIONS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_GOAL,
    OBS_GRID,
    OBS_HAND,
    OBS_ME,
    OBS_PLAN,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_WIDTH,
)
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import (
    PATH_PREFIX,
    PATH_SHORT,
    PATH_TOP,
    hike_goal_met,
    others_mask,
    path_add_top,
    path_start_top,
    ray_cell,
    row_path_cells,
    sale_value,
    stack_empty,
    trailing_zeros,
)

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("lateness", 0.3, 0.0, 2.0, "fame lost per 15 minutes of later wake-up"),
    Parameter("commission", 1.0, 0.0, 3.0, "weight of a card's best commission use"),
    Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal with this hike"),
)
LATENESS, COMMISSION, GOAL = parameter_indices(PARAMETERS, "lateness", "commission", "goal")

MAX_HIKES = 1 + N_DIRECTIONS * (GRID_SIZE - 1)  # the stay and every straight hike


@jit(inline="always")
def visible_word(obs, share_rank):
    """Bitmask over the commissions in the row and the preview, bit r for the commission of
    rank r by share (``tables.share_rank``; card sets of up to 64 commissions, larger ones
    take the slow path in card_value)."""
    row_len = obs[OBS_ROW_LEN]
    visible = np.uint64(0)
    for slot in range(row_len + 1):
        commission = obs[OBS_ROW + slot] if slot < row_len else obs[OBS_PREVIEW]
        rank = share_rank[max(commission, 0)]
        ok = (commission >= 0) & (rank < 64)
        visible |= (np.uint64(1) << np.uint64(rank)) if ok else np.uint64(0)
    return visible


@jit(inline="always")
def card_value(obs, ranked, share_rank, share_by_rank, land_icons, card, visible, weight):
    """What a card is worth to this player now: half its icons (leftover fame, R-END-2)
    plus ``weight`` times its best share (fame per frame) of a commission in the row or
    the preview. ``ranked`` is tables.land_commissions_ranked: with commissions numbered
    by share, highest first, the best one a card fits is its lowest set bit among the
    visible ones (no loop over the commissions it fits: how many there are varies from
    card to card, and the loop's branch mispredicted; measured by replaying 27,611
    recorded decisions, plan 355 -> 227 ns, hike 202 -> 117 ns, the same choices)."""
    if ranked.shape[1] == 1:  # up to 64 commissions: share_by_rank[64] is 0.0
        best = share_by_rank[trailing_zeros(ranked[card, 0] & visible)]
    else:
        best = 0.0
        row_len = obs[OBS_ROW_LEN]
        for slot in range(row_len + 1):
            commission = obs[OBS_ROW + slot] if slot < row_len else obs[OBS_PREVIEW]
            if commission < 0:
                continue
            rank = share_rank[commission]
            if (ranked[card, rank // 64] >> np.uint64(rank % 64)) & np.uint64(1):
                best = max(best, share_by_rank[rank])
    return 0.5 * land_icons[card] + weight * best


@jit(inline="always")
def cell_value(obs, ranked, share_rank, share_by_rank, land_icons, cell, occupied, visible, weight):
    """card_value of the card on ``cell``, -1 where it cannot be painted (R-PAINT-2)."""
    card = obs[OBS_GRID + cell]
    if (card < 0) | (((occupied >> cell) & 1) != 0):  # (|: "or" branches on each test)
        return -1.0
    return card_value(obs, ranked, share_rank, share_by_rank, land_icons, card, visible, weight)


@jit(inline="always")
def steps_goal_met(goal_kind, goal_param, direction, steps, cell):
    """hike_goal_met for the goal kinds that do not depend on the cards painted."""
    if goal_kind == GOAL_PAINTED or goal_kind < 0:
        return False
    return hike_goal_met(goal_kind, goal_param, direction, steps, cell, 0)


# The work of each decision kind is a function of its own that takes only the arrays it
# reads (a call passes every array as a 7-word struct: the ~20 of obs, options, params,
# rng and tables cost more than a small decision) and does no reference counting
# (_nrt=False: it allocates nothing, stack arrays only, and keeps no reference).


@jit(_nrt=False, wraparound=False)
def choose_sale(options, n_options, tables):
    """The sale worth most, if it is worth anything; row 0 is "stop"."""
    comm_fame = tables.comm_fame
    land_icons = tables.land_icons
    best_index = 0
    best = 0.0
    for index in range(1, n_options):
        value = sale_value(options, index, comm_fame, land_icons, 1.0)
        if value > best:
            best = value
            best_index = index
    return best_index


@jit(_nrt=False, wraparound=False)
def choose_paint(obs, options, n_options, tables, weight):
    """The option whose cells are worth most."""
    ranked = tables.land_commissions_ranked
    share_rank = tables.share_rank
    share_by_rank = tables.share_by_rank
    land_icons = tables.land_icons
    occupied = others_mask(obs)
    visible = visible_word(obs, share_rank)
    values = stack_empty(N_CELLS, np.float64)
    done = 0
    best_index = 0
    best = -1e18
    for index in range(n_options):
        value = 0.0
        for column in range(OPTION_WIDTH):  # (a constant: the loop is unrolled)
            cell = options[index, column]
            if cell >= 0:
                if not (done >> cell) & 1:
                    values[cell] = cell_value(
                        obs, ranked, share_rank, share_by_rank, land_icons, cell, occupied,
                        visible, weight,
                    )  # fmt: skip
                    done |= 1 << cell
                value += values[cell]
        if value > best:
            best = value
            best_index = index
    return best_index


@jit(_nrt=False, wraparound=False)
def choose_plan(obs, n_options, tables, weight, lateness, goal_kind, goal_param, goal_bonus):
    """The best hike each card allows now, less a lateness penalty. One scan per direction
    serves all three cards (the same path, a different reach, paint number and direction
    set for each). Its paths keep PATH_SHORT values where no card paints more (replayed
    plan decisions, the same choices: 164 -> 151 ns)."""
    plan_hike = tables.plan_hike
    plan_paint = tables.plan_paint
    plan_directions = tables.plan_directions
    plan_wake = tables.plan_wake
    ranked = tables.land_commissions_ranked
    share_rank = tables.share_rank
    share_by_rank = tables.share_by_rank
    land_icons = tables.land_icons
    values = stack_empty(PLAN_HAND, np.float64)
    most_paint = 0
    for i in range(PLAN_HAND):
        most_paint = max(most_paint, plan_paint[obs[OBS_HAND + i]])
    if most_paint <= PATH_SHORT:
        return plan_values(
            obs, n_options, plan_hike, plan_paint, plan_directions, plan_wake, ranked,
            share_rank, share_by_rank, land_icons, weight, lateness, goal_kind, goal_param,
            goal_bonus, PATH_SHORT, values,
        )  # fmt: skip
    return plan_values(
        obs, n_options, plan_hike, plan_paint, plan_directions, plan_wake, ranked, share_rank,
        share_by_rank, land_icons, weight, lateness, goal_kind, goal_param, goal_bonus,
        PATH_TOP, values,
    )  # fmt: skip


@jit(inline="always")
def plan_values(
    obs, n_options, plan_hike, plan_paint, plan_directions, plan_wake, ranked, share_rank,
    share_by_rank, land_icons, weight, lateness, goal_kind, goal_param, goal_bonus, depth,
    out,
):  # fmt: skip
    """out[i]: the worth of plan card i (choose_plan's), its paths of the ``depth`` (a
    constant, at least every card's paint number) largest values; returns the first of
    the best."""
    occupied = others_mask(obs)
    visible = visible_word(obs, share_rank)
    start = obs[OBS_POS + obs[OBS_ME]]
    start_value = cell_value(
        obs, ranked, share_rank, share_by_rank, land_icons, start, occupied, visible, weight
    )
    top = stack_empty(PATH_TOP, np.float64)  # the best values on the path so far
    prefix = stack_empty(PATH_PREFIX, np.float64)
    # GOAL_PAINTED depends on the cards painted: met when min(paint, cells) >= its param
    painted_goal = goal_param if goal_kind == GOAL_PAINTED else N_CELLS + 1
    painted_goal_f = np.float64(painted_goal)
    reach_here = stack_empty(PLAN_HAND, np.float64)
    hike = stack_empty(PLAN_HAND, np.int64)
    paint = stack_empty(PLAN_HAND, np.int64)
    directions = stack_empty(PLAN_HAND, np.int64)
    card_best = stack_empty(PLAN_HAND, np.float64)
    reach = 0
    wanted = 0
    for i in range(PLAN_HAND):
        plan = obs[OBS_HAND + i]
        hike[i] = plan_hike[plan]
        paint[i] = plan_paint[plan]
        directions[i] = plan_directions[plan]
        card_best[i] = -1e9
        reach = max(reach, hike[i])
        wanted |= directions[i]
    if not (occupied >> start) & 1:  # staying is legal (R-HIKE-5)
        for i in range(PLAN_HAND):
            n_own = 1 if start_value >= 0 and paint[i] > 0 else 0
            own = start_value if n_own else 0.0
            if goal_kind >= 0 and hike_goal_met(goal_kind, goal_param, 0, 0, start, n_own):
                own += goal_bonus
            card_best[i] = own
    for direction in range(N_DIRECTIONS):
        if not (wanted >> direction) & 1:
            continue
        n_top = path_start_top(top, prefix, start_value, depth)
        for i in range(PLAN_HAND):  # card i's reach this way (0: not), floats: see scan_rays
            reach_here[i] = np.float64(hike[i]) * np.float64((directions[i] >> direction) & 1)
        for steps in range(1, reach + 1):
            cell = ray_cell(obs, start, direction, steps)
            if cell < 0:  # R-HIKE-3, R-HIKE-4
                break
            card = obs[OBS_GRID + cell]
            if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end here
                continue  # (nor paint there, R-PAINT-2)
            value = card_value(
                obs, ranked, share_rank, share_by_rank, land_icons, card, visible, weight
            )
            path_add_top(top, prefix, value, depth)
            n_top += 1
            bonus = 0.0
            if steps_goal_met(goal_kind, goal_param, direction, steps, cell):
                bonus = goal_bonus
            steps_f = np.float64(steps)
            for i in range(PLAN_HAND):  # (selects, not branches: which cards allow the
                # hike varies from deal to deal. The select is of the new total, not of
                # card_best[i] itself: a select between a value in memory and a new one
                # became a branch; replaying 27,611 greedy decisions, plan 211 -> 153 ns,
                # the same choices. Its conditions compare floats, as _card_worth's
                # scan_rays explains: on integer compares LLVM branched again)
                taken = np.float64(min(paint[i], n_top))
                total = prefix[min(paint[i], depth)]
                total += goal_bonus if taken >= painted_goal_f else bonus
                card_best[i] = max(card_best[i], total if steps_f <= reach_here[i] else -1e18)
    earliest = plan_wake[0]
    for plan in range(plan_wake.shape[0]):
        earliest = min(earliest, plan_wake[plan])
    best_index = 0
    best = -1e18
    for index in range(n_options):
        plan = obs[OBS_HAND + index]
        value = card_best[index] - lateness * (plan_wake[plan] - earliest) / 15.0
        out[index] = value
        if value > best:
            best = value
            best_index = index
    return best_index


@jit(inline="always")
def hike_values(
    obs, options, n_options, ranked, share_rank, share_by_rank, land_icons, weight, plan_paint,
    goal_kind, goal_param, goal_bonus, depth, out,
):  # fmt: skip
    """out[i]: the worth of hike option i, its paths of the ``depth`` (a constant, at least
    plan_paint) largest values; returns the first of the best. Valued down the
    option rows themselves: a row's path is the previous row's plus the cells up to its
    end when both go the same way (the engines list a direction's hikes by ascending
    steps), else it starts again from the artist, so a row's worth does not depend on
    the order of the rows. (Walking the rows, not every ray to the plan card's reach and
    then the rows: the rays' ends and the plan card's directions were branches that
    mispredicted; replayed, 129 -> 95 ns a decision, the same choices. A row one step on
    from the previous one adds its end cell alone, with no walk: 96 -> 91 ns.)"""
    occupied = others_mask(obs)
    visible = visible_word(obs, share_rank)
    start = obs[OBS_POS + obs[OBS_ME]]
    start_value = cell_value(
        obs, ranked, share_rank, share_by_rank, land_icons, start, occupied, visible, weight
    )
    top = stack_empty(PATH_TOP, np.float64)  # the best values on the path so far
    prefix = stack_empty(PATH_PREFIX, np.float64)
    painted_goal = goal_param if goal_kind == GOAL_PAINTED else N_CELLS + 1
    stay = -1e9
    if not (occupied >> start) & 1:
        own = max(start_value, 0.0) if plan_paint > 0 else 0.0
        n_own = 1 if start_value >= 0 and plan_paint > 0 else 0
        met = goal_kind >= 0 and hike_goal_met(goal_kind, goal_param, 0, 0, start, n_own)
        stay = own + (goal_bonus if met else 0.0)
    path_direction = -1  # the direction and steps of the path in top and prefix
    path_steps = 0
    n_top = 0
    new_cells = stack_empty(PATH_TOP, np.int64)  # the cells a row adds to the path
    best_index = 0
    best = -1e18
    for index in range(n_options):
        direction = options[index, 0]
        steps = options[index, 1]
        value = stay
        if direction >= 0:
            restart, n_new, cell = row_path_cells(
                obs, occupied, start, options, index, path_direction, path_steps, new_cells
            )
            if restart:
                n_top = path_start_top(top, prefix, start_value, depth)
            path_direction = direction
            for k in range(n_new):
                card = obs[OBS_GRID + new_cells[k]]
                path_add_top(
                    top,
                    prefix,
                    card_value(
                        obs, ranked, share_rank, share_by_rank, land_icons, card, visible, weight
                    ),
                    depth,
                )
            n_top += n_new
            path_steps = steps
            value = prefix[min(plan_paint, depth)]
            if (min(plan_paint, n_top) >= painted_goal) | steps_goal_met(
                goal_kind, goal_param, direction, steps, cell
            ):
                value += goal_bonus
        out[min(index, out.shape[0] - 1)] = value
        if value > best:
            best = value
            best_index = index
    return best_index


@jit(_nrt=False, wraparound=False)
def choose_hike(
    obs, options, n_options, tables, weight, plan_paint, goal_kind, goal_param, goal_bonus
):  # fmt: skip
    """The hike worth most (hike_values), the first of equals."""
    ranked = tables.land_commissions_ranked
    share_rank = tables.share_rank
    share_by_rank = tables.share_by_rank
    land_icons = tables.land_icons
    values = stack_empty(MAX_HIKES, np.float64)
    if plan_paint <= PATH_SHORT:  # (paths of PATH_SHORT values, as choose_plan's)
        return hike_values(
            obs, options, n_options, ranked, share_rank, share_by_rank, land_icons, weight,
            plan_paint, goal_kind, goal_param, goal_bonus, PATH_SHORT, values,
        )  # fmt: skip
    return hike_values(
        obs, options, n_options, ranked, share_rank, share_by_rank, land_icons, weight,
        plan_paint, goal_kind, goal_param, goal_bonus, PATH_TOP, values,
    )  # fmt: skip


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    """Card values are computed where they are needed (the path cells of the options, the
    rays from the artist), from the visible commissions; see choose_*."""
    if kind == DECIDE_SALE:
        return choose_sale(options, n_options, tables)
    weight = params[COMMISSION]
    if kind == DECIDE_PAINT:
        return choose_paint(obs, options, n_options, tables, weight)
    goal = obs[OBS_GOAL]
    goal_kind = -1
    goal_param = 0
    goal_bonus = 0.0
    if goal >= 0:
        goal_kind = tables.goal_kind[goal]
        goal_param = tables.goal_param[goal]
        goal_bonus = params[GOAL] * tables.goal_fame[goal]
    if kind == DECIDE_PLAN:
        return choose_plan(
            obs, n_options, tables, weight, params[LATENESS], goal_kind, goal_param, goal_bonus
        )
    plan = obs[OBS_PLAN + obs[OBS_ME]]  # DECIDE_HIKE
    return choose_hike(
        obs, options, n_options, tables, weight, tables.plan_paint[plan], goal_kind, goal_param,
        goal_bonus,
    )  # fmt: skip


STRATEGY = StrategySpec(
    name="greedy",
    description="One-ply heuristic. Values a card at half its icons plus its best share of a "
    "visible commission; picks the plan card whose best hike is worth most after a penalty "
    "for waking later, the hike and paint set worth most (plus today's goal if the hike meets "
    "it), and sells whenever a commission's fame beats the leftover fame handed in.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
