"""Setting up a game in the fast engine (R-SET-1..5), as ``rules/setup.py`` does: the
random streams of the game, the shuffles in the reference order, then the deal."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.engine.rng import rng_shuffle, strategy_key, stream_key
from sunset_sim.engine.state import mark_card, trace_put
from sunset_sim.enums import (
    C_OFFERED,
    C_SHOWN,
    CENTRE_CELL,
    N_CELLS,
    PLACE_PREVIEW,
    PLACE_TABLE,
    STREAM_CHANCE,
    STREAM_SETUP,
)
from sunset_sim.observation import OBS_GRID, OBS_POS, OBS_PREVIEW, OBS_ROW, OBS_ROW_LEN


@jit(inline="always")
def start_streams(seed, game_index, n_players, setup, chance, streams):
    """Every random stream of this game, keyed by (seed, game index, stream): a game
    depends on nothing else, so batches may be split any way."""
    setup[1] = 0
    chance[1] = 0
    setup[0] = stream_key(np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_SETUP))
    chance[0] = stream_key(np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_CHANCE))
    for seat in range(n_players):
        streams[seat, 1] = 0
        streams[seat, 0] = strategy_key(np.uint64(seed), np.uint64(game_index), seat)


@jit(inline="always")
def shuffle_decks(
    setup, land_deck, comm_deck, goal_deck, plan_ring, plan_head, plan_count, n_players,
    n_goal, trace,
):  # fmt: skip
    """R-SET-1..4: the shuffles in the reference order (rules/setup.py shuffled_orders).
    Plan decks are ring buffers with their top at ``plan_head``."""
    n_land = land_deck.shape[0]
    n_comm = comm_deck.shape[0]
    n_plan = plan_ring.shape[1]
    for i in range(n_land):
        land_deck[i] = i
    rng_shuffle(setup, land_deck, n_land)
    for i in range(n_comm):
        comm_deck[i] = i
    rng_shuffle(setup, comm_deck, n_comm)
    for i in range(n_goal):
        goal_deck[i] = i
    rng_shuffle(setup, goal_deck, n_goal)
    for seat in range(n_players):
        plan_head[seat] = 0
        plan_count[seat] = n_plan
        for k in range(n_plan):
            plan_ring[seat, k] = k
        rng_shuffle(setup, plan_ring[seat], n_plan)
    if trace.shape[0] > 1:
        for i in range(n_land):
            trace_put(trace, land_deck[i])
        for i in range(n_comm):
            trace_put(trace, comm_deck[i])
        for i in range(n_goal):
            trace_put(trace, goal_deck[i])
        for seat in range(n_players):
            for k in range(n_plan):
                trace_put(trace, plan_ring[seat, k])


@jit(inline="always")
def deal(
    obs, land_deck, comm_deck, goal_deck, n_players, n_goal, land_place, comm_place,
    goal_place, available_out, commission_out,
):  # fmt: skip
    """R-SET-1, 2, 3 and 5: the wilderness, the commission row and preview, today's goal,
    the artists on the centre. Returns (land_head, comm_head, row_len, goal_head, goal):
    how far each deck has been dealt, the row's length and the goal card (-1: none)."""
    n_land = land_deck.shape[0]
    n_comm = comm_deck.shape[0]
    land_head = 0
    for cell in range(N_CELLS):  # R-SET-1
        if land_head < n_land:
            obs[OBS_GRID + cell] = land_deck[land_head]
            obs[land_place + land_deck[land_head]] = PLACE_TABLE
            mark_card(available_out, land_deck[land_head])
            land_head += 1
    for commission in range(n_comm):
        commission_out[commission, C_OFFERED] = 0  # nobody's sale options yet
    comm_head = 0  # R-SET-2
    row_len = 0
    while comm_head < n_comm and row_len < n_players + 1:
        obs[OBS_ROW + row_len] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_TABLE
        commission_out[comm_deck[comm_head], C_SHOWN] = 1
        row_len += 1
        comm_head += 1
    obs[OBS_ROW_LEN] = row_len
    if comm_head < n_comm:
        obs[OBS_PREVIEW] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_PREVIEW
        comm_head += 1
    goal_head = 0  # R-SET-3
    goal = -1
    if n_goal > 0:
        goal = goal_deck[0]
        goal_head = 1
        obs[goal_place + goal] = PLACE_TABLE
    for seat in range(n_players):  # R-SET-5
        obs[OBS_POS + seat] = CENTRE_CELL
    return land_head, comm_head, row_len, goal_head, goal
