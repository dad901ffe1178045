"""Shared numba helpers of the play-style strategies: the exact evaluation of a set of
cards by matching, which lookahead uses for its paint decisions, and the path helpers of
goal-chaser. (balanced, commission-hunter and greedy-painter value cards one by one, at
greedy's cost: ``_card_worth``.) Not a strategy: it defines no ``STRATEGY``.

Everything reads only the observation, the option rows and the card tables:

- hikes a plan card would allow now (for plan decisions, where no hike options exist yet),
  the takeable cells of a hike's path (R-PAINT-1/2) and subsets of them;
- commission progress: how many frames of a commission a set of paintings can fill at
  once (a bipartite matching of paintings to frames, by the deficiency form of Hall's
  theorem: with at most 3 frames there are at most 7 frame subsets to try);
- a weighted value of a set of cards (icons, progress toward a target commission and
  toward the best other visible commission, cards that opponents need, today's goal).
"""

from __future__ import annotations

import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_PAINTED,
    GRID_SIZE,
    MAX_FRAMES,
    N_CELLS,
    N_DIRECTIONS,
)
from sunset_sim.observation import (
    MAX_ROW,
    OBS_COMM_PLACE,
    OBS_GOAL,
    OBS_GRID,
    OBS_LAND_PLACE,
    OBS_ME,
    OBS_N_PLAYERS,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_WIDTH,
)
from sunset_sim.strategy_tools import popcount, takeable_cells

MAX_PATH = GRID_SIZE  # a straight path holds the start and at most 4 further cells
MAX_HIKES = 1 + N_DIRECTIONS * (GRID_SIZE - 1)  # the stay, then up to 4 steps each way
MAX_VISIBLE = MAX_ROW + 1  # the commission row and the preview
N_MASKS = 1 << MAX_FRAMES  # frame subsets of a commission
BIG = 1e9

# weights of ``set_value`` (a float64 vector of N_WEIGHTS)
W_ICONS = 0  # per icon on the cards taken
W_TARGET = 1  # per unit of progress (frames filled x rate) toward the target commission
W_OTHER = 2  # per unit of progress toward the best other visible commission
W_DENY = 3  # per unit of "an opponent needs this card" (deny_values)
W_GOAL = 4  # added when the hike and set meet today's goal (fame-equivalents)
N_WEIGHTS = 5

# rate of a commission's progress (``commission_state``)
RATE_SHARE = 0  # fame per frame
RATE_MISSING = 1  # fame per frame still missing


@jit
def path_takeable(obs, occupied, direction, steps, cells):
    """The takeable cells of a hike's path, in path order (R-PAINT-1/2); their number."""
    return takeable_cells(obs, occupied, obs[OBS_POS + obs[OBS_ME]], direction, steps, cells)


@jit
def option_cells(options, index, cells):
    """The cells of a paint option row; their number."""
    n = 0
    for column in range(OPTION_WIDTH):
        if options[index, column] >= 0:
            cells[n] = options[index, column]
            n += 1
    return n


@jit
def cells_icons(obs, tables, cells, n):
    icons = 0
    for i in range(n):
        icons += tables.land_icons[obs[OBS_GRID + cells[i]]]
    return icons


@jit
def subset_cells(cells, mask, out):
    """out = the cells picked by the bitmask over positions in ``cells``; their number."""
    n = 0
    position = 0
    while mask:
        if mask & 1:
            out[n] = cells[position]
            n += 1
        mask >>= 1
        position += 1
    return n


@jit
def feature_mask(tables, card):
    mask = 0
    for feature in range(tables.land_features.shape[1]):
        if tables.land_features[card, feature] > 0:
            mask |= 1 << feature
    return mask


@jit(inline="always")
def all_features(tables):
    return (1 << tables.land_features.shape[1]) - 1


@jit
def n_landscapes(obs):
    return obs[OBS_COMM_PLACE] - obs[OBS_LAND_PLACE]


@jit
def seat_paintings(obs, seat, out):
    """A seat's unsold paintings (public: place == seat); their number."""
    base = obs[OBS_LAND_PLACE]
    n = 0
    for card in range(n_landscapes(obs)):
        if obs[base + card] == seat:
            out[n] = card
            n += 1
    return n


@jit
def paintings_features(obs, tables, seat):
    """The feature types a seat's unsold paintings show together, as a bitmask."""
    base = obs[OBS_LAND_PLACE]
    mask = 0
    for card in range(n_landscapes(obs)):
        if obs[base + card] == seat:
            mask |= feature_mask(tables, card)
    return mask


