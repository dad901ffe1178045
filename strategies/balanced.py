"""balanced: one weighted evaluation of turn order, paint power, commission progress, the
goal, leftover points and (if weighted) denying opponents the cards they need."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._card_worth import MAX_VALUES, earliest_wake, option_values
from sunset_sim.strategies._context import N_FLOATS, N_INTS, context
from sunset_sim.strategies._style_tools import (
    N_WEIGHTS,
    RATE_SHARE,
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
    argmax,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE
from sunset_sim.observation import OBS_DAY, OBS_DAYS, OBS_GOAL
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import sale_value, stack_empty, whole_paint_set

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("earliness", 0.3, 0.0, 2.0, "fame per 15 minutes of earlier wake-up"),
    Parameter("paint", 0.3, 0.0, 2.0, "fame per card the plan card may paint"),
    Parameter("commission", 1.0, 0.0, 3.0, "weight of frames filled toward commissions"),
    Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal"),
    Parameter("leftover", 1.0, 0.0, 3.0, "weight of leftover fame (icons / 2)"),
    Parameter("deny", 0.0, 0.0, 3.0, "weight of cards that opponents need"),
)
# deny is 0 by default (0.3 until 2026-12-06): at 0.3 balanced won about 1 point of win
# share less in every field measured (2, 3 and 4 players; tuned weights too), and at 0
# nothing of the denial is computed (_context.prepare, _card_worth.card_worth), which
# plays about 5% faster (issue 16; docs/performance-history.md)
EARLINESS, PAINT, COMMISSION, GOAL, LEFTOVER, DENY = parameter_indices(
    PARAMETERS, "earliness", "paint", "commission", "goal", "leftover", "deny"
)


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:  # fame against the weighted leftover fame handed in
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            value = sale_value(
                options, index, tables.comm_fame, tables.land_icons, params[LEFTOVER]
            )
            if value > best:
                best = value
                best_index = index
        return best_index
    if kind == DECIDE_PAINT:  # a set holding every other: the choice (whole_paint_set)
        whole = whole_paint_set(obs, options, n_options, tables.land_icons, 0.5 * params[LEFTOVER])
        if whole >= 0:
            return whole
    weights = stack_empty(N_WEIGHTS, np.float64)
    weights[W_ICONS] = 0.5 * params[LEFTOVER]
    weights[W_TARGET] = 0.0
    weights[W_OTHER] = params[COMMISSION]
    weights[W_DENY] = params[DENY]
    goal = obs[OBS_GOAL]
    weights[W_GOAL] = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    ints = stack_empty(N_INTS, np.int64)
    floats = stack_empty(N_FLOATS, np.float64)
    include_preview = obs[OBS_DAY] < obs[OBS_DAYS]  # the preview joins the row tomorrow
    n_vis, n_held, held_features = context(
        obs, tables, include_preview, RATE_SHARE, 1.0, params[DENY] != 0.0, weights, ints, floats
    )
    values = stack_empty(MAX_VALUES, np.float64)
    option_values(
        kind, obs, options, n_options, tables, n_vis, ints, floats, -1, n_held, held_features,
        values,
    )  # fmt: skip
    if kind == DECIDE_PLAN:
        earliest = earliest_wake(tables.plan_wake)
        for index in range(n_options):
            plan = options[index, 0]
            values[index] += params[PAINT] * tables.plan_paint[plan]
            values[index] -= params[EARLINESS] * (tables.plan_wake[plan] - earliest) / 15.0
    return argmax(values, n_options)


STRATEGY = StrategySpec(
    name="balanced",
    description="Weighs everything in one tunable evaluation. A card is worth its leftover "
    "points (icons / 2), the fame per frame of the best visible commission it adds a frame "
    "to (given its unsold paintings) and, with a deny weight (0 by default), the fame per "
    "frame of a visible commission that an opponent collects for (their unsold paintings "
    "are public) whose frame it fits. A hike is worth its best cards (plus today's goal if "
    "met); a plan card the best hike it allows now, plus its paint power, less a price for "
    "waking later; a sale is made when its fame beats the weighted leftover points handed in.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
