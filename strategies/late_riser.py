"""late-riser: always keeps the most powerful plan card; greedy for the rest of the turn."""

from __future__ import annotations

import numpy as np

from strategies import greedy
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PLAN
from sunset_sim.strategy import Parameter, StrategySpec

# params vector layout
COMMISSION = 0  # greedy's commission weight for hike, paint and sale
GOAL = 1  # greedy's goal weight


@jit
def n_directions(mask):
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


@jit
def choose_plan(options, n_options, tables):
    """The most paint, then the longest hike, then the most directions; ties to the later
    wake-up (then the later option)."""
    best_index = 0
    for index in range(1, n_options):
        plan = options[index, 0]
        best = options[best_index, 0]
        if tables.plan_paint[plan] != tables.plan_paint[best]:
            better = tables.plan_paint[plan] > tables.plan_paint[best]
        elif tables.plan_hike[plan] != tables.plan_hike[best]:
            better = tables.plan_hike[plan] > tables.plan_hike[best]
        elif n_directions(tables.plan_directions[plan]) != n_directions(
            tables.plan_directions[best]
        ):
            better = n_directions(tables.plan_directions[plan]) > n_directions(
                tables.plan_directions[best]
            )
        else:
            better = tables.plan_wake[plan] >= tables.plan_wake[best]
        if better:
            best_index = index
    return best_index


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PLAN:
        return choose_plan(options, n_options, tables)
    greedy_params = np.empty(3, dtype=np.float64)  # greedy's layout: lateness, commission, goal
    greedy_params[0] = 0.0  # lateness: used only for plan decisions, which are not greedy's here
    greedy_params[1] = params[COMMISSION]
    greedy_params[2] = params[GOAL]
    return greedy.decide(kind, obs, options, n_options, greedy_params, rng, tables)


STRATEGY = StrategySpec(
    name="late-riser",
    description="Always keeps the most powerful plan card: the most paint, then the longest "
    "hike, then the most allowed directions, ties to the later card. It accepts acting late "
    "(the wilderness and the commission row picked over by earlier players) for the reach to "
    "collect many cards per turn. Then it plays the hike, paint set and sales that greedy "
    "values most.",
    decide=decide,
    parameters=(
        Parameter("commission", 1.0, 0.0, 3.0, "greedy's weight of a card's best commission use"),
        Parameter("goal", 1.0, 0.0, 3.0, "greedy's weight of meeting today's goal with a hike"),
    ),
)
