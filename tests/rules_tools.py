"""Helpers of the rules tests (test_rules.py, test_rules_goals_end.py): a rule violation
expected by ID, paintings handed out, a goal of one kind, a hike's end cell, a turn."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import (
    ScriptedDecider,
    land,
)

from sunset_sim.cards.model import Goal
from sunset_sim.enums import (
    DIRECTION_DELTAS,
    GRID_SIZE,
)
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.game import take_turn
from sunset_sim.rules.state import EMPTY, GameState, TurnRecord

N, NE, E, SE, S, SW, W, NW = range(8)


def violation(rule: str, func, *args):
    """Call ``func``; it must raise RuleViolation naming ``rule``."""
    with pytest.raises(RuleViolation) as info:
        func(*args)
    assert info.value.rule == rule, f"expected {rule}, got {info.value.rule}: {info.value}"
    return info.value


def give(state: GameState, seat: int, card_ids: list[str]) -> list[int]:
    """Hand landscape cards (by id) to a player as paintings, out of the deck or grid."""
    cards = []
    for card_id in card_ids:
        card = land(state.cards, card_id)
        if card in state.landscape_deck:
            state.landscape_deck.remove(card)
        if card in state.grid:
            state.grid[state.grid.index(card)] = EMPTY
        state.players[seat].paintings.append(card)
        cards.append(card)
    return cards


def with_goal(state: GameState, kind: int, param: int = 0) -> None:
    """Replace the card set's goals by one goal of the given kind, and make it today's."""
    state.cards = replace(state.cards, goals=(Goal("X", 2, kind, param),))
    state.goal = 0
    state.goal_holder = -1


def hike_end(start: int, d: int, steps: int) -> int:
    row, col = divmod(start, GRID_SIZE)
    return (row + DIRECTION_DELTAS[d][0] * steps) * GRID_SIZE + col + DIRECTION_DELTAS[d][1] * steps


def run_turn(state: GameState, seat: int, decider: ScriptedDecider) -> TurnRecord:
    turn = take_turn(state, seat, decider)
    state.turns_done.append(seat)
    return turn
