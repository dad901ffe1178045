"""What each card is worth to me now, and the plan, hike and paint choices built on it:
the evaluation of balanced, commission-hunter and greedy-painter. Not a strategy.

A card is worth ``weights[W_ICONS]`` per icon, plus ``weights[W_TARGET]`` times the rate
of the target commission if the card would fill one more of its frames given my unsold
paintings, plus ``weights[W_OTHER]`` times the best such rate among the other visible
commissions, plus ``weights[W_DENY]`` times the best fame per frame of a visible
commission that an opponent collects for (one of their unsold paintings, which are
public, fits one of its frames) and whose frame the card fits. A set of cards is worth
the sum of its cards, so a hike is worth its ``paint`` best cards (plus today's goal),
found as greedy does: for a plan card, one pass per direction (``hike_scan``); for a
hike, one pass down the option rows (``hike_rows``). The sum is an approximation: two cards
that both fill the same single missing frame both count. It keeps these strategies
within 2x of greedy's cost (issue 4); the exact evaluation of a set by matching is in
``_style_tools`` (lookahead's paint decisions use it).

The context it reads (my paintings against each visible commission, by Hall's theorem)
is built once per decision in ``_context``.
"""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._context import (
    ADDS,
    DENY,
    DENY_FIT,
    FEW,
    N_MASKS,
    OTHER_FIT,
    PLAN_DIRECTIONS,
    PLAN_HIKE,
    PLAN_PAINT,
    RATE,
    SHARE,
    TARGET_FIT,
    VIS,
    WEIGHTS,
)
from sunset_sim.strategies._style_tools import (
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
    set_goal_met,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_PAINT,
    DECIDE_PLAN,
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_PAINTED,
    GOAL_SOLD,
    N_CELLS,
    N_DIRECTIONS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_GOAL,
    OBS_GRID,
    OBS_ME,
    OBS_PLAN,
    OBS_POS,
    OPTION_WIDTH,
)
from sunset_sim.strategy_tools import (
    PATH_PREFIX,
    PATH_SHORT,
    PATH_TOP,
    card_features,
    hike_goal_met,
    others_mask,
    path_add_top,
    path_start_top,
    ray_cell,
    row_path_cells,
    stack_empty,
)

MAX_VALUES = 64  # option rows on the stack: 3 plan cards, <= 33 hikes, <= 32 sets of cards
# MASK_BITS[a * N_MASKS + m]: bit m of the 8-bit mask a, as 1.0 or 0.0 (the fit tables
# are a row of it times a rate: one vector multiply, where selects went one at a time)
MASK_BITS = np.array(
    [float((a >> m) & 1) for a in range(1 << N_MASKS) for m in range(N_MASKS)], dtype=np.float64
)


@jit(inline="always")
def earliest_wake(plan_wake):
    """The earliest wake-up time of the card set's plan cards."""
    earliest = plan_wake[0]
    for plan in range(plan_wake.shape[0]):
        earliest = min(earliest, plan_wake[plan])
    return earliest


@jit(inline="always")
def fit_tables(n_vis, ints, floats, target):
    """The per-frame-mask tables of the context, once the target (-1: none) is known."""
    for m in range(N_MASKS):
        floats[TARGET_FIT + m] = 0.0
    for k in range(n_vis):
        rate = floats[RATE + k]
        share = floats[SHARE + k]
        adds = ints[ADDS + k]
        deny = ints[DENY + k]
        for m in range(N_MASKS):  # (x 1.0 or x 0.0: the value or 0.0, rates being >= 0)
            floats[OTHER_FIT + k * N_MASKS + m] = rate * MASK_BITS[adds * N_MASKS + m]
        if floats[WEIGHTS + W_DENY] != 0.0:
            for m in range(N_MASKS):
                floats[DENY_FIT + k * N_MASKS + m] = share * MASK_BITS[deny * N_MASKS + m]
    if target >= 0:
        for m in range(N_MASKS):
            floats[TARGET_FIT + m] = floats[OTHER_FIT + target * N_MASKS + m]
            floats[OTHER_FIT + target * N_MASKS + m] = 0.0


