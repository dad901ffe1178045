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
    """The chosen option's index. A forced choice (one option) is not put to the strategy,
    in either engine, so it draws no random numbers for it."""
    if n_options == 1:
        return 0
    if strategy_id == 0:
        choice = random_decide(kind, obs, options, n_options, params, rng, tables)
    elif strategy_id == 1:
        choice = greedy_decide(kind, obs, options, n_options, params, rng, tables)
    else:
        raise ValueError("unknown kernel strategy id")
    if choice < 0 or choice >= n_options:
        raise ValueError("a strategy chose an option that is not on the list")
    return choice