@jit
def visible_commissions(obs, include_preview, out):
    """The row's commissions, then the preview if wanted and present; (number, preview slot
    or -1)."""
    n = 0
    for slot in range(obs[OBS_ROW_LEN]):
        out[n] = obs[OBS_ROW + slot]
        n += 1
    preview_slot = -1
    if include_preview and obs[OBS_PREVIEW] >= 0:
        out[n] = obs[OBS_PREVIEW]
        preview_slot = n
        n += 1
    return n, preview_slot


@jit
def frame_mask(tables, card, commission):
    """Bit ``slot`` set where the landscape fits frame ``slot`` of the commission (R-SELL-3)."""
    mask = 0
    for slot in range(tables.comm_n_frames[commission]):
        if tables.match[card, tables.comm_frames[commission, slot]]:
            mask |= 1 << slot
    return mask


@jit
def matched(n_frames, hist, extra, n_extra):
    """How many frames can be filled at once by distinct paintings: ``hist[m]`` paintings
    fit exactly the frame subset ``m``, plus ``extra[:n_extra]`` (frame masks of more cards).
    By Hall: frames - max over frame subsets S of (|S| - paintings fitting some frame of S)."""
    worst = 0
    for subset in range(1, 1 << n_frames):
        fitting = 0
        for m in range(1, N_MASKS):
            if m & subset:
                fitting += hist[m]
        for e in range(n_extra):
            if extra[e] & subset:
                fitting += 1
        deficiency = popcount(subset) - fitting
        if deficiency > worst:
            worst = deficiency
    return n_frames - worst


@jit
def fill_hist(tables, cards, n_cards, commission, hist):
    """hist[m]: how many of the cards fit exactly the frame subset m of the commission."""
    hist[:] = 0
    for i in range(n_cards):
        hist[frame_mask(tables, cards[i], commission)] += 1


@jit
def commission_state(
    obs, tables, seat, include_preview, rate_mode, preview_factor, vis, hist, base, rate, work
):
    """Each visible commission's frame-fit histogram of ``seat``'s unsold paintings, the
    frames they fill (``base``), and the fame ``rate`` of one more frame filled:
    fame / frames (RATE_SHARE) or fame / frames still missing (RATE_MISSING), times
    ``preview_factor`` for the preview. Returns (number visible, preview slot or -1)."""
    n_vis, preview_slot = visible_commissions(obs, include_preview, vis)
    n_cards = seat_paintings(obs, seat, work)
    for k in range(n_vis):
        commission = vis[k]
        fill_hist(tables, work, n_cards, commission, hist[k])
        base[k] = matched(tables.comm_n_frames[commission], hist[k], work, 0)
        fame = float(tables.comm_fame[commission])
        if rate_mode == RATE_MISSING:
            rate[k] = fame / max(tables.comm_n_frames[commission] - base[k], 1)
        else:
            rate[k] = fame / tables.comm_n_frames[commission]
        if k == preview_slot:
            rate[k] *= preview_factor
    return n_vis, preview_slot


@jit
def cell_masks(obs, tables, vis, n_vis, masks):
    """masks[cell, k]: the frames of visible commission k the card on the cell fits."""
    for cell in range(N_CELLS):
        card = obs[OBS_GRID + cell]
        for k in range(n_vis):
            masks[cell, k] = frame_mask(tables, card, vis[k]) if card >= 0 else 0


@jit
def deny_values(obs, tables, vis, n_vis, masks, deny, work, hist_row, extra):
    """deny[cell]: the most fame per frame of a visible commission whose missing frame the
    card would fill for some opponent, given that opponent's unsold paintings (public)."""
    deny[:] = 0.0
    me = obs[OBS_ME]
    for seat in range(obs[OBS_N_PLAYERS]):
        if seat == me:
            continue
        n_cards = seat_paintings(obs, seat, work)
        for k in range(n_vis):
            commission = vis[k]
            n_frames = tables.comm_n_frames[commission]
            fill_hist(tables, work, n_cards, commission, hist_row)
            before = matched(n_frames, hist_row, extra, 0)
            if before == n_frames:
                continue
            share = tables.comm_fame[commission] / n_frames
            for cell in range(N_CELLS):
                if masks[cell, k] == 0 or deny[cell] >= share:
                    continue
                extra[0] = masks[cell, k]
                if matched(n_frames, hist_row, extra, 1) > before:
                    deny[cell] = share


