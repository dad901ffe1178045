"""The numba game kernel: one whole game over flat integer arrays, many games in parallel.

It plays exactly the game the reference engine (``sunset_sim.rules``) plays for the same
(seed, game index, strategies, cards, rules): the same canonical option orders, the same
random draws from the same counter-based streams, the same observation layout. The
public part of the state *is* the observation array (``observation.py``): the grid,
artists, commission row and card places live there and are updated in place; hidden
parts (deck orders, plan decks, hands) live in separate arrays.

Rule IDs in comments point at RULES.md; tests/test_parity.py holds both engines to the
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

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from sunset_sim.engine.decisions import address_of, call_strategy, context_type
from sunset_sim.engine.invariants import check_day
from sunset_sim.engine.jit import jit
from sunset_sim.engine.rng import rng_shuffle, stream_key
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    END_COMMISSION_SHORTAGE,
    END_SIX_DAYS,
    GOAL_ALL_FEATURES,
    GOAL_EDGE,
    GOAL_FLAG_KEPT,
    GOAL_FLAG_MET,
    GOAL_FLAG_TOOK,
    GOAL_HOLDS,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_SOLD,
    GOAL_STEPS,
    GRID_SIZE,
    MAX_FRAMES,
    N_CELLS,
    N_DIRECTIONS,
    PLACE_DISCARD,
    PLACE_GONE,
    PLACE_PREVIEW,
    PLACE_TABLE,
    PLAN_HAND,
    STREAM_CHANCE,
    STREAM_SETUP,
    STREAM_STRATEGY,
    TIE_LOWEST_FAME,
    TIE_SEAT,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    MAX_SALE_OPTIONS,
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
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_N_PLAYERS,
    OBS_ORDER,
    OBS_PAINTINGS,
    OBS_PLAN,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
    OBS_TURN_POS,
    OPTION_WIDTH,
)
from sunset_sim.strategy_tools import (
    DIRECTION_CLASS_ARRAY,
    NEXT_CELL,
    lowest_bit,
    stack_empty,
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
N_PLAN_OPTIONS = np.int64(PLAN_HAND)
SCRATCH_SIZE = GRID_SIZE  # paint option search: the takeable cells of a path

# Per-seat result columns (int32), in this order; results.py names them for pandas.
R_FAME = 0
R_FAME_COMMISSIONS = 1
R_FAME_GOALS = 2
R_FAME_PAINTINGS = 3
R_COMMISSIONS_WON = 4
R_GOALS_WON = 5
R_PAINTINGS_SOLD = 6
R_CARDS_PAINTED = 7
R_WINNERS = 8  # number of seats sharing the win (R-END-3), on every seat's row
R_WON = 9  # 1 if this seat is among the winners
SEAT_COLUMNS = 10
# Per-game result columns.
G_END_REASON = 0
G_DAYS = 1
G_VIOLATIONS = 2  # bitmask of failed invariants (engine/invariants.py), 0 when unchecked
GAME_COLUMNS = 3
# Per-seat, per-day result columns (int32) for the balance report; -1 on days not played.
D_FAME = 0  # fame as R-END-2 counts it at the end of the day's hike phase (after the goal)
D_PAINTED = 1  # cards painted that day
D_GOAL = 2  # GOAL_FLAG_* bits (enums.py): met today's goal, took it from a holder, kept it
DAY_COLUMNS = 3
# Per-commission result columns (int8), -1 if it never happened: who completed it, on
# which day, and the day it first entered the commission row (so could be completed).
C_SEAT = 0
C_DAY = 1
C_SHOWN = 2
COMMISSION_COLUMNS = 3

# Per-seat running sums kept beside the observation.
S_COMMISSION_FAME = 0
S_GOAL_FAME = 1
S_ICONS = 2
S_SOLD = 3
S_PAINTED = 4
S_COMMISSIONS = 5
S_GOALS = 6
S_FORCED_STAY = 7  # 1 if R-HIKE-5 left the seat with no legal hike today
SUM_COLUMNS = 8


@jit(_nrt=False)
def trace_put(trace, value):
    """Append to the game trace (parity checks); a 1-element trace is switched off."""
    if trace.shape[0] > 1:
        trace[trace[0]] = value
        trace[0] += 1


@jit(_nrt=False)
def step_cell(cell, direction):
    return NEXT_CELL[cell * N_DIRECTIONS + direction]


@jit(_nrt=False)
def mark_card(bitmask, card):
    """Set bit ``card`` of a uint64 bitmask spread over words of 64."""
    bitmask[card // 64] |= np.uint64(1) << np.uint64(card % 64)


@jit(_nrt=False)
def refresh_fame(obs, sums, seat):
    """OBS_FAME as R-END-2 counts it now (goals kept for good only)."""
    obs[OBS_FAME + seat] = (
        sums[seat, S_COMMISSION_FAME] + sums[seat, S_GOAL_FAME] + sums[seat, S_ICONS] // 2
    )


@jit(_nrt=False)
def others_at(obs, n_players, seat):
    """Bitmask over the cells holding another player's artist (R-HIKE-5, R-PAINT-2)."""
    mask = 0
    for other in range(n_players):
        if other != seat:
            mask |= 1 << obs[OBS_POS + other]
    return mask


