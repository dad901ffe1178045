"""greedy-painter: paints as many feature icons as it can every turn."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._card_worth import (
    MAX_VALUES,
    N_FLOATS,
    N_INTS,
    context,
    earliest_wake,
    option_values,
)
from sunset_sim.strategies._style_tools import (
    N_WEIGHTS,
    RATE_SHARE,
    W_ICONS,
    W_OTHER,
    argmax,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PLAN, DECIDE_SALE
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import sale_value, stack_empty

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("lateness", 0.0, 0.0, 2.0, "icons given up per 15 minutes of later wake-up"),
    Parameter("sell", 1.0, 0.0, 4.0, "sell when fame > sell x the leftover fame handed in"),
)
LATENESS, SELL = parameter_indices(PARAMETERS, "lateness", "sell")

TIE_BREAK = 0.01  # per unit of commission share: only splits options with equal icons
WAKE_TIE_BREAK = 1e-4  # per 15 minutes: among equal values, the earlier card


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            value = sale_value(options, index, tables.comm_fame, tables.land_icons, params[SELL])
            if value > best:
                best = value
                best_index = index
        return best_index
    weights = stack_empty(N_WEIGHTS, np.float64)
    for w in range(N_WEIGHTS):
        weights[w] = 0.0
    weights[W_ICONS] = 1.0
    weights[W_OTHER] = TIE_BREAK
    ints = stack_empty(N_INTS, np.int64)
    floats = stack_empty(N_FLOATS, np.float64)
    n_vis, n_held, held_features = context(
        obs, tables, True, RATE_SHARE, 1.0, False, weights, ints, floats
    )
    values = stack_empty(MAX_VALUES, np.float64)
    option_values(
        kind, obs, options, n_options, tables, n_vis, ints, floats, -1, n_held, held_features,
        values,
    )  # fmt: skip
    if kind == DECIDE_PLAN:
        earliest = earliest_wake(tables.plan_wake)
        for index in range(n_options):
            late = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
            values[index] -= (params[LATENESS] + WAKE_TIE_BREAK) * late
    return argmax(values, n_options)


STRATEGY = StrategySpec(
    name="greedy-painter",
    description="Paints as many feature icons as it can every turn: keeps the plan card whose "
    "hike and paint number reach the most icons from where it stands now, hikes and paints "
    "for the most icons (commission fit only breaks ties), and sells only when a "
    "commission's fame exceeds the leftover fame (icons / 2) it costs. It banks on leftover "
    "points and a full easel rather than on planning commissions or goals.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
