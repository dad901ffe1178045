"""The numba game kernel: one whole game over flat integer arrays, a block of games per thread.

It plays exactly the game the reference engine (``sunset_sim.rules``) plays for the same
(seed, game index, strategies, cards, rules): the same canonical option orders, the same
random draws from the same counter-based streams, the same observation layout. The
public part of the state *is* the observation array (``observation.py``): the grid,
artists, commission row and card places live there and are updated in place; hidden
parts (deck orders, plan decks, hands) live in separate arrays.

The phases live in modules that mirror ``rules/``: ``setup.py`` (R-SET), ``plan.py``
(R-PLAN, R-ORD), ``turn.py`` (one seat's turn: ``hike.py``, ``paint.py``, ``sell.py``,
``goals.py``), ``cleanup.py`` (R-CLEAN) and ``scoring.py`` (R-END), all inlined into
``play_game``; every decision goes through ``ask.decide``. This module keeps the game
loop and its few counters, and ``play_games``, a block of games on one thread
(``batch.run_games`` runs the blocks of a batch on several threads).

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
  machine-code address with four integers (``ask.decide``; ``decisions.py`` has the
  designs measured), so this module compiles once for every line-up and a strategy once
  for every line-up it sits in. The strategy sees the arrays of one context tuple built
  per game.
- Where the time goes (``scripts/profile_engine.py``, perf per compiled function; and
  timing each phase run twice in a scratch build): with random at every seat, the engine
  is nearly all of it, spread thin: the sale search 12%, the hike list 11%, the paint
  sets 7% (each run twice, scripts/ab_bench.py: random at 0.889, 0.902 and 0.937 of its
  speed, 2026-12-04), the set-up shuffles and the private view a few percent;
  with greedy, the engine is 40% and greedy's plan and hike scans 45% (2026-12-04).
  Running the sale search twice per call (2026-12-04, Intel Xeon) cost 3.8 us a game
  with greedy (17% of its 22.7 us) and 1.4 us with random (18%); a third of that for
  greedy, half for random, was the test of which row commissions the hand can fill at
  all, now one mask test per commission. Hikes read ``RAY_CELLS`` (one lookup per cell,
  none waiting on the step before), shuffles keep the stream counter in a register, and
  a sale list longer than the buffer is handled in a function of its own (an array
  allocated in the turn made numba count references on the option buffer at every sale).
- Data-dependent branches cost more than the work they skip: the legal hikes, the sale
  search's row test and enumeration, and the wilderness refill gained by computing
  without them (hike.py, sell.py, cleanup.py), and so did the paint sets, written from
  a subset table (paint.py: random +4.2%). numba compiles ``and`` and ``or`` to a branch per operand: where the outcome
  depends on the deal, join the conditions with ``&`` and ``|`` (random +5.0%).
"""

from __future__ import annotations

from sunset_sim.engine.cleanup import next_goal, refill_commissions, refill_wilderness
from sunset_sim.engine.decisions import address_of, context_type
from sunset_sim.engine.invariants import check_day
from sunset_sim.engine.jit import jit
from sunset_sim.engine.plan import choose_plans, turn_order
from sunset_sim.engine.restricted import ban_offsets
from sunset_sim.engine.scoring import score
from sunset_sim.engine.setup import deal, shuffle_decks, start_streams
from sunset_sim.engine.state import (
    S_FORCED_STAY,
    S_GOAL_FAME,
    S_GOALS,
    borrowed,
    refresh_fame,
    trace_put,
    workspace_for,
)
from sunset_sim.engine.turn import take_turn
from sunset_sim.enums import (
    D_FAME,
    D_GOAL,
    D_PAINTED,
    END_COMMISSION_SHORTAGE,
    END_SIX_DAYS,
    G_DAYS,
    G_END_REASON,
    G_VIOLATIONS,
    GOAL_FLAG_KEPT,
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
    OBS_LAND_DECK,
    OBS_LAND_PLACE,
    OBS_N_PLAYERS,
    OBS_ORDER,
    OBS_PLAN,
)

CONTEXT = context_type()  # what every decision hands to the strategies (decisions.py)


