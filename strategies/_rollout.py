"""lookahead's fast policy on a scratch grid (a bit mask of the cells that still hold a
card: copied and updated as one integer): one turn of a seat (``policy_turn``), the
opponents' model of every plan card (``plan_totals``), the rest of the day played out
(``play_out``) and its score (``rollout_score``). Kept apart from the decisions in
``lookahead.py`` and ``_lookahead_plan.py``; not a strategy."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._style_tools import (
    BIG,
    MAX_PATH,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_SOLD,
    MAX_PLAYERS,
    N_CELLS,
    N_DIRECTIONS,
)
from sunset_sim.strategy_tools import (
    PATH_PREFIX,
    hike_goal_met,
    lowest_bit,
    stack_empty,
    step_cell,
)

# scratch sizes (stack arrays need module-level constants)
PAINT_SLOTS = MAX_PATH + 1  # plan_totals: a plan card paints 0 .. MAX_PATH cards
PLAN_WALK = N_DIRECTIONS * MAX_PATH * PAINT_SLOTS  # plan_totals: per direction, steps, paint
# play_out's memo of each seat's last turn: its plan card, the grid it saw (cards and other
# artists), the cells it read, the cells it took, where it ended and whether it met the goal
MEMO_PLAN, MEMO_PRESENT, MEMO_OCCUPIED, MEMO_READ, MEMO_TAKEN, MEMO_END, MEMO_MET = range(7)
MEMO_FIELDS = 7
MEMO_SLOTS = MAX_PLAYERS * MEMO_FIELDS


@jit(inline="always")
def rollout_goal_met(goal_kind, goal_param, direction, steps, end, n_taken, held, features, full):
    """Today's goal after a rollout turn (R-GOAL-3); sales are not played out, so a "sold"
    goal is never met and "holds" counts the paintings before any sale."""
    if goal_kind < 0 or goal_kind == GOAL_SOLD:
        return False
    if goal_kind == GOAL_HOLDS:
        return held + n_taken >= goal_param
    if goal_kind == GOAL_ALL_FEATURES:
        return features == full
    return hike_goal_met(goal_kind, goal_param, direction, steps, end, n_taken)


@jit(inline="always")
def lowest_set(mask):
    """The index of the lowest set bit of a non-zero int ``mask``."""
    return lowest_bit(np.uint64(mask))


@jit(inline="always")
def others_here(seat, n_players, pos):
    """The bit mask of the cells where an artist other than ``seat`` stands."""
    occupied = 0
    for other in range(n_players):
        if other != seat and pos[other] >= 0:
            occupied |= 1 << pos[other]
    return occupied


@jit(inline="always")
def taken_features(cell_features, cells, n, start_mask):
    mask = start_mask
    for i in range(n):
        mask |= cell_features[cells[i]]
    return mask


@jit(inline="always")
def path_insert(top_value, top_cell, n_top, keep, value, cell):
    """Insert (value, cell) into a hike path's list, best first (after equal values), of
    which only the first ``keep`` entries are ever read; the list's new length."""
    if n_top < keep or top_value[keep - 1] < value:
        slot = min(n_top, keep - 1)
        while slot > 0 and top_value[slot - 1] < value:
            top_value[slot] = top_value[slot - 1]
            top_cell[slot] = top_cell[slot - 1]
            slot -= 1
        top_value[slot] = value
        top_cell[slot] = cell
    return min(n_top + 1, keep)


