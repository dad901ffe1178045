"""Phase 3 in the fast engine, clean-up (R-CLEAN-2..5), as ``rules/cleanup.py`` does."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.engine.rng import rng_shuffle
from sunset_sim.engine.state import mark_card, trace_put
from sunset_sim.enums import C_SHOWN, N_CELLS, PLACE_GONE, PLACE_PREVIEW, PLACE_TABLE
from sunset_sim.observation import OBS_GRID, OBS_PREVIEW, OBS_ROW, OBS_ROW_LEN
from sunset_sim.strategy_tools import lowest_bit


@jit(inline="always")
def refill_wilderness(
    obs, chance, land_deck, discard, land_head, n_discard, land_place, available_out, trace
):
    """R-CLEAN-2: empty cells refilled in reading order; the discard pile is shuffled into
    a new deck only when the deck runs out. Returns (land_head, n_discard)."""
    n_land = land_deck.shape[0]
    # the empty cells as a mask first, then visited in order: no branch per cell on
    # whether it is empty (which mispredicted)
    empty = 0
    for cell in range(N_CELLS):
        empty |= (1 if obs[OBS_GRID + cell] < 0 else 0) << cell
    while empty:
        cell = lowest_bit(empty)
        empty &= empty - 1
        if land_head >= n_land:
            if n_discard == 0:
                break
            rng_shuffle(chance, discard, n_discard)  # the discard pile becomes the deck
            land_head = n_land - n_discard
            trace_put(trace, n_discard)
            for i in range(n_discard):
                land_deck[land_head + i] = discard[i]
                obs[land_place + discard[i]] = -1
                trace_put(trace, discard[i])
            n_discard = 0
        card = land_deck[land_head]
        land_head += 1
        obs[OBS_GRID + cell] = card
        obs[land_place + card] = PLACE_TABLE
        mark_card(available_out, card)
    trace_put(trace, -1)
    return land_head, n_discard


@jit(inline="always")
def next_goal(obs, goal_deck, goal, goal_holder, goal_head, n_goal, goal_place):
    """R-CLEAN-3: a goal nobody kept leaves the game; the next one is turned up.
    Returns (goal, goal_head)."""
    if goal >= 0 and goal_holder < 0:
        obs[goal_place + goal] = PLACE_GONE
    goal = -1
    if goal_head < n_goal:
        goal = goal_deck[goal_head]
        goal_head += 1
        obs[goal_place + goal] = PLACE_TABLE
    return goal, goal_head


@jit(inline="always")
def refill_commissions(
    obs, comm_deck, comm_head, row_len, n_players, comm_place, commission_out, day
):
    """R-CLEAN-4/5: the preview joins the row, the row is refilled to players + 1 and a
    new preview is turned up. Returns (comm_head, row_len, short): ``short`` when the
    row could not be refilled, which ends the game (R-CLEAN-5)."""
    n_comm = comm_deck.shape[0]
    if obs[OBS_PREVIEW] >= 0:
        obs[OBS_ROW + row_len] = obs[OBS_PREVIEW]
        obs[comm_place + obs[OBS_PREVIEW]] = PLACE_TABLE
        commission_out[obs[OBS_PREVIEW], C_SHOWN] = day + 1
        row_len += 1
        obs[OBS_PREVIEW] = -1
    short = False
    while row_len < n_players + 1:
        if comm_head >= n_comm:
            short = True
            break
        obs[OBS_ROW + row_len] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_TABLE
        commission_out[comm_deck[comm_head], C_SHOWN] = day + 1
        row_len += 1
        comm_head += 1
    obs[OBS_ROW_LEN] = row_len
    if not short and comm_head < n_comm:
        obs[OBS_PREVIEW] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_PREVIEW
        comm_head += 1
    return comm_head, row_len, short