@jit(inline="always")  # compiled once, inside play_games (its only caller)
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

    The phases are functions of their own modules, as in ``rules/``: setup, plan (and
    the turn order), turn (hike, paint, sell, goal), cleanup and scoring; this loop holds
    the game's few counters (how far each deck is dealt, the row's length, the goal).
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
    n_comm = tables.comm_fame.shape[0]
    n_goal = tables.goal_kind.shape[0]
    n_plan = tables.plan_wake.shape[0]
    ban_mask = game_index % banned.shape[0]
    plan_column, land_column, comm_column = ban_offsets(n_plan, tables.land_icons.shape[0])
    obs, streams, sums = work.obs, work.streams, work.sums
    # The one tuple every decision hands to the strategies (engine/decisions.py).
    context = address_of((obs, work.options, params, streams, tables), CONTEXT)
    obs[:] = -1  # -1 is PLACE_HIDDEN: every card starts in a deck
    land_place = OBS_CARDS
    comm_place = land_place + tables.land_icons.shape[0]
    goal_place = comm_place + n_comm
    obs[OBS_LAND_PLACE] = land_place
    obs[OBS_COMM_PLACE] = comm_place
    obs[OBS_GOAL_PLACE] = goal_place
    obs[OBS_DAYS] = days
    obs[OBS_N_PLAYERS] = n_players

    start_streams(seed, game_index, n_players, work.setup, work.chance, streams)
    shuffle_decks(
        work.setup, work.land_deck, work.comm_deck, work.goal_deck, work.plan_ring,
        work.plan_head, work.plan_count, n_players, n_goal, trace,
    )  # fmt: skip
    land_head, comm_head, row_len, goal_head, goal = deal(
        obs, work.land_deck, work.comm_deck, work.goal_deck, n_players, n_goal, land_place,
        comm_place, goal_place, available_out, commission_out,
    )  # fmt: skip
    n_discard = 0
    goal_holder = -1
    work.hands[:] = -1  # unsold paintings, in the order taken
    work.n_hand[:] = 0
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
        obs[OBS_LAND_DECK] = work.land_deck.shape[0] - land_head
        obs[OBS_DISCARD] = n_discard
        obs[OBS_COMM_DECK] = n_comm - comm_head
        for seat in range(n_players):
            obs[OBS_PLAN + seat] = -1
            obs[OBS_ORDER + seat] = -1
            obs[OBS_DONE + seat] = -1
        # Phase 1, plan (R-PLAN-1..3), then the turn order (R-ORD-1/2)
        choose_plans(
            obs, work.options, work.drawn, work.kept, work.plan_ring, work.plan_head,
            work.plan_count, work.hands, work.n_hand, n_players, banned, ban_mask, plan_column,
            strategy_functions, strategy_ids, context, trace,
        )  # fmt: skip
        turn_order(
            obs, tables.plan_wake, work.kept, work.chance, tie_break, work.permutation,
            work.keys, work.order, n_players, day, plan_out, position_out, trace,
        )  # fmt: skip
        # Phase 2, hike: one player at a time
        for position in range(n_players):
            seat = work.order[position]
            n_discard, row_len, goal_holder = take_turn(
                obs, tables, work, params, seat, position, n_players, work.kept[seat], goal,
                goal_holder, goal_place, n_discard, row_len, land_place, comm_place, banned,
                ban_mask, land_column, comm_column, strategy_functions, strategy_ids, context,
                day, painted_out, day_out, commission_out, trace,
            )  # fmt: skip
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
                obs, tables, n_players, day, work.land_deck, land_head, work.discard,
                n_discard, work.comm_deck, comm_head, work.goal_deck, goal_head, work.hands,
                work.n_hand, work.plan_count, sums[:, S_FORCED_STAY],
            )  # fmt: skip
        if day == days:  # R-CLEAN-1
            end_reason = END_SIX_DAYS
            break
        # Phase 3, clean-up (R-CLEAN-2..5)
        land_head, n_discard = refill_wilderness(
            obs, work.chance, work.land_deck, work.discard, land_head, n_discard, land_place,
            available_out, trace,
        )  # fmt: skip
        goal, goal_head = next_goal(
            obs, work.goal_deck, goal, goal_holder, goal_head, n_goal, goal_place
        )
        goal_holder = -1
        comm_head, row_len, short = refill_commissions(
            obs, work.comm_deck, comm_head, row_len, n_players, comm_place, commission_out, day
        )
        if short:  # R-CLEAN-5
            end_reason = END_COMMISSION_SHORTAGE
            break

    score(sums, seat_out, n_players, trace)  # R-END-2/3
    game_out[G_END_REASON] = end_reason
    game_out[G_DAYS] = n_days_played
    trace_put(trace, end_reason)
    trace_put(trace, n_days_played)


@jit(loop_vectorize=False, wraparound=False)
def play_games(
    seed,
    first_game,
    rows,
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
    check,
):
    """Game first_game + g into row g of the outputs for every g in ``rows`` (int64, in
    any order), on one thread with one workspace; ``trace`` as play_game takes it (a
    1-element array: off). A list of rows, not a range, so that a study's restricted arm
    plays the deals it needs in one call (``run.subset``; a call costs about 30 us, a
    new workspace and cold caches, and such an arm used to need one per stretch of deals).

    ``batch.run_games`` plays blocks of a batch on several threads at once (this function
    releases the GIL); every game depends only on its own index, so the split never
    changes a result. This is the engine's one compiled function, with ``play_game``
    inlined: measured on 2 cores, a separately compiled ``play_game`` was optimized by
    LLVM again when linked in here (about a fifth more compile time), and numba's
    parallel=True cost as much again for its parallel region.

    It compiles without LLVM's loop vectorizer: the engine's loops run a handful of
    times (hand positions, frames, a row of commissions), and their vector versions
    only add checks and spills to a function this size. Measured in one run on 2
    cores (alternating processes, medians of 12): random +11%, greedy +8% games/s
    against the same code vectorized; the strategies' code keeps the vectorizer (all
    of it unvectorized left greedy at +1%).

    It also compiles without numba's wrap-around of negative indices (``jit``'s
    ``wraparound=False``): no index in the engine counts from the end, and the check
    at each of its thousands of indices kept array sizes live in registers. Measured
    (CPU time, alternating processes, 30 runs each, a loaded machine): random +12%,
    greedy +3%. The saved frames and the parity tests are unchanged by it.

    Tried and not kept: ``take_turn`` as a function of its own, its arrays read
    from one pointer (so that each phase gets its own registers): random -12%,
    greedy unchanged; inlined, LLVM keeps values across the phases."""
    work = workspace_for(n_players, tables)
    # each game reads its own copy of the parameters: a plug-in that wrote to them (the
    # docs forbid it; check_strategy finds it) changed the games after it in the same
    # call, so its results depended on --chunk-size and the threads (a copy of a few
    # numbers a game: no change in speed)
    game_params = params.copy()
    for i in range(rows.shape[0]):
        g = rows[i]
        game_params[:] = params
        play_game(
            seed,
            first_game + g,
            n_players,
            strategy_functions,
            strategy_ids,
            game_params,
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
            trace,
            work,
            check,
        )
