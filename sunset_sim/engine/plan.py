"""Phase 1 in the fast engine, plan (R-PLAN-1..3), and the turn order it gives
(R-ORD-1/2), as ``rules/plan.py`` and ``rules/game.py`` do."""

from __future__ import annotations

from sunset_sim.engine.ask import KIND_PLAN, decide
from sunset_sim.engine.jit import jit
from sunset_sim.engine.restricted import BAN_ANY, N_PLAN_OPTIONS, allowed_plans
from sunset_sim.engine.rng import rng_shuffle
from sunset_sim.engine.state import show_private, trace_put
from sunset_sim.enums import PLAN_HAND, TIE_LOWEST_FAME, TIE_SEAT
from sunset_sim.observation import (
    OBS_DONE,
    OBS_FAME,
    OBS_HAND,
    OBS_ORDER,
    OBS_PLAN,
    OPTION_WIDTH,
)


@jit(inline="always")
def ring_index(position, n_plan):
    """position % n_plan for 0 <= position < 2 * n_plan (a head plus at most a hand or
    a deck; ``batch.check_tables`` refuses fewer plan cards than a hand): a subtraction
    where ``%`` was a division, six per seat and day. scripts/ab_bench.py, 7 rounds of
    30,000 games, twice: random 1.016 and 1.013 of its speed, greedy 1.002."""
    return position - n_plan if position >= n_plan else position


@jit(inline="always")
def choose_plans(
    obs, options, drawn, kept, plan_ring, plan_head, plan_count, hands, n_hand, n_players,
    banned, ban_mask, plan_column, strategy_functions, strategy_ids, context, trace,
):  # fmt: skip
    """R-PLAN-1..3: every seat draws three, all choose unseen (each sees only its own
    hand), the other two go to the bottom of the deck in drawn order."""
    n_plan = plan_ring.shape[1]
    for seat in range(n_players):
        for k in range(PLAN_HAND):
            drawn[seat, k] = plan_ring[seat, ring_index(plan_head[seat] + k, n_plan)]
        plan_head[seat] = ring_index(plan_head[seat] + PLAN_HAND, n_plan)
        plan_count[seat] -= PLAN_HAND
    for seat in range(n_players):
        show_private(obs, seat, hands, n_hand[seat], -1)
        for k in range(PLAN_HAND):
            obs[OBS_HAND + k] = drawn[seat, k]
            options[k, 0] = drawn[seat, k]
            for column in range(1, OPTION_WIDTH):
                options[k, column] = -1
        n_options = N_PLAN_OPTIONS
        if banned[ban_mask, seat, BAN_ANY]:
            n_options = allowed_plans(
                obs, options, drawn[seat], banned, ban_mask, seat, plan_column
            )
        choice = decide(strategy_functions, strategy_ids[seat], KIND_PLAN, n_options, seat, context)
        kept[seat] = options[choice, 0]
    for k in range(PLAN_HAND):
        obs[OBS_HAND + k] = -1
    for seat in range(n_players):  # the other two to the bottom, in drawn order
        for k in range(PLAN_HAND):
            if drawn[seat, k] != kept[seat]:
                tail = ring_index(plan_head[seat] + plan_count[seat], n_plan)
                plan_ring[seat, tail] = drawn[seat, k]
                plan_count[seat] += 1
        if trace.shape[0] > 1:
            for k in range(PLAN_HAND):
                trace_put(trace, drawn[seat, k])
            trace_put(trace, kept[seat])


@jit(inline="always")
def turn_order(
    obs, plan_wake, kept, chance, tie_break, permutation, keys, order, n_players, day,
    plan_out, position_out, trace,
):  # fmt: skip
    """R-ORD-1/2: by wake-up time, then the tie-break; the plan cards are revealed with
    the order. The day's shuffle is drawn under every tie-break, by seat too (where it
    decides nothing), so that the later draws are the same deal's (play.py's turn_order)."""
    for seat in range(n_players):
        permutation[seat] = seat
    rng_shuffle(chance, permutation, n_players)
    for position in range(n_players):
        seat = permutation[position]
        keys[seat, 0] = plan_wake[kept[seat]]
        keys[seat, 1] = obs[OBS_FAME + seat] if tie_break == TIE_LOWEST_FAME else 0
        keys[seat, 2] = seat if tie_break == TIE_SEAT else position
    for seat in range(n_players):
        order[seat] = seat
    for i in range(1, n_players):  # insertion sort on (wake, fame, rank)
        j = i
        while j > 0:
            a = order[j - 1]
            b = order[j]
            later = keys[a, 0] > keys[b, 0] or (
                keys[a, 0] == keys[b, 0]
                and (
                    keys[a, 1] > keys[b, 1]
                    or (keys[a, 1] == keys[b, 1] and keys[a, 2] > keys[b, 2])
                )
            )
            if not later:
                break
            order[j - 1] = b
            order[j] = a
            j -= 1
    for position in range(n_players):
        seat = order[position]
        obs[OBS_PLAN + seat] = kept[seat]
        obs[OBS_ORDER + position] = seat
        obs[OBS_DONE + seat] = 0
        plan_out[seat, day - 1] = kept[seat]
        position_out[seat, day - 1] = position
        trace_put(trace, seat)