@jit(inline="always")
def put_row(options, row, a, b, c, d, e):
    """One whole option row (OPTION_WIDTH columns)."""
    options[row, 0] = a
    options[row, 1] = b
    options[row, 2] = c
    options[row, 3] = d
    options[row, 4] = e


@jit(inline="always")
def legal_hikes(obs, occupied, start, plan_directions, plan_hike, options):
    """R-HIKE-1..6 in the reference order: stay first, then N..NW with 1, 2, ... steps.
    ``occupied``: bitmask of the cells holding other artists."""
    n = 0
    if not (occupied >> start) & 1:  # R-HIKE-5
        put_row(options, 0, -1, 0, start, -1, -1)
        n = 1
    for direction in range(N_DIRECTIONS):
        if not (plan_directions >> direction) & 1:
            continue
        cell = start
        for steps in range(1, plan_hike + 1):
            cell = step_cell(cell, direction)
            if cell < 0 or obs[OBS_GRID + cell] < 0:  # R-HIKE-3, R-HIKE-4
                break
            if (occupied >> cell) & 1:  # R-HIKE-5: pass, not end
                continue
            put_row(options, n, direction, steps, cell, -1, -1)
            n += 1
    if n == 0:  # R-HIKE-5 DECISION: no legal hike, stay put
        put_row(options, 0, -1, 0, start, -1, -1)
        n = 1
    return n


@jit(inline="always")
def paint_options(obs, occupied, start, direction, steps, paint, options, takeable):
    """R-PAINT-1/2: subsets of the takeable path cells, by ascending bitmask."""
    n_takeable = 0
    cell = start
    for step in range(steps + 1):
        if step > 0:
            cell = step_cell(cell, direction)
        if obs[OBS_GRID + cell] >= 0 and not (occupied >> cell) & 1:
            takeable[n_takeable] = cell
            n_takeable += 1
    n = 0
    for mask in range(1 << n_takeable):
        count = 0
        rest = mask
        while rest:
            rest &= rest - 1
            count += 1
        if count > paint:
            continue
        column = 0
        for bit in range(n_takeable):
            if (mask >> bit) & 1:
                options[n, column] = takeable[bit]
                column += 1
        for pad in range(column, OPTION_WIDTH):
            options[n, pad] = -1
        n += 1
    return n


