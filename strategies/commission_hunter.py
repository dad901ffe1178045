"""commission-hunter: chooses a target commission and works toward it across days."""

from __future__ import annotations

import numpy as np

from strategies._style_tools import (
    BIG,
    MAX_VALUES,
    MAX_VISIBLE,
    N_CELL_VIS,
    N_MASKS,
    N_VIS_MASKS,
    N_WEIGHTS,
    RATE_MISSING,
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
    argmax,
    fast_frame_mask,
    fast_hike_values,
    fast_need,
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
TARGET = 0  # weight of progress toward the target commission
OTHER = 1  # weight of progress toward the best other visible commission
LEFTOVER = 2  # weight of leftover fame (icons / 2), gained by painting, lost by selling
PREVIEW = 3  # the preview's worth as a target, relative to a row commission
LATENESS = 4  # fame lost per 15 minutes of later wake-up
GOAL = 5  # weight of meeting today's goal


@jit(_nrt=False)
def pick_target(tables, n_vis, vis, base, rate):
    """The visible slot with the most fame per still-missing frame (``rate``; the preview's
    already scaled); ties to fewer missing frames, then more fame. -1 if none."""
    target = -1
    for k in range(n_vis):
        if target < 0:
            target = k
            continue
        missing = tables.comm_n_frames[vis[k]] - base[k]
        best_missing = tables.comm_n_frames[vis[target]] - base[target]
        if rate[k] > rate[target] or (
            rate[k] == rate[target]
            and (
                missing < best_missing
                or (
                    missing == best_missing
                    and tables.comm_fame[vis[k]] > tables.comm_fame[vis[target]]
                )
            )
        ):
            target = k
    return target


@jit(_nrt=False)
def choose_sale(tables, options, n_options, params, vis, hist, base, target):
    """Sell the target as soon as it can; otherwise the best sale worth more than its
    leftover fame that does not take a painting the target still needs."""
    target_commission = vis[target] if target >= 0 else -1
    reduced = stack_empty(N_MASKS, np.int64)
    reduced_need = stack_empty(N_MASKS, np.int64)
    best_index = 0
    best = 0.0
    for index in range(1, n_options):
        commission = options[index, 0]
        icons = 0
        for column in range(1, options.shape[1]):
            if options[index, column] >= 0:
                icons += tables.land_icons[options[index, column]]
        value = tables.comm_fame[commission] - params[LEFTOVER] * 0.5 * icons
        if commission == target_commission:
            value += BIG
        elif target >= 0:  # paintings reserved for the target are not sold elsewhere
            for m in range(N_MASKS):
                reduced[m] = hist[target * N_MASKS + m]
            for column in range(1, options.shape[1]):
                if options[index, column] >= 0:
                    reduced[fast_frame_mask(tables, options[index, column], target_commission)] -= 1
            n_frames = tables.comm_n_frames[target_commission]
            if n_frames - fast_need(n_frames, reduced, 0, reduced_need) < base[target]:
                continue
        if value > best:
            best = value
            best_index = index
    return best_index


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    # the preview joins the row at clean-up: a target for tomorrow, if there is one
    include_preview = obs[OBS_DAY] < obs[OBS_DAYS]
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
        RATE_MISSING,
        params[PREVIEW],
        False,
        vis,
        hist,
        need,
        base,
        rate,
        phit,
        deny,
        done,
    )
    target = pick_target(tables, n_vis, vis, base, rate)
    if kind == DECIDE_SALE:
        return choose_sale(tables, options, n_options, params, vis, hist, base, target)
    weights = stack_empty(N_WEIGHTS, np.float64)
    weights[W_ICONS] = 0.5 * params[LEFTOVER]
    weights[W_TARGET] = params[TARGET]
    weights[W_OTHER] = params[OTHER]
    weights[W_DENY] = 0.0
    goal = obs[OBS_GOAL]
    weights[W_GOAL] = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    values = stack_empty(MAX_VALUES, np.float64)
    if n_options > MAX_VALUES:
        values = np.empty(n_options, dtype=np.float64)
    if kind == DECIDE_PLAN:
        fast_plan_values(
            obs, tables, options, n_options, weights, target, n_vis, vis, need, base, rate,
            phit, deny, n_held, held_features, values, done,
        )  # fmt: skip
        earliest = tables.plan_wake.min()
        for index in range(n_options):
            late = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
            values[index] -= params[LATENESS] * late
    elif kind == DECIDE_HIKE:
        fast_hike_values(
            obs, tables, options, n_options, weights, target, n_vis, vis, need, base, rate,
            phit, deny, n_held, held_features, values, done,
        )  # fmt: skip
    else:
        fast_paint_values(
            obs, tables, options, n_options, weights, target, n_vis, vis, need, base, rate,
            phit, deny, n_held, held_features, values, done,
        )  # fmt: skip
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
    parameters=(
        Parameter("target", 2.0, 0.0, 5.0, "weight of progress toward the target commission"),
        Parameter("other", 0.5, 0.0, 3.0, "weight of progress toward other commissions"),
        Parameter("leftover", 1.0, 0.0, 3.0, "weight of leftover fame (icons / 2)"),
        Parameter("preview", 0.8, 0.0, 1.0, "the preview's worth as a target (row = 1)"),
        Parameter("lateness", 0.3, 0.0, 2.0, "fame lost per 15 minutes of later wake-up"),
        Parameter("goal", 1.0, 0.0, 3.0, "weight of meeting today's goal"),
    ),
)
