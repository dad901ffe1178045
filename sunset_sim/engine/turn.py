"""Phase 2 in the fast engine, one seat's turn, as ``rules/game.py take_turn`` plays it:
hike (R-HIKE-1..6), paint (R-PAINT-1..3), sell one commission at a time (R-SELL-1..4),
then the daily goal (R-GOAL-1..3)."""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.ask import KIND_HIKE, KIND_PAINT, KIND_SALE, decide
from sunset_sim.engine.decisions import address_of, context_type
from sunset_sim.engine.goals import meets_goal
from sunset_sim.engine.hike import legal_hikes, others_at
from sunset_sim.engine.jit import jit
from sunset_sim.engine.paint import paint_options, take_paintings
from sunset_sim.engine.restricted import BAN_ANY, allowed_paint_sets, allowed_sales
from sunset_sim.engine.sell import make_sale, sale_options
from sunset_sim.engine.state import S_FORCED_STAY, show_private, trace_put
from sunset_sim.enums import D_GOAL, GOAL_FLAG_MET, GOAL_FLAG_TOOK
from sunset_sim.observation import OBS_DONE, OBS_GOAL_HOLDER, OBS_POS, OPTION_WIDTH

CONTEXT = context_type()  # what every decision hands to the strategies (decisions.py)


@jit
def long_list_sale(
    obs, tables, hands, seat, n_hand, n_options, options, params, streams, strategy_functions,
    strategy_id, banned, ban_mask, comm_column, commission_out,
):  # fmt: skip
    """A sale decision with more sales than the option buffer holds (a permissive card
    set, a long game): every legal sale is offered (R-SELL-1), as the reference engine
    offers them, from a list of this decision's own. The chosen sale is copied to row 1
    of ``options`` (returns 1), or 0 for "stop". Kept out of ``take_turn``: an array
    allocated there made numba count references on the option buffer at every sale."""
    rows = np.empty((n_options, OPTION_WIDTH), dtype=np.int32)
    sale_options(obs, tables, hands, seat, n_hand, rows, commission_out)
    if banned[ban_mask, seat, BAN_ANY]:
        n_options = allowed_sales(rows, n_options, banned, ban_mask, seat, comm_column)
    rows_context = address_of((obs, rows, params, streams, tables), CONTEXT)
    choice = decide(
        strategy_functions, strategy_id, KIND_SALE, np.int64(n_options), seat, rows_context
    )
    if choice == 0:
        return 0
    options[1, :] = rows[choice, :]
    return 1


@jit(inline="always")
def take_turn(
    obs, tables, work, params, seat, position, n_players, plan, goal, goal_holder,
    goal_place, n_discard, row_len, land_place, comm_place, banned, ban_mask, land_column,
    comm_column, strategy_functions, strategy_ids, context, day, painted_out, day_out,
    commission_out, trace,
):  # fmt: skip
    """One seat's whole turn. Returns (n_discard, row_len, goal_holder)."""
    options, hands, n_hand, sums = work.options, work.hands, work.n_hand, work.sums
    strategy_id = strategy_ids[seat]
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
    choice = decide(strategy_functions, strategy_id, KIND_HIKE, np.int64(n_options), seat, context)
    direction = options[choice, 0]
    steps = options[choice, 1]
    obs[OBS_POS + seat] = options[choice, 2]
    trace_put(trace, seat)
    trace_put(trace, direction)
    trace_put(trace, steps)
    # paint (R-PAINT-1..3)
    n_options = paint_options(
        obs, occupied, start, direction, steps, tables.plan_paint[plan], options, work.scratch
    )
    if banned[ban_mask, seat, BAN_ANY]:
        n_options = allowed_paint_sets(obs, options, n_options, banned, ban_mask, seat, land_column)
    choice = decide(strategy_functions, strategy_id, KIND_PAINT, np.int64(n_options), seat, context)
    n_painted = take_paintings(
        obs, options, choice, seat, hands, n_hand, sums, tables.land_icons, land_place,
        painted_out, day_out, day, trace,
    )  # fmt: skip
    # sell (R-SELL-1..4), one commission at a time
    n_sold = 0
    while True:
        show_private(obs, seat, hands, n_hand[seat], position)
        n_options = sale_options(obs, tables, hands, seat, n_hand[seat], options, commission_out)
        if n_options > options.shape[0]:
            choice = long_list_sale(
                obs, tables, hands, seat, n_hand[seat], n_options, options, params,
                work.streams, strategy_functions, strategy_id, banned, ban_mask, comm_column,
                commission_out,
            )  # fmt: skip
        else:
            if banned[ban_mask, seat, BAN_ANY]:
                n_options = allowed_sales(options, n_options, banned, ban_mask, seat, comm_column)
            choice = decide(
                strategy_functions, strategy_id, KIND_SALE, np.int64(n_options), seat, context
            )
        if choice == 0:
            break
        n_discard, row_len = make_sale(
            obs, options, choice, seat, hands, n_hand, sums, work.discard, n_discard, row_len,
            tables.comm_fame, tables.comm_n_frames, tables.land_icons, land_place, comm_place,
            commission_out, day, trace,
        )  # fmt: skip
        n_sold += 1
    trace_put(trace, -1)
    # daily goal (R-GOAL-1..3)
    took = False
    if goal >= 0 and meets_goal(
        obs, tables, goal, seat, direction, steps, n_painted, n_sold, hands, n_hand[seat]
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
    return n_discard, row_len, goal_holder