@jit(inline="always")
def card_worth(card, land_icons, land_fit, n_vis, ints, floats, target, with_deny):
    """The worth of one card (see the module docstring); >= 0 for weights >= 0."""
    # (unsigned indices: no wraparound tests; every index here is >= 0)
    row = np.uint64(card)
    target_rate = 0.0
    if target >= 0:
        target_rate = floats[TARGET_FIT + land_fit[row, np.uint64(ints[VIS + target])]]
    other_rate = 0.0
    deny_share = 0.0
    # up to FEW visible, a fixed count (unrolled; past the last, the last again, which
    # changes no maximum): against prepare's FEW alone, in alternating runs, balanced
    # 1.018, commission-hunter 1.027 of its speed
    if 0 < n_vis <= FEW:
        for j in range(FEW):
            k = min(j, n_vis - 1)
            at = np.uint64(k * N_MASKS) + land_fit[row, np.uint64(ints[VIS + k])]
            other_rate = max(other_rate, floats[np.uint64(OTHER_FIT) + at])
            if with_deny:
                deny_share = max(deny_share, floats[np.uint64(DENY_FIT) + at])
    else:
        for k in range(n_vis):
            at = np.uint64(k * N_MASKS) + land_fit[row, np.uint64(ints[VIS + k])]
            other_rate = max(other_rate, floats[np.uint64(OTHER_FIT) + at])
            if with_deny:
                deny_share = max(deny_share, floats[np.uint64(DENY_FIT) + at])
    value = floats[WEIGHTS + W_ICONS] * land_icons[card]
    value += floats[WEIGHTS + W_TARGET] * target_rate + floats[WEIGHTS + W_OTHER] * other_rate
    return value + floats[WEIGHTS + W_DENY] * deny_share


@jit(inline="always")
def hike_met(goal_kind, goal_param, direction, steps, cell, n_taken, n_held, features, full):
    """Whether a hike taking n_taken cards meets today's goal. For "all features" the
    features are those of every takeable cell of the path (optimistic when it paints
    fewer cards than the path has)."""
    if goal_kind < 0 or goal_kind == GOAL_SOLD:
        return False
    if goal_kind == GOAL_PAINTED or goal_kind == GOAL_HOLDS or goal_kind == GOAL_ALL_FEATURES:
        return set_goal_met(goal_kind, goal_param, n_taken, n_held, features, full)
    return hike_goal_met(goal_kind, goal_param, direction, steps, cell, n_taken)


@jit(inline="always")
def hike_start(
    obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
    goal_param, n_held, held_features,
):  # fmt: skip
    """What every hike from here shares: (occupied cells, start cell, the start card's
    worth (-1 if it cannot be painted), the features held with it, every feature type,
    the goal's bonus, with_deny, whether the features taken matter, the cards a hike must
    take to meet a 'painted' or 'holds' goal (N_CELLS + 1: never), whether other goals
    are met by a hike's steps alone)."""
    occupied = others_mask(obs)
    full = (1 << land_features.shape[1]) - 1
    goal_bonus = floats[WEIGHTS + W_GOAL]
    with_deny = floats[WEIGHTS + W_DENY] != 0.0
    track = goal_kind == GOAL_ALL_FEATURES  # the features taken matter
    start = obs[OBS_POS + obs[OBS_ME]]
    start_card = obs[OBS_GRID + start]
    start_value = -1.0
    start_features = held_features
    if start_card >= 0 and not (occupied >> start) & 1:
        start_value = card_worth(
            start_card, land_icons, land_fit, n_vis, ints, floats, target, with_deny
        )
        if track:
            start_features |= card_features(land_features, start_card)
    # hike_met once per step for every card: 'painted' and 'holds' are met when a card
    # takes at least ``need`` cards; the other goals by the step alone (its cells)
    need = N_CELLS + 1  # never
    if goal_kind == GOAL_PAINTED:
        need = goal_param
    elif goal_kind == GOAL_HOLDS:
        need = goal_param - n_held
    by_step = goal_kind >= 0 and goal_kind != GOAL_SOLD and need == N_CELLS + 1
    return (
        occupied, start, start_value, start_features, full, goal_bonus, with_deny, track, need,
        by_step,
    )  # fmt: skip


