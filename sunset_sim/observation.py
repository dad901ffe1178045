"""What a player may see: the observation array and the option arrays of a decision.

A strategy receives only these (R-PLAN-2: a plan decision sees public information and
its own three cards; a turn decision sees the public state). Both engines build them
in this layout, so a strategy written once runs in both. Face-down decks appear only
as sizes; a card's place is PLACE_HIDDEN while it is in a deck.

Layout (int32): a header of scalars at the ``OBS_*`` indices, then fixed-size blocks,
then one place per landscape, per commission and per goal card, whose offsets are
stored in the header so that a strategy can read any card set's observation.
"""

from __future__ import annotations

import numpy as np

from sunset_sim.enums import (
    MAX_PLAYERS,
    N_CELLS,
    PLACE_DISCARD,
    PLACE_GONE,
    PLACE_PREVIEW,
    PLACE_TABLE,
    PLAN_HAND,
)

# header
OBS_DAY = 0  # 1-based day
OBS_DAYS = 1  # days in the game (rule option)
OBS_N_PLAYERS = 2
OBS_ME = 3  # the observing seat
OBS_GOAL = 4  # today's goal card index, -1 if none
OBS_GOAL_HOLDER = 5  # seat holding today's goal, -1 if nobody
OBS_LAND_DECK = 6  # cards left in the landscape deck
OBS_DISCARD = 7  # cards in the landscape discard pile
OBS_COMM_DECK = 8  # cards left in the commission deck (preview not counted)
OBS_PREVIEW = 9  # the preview commission, -1 if none
OBS_ROW_LEN = 10
OBS_N_PAINTINGS = 11  # my unsold paintings
OBS_TURN_POS = 12  # my place in today's turn order (0 = first), -1 before it is known
OBS_LAND_PLACE = 13  # offset of the landscape place block
OBS_COMM_PLACE = 14  # offset of the commission place block
OBS_GOAL_PLACE = 15  # offset of the goal place block
# fixed blocks
MAX_ROW = 16
MAX_PAINTINGS = 64
OBS_ROW = 16  # MAX_ROW commission indices in row order, -1 padded
OBS_GRID = OBS_ROW + MAX_ROW  # N_CELLS landscape indices, -1 = empty cell
OBS_POS = OBS_GRID + N_CELLS  # MAX_PLAYERS artist cells, -1 for absent seats
OBS_PLAN = OBS_POS + MAX_PLAYERS  # today's revealed plan card per seat, -1 while hidden
OBS_FAME = OBS_PLAN + MAX_PLAYERS  # fame per seat as R-END-2 counts it now
OBS_HAND = OBS_FAME + MAX_PLAYERS  # my PLAN_HAND drawn plan cards (plan decision only)
OBS_ORDER = OBS_HAND + PLAN_HAND  # today's turn order (seats), -1 until revealed
OBS_DONE = OBS_ORDER + MAX_PLAYERS  # 1 if the seat has had its turn today
OBS_PAINTINGS = OBS_DONE + MAX_PLAYERS  # my unsold paintings in the order taken, -1 padded
OBS_CARDS = OBS_PAINTINGS + MAX_PAINTINGS  # start of the per-card place blocks

# Options: one row per legal choice, OPTION_WIDTH int32 columns, -1 padded.
#   plan:  (plan card index,)
#   hike:  (direction or -1, steps, end cell)
#   paint: (cell, cell, ...) the cells taken, in path order
#   sale:  (commission index, painting for frame 0, frame 1, frame 2); row 0 is "stop"
OPTION_WIDTH = 5
# Rows of the fast engine's option buffer. Plan, hike and paint decisions always fit; a
# sale decision with more legal sales gets a buffer of its own (R-SELL-1: none is left off).
OPTION_ROWS = 2048


def observation_size(n_landscapes: int, n_commissions: int, n_goals: int) -> int:
    return OBS_CARDS + n_landscapes + n_commissions + n_goals


