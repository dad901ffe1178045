"""balanced: one weighted evaluation of turn order, paint power, commission progress, the
goal, leftover points and denying opponents the cards they need."""

from __future__ import annotations

import numpy as np

from strategies._style_tools import (
    MAX_VALUES,
    MAX_VISIBLE,
    N_CELL_VIS,
    N_VIS_MASKS,
    N_WEIGHTS,
    RATE_SHARE,
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
    argmax,
    fast_hike_values,
    fast_paint_values,
    fast_plan_values,
    fast_prepare,
)
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PLAN, DECIDE_SALE, N_CELLS
from sunset_sim.observation import OBS_DAY, OBS_DAYS, OBS_GOAL
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import stack_empty

# params vector layout
EARLINESS = 0  # fame per 15 minutes of earlier wake-up (turn order)
PAINT = 1  # fame per card the plan card lets it paint (paint power)
COMMISSION = 2  # weight of commission progress
GOAL = 3  # weight of meeting today's goal
LEFTOVER = 4  # weight of leftover fame (icons / 2)
DENY = 5  # weight of taking cards that opponents need


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:  # fame against the weighted leftover fame handed in
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            icons = 0
            for column in range(1, options.shape[1]):
                if options[index, column] >= 0:
                    icons += tables.land_icons[options[index, column]]
            value = tables.comm_fame[options[index, 0]] - params[LEFTOVER] * 0.5 * icons
            if value > best:
                best = value
                best_index = index
        return best_index
    include_preview = obs[OBS_DAY] < obs[OBS_DAYS]  # the preview joins the row tomorrow
    vis = stack_empty(MAX_VISIBLE, np.int64)
    hist = stack_empty(N_VIS_MASKS, np.int64)
    need = stack_empty(N_VIS_MASKS, np.int64)
    base = stack_empty(MAX_VISIBLE, np.int64)
    rate = stack_empty(MAX_VISIBLE, np.float64)
    phit = stack_empty(N_CELL_VIS, np.int64)
    deny = stack_empty(N_CELLS, np.float64)
    done = stack_empty(1, np.int64)
    n_vis, _, n_held, held_features = fast_prepare(
        obs,
        tables,
        include_preview,
        RATE_SHARE,
        1.0,
        params[DENY] != 0.0,
        vis,
        hist,
        need,
        base,
        rate,
        phit,
        deny,
        done,
    )
    weights = stack_empty(N_WEIGHTS, np.float64)
    weights[W_ICONS] = 0.5 * params[LEFTOVER]
    weights[W_TARGET] = 0.0
    weights[W_OTHER] = params[COMMISSION]
    weights[W_DENY] = params[DENY]
    goal = obs[OBS_GOAL]
    weights[W_GOAL] = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    values = stack_empty(MAX_VALUES, np.float64)
    if n_options > MAX_VALUES:
        values = np.empty(n_options, dtype=np.float64)
    if kind == DECIDE_PLAN:
        fast_plan_values(
            obs, tables, options, n_options, weights, -1, n_vis, vis, need, base, rate, phit,
            deny, n_held, held_features, values, done,
        )  # fmt: skip
        earliest = tables.plan_wake.min()
        for index in range(n_options):
            plan = options[index, 0]
            values[index] += params[PAINT] * tables.plan_paint[plan]
            values[index] -= params[EARLINESS] * (tables.plan_wake[plan] - earliest) / 15.0
    elif kind == DECIDE_HIKE:
        fast_hike_values(
            obs, tables, options, n_options, weights, -1, n_vis, vis, need, base, rate, phit,
            deny, n_held, held_features, values, done,
        )  # fmt: skip
    else:
        fast_paint_values(
            obs, tables, options, n_options, weights, -1, n_vis, vis, need, base, rate, phit,
            deny, n_held, held_features, values, done,
        )  # fmt: skip
    return argmax(values, n_options)


STRATEGY = StrategySpec(
    name="balanced",
    description="Weighs everything in one tunable evaluation. A card is worth its leftover "
    "points (icons / 2), the frames it fills toward the best visible commission (fame per "
    "frame, given its unsold paintings) and, to deny them, what it is worth to an opponent "
    "whose public unsold paintings it would help toward a commission. A plan card is worth "
    "the best hike it allows now (plus today's goal if met), plus its paint power, less a "
    "price for waking later; hike and paint take the best weighted cards; a sale is made when "
    "its fame beats the weighted leftover points handed in.",
    decide=decide,
    parameters=(
        Parameter("earliness", 0.3, 0.0, 2.0, "fame per 15 minutes of earlier wake-up"),
        Parameter("paint", 0.3, 0.0, 2.0, "fame per card the plan card may paint"),
        Parameter("commission", 1.0, 0.0, 3.0, "weight of frames filled toward commissions"),
        Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal"),
        Parameter("leftover", 1.0, 0.0, 3.0, "weight of leftover fame (icons / 2)"),
        Parameter("deny", 0.3, 0.0, 3.0, "weight of cards that opponents need"),
    ),
)
