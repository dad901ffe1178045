"""Phase 2, paint (R-PAINT-1 .. R-PAINT-3)."""

from __future__ import annotations

from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.state import EMPTY, GameState, cell_label


def takeable_cells(state: GameState, seat: int, path: list[int]) -> list[int]:
    """R-PAINT-2: path cells that hold a card and no OTHER artist (own artist never blocks)."""
    return [c for c in path if state.grid[c] != EMPTY and not state.other_artist_at(c, seat)]


def paint_options(takeable: list[int], paint: int) -> list[list[int]]:
    """Every subset of at most ``paint`` takeable cells, by ascending bitmask over ``takeable``."""
    options = []
    for mask in range(1 << len(takeable)):
        if mask.bit_count() <= paint:
            options.append([cell for bit, cell in enumerate(takeable) if mask >> bit & 1])
    return options


def check_paint(state: GameState, seat: int, path: list[int], cells: list[int]) -> None:
    plan = state.cards.plans[state.players[seat].plan]
    if len(cells) > plan.paint:
        raise RuleViolation(
            "R-PAINT-2",
            f"took {len(cells)} cards, plan card {plan.id} allows {plan.paint}",
            state.day,
            seat,
        )
    if len(set(cells)) != len(cells):
        raise RuleViolation("R-PAINT-2", "took the same cell twice", state.day, seat)
    takeable = takeable_cells(state, seat, path)
    for cell in cells:
        if cell not in path:
            raise RuleViolation(
                "R-PAINT-1", f"cell {cell_label(cell)} is not on the path", state.day, seat
            )
        if cell not in takeable:
            raise RuleViolation(
                "R-PAINT-2",
                f"cell {cell_label(cell)} holds no card or another artist",
                state.day,
                seat,
            )


def apply_paint(state: GameState, seat: int, cells: list[int]) -> list[int]:
    """R-PAINT-3: the cards become paintings; their cells stay empty until clean-up."""
    taken = []
    for cell in cells:
        taken.append(state.grid[cell])
        state.players[seat].paintings.append(state.grid[cell])
        state.grid[cell] = EMPTY
    return taken
