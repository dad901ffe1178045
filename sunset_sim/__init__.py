"""sunset-sim: Monte Carlo strategy analysis for the board game Sunset over Water.

The Python API mirrors the CLI: ``simulate`` (fast engine, one row per game and seat),
``play_reference`` (one game on the readable engine, with its record), ``load_cards``.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Rules", "load_cards", "play_reference", "simulate"]

_EXPORTS = {
    "simulate": "sunset_sim.runner",
    "play_reference": "sunset_sim.play",
    "load_cards": "sunset_sim.cards.loader",
    "Rules": "sunset_sim.rules.options",
}


def __getattr__(name: str):
    """Import on first use, so that ``import sunset_sim`` stays light (no numba compile)."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sunset_sim' has no attribute {name!r}")
