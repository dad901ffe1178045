"""greedy: a one-ply heuristic that values each card by its icons and commission use."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    GRID_SIZE,
    N_CELLS,
    N_DIRECTIONS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    MAX_ROW,
    OBS_GOAL,
    OBS_GRID,
    OBS_HAND,
    OBS_ME,
    OBS_N_PLAYERS,
    OBS_PLAN,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
)
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import hike_goal_met, step_cell

# params vector layout
LATENESS = 0  # fame-equivalents lost per 15 minutes of later wake-up
COMMISSION = 1  # weight of a card's best commission use (fame per frame)
GOAL = 2  # weight of meeting today's goal

ALL_CELLS = (1 << N_CELLS) - 1
MAX_STEPS = GRID_SIZE  # a straight hike on a 5x5 grid has at most 4 steps; index 0 = stay


@jit(inline="always")
def others_mask(obs):
    """Bitmask over cells holding another player's artist (R-HIKE-5, R-PAINT-2)."""
    me = obs[OBS_ME]
    mask = 0
    for seat in range(obs[OBS_N_PLAYERS]):
        if seat != me:
            mask |= 1 << obs[OBS_POS + seat]
    return mask


@jit(inline="always")
def cell_values(obs, tables, commission_weight, occupied, cells, values, shares, ids):
    """What each cell's card is worth to this player now, -1 where it cannot be painted.

    A card is worth half its icons (leftover fame, R-END-2) plus commission_weight times
    its best share (fame per frame) of a commission in the row or the preview.
    Only the cells in the bitmask ``cells`` are valued.
    """
    # the visible commissions, best share first, so each card stops at its first fit
    row_len = obs[OBS_ROW_LEN]
    n_visible = 0
    one_word = tables.land_commissions.shape[1] == 1  # up to 64 commissions: a fast path
    visible_word = np.uint64(0)
    for slot in range(row_len + 1):
        commission = obs[OBS_ROW + slot] if slot < row_len else obs[OBS_PREVIEW]
        if commission < 0:
            continue
        if one_word:
            visible_word |= np.uint64(1) << np.uint64(commission)
        share = tables.comm_fame[commission] / tables.comm_n_frames[commission]
        position = n_visible
        while position > 0 and shares[position - 1] < share:
            shares[position] = shares[position - 1]
            ids[position] = ids[position - 1]
            position -= 1
        shares[position] = share
        ids[position] = commission
        n_visible += 1
    for cell in range(N_CELLS):
        if not (cells >> cell) & 1:
            continue
        card = obs[OBS_GRID + cell]
        if card < 0 or (occupied >> cell) & 1:  # R-PAINT-2
            values[cell] = -1.0
            continue
        best = 0.0
        if one_word and not (tables.land_commissions[card, 0] & visible_word):
            n_scan = 0  # fits no visible commission
        else:
            n_scan = n_visible
        for i in range(n_scan):
            commission = np.int64(ids[i])  # stored as float in the work array
            if (
                tables.land_commissions[card, commission // 64] >> np.uint64(commission % 64)
            ) & np.uint64(1):
                best = shares[i]
                break
        values[cell] = 0.5 * tables.land_icons[card] + commission_weight * best


@jit(inline="always")
def hike_table(
    obs,
    values,
    occupied,
    plan_directions,
    plan_hike,
    paint,
    goal_kind,
    goal_param,
    goal_bonus,
    out,
    top,
):
    """out[d * MAX_STEPS + s] = value of hiking s steps in direction d (out[0]: staying),
    -1e9 where that hike is illegal; each direction is scanned once, keeping the best
    `paint` cell values of the growing path (R-HIKE-2, R-PAINT-1)."""
    out[:] = -1e9
    start = obs[OBS_POS + obs[OBS_ME]]
    if not (occupied >> start) & 1:
        own = max(values[start], 0.0) if paint > 0 else 0.0
        n_own = 1 if values[start] >= 0 and paint > 0 else 0
        met = goal_kind >= 0 and hike_goal_met(goal_kind, goal_param, 0, 0, start, n_own)
        out[0] = own + (goal_bonus if met else 0.0)
    for direction in range(N_DIRECTIONS):
        if not (plan_directions >> direction) & 1:
            continue
        n_top = 0
        if values[start] >= 0:
            top[0] = values[start]
            n_top = 1
        cell = start
        for steps in range(1, plan_hike + 1):
            cell = step_cell(cell, direction)
            if cell < 0 or obs[OBS_GRID + cell] < 0:  # R-HIKE-3, R-HIKE-4
                break
            value = values[cell]
            if value >= 0:  # insert, keeping top[] in descending order
                position = n_top
                while position > 0 and top[position - 1] < value:
                    top[position] = top[position - 1]
                    position -= 1
                top[position] = value
                n_top += 1
            if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end here
                continue
            taken = min(paint, n_top)
            total = 0.0
            for i in range(taken):
                total += top[i]
            if goal_kind >= 0 and hike_goal_met(
                goal_kind, goal_param, direction, steps, cell, taken
            ):
                total += goal_bonus
            out[direction * MAX_STEPS + steps] = total


@jit(inline="always")
def best_hikes(obs, values, occupied, tables, goal_kind, goal_param, goal_bonus, top, best):
    """best[i]: the best hike value the i-th plan card in the hand allows now.

    One scan per direction serves all three cards (the same path, a different reach,
    paint number and direction set for each)."""
    start = obs[OBS_POS + obs[OBS_ME]]
    reach = 0
    for i in range(PLAN_HAND):
        best[i] = -1e9
        reach = max(reach, tables.plan_hike[obs[OBS_HAND + i]])
    if not (occupied >> start) & 1:  # staying is legal (R-HIKE-5)
        for i in range(PLAN_HAND):
            paint = tables.plan_paint[obs[OBS_HAND + i]]
            n_own = 1 if values[start] >= 0 and paint > 0 else 0
            own = values[start] if n_own else 0.0
            if goal_kind >= 0 and hike_goal_met(goal_kind, goal_param, 0, 0, start, n_own):
                own += goal_bonus
            best[i] = own
    for direction in range(N_DIRECTIONS):
        wanted = False
        for i in range(PLAN_HAND):
            if (tables.plan_directions[obs[OBS_HAND + i]] >> direction) & 1:
                wanted = True
        if not wanted:
            continue
        n_top = 0
        if values[start] >= 0:
            top[0] = values[start]
            n_top = 1
        cell = start
        for steps in range(1, reach + 1):
            cell = step_cell(cell, direction)
            if cell < 0 or obs[OBS_GRID + cell] < 0:  # R-HIKE-3, R-HIKE-4
                break
            value = values[cell]
            if value >= 0:  # insert, keeping top[] in descending order
                position = n_top
                while position > 0 and top[position - 1] < value:
                    top[position] = top[position - 1]
                    position -= 1
                top[position] = value
                n_top += 1
            if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end here
                continue
            for i in range(PLAN_HAND):
                plan = obs[OBS_HAND + i]
                if (
                    steps > tables.plan_hike[plan]
                    or not (tables.plan_directions[plan] >> direction) & 1
                ):
                    continue
                taken = min(tables.plan_paint[plan], n_top)
                total = 0.0
                for k in range(taken):
                    total += top[k]
                if goal_kind >= 0 and hike_goal_met(
                    goal_kind, goal_param, direction, steps, cell, taken
                ):
                    total += goal_bonus
                if total > best[i]:
                    best[i] = total


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:  # fame gained against leftover fame handed in; row 0 is "stop"
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            commission = options[index, 0]
            value = float(tables.comm_fame[commission])
            for column in range(1, options.shape[1]):
                if options[index, column] >= 0:
                    value -= 0.5 * tables.land_icons[options[index, column]]
            if value > best:
                best = value
                best_index = index
        return best_index
    # one allocation per decision, split into the working arrays
    work = np.empty(N_CELLS + N_DIRECTIONS * MAX_STEPS + (MAX_STEPS + 1) + 2 * (MAX_ROW + 1))
    values = work[:N_CELLS]
    table = work[N_CELLS : N_CELLS + N_DIRECTIONS * MAX_STEPS]
    top = work[
        N_CELLS + N_DIRECTIONS * MAX_STEPS : N_CELLS + N_DIRECTIONS * MAX_STEPS + MAX_STEPS + 1
    ]
    shares = work[-2 * (MAX_ROW + 1) : -(MAX_ROW + 1)]
    ids = work[-(MAX_ROW + 1) :]
    occupied = others_mask(obs)
    cells = ALL_CELLS
    if kind == DECIDE_PAINT:  # only the cells on the path matter
        cells = 0
        for index in range(n_options):
            for column in range(options.shape[1]):
                if options[index, column] >= 0:
                    cells |= 1 << options[index, column]
    cell_values(obs, tables, params[COMMISSION], occupied, cells, values, shares, ids)
    best_index = 0
    best = -1e18
    if kind == DECIDE_PAINT:
        for index in range(n_options):
            value = 0.0
            for column in range(options.shape[1]):
                if options[index, column] >= 0:
                    value += values[options[index, column]]
            if value > best:
                best = value
                best_index = index
        return best_index
    goal = obs[OBS_GOAL]
    goal_kind = -1
    goal_param = 0
    goal_bonus = 0.0
    if goal >= 0:
        goal_kind = tables.goal_kind[goal]
        goal_param = tables.goal_param[goal]
        goal_bonus = params[GOAL] * tables.goal_fame[goal]
    if kind == DECIDE_PLAN:  # the best hike each card allows now, less a lateness penalty
        earliest = tables.plan_wake.min()
        best_hikes(obs, values, occupied, tables, goal_kind, goal_param, goal_bonus, top, table)
        for index in range(n_options):
            plan = obs[OBS_HAND + index]
            value = table[index] - params[LATENESS] * (tables.plan_wake[plan] - earliest) / 15.0
            if value > best:
                best = value
                best_index = index
        return best_index
    plan = obs[OBS_PLAN + obs[OBS_ME]]  # DECIDE_HIKE
    hike_table(
        obs,
        values,
        occupied,
        tables.plan_directions[plan],
        tables.plan_hike[plan],
        tables.plan_paint[plan],
        goal_kind,
        goal_param,
        goal_bonus,
        table,
        top,
    )
    for index in range(n_options):
        direction = options[index, 0]
        value = table[0] if direction < 0 else table[direction * MAX_STEPS + options[index, 1]]
        if value > best:
            best = value
            best_index = index
    return best_index


STRATEGY = StrategySpec(
    name="greedy",
    description="One-ply heuristic. Values a card at half its icons plus its best share of a "
    "visible commission; picks the plan card whose best hike is worth most after a penalty "
    "for waking later, the hike and paint set worth most (plus today's goal if the hike meets "
    "it), and sells whenever a commission's fame beats the leftover fame handed in.",
    decide=decide,
    parameters=(
        Parameter("lateness", 0.3, 0.0, 2.0, "fame lost per 15 minutes of later wake-up"),
        Parameter("commission", 1.0, 0.0, 3.0, "weight of a card's best commission use"),
        Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal with this hike"),
    ),
)
