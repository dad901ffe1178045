"""lookahead: Monte Carlo over the hidden information, with fast rollouts of the day.

Plan decision (R-PLAN-2: only public information and its own three cards). For each of
``samples`` samples it draws, for every other player, a hand of three plan cards from the
card set's plan cards and lets that player keep the one a greedy model prefers (its best
hike from where it stands now, less a price for waking later); it draws a random order
for players with equal wake-up times (R-ORD-2 as the default ``random`` tie-break) and a
small random perturbation of the opponents' card values. Then, for each of its own three
cards on the same sample (common random numbers), it plays the day out: every player in
wake-up order (R-ORD-1) makes the fast policy's hike and paint (``_rollout.py``) on a
scratch copy of the grid (cards taken disappear, artists block, R-HIKE-3..5, R-PAINT-2)
and today's goal goes to the last player who meets it (R-GOAL-2). A card is worth to a player half its icons
(leftover fame, R-END-2, times ``leftover``) plus ``commission`` times the worth of a
frame of the best visible commission whose frame it would newly fill given that player's
public unsold paintings (fame per frame, moved toward fame per missing frame by
``urgency``). The score of a rollout is its own gain minus ``rivalry`` times the mean gain
of the others; it keeps the card with the best mean score, less a price (``spend``) for
spending a late card early. After two samples it stops as soon as one card's mean leads
every other's by ``margin`` (most decisions are clear by then). The players before it in
a sample's order play the same moves whatever its card: they are played once per sample.

Hike decision (the plans and the order are public now). It values every hike with the
best set of cards it could paint (commission progress counted as a set, exactly, by
Hall's theorem: _context.HALL), keeps the ``candidates`` best, and for each plays out
the rest of the day (the players after it, with the same fast policy): whether it keeps
today's goal and what the later players can still take both depend on its hike. With
``hike_samples`` 1 (the default) that is one rollout with the opponents' unperturbed
values; with more, each is played that many times with perturbed values.

Paint and sale decisions use ``balanced``'s exact evaluation with these weights.

Speed (issue 16): one pass per decision builds the card values of the seats it plays
(each seat's paintings kept as a Hall table key per visible commission, so a set of cards
is valued by adding them to the key: no matching, no count arrays copied; the values are
taken commission by commission over all cells), scratch arrays live on the stack, the
opponents' model values all plan cards in one walk per direction (the best hike per
direction, reach and paint number), a hike set's worth is computed once per direction,
the fast policy keeps only the path's best cards it can paint, and a hike decision values
cards only for the players after it; card features are read only for an "all features"
goal (else left 0). The rollouts' grid is a bit mask of the cells holding a card (one
integer copied per card or candidate), and a rollout turn is reused, within a sample,
for my other cards or hike candidates when the seat has the same plan card and the grid
agrees on the cells that turn read (``_rollout.play_out``'s memo). What each seat would
value, from public information only, is worked out in ``_public_values.py`` (its
per-cell rows padded to 32 cells so that seat_values runs in whole vector steps). The worker
functions compile without reference counting or wrap-around tests (``jit(_nrt=False,
wraparound=False)``; every index is 0 or more), and the small ones called per sample or
per set (play_out, set_worth, goal_state) are inlined: a call copied a dozen array
headers. At most 3 plan samples by default (4 before; head to head against tuned
balanced on the strength ladder's deals 0.540 against 0.539).

Approximations: the rollouts cover only the rest of today (no refills: they happen at
clean-up, after the day); opponents' past plan cards are not visible in the observation,
so their hands are drawn from every plan card; the fast policy values cards one by one
(no sales, and a "sold" goal is never counted as met in a rollout); the tie-break rule
option is not visible, so ties are always ordered at random.
"""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._lookahead_parameters import (
    CANDIDATES,
    COMMISSION,
    GOAL,
    HIKE_SAMPLES,
    LEFTOVER,
    NOISE,
    PARAMETERS,
    RIVALRY,
    URGENCY,
)
from sunset_sim.strategies._lookahead_plan import (
    SEAT_CELLS,
    STACK_PLANS,
    choose_plan,
    goal_state,
    plan_on_stack,
    position_weight,
)
from sunset_sim.strategies._public_values import (
    FIT_STRIDE,
    SEAT_VIS,
    cell_state,
    grid_present,
    mobility_of,
    perturb,
    picked_cells,
    pos_copy,
    seat_state,
    seat_values,
    set_worth,
)
from sunset_sim.strategies._rollout import (
    MEMO_SLOTS,
    memo_clear,
    play_out,
    rollout_goal_met,
    rollout_score,
)
from sunset_sim.strategies._style_tools import (
    BIG,
    MAX_HIKES,
    MAX_PATH,
    MAX_VISIBLE,
    all_features,
    argmax,
    option_cells,
    path_takeable,
    set_goal_met,
    visible_commissions,
)

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PLAN,
    DECIDE_SALE,
    GOAL_ALL_FEATURES,
    MAX_PLAYERS,
    N_CELLS,
    N_DIRECTIONS,
)
from sunset_sim.observation import (
    OBS_DAY,
    OBS_DAYS,
    OBS_GOAL,
    OBS_GOAL_HOLDER,
    OBS_ME,
    OBS_N_PLAYERS,
    OBS_ORDER,
    OBS_PLAN,
    OBS_TURN_POS,
    OPTION_WIDTH,
)
from sunset_sim.strategy import StrategySpec
from sunset_sim.strategy_tools import (
    others_mask,
    sale_value,
    stack_empty,
)