@jit(inline="always")
def sale_options(obs, tables, hands, seat, n_hand, options):
    """R-SELL-1..3 in the reference order (rules/sell.py): row 0 is "stop"; then per
    commission in row order, frame by frame over the hand in the order taken, the first
    unused painting of each feature kind only; at most MAX_SALE_OPTIONS rows.

    The search runs on bitmasks over hand positions: per frame the paintings that fit it,
    per painting the earlier paintings of the same kind."""
    put_row(options, 0, -1, -1, -1, -1, -1)
    n = 1
    if n_hand == 0:
        return n
    # A commission with a frame that no painting fits is skipped before the search
    # (land_frames: one bit per frame; card sets of up to 64 frames take this fast path).
    one_word = tables.land_frames.shape[1] == 1
    held = np.uint64(0)
    if one_word:
        for i in range(n_hand):
            held |= tables.land_frames[hands[seat, i], 0]
        if held == 0:
            return n
    same_kind = stack_empty(MAX_PAINTINGS, np.uint64)  # earlier positions of the same kind
    kinds = stack_empty(MAX_PAINTINGS, np.int64)
    fit = stack_empty(MAX_FRAMES, np.uint64)  # positions fitting each frame
    candidates = stack_empty(MAX_FRAMES, np.uint64)  # fitting and unused, per depth
    untried = stack_empty(MAX_FRAMES, np.uint64)
    chosen = stack_empty(MAX_FRAMES, np.int64)  # hand position chosen, per depth
    kinds_ready = False
    for slot in range(obs[OBS_ROW_LEN]):
        commission = obs[OBS_ROW + slot]
        n_frames = tables.comm_n_frames[commission]
        if n_frames > n_hand:  # one distinct painting per frame (R-SELL-2)
            continue
        possible = True
        for f in range(n_frames):
            frame = tables.comm_frames[commission, f]
            if one_word and not (held >> np.uint64(frame)) & np.uint64(1):
                possible = False
                break
            mask = np.uint64(0)
            for i in range(n_hand):
                if tables.match[hands[seat, i], frame]:
                    mask |= np.uint64(1) << np.uint64(i)
            fit[f] = mask
            if mask == 0:
                possible = False
                break
        if not possible:
            continue
        if not kinds_ready:
            for i in range(n_hand):
                kind = tables.land_kind[hands[seat, i]]
                kinds[i] = kind
                before = np.uint64(0)
                for j in range(i):
                    if kinds[j] == kind:
                        before |= np.uint64(1) << np.uint64(j)
                same_kind[i] = before
            kinds_ready = True
        used = np.uint64(0)  # positions chosen at depths 0 .. depth-1
        candidates[0] = fit[0]
        untried[0] = fit[0]
        depth = 0
        while depth >= 0 and n < MAX_SALE_OPTIONS:
            if depth == n_frames:
                options[n, 0] = commission
                for f in range(MAX_FRAMES):
                    options[n, 1 + f] = hands[seat, chosen[f]] if f < n_frames else -1
                for column in range(1 + MAX_FRAMES, OPTION_WIDTH):
                    options[n, column] = -1
                n += 1
                depth -= 1
                used &= ~(np.uint64(1) << np.uint64(chosen[depth]))
                continue
            rest = untried[depth]
            found = -1
            while rest:
                i = lowest_bit(rest)
                rest &= rest - np.uint64(1)
                if not (same_kind[i] & candidates[depth]):  # first of its kind here
                    found = i
                    break
            untried[depth] = rest
            if found >= 0:
                chosen[depth] = found
                used |= np.uint64(1) << np.uint64(found)
                depth += 1
                if depth < n_frames:
                    candidates[depth] = fit[depth] & ~used
                    untried[depth] = candidates[depth]
            else:
                depth -= 1
                if depth >= 0:
                    used &= ~(np.uint64(1) << np.uint64(chosen[depth]))
    return n


@jit(inline="always")
def meets_goal(obs, tables, goal, seat, direction, steps, n_painted, n_sold, hands, n_hand):
    """R-GOAL-3: this turn's actions and the holdings after selling."""
    kind = tables.goal_kind[goal]
    param = tables.goal_param[goal]
    if kind == GOAL_MOVED:
        return steps > 0 and DIRECTION_CLASS_ARRAY[direction] == param
    if kind == GOAL_PAINTED:
        return n_painted >= param
    if kind == GOAL_SOLD:
        return n_sold >= param
    if kind == GOAL_ALL_FEATURES:
        n_features = tables.land_features.shape[1]
        for feature in range(n_features):
            shown = 0
            for i in range(n_hand):
                shown += tables.land_features[hands[seat, i], feature]
            if shown == 0:
                return False
        return True
    if kind == GOAL_EDGE:
        cell = obs[OBS_POS + seat]
        row = cell // GRID_SIZE
        col = cell % GRID_SIZE
        return row == 0 or col == 0 or row == GRID_SIZE - 1 or col == GRID_SIZE - 1
    if kind == GOAL_HOLDS:
        return n_hand >= param
    if kind == GOAL_STEPS:
        return steps >= param
    return False