def empty_observation(n_landscapes: int, n_commissions: int, n_goals: int) -> np.ndarray:
    # -1 is PLACE_HIDDEN: every card starts in a face-down deck
    obs = np.full(observation_size(n_landscapes, n_commissions, n_goals), -1, dtype=np.int32)
    obs[OBS_LAND_PLACE] = OBS_CARDS
    obs[OBS_COMM_PLACE] = OBS_CARDS + n_landscapes
    obs[OBS_GOAL_PLACE] = OBS_CARDS + n_landscapes + n_commissions
    return obs


def observe(state, seat: int, hand: list[int] | None = None) -> np.ndarray:
    """The observation of ``seat`` in a reference-engine state (rules/state.py)."""
    from sunset_sim.rules.scoring import fame_now

    n_land = len(state.cards.landscapes)
    n_comm = len(state.cards.commissions)
    obs = empty_observation(n_land, n_comm, len(state.cards.goals))
    me = state.players[seat]
    obs[OBS_DAY] = state.day
    obs[OBS_DAYS] = state.rules.days
    obs[OBS_N_PLAYERS] = state.n_players
    obs[OBS_ME] = seat
    obs[OBS_GOAL] = state.goal
    obs[OBS_GOAL_HOLDER] = state.goal_holder
    obs[OBS_LAND_DECK] = len(state.landscape_deck)
    obs[OBS_DISCARD] = len(state.landscape_discard)
    obs[OBS_COMM_DECK] = len(state.commission_deck)
    obs[OBS_PREVIEW] = state.preview
    obs[OBS_ROW_LEN] = len(state.commission_row)
    obs[OBS_N_PAINTINGS] = len(me.paintings)
    obs[OBS_TURN_POS] = state.turn_order.index(seat) if seat in state.turn_order else -1
    obs[OBS_ROW : OBS_ROW + len(state.commission_row)] = state.commission_row
    obs[OBS_GRID : OBS_GRID + N_CELLS] = state.grid
    land_place = obs[OBS_LAND_PLACE]
    comm_place = obs[OBS_COMM_PLACE]
    goal_place = obs[OBS_GOAL_PLACE]
    for player in state.players:
        s = player.seat
        obs[OBS_POS + s] = player.position
        if state.turn_order:
            obs[OBS_PLAN + s] = player.plan
            obs[OBS_ORDER + state.turn_order.index(s)] = s
            obs[OBS_DONE + s] = 1 if s in state.turns_done else 0
        obs[OBS_FAME + s] = fame_now(state, s)
        for card in player.paintings:
            obs[land_place + card] = s
        for card in player.commissions:
            obs[comm_place + card] = s
        for card in player.goals:
            obs[goal_place + card] = s
    if hand is not None:
        obs[OBS_HAND : OBS_HAND + len(hand)] = hand
    obs[OBS_PAINTINGS : OBS_PAINTINGS + len(me.paintings)] = me.paintings
    for card in state.grid:
        if card >= 0:
            obs[land_place + card] = PLACE_TABLE
    for card in state.landscape_discard:
        obs[land_place + card] = PLACE_DISCARD
    for card in state.commission_row:
        obs[comm_place + card] = PLACE_TABLE
    if state.preview >= 0:
        obs[comm_place + state.preview] = PLACE_PREVIEW
    if state.goal >= 0 and state.goal_holder < 0:
        obs[goal_place + state.goal] = PLACE_TABLE
    elif state.goal >= 0:
        obs[goal_place + state.goal] = state.goal_holder
    for card in state.goals_discarded:
        obs[goal_place + card] = PLACE_GONE
    return obs


def option_rows(rows: list[tuple[int, ...]] | list[list[int]]) -> np.ndarray:
    """Pack a list of option tuples into the OPTION_WIDTH int32 layout."""
    options = np.full((max(len(rows), 1), OPTION_WIDTH), -1, dtype=np.int32)
    for index, row in enumerate(rows):
        options[index, : len(row)] = row
    return options
