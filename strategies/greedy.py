"""greedy: a one-ply heuristic that values each card by its icons and commission use."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE, N_CELLS, N_DIRECTIONS
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
)
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import hike_goal_met, other_artist_at, step_cell

# params vector layout
LATENESS = 0  # fame-equivalents lost per 15 minutes of later wake-up
COMMISSION = 1  # weight of a card's best commission use (fame per frame)
GOAL = 2  # weight of meeting today's goal


@jit
def visible_commissions(obs, words):
    """Bitmask (uint64 words) of the commissions in the row and the preview."""
    mask = np.zeros(words, dtype=np.uint64)
    row_len = obs[OBS_ROW_LEN]
    for slot in range(row_len + 1):
        commission = obs[OBS_ROW + slot] if slot < row_len else obs[OBS_PREVIEW]
        if commission >= 0:
            mask[commission // 64] |= np.uint64(1) << np.uint64(commission % 64)
    return mask


@jit
def card_value(card, tables, visible, commission_weight):
    """Half its icons (leftover fame, R-END-2) plus its best share of a visible commission."""
    best = 0.0
    for word in range(visible.shape[0]):
        bits = tables.land_commissions[card, word] & visible[word]
        while bits:
            low = bits & (~bits + np.uint64(1))  # lowest set bit
            commission = word * 64 + count_trailing_zeros(low)
            share = tables.comm_fame[commission] / tables.comm_n_frames[commission]
            if share > best:
                best = share
            bits ^= low
    return 0.5 * tables.land_icons[card] + commission_weight * best


@jit
def count_trailing_zeros(bit):
    n = 0
    while bit > np.uint64(1):
        bit >>= np.uint64(1)
        n += 1
    return n


@jit
def cell_values(obs, tables, commission_weight):
    """card_value of each cell this player could paint now, -1 where it cannot (R-PAINT-2)."""
    values = np.empty(N_CELLS)
    visible = visible_commissions(obs, tables.land_commissions.shape[1])
    for cell in range(N_CELLS):
        card = obs[OBS_GRID + cell]
        if card < 0 or other_artist_at(obs, cell):
            values[cell] = -1.0
        else:
            values[cell] = card_value(card, tables, visible, commission_weight)
    return values


@jit
def hike_value(values, start, direction, steps, paint, goal_kind, goal_param, goal_bonus):
    """The best `paint` cells on this hike's path, plus the goal bonus if the hike meets it."""
    total = 0.0
    taken = 0  # bitmask over path positions already counted
    n_taken = 0
    for _ in range(paint):
        best = -1.0
        best_step = -1
        cell = start
        for step in range(steps + 1):
            if step > 0:
                cell = step_cell(cell, direction)
            if not (taken >> step) & 1 and values[cell] > best:
                best = values[cell]
                best_step = step
        if best_step < 0:
            break
        taken |= 1 << best_step
        total += best
        n_taken += 1
    end = cell if steps > 0 else start
    if goal_kind >= 0 and hike_goal_met(goal_kind, goal_param, direction, steps, end, n_taken):
        total += goal_bonus
    return total


@jit
def best_hike_value(obs, tables, values, plan, goal_kind, goal_param, goal_bonus):
    """The best hike_value a plan card allows from here, as the board stands now."""
    start = obs[OBS_POS + obs[OBS_ME]]
    paint = tables.plan_paint[plan]
    best = -1.0
    if not other_artist_at(obs, start):
        best = hike_value(values, start, -1, 0, paint, goal_kind, goal_param, goal_bonus)
    for direction in range(N_DIRECTIONS):
        if not (tables.plan_directions[plan] >> direction) & 1:
            continue
        cell = start
        for steps in range(1, tables.plan_hike[plan] + 1):
            cell = step_cell(cell, direction)
            if cell < 0 or obs[OBS_GRID + cell] < 0:
                break
            if other_artist_at(obs, cell):
                continue
            value = hike_value(
                values, start, direction, steps, paint, goal_kind, goal_param, goal_bonus
            )
            if value > best:
                best = value
    return best


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
    values = cell_values(obs, tables, params[COMMISSION])
    if kind == DECIDE_PAINT:
        best_index = 0
        best = -1.0
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
    best_index = 0
    best = -1e18
    if kind == DECIDE_PLAN:
        earliest = tables.plan_wake.min()
        for index in range(n_options):
            plan = obs[OBS_HAND + index]
            value = best_hike_value(obs, tables, values, plan, goal_kind, goal_param, goal_bonus)
            value -= params[LATENESS] * (tables.plan_wake[plan] - earliest) / 15.0
            if value > best:
                best = value
                best_index = index
        return best_index
    # DECIDE_HIKE
    start = obs[OBS_POS + obs[OBS_ME]]
    paint = tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]]
    for index in range(n_options):
        value = hike_value(
            values,
            start,
            options[index, 0],
            options[index, 1],
            paint,
            goal_kind,
            goal_param,
            goal_bonus,
        )
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