# scratch sizes (stack arrays need module-level constants)
CELL_VIS = MAX_VISIBLE * FIT_STRIDE  # per visible commission and cell (padded)
HIKE_CELLS = MAX_HIKES * MAX_PATH  # the cells each hike option would paint
PATH_SUBSETS = 1 << MAX_PATH  # sets of a path's cells, as bit masks over its positions
PATH_SETS = N_DIRECTIONS * PATH_SUBSETS  # my_hikes: a set's worth per direction and mask
# my_hikes: the number of path positions in each set (a lookup: counting bits loops)
SUBSET_SIZE = np.array([bin(mask).count("1") for mask in range(PATH_SUBSETS)], dtype=np.int64)


# ---- the decisions ------------------------------------------------------------------------


@jit(_nrt=False, wraparound=False)
def my_hikes(
    obs, paint, full, options, n_options, params, context, rates, goal_kind, goal_param,
    goal_bonus, value_out, met_out, n_out, cells_out,
):  # fmt: skip
    """For each hike option: the best set of cards to paint by the balanced evaluation
    (set_worth, commission progress by matching) and whether it meets today's goal:
    value_out[option] without the goal, met_out[option], n_out[option] cells, stored in
    cells_out[option * MAX_PATH ...]. A hike's takeable cells start its direction's longer
    hikes' (the same path walked further), so a set's worth is computed once per direction
    and set of path positions. ``paint``: the cards my plan card paints; ``full``:
    all_features."""
    n_vis, n_frames, fit, cell_features, cell_icons, held, features, keys, filled = context
    me = obs[OBS_ME]
    occupied = others_mask(obs)
    w_icons = 0.5 * params[LEFTOVER]
    w_commission = params[COMMISSION]
    cells = stack_empty(MAX_PATH, np.int64)
    chosen = stack_empty(MAX_PATH, np.int64)
    worth = stack_empty(PATH_SETS, np.float64)  # [direction * PATH_SUBSETS + mask]
    known = stack_empty(N_DIRECTIONS, np.int64)  # bit mask: worth[...] is set
    for direction in range(N_DIRECTIONS):
        known[direction] = 0
    for index in range(n_options):
        direction = options[index, 0]
        steps = options[index, 1]
        end = options[index, 2]
        n_cells = path_takeable(obs, occupied, direction, steps, cells)
        # With w_icons > 0 one more card always adds value (and never loses the goal), so
        # only the largest sets can be best: the first best in mask order is among them.
        smallest = min(paint, n_cells) if w_icons > 0.0 else 0
        best = -BIG
        met_out[index] = False
        n_out[index] = 0
        for mask in range(1 << n_cells):
            size = SUBSET_SIZE[mask]
            if size > paint or size < smallest:
                continue
            n = picked_cells(cells, n_cells, mask, chosen)
            if direction >= 0 and (known[direction] >> mask) & 1:
                value = worth[direction * PATH_SUBSETS + mask]
            else:
                value = set_worth(
                    chosen, n, me, n_vis, n_frames, fit, cell_icons, keys, filled, rates,
                    w_icons, w_commission,
                )  # fmt: skip
                if direction >= 0:  # (the stay, direction -1, has one cell at most)
                    worth[direction * PATH_SUBSETS + mask] = value
                    known[direction] |= 1 << mask
            taken = features[me]
            if goal_kind == GOAL_ALL_FEATURES:
                for i in range(n):
                    taken |= cell_features[chosen[i]]
            met = rollout_goal_met(
                goal_kind, goal_param, direction, steps, end, n, held[me], taken, full
            )
            total = value + (goal_bonus if met else 0.0)
            if total > best:
                best = total
                value_out[index] = value
                met_out[index] = met
                n_out[index] = n
                for i in range(n):
                    cells_out[index * MAX_PATH + i] = chosen[i]


