"""greedy-painter: paints as many feature icons as it can every turn."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._card_worth import MAX_VALUES, earliest_wake, option_values, paint_values
from sunset_sim.strategies._context import N_FLOATS, N_INTS, WEIGHTS, context
from sunset_sim.strategies._style_tools import (
    N_WEIGHTS,
    RATE_SHARE,
    W_ICONS,
    W_OTHER,
    argmax,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE
from sunset_sim.observation import OBS_N_PAINTINGS, OBS_PREVIEW, OBS_ROW, OBS_ROW_LEN
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import PATH_TOP, sale_value, stack_empty, whole_paint_set

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("lateness", 0.0, 0.0, 2.0, "icons given up per 15 minutes of later wake-up"),
    Parameter("sell", 1.0, 0.0, 4.0, "sell when fame > sell x the leftover fame handed in"),
)
LATENESS, SELL = parameter_indices(PARAMETERS, "lateness", "sell")

TIE_BREAK = 0.01  # per unit of commission share: only splits options with equal icons
WAKE_TIE_BREAK = 1e-4  # per 15 minutes: among equal values, the earlier card


@jit(inline="always")
def wake_penalties(options, n_options, plan_wake, lateness, values):
    """A plan card's value less its later wake-up (lateness, and a tie-break per 15 min)."""
    earliest = earliest_wake(plan_wake)
    for index in range(n_options):
        late = (plan_wake[options[index, 0]] - earliest) / 15.0
        values[index] -= (lateness + WAKE_TIE_BREAK) * late


@jit(inline="always")
def best_visible_share(obs, comm_share):
    """The largest fame per frame in the row and the preview: what one card's commission
    term can be worth at most."""
    best = 0.0
    for slot in range(obs[OBS_ROW_LEN]):
        best = max(best, comm_share[obs[OBS_ROW + slot]])
    if obs[OBS_PREVIEW] >= 0:
        best = max(best, comm_share[obs[OBS_PREVIEW]])
    return best


@jit(_nrt=False, wraparound=False)
def paint_by_icons(obs, options, n_options, land_icons, land_fit, land_features, comm_share):
    """The paint set chosen by its icons alone, or -1 where the commission term may decide.
    It adds TIE_BREAK x a visible share at most per card, so a set ahead of every other by
    more icons than that is the choice of the whole value; its icons are summed by the same
    paint_values with no commission in view (no context). In recorded games it decides
    most paint decisions that whole_paint_set leaves (replayed: 91 -> 77 ns a decision)."""
    ints = stack_empty(N_INTS, np.int64)
    floats = stack_empty(N_FLOATS, np.float64)
    values = stack_empty(MAX_VALUES, np.float64)
    for w in range(N_WEIGHTS):
        floats[WEIGHTS + w] = 0.0
    floats[WEIGHTS + W_ICONS] = 1.0
    paint_values(
        obs, options, n_options, land_icons, land_fit, land_features, 0, ints, floats, -1, -1,
        0, obs[OBS_N_PAINTINGS], 0, values,
    )  # fmt: skip
    first = argmax(values, n_options)
    # (PATH_TOP cards at most; 1e-9 for the rounding of sums of at most PATH_TOP values)
    bound = TIE_BREAK * best_visible_share(obs, comm_share) * PATH_TOP + 1e-9
    clear = True
    for index in range(n_options):
        clear &= (index == first) | (values[index] + bound < values[first])
    return first if clear else -1


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
    if kind == DECIDE_PAINT:  # shortcuts that leave the choice as it was
        chosen = whole_paint_set(obs, options, n_options, tables.land_icons, 1.0)
        if chosen < 0:
            chosen = paint_by_icons(
                obs, options, n_options, tables.land_icons, tables.land_fit,
                tables.land_features, tables.comm_share,
            )  # fmt: skip
        if chosen >= 0:
            return chosen
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
        wake_penalties(options, n_options, tables.plan_wake, params[LATENESS], values)
    return argmax(values, n_options)


STRATEGY = StrategySpec(
    name="greedy-painter",
    description="Paints as many feature icons as it can every turn: keeps the plan card whose "
    "hike and paint number reach the most icons from where it stands now (ties to the "
    "earlier card), hikes and paints "
    "for the most icons (commission fit only breaks ties), and sells only when a "
    "commission's fame exceeds the leftover fame (icons / 2) it costs. It banks on leftover "
    "points and a full easel rather than on planning commissions or goals.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
