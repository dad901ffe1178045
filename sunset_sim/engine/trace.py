"""Decode a kernel game trace into the reference record's structure (parity checks)."""

from __future__ import annotations

import numpy as np

from sunset_sim.cards.model import CardSet
from sunset_sim.enums import DIRECTION_NAMES, END_REASON_NAMES, PLAN_HAND
from sunset_sim.records.format import cell_to_json

# The parts of a reference record that a trace reproduces.
COMPARED_KEYS = ("setup", "days", "fame", "end")
COMPARED_DAY_KEYS = ("day", "plans", "order", "turns", "goal_holder", "reshuffles")


class _Reader:
    def __init__(self, values: np.ndarray) -> None:
        self.values = [int(v) for v in values]
        self.at = 0

    def next(self) -> int:
        value = self.values[self.at]
        self.at += 1
        return value

    def many(self, n: int) -> list[int]:
        return [self.next() for _ in range(n)]


def trace_to_record(trace: np.ndarray, cards: CardSet, n_players: int, days: int) -> dict:
    land = [c.id for c in cards.landscapes]
    comm = [c.id for c in cards.commissions]
    plans = [c.id for c in cards.plans]
    read = _Reader(trace)
    record: dict = {
        "setup": {
            "landscapes": [land[i] for i in read.many(len(land))],
            "commissions": [comm[i] for i in read.many(len(comm))],
            "goals": [cards.goals[i].id for i in read.many(len(cards.goals))],
            "plans": [[plans[i] for i in read.many(len(plans))] for _ in range(n_players)],
        },
        "days": [],
    }
    while True:
        day = read.next()
        if day == -2:
            break
        entry: dict = {"day": day, "plans": [], "turns": []}
        for _ in range(n_players):
            drawn = read.many(PLAN_HAND)
            entry["plans"].append({"drawn": [plans[i] for i in drawn], "kept": plans[read.next()]})
        entry["order"] = read.many(n_players)
        for _ in range(n_players):
            seat, direction, steps = read.many(3)
            painted = []
            for _ in range(read.next()):
                cell, card = read.many(2)
                painted.append({"cell": cell_to_json(cell), "card": land[card]})
            sales = []
            while (commission := read.next()) != -1:
                n_frames = len(cards.commissions[commission].frames)
                sales.append(
                    {
                        "commission": comm[commission],
                        "paintings": [land[i] for i in read.many(n_frames)],
                    }
                )
            entry["turns"].append(
                {
                    "seat": seat,
                    "hike": {
                        "direction": DIRECTION_NAMES[direction] if steps else None,
                        "steps": steps,
                    },
                    "painted": painted,
                    "sales": sales,
                    "goal": bool(read.next()),
                }
            )
        holder = read.next()
        entry["goal_holder"] = None if holder < 0 else holder
        if day < days:
            reshuffles = []
            while (size := read.next()) != -1:
                reshuffles.append([land[i] for i in read.many(size)])
            entry["reshuffles"] = reshuffles
        record["days"].append(entry)
    record["fame"] = read.many(n_players)
    reason, last_day = read.many(2)
    record["end"] = {"reason": END_REASON_NAMES[reason], "day": last_day}
    return record


def comparable(record: dict) -> dict:
    """The parts of a reference record that the fast engine's trace reproduces."""
    out = {key: record[key] for key in COMPARED_KEYS}
    out["days"] = [
        {key: day[key] for key in COMPARED_DAY_KEYS if key in day} for day in record["days"]
    ]
    return out
