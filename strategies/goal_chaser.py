"""goal-chaser: today's goal first, waking late to be the last to meet it (R-GOAL-2)."""

from __future__ import annotations

import numpy as np

from strategies import greedy
from strategies._style_tools import (
    MAX_HIKES,
    MAX_PATH,
    all_features,
    end_cell,
    feature_mask,
    option_cells,
    others_mask,
    path_takeable,
    plan_hikes,
    popcount,
    sale_icons,
    seat_paintings,
    subset_cells,
)
from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_PAINTED,
    GOAL_SOLD,
    GRID_SIZE,
    MAX_FRAMES,
)
from sunset_sim.observation import (
    OBS_GOAL,
    OBS_GRID,
    OBS_ME,
    OBS_N_PLAYERS,
    OBS_PLAN,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_WIDTH,
)
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import hike_goal_met

# params vector layout: greedy's, passed on to greedy for everything but the goal
LATENESS = 0
COMMISSION = 1
GOAL = 2

NEVER = 99  # no set of cards on the path meets the goal


@jit
def fits(tables, card, commission, slot):
    return tables.match[card, tables.comm_frames[commission, slot]] != 0


@jit
def assign(tables, commission, cards, n_cards, used):
    """Fulfil the commission with unused cards if it can (the first assignment found);
    marks the cards used. R-SELL-2: one distinct painting per frame."""
    n_frames = tables.comm_n_frames[commission]
    for a in range(n_cards):
        if used[a] or not fits(tables, cards[a], commission, 0):
            continue
        if n_frames == 1:
            used[a] = 1
            return True
        for b in range(n_cards):
            if b == a or used[b] or not fits(tables, cards[b], commission, 1):
                continue
            if n_frames == 2:
                used[a] = 1
                used[b] = 1
                return True
            for c in range(n_cards):
                if c == a or c == b or used[c] or not fits(tables, cards[c], commission, 2):
                    continue
                used[a] = 1
                used[b] = 1
                used[c] = 1
                return True
    return False


@jit
def count_sales(obs, tables, cards, n_cards, used):
    """How many row commissions these paintings can fulfil one after another (a greedy
    estimate: commissions with fewer frames first, each with the first fit found)."""
    used[:n_cards] = 0
    count = 0
    for n_frames in range(1, MAX_FRAMES + 1):
        for slot in range(obs[OBS_ROW_LEN]):
            commission = obs[OBS_ROW + slot]
            if tables.comm_n_frames[commission] == n_frames and assign(
                tables, commission, cards, n_cards, used
            ):
                count += 1
    return count