@jit(inline="always")
def show_private(obs, seat, hands, n_hand, turn_position):
    """The observing seat's own fields (the rest of ``obs`` is public)."""
    shown = obs[OBS_N_PAINTINGS]  # slots written for the previous observer
    obs[OBS_ME] = seat
    obs[OBS_N_PAINTINGS] = n_hand
    obs[OBS_TURN_POS] = turn_position
    for i in range(n_hand):
        obs[OBS_PAINTINGS + i] = hands[seat, i]
    for i in range(n_hand, max(shown, 0)):
        obs[OBS_PAINTINGS + i] = -1


# ---- restricted play (analysis/experiments.py): options a seat may not take ----------
# ``banned[mask, seat, column]`` (uint8) applies to games whose index is ``mask`` modulo
# ``banned.shape[0]``. Column BAN_ANY says the seat has any restriction; then one column
# per plan card, landscape and commission, from the offsets ``ban_offsets`` gives. The
# options left are a subsequence of the full list in its canonical order, so a seat
# without a restriction plays exactly as before (play.StrategyDecider mirrors this for the
# reference engine).
BAN_ANY = 0


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


@jit(_nrt=False)
def ban_offsets(n_plan, n_land):
    """Columns of the first plan card, landscape and commission in a ``banned`` row."""
    return 1, 1 + n_plan, 1 + n_plan + n_land


@jit(_nrt=False)
def allowed_plans(obs, options, drawn_row, banned, mask, seat, plan_column):
    """The drawn plan cards the seat may keep, first and in drawn order, in ``options``
    and ``OBS_HAND``; the banned ones follow in the hand. If every card is banned there
    is no other choice, and all three are offered."""
    n = 0
    for k in range(PLAN_HAND):
        if banned[mask, seat, plan_column + drawn_row[k]] == 0:
            options[n, 0] = drawn_row[k]
            obs[OBS_HAND + n] = drawn_row[k]
            n += 1
    if n == 0:
        return N_PLAN_OPTIONS
    rest = n
    for k in range(PLAN_HAND):
        if banned[mask, seat, plan_column + drawn_row[k]] != 0:
            options[rest, 0] = drawn_row[k]
            obs[OBS_HAND + rest] = drawn_row[k]
            rest += 1
    return np.int64(n)


@jit(_nrt=False)
def move_option_row(options, source, target):
    for column in range(OPTION_WIDTH):
        options[target, column] = options[source, column]


@jit(_nrt=False)
def allowed_paint_sets(obs, options, n_options, banned, mask, seat, land_column):
    """The paint sets without a banned landscape (row 0, the empty set, always stays)."""
    n = 0
    for row in range(n_options):
        allowed = True
        for column in range(OPTION_WIDTH):
            cell = options[row, column]
            if cell >= 0 and banned[mask, seat, land_column + obs[OBS_GRID + cell]] != 0:
                allowed = False
        if allowed:
            move_option_row(options, row, n)
            n += 1
    return n


@jit(_nrt=False)
def allowed_sales(options, n_options, banned, mask, seat, comm_column):
    """The sales to commissions the seat may sell to (row 0, "stop", always stays)."""
    n = 1
    for row in range(1, n_options):
        if banned[mask, seat, comm_column + options[row, 0]] == 0:
            move_option_row(options, row, n)
            n += 1
    return n


def _borrowable(value_type):
    if isinstance(value_type, types.Array):
        return True
    if isinstance(value_type, types.BaseTuple):
        return all(_borrowable(member) for member in value_type.types)
    return False


