"""greedy-painter: paints as many feature icons as it can every turn."""

from __future__ import annotations

import numpy as np

from strategies._style_tools import (
    N_WEIGHTS,
    RATE_SHARE,
    W_ICONS,
    W_OTHER,
    argmax,
    evaluation,
    hike_values,
    paint_values,
    plan_values,
    sale_icons,
)
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PLAN, DECIDE_SALE
from sunset_sim.observation import OBS_ME
from sunset_sim.strategy import Parameter, StrategySpec

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
            value = tables.comm_fame[options[index, 0]] - params[SELL] * 0.5 * sale_icons(
                tables, options, index
            )
            if value > best:
                best = value
                best_index = index
        return best_index
    weights = np.zeros(N_WEIGHTS, dtype=np.float64)
    weights[W_ICONS] = 1.0
    weights[W_OTHER] = TIE_BREAK
    lookup = evaluation(obs, tables, obs[OBS_ME], True, RATE_SHARE, 1.0, False)
    values = np.empty(n_options, dtype=np.float64)
    if kind == DECIDE_PLAN:
        plan_values(obs, tables, options, n_options, weights, -1, lookup, values)
        earliest = tables.plan_wake.min()
        for index in range(n_options):
            late = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
            values[index] -= (params[LATENESS] + WAKE_TIE_BREAK) * late
    elif kind == DECIDE_HIKE:
        hike_values(obs, tables, options, n_options, weights, -1, lookup, values)
    else:
        paint_values(obs, tables, options, n_options, weights, -1, lookup, values)
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
