"""Phase 2 of a turn in the fast engine: the paint sets a hike allows (R-PAINT-1/2), in
the reference engine's order, and taking the chosen one (R-PAINT-3), as
``rules/paint.py`` does."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.engine.state import (
    S_ICONS,
    S_PAINTED,
    SCRATCH_SIZE,
    mark_card,
    refresh_fame,
    trace_put,
)
from sunset_sim.enums import D_PAINTED
from sunset_sim.observation import OBS_GRID, OPTION_WIDTH
from sunset_sim.strategy_tools import takeable_cells


def _subset_bits() -> np.ndarray:
    """SUBSET_BITS[mask * OPTION_WIDTH + c]: the position of the c-th set bit of ``mask``
    (-1 past its last), for every subset of the SCRATCH_SIZE takeable cells a path can
    have."""
    n_masks = 1 << SCRATCH_SIZE
    bits = np.full(n_masks * OPTION_WIDTH, -1, dtype=np.int64)
    for mask in range(n_masks):
        positions = [bit for bit in range(SCRATCH_SIZE) if (mask >> bit) & 1]
        bits[mask * OPTION_WIDTH : mask * OPTION_WIDTH + len(positions)] = positions
    return bits


def _kept_masks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """KEPT_MASKS[KEPT_START[g] : KEPT_START[g] + KEPT_COUNT[g]] for g = n * (SCRATCH_SIZE +
    1) + paint: the subsets of n takeable cells with at most ``paint`` cells, ascending."""
    masks, starts, counts = [], [], []
    for n in range(SCRATCH_SIZE + 1):
        for paint in range(SCRATCH_SIZE + 1):
            kept = [mask for mask in range(1 << n) if bin(mask).count("1") <= paint]
            starts.append(len(masks))
            counts.append(len(kept))
            masks.extend(kept)
    return (
        np.array(masks, dtype=np.int64),
        np.array(starts, dtype=np.int64),
        np.array(counts, dtype=np.int64),
    )


assert OPTION_WIDTH >= SCRATCH_SIZE  # a row holds every cell of a path
SUBSET_BITS = _subset_bits()
KEPT_MASKS, KEPT_START, KEPT_COUNT = _kept_masks()


@jit(inline="always")
def paint_options(obs, occupied, start, direction, steps, paint, options, takeable):
    """R-PAINT-1/2: subsets of the takeable path cells, by ascending bitmask. The subsets
    small enough for the plan card come from a list (KEPT_MASKS) and each row from
    SUBSET_BITS: no branch on the bits of a subset or on its size, which mispredicted
    (scripts/ab_bench.py against 837666f, when every subset was written and the small
    ones kept: random +4.2%, 9 rounds of 25,000 games; the list then gave random +0.8%)."""
    n_takeable = takeable_cells(obs, occupied, start, direction, steps, takeable)
    group = n_takeable * (SCRATCH_SIZE + 1) + min(max(paint, 0), SCRATCH_SIZE)
    first = KEPT_START[group]
    n = KEPT_COUNT[group]
    for row in range(n):
        mask = KEPT_MASKS[first + row]
        for column in range(OPTION_WIDTH):
            bit = SUBSET_BITS[mask * OPTION_WIDTH + column]
            options[row, column] = takeable[max(bit, 0)] if bit >= 0 else -1
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
