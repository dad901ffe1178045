"""What a paired experiment's restricted seat may not take (restricted play, Jaffe et
al.; ``experiments``): a plan card, a commission, a landscape or every landscape showing
a feature type, as the columns of the kernel's per-seat ban mask
(``engine/restricted.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sunset_sim.cards.model import CardSet
from sunset_sim.engine.restricted import BAN_ANY
from sunset_sim.validation import InputError

__all__ = ["FAMILIES", "Restriction", "ban_array", "ban_columns", "restrictions_for"]

FAMILIES = ("plan", "commission", "feature", "landscape")


@dataclass(frozen=True)
class Restriction:
    """What one seat may not take: a plan card, commission or landscape id, or a
    feature type name (family ``feature``: no landscape showing it)."""

    family: str
    card: str

    @property
    def label(self) -> str:
        return f"{self.family} {self.card}"


def restrictions_for(cards: CardSet, families: Sequence[str] = FAMILIES) -> list[Restriction]:
    """One restriction per card (or feature type) of each family, in card-file order; a
    feature type no landscape shows has none (there is nothing to play without)."""
    shown = [any(land.features[f] for land in cards.landscapes) for f in range(len(cards.features))]
    ids = {
        "plan": [p.id for p in cards.plans],
        "commission": [c.id for c in cards.commissions],
        "feature": [name for name, on_some in zip(cards.features, shown, strict=True) if on_some],
        "landscape": [land.id for land in cards.landscapes],
    }
    unknown = [f for f in families if f not in ids]
    if unknown:
        raise InputError(f"family: {unknown[0]!r} is not one of {', '.join(FAMILIES)}")
    return [Restriction(family, card) for family in families for card in ids[family]]


def ban_columns(cards: CardSet, restriction: Restriction) -> list[int]:
    """The columns of a kernel ``banned`` row (engine/restricted.py, ban_offsets) this restriction sets."""
    n_plan, n_land = len(cards.plans), len(cards.landscapes)
    plan_column, land_column, comm_column = 1, 1 + n_plan, 1 + n_plan + n_land
    family, card = restriction.family, restriction.card
    if family == "plan":
        indices = [i for i, p in enumerate(cards.plans) if p.id == card]
        columns = [plan_column + i for i in indices]
    elif family == "commission":
        indices = [i for i, c in enumerate(cards.commissions) if c.id == card]
        columns = [comm_column + i for i in indices]
    elif family == "landscape":
        indices = [i for i, land in enumerate(cards.landscapes) if land.id == card]
        columns = [land_column + i for i in indices]
    elif family == "feature":
        if card not in cards.features:
            raise InputError(f"feature: {card!r} is not a feature type of {cards.name}")
        f = cards.features.index(card)
        columns = [land_column + i for i, land in enumerate(cards.landscapes) if land.features[f]]
    else:
        raise InputError(f"family: {family!r} is not one of {', '.join(FAMILIES)}")
    if not columns:
        raise InputError(f"{family}: no card {card!r} in {cards.name}")
    return columns


def ban_array(cards: CardSet, players: int, restriction: Restriction | None) -> np.ndarray | None:
    """The kernel's ``banned`` array for one restriction: in game g, seat ``g % players``
    is restricted (one mask per seat, the kernel picks ``g % players``)."""
    if restriction is None:
        return None
    width = 1 + len(cards.plans) + len(cards.landscapes) + len(cards.commissions)
    banned = np.zeros((players, players, width), dtype=np.uint8)
    columns = ban_columns(cards, restriction)
    for seat in range(players):
        banned[seat, seat, BAN_ANY] = 1
        banned[seat, seat, columns] = 1
    return banned
