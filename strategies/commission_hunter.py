"""commission-hunter: chooses a target commission and works toward it across days."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._card_worth import MAX_VALUES, earliest_wake, option_values
from sunset_sim.strategies._context import (
    BASE,
    COUNTS,
    N_FLOATS,
    N_INTS,
    RATE,
    VIS,
    context,
    frames_filled,
)
from sunset_sim.strategies._style_tools import (
    BIG,
    N_WEIGHTS,
    RATE_MISSING,
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
    argmax,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE
from sunset_sim.observation import (
    OBS_DAY,
    OBS_DAYS,
    OBS_GOAL,
)
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import sale_value, stack_empty, whole_paint_set

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("target", 2.0, 0.0, 5.0, "weight of progress toward the target commission"),
    Parameter("other", 0.5, 0.0, 3.0, "weight of progress toward other commissions"),
    Parameter("leftover", 1.0, 0.0, 3.0, "weight of leftover fame (icons / 2)"),
    Parameter("preview", 0.8, 0.0, 1.0, "the preview's worth as a target (row = 1)"),
    Parameter("lateness", 0.3, 0.0, 2.0, "fame lost per 15 minutes of later wake-up"),
    Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal"),
)
TARGET, OTHER, LEFTOVER, PREVIEW, LATENESS, GOAL = parameter_indices(
    PARAMETERS, "target", "other", "leftover", "preview", "lateness", "goal"
)


@jit(inline="always")
def pick_target(comm_n_frames, comm_fame, n_vis, ints, floats):
    """The visible slot with the most fame per still-missing frame (its rate; the
    preview's already scaled); ties to fewer missing frames, then more fame. -1 if none.
    (The best so far stays in registers and is replaced by selects, not branches: which
    slot wins depends on the deal, so a branch would mispredict.)"""
    target = -1
    best_rate = 0.0
    best_missing = 0
    best_fame = 0
    for k in range(n_vis):
        commission = ints[VIS + k]
        missing = comm_n_frames[commission] - ints[BASE + k]
        rate = floats[RATE + k]
        fame = comm_fame[commission]
        better = (
            (k == 0)
            | (rate > best_rate)
            | (
                (rate == best_rate)
                & ((missing < best_missing) | ((missing == best_missing) & (fame > best_fame)))
            )
        )
        target = k if better else target
        best_rate = rate if better else best_rate
        best_missing = missing if better else best_missing
        best_fame = fame if better else best_fame
    return target


@jit(inline="always")
def choose_sale(
    options, n_options, leftover, land_icons, land_fit, comm_fame, comm_n_frames, ints, target
):
    """Sell the target as soon as it can; otherwise the best sale worth more than its
    leftover fame that does not take a painting the target still needs (checked only for
    a sale that would be the best so far: the others are not chosen either way)."""
    target_commission = ints[VIS + target] if target >= 0 else -1
    column_of_target = np.uint64(max(target_commission, 0))
    counts = ints[COUNTS + target] if target >= 0 else 0  # 8 bits per frame mask
    n_frames = comm_n_frames[column_of_target]
    need = ints[BASE + target] if target >= 0 else 0
    best_index = 0
    best = 0.0
    for index in range(1, n_options):
        commission = options[index, 0]
        value = sale_value(options, index, comm_fame, land_icons, leftover)
        if commission == target_commission:
            value += BIG
        elif target >= 0 and value > best:  # paintings the target needs are not sold elsewhere
            left = counts
            for column in range(1, options.shape[1]):
                card = options[index, column]
                m = np.int64(land_fit[np.uint64(max(card, 0)), column_of_target])
                left -= (np.int64(1) << (8 * m)) if card >= 0 else 0
            if frames_filled(left, n_frames) < need:
                continue
        if value > best:
            best = value
            best_index = index
    return best_index


@jit(inline="always")
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PAINT:  # a set holding every other: the choice (whole_paint_set)
        whole = whole_paint_set(obs, options, n_options, tables.land_icons, 0.5 * params[LEFTOVER])
        if whole >= 0:
            return whole
    weights = stack_empty(N_WEIGHTS, np.float64)
    weights[W_ICONS] = 0.5 * params[LEFTOVER]
    weights[W_TARGET] = params[TARGET]
    weights[W_OTHER] = params[OTHER]
    weights[W_DENY] = 0.0
    goal = obs[OBS_GOAL]
    weights[W_GOAL] = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    ints = stack_empty(N_INTS, np.int64)
    floats = stack_empty(N_FLOATS, np.float64)
    # the preview joins the row at clean-up: a target for tomorrow, if there is one
    include_preview = obs[OBS_DAY] < obs[OBS_DAYS]
    n_vis, n_held, held_features = context(
        obs, tables, include_preview, RATE_MISSING, params[PREVIEW], False, weights, ints, floats
    )
    target = pick_target(tables.comm_n_frames, tables.comm_fame, n_vis, ints, floats)
    if kind == DECIDE_SALE:
        return choose_sale(
            options, n_options, params[LEFTOVER], tables.land_icons, tables.land_fit,
            tables.comm_fame, tables.comm_n_frames, ints, target,
        )  # fmt: skip
    values = stack_empty(MAX_VALUES, np.float64)
    option_values(
        kind, obs, options, n_options, tables, n_vis, ints, floats, target, n_held,
        held_features, values,
    )  # fmt: skip
    if kind == DECIDE_PLAN:
        earliest = earliest_wake(tables.plan_wake)
        for index in range(n_options):
            late = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
            values[index] -= params[LATENESS] * late
    return argmax(values, n_options)


STRATEGY = StrategySpec(
    name="commission-hunter",
    description="Works toward the most valuable commissions, planning across days. Every "
    "decision picks a target among the row and the preview (the preview counts as "
    "tomorrow's option): the most fame per frame still missing, given its unsold paintings. "
    "It values cards by the missing frames they fill for the target, then for the best other "
    "commission, then by their icons; keeps the paintings the target needs instead of "
    "selling them into lesser commissions, and sells the target as soon as it can.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
