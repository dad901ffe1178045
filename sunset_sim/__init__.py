"""sunset-sim: Monte Carlo strategy analysis for the board game Sunset over Water."""

__version__ = "0.1.0"
