"""The reference engine: one whole game, phase by phase, as docs/rules.md orders it.

Every choice and chance event comes from a ``Decider``: strategies with random
streams when playing, a game record when replaying. The engine checks each one and
raises ``RuleViolation`` naming the rule it breaks, and writes the game record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables, build_tables
from sunset_sim.enums import (
    DIRECTION_NAMES,
    END_COMMISSION_SHORTAGE,
    END_REASON_NAMES,
    END_SIX_DAYS,
)
from sunset_sim.records.format import RECORD_FORMAT, RECORD_VERSION, card_set_json, cell_to_json
from sunset_sim.rules import cleanup, goals, hike, paint, plan, scoring, sell
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.options import Rules
from sunset_sim.rules.setup import SetupOrders, new_game
from sunset_sim.rules.state import GameState, TurnRecord


class Decider(Protocol):
    """Where a game's choices and chance events come from."""

    def setup_orders(self, cards: CardSet, n_players: int) -> SetupOrders: ...

    def keep_plan(self, state: GameState, seat: int, hand: list[int]) -> int: ...

    def turn_order(self, state: GameState) -> list[int]: ...

    def hike(
        self, state: GameState, seat: int, options: list[tuple[int, int]]
    ) -> tuple[int, int]: ...

    def paint(self, state: GameState, seat: int, options: list[list[int]]) -> list[int]: ...

    def sale(
        self, state: GameState, seat: int, options: list[tuple[int, list[int]]]
    ) -> tuple[int, list[int]] | None: ...

    def reshuffle(self, state: GameState, discard: list[int]) -> list[int]: ...


@dataclass
class GameResult:
    state: GameState
    record: dict
    fame: list[int]
    fame_parts: list[tuple[int, int, int]]
    winners: list[int]
    end_reason: int
    days_played: int


def play_game(
    cards: CardSet,
    rules: Rules,
    n_players: int,
    decider: Decider,
    tables: CardTables | None = None,
    record_meta: dict | None = None,
    on_event: Callable[[str, GameState, dict], None] | None = None,
) -> GameResult:
    """Play one game under ``rules``; every decision is checked (RuleViolation if illegal).

    ``on_event(kind, state, data)`` sees "day" (plans revealed), "turn", "day_end" (the
    hike phase over), "clean_up" (the day's log with its reshuffles; not after the last
    day) and "end", for logs and replay's checks; it must not change the state.
    """
    notify = on_event or (lambda kind, state, data: None)
    tables = build_tables(cards) if tables is None else tables
    orders = decider.setup_orders(cards, n_players)
    state = new_game(cards, tables, rules, n_players, orders)
    ids = _Ids(cards)
    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "cards": card_set_json(cards),
        "rules": rules.to_dict(),
        "players": n_players,
        **(record_meta or {}),
        "setup": {
            "landscapes": ids.land(orders.landscapes),
            "commissions": ids.comm(orders.commissions),
            "goals": ids.goal(orders.goals),
            "plans": [ids.plan(deck) for deck in orders.plans],
        },
        "days": [],
    }
    for day in range(1, rules.days + 1):
        state.day = day
        day_log = play_day(state, decider, ids, notify)
        record["days"].append(day_log)
        if day == rules.days:  # R-CLEAN-1
            state.end_reason = END_SIX_DAYS
            break
        refilled = clean_up(state, decider, day_log, ids)
        notify("clean_up", state, day_log)
        if not refilled:  # R-CLEAN-5
            state.end_reason = END_COMMISSION_SHORTAGE
            break
    state.ended = True
    parts = [scoring.fame_parts(state, seat) for seat in range(n_players)]
    fame = [sum(p) for p in parts]
    won = scoring.winners(fame)
    record["end"] = {"reason": END_REASON_NAMES[state.end_reason], "day": state.day}
    record["fame"] = fame
    record["fame_parts"] = [list(p) for p in parts]
    record["winners"] = won
    notify("end", state, record)
    return GameResult(state, record, fame, parts, won, state.end_reason, state.day)


