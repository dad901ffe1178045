"""The engine's one way of asking a strategy: ``decide``, used by every phase.

Every decision of a game (plan card, hike, paint set, each sale) goes through here, so
the rule that a forced choice is not put to the strategy, and the check of what it
answers, live in one place."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.decisions import call_strategy
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE

# The decision kinds as int64, the type the adapters take: one adapter signature instead
# of once per kind, which cuts cold compile time; it branches on ``kind`` at run time.
KIND_PLAN = np.int64(DECIDE_PLAN)
KIND_HIKE = np.int64(DECIDE_HIKE)
KIND_PAINT = np.int64(DECIDE_PAINT)
KIND_SALE = np.int64(DECIDE_SALE)
OFF_THE_LIST = "a strategy chose an option that is not on the list"


@jit(inline="always")
def decide(strategy_functions, strategy_id, kind, n_options, seat, context):
    """The chosen option's index. A forced choice (one option) is not put to the
    strategy, in either engine, so it draws no random numbers for it."""
    if n_options == 1:
        return 0
    choice = call_strategy(strategy_functions, strategy_id, kind, n_options, seat, context)
    if choice < 0 or choice >= n_options:  # batch.play_block names the strategy
        raise ValueError(OFF_THE_LIST, strategy_id, choice, n_options)
    return choice
