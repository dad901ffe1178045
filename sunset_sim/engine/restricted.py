"""Restricted play in the fast engine (analysis/experiments.py): options a seat may not take."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_GRID,
    OBS_HAND,
    OPTION_WIDTH,
)

# ---- restricted play (analysis/experiments.py): options a seat may not take ----------
# ``banned[mask, seat, column]`` (uint8) applies to games whose index is ``mask`` modulo
# ``banned.shape[0]``. Column BAN_ANY says the seat has any restriction; then one column
# per plan card, landscape and commission, from the offsets ``ban_offsets`` gives. The
# options left are a subsequence of the full list in its canonical order, so a seat
# without a restriction plays exactly as before (play.StrategyDecider mirrors this for the
# reference engine).
BAN_ANY = 0
N_PLAN_OPTIONS = np.int64(PLAN_HAND)  # a plan decision offers the three cards drawn


@jit(_nrt=False)
def ban_offsets(n_plan, n_land):
    """Columns of the first plan card, landscape and commission in a ``banned`` row."""
    return 1, 1 + n_plan, 1 + n_plan + n_land


@jit(_nrt=False)
def allowed_plans(obs, options, drawn_row, banned, mask, seat, plan_column):
    """The drawn plan cards the seat may keep, first and in drawn order, in ``options``
    and ``OBS_HAND``; the banned ones follow in the hand. If every card is banned there
    is no other choice, and all three are offered."""
    n = 0
    for k in range(PLAN_HAND):
        if banned[mask, seat, plan_column + drawn_row[k]] == 0:
            options[n, 0] = drawn_row[k]
            obs[OBS_HAND + n] = drawn_row[k]
            n += 1
    if n == 0:
        return N_PLAN_OPTIONS
    rest = n
    for k in range(PLAN_HAND):
        if banned[mask, seat, plan_column + drawn_row[k]] != 0:
            options[rest, 0] = drawn_row[k]
            obs[OBS_HAND + rest] = drawn_row[k]
            rest += 1
    return np.int64(n)


@jit(_nrt=False)
def move_option_row(options, source, target):
    for column in range(OPTION_WIDTH):
        options[target, column] = options[source, column]


@jit(_nrt=False)
def allowed_paint_sets(obs, options, n_options, banned, mask, seat, land_column):
    """The paint sets without a banned landscape (row 0, the empty set, always stays)."""
    n = 0
    for row in range(n_options):
        allowed = True
        for column in range(OPTION_WIDTH):
            cell = options[row, column]
            if cell >= 0 and banned[mask, seat, land_column + obs[OBS_GRID + cell]] != 0:
                allowed = False
        if allowed:
            move_option_row(options, row, n)
            n += 1
    return n


@jit(_nrt=False)
def allowed_sales(options, n_options, banned, mask, seat, comm_column):
    """The sales to commissions the seat may sell to (row 0, "stop", always stays)."""
    n = 1
    for row in range(1, n_options):
        if banned[mask, seat, comm_column + options[row, 0]] == 0:
            move_option_row(options, row, n)
            n += 1
    return n
