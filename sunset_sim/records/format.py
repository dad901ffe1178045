"""The game-record format (JSON), version 1. docs/record-format.md describes it."""

from __future__ import annotations

from sunset_sim.cards.model import CardSet
from sunset_sim.enums import GRID_SIZE

RECORD_FORMAT = "sunset-sim-record"
RECORD_VERSION = 1
DEFAULT_CARDS_PATH = "<default>"


def cell_to_json(cell: int) -> list[int]:
    """A cell as [row, column]; row 0 is the top row."""
    return list(divmod(cell, GRID_SIZE))


def card_set_json(cards: CardSet, inline: bool = False) -> dict:
    """How a record names its card set: by name and content hash, or with the text inline."""
    data = {"name": cards.name, "hash": cards.content_hash, "path": cards.path}
    if inline:
        data["inline"] = cards.source
    return data
