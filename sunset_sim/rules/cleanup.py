"""Phase 3, clean-up (R-CLEAN-1 .. R-CLEAN-5)."""

from __future__ import annotations

from collections.abc import Callable

from sunset_sim.enums import N_CELLS
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.state import EMPTY, GameState

Reshuffle = Callable[[GameState, list[int]], list[int]]


def refill_wilderness(state: GameState, reshuffle: Reshuffle) -> list[list[int]]:
    """R-CLEAN-2: fill empty cells in reading order; returns each reshuffled deck order.

    DECISION: the discard pile is shuffled into a new deck only when a card must be
    drawn and the deck is empty; with both empty the remaining cells stay empty.
    """
    reshuffles = []
    for cell in range(N_CELLS):
        if state.grid[cell] != EMPTY:
            continue
        if not state.landscape_deck:
            if not state.landscape_discard:
                break
            new_deck = reshuffle(state, list(state.landscape_discard))
            if sorted(new_deck) != sorted(state.landscape_discard):
                raise RuleViolation(
                    "R-CLEAN-2", "a reshuffled deck is not the discard pile", state.day
                )
            state.landscape_deck = list(new_deck)
            state.landscape_discard = []
            reshuffles.append(list(new_deck))
        state.grid[cell] = state.landscape_deck.pop(0)
    return reshuffles


def next_goal(state: GameState) -> None:
    """R-CLEAN-3: an untaken goal is discarded; the next one is turned up."""
    if state.goal >= 0 and state.goal_holder < 0:
        state.goals_discarded.append(state.goal)
    state.goal = state.goal_deck.pop(0) if state.goal_deck else -1
    state.goal_holder = -1


def refill_commissions(state: GameState) -> bool:
    """R-CLEAN-4/5: preview into the row, refill to players+1, new preview.

    Returns False when the deck cannot refill the row (the game ends, R-CLEAN-5).
    """
    if state.preview >= 0:
        state.commission_row.append(state.preview)
        state.preview = -1
    while len(state.commission_row) < state.n_players + 1:
        if not state.commission_deck:
            return False
        state.commission_row.append(state.commission_deck.pop(0))
    if state.commission_deck:  # DECISION: no preview if the deck is empty
        state.preview = state.commission_deck.pop(0)
    return True
