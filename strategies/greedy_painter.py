"""greedy-painter: paints as many feature icons as it can every turn."""

from __future__ import annotations

import numpy as np

from strategies._style_tools import (
    MAX_VALUES,
    MAX_VISIBLE,
    N_CELL_VIS,
    N_VIS_MASKS,
    N_WEIGHTS,
    RATE_SHARE,
    W_ICONS,
    W_OTHER,
    argmax,
    fast_hike_values,
    fast_paint_values,
    fast_plan_values,
    fast_prepare,
)
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PLAN, DECIDE_SALE, N_CELLS
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import stack_empty

# params vector layout
LATENESS = 0  # icons given up per 15 minutes of later wake-up
SELL = 1  # sell when fame > sell x the leftover fame handed in (icons / 2)

TIE_BREAK = 0.01  # per unit of commission share: only splits options with equal icons
WAKE_TIE_BREAK = 1e-4  # per 15 minutes: among equal values, the earlier card


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            icons = 0
            for column in range(1, options.shape[1]):
                if options[index, column] >= 0:
                    icons += tables.land_icons[options[index, column]]
            value = tables.comm_fame[options[index, 0]] - params[SELL] * 0.5 * icons
            if value > best:
                best = value
                best_index = index
        return best_index
    weights = stack_empty(N_WEIGHTS, np.float64)
    for w in range(N_WEIGHTS):
        weights[w] = 0.0
    weights[W_ICONS] = 1.0
    weights[W_OTHER] = TIE_BREAK
    vis = stack_empty(MAX_VISIBLE, np.int64)
    hist = stack_empty(N_VIS_MASKS, np.int64)
    need = stack_empty(N_VIS_MASKS, np.int64)
    base = stack_empty(MAX_VISIBLE, np.int64)
    rate = stack_empty(MAX_VISIBLE, np.float64)
    phit = stack_empty(N_CELL_VIS, np.int64)
    deny = stack_empty(N_CELLS, np.float64)
    done = stack_empty(1, np.int64)
    n_vis, _, n_held, held_features = fast_prepare(
        obs, tables, True, RATE_SHARE, 1.0, False, vis, hist, need, base, rate, phit, deny, done
    )
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
            late = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
            values[index] -= (params[LATENESS] + WAKE_TIE_BREAK) * late
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
    name="greedy-painter",
    description="Paints as many feature icons as it can every turn: keeps the plan card whose "
    "hike and paint number reach the most icons from where it stands now, hikes and paints "
    "for the most icons (commission fit only breaks ties), and sells only when a "
    "commission's fame exceeds the leftover fame (icons / 2) it costs. It banks on leftover "
    "points and a full easel rather than on planning commissions or goals.",
    decide=decide,
    parameters=(
        Parameter("lateness", 0.0, 0.0, 2.0, "icons given up per 15 minutes of later wake-up"),
        Parameter("sell", 1.0, 0.0, 4.0, "sell when fame > sell x the leftover fame handed in"),
    ),
)