@jit
def fewest_cards(
    obs, tables, goal_kind, goal_param, direction, steps, occupied, work, n_held, cells, chosen
):
    """The fewest cards taken on this hike's path (selling as planned) that meet the goal,
    NEVER if none does (up to the 5 cells of a path). work[:n_held]: my paintings (see
    held_cards); cells and chosen: room for a path's cells."""
    n_cells = path_takeable(obs, occupied, direction, steps, cells)
    if goal_kind == GOAL_PAINTED:
        return goal_param if n_cells >= goal_param else NEVER
    if goal_kind == GOAL_HOLDS:
        need = max(goal_param - n_held, 0)
        return need if n_cells >= need else NEVER
    if goal_kind == GOAL_ALL_FEATURES or goal_kind == GOAL_SOLD:
        held_features = 0
        for i in range(n_held):
            held_features |= feature_mask(tables, work[i])
        fewest = NEVER
        for mask in range(1 << n_cells):
            size = popcount(mask)
            if size >= fewest:
                continue
            n = subset_cells(cells, mask, chosen)
            if goal_kind == GOAL_ALL_FEATURES:
                features = held_features
                for i in range(n):
                    features |= feature_mask(tables, obs[OBS_GRID + chosen[i]])
                if features == all_features(tables):
                    fewest = size
            else:
                for i in range(n):
                    work[n_held + i] = obs[OBS_GRID + chosen[i]]
                if count_sales(obs, tables, work, n_held + n, work[work.shape[0] // 2 :]) >= (
                    goal_param
                ):
                    fewest = size
        return fewest
    # moved, edge, steps: the hike alone decides
    end = end_cell(obs, direction, steps)
    return 0 if hike_goal_met(goal_kind, goal_param, direction, steps, end, 0) else NEVER


@jit
def hike_key(direction, steps):
    return 0 if steps == 0 else 1 + direction * (GRID_SIZE - 1) + steps - 1


@jit
def held_cards(obs, tables):
    """(work, n): my n unsold paintings fill work[:n], with room after them for a path's
    cards, and the second half of work holds count_sales' used flags."""
    size = 2 * (obs.shape[0] + MAX_PATH)
    work = np.empty(size, dtype=np.int64)
    n_held = seat_paintings(obs, obs[OBS_ME], work)
    return work, n_held


@jit
def run_greedy(kind, obs, options, n_options, params, rng, tables, keep, n_keep):
    """greedy's choice among the option rows flagged in keep (all of them if none is)."""
    greedy_params = np.empty(3, dtype=np.float64)
    greedy_params[0] = params[LATENESS]
    greedy_params[1] = params[COMMISSION]
    greedy_params[2] = params[GOAL]
    if n_keep == 0 or n_keep == n_options:
        return greedy.decide(kind, obs, options, n_options, greedy_params, rng, tables)
    if n_keep == 1:
        for index in range(n_options):
            if keep[index]:
                return index
    rows = np.empty((n_keep, OPTION_WIDTH), dtype=np.int32)
    back = np.empty(n_keep, dtype=np.int64)
    n = 0
    for index in range(n_options):
        if keep[index]:
            rows[n, :] = options[index, :OPTION_WIDTH]
            back[n] = index
            n += 1
    return back[greedy.decide(kind, obs, rows, n_keep, greedy_params, rng, tables)]


@jit
def choose_plan(obs, tables, options, n_options, goal_kind, goal_param, keep):
    """Flags the cards that can meet the goal now; returns the latest-waking of them, -1 if
    none can."""
    occupied = others_mask(obs)
    work, n_held = held_cards(obs, tables)
    fewest = np.full(MAX_HIKES, -1, dtype=np.int64)  # per hike, computed once for all cards
    directions = np.empty(MAX_HIKES, dtype=np.int64)
    steps = np.empty(MAX_HIKES, dtype=np.int64)
    cells = np.empty(MAX_PATH, dtype=np.int64)
    chosen = np.empty(MAX_PATH, dtype=np.int64)
    best_index = -1
    for index in range(n_options):
        plan = options[index, 0]
        n_hikes = plan_hikes(
            obs, occupied, tables.plan_directions[plan], tables.plan_hike[plan], directions, steps
        )
        keep[index] = False
        for h in range(n_hikes):
            key = hike_key(directions[h], steps[h])
            if fewest[key] < 0:
                fewest[key] = fewest_cards(
                    obs,
                    tables,
                    goal_kind,
                    goal_param,
                    directions[h],
                    steps[h],
                    occupied,
                    work,
                    n_held,
                    cells,
                    chosen,
                )
            if fewest[key] <= tables.plan_paint[plan]:
                keep[index] = True
                break
        if keep[index] and (
            best_index < 0 or tables.plan_wake[plan] > tables.plan_wake[options[best_index, 0]]
        ):
            best_index = index
    return best_index


@jit
def paint_meets(obs, tables, goal_kind, goal_param, cells, n, work, n_held):
    if goal_kind == GOAL_PAINTED:
        return n >= goal_param
    if goal_kind == GOAL_HOLDS:
        return n_held + n >= goal_param
    if goal_kind == GOAL_ALL_FEATURES:
        features = 0
        for i in range(n_held):
            features |= feature_mask(tables, work[i])
        for i in range(n):
            features |= feature_mask(tables, obs[OBS_GRID + cells[i]])
        return features == all_features(tables)
    if goal_kind == GOAL_SOLD:
        for i in range(n):
            work[n_held + i] = obs[OBS_GRID + cells[i]]
        return count_sales(obs, tables, work, n_held + n, work[work.shape[0] // 2 :]) >= goal_param
    return True  # decided by the hike


@jit
def without(work, n_held, options, index, out):
    """out = my paintings less those handed in by sale option ``index``; their number."""
    n = 0
    for i in range(n_held):
        handed = False
        for column in range(1, options.shape[1]):
            if options[index, column] == work[i]:
                handed = True
        if not handed:
            out[n] = work[i]
            n += 1
    return n


@jit
def choose_sale(obs, tables, options, n_options, params, rng, goal_kind, goal_param, keep):
    work, n_held = held_cards(obs, tables)
    rest = np.empty(max(n_held, 1), dtype=np.int64)
    keep[0] = True  # "stop selling" is always allowed
    n_keep = 1
    if goal_kind == GOAL_SOLD:
        used = work[work.shape[0] // 2 :]
        can = count_sales(obs, tables, work, n_held, used)
        # R-GOAL-3 counts this turn's sales, which the observation does not show: go on
        # selling when the paintings allow the whole goal, or when a sale was made today
        pursue = can >= goal_param or (can >= 1 and obs[OBS_ROW_LEN] < obs[OBS_N_PLAYERS] + 1)
        if pursue:
            best_index = 0
            best_left = -1
            best_value = -1e18
            for index in range(1, n_options):
                n_rest = without(work, n_held, options, index, rest)
                left = count_sales(obs, tables, rest, n_rest, used)
                value = tables.comm_fame[options[index, 0]] - 0.5 * sale_icons(
                    tables, options, index
                )
                if left > best_left or (left == best_left and value > best_value):
                    best_index = index
                    best_left = left
                    best_value = value
            if best_value > -params[GOAL] * tables.goal_fame[obs[OBS_GOAL]]:
                return best_index
        for index in range(1, n_options):
            keep[index] = True
        n_keep = n_options
    elif goal_kind == GOAL_HOLDS or goal_kind == GOAL_ALL_FEATURES:
        full = all_features(tables)
        held_features = 0
        for i in range(n_held):
            held_features |= feature_mask(tables, work[i])
        for index in range(1, n_options):
            n_rest = without(work, n_held, options, index, rest)
            if goal_kind == GOAL_HOLDS:
                ok = n_rest >= goal_param or n_held < goal_param
            else:
                features = 0
                for i in range(n_rest):
                    features |= feature_mask(tables, rest[i])
                ok = features == full or held_features != full
            keep[index] = ok
            if ok:
                n_keep += 1
    else:
        for index in range(1, n_options):
            keep[index] = True
        n_keep = n_options
    return run_greedy(DECIDE_SALE, obs, options, n_options, params, rng, tables, keep, n_keep)


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    keep = np.zeros(n_options, dtype=np.bool_)
    goal = obs[OBS_GOAL]
    if goal < 0:
        return run_greedy(kind, obs, options, n_options, params, rng, tables, keep, 0)
    goal_kind = tables.goal_kind[goal]
    goal_param = tables.goal_param[goal]
    if kind == DECIDE_PLAN:
        index = choose_plan(obs, tables, options, n_options, goal_kind, goal_param, keep)
        if index >= 0:
            return index
        return run_greedy(kind, obs, options, n_options, params, rng, tables, keep, 0)
    if kind == DECIDE_HIKE:
        occupied = others_mask(obs)
        work, n_held = held_cards(obs, tables)
        paint = tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]]
        cells = np.empty(MAX_PATH, dtype=np.int64)
        chosen = np.empty(MAX_PATH, dtype=np.int64)
        n_keep = 0
        for index in range(n_options):
            fewest = fewest_cards(
                obs,
                tables,
                goal_kind,
                goal_param,
                options[index, 0],
                options[index, 1],
                occupied,
                work,
                n_held,
                cells,
                chosen,
            )
            keep[index] = fewest <= paint
            if keep[index]:
                n_keep += 1
        return run_greedy(kind, obs, options, n_options, params, rng, tables, keep, n_keep)
    if kind == DECIDE_PAINT:
        work, n_held = held_cards(obs, tables)
        cells = np.empty(OPTION_WIDTH, dtype=np.int64)
        n_keep = 0
        for index in range(n_options):
            n = option_cells(options, index, cells)
            keep[index] = paint_meets(obs, tables, goal_kind, goal_param, cells, n, work, n_held)
            if keep[index]:
                n_keep += 1
        return run_greedy(kind, obs, options, n_options, params, rng, tables, keep, n_keep)
    return choose_sale(obs, tables, options, n_options, params, rng, goal_kind, goal_param, keep)


STRATEGY = StrategySpec(
    name="goal-chaser",
    description="Puts today's goal first. When a plan card in hand can meet the goal from "
    "where it stands, it keeps the LATEST-waking such card, to act late and be the last to "
    "meet the goal (R-GOAL-2: the last to meet it keeps it). It hikes, paints and sells so "
    "as to meet the goal (selling more for a 'sold' goal, holding paintings back for 'holds' "
    "and 'all features'), choosing among those moves as greedy would; with no goal in reach "
    "it plays greedy.",
    decide=decide,
    parameters=(
        Parameter("lateness", 0.3, 0.0, 2.0, "greedy's fame lost per 15 minutes later wake-up"),
        Parameter("commission", 1.0, 0.0, 3.0, "greedy's weight of a card's best commission use"),
        Parameter(
            "goal",
            1.0,
            0.0,
            3.0,
            "greedy's goal weight; a sale toward a 'sold' goal may lose "
            "up to goal x the goal's fame",
        ),
    ),
)
