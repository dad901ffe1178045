"""The commission difficulty model that sets the default set's fame values (``default.toml``
says so in its header).

The printed fame values are unknown, so the reconstructed set derives them from one
written, reproducible rule, and a test checks the file against it:

1. For a frame, ``p`` = the fraction of the set's landscape cards that match it on
   their own (R-SELL-3, ``Frame.matches``): the chance that one random landscape
   would do as the painting for that frame.
2. A commission's difficulty is ``D = sum over its frames of -log2(p)``, in bits:
   how unlikely it is that independent random landscapes fill every frame.
3. ``fame = clamp(floor(FAME_PER_BIT * D + 0.5), FAME_MIN, FAME_MAX)`` (round half up,
   so the result never depends on banker's rounding).

With the default landscape deck, D runs from about 1.4 bits (one loose frame) to about
13 bits (three exact frames), which ``FAME_PER_BIT = 0.6`` maps to fame 1 to 8.
The model ignores that paintings are chosen, not random, and that one painting cannot
serve two frames; it is a ranking device, not a probability of success.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sunset_sim.cards.model import Commission, Frame, Landscape

FAME_PER_BIT = 0.6  # fame per bit of difficulty
FAME_MIN = 1
FAME_MAX = 9


def frame_probability(frame: Frame, landscapes: Sequence[Landscape]) -> float:
    """Fraction of ``landscapes`` that match ``frame`` (0.0 if none can)."""
    if not landscapes:
        raise ValueError("frame_probability needs at least one landscape")
    hits = sum(1 for land in landscapes if frame.matches(land.features))
    return hits / len(landscapes)


def commission_difficulty(commission: Commission, landscapes: Sequence[Landscape]) -> float:
    """Sum over frames of -log2(p), in bits; ``inf`` if some frame can never be matched."""
    total = 0.0
    for frame in commission.frames:
        p = frame_probability(frame, landscapes)
        if p == 0.0:
            return math.inf
        total -= math.log2(p)
    return total


def fame_for_difficulty(bits: float) -> int:
    """Map a difficulty in bits to fame: round half up of FAME_PER_BIT * bits, clamped."""
    if math.isinf(bits):
        return FAME_MAX
    return max(FAME_MIN, min(FAME_MAX, math.floor(FAME_PER_BIT * bits + 0.5)))


def model_fame(commission: Commission, landscapes: Sequence[Landscape]) -> int:
    """The fame the difficulty model gives ``commission`` against this landscape deck."""
    return fame_for_difficulty(commission_difficulty(commission, landscapes))
