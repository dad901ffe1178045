"""Setup (R-SET-1 .. R-SET-5)."""

from __future__ import annotations

from dataclasses import dataclass

from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables
from sunset_sim.enums import (
    CENTRE_CELL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_CELLS,
    PLAN_HAND,
    STREAM_SETUP,
)
from sunset_sim.rng import Stream
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.options import Rules
from sunset_sim.rules.state import EMPTY, GameState, PlayerState


@dataclass
class SetupOrders:
    """The shuffled order of every deck, top card first."""

    landscapes: list[int]
    commissions: list[int]
    goals: list[int]
    plans: list[list[int]]  # one per seat


def shuffled_orders(cards: CardSet, n_players: int, setup: Stream) -> SetupOrders:
    """R-SET-1..4 shuffles, drawn from the setup stream in this order: landscapes,
    commissions, goals, then each seat's plan deck."""
    decks = []
    for size in (len(cards.landscapes), len(cards.commissions), len(cards.goals)):
        deck = list(range(size))
        setup.shuffle(deck)
        decks.append(deck)
    plans = []
    for _ in range(n_players):
        deck = list(range(len(cards.plans)))
        setup.shuffle(deck)
        plans.append(deck)
    return SetupOrders(decks[0], decks[1], decks[2], plans)


def commission_order(
    n_landscapes: int, n_commissions: int, seed: int, game_index: int
) -> list[int]:
    """The commission deck of a deal (R-SET-2) as ``shuffled_orders`` draws it, without
    the other shuffles: the setup stream's second shuffle, after the landscapes'
    n - 1 draws, so it depends on the two deck sizes only. (Studies ask for it per
    deal, to tell which commissions a game turned up.)"""
    setup = Stream(seed, game_index, STREAM_SETUP)
    setup.counter = max(n_landscapes - 1, 0)
    deck = list(range(n_commissions))
    setup.shuffle(deck)
    return deck


def check_orders(cards: CardSet, n_players: int, orders: SetupOrders) -> None:
    if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise RuleViolation(
            "R-COMP-5", f"{n_players} players; the game takes {MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    checks = [
        ("R-SET-1", "landscape", orders.landscapes, len(cards.landscapes)),
        ("R-SET-2", "commission", orders.commissions, len(cards.commissions)),
        ("R-SET-3", "goal", orders.goals, len(cards.goals)),
    ]
    if len(orders.plans) != n_players:
        raise RuleViolation("R-SET-4", f"{len(orders.plans)} plan decks for {n_players} players")
    checks += [
        ("R-SET-4", f"player {s} plan", deck, len(cards.plans))
        for s, deck in enumerate(orders.plans)
    ]
    for rule, what, order, size in checks:
        if sorted(order) != list(range(size)):
            raise RuleViolation(rule, f"the {what} deck order is not a shuffle of the {size} cards")


def new_game(
    cards: CardSet, tables: CardTables, rules: Rules, n_players: int, orders: SetupOrders
) -> GameState:
    """Deal a game from the given deck orders."""
    check_orders(cards, n_players, orders)
    if len(cards.plans) < rules.days + PLAN_HAND - 1:
        raise RuleViolation(
            "R-PLAN-3", f"{len(cards.plans)} plan cards cannot last {rules.days} days"
        )
    state = GameState(cards=cards, tables=tables, rules=rules, n_players=n_players)
    state.grid = list(orders.landscapes[:N_CELLS])  # R-SET-1, reading order
    state.grid += [EMPTY] * (N_CELLS - len(state.grid))
    state.landscape_deck = list(orders.landscapes[N_CELLS:])
    row_size = n_players + 1  # R-SET-2
    state.commission_row = list(orders.commissions[:row_size])
    rest = list(orders.commissions[row_size:])
    state.preview = rest.pop(0) if rest else -1
    state.commission_deck = rest
    state.goal_deck = list(orders.goals)  # R-SET-3
    state.goal = state.goal_deck.pop(0) if state.goal_deck else -1
    state.players = [  # R-SET-4, R-SET-5
        PlayerState(seat=s, position=CENTRE_CELL, plan_deck=list(orders.plans[s]))
        for s in range(n_players)
    ]
    return state
