"""The strategy dispatch that ``kernel.py`` imports: a placeholder, replaced per line-up.

``kernel.py`` calls ``decide(strategy_id, kind, obs, options, n_options, params, rng,
tables)``. Which strategies the ids stand for depends on the table, so the kernel that
plays games is never ``kernel.py`` itself but a module that ``engine/codegen.py``
generates for each set of strategies: its own dispatching ``decide`` (an id plus a float
parameter vector, dispatched inside the kernel, the pattern that caches well), followed by
the text of ``kernel.py`` without the line that imports this function.

Importing ``sunset_sim.engine.kernel`` directly still works (its layout constants are
used by ``batch.py`` and ``results.py``), but a game played by it would reach this
placeholder at its first real decision and stop.
"""

from __future__ import annotations

from sunset_sim.engine.jit import jit


@jit(inline="always")
def decide(strategy_id, kind, obs, options, n_options, params, rng, tables):
    """A forced choice is 0; any other decision needs a generated kernel (codegen.py)."""
    if n_options == 1:
        return 0
    raise ValueError("sunset_sim.engine.kernel has no strategies: use engine.codegen")