@jit(inline="always")
def policy_turn(
    seat,
    plan,
    occupied,
    present,
    pos,
    values,
    plan_directions,
    plan_hike,
    plan_paint,
    cell_features,
    goal_kind,
    goal_param,
    goal_value,
    held,
    features,
    full,
    apply,
):
    """The fast policy's turn for ``seat`` with plan card ``plan`` (bit c of ``occupied``:
    another artist stands on cell c; see others_here): the hike whose path
    holds the most value in the best ``paint`` cards (plus ``goal_value`` if it meets today's
    goal), then those cards taken. ``values[cell]`` is the seat's value of the card on the
    cell; bit c of ``present``: cell c holds a card. With ``apply`` the artist moves
    (``pos``). Returns (value of the cards taken, goal met, value with the goal, the bit
    mask of the cells taken, the bit mask of the cells whose card or artist it read: the
    turn is the same on any grid that agrees there)."""
    start = pos[seat]
    directions = plan_directions[plan]
    max_steps = plan_hike[plan]
    paint = min(plan_paint[plan], MAX_PATH)
    keep = max(paint, 1)  # the path's best cells kept (n_top counts at most these)
    top_value = stack_empty(MAX_PATH, np.float64)
    top_cell = stack_empty(MAX_PATH, np.int64)
    best = -BIG
    best_value = 0.0
    best_end = start
    best_met = False
    start_free = not (occupied >> start) & 1
    start_takeable = start_free and ((present >> start) & 1) != 0
    best_taken = 0
    read = 1 << start
    if start_free:  # the stay (R-HIKE-5: not on another artist's cell)
        n = 1 if start_takeable and paint > 0 else 0
        value = values[start] if n == 1 else 0.0
        feats = features
        if n == 1 and goal_kind == GOAL_ALL_FEATURES:
            feats |= cell_features[start]
        met = rollout_goal_met(goal_kind, goal_param, -1, 0, start, n, held, feats, full)
        total = value + (goal_value if met else 0.0)
        if total > best:
            best = total
            best_value = value
            best_taken = n << start
            best_end = start
            best_met = met
    rest = directions  # its directions, lowest first (a test per direction mispredicts)
    while rest:
        direction = lowest_set(rest)
        rest &= rest - 1
        n_top = 0
        if start_takeable:
            top_value[0] = values[start]
            top_cell[0] = start
            n_top = 1
        cell = start
        for steps in range(1, max_steps + 1):
            cell = step_cell(cell, direction)
            if cell < 0:  # R-HIKE-3
                break
            read |= 1 << cell
            if not (present >> cell) & 1:  # R-HIKE-4
                break
            if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end or paint here
                continue
            n_top = path_insert(top_value, top_cell, n_top, keep, values[cell], cell)
            n = min(paint, n_top)
            total = 0.0
            for i in range(n):
                total += top_value[i]
            taken = total
            feats = features
            if goal_kind == GOAL_ALL_FEATURES:
                feats = taken_features(cell_features, top_cell, n, features)
            met = rollout_goal_met(
                goal_kind, goal_param, direction, steps, cell, n, held, feats, full
            )
            if met:
                total += goal_value
            if total > best:
                best = total
                best_value = taken
                best_taken = 0
                for i in range(n):
                    best_taken |= 1 << top_cell[i]
                best_end = cell
                best_met = met
    if best == -BIG:  # no legal hike: stay on the shared cell, nothing to paint (R-HIKE-5)
        best_taken = 0
        best_value = 0.0
        best_end = start
        best_met = rollout_goal_met(goal_kind, goal_param, -1, 0, start, 0, held, features, full)
        best = goal_value if best_met else 0.0
    if apply:
        pos[seat] = best_end
    return best_value, best_met, best, best_taken, read


@jit(_nrt=False, wraparound=False)
def plan_totals(
    seat, n_players, present, pos, values, plan_directions, plan_hike, plan_paint,
    cell_features, goal_kind, goal_param, goal_value, held, features, full, out,
):  # fmt: skip
    """out[plan] = the value with the goal of ``policy_turn(seat, plan, ...)`` for every plan
    card at once: one walk per direction serves every card (the same path; another reach,
    paint number and direction set), with the same sums in the same order. The walk keeps,
    per direction, step and number of cards a plan card paints, the best hike so far
    (best[(direction * MAX_PATH + steps) * PAINT_SLOTS + paint]); each card then takes the
    best of its directions at its reach."""
    n_plans = plan_hike.shape[0]
    start = pos[seat]
    occupied = others_here(seat, n_players, pos)
    reach = 0
    wanted = 0
    paints = 0  # bit p: some plan card paints p cards (p capped at MAX_PATH)
    keep = 1  # the most cards a plan card paints (at least 1: path_insert keeps a cell)
    for plan in range(n_plans):
        out[plan] = -BIG
        reach = max(reach, plan_hike[plan])
        wanted |= plan_directions[plan]
        paints |= 1 << min(plan_paint[plan], MAX_PATH)
        keep = max(keep, min(plan_paint[plan], MAX_PATH))
    reach = min(reach, MAX_PATH - 1)  # (a straight hike leaves the grid after that)
    top_value = stack_empty(MAX_PATH, np.float64)
    top_cell = stack_empty(MAX_PATH, np.int64)
    with_goal = stack_empty(PATH_PREFIX, np.float64)
    best = stack_empty(PLAN_WALK, np.float64)
    running = stack_empty(PAINT_SLOTS, np.float64)
    start_free = not (occupied >> start) & 1
    start_takeable = start_free and ((present >> start) & 1) != 0
    if start_free:  # the stay (R-HIKE-5: not on another artist's cell)
        for plan in range(n_plans):
            n = 1 if start_takeable and plan_paint[plan] > 0 else 0
            value = values[start] if n == 1 else 0.0
            feats = features
            if n == 1 and goal_kind == GOAL_ALL_FEATURES:
                feats |= cell_features[start]
            met = rollout_goal_met(goal_kind, goal_param, -1, 0, start, n, held, feats, full)
            out[plan] = max(out[plan], value + (goal_value if met else 0.0))
    walked = stack_empty(N_DIRECTIONS, np.int64)  # per direction: the last row written
    for direction in range(N_DIRECTIONS):
        walked[direction] = 0
        if not (wanted >> direction) & 1:
            continue
        for p in range(PAINT_SLOTS):
            running[p] = -BIG
        n_top = 0
        if start_takeable:
            top_value[0] = values[start]
            top_cell[0] = start
            n_top = 1
        cell = start
        for steps in range(1, reach + 1):
            row = (direction * MAX_PATH + steps) * PAINT_SLOTS
            cell = step_cell(cell, direction)
            walking = cell >= 0 and ((present >> cell) & 1) != 0  # R-HIKE-3, R-HIKE-4
            # R-HIKE-5: pass through another artist's cell, never end or paint here
            ends = walking and not (occupied >> cell) & 1
            if ends:
                # (only the best ``keep`` cells are ever painted: the most any card paints)
                n_top = path_insert(top_value, top_cell, n_top, keep, values[cell], cell)
                # the hike ending here with n cards painted, for every n at once: the same
                # sums (in the same order) and goal check as policy_turn
                total = 0.0
                feats = features
                if paints & 1:  # (n = 0 is read only for a card that paints none)
                    met = rollout_goal_met(
                        goal_kind, goal_param, direction, steps, cell, 0, held, feats, full
                    )
                    with_goal[0] = total + (goal_value if met else 0.0)
                for n in range(1, n_top + 1):
                    total += top_value[n - 1]
                    feats |= cell_features[top_cell[n - 1]]
                    met = rollout_goal_met(
                        goal_kind, goal_param, direction, steps, cell, n, held, feats, full
                    )
                    with_goal[n] = total + (goal_value if met else 0.0)
            # the rows of the paint numbers some card has (the only ones read), with a hike
            # ending here if one can; once the path ends, the rows after it would repeat
            # this one: it is read instead
            rest = paints
            while rest:
                p = lowest_set(rest)
                rest &= rest - 1
                if ends:
                    running[p] = max(running[p], with_goal[min(p, n_top)])
                best[row + p] = running[p]
            walked[direction] = steps
            if not walking:
                break
    for plan in range(n_plans):
        steps = min(plan_hike[plan], reach)
        p = min(plan_paint[plan], MAX_PATH)
        directions = plan_directions[plan]
        if steps > 0:
            for direction in range(N_DIRECTIONS):
                if (directions >> direction) & 1:
                    row = direction * MAX_PATH + min(steps, walked[direction])
                    out[plan] = max(out[plan], best[row * PAINT_SLOTS + p])
        if out[plan] == -BIG:  # no legal hike: stay on the shared cell (R-HIKE-5)
            met = rollout_goal_met(goal_kind, goal_param, -1, 0, start, 0, held, features, full)
            out[plan] = goal_value if met else 0.0


