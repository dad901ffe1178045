"""early-bird: always wakes first it can; greedy's evaluation for the rest of the turn."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies import greedy

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PLAN
from sunset_sim.strategy import Parameter, StrategySpec, parameter_indices
from sunset_sim.strategy_tools import stack_empty

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter("commission", 1.0, 0.0, 3.0, "greedy's weight of a card's best commission use"),
    Parameter("goal", 1.0, 0.0, 3.0, "greedy's weight of meeting today's goal with a hike"),
)
COMMISSION, GOAL = parameter_indices(PARAMETERS, "commission", "goal")
GREEDY_PARAMS = 3  # the length of greedy's params vector


@jit(_nrt=False)
def choose_plan(options, n_options, plan_wake, plan_paint, plan_hike):
    """The earliest wake-up; among equal times the most paint, then the longest hike."""
    best_index = 0
    for index in range(1, n_options):
        plan = options[index, 0]
        best = options[best_index, 0]
        if plan_wake[plan] != plan_wake[best]:
            better = plan_wake[plan] < plan_wake[best]
        elif plan_paint[plan] != plan_paint[best]:
            better = plan_paint[plan] > plan_paint[best]
        else:
            better = plan_hike[plan] > plan_hike[best]
        if better:
            best_index = index
    return best_index


@jit(_nrt=False)  # not inlined: small, and kept out of every kernel's code
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PLAN:
        return choose_plan(
            options, n_options, tables.plan_wake, tables.plan_paint, tables.plan_hike
        )
    greedy_params = stack_empty(GREEDY_PARAMS, np.float64)  # lateness, commission, goal
    greedy_params[0] = 0.0  # lateness: used only for plan decisions, which are not greedy's here
    greedy_params[1] = params[COMMISSION]
    greedy_params[2] = params[GOAL]
    return greedy.decide(kind, obs, options, n_options, greedy_params, rng, tables)


STRATEGY = StrategySpec(
    name="early-bird",
    description="Always keeps the plan card with the earliest wake-up time, so it hikes "
    "first and has the first pick of the wilderness and the commissions, at the price of a "
    "short hike and little painting. Then it plays the hike, paint set and sales that greedy "
    "values most (half the icons plus the best share of a visible commission, today's goal).",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