@jit(_nrt=False, wraparound=False)
def choose_hike(obs, options, n_options, params, rng, tables, context, rates, later, base):
    """The candidate hike (best one-ply first) with the best mean score of the rest of the
    day played out; ``base`` holds the card values of the seats in the bitmask ``later``
    (the players after me today)."""
    me = obs[OBS_ME]
    n_players = obs[OBS_N_PLAYERS]
    _, _, _, cell_features, _, held, features, _, _ = context
    goal_kind, goal_param, goal_value = goal_state(obs, tables, params)
    goal = obs[OBS_GOAL]
    goal_bonus = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    value = stack_empty(MAX_HIKES, np.float64)
    met = stack_empty(MAX_HIKES, np.bool_)
    n_cells = stack_empty(MAX_HIKES, np.int64)
    cells = stack_empty(HIKE_CELLS, np.int64)
    full = all_features(tables)
    my_hikes(
        obs, tables.plan_paint[obs[OBS_PLAN + me]], full, options, n_options, params, context,
        rates, goal_kind, goal_param, goal_bonus, value, met, n_cells, cells,
    )  # fmt: skip
    # the candidates: the best hikes by the one-ply value, best first (stable)
    one_ply = stack_empty(MAX_HIKES, np.float64)
    candidates = stack_empty(MAX_HIKES, np.int64)
    mobility = position_weight(obs, params)
    for index in range(n_options):
        one_ply[index] = value[index] + (goal_value if met[index] else 0.0)
        if mobility != 0.0:
            one_ply[index] += mobility * mobility_of(tables, options[index, 2])
        j = index  # insertion: after every option with a value at least as high
        while j > 0 and one_ply[candidates[j - 1]] < one_ply[index]:
            candidates[j] = candidates[j - 1]
            j -= 1
        candidates[j] = index
    n_candidates = min(n_options, max(1, int(params[CANDIDATES])))
    if n_candidates == 1:
        return candidates[0]
    plans = stack_empty(MAX_PLAYERS, np.int64)
    order = stack_empty(MAX_PLAYERS, np.int64)
    for seat in range(n_players):
        plans[seat] = obs[OBS_PLAN + seat]
        order[seat] = obs[OBS_ORDER + seat]
    first = obs[OBS_TURN_POS] + 1  # the players still to come today
    samples = max(1, int(params[HIKE_SAMPLES])) if first < n_players else 1
    values = stack_empty(SEAT_CELLS, np.float64)
    start_present = grid_present(obs)
    pos = stack_empty(MAX_PLAYERS, np.int64)
    gains = stack_empty(MAX_PLAYERS, np.float64)
    score = stack_empty(MAX_HIKES, np.float64)
    for c in range(n_candidates):
        score[c] = 0.0
    memo = stack_empty(MEMO_SLOTS, np.int64)  # play_out's turns, reused across candidates
    memo_value = stack_empty(MAX_PLAYERS, np.float64)
    played = base  # one sample plays the unperturbed values (the model's mean)
    for _ in range(samples):
        memo_clear(memo)
        if samples > 1 and first < n_players:
            perturb(values, base, me, n_players, later, params[NOISE], rng)
            played = values
        for c in range(n_candidates):
            index = candidates[c]
            for seat in range(MAX_PLAYERS):
                gains[seat] = 0.0
            gains[me] = value[index]
            holder = me if met[index] else obs[OBS_GOAL_HOLDER]
            if first < n_players:  # (the last player's hike ends the day's turns)
                present = start_present
                pos_copy(obs, n_players, pos)
                for i in range(n_cells[index]):
                    present &= ~(1 << cells[index * MAX_PATH + i])
                pos[me] = options[index, 2]
                holder, _ = play_out(
                    order, first, n_players, n_players, plans, present, pos, played,
                    tables.plan_directions, tables.plan_hike, tables.plan_paint, cell_features,
                    goal_kind, goal_param, goal_value, held, features, full, gains, holder,
                    memo, memo_value,
                )  # fmt: skip
            score[c] += rollout_score(gains, holder, goal_value, me, n_players, params[RIVALRY])
            if mobility != 0.0:
                score[c] += mobility * mobility_of(tables, options[index, 2])
    return candidates[argmax(score, n_candidates)]


