"""Phase 2 of a turn in the fast engine: the legal hikes (R-HIKE-1..6), in the reference
engine's order (``rules/hike.py``)."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    N_DIRECTIONS,
)
from sunset_sim.observation import OBS_POS
from sunset_sim.strategy_tools import ray_cell


@jit(_nrt=False)
def others_at(obs, n_players, seat):
    """Bitmask over the cells holding another player's artist (R-HIKE-5, R-PAINT-2)."""
    mask = 0
    for other in range(n_players):
        if other != seat:
            mask |= 1 << obs[OBS_POS + other]
    return mask


@jit(inline="always")
def put_row(options, row, a, b, c, d, e):
    """One whole option row (OPTION_WIDTH columns)."""
    options[row, 0] = a
    options[row, 1] = b
    options[row, 2] = c
    options[row, 3] = d
    options[row, 4] = e


@jit(inline="always")
def legal_hikes(obs, occupied, start, plan_directions, plan_hike, options):
    """R-HIKE-1..6 in the reference order: stay first, then N..NW with 1, 2, ... steps.
    ``occupied``: bitmask of the cells holding other artists."""
    n = 0
    if not (occupied >> start) & 1:  # R-HIKE-5
        put_row(options, 0, -1, 0, start, -1, -1)
        n = 1
    for direction in range(N_DIRECTIONS):
        if not (plan_directions >> direction) & 1:
            continue
        for steps in range(1, plan_hike + 1):
            cell = ray_cell(obs, start, direction, steps)
            if cell < 0:  # R-HIKE-3, R-HIKE-4
                break
            if (occupied >> cell) & 1:  # R-HIKE-5: pass, not end
                continue
            put_row(options, n, direction, steps, cell, -1, -1)
            n += 1
    if n == 0:  # R-HIKE-5 DECISION: no legal hike, stay put
        put_row(options, 0, -1, 0, start, -1, -1)
        n = 1
    return n