@jit(inline="always")
def play_out(
    order,
    first,
    last,
    n_players,
    plans,
    present,
    pos,
    values,
    plan_directions,
    plan_hike,
    plan_paint,
    cell_features,
    goal_kind,
    goal_param,
    goal_value,
    held,
    features,
    full,
    gains,
    holder,
    memo,
    memo_value,
):
    """The turns of order[first:last] with the fast policy; adds each seat's card value to
    ``gains`` and returns the goal's holder after them (R-GOAL-2) and the cells still
    holding a card (``present`` less those taken). ``memo`` (MEMO_SLOTS) and
    ``memo_value`` (per seat) keep each seat's last turn (memo_clear: none): a seat with
    the same plan card, on a grid whose cards and other artists agree with the memo's on
    the cells that turn read, makes the same turn (the values must not change between:
    clear the memo when they do)."""
    for position in range(first, last):
        seat = order[position]
        occupied = others_here(seat, n_players, pos)
        slot = seat * MEMO_FIELDS
        changed = (present ^ memo[slot + MEMO_PRESENT]) | (occupied ^ memo[slot + MEMO_OCCUPIED])
        if memo[slot + MEMO_PLAN] == plans[seat] and not changed & memo[slot + MEMO_READ]:
            value = memo_value[seat]
            met = memo[slot + MEMO_MET] != 0
            taken = memo[slot + MEMO_TAKEN]
            pos[seat] = memo[slot + MEMO_END]
        else:
            value, met, _, taken, read = policy_turn(
                seat,
                plans[seat],
                occupied,
                present,
                pos,
                values[seat * N_CELLS : (seat + 1) * N_CELLS],
                plan_directions,
                plan_hike,
                plan_paint,
                cell_features,
                goal_kind,
                goal_param,
                goal_value,
                held[seat],
                features[seat],
                full,
                True,
            )
            memo[slot + MEMO_PLAN] = plans[seat]
            memo[slot + MEMO_PRESENT] = present
            memo[slot + MEMO_OCCUPIED] = occupied
            memo[slot + MEMO_READ] = read
            memo[slot + MEMO_TAKEN] = taken
            memo[slot + MEMO_END] = pos[seat]
            memo[slot + MEMO_MET] = met
            memo_value[seat] = value
        present &= ~taken
        gains[seat] += value
        if met:
            holder = seat
    return holder, present


@jit(inline="always")
def memo_clear(memo):
    """play_out's memo with no turn in it."""
    for seat in range(MAX_PLAYERS):
        memo[seat * MEMO_FIELDS + MEMO_PLAN] = -1


@jit(_nrt=False, wraparound=False)
def rollout_score(gains, holder, goal_value, me, n_players, rivalry):
    """Own gain (and the goal if kept) minus ``rivalry`` times the others' mean."""
    others = 0.0
    mine = 0.0
    for seat in range(n_players):
        gain = gains[seat] + (goal_value if holder == seat else 0.0)
        if seat == me:
            mine = gain
        else:
            others += gain
    return mine - rivalry * others / max(n_players - 1, 1)
