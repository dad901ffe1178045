"""The daily goal in the fast engine: whether a turn meets it (R-GOAL-3), as
``rules/goals.py`` decides."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    GOAL_EDGE,
    GOAL_HOLDS,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_SOLD,
    GOAL_STEPS,
    GRID_SIZE,
)
from sunset_sim.observation import (
    OBS_POS,
)
from sunset_sim.strategy_tools import (
    DIRECTION_CLASS_ARRAY,
)


@jit(inline="always")
def meets_goal(obs, tables, goal, seat, direction, steps, n_painted, n_sold, hands, n_hand):
    """R-GOAL-3: this turn's actions and the holdings after selling."""
    kind = tables.goal_kind[goal]
    param = tables.goal_param[goal]
    if kind == GOAL_MOVED:
        return steps > 0 and DIRECTION_CLASS_ARRAY[direction] == param
    if kind == GOAL_PAINTED:
        return n_painted >= param
    if kind == GOAL_SOLD:
        return n_sold >= param
    if kind == GOAL_ALL_FEATURES:
        n_features = tables.land_features.shape[1]
        for feature in range(n_features):
            shown = 0
            for i in range(n_hand):
                shown += tables.land_features[hands[seat, i], feature]
            if shown == 0:
                return False
        return True
    if kind == GOAL_EDGE:
        cell = obs[OBS_POS + seat]
        row = cell // GRID_SIZE
        col = cell % GRID_SIZE
        return row == 0 or col == 0 or row == GRID_SIZE - 1 or col == GRID_SIZE - 1
    if kind == GOAL_HOLDS:
        return n_hand >= param
    if kind == GOAL_STEPS:
        return steps >= param
    return False