@jit
def evaluation(obs, tables, seat, include_preview, rate_mode, preview_factor, with_deny):
    """Everything ``set_value`` needs, for one decision: (n_vis, preview slot, vis, hist,
    base, rate, masks, deny, work, extra)."""
    vis = np.empty(MAX_VISIBLE, dtype=np.int64)
    hist = np.zeros((MAX_VISIBLE, N_MASKS), dtype=np.int64)
    base = np.zeros(MAX_VISIBLE, dtype=np.int64)
    rate = np.zeros(MAX_VISIBLE, dtype=np.float64)
    masks = np.zeros((N_CELLS, MAX_VISIBLE), dtype=np.int64)
    deny = np.zeros(N_CELLS, dtype=np.float64)
    work = np.empty(max(n_landscapes(obs), 1), dtype=np.int64)
    extra = np.empty(2 * MAX_PATH, dtype=np.int64)
    n_vis, preview_slot = commission_state(
        obs, tables, seat, include_preview, rate_mode, preview_factor, vis, hist, base, rate, work
    )
    cell_masks(obs, tables, vis, n_vis, masks)
    if with_deny:
        deny_values(obs, tables, vis, n_vis, masks, deny, work, np.zeros(N_MASKS, np.int64), extra)
    return n_vis, preview_slot, vis, hist, base, rate, masks, deny, work, extra


@jit
def set_value(
    obs, tables, cells, n, weights, n_vis, vis, hist, base, rate, masks, target, deny, extra
):
    """The weighted value of taking the cards on ``cells[:n]`` (today's goal not included):
    icons, frames they fill toward the target commission and toward the best other
    visible one (each times its rate), and how much opponents need them."""
    value = weights[W_ICONS] * cells_icons(obs, tables, cells, n)
    if weights[W_TARGET] != 0.0 or weights[W_OTHER] != 0.0:
        target_value = 0.0
        other_value = 0.0
        for k in range(n_vis):
            n_extra = 0
            for i in range(n):
                m = masks[cells[i], k]
                if m:
                    extra[n_extra] = m
                    n_extra += 1
            if n_extra == 0:
                continue
            gain = matched(tables.comm_n_frames[vis[k]], hist[k], extra, n_extra) - base[k]
            if gain <= 0:
                continue
            progress = gain * rate[k]
            if k == target:
                target_value = progress
            elif progress > other_value:
                other_value = progress
        value += weights[W_TARGET] * target_value + weights[W_OTHER] * other_value
    if weights[W_DENY] != 0.0:
        for i in range(n):
            value += weights[W_DENY] * deny[cells[i]]
    return value


@jit(inline="always")
def set_goal_met(goal_kind, goal_param, n_taken, n_held, features_after, full):
    """Goals decided by the cards taken (and no sale): painted n, holds n, all features."""
    if goal_kind == GOAL_PAINTED:
        return n_taken >= goal_param
    if goal_kind == GOAL_HOLDS:
        return n_held + n_taken >= goal_param
    if goal_kind == GOAL_ALL_FEATURES:
        return features_after == full
    return False


@jit
def goal_of(obs, tables, weight):
    """(kind, param, bonus = weight x fame) of today's goal; kind -1 if there is none."""
    goal = obs[OBS_GOAL]
    if goal < 0:
        return -1, 0, 0.0
    return tables.goal_kind[goal], tables.goal_param[goal], weight * tables.goal_fame[goal]


@jit
def paint_values(obs, tables, options, n_options, weights, target, lookup, out):
    """out[i]: the value of paint option i, with the goal bonus for goals the set decides
    (painted n, holds n, all features; the hike is already made)."""
    n_vis, _, vis, hist, base, rate, masks, deny, work, extra = lookup
    me = obs[OBS_ME]
    goal_kind, goal_param, _ = goal_of(obs, tables, 0.0)
    n_held = seat_paintings(obs, me, work)
    held_features = paintings_features(obs, tables, me)
    full = all_features(tables)
    cells = np.empty(options.shape[1], dtype=np.int64)
    for i in range(n_options):
        n = option_cells(options, i, cells)
        value = set_value(
            obs, tables, cells, n, weights, n_vis, vis, hist, base, rate, masks, target, deny, extra
        )
        if goal_kind >= 0:
            features = held_features
            for j in range(n):
                features |= feature_mask(tables, obs[OBS_GRID + cells[j]])
            if set_goal_met(goal_kind, goal_param, n, n_held, features, full):
                value += weights[W_GOAL]
        out[i] = value


@jit(inline="always")
def argmax(values, n):
    """The first index of the largest of values[:n]. The best so far stays in registers
    and is replaced by selects (which option wins depends on the deal: a branch would
    mispredict); unsigned indices take no wraparound test."""
    best_index = 0
    best = values[0]
    for i in range(1, n):
        value = values[np.uint64(i)]
        better = value > best
        best = value if better else best
        best_index = i if better else best_index
    return best_index
