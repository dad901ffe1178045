"""The reference engine's game state: plain lists of card indices, top of a deck first."""

from __future__ import annotations

from dataclasses import dataclass, field

from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables
from sunset_sim.enums import GRID_SIZE, N_CELLS
from sunset_sim.rules.options import Rules

EMPTY = -1  # an empty wilderness cell (R-HIKE-4)


def cell_label(cell: int) -> str:
    """A cell as records write it: [row, column], row 0 at the top."""
    row, col = divmod(cell, GRID_SIZE)
    return f"[{row}, {col}]"


@dataclass
class PlayerState:
    seat: int
    position: int
    plan_deck: list[int]  # R-SET-4: face down, index 0 is the top
    paintings: list[int] = field(default_factory=list)  # unsold, in the order taken
    commissions: list[int] = field(default_factory=list)
    goals: list[int] = field(default_factory=list)
    plan_hand: list[int] = field(default_factory=list)  # today's three drawn cards
    plan: int = -1  # today's kept plan card (R-PLAN-1)
    plans_played: list[int] = field(default_factory=list)


@dataclass
class TurnRecord:
    """What one player did on one turn: enough for goals (R-GOAL-3) and for the record."""

    seat: int
    plan: int
    start: int
    direction: int = -1
    steps: int = 0
    path: list[int] = field(default_factory=list)
    painted: list[int] = field(default_factory=list)  # cells, in the order taken
    painted_cards: list[int] = field(default_factory=list)
    sales: list[tuple[int, list[int]]] = field(default_factory=list)
    goal_taken: bool = False


@dataclass
class GameState:
    cards: CardSet
    tables: CardTables
    rules: Rules
    n_players: int
    grid: list[int] = field(default_factory=lambda: [EMPTY] * N_CELLS)
    landscape_deck: list[int] = field(default_factory=list)
    landscape_discard: list[int] = field(default_factory=list)
    commission_deck: list[int] = field(default_factory=list)
    commission_row: list[int] = field(default_factory=list)
    preview: int = -1
    goal_deck: list[int] = field(default_factory=list)
    goal: int = -1  # today's goal card, -1 if none is face up
    goal_holder: int = -1  # seat holding today's goal during the hike phase
    goals_discarded: list[int] = field(default_factory=list)
    players: list[PlayerState] = field(default_factory=list)
    day: int = 0
    turn_order: list[int] = field(default_factory=list)
    turns_done: list[int] = field(default_factory=list)
    ended: bool = False
    end_reason: int = -1

    def artists_at(self, cell: int) -> list[int]:
        return [p.seat for p in self.players if p.position == cell]

    def other_artist_at(self, cell: int, seat: int) -> bool:
        return any(p.position == cell and p.seat != seat for p in self.players)