def play_day(state: GameState, decider: Decider, ids: _Ids, notify: Callable) -> dict:
    """Phase 1 (plan) and phase 2 (hike), ending with R-GOAL-2's keep."""
    state.turn_order = []
    state.turns_done = []
    for player in state.players:
        player.plan = -1
    # R-PLAN-2: everyone chooses before anything is revealed
    hands = [plan.draw_plan_hand(state, seat) for seat in range(state.n_players)]
    kept = [decider.keep_plan(state, seat, hands[seat]) for seat in range(state.n_players)]
    for seat in range(state.n_players):
        plan.keep_plan(state, seat, kept[seat])
    order = decider.turn_order(state)
    plan.check_turn_order(state, order)
    state.turn_order = list(order)
    day_log = {
        "day": state.day,
        "goal": ids.goal([state.goal])[0] if state.goal >= 0 else None,
        "plans": [
            {"drawn": ids.plan(hands[s]), "kept": ids.plan([kept[s]])[0]}
            for s in range(state.n_players)
        ],
        "order": list(order),
        "turns": [],
    }
    notify("day", state, day_log)
    for seat in order:
        turn = take_turn(state, seat, decider)
        state.turns_done.append(seat)
        day_log["turns"].append(turn_json(turn, ids))
        notify("turn", state, day_log["turns"][-1])
    if state.goal >= 0 and state.goal_holder >= 0:  # R-GOAL-2 / R-END-1
        state.players[state.goal_holder].goals.append(state.goal)
    day_log["goal_holder"] = (
        state.goal_holder if state.goal >= 0 and state.goal_holder >= 0 else None
    )
    day_log["fame"] = [scoring.fame_now(state, s) for s in range(state.n_players)]
    notify("day_end", state, day_log)
    return day_log


def take_turn(state: GameState, seat: int, decider: Decider) -> TurnRecord:
    """One player's turn: hike, paint, sell, then the daily-goal check."""
    player = state.players[seat]
    plan_card = state.cards.plans[player.plan]
    turn = TurnRecord(seat=seat, plan=player.plan, start=player.position)
    # hike (R-HIKE-1..6)
    direction, steps = decider.hike(state, seat, hike.legal_hikes(state, seat))
    hike.check_hike(state, seat, direction, steps)
    turn.direction, turn.steps = direction, steps
    turn.path = hike.hike_path(player.position, direction, steps)
    player.position = turn.path[-1]
    # paint (R-PAINT-1..3)
    takeable = paint.takeable_cells(state, seat, turn.path)
    cells = decider.paint(state, seat, paint.paint_options(takeable, plan_card.paint))
    paint.check_paint(state, seat, turn.path, cells)
    turn.painted = list(cells)
    turn.painted_cards = paint.apply_paint(state, seat, cells)
    # sell (R-SELL-1..4), one commission at a time until the player stops
    while True:
        sale = decider.sale(state, seat, sell.sale_options(state, seat))
        if sale is None:
            break
        commission, paintings = sale
        sell.check_sale(state, seat, commission, paintings)
        sell.apply_sale(state, seat, commission, paintings)
        turn.sales.append((commission, list(paintings)))
    # daily goal (R-GOAL-1..3): taken, from whoever holds it
    if state.goal >= 0 and goals.meets_goal(state, seat, turn):
        state.goal_holder = seat
        turn.goal_taken = True
    return turn


def clean_up(state: GameState, decider: Decider, day_log: dict, ids: _Ids) -> bool:
    """Phase 3; False if the game ends on a commission shortage (R-CLEAN-5)."""
    reshuffles = cleanup.refill_wilderness(state, decider.reshuffle)
    day_log["reshuffles"] = [ids.land(deck) for deck in reshuffles]
    cleanup.next_goal(state)
    return cleanup.refill_commissions(state)


def turn_json(turn: TurnRecord, ids: _Ids) -> dict:
    return {
        "seat": turn.seat,
        "hike": {
            "direction": DIRECTION_NAMES[turn.direction] if turn.steps else None,
            "steps": turn.steps,
        },
        "painted": [
            {"cell": cell_to_json(cell), "card": card}
            for cell, card in zip(turn.painted, ids.land(turn.painted_cards), strict=True)
        ],
        "sales": [
            {"commission": ids.comm([c])[0], "paintings": ids.land(p)} for c, p in turn.sales
        ],
        "goal": turn.goal_taken,
    }


class _Ids:
    """Card index -> card id, for records."""

    def __init__(self, cards: CardSet) -> None:
        self._land = [c.id for c in cards.landscapes]
        self._comm = [c.id for c in cards.commissions]
        self._goal = [c.id for c in cards.goals]
        self._plan = [c.id for c in cards.plans]

    def land(self, cards: list[int]) -> list[str]:
        return [self._land[c] for c in cards]

    def comm(self, cards: list[int]) -> list[str]:
        return [self._comm[c] for c in cards]

    def goal(self, cards: list[int]) -> list[str]:
        return [self._goal[c] for c in cards]

    def plan(self, cards: list[int]) -> list[str]:
        return [self._plan[c] for c in cards]


__all__ = ["Decider", "GameResult", "RuleViolation", "play_game"]