@jit(_nrt=False, wraparound=False)
def paint_choice(obs, options, n_options, params, tables, context, rates):
    """The paint option with the best set_worth, plus today's goal when the set decides it
    (painted n, holds n, all features: the hike is already made)."""
    n_vis, n_frames, fit, cell_features, cell_icons, held, features, keys, filled = context
    me = obs[OBS_ME]
    goal = obs[OBS_GOAL]
    goal_kind = tables.goal_kind[goal] if goal >= 0 else -1
    goal_param = tables.goal_param[goal] if goal >= 0 else 0
    goal_bonus = params[GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    full = all_features(tables)
    w_icons = 0.5 * params[LEFTOVER]
    w_commission = params[COMMISSION]
    cells = stack_empty(MAX_PATH, np.int64)
    best_index = 0
    best = 0.0
    for i in range(n_options):
        n = option_cells(options, i, cells)
        value = set_worth(
            cells,
            n,
            me,
            n_vis,
            n_frames,
            fit,
            cell_icons,
            keys,
            filled,
            rates,
            w_icons,
            w_commission,
        )
        if goal_kind >= 0:
            taken = features[me]
            for j in range(n):
                taken |= cell_features[cells[j]]
            if set_goal_met(goal_kind, goal_param, n, held[me], taken, full):
                value += goal_bonus
        if i == 0 or value > best:
            best = value
            best_index = i
    return best_index


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_SALE:  # fame against the weighted leftover fame handed in
        best_index = 0
        best = 0.0
        for index in range(1, n_options):
            value = sale_value(
                options, index, tables.comm_fame, tables.land_icons, params[LEFTOVER]
            )
            if value > best:
                best = value
                best_index = index
        return best_index
    if n_options == 1:  # nothing to choose (a hike or paint decision with one option)
        return 0
    n_players = obs[OBS_N_PLAYERS]
    vis = stack_empty(MAX_VISIBLE, np.int64)
    include_preview = obs[OBS_DAY] < obs[OBS_DAYS]  # the preview joins the row tomorrow
    n_vis, _ = visible_commissions(obs, include_preview, vis)
    n_frames = stack_empty(MAX_VISIBLE, np.int64)
    for k in range(n_vis):
        n_frames[k] = tables.comm_n_frames[vis[k]]
    # the card tables the per-decision state reads
    cards = (
        tables.land_features, tables.land_fit, tables.land_icons, tables.comm_fame,
        tables.comm_n_frames,
    )  # fmt: skip
    fit = stack_empty(CELL_VIS, np.int64)
    cell_features = stack_empty(N_CELLS, np.int64)
    cell_icons = stack_empty(N_CELLS, np.int64)
    cell_mask = (1 << N_CELLS) - 1
    if kind != DECIDE_PLAN and kind != DECIDE_HIKE:  # paint: the cells of the options
        cell_mask = 0
        for i in range(n_options):
            for column in range(OPTION_WIDTH):
                if options[i, column] >= 0:
                    cell_mask |= 1 << options[i, column]
    goal = obs[OBS_GOAL]  # the features of cards matter only to an "all features" goal
    with_features = goal >= 0 and tables.goal_kind[goal] == GOAL_ALL_FEATURES
    cell_state(obs, cards, cell_mask, vis, n_vis, with_features, fit, cell_features, cell_icons)
    held = stack_empty(MAX_PLAYERS, np.int64)
    features = stack_empty(MAX_PLAYERS, np.int64)
    keys = stack_empty(SEAT_VIS, np.int64)
    adds = stack_empty(SEAT_VIS, np.int64)
    filled = stack_empty(SEAT_VIS, np.int64)
    rates = stack_empty(SEAT_VIS, np.float64)
    me = obs[OBS_ME]
    wanted = (1 << n_players) - 1  # the seats whose card values are needed
    if kind == DECIDE_HIKE:  # me (my hikes) and the players still to come today
        wanted = 1 << me
        for position in range(obs[OBS_TURN_POS] + 1, n_players):
            wanted |= 1 << obs[OBS_ORDER + position]
    elif kind != DECIDE_PLAN:  # paint: only my own
        wanted = 1 << me
    seat_state(
        obs, cards, n_players, wanted, vis, n_vis, params[URGENCY], with_features, held,
        features, keys, adds, filled, rates,
    )  # fmt: skip
    context = (n_vis, n_frames, fit, cell_features, cell_icons, held, features, keys, filled)
    if kind != DECIDE_PLAN and kind != DECIDE_HIKE:  # DECIDE_PAINT
        return paint_choice(obs, options, n_options, params, tables, context, rates)
    played = wanted  # the seats the rollouts play: in a hike decision, those after me
    if kind == DECIDE_HIKE:
        played &= ~(1 << me)
    base = stack_empty(SEAT_CELLS, np.float64)
    seat_values(
        obs, n_players, played, n_vis, fit, cell_icons, adds, rates, 0.5 * params[LEFTOVER],
        params[COMMISSION], base,
    )  # fmt: skip
    if kind == DECIDE_PLAN:  # (plan_on_stack directly when it fits: one call fewer)
        if tables.plan_wake.shape[0] <= STACK_PLANS:
            return plan_on_stack(
                obs, options, n_options, params, rng, tables, held, features, cell_features, base
            )
        return choose_plan(
            obs, options, n_options, params, rng, tables, held, features, cell_features, base
        )
    return choose_hike(obs, options, n_options, params, rng, tables, context, rates, played, base)


STRATEGY = StrategySpec(
    name="lookahead",
    description="Monte Carlo. For its plan card it samples the other players' hidden plan "
    "cards (a hand of three from the plan cards, the one a greedy model prefers kept) and the "
    "order of equal wake-up times, and plays the day out for each of its three cards with a "
    "fast greedy policy for every player on a scratch grid; for its hike it plays out the "
    "rest of the day after each of its best hikes. It keeps what scores best: its own gain "
    "(leftover points, commission progress, today's goal) less `rivalry` times the others' "
    "mean gain. Paint and sale as balanced.",
    decide=decide,
    parameters=PARAMETERS,
    reads_unseen_commissions=False,  # values only the row and the preview
)
