"""lookahead's plan decision (R-PLAN-2): Monte Carlo over the other players' hidden plan
cards and the order of equal wake-up times, each sample's day played out for each of my
three cards (``lookahead``'s docstring has the whole method). Not a strategy."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._lookahead_parameters import (
    GOAL,
    MARGIN,
    MIN_SAMPLES,
    MOBILITY,
    NOISE,
    OPP_LATENESS,
    RIVALRY,
    SAMPLES,
    SPEND,
)
from sunset_sim.strategies._public_values import (
    grid_present,
    mobility_of,
    perturb,
    pos_copy,
)
from sunset_sim.strategies._rollout import (
    MEMO_SLOTS,
    memo_clear,
    plan_totals,
    play_out,
    rollout_score,
)
from sunset_sim.strategies._style_tools import (
    BIG,
    all_features,
    argmax,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    MAX_PLAYERS,
    N_CELLS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_DAY,
    OBS_DAYS,
    OBS_GOAL,
    OBS_ME,
    OBS_N_PLAYERS,
)
from sunset_sim.strategy_tools import (
    rng_below,
    stack_empty,
)

SEAT_CELLS = MAX_PLAYERS * N_CELLS  # a value per seat and cell
STACK_PLANS = 32  # choose_plan: per-plan-card buffers on the stack up to this many cards
PREFERENCE_SLOTS = MAX_PLAYERS * STACK_PLANS


@jit(_nrt=False, wraparound=False)
def position_weight(obs, params):
    """MOBILITY, or 0 on the last day (no hike tomorrow)."""
    return params[MOBILITY] if obs[OBS_DAY] < obs[OBS_DAYS] else 0.0


@jit(inline="always")
def goal_state(obs, tables, params):
    """(kind, param, value) of today's goal, kind -1 when there is none or it is out of
    reach (a goal already kept stays with its holder only until someone else meets it)."""
    goal = obs[OBS_GOAL]
    if goal < 0:
        return -1, 0, 0.0
    return tables.goal_kind[goal], tables.goal_param[goal], params[GOAL] * tables.goal_fame[goal]


@jit(_nrt=False, wraparound=False)
def clear_lead(score, price, n_options, n_samples, margin):
    """Whether the best card's mean score so far (less its price) leads every other card's
    by at least ``margin``: the remaining samples would hardly change the choice."""
    best = -BIG
    second = -BIG
    for index in range(n_options):
        value = score[index] / n_samples - price[index]
        if value > best:
            second = best
            best = value
        elif value > second:
            second = value
    return best - second >= margin


@jit
def choose_plan(obs, options, n_options, params, rng, tables, held, features, cell_features, base):
    """The plan card with the best mean rollout score; ``base`` holds each seat's card
    values (seat_values). The per-plan-card buffers live on the stack (three heap arrays
    and their frees were a tenth of a plan decision) unless the card set is very large."""
    n_plans = tables.plan_wake.shape[0]
    if n_plans <= STACK_PLANS:
        return plan_on_stack(
            obs, options, n_options, params, rng, tables, held, features, cell_features, base
        )
    return plan_choice(
        obs, options, n_options, params, rng, tables, held, features, cell_features, base,
        np.empty(MAX_PLAYERS * n_plans, np.float64), np.empty(n_plans, np.float64),
        np.empty(n_plans, np.int64),
    )  # fmt: skip


@jit(_nrt=False, wraparound=False)
def plan_on_stack(
    obs, options, n_options, params, rng, tables, held, features, cell_features, base
):
    """choose_plan with its buffers on the stack, without reference counting."""
    return plan_choice(
        obs, options, n_options, params, rng, tables, held, features, cell_features, base,
        stack_empty(PREFERENCE_SLOTS, np.float64), stack_empty(STACK_PLANS, np.float64),
        stack_empty(STACK_PLANS, np.int64),
    )  # fmt: skip


@jit(inline="always")
def plan_choice(
    obs, options, n_options, params, rng, tables, held, features, cell_features, base,
    preference, totals, deck,
):  # fmt: skip
    """choose_plan's work; ``preference`` (MAX_PLAYERS x the plan cards), ``totals`` and
    ``deck`` (one per plan card) are scratch."""
    me = obs[OBS_ME]
    n_players = obs[OBS_N_PLAYERS]
    samples = max(1, int(params[SAMPLES]))
    rivalry = params[RIVALRY]
    mobility = position_weight(obs, params)
    goal_kind, goal_param, goal_value = goal_state(obs, tables, params)
    full = all_features(tables)
    n_plans = tables.plan_wake.shape[0]
    earliest = tables.plan_wake[0]
    for plan in range(1, n_plans):  # (the array's min() needs reference counting)
        earliest = min(earliest, tables.plan_wake[plan])
    pos = stack_empty(MAX_PLAYERS, np.int64)
    # the opponents' model: how much each plan card would be worth to each of them now,
    # preference[seat * n_plans + plan]
    start_present = grid_present(obs)
    pos_copy(obs, n_players, pos)
    for seat in range(n_players):
        if seat == me:
            continue
        plan_totals(
            seat, n_players, start_present, pos, base[seat * N_CELLS : (seat + 1) * N_CELLS],
            tables.plan_directions, tables.plan_hike, tables.plan_paint, cell_features,
            goal_kind, goal_param, goal_value, held[seat], features[seat], full, totals,
        )  # fmt: skip
        for plan in range(n_plans):
            lateness = (tables.plan_wake[plan] - earliest) / 15.0
            preference[seat * n_plans + plan] = totals[plan] - params[OPP_LATENESS] * lateness
    hand_size = min(PLAN_HAND, n_plans)
    plans = stack_empty(MAX_PLAYERS, np.int64)
    rank = stack_empty(MAX_PLAYERS, np.int64)
    values = stack_empty(SEAT_CELLS, np.float64)
    gains = stack_empty(MAX_PLAYERS, np.float64)
    score = stack_empty(PLAN_HAND, np.float64)
    others = stack_empty(MAX_PLAYERS, np.int64)  # the other seats in turn order
    rest = stack_empty(MAX_PLAYERS, np.int64)  # me, then the others after me
    rank_of = stack_empty(MAX_PLAYERS, np.int64)
    position_of = stack_empty(PLAN_HAND, np.int64)  # per card: the others before me
    by_position = stack_empty(PLAN_HAND, np.int64)
    shared_pos = stack_empty(MAX_PLAYERS, np.int64)
    shared_gains = stack_empty(MAX_PLAYERS, np.float64)
    memo = stack_empty(MEMO_SLOTS, np.int64)  # play_out's turns, reused across my cards
    memo_value = stack_empty(MAX_PLAYERS, np.float64)
    for seat in range(MAX_PLAYERS):
        plans[seat] = 0
    for index in range(n_options):
        score[index] = 0.0
    days = obs[OBS_DAYS]
    ahead = (days - obs[OBS_DAY]) / max(days - 1, 1)  # share of the game still to come
    price = stack_empty(PLAN_HAND, np.float64)  # for spending a late card early
    for index in range(n_options):
        lateness = (tables.plan_wake[options[index, 0]] - earliest) / 15.0
        price[index] = params[SPEND] * ahead * lateness
    margin = params[MARGIN]
    done_samples = 0
    for _ in range(samples):
        if margin > 0.0 and done_samples >= MIN_SAMPLES and n_options > 1:
            if clear_lead(score, price, n_options, done_samples, margin):
                break
        done_samples += 1
        for seat in range(n_players):  # each opponent's hand, and the card it keeps
            if seat == me:
                continue
            for plan in range(n_plans):
                deck[plan] = plan
            best = -BIG
            for k in range(hand_size):  # a partial Fisher-Yates draw of the hand
                j = k + rng_below(rng, n_plans - k)
                deck[k], deck[j] = deck[j], deck[k]
                if preference[seat * n_plans + deck[k]] > best:
                    best = preference[seat * n_plans + deck[k]]
                    plans[seat] = deck[k]
        for seat in range(n_players):  # a random order among equal wake-up times
            rank[seat] = seat
        for k in range(n_players - 1, 0, -1):
            j = rng_below(rng, k + 1)
            rank[k], rank[j] = rank[j], rank[k]
        perturb(values, base, me, n_players, (1 << n_players) - 1, params[NOISE], rng)
        # R-ORD-1: by wake-up time, then the draw. The others' order is the same whatever
        # my card; the turns before mine are played once and shared by the cards that
        # leave them before mine (the same moves: they do not depend on my card).
        n_others = 0
        for position in range(n_players):
            rank_of[rank[position]] = position
            if rank[position] != me:
                others[n_others] = rank[position]
                n_others += 1
        for i in range(1, n_others):
            j = i
            while (
                j > 0
                and tables.plan_wake[plans[others[j - 1]]] > tables.plan_wake[plans[others[j]]]
            ):
                others[j - 1], others[j] = others[j], others[j - 1]
                j -= 1
        for index in range(n_options):
            wake = tables.plan_wake[options[index, 0]]
            before = 0
            for i in range(n_others):
                other_wake = tables.plan_wake[plans[others[i]]]
                if other_wake < wake or (other_wake == wake and rank_of[others[i]] < rank_of[me]):
                    before += 1
            position_of[index] = before
            by_position[index] = index
        for i in range(1, n_options):
            j = i
            while j > 0 and position_of[by_position[j - 1]] > position_of[by_position[j]]:
                by_position[j - 1], by_position[j] = by_position[j], by_position[j - 1]
                j -= 1
        shared_present = start_present
        pos_copy(obs, n_players, shared_pos)
        memo_clear(memo)  # (new plan cards and values for the others)
        for seat in range(MAX_PLAYERS):
            shared_gains[seat] = 0.0
        shared_holder = -1
        done = 0
        for t in range(n_options):
            index = by_position[t]
            mine = position_of[index]
            shared_holder, shared_present = play_out(
                others, done, mine, n_players, plans, shared_present, shared_pos, values,
                tables.plan_directions, tables.plan_hike, tables.plan_paint, cell_features,
                goal_kind, goal_param, goal_value, held, features, full, shared_gains,
                shared_holder, memo, memo_value,
            )  # fmt: skip
            done = mine
            plans[me] = options[index, 0]
            for seat in range(MAX_PLAYERS):
                pos[seat] = shared_pos[seat]
                gains[seat] = shared_gains[seat]
            rest[0] = me
            for i in range(mine, n_others):
                rest[1 + i - mine] = others[i]
            holder, _ = play_out(
                rest, 0, 1 + n_others - mine, n_players, plans, shared_present, pos, values,
                tables.plan_directions, tables.plan_hike, tables.plan_paint, cell_features,
                goal_kind, goal_param, goal_value, held, features, full, gains, shared_holder,
                memo, memo_value,
            )  # fmt: skip
            score[index] += rollout_score(gains, holder, goal_value, me, n_players, rivalry)
            if mobility != 0.0:
                score[index] += mobility * mobility_of(tables, pos[me])
    for index in range(n_options):
        score[index] = score[index] / done_samples - price[index]
    return argmax(score, n_options)
