"""random: uniform over the legal options of every decision."""

from __future__ import annotations

from sunset_sim.strategy import StrategySpec
from sunset_sim.strategy_tools import uniform_choice

# The engine makes this draw itself, without calling the strategy (engine/ask.py).
decide = uniform_choice

STRATEGY = StrategySpec(
    name="random",
    description="Chooses uniformly among the legal options of every decision (plan card, "
    "hike, paint set, each sale or stopping). A baseline every real strategy should beat.",
    decide=decide,
)
