"""Strategy dispatch inside the kernel: a strategy id picks a numba decide function.

The pattern DESIGN-NOTES recommends (an id plus a float parameter vector, dispatched
inside the kernel) caches well, unlike passing functions as arguments.
"""

from __future__ import annotations

from strategies.greedy import decide as greedy_decide
from strategies.uniform_random import decide as random_decide
from sunset_sim.engine.jit import jit

# Kernel strategy ids, by registry name.
KERNEL_STRATEGIES = ("random", "greedy")


@jit(inline="always")
def decide(strategy_id, kind, obs, options, n_options, params, rng, tables):
    if strategy_id == 0:
        return random_decide(kind, obs, options, n_options, params, rng, tables)
    return greedy_decide(kind, obs, options, n_options, params, rng, tables)
