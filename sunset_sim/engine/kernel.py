"""The numba game kernel: one whole game over flat integer arrays, many games in parallel.

It plays exactly the game the reference engine (``sunset_sim.rules``) plays for the same
(seed, game index, strategies, cards, rules): the same canonical option orders, the same
random draws from the same counter-based streams, the same observation layout. The
public part of the state *is* the observation array (``observation.py``): the grid,
artists, commission row and card places live there and are updated in place; hidden
parts (deck orders, plan decks, hands) live in separate arrays.

Rule IDs in comments point at docs/rules.md; tests/test_parity.py holds both engines to the
same games.

Speed (measured with perf; keep it in mind when editing):

- A call that is not inlined passes every array as a 7-word struct (``tables`` alone is
  ~20 of them) and, in a reference-counted function, increments and decrements each one
  atomically. So the option searches and turn helpers are ``inline="always"``, tiny
  helpers are left to LLVM (``_nrt=False``, and inline="always" on them would multiply
  compile time), and ``play_game`` first ``borrowed()`` its arrays, which makes numba's
  reference counting on them a no-op.
- Searches run on bitmasks: other artists' cells (``others_at``), the frames a painting
  fits (``tables.land_frames``) and, in the sale search, hand positions per frame and per
  feature kind. Grid steps are one lookup in ``NEXT_CELL``.
- Strategies are not compiled in: each decision calls the seat's adapter through its
  machine-code address with four integers (``decide`` below; ``decisions.py`` has the
  designs measured), so this module compiles once for every line-up and a strategy once
  for every line-up it sits in. The strategy sees the arrays of one context tuple built
  per game.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sunset_sim.engine.decisions import address_of, call_strategy, context_type
from sunset_sim.engine.goals import meets_goal
from sunset_sim.engine.hike import legal_hikes, others_at
from sunset_sim.engine.invariants import check_day
from sunset_sim.engine.jit import jit
from sunset_sim.engine.paint import paint_options
from sunset_sim.engine.restricted import (
    BAN_ANY,
    N_PLAN_OPTIONS,
    allowed_paint_sets,
    allowed_plans,
    allowed_sales,
    ban_offsets,
)
from sunset_sim.engine.rng import rng_shuffle, stream_key
from sunset_sim.engine.sell import sale_options
from sunset_sim.engine.state import (
    S_COMMISSION_FAME,
    S_COMMISSIONS,
    S_FORCED_STAY,
    S_GOAL_FAME,
    S_GOALS,
    S_ICONS,
    S_PAINTED,
    S_SOLD,
    borrowed,
    mark_card,
    refresh_fame,
    show_private,
    trace_put,
    workspace_for,
)
from sunset_sim.enums import (
    C_DAY,
    C_SEAT,
    C_SHOWN,
    D_FAME,
    D_GOAL,
    D_PAINTED,
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    END_COMMISSION_SHORTAGE,
    END_SIX_DAYS,
    G_DAYS,
    G_END_REASON,
    G_VIOLATIONS,
    GOAL_FLAG_KEPT,
    GOAL_FLAG_MET,
    GOAL_FLAG_TOOK,
    GRID_SIZE,
    N_CELLS,
    PLACE_DISCARD,
    PLACE_GONE,
    PLACE_PREVIEW,
    PLACE_TABLE,
    PLAN_HAND,
    R_CARDS_PAINTED,
    R_COMMISSIONS_WON,
    R_FAME,
    R_FAME_COMMISSIONS,
    R_FAME_GOALS,
    R_FAME_PAINTINGS,
    R_GOALS_WON,
    R_PAINTINGS_SOLD,
    R_WINNERS,
    R_WON,
    STREAM_CHANCE,
    STREAM_SETUP,
    STREAM_STRATEGY,
    TIE_LOWEST_FAME,
    TIE_SEAT,
)
from sunset_sim.observation import (
    OBS_CARDS,
    OBS_COMM_DECK,
    OBS_COMM_PLACE,
    OBS_DAY,
    OBS_DAYS,
    OBS_DISCARD,
    OBS_DONE,
    OBS_FAME,
    OBS_GOAL,
    OBS_GOAL_HOLDER,
    OBS_GOAL_PLACE,
    OBS_GRID,
    OBS_HAND,
    OBS_LAND_DECK,
    OBS_LAND_PLACE,
    OBS_N_PLAYERS,
    OBS_ORDER,
    OBS_PLAN,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_WIDTH,
)

CENTRE = 2 * GRID_SIZE + 2  # R-SET-5
CONTEXT = context_type()  # what every decision hands to the strategies (decisions.py)
# Decision kinds as int64 values rather than int literals: each strategy's decide then
# compiles once for all four kinds (and once more serves the reference engine) instead
# of once per kind, which cuts cold compile time; it branches on ``kind`` at run time.
KIND_PLAN = np.int64(DECIDE_PLAN)
KIND_HIKE = np.int64(DECIDE_HIKE)
KIND_PAINT = np.int64(DECIDE_PAINT)
KIND_SALE = np.int64(DECIDE_SALE)


@jit(inline="always")
def decide(strategy_functions, strategy_id, kind, n_options, seat, context):
    """The chosen option's index. A forced choice (one option) is not put to the
    strategy, in either engine, so it draws no random numbers for it."""
    if n_options == 1:
        return 0
    choice = call_strategy(strategy_functions[strategy_id], kind, n_options, seat, context)
    if choice < 0 or choice >= n_options:
        raise ValueError("a strategy chose an option that is not on the list")
    return choice


@jit
def play_game(
    seed,
    game_index,
    n_players,
    strategy_functions,
    strategy_ids,
    params,
    banned,
    tables,
    tie_break,
    days,
    seat_out,
    game_out,
    plan_out,
    position_out,
    painted_out,
    day_out,
    commission_out,
    goal_out,
    available_out,
    trace,
    work,
    check,
):
    """One whole game (R-SET .. R-END); results into this game's rows of the outputs.

    ``work`` (new_workspace) holds every array the game needs, reset here, so that a
    thread plays game after game without allocating. With ``check`` set, the invariants
    of engine/invariants.py are checked at the end of every day's hike phase."""
    # The caller holds every array for the whole game: no reference counting in here.
    tables = borrowed(tables)
    work = borrowed(work)
    params = borrowed(params)
    strategy_ids = borrowed(strategy_ids)
    strategy_functions = borrowed(strategy_functions)
    banned = borrowed(banned)
    n_land = tables.land_icons.shape[0]
    n_comm = tables.comm_fame.shape[0]
    n_goal = tables.goal_kind.shape[0]
    n_plan = tables.plan_wake.shape[0]
    ban_mask = game_index % banned.shape[0]
    plan_column, land_column, comm_column = ban_offsets(n_plan, n_land)
    obs, setup, chance, streams = work.obs, work.setup, work.chance, work.streams
    land_deck, comm_deck, goal_deck, discard = (
        work.land_deck,
        work.comm_deck,
        work.goal_deck,
        work.discard,
    )
    plan_ring, plan_head, plan_count = work.plan_ring, work.plan_head, work.plan_count
    hands, n_hand, sums, options, scratch = (
        work.hands,
        work.n_hand,
        work.sums,
        work.options,
        work.scratch,
    )
    drawn, kept, order, keys, permutation = (
        work.drawn,
        work.kept,
        work.order,
        work.keys,
        work.permutation,
    )
    # The one tuple every decision hands to the strategies (engine/decisions.py).
    context = address_of((obs, options, params, streams, tables), CONTEXT)
    obs[:] = -1  # -1 is PLACE_HIDDEN: every card starts in a deck
    land_place = OBS_CARDS
    comm_place = land_place + n_land
    goal_place = comm_place + n_comm
    obs[OBS_LAND_PLACE] = land_place
    obs[OBS_COMM_PLACE] = comm_place
    obs[OBS_GOAL_PLACE] = goal_place
    obs[OBS_DAYS] = days
    obs[OBS_N_PLAYERS] = n_players

    setup[1] = 0
    chance[1] = 0
    setup[0] = stream_key(np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_SETUP))
    chance[0] = stream_key(np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_CHANCE))
    for seat in range(n_players):
        streams[seat, 1] = 0
        streams[seat, 0] = stream_key(
            np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_STRATEGY + seat)
        )

    # R-SET-1..4: shuffles in the reference order (rules/setup.py shuffled_orders)
    for i in range(n_land):
        land_deck[i] = i
    rng_shuffle(setup, land_deck, n_land)
    for i in range(n_comm):
        comm_deck[i] = i
    rng_shuffle(setup, comm_deck, n_comm)
    for i in range(n_goal):
        goal_deck[i] = i
    rng_shuffle(setup, goal_deck, n_goal)
    for seat in range(n_players):  # plan decks are ring buffers, top at plan_head
        plan_head[seat] = 0
        plan_count[seat] = n_plan
        for k in range(n_plan):
            plan_ring[seat, k] = k
        rng_shuffle(setup, plan_ring[seat], n_plan)
    if trace.shape[0] > 1:
        for i in range(n_land):
            trace_put(trace, land_deck[i])
        for i in range(n_comm):
            trace_put(trace, comm_deck[i])
        for i in range(n_goal):
            trace_put(trace, goal_deck[i])
        for seat in range(n_players):
            for k in range(n_plan):
                trace_put(trace, plan_ring[seat, k])

    # R-SET-1: deal the wilderness
    land_head = 0
    for cell in range(N_CELLS):
        if land_head < n_land:
            obs[OBS_GRID + cell] = land_deck[land_head]
            obs[land_place + land_deck[land_head]] = PLACE_TABLE
            mark_card(available_out, land_deck[land_head])
            land_head += 1
    n_discard = 0
    # R-SET-2: commission row and preview
    comm_head = 0
    row_len = 0
    while comm_head < n_comm and row_len < n_players + 1:
        obs[OBS_ROW + row_len] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_TABLE
        commission_out[comm_deck[comm_head], C_SHOWN] = 1
        row_len += 1
        comm_head += 1
    obs[OBS_ROW_LEN] = row_len
    if comm_head < n_comm:
        obs[OBS_PREVIEW] = comm_deck[comm_head]
        obs[comm_place + comm_deck[comm_head]] = PLACE_PREVIEW
        comm_head += 1
    # R-SET-3: today's goal
    goal_head = 0
    goal = -1
    if n_goal > 0:
        goal = goal_deck[0]
        goal_head = 1
        obs[goal_place + goal] = PLACE_TABLE
    goal_holder = -1
    # R-SET-5: artists on the centre
    for seat in range(n_players):
        obs[OBS_POS + seat] = CENTRE
    hands[:] = -1  # unsold paintings, in the order taken
    n_hand[:] = 0
    sums[:] = 0
    for seat in range(n_players):
        refresh_fame(obs, sums, seat)
    n_days_played = 0
    end_reason = END_SIX_DAYS

    for day in range(1, days + 1):
        n_days_played = day
        trace_put(trace, day)
        obs[OBS_DAY] = day
        obs[OBS_GOAL] = goal
        obs[OBS_GOAL_HOLDER] = -1
        goal_out[day - 1] = goal
        for seat in range(n_players):
            day_out[seat, day - 1, D_PAINTED] = 0
            day_out[seat, day - 1, D_GOAL] = 0
        obs[OBS_LAND_DECK] = n_land - land_head
        obs[OBS_DISCARD] = n_discard
        obs[OBS_COMM_DECK] = n_comm - comm_head
        for seat in range(n_players):
            obs[OBS_PLAN + seat] = -1
            obs[OBS_ORDER + seat] = -1
            obs[OBS_DONE + seat] = -1
        # Phase 1, plan (R-PLAN-1..3): all draw, all choose unseen, then reveal
        for seat in range(n_players):
            for k in range(PLAN_HAND):
                drawn[seat, k] = plan_ring[seat, (plan_head[seat] + k) % n_plan]
            plan_head[seat] = (plan_head[seat] + PLAN_HAND) % n_plan
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
            choice = decide(
                strategy_functions,
                strategy_ids[seat],
                KIND_PLAN,
                n_options,
                seat,
                context,
            )
            kept[seat] = options[choice, 0]
        for k in range(PLAN_HAND):
            obs[OBS_HAND + k] = -1
        for seat in range(n_players):  # the other two to the bottom, in drawn order
            for k in range(PLAN_HAND):
                if drawn[seat, k] != kept[seat]:
                    tail = (plan_head[seat] + plan_count[seat]) % n_plan
                    plan_ring[seat, tail] = drawn[seat, k]
                    plan_count[seat] += 1
            if trace.shape[0] > 1:
                for k in range(PLAN_HAND):
                    trace_put(trace, drawn[seat, k])
                trace_put(trace, kept[seat])
        # R-ORD-1/2: wake-up time, then the tie-break
        for seat in range(n_players):
            permutation[seat] = seat
        if tie_break != TIE_SEAT:
            rng_shuffle(chance, permutation, n_players)
        for position in range(n_players):
            seat = permutation[position]
            keys[seat, 0] = tables.plan_wake[kept[seat]]
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

        # Phase 2, hike: one player at a time
        for position in range(n_players):
            seat = order[position]
            plan = kept[seat]
            start = obs[OBS_POS + seat]
            # hike (R-HIKE-1..6)
            show_private(obs, seat, hands, n_hand[seat], position)
            occupied = others_at(obs, n_players, seat)
            n_options = legal_hikes(
                obs, occupied, start, tables.plan_directions[plan], tables.plan_hike[plan], options
            )
            sums[seat, S_FORCED_STAY] = (
                1 if n_options == 1 and options[0, 1] == 0 and (occupied >> start) & 1 else 0
            )
            choice = decide(
                strategy_functions,
                strategy_ids[seat],
                KIND_HIKE,
                np.int64(n_options),
                seat,
                context,
            )
            direction = options[choice, 0]
            steps = options[choice, 1]
            obs[OBS_POS + seat] = options[choice, 2]
            trace_put(trace, seat)
            trace_put(trace, direction)
            trace_put(trace, steps)
            # paint (R-PAINT-1..3)
            n_options = paint_options(
                obs,
                occupied,
                start,
                direction,
                steps,
                tables.plan_paint[plan],
                options,
                scratch,
            )
            if banned[ban_mask, seat, BAN_ANY]:
                n_options = allowed_paint_sets(
                    obs, options, n_options, banned, ban_mask, seat, land_column
                )
            choice = decide(
                strategy_functions,
                strategy_ids[seat],
                KIND_PAINT,
                np.int64(n_options),
                seat,
                context,
            )
            n_painted = 0
            for column in range(OPTION_WIDTH):
                if options[choice, column] >= 0:
                    n_painted += 1
            trace_put(trace, n_painted)
            for column in range(n_painted):
                cell = options[choice, column]
                card = obs[OBS_GRID + cell]
                trace_put(trace, cell)
                trace_put(trace, card)
                obs[OBS_GRID + cell] = -1  # R-PAINT-3: empty until clean-up
                obs[land_place + card] = seat
                hands[seat, n_hand[seat]] = card
                n_hand[seat] += 1
                sums[seat, S_ICONS] += tables.land_icons[card]
                sums[seat, S_PAINTED] += 1
                mark_card(painted_out[seat], card)
                day_out[seat, day - 1, D_PAINTED] += 1
            refresh_fame(obs, sums, seat)
            # sell (R-SELL-1..4), one commission at a time
            n_sold = 0
            while True:
                show_private(obs, seat, hands, n_hand[seat], position)
                rows = options
                rows_context = context
                n_options = sale_options(obs, tables, hands, seat, n_hand[seat], rows)
                if n_options > options.shape[0]:
                    # More sales than the buffer holds (a permissive card set, a long
                    # game): a buffer of this decision's own, so that every legal sale
                    # is offered (R-SELL-1), as the reference engine offers them.
                    rows = np.empty((n_options, OPTION_WIDTH), dtype=np.int32)
                    sale_options(obs, tables, hands, seat, n_hand[seat], rows)
                    rows_context = address_of((obs, rows, params, streams, tables), CONTEXT)
                if banned[ban_mask, seat, BAN_ANY]:
                    n_options = allowed_sales(rows, n_options, banned, ban_mask, seat, comm_column)
                choice = decide(
                    strategy_functions,
                    strategy_ids[seat],
                    KIND_SALE,
                    np.int64(n_options),
                    seat,
                    rows_context,
                )
                if choice == 0:
                    break
                commission = rows[choice, 0]
                n_frames = tables.comm_n_frames[commission]
                trace_put(trace, commission)
                for f in range(n_frames):
                    card = rows[choice, 1 + f]
                    trace_put(trace, card)
                    for i in range(n_hand[seat]):  # remove, keeping the order taken
                        if hands[seat, i] == card:
                            for j in range(i, n_hand[seat] - 1):
                                hands[seat, j] = hands[seat, j + 1]
                            n_hand[seat] -= 1
                            hands[seat, n_hand[seat]] = -1
                            break
                    discard[n_discard] = card
                    n_discard += 1
                    obs[land_place + card] = PLACE_DISCARD
                    sums[seat, S_ICONS] -= tables.land_icons[card]
                    sums[seat, S_SOLD] += 1
                for slot in range(row_len):  # R-SELL-4: leaves a gap until clean-up
                    if obs[OBS_ROW + slot] == commission:
                        for j in range(slot, row_len - 1):
                            obs[OBS_ROW + j] = obs[OBS_ROW + j + 1]
                        row_len -= 1
                        obs[OBS_ROW + row_len] = -1
                        break
                obs[OBS_ROW_LEN] = row_len
                obs[comm_place + commission] = seat
                sums[seat, S_COMMISSION_FAME] += tables.comm_fame[commission]
                sums[seat, S_COMMISSIONS] += 1
                commission_out[commission, C_SEAT] = seat
                commission_out[commission, C_DAY] = day
                refresh_fame(obs, sums, seat)
                obs[OBS_DISCARD] = n_discard
                n_sold += 1
            trace_put(trace, -1)
            # daily goal (R-GOAL-1..3)
            took = False
            if goal >= 0 and meets_goal(
                obs,
                tables,
                goal,
                seat,
                direction,
                steps,
                n_painted,
                n_sold,
                hands,
                n_hand[seat],
            ):
                day_out[seat, day - 1, D_GOAL] |= GOAL_FLAG_MET | (
                    GOAL_FLAG_TOOK if goal_holder >= 0 else 0
                )
                goal_holder = seat
                obs[OBS_GOAL_HOLDER] = seat
                obs[goal_place + goal] = seat
                took = True
            trace_put(trace, 1 if took else 0)
            obs[OBS_DONE + seat] = 1
        # R-GOAL-2: the holder at the end of the hike phase keeps it
        if goal >= 0 and goal_holder >= 0:
            sums[goal_holder, S_GOAL_FAME] += tables.goal_fame[goal]
            sums[goal_holder, S_GOALS] += 1
            refresh_fame(obs, sums, goal_holder)
            day_out[goal_holder, day - 1, D_GOAL] |= GOAL_FLAG_KEPT
        for seat in range(n_players):
            day_out[seat, day - 1, D_FAME] = obs[OBS_FAME + seat]
        trace_put(trace, goal_holder if goal >= 0 else -1)
        if check:
            game_out[G_VIOLATIONS] |= check_day(
                obs,
                tables,
                n_players,
                day,
                land_deck,
                land_head,
                discard,
                n_discard,
                comm_deck,
                comm_head,
                goal_deck,
                goal_head,
                hands,
                n_hand,
                plan_count,
                sums[:, S_FORCED_STAY],
            )
        if day == days:  # R-CLEAN-1
            end_reason = END_SIX_DAYS
            break
        # Phase 3, clean-up. R-CLEAN-2: refill in reading order, reshuffle only when needed
        for cell in range(N_CELLS):
            if obs[OBS_GRID + cell] >= 0:
                continue
            if land_head >= n_land:
                if n_discard == 0:
                    break
                rng_shuffle(chance, discard, n_discard)  # the discard pile becomes the deck
                land_head = n_land - n_discard
                trace_put(trace, n_discard)
                for i in range(n_discard):
                    land_deck[land_head + i] = discard[i]
                    obs[land_place + discard[i]] = -1
                    trace_put(trace, discard[i])
                n_discard = 0
            card = land_deck[land_head]
            land_head += 1
            obs[OBS_GRID + cell] = card
            obs[land_place + card] = PLACE_TABLE
            mark_card(available_out, card)
        trace_put(trace, -1)
        # R-CLEAN-3: next goal
        if goal >= 0 and goal_holder < 0:
            obs[goal_place + goal] = PLACE_GONE
        goal = -1
        goal_holder = -1
        if goal_head < n_goal:
            goal = goal_deck[goal_head]
            goal_head += 1
            obs[goal_place + goal] = PLACE_TABLE
        # R-CLEAN-4/5: preview into the row, refill to players+1, new preview
        if obs[OBS_PREVIEW] >= 0:
            obs[OBS_ROW + row_len] = obs[OBS_PREVIEW]
            obs[comm_place + obs[OBS_PREVIEW]] = PLACE_TABLE
            commission_out[obs[OBS_PREVIEW], C_SHOWN] = day + 1
            row_len += 1
            obs[OBS_PREVIEW] = -1
        short = False
        while row_len < n_players + 1:
            if comm_head >= n_comm:
                short = True
                break
            obs[OBS_ROW + row_len] = comm_deck[comm_head]
            obs[comm_place + comm_deck[comm_head]] = PLACE_TABLE
            commission_out[comm_deck[comm_head], C_SHOWN] = day + 1
            row_len += 1
            comm_head += 1
        obs[OBS_ROW_LEN] = row_len
        if short:
            end_reason = END_COMMISSION_SHORTAGE
            break
        if comm_head < n_comm:
            obs[OBS_PREVIEW] = comm_deck[comm_head]
            obs[comm_place + comm_deck[comm_head]] = PLACE_PREVIEW
            comm_head += 1

    # R-END-2/3: fame and the (shared) win
    trace_put(trace, -2)
    best = -1
    for seat in range(n_players):
        fame = sums[seat, S_COMMISSION_FAME] + sums[seat, S_GOAL_FAME] + sums[seat, S_ICONS] // 2
        seat_out[seat, R_FAME] = fame
        seat_out[seat, R_FAME_COMMISSIONS] = sums[seat, S_COMMISSION_FAME]
        seat_out[seat, R_FAME_GOALS] = sums[seat, S_GOAL_FAME]
        seat_out[seat, R_FAME_PAINTINGS] = sums[seat, S_ICONS] // 2
        seat_out[seat, R_COMMISSIONS_WON] = sums[seat, S_COMMISSIONS]
        seat_out[seat, R_GOALS_WON] = sums[seat, S_GOALS]
        seat_out[seat, R_PAINTINGS_SOLD] = sums[seat, S_SOLD]
        seat_out[seat, R_CARDS_PAINTED] = sums[seat, S_PAINTED]
        if fame > best:
            best = fame
    n_winners = 0
    for seat in range(n_players):
        if seat_out[seat, R_FAME] == best:
            n_winners += 1
    for seat in range(n_players):
        seat_out[seat, R_WINNERS] = n_winners
        seat_out[seat, R_WON] = 1 if seat_out[seat, R_FAME] == best else 0
        trace_put(trace, seat_out[seat, R_FAME])
    game_out[G_END_REASON] = end_reason
    game_out[G_DAYS] = n_days_played
    trace_put(trace, end_reason)
    trace_put(trace, n_days_played)


@jit(parallel=True)
def play_games(
    seed,
    first_game,
    n_games,
    n_players,
    strategy_functions,
    strategy_ids,
    params,
    banned,
    tables,
    tie_break,
    days,
    seat_out,
    game_out,
    plan_out,
    position_out,
    painted_out,
    day_out,
    commission_out,
    goal_out,
    available_out,
    n_blocks,
    check,
):
    """Games first_game .. first_game+n_games-1 in parallel; row g holds game first_game+g.

    Each thread takes a contiguous block of games and one workspace; every game depends
    only on its own index, so the split never changes a result."""
    for block in prange(n_blocks):
        no_trace = np.zeros(1, dtype=np.int32)
        work = workspace_for(n_players, tables)
        for g in range(block * n_games // n_blocks, (block + 1) * n_games // n_blocks):
            play_game(
                seed,
                first_game + g,
                n_players,
                strategy_functions,
                strategy_ids,
                params,
                banned,
                tables,
                tie_break,
                days,
                seat_out[g],
                game_out[g],
                plan_out[g],
                position_out[g],
                painted_out[g],
                day_out[g],
                commission_out[g],
                goal_out[g],
                available_out[g],
                no_trace,
                work,
                check,
            )
