"""random: uniform over the legal options of every decision."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec
from sunset_sim.strategy_tools import rng_below


@jit(_nrt=False)  # allocates nothing: no reference counting on its arguments
def decide(kind, obs, options, n_options, params, rng, tables):
    return rng_below(rng, n_options)


STRATEGY = StrategySpec(
    name="random",
    description="Chooses uniformly among the legal options of every decision (plan card, "
    "hike, paint set, each sale or stopping). A baseline every real strategy should beat.",
    decide=decide,
    reads_unseen_commissions=False,  # reads no card data at all
)
