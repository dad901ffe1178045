"""Shared helpers of the game-record tests (test_records.py, test_records_tampering.py):
playing a game on the reference engine, JSON round trips, and the tampering machinery.

Tampering is built from real records: the states before each turn are captured while
replaying the untouched record, and a search over a small pool of games (``capture_pool``,
conftest's ``pool`` fixture) finds a turn where each illegal edit can be made.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field

import pytest

from sunset_sim.cards.loader import load_cards
from sunset_sim.enums import GRID_SIZE
from sunset_sim.play import play_reference
from sunset_sim.records.replay import RecordError, replay
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players

CARDS = load_cards()
LAND = [c.id for c in CARDS.landscapes]
COMM = [c.id for c in CARDS.commissions]
PLAN = {c.id: c for c in CARDS.plans}


def play(players, seed, strategies=("greedy",), rules=None, cards=CARDS, game_index=0, log=None):
    seats = seat_players(list(strategies), players)
    return play_reference(
        cards, seats, seed, game_index, rules or Rules(), on_event=log and log.on_event
    )


def via_json(record: dict) -> dict:
    return json.loads(json.dumps(record))


def cell_json(cell: int) -> list[int]:
    return list(divmod(cell, GRID_SIZE))


def cell_of(entry: dict) -> int:
    row, col = entry["cell"]
    return row * GRID_SIZE + col


@dataclass
class Before:
    """The state before one turn (or before a day's first turn)."""

    grid: list[int]
    positions: list[int]
    plans: list[int]
    row: list[int]
    preview: int
    deck: list[int]
    paintings: list[list[int]]


@dataclass
class Game:
    record: dict
    before: dict[tuple[int, int], Before] = field(default_factory=dict)

    def turns(self):
        """(day number, position, turn, state before it) for every turn, in play order."""
        for d, day in enumerate(self.record["days"], start=1):
            for position, turn in enumerate(day["turns"]):
                yield d, position, turn, self.before[d, position]


def capture(record: dict) -> Game:
    game = Game(record)

    def on_event(kind, state, data):
        if kind in ("day", "turn"):
            game.before[state.day, len(state.turns_done)] = Before(
                list(state.grid),
                [p.position for p in state.players],
                [p.plan for p in state.players],
                list(state.commission_row),
                state.preview,
                list(state.commission_deck),
                [list(p.paintings) for p in state.players],
            )

    replay(via_json(record), on_event=on_event)
    return game


POOL_SPECS = [(2, s, ("greedy",)) for s in range(1, 5)]
POOL_SPECS += [(3, s, ("greedy", "random")) for s in range(3)]
POOL_SPECS += [(4, s, ("greedy",)) for s in (0, 3, 4)]
POOL_SPECS += [(2, s, ("random",)) for s in range(8)]  # random sells often: turns with 2+ sales


def capture_pool() -> list[Game]:
    """The pool the tampering tests search for a turn that allows each edit (conftest's
    ``pool`` fixture: captured once per session)."""
    return [capture(play(p, s, m).record) for p, s, m in POOL_SPECS]


def rejects(record: dict, rule: str, where: str | None = None) -> str:
    """Replay must raise one RecordError line naming ``rule`` (after ``where``, if given)."""
    with pytest.raises(RecordError) as info:
        replay(via_json(record))
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert rule in message, message
    if where is not None:
        assert message.startswith(f"{where}: {rule}"), message
    return message


def edit(game: Game) -> dict:
    return copy.deepcopy(game.record)


def plan_of(record: dict, day: int, seat: int):
    return PLAN[record["days"][day - 1]["plans"][seat]["kept"]]


def first(pool, predicate):
    """The first (game, day, position, turn, before, extra) where predicate gives extra."""
    for game in pool:
        for d, position, turn, before in game.turns():
            extra = predicate(game, d, turn, before)
            if extra is not None and extra is not False:
                return game, d, position, turn, before, extra
    pytest.fail("no turn in the pool allows this edit")


def sale_turn(pool, predicate=lambda game, turn, before: True):
    return first(
        pool,
        lambda game, d, turn, before: bool(turn["sales"]) and predicate(game, turn, before) or None,
    )


def set_turn(record: dict, day: int, position: int, **changes) -> dict:
    record["days"][day - 1]["turns"][position].update(changes)
    return record
