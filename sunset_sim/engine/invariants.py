"""Invariant checks on the fast engine's state, run at the end of each day when asked.

They hold for every legal game, so any violation is an engine bug, never a rule
decision: every card in exactly one place, artists on the grid, no two artists on one
cell unless R-HIKE-5 left a player with no legal hike, fame equal to a recount from the
holdings (R-END-2), and plan decks of the size R-PLAN-1/3 leave.
"""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import MAX_PLAYERS, N_CELLS, PLACE_GONE
from sunset_sim.observation import (
    OBS_COMM_PLACE,
    OBS_FAME,
    OBS_GOAL,
    OBS_GOAL_PLACE,
    OBS_GRID,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
)

# Bits of the violation mask (which invariants failed).
V_LANDSCAPE_PLACES = 1
V_COMMISSION_PLACES = 2
V_GOAL_PLACES = 4
V_ARTIST_OFF_GRID = 8
V_ARTISTS_SHARE = 16
V_FAME_RECOUNT = 32
V_PLAN_DECK = 64
VIOLATION_NAMES = (
    "landscape card not in exactly one place",
    "commission card not in exactly one place",
    "goal card not in exactly one place",
    "artist off the grid",
    "two artists share a cell without a forced stay",
    "fame differs from a recount of the holdings",
    "plan deck of the wrong size",
)


@jit
def check_day(
    obs,
    tables,
    n_players,
    day,
    land_deck,
    land_head,
    discard,
    n_discard,
    comm_deck,
    comm_head,
    goal_deck,
    goal_head,
    hands,
    n_hand,
    plan_count,
    forced_stay,
):
    """A bitmask of the invariants that fail at the end of ``day``'s hike phase (0: none).

    ``forced_stay[seat]`` is 1 if R-HIKE-5 left that seat with no legal hike today."""
    n_land = tables.land_icons.shape[0]
    n_comm = tables.comm_fame.shape[0]
    n_goal = tables.goal_kind.shape[0]
    n_plan = tables.plan_wake.shape[0]
    violations = 0
    # landscapes: wilderness, deck, discard pile, a player's unsold paintings
    seen = np.zeros(n_land, dtype=np.int64)
    for cell in range(N_CELLS):
        if obs[OBS_GRID + cell] >= 0:
            seen[obs[OBS_GRID + cell]] += 1
    for i in range(land_head, n_land):
        seen[land_deck[i]] += 1
    for i in range(n_discard):
        seen[discard[i]] += 1
    for seat in range(n_players):
        for i in range(n_hand[seat]):
            seen[hands[seat, i]] += 1
    for card in range(n_land):
        if seen[card] != 1:
            violations |= V_LANDSCAPE_PLACES
    # commissions: row, preview, deck, won by a player (their public place)
    comm_place = obs[OBS_COMM_PLACE]
    seen = np.zeros(n_comm, dtype=np.int64)
    for slot in range(obs[OBS_ROW_LEN]):
        seen[obs[OBS_ROW + slot]] += 1
    if obs[OBS_PREVIEW] >= 0:
        seen[obs[OBS_PREVIEW]] += 1
    for i in range(comm_head, n_comm):
        seen[comm_deck[i]] += 1
    for card in range(n_comm):
        if 0 <= obs[comm_place + card] < MAX_PLAYERS:
            seen[card] += 1
        if seen[card] != 1:
            violations |= V_COMMISSION_PLACES
    # goals: deck, today's, kept by a player, discarded
    goal_place = obs[OBS_GOAL_PLACE]
    seen = np.zeros(max(n_goal, 1), dtype=np.int64)
    for i in range(goal_head, n_goal):
        seen[goal_deck[i]] += 1
    for card in range(n_goal):
        place = obs[goal_place + card]
        if 0 <= place < MAX_PLAYERS or place == PLACE_GONE or card == obs[OBS_GOAL]:
            seen[card] += 1
        if seen[card] != 1:
            violations |= V_GOAL_PLACES
    # artists
    for seat in range(n_players):
        cell = obs[OBS_POS + seat]
        if cell < 0 or cell >= N_CELLS:
            violations |= V_ARTIST_OFF_GRID
        for other in range(seat + 1, n_players):
            if obs[OBS_POS + other] == cell and not (forced_stay[seat] or forced_stay[other]):
                violations |= V_ARTISTS_SHARE
    # fame recount (R-END-2) and plan decks (R-PLAN-1: one card leaves the deck a day)
    for seat in range(n_players):
        commissions = 0
        for card in range(n_comm):
            if obs[comm_place + card] == seat:
                commissions += tables.comm_fame[card]
        goals = 0  # today's goal is kept by now (R-GOAL-2), so it counts like the others
        for card in range(n_goal):
            if obs[goal_place + card] == seat:
                goals += tables.goal_fame[card]
        icons = 0
        for i in range(n_hand[seat]):
            icons += tables.land_icons[hands[seat, i]]
        if obs[OBS_FAME + seat] != commissions + goals + icons // 2:
            violations |= V_FAME_RECOUNT
        if plan_count[seat] != n_plan - day:
            violations |= V_PLAN_DECK
    return violations
