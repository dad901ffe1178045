"""Phase 2, hike (R-HIKE-1 .. R-HIKE-6)."""

from __future__ import annotations

from sunset_sim.enums import DIRECTION_DELTAS, DIRECTION_NAMES, GRID_SIZE, N_DIRECTIONS
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.state import EMPTY, GameState


def hike_path(start: int, direction: int, steps: int) -> list[int] | None:
    """R-HIKE-1/2/3/PAINT-1: start, every cell passed and the end; None if it leaves the grid."""
    if steps == 0:
        return [start]
    d_row, d_col = DIRECTION_DELTAS[direction]
    row, col = divmod(start, GRID_SIZE)
    path = [start]
    for _ in range(steps):
        row, col = row + d_row, col + d_col
        if not (0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE):
            return None
        path.append(row * GRID_SIZE + col)
    return path


def hike_problem(state: GameState, seat: int, direction: int, steps: int) -> tuple[str, str] | None:
    """(rule, reason) why this hike is illegal, ignoring R-HIKE-5's forced stay; None if legal."""
    plan = state.cards.plans[state.players[seat].plan]
    start = state.players[seat].position
    if steps < 0 or steps > plan.hike:
        return "R-HIKE-1", f"{steps} steps is outside 0..{plan.hike} (plan card {plan.id})"
    if steps == 0:
        if direction != -1:
            return "R-HIKE-1", "a hike of 0 steps has no direction"
        if state.other_artist_at(start, seat):
            return "R-HIKE-5", "may not stay on a cell holding another artist"
        return None
    if not 0 <= direction < N_DIRECTIONS or not plan.direction_mask >> direction & 1:
        name = DIRECTION_NAMES[direction] if 0 <= direction < N_DIRECTIONS else direction
        return "R-HIKE-1", f"direction {name} is not allowed by plan card {plan.id}"
    path = hike_path(start, direction, steps)
    if path is None:
        return "R-HIKE-3", "the hike leaves the 5x5 grid"
    if any(state.grid[cell] == EMPTY for cell in path[1:]):
        return "R-HIKE-4", "the hike enters or crosses an empty cell"
    if state.other_artist_at(path[-1], seat):
        return "R-HIKE-5", "the hike ends on a cell holding another artist"
    return None


def legal_hikes(state: GameState, seat: int) -> list[tuple[int, int]]:
    """Every legal (direction, steps), in the canonical order both engines use.

    Order: the 0-step stay (direction -1) first, then directions N, NE, ... NW, each with
    1, 2, ... steps. R-HIKE-5 DECISION: if nothing is legal, the one option is to stay.
    """
    plan = state.cards.plans[state.players[seat].plan]
    options = [(-1, 0)] if hike_problem(state, seat, -1, 0) is None else []
    for direction in range(N_DIRECTIONS):
        for steps in range(1, plan.hike + 1):
            if hike_problem(state, seat, direction, steps) is None:
                options.append((direction, steps))
    return options or [(-1, 0)]


def check_hike(state: GameState, seat: int, direction: int, steps: int) -> None:
    """Raise RuleViolation unless the hike is legal (R-HIKE-1..6)."""
    if (direction, steps) in legal_hikes(state, seat):
        return
    problem = hike_problem(state, seat, direction, steps)
    rule, reason = problem if problem else ("R-HIKE-5", "illegal hike")
    raise RuleViolation(rule, reason, state.day, seat)
