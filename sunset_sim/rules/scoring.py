"""End and scoring (R-END-2, R-END-3)."""

from __future__ import annotations

from sunset_sim.rules.state import GameState


def fame_parts(state: GameState, seat: int) -> tuple[int, int, int]:
    """R-END-2: (commission fame, goal fame, floor(icons on unsold paintings / 2))."""
    player = state.players[seat]
    tables = state.tables
    commissions = sum(int(tables.comm_fame[c]) for c in player.commissions)
    goals = sum(int(tables.goal_fame[g]) for g in player.goals)
    icons = sum(int(tables.land_icons[c]) for c in player.paintings)
    return commissions, goals, icons // 2


def fame_now(state: GameState, seat: int) -> int:
    """Fame as R-END-2 would count it now (goals kept for good only)."""
    return sum(fame_parts(state, seat))


def winners(fames: list[int]) -> list[int]:
    """R-END-3: every seat with the highest fame (ties share the win)."""
    best = max(fames)
    return [seat for seat, fame in enumerate(fames) if fame == best]
