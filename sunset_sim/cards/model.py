"""The card set as plain, immutable Python records.

Feature multisets are count vectors indexed by feature type (``CardSet.features``),
never strings, so that both engines can turn them into integer tables directly.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Landscape:
    """R-COMP-1: a landscape card; ``features[f]`` counts icons of feature type f."""

    id: str
    features: tuple[int, ...]

    @property
    def icons(self) -> int:
        return sum(self.features)


@dataclass(frozen=True)
class Frame:
    """R-SELL-3: required multiset, ``wild`` exact extra features (``?``), ``open`` (``?...``)."""

    required: tuple[int, ...]
    wild: int = 0
    open: bool = False

    def matches(self, features: tuple[int, ...]) -> bool:
        """R-SELL-3: Q contained in F and r == k (or r >= k with the ``?...`` mark)."""
        if any(have < need for have, need in zip(features, self.required, strict=True)):
            return False
        extra = sum(features) - sum(self.required)
        return extra >= self.wild if self.open else extra == self.wild


@dataclass(frozen=True)
class Commission:
    """R-COMP-2: frames to fill (in frame order) and the fame it gives."""

    id: str
    fame: int
    frames: tuple[Frame, ...]


@dataclass(frozen=True)
class Goal:
    """R-COMP-3: a daily goal; ``kind`` is an ``enums.GOAL_*`` code, ``param`` its number."""

    id: str
    fame: int
    kind: int
    param: int = 0


@dataclass(frozen=True)
class PlanCard:
    """R-COMP-4: wake-up time in minutes after midnight, allowed directions, hike, paint."""

    id: str
    wake: int
    directions: str
    direction_mask: int
    hike: int
    paint: int

    @property
    def wake_label(self) -> str:
        return f"{self.wake // 60}:{self.wake % 60:02d}"


@dataclass(frozen=True)
class CardSet:
    """A whole, validated card set. ``content_hash`` identifies it in game records."""

    name: str
    features: tuple[str, ...]
    landscapes: tuple[Landscape, ...]
    commissions: tuple[Commission, ...]
    goals: tuple[Goal, ...]
    plans: tuple[PlanCard, ...]
    content_hash: str
    source: str  # the TOML text it was loaded from, so a record can carry it inline
    path: str = "<default>"

    @property
    def deal_key(self) -> str:
        """16 hex digits naming what a seeded deal depends on: the ordered card ids.

        The engines shuffle card indices, so two sets with equal keys are dealt the same
        cards in the same places for a seed, whatever the cards' numbers say.
        """
        ids = {
            "landscape": [card.id for card in self.landscapes],
            "commission": [card.id for card in self.commissions],
            "goal": [card.id for card in self.goals],
            "plan": [card.id for card in self.plans],
        }
        text = json.dumps(ids, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