@jit(inline="always")
def stay_worth(
    occupied, start, start_value, start_features, held_features, paint, goal_kind, goal_param,
    n_held, full, goal_bonus,
):  # fmt: skip
    """The worth of staying put (-1e9 where another artist stands there, R-HIKE-5)."""
    stay = -1e9
    if not (occupied >> start) & 1:
        n_own = 1 if start_value >= 0 and paint > 0 else 0
        stay = start_value if n_own else 0.0
        features = start_features if n_own else held_features
        if hike_met(goal_kind, goal_param, -1, 0, start, n_own, n_held, features, full):
            stay += goal_bonus
    return stay


@jit(_nrt=False, wraparound=False)
def hike_scan(
    obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
    goal_param, n_held, held_features, directions, reach, n_plans, out,
):  # fmt: skip
    """out[i]: the best hike from here now that plan card i (of up to PLAN_HAND: reach
    ints[PLAN_HIKE + i], paint ints[PLAN_PAINT + i], directions ints[PLAN_DIRECTIONS + i],
    in ints, as each array passed costs the call 7+ words) allows, -1e9 if none; a hike is
    worth its paint best cards plus weights[W_GOAL] if today's goal is met. One scan per
    direction serves every card (the same path, a different reach, paint number and
    direction set). The paths keep only as many of their best values as the cards paint
    (PATH_SHORT where no card paints more, as greedy's choose_plan does)."""
    most_paint = 0
    for i in range(PLAN_HAND):
        most_paint = max(most_paint, ints[PLAN_PAINT + i])
    if most_paint <= PATH_SHORT:
        scan_rays(
            obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
            goal_param, n_held, held_features, directions, reach, n_plans, out, PATH_SHORT,
        )  # fmt: skip
    else:
        scan_rays(
            obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
            goal_param, n_held, held_features, directions, reach, n_plans, out, PATH_TOP,
        )  # fmt: skip


@jit(inline="always")
def scan_rays(
    obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
    goal_param, n_held, held_features, directions, reach, n_plans, out, depth,
):  # fmt: skip
    """hike_scan with paths of the ``depth`` largest values (a constant, at least every
    card's paint number)."""
    (
        occupied, start, start_value, start_features, full, goal_bonus, with_deny, track, need,
        by_step,
    ) = hike_start(
        obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
        goal_param, n_held, held_features,
    )  # fmt: skip
    top = stack_empty(PATH_TOP, np.float64)
    prefix = stack_empty(PATH_PREFIX, np.float64)
    # every card's best in a local array of constant size, for a loop LLVM unrolls and
    # keeps in registers (the cards past n_plans have reach 0: they allow no hike)
    best = stack_empty(PLAN_HAND, np.float64)
    reach_here = stack_empty(PLAN_HAND, np.float64)
    need_f = np.float64(need)
    for i in range(PLAN_HAND):
        best[i] = stay_worth(
            occupied, start, start_value, start_features, held_features,
            ints[PLAN_PAINT + i], goal_kind, goal_param, n_held, full, goal_bonus,
        )  # fmt: skip
    for direction in range(N_DIRECTIONS):
        if not (directions >> direction) & 1:
            continue
        n_top = path_start_top(top, prefix, start_value, depth)
        features = start_features
        # card i's reach this way, 0 if it does not go this way, as a float for the
        # selects below: a product of floats, not a select (which cards go which ways
        # varies per deal). A product of ints by the bit LLVM made a select again, and
        # then a branch (perf: bt, jb); ab_bench against ints: greedy 1.084, balanced 1.056
        for i in range(PLAN_HAND):
            allows = np.float64((ints[PLAN_DIRECTIONS + i] >> direction) & 1)
            reach_here[i] = np.float64(ints[PLAN_HIKE + i]) * allows
        for steps in range(1, reach + 1):
            cell = ray_cell(obs, start, direction, steps)
            if cell < 0:  # R-HIKE-3, R-HIKE-4
                break
            card = obs[OBS_GRID + cell]
            if (occupied >> cell) & 1:  # R-HIKE-5: pass through, never end here
                continue  # (nor paint there, R-PAINT-2)
            path_add_top(
                top,
                prefix,
                card_worth(card, land_icons, land_fit, n_vis, ints, floats, target, with_deny),
                depth,
            )
            n_top += 1
            if track:
                features |= card_features(land_features, card)
            step_bonus = 0.0
            if by_step and hike_met(
                goal_kind, goal_param, direction, steps, cell, 0, n_held, features, full
            ):
                step_bonus = goal_bonus
            # card i allows this hike when steps <= its reach here: a select, not a branch
            # (which cards reach how far varies per deal). Both selects test floats: x86
            # has no conditional move for a double, so LLVM blends on a float compare
            # (vcmpsd, vblendvpd) but branched on an integer one (perf showed the jumps);
            # replayed plan decisions, balanced 927 -> 840-859 ns, the same choices
            steps_f = np.float64(steps)
            for i in range(PLAN_HAND):
                paint = ints[PLAN_PAINT + i]
                total = prefix[min(paint, depth)]
                met = np.float64(min(paint, n_top)) >= need_f
                total += goal_bonus if met else step_bonus
                best[i] = max(best[i], total if steps_f <= reach_here[i] else -1e18)
    for i in range(n_plans):
        out[i] = best[i]


