"""Phase 1, plan (R-PLAN-1 .. R-PLAN-3), and the turn order it gives (R-ORD-1, R-ORD-2)."""

from __future__ import annotations

from sunset_sim.enums import PLAN_HAND, TIE_LOWEST_FAME, TIE_SEAT
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.scoring import fame_now
from sunset_sim.rules.state import GameState


def draw_plan_hand(state: GameState, seat: int) -> list[int]:
    """R-PLAN-1/R-PLAN-3: the top three cards of the player's plan deck."""
    player = state.players[seat]
    player.plan_hand = player.plan_deck[:PLAN_HAND]
    del player.plan_deck[:PLAN_HAND]
    return list(player.plan_hand)


def keep_plan(state: GameState, seat: int, kept: int) -> None:
    """R-PLAN-1: keep one; the other two go to the bottom in the order drawn (DECISION)."""
    player = state.players[seat]
    if kept not in player.plan_hand:
        label = state.cards.plans[kept].id if 0 <= kept < len(state.cards.plans) else kept
        raise RuleViolation(
            "R-PLAN-1", f"plan card {label} is not among the three drawn", state.day, seat
        )
    player.plan_deck += [card for card in player.plan_hand if card != kept]
    player.plan = kept
    player.plans_played.append(kept)
    player.plan_hand = []


def fixed_key(state: GameState, seat: int) -> tuple:
    """The part of the order that is not random: R-ORD-1 wake-up time, then R-ORD-2."""
    wake = state.cards.plans[state.players[seat].plan].wake
    if state.rules.tie_break_code == TIE_SEAT:
        return (wake, seat)
    if state.rules.tie_break_code == TIE_LOWEST_FAME:
        return (wake, fame_now(state, seat))
    return (wake,)


def turn_order(state: GameState, permutation: list[int]) -> list[int]:
    """The order of play; remaining ties follow ``permutation``, the day's random seat order."""
    rank = {seat: position for position, seat in enumerate(permutation)}
    return sorted(range(state.n_players), key=lambda seat: (*fixed_key(state, seat), rank[seat]))


def check_turn_order(state: GameState, order: list[int]) -> None:
    """A given order (from a record) must be one that R-ORD-1 and R-ORD-2 could produce."""
    if sorted(order) != list(range(state.n_players)):
        raise RuleViolation("R-ORD-1", f"turn order {order} is not one turn per player", state.day)
    keys = [fixed_key(state, seat) for seat in order]
    for before, after, seat in zip(keys, keys[1:], order[1:], strict=False):
        if after < before:
            rule = "R-ORD-1" if after[0] < before[0] else "R-ORD-2"
            raise RuleViolation(rule, f"player {seat} acts too late in the turn order", state.day)