@intrinsic
def _borrowed(typingctx, value):
    if not _borrowable(value):
        return None

    def strip(context, builder, value_type, value_llvm):
        if isinstance(value_type, types.Array):
            array = make_array(value_type)(context, builder, value=value_llvm)
            array.meminfo = ir.Constant(array.meminfo.type, None)
            array.parent = ir.Constant(array.parent.type, None)
            return array._getvalue()
        for index, member in enumerate(value_type.types):
            item = builder.extract_value(value_llvm, index)
            value_llvm = builder.insert_value(
                value_llvm, strip(context, builder, member, item), index
            )
        return value_llvm

    def codegen(context, builder, signature, args):
        return strip(context, builder, signature.args[0], args[0])

    return value(value), codegen


if numba.config.DISABLE_JIT:

    def borrowed(value):
        return value

else:

    @jit(inline="always")
    def borrowed(value):
        """The same arrays (an array or a tuple of them) without their reference-counting
        handle: numba's reference counting on them is then a no-op, which matters where a
        call passes many arrays (every decision passes the ~20 arrays of ``tables``,
        ``obs`` and ``options``). Valid only while the caller keeps the originals alive;
        never store or return the result."""
        return _borrowed(value)


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
    (
        obs,
        setup,
        chance,
        streams,
        land_deck,
        comm_deck,
        goal_deck,
        discard,
        plan_ring,
        plan_head,
        plan_count,
        hands,
        n_hand,
        sums,
        options,
        scratch,
        drawn,
        kept,
        order,
        keys,
        permutation,
    ) = work
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
                n_options = sale_options(obs, tables, hands, seat, n_hand[seat], options)
                if banned[ban_mask, seat, BAN_ANY]:
                    n_options = allowed_sales(
                        options, n_options, banned, ban_mask, seat, comm_column
                    )
                choice = decide(
                    strategy_functions,
                    strategy_ids[seat],
                    KIND_SALE,
                    np.int64(n_options),
                    seat,
                    context,
                )
                if choice == 0:
                    break
                commission = options[choice, 0]
                n_frames = tables.comm_n_frames[commission]
                trace_put(trace, commission)
                for f in range(n_frames):
                    card = options[choice, 1 + f]
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


@jit
def new_workspace(n_players, n_land, n_comm, n_goal, n_plan):
    """Every array one game needs (see play_game), allocated once per thread."""
    return (
        np.empty(OBS_CARDS + n_land + n_comm + n_goal, dtype=np.int32),  # obs
        np.zeros(2, dtype=np.uint64),  # setup stream
        np.zeros(2, dtype=np.uint64),  # chance stream
        np.zeros((n_players, 2), dtype=np.uint64),  # strategy streams
        np.empty(n_land, dtype=np.int32),  # landscape deck
        np.empty(n_comm, dtype=np.int32),  # commission deck
        np.empty(max(n_goal, 1), dtype=np.int32),  # goal deck
        np.empty(n_land, dtype=np.int32),  # landscape discard pile
        np.empty((n_players, n_plan), dtype=np.int32),  # plan decks
        np.zeros(n_players, dtype=np.int64),  # plan deck heads
        np.zeros(n_players, dtype=np.int64),  # plan deck sizes
        np.empty((n_players, MAX_PAINTINGS), dtype=np.int32),  # unsold paintings
        np.zeros(n_players, dtype=np.int64),  # number of unsold paintings
        np.zeros((n_players, SUM_COLUMNS), dtype=np.int32),  # running sums
        np.empty((MAX_SALE_OPTIONS, OPTION_WIDTH), dtype=np.int32),  # options, rows filled whole
        np.empty(SCRATCH_SIZE, dtype=np.int64),  # paint option scratch
        np.empty((n_players, PLAN_HAND), dtype=np.int32),  # drawn plan cards
        np.empty(n_players, dtype=np.int32),  # kept plan cards
        np.empty(n_players, dtype=np.int64),  # turn order
        np.empty((n_players, 3), dtype=np.int64),  # turn-order keys
        np.empty(n_players, dtype=np.int64),  # tie-break permutation
    )


@jit
def workspace_for(n_players, tables):
    return new_workspace(
        n_players,
        tables.land_icons.shape[0],
        tables.comm_fame.shape[0],
        tables.goal_kind.shape[0],
        tables.plan_wake.shape[0],
    )


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