@jit(_nrt=False, wraparound=False)
def hike_rows(
    obs, options, n_options, land_icons, land_fit, land_features, n_vis, ints, floats, target,
    goal_kind, goal_param, n_held, held_features, paint, out,
):  # fmt: skip
    """out[i]: the worth of hike option i (as hike_scan values a hike), valued along the
    option rows themselves, as greedy's choose_hike does: a row's path is the previous
    row's plus the cells up to its end when both go the same way (the engines list a
    direction's hikes by ascending steps), else it starts again from the artist. The
    paths keep PATH_SHORT values where the card paints no more (as hike_scan)."""
    if paint <= PATH_SHORT:
        row_values(
            obs, options, n_options, land_icons, land_fit, land_features, n_vis, ints, floats,
            target, goal_kind, goal_param, n_held, held_features, paint, out, PATH_SHORT,
        )  # fmt: skip
    else:
        row_values(
            obs, options, n_options, land_icons, land_fit, land_features, n_vis, ints, floats,
            target, goal_kind, goal_param, n_held, held_features, paint, out, PATH_TOP,
        )  # fmt: skip


@jit(inline="always")
def row_values(
    obs, options, n_options, land_icons, land_fit, land_features, n_vis, ints, floats, target,
    goal_kind, goal_param, n_held, held_features, paint, out, depth,
):  # fmt: skip
    """hike_rows with paths of the ``depth`` largest values (a constant, at least paint)."""
    (
        occupied, start, start_value, start_features, full, goal_bonus, with_deny, track, need,
        by_step,
    ) = hike_start(
        obs, land_icons, land_fit, land_features, n_vis, ints, floats, target, goal_kind,
        goal_param, n_held, held_features,
    )  # fmt: skip
    stay = stay_worth(
        occupied, start, start_value, start_features, held_features, paint, goal_kind,
        goal_param, n_held, full, goal_bonus,
    )  # fmt: skip
    top = stack_empty(PATH_TOP, np.float64)
    prefix = stack_empty(PATH_PREFIX, np.float64)
    path_direction = -1  # the direction and steps of the path in top and prefix
    path_steps = 0
    n_top = 0
    new_cells = stack_empty(PATH_TOP, np.int64)  # the cells a row adds to the path
    features = start_features
    for index in range(n_options):
        direction = options[index, 0]
        steps = options[index, 1]
        if direction < 0:
            out[index] = stay
            continue
        restart, n_new, cell = row_path_cells(
            obs, occupied, start, options, index, path_direction, path_steps, new_cells
        )
        if restart:
            n_top = path_start_top(top, prefix, start_value, depth)
            features = start_features
        path_direction = direction
        for k in range(n_new):
            card = obs[OBS_GRID + new_cells[k]]
            path_add_top(
                top,
                prefix,
                card_worth(card, land_icons, land_fit, n_vis, ints, floats, target, with_deny),
                depth,
            )
            if track:
                features |= card_features(land_features, card)
        n_top += n_new
        path_steps = steps
        step_bonus = 0.0
        if by_step and hike_met(
            goal_kind, goal_param, direction, steps, cell, 0, n_held, features, full
        ):
            step_bonus = goal_bonus
        total = prefix[min(paint, depth)]
        out[index] = total + (goal_bonus if min(paint, n_top) >= need else step_bonus)


