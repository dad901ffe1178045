"""Built-in strategies, one module each; each module defines ``STRATEGY`` (a StrategySpec).

Drop a module here (or register an entry point in the group ``sunset_sim.strategies``)
to add a strategy; see docs/writing-a-strategy.md.
"""
