"""Phase 2 of a turn in the fast engine: the paint sets a hike allows (R-PAINT-1/2), in
the reference engine's order, and taking the chosen one (R-PAINT-3), as
``rules/paint.py`` does."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.engine.state import S_ICONS, S_PAINTED, mark_card, refresh_fame, trace_put
from sunset_sim.enums import D_PAINTED
from sunset_sim.observation import OBS_GRID, OPTION_WIDTH
from sunset_sim.strategy_tools import popcount, takeable_cells


@jit(inline="always")
def paint_options(obs, occupied, start, direction, steps, paint, options, takeable):
    """R-PAINT-1/2: subsets of the takeable path cells, by ascending bitmask."""
    n_takeable = takeable_cells(obs, occupied, start, direction, steps, takeable)
    n = 0
    for mask in range(1 << n_takeable):
        if popcount(mask) > paint:
            continue
        column = 0
        for bit in range(n_takeable):
            if (mask >> bit) & 1:
                options[n, column] = takeable[bit]
                column += 1
        for pad in range(column, OPTION_WIDTH):
            options[n, pad] = -1
        n += 1
    return n


@jit(inline="always")
def take_paintings(
    obs, options, choice, seat, hands, n_hand, sums, land_icons, land_place, painted_out,
    day_out, day, trace,
):  # fmt: skip
    """R-PAINT-3: the chosen cells' cards into the seat's hand in path order, the cells
    empty until clean-up. Returns how many were taken."""
    n_painted = 0
    for column in range(OPTION_WIDTH):
        if options[choice, column] >= 0:
            n_painted += 1
    trace_put(trace, n_painted)
    for column in range(n_painted):
        cell = options[choice, column]
        card = obs[OBS_GRID + cell]
        trace_put(trace, cell)
        trace_put(trace, card)
        obs[OBS_GRID + cell] = -1
        obs[land_place + card] = seat
        hands[seat, n_hand[seat]] = card
        n_hand[seat] += 1
        sums[seat, S_ICONS] += land_icons[card]
        sums[seat, S_PAINTED] += 1
        mark_card(painted_out[seat], card)
    day_out[seat, day - 1, D_PAINTED] += n_painted
    refresh_fame(obs, sums, seat)
    return n_painted
