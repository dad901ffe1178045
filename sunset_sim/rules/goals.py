"""Daily goals (R-GOAL-1 .. R-GOAL-3)."""

from __future__ import annotations

from sunset_sim.enums import (
    DIRECTION_CLASS,
    GOAL_ALL_FEATURES,
    GOAL_EDGE,
    GOAL_HOLDS,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_SOLD,
    GOAL_STEPS,
    GRID_SIZE,
)
from sunset_sim.rules.state import GameState, TurnRecord


def is_edge(cell: int) -> bool:
    row, col = divmod(cell, GRID_SIZE)
    return row in (0, GRID_SIZE - 1) or col in (0, GRID_SIZE - 1)


def meets_goal(state: GameState, seat: int, turn: TurnRecord) -> bool:
    """R-GOAL-3: this turn's actions and the holdings after selling."""
    goal = state.cards.goals[state.goal]
    player = state.players[seat]
    if goal.kind == GOAL_MOVED:  # a 0-step hike is no move (R-HIKE-1 DECISION)
        return turn.steps > 0 and DIRECTION_CLASS[turn.direction] == goal.param
    if goal.kind == GOAL_PAINTED:  # sold-this-turn cards count (R-GOAL-3 DECISION)
        return len(turn.painted) >= goal.param
    if goal.kind == GOAL_SOLD:
        return len(turn.sales) >= goal.param
    if goal.kind == GOAL_ALL_FEATURES:  # unsold paintings together (R-GOAL-3 DECISION)
        shown = [0] * len(state.cards.features)
        for card in player.paintings:
            for feature, count in enumerate(state.cards.landscapes[card].features):
                shown[feature] += count
        return all(count > 0 for count in shown)
    if goal.kind == GOAL_EDGE:
        return is_edge(player.position)
    if goal.kind == GOAL_HOLDS:
        return len(player.paintings) >= goal.param
    if goal.kind == GOAL_STEPS:
        return turn.steps >= goal.param
    raise ValueError(f"unknown goal kind {goal.kind}")