@jit(_nrt=False, wraparound=False)
def paint_values(
    obs, options, n_options, land_icons, land_fit, land_features, n_vis, ints, floats,
    target, goal_kind, goal_param, n_held, held_features, out,
):  # fmt: skip
    """out[i]: the worth of paint option i's cards, plus weights[W_GOAL] if they meet a
    goal the cards decide (the hike is already made)."""
    full = (1 << land_features.shape[1]) - 1
    with_deny = floats[WEIGHTS + W_DENY] != 0.0
    track = goal_kind == GOAL_ALL_FEATURES  # the features taken matter
    worth = stack_empty(N_CELLS, np.float64)
    done = 0
    for i in range(n_options):
        value = 0.0
        n = 0
        features = held_features
        for column in range(OPTION_WIDTH):  # (a constant: the loop is unrolled)
            cell = options[i, column]
            if cell < 0:
                continue
            card = obs[OBS_GRID + cell]
            if not (done >> cell) & 1:
                worth[cell] = card_worth(
                    card, land_icons, land_fit, n_vis, ints, floats, target, with_deny
                )
                done |= 1 << cell
            value += worth[cell]
            if track:
                features |= card_features(land_features, card)
            n += 1
        if set_goal_met(goal_kind, goal_param, n, n_held, features, full):
            value += floats[WEIGHTS + W_GOAL]
        out[i] = value


@jit(inline="always")
def option_values(
    kind, obs, options, n_options, tables, n_vis, ints, floats, target, n_held,
    held_features, out,
):  # fmt: skip
    """out[i]: the worth of option i of a plan, hike or paint decision (``prepare`` has
    filled ints and floats). A plan card is worth the best hike it allows now."""
    # today's goal, unless it is worth nothing (greedy-painter): then its bonus adds 0.0
    # everywhere, and no hike or set need be checked against it (nor features tracked)
    goal = obs[OBS_GOAL] if floats[WEIGHTS + W_GOAL] != 0.0 else -1
    goal_kind = tables.goal_kind[goal] if goal >= 0 else -1
    goal_param = tables.goal_param[goal] if goal >= 0 else 0
    fit_tables(n_vis, ints, floats, target)
    if kind == DECIDE_PAINT:
        paint_values(
            obs, options, n_options, tables.land_icons, tables.land_fit, tables.land_features,
            n_vis, ints, floats, target, goal_kind, goal_param, n_held, held_features, out,
        )  # fmt: skip
        return
    if kind != DECIDE_PLAN:  # a hike: every option
        plan = obs[OBS_PLAN + obs[OBS_ME]]
        hike_rows(
            obs, options, n_options, tables.land_icons, tables.land_fit, tables.land_features,
            n_vis, ints, floats, target, goal_kind, goal_param, n_held, held_features,
            tables.plan_paint[plan], out,
        )  # fmt: skip
        return
    reach = 0  # a plan card: the best hike it allows
    wanted = 0
    for i in range(PLAN_HAND):  # (the cards past n_options allow nothing)
        ints[PLAN_HIKE + i] = 0
        ints[PLAN_PAINT + i] = 0
        ints[PLAN_DIRECTIONS + i] = 0
    for i in range(n_options):
        plan = options[i, 0]
        ints[PLAN_HIKE + i] = tables.plan_hike[plan]
        ints[PLAN_PAINT + i] = tables.plan_paint[plan]
        ints[PLAN_DIRECTIONS + i] = tables.plan_directions[plan]
        reach = max(reach, ints[PLAN_HIKE + i])
        wanted |= ints[PLAN_DIRECTIONS + i]
    hike_scan(
        obs, tables.land_icons, tables.land_fit, tables.land_features, n_vis, ints, floats,
        target, goal_kind, goal_param, n_held, held_features, wanted, reach, n_options, out,
    )  # fmt: skip
