"""Phase 2 of a turn in the fast engine: the paint sets a hike allows (R-PAINT-1/2), in
the reference engine's order (``rules/paint.py``)."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.observation import (
    OPTION_WIDTH,
)
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
