"""greedy: a one-ply heuristic that values each card by its icons and commission use."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PAINT, DECIDE_PLAN, N_DIRECTIONS
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
def card_value(card, obs, tables, commission_weight):
    """Half its icons (leftover fame, R-END-2) plus its best use in a visible commission."""
    best = 0.0
    row_len = obs[OBS_ROW_LEN]
    for slot in range(row_len + 1):
        commission = obs[OBS_ROW + slot] if slot < row_len else obs[OBS_PREVIEW]
        if commission < 0:
            continue
        n_frames = tables.comm_n_frames[commission]
        for frame in range(n_frames):
            if tables.match[card, tables.comm_frames[commission, frame]]:
                share = tables.comm_fame[commission] / n_frames
                if share > best:
                    best = share
    return 0.5 * tables.land_icons[card] + commission_weight * best


@jit
def hike_value(obs, tables, params, start, direction, steps, paint):
    """Value of the best paint set on this hike's path, plus the goal it would meet."""
    values = np.zeros(5)  # a straight path has at most 5 cells
    n_values = 0
    cell = start
    for step in range(steps + 1):
        if step > 0:
            cell = step_cell(cell, direction)
        card = obs[OBS_GRID + cell]
        if card >= 0 and not other_artist_at(obs, cell):
            values[n_values] = card_value(card, obs, tables, params[COMMISSION])
            n_values += 1
    values[:n_values].sort()
    n_top = min(paint, n_values)
    total = 0.0
    for i in range(n_values - n_top, n_values):
        total += values[i]
    goal = obs[OBS_GOAL]
    if goal >= 0:
        kind = tables.goal_kind[goal]
        if hike_goal_met(kind, tables.goal_param[goal], direction, steps, cell, n_top):
            total += params[GOAL] * tables.goal_fame[goal]
    return total


@jit
def best_hike_value(obs, tables, params, plan):
    """The best hike_value a plan card allows from here, as the board stands now."""
    start = obs[OBS_POS + obs[OBS_ME]]
    paint = tables.plan_paint[plan]
    best = -1.0
    if not other_artist_at(obs, start):
        best = hike_value(obs, tables, params, start, -1, 0, paint)
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
            value = hike_value(obs, tables, params, start, direction, steps, paint)
            if value > best:
                best = value
    return best


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    best_index = 0
    best = -1e18
    start = obs[OBS_POS + obs[OBS_ME]]
    for index in range(n_options):
        if kind == DECIDE_PLAN:
            plan = obs[OBS_HAND + index]
            value = best_hike_value(obs, tables, params, plan)
            value -= params[LATENESS] * (tables.plan_wake[plan] - tables.plan_wake.min()) / 15.0
        elif kind == DECIDE_HIKE:
            paint = tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]]
            value = hike_value(
                obs, tables, params, start, options[index, 0], options[index, 1], paint
            )
        elif kind == DECIDE_PAINT:
            value = 0.0
            for column in range(options.shape[1]):
                cell = options[index, column]
                if cell >= 0:
                    value += card_value(obs[OBS_GRID + cell], obs, tables, params[COMMISSION])
        else:  # DECIDE_SALE: fame gained against leftover fame given up; row 0 is "stop"
            commission = options[index, 0]
            value = 0.0
            if commission >= 0:
                value = float(tables.comm_fame[commission])
                for column in range(1, options.shape[1]):
                    if options[index, column] >= 0:
                        value -= 0.5 * tables.land_icons[options[index, column]]
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
