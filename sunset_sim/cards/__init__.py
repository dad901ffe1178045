"""Card sets: the data model, the TOML loader with validation, and the difficulty model.

The default set (``default.toml``) is a reconstruction consistent with the public facts
(docs/rules.md, Components; its header lists them), not the printed cards; ``load_cards(path)`` loads a user's own file instead.
"""

from sunset_sim.cards.difficulty import commission_difficulty, frame_probability, model_fame
from sunset_sim.cards.fields import format_frame
from sunset_sim.cards.loader import (
    CardSetError,
    check_playable,
    content_hash,
    load_cards,
    parse_cards,
)
from sunset_sim.cards.model import CardSet, Commission, Frame, Goal, Landscape, PlanCard


def __getattr__(name: str):
    """``commission_table`` and ``format_summary`` on first use: they need pandas, whose
    import (about 0.25 s) would otherwise be part of every command's start, pandas-free
    ``simulate`` included."""
    if name in ("commission_table", "format_summary"):
        from sunset_sim.cards import summary

        return getattr(summary, name)
    raise AttributeError(f"module 'sunset_sim.cards' has no attribute {name!r}")


__all__ = [
    "CardSet",
    "CardSetError",
    "Commission",
    "Frame",
    "Goal",
    "Landscape",
    "PlanCard",
    "check_playable",
    "commission_difficulty",
    "commission_table",
    "content_hash",
    "format_frame",
    "format_summary",
    "frame_probability",
    "load_cards",
    "model_fame",
    "parse_cards",
]
