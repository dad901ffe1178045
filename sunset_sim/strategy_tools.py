"""numba helpers for strategies: reading an observation, never the engine's state.

Everything here takes the observation array (``sunset_sim.observation``) and the card
tables, so a strategy built from them sees only what its player may know.
"""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.engine.rng import rng_below
from sunset_sim.enums import (
    DIRECTION_CLASS,
    DIRECTION_DELTAS,
    GOAL_EDGE,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_STEPS,
    GRID_SIZE,
    MAX_PLAYERS,
)
from sunset_sim.observation import OBS_GRID, OBS_ME, OBS_N_PLAYERS, OBS_POS

DELTA_ROW = np.array([d[0] for d in DIRECTION_DELTAS], dtype=np.int64)
DELTA_COL = np.array([d[1] for d in DIRECTION_DELTAS], dtype=np.int64)
DIRECTION_CLASS_ARRAY = np.array(DIRECTION_CLASS, dtype=np.int64)

__all__ = ["rng_below", "step_cell", "other_artist_at", "is_edge_cell", "hike_goal_met"]


@jit
def step_cell(cell, direction):
    """The neighbour of ``cell`` in ``direction``, or -1 off the grid (R-HIKE-3)."""
    row = cell // GRID_SIZE + DELTA_ROW[direction]
    col = cell % GRID_SIZE + DELTA_COL[direction]
    if row < 0 or row >= GRID_SIZE or col < 0 or col >= GRID_SIZE:
        return -1
    return row * GRID_SIZE + col


@jit
def other_artist_at(obs, cell):
    me = obs[OBS_ME]
    for seat in range(min(obs[OBS_N_PLAYERS], MAX_PLAYERS)):
        if seat != me and obs[OBS_POS + seat] == cell:
            return True
    return False


@jit
def is_edge_cell(cell):
    row = cell // GRID_SIZE
    col = cell % GRID_SIZE
    return row == 0 or col == 0 or row == GRID_SIZE - 1 or col == GRID_SIZE - 1


@jit
def hike_goal_met(goal_kind, goal_param, direction, steps, end_cell, n_painted):
    """Whether a hike-and-paint would meet a goal of the hike-side kinds (R-GOAL-3)."""
    if goal_kind == GOAL_MOVED:
        return steps > 0 and DIRECTION_CLASS_ARRAY[direction] == goal_param
    if goal_kind == GOAL_EDGE:
        return is_edge_cell(end_cell)
    if goal_kind == GOAL_STEPS:
        return steps >= goal_param
    if goal_kind == GOAL_PAINTED:
        return n_painted >= goal_param
    return False


@jit
def grid_card(obs, cell):
    return obs[OBS_GRID + cell]
