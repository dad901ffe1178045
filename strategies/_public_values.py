"""lookahead's model of the table from public information only: what each seat would
value on each cell (its unsold paintings as Hall keys per visible commission, the
frames a card newly fills, icons), the noise on the other seats' values, and the grid
as the rollouts (``_rollout.py``) read it. The decisions are in ``lookahead.py`` and
``_lookahead_plan.py``."""

from __future__ import annotations

import numpy as np
from sunset_sim.strategies._context import FRAMES_OFFSET, HALL
from sunset_sim.strategies._style_tools import MAX_VISIBLE

from sunset_sim.engine.jit import jit
from sunset_sim.enums import MAX_PLAYERS, N_CELLS, N_DIRECTIONS
from sunset_sim.observation import OBS_COMM_PLACE, OBS_GRID, OBS_LAND_PLACE, OBS_POS
from sunset_sim.strategy_tools import card_features, draw_at, lowest_bit, stack_empty, step_cell

NOISE_STEPS = 1024  # perturbations are drawn as rng_below(NOISE_STEPS) / NOISE_STEPS
SEAT_VIS = MAX_PLAYERS * MAX_VISIBLE  # one entry per seat and visible commission
# fit's row per visible commission: the cells padded to 32 (fit 0 past N_CELLS), so that
# seat_values' loop over a row compiles to whole vector steps
FIT_STRIDE = 32

# ---- what each seat would value (public information only) ------------------------------------


@jit(_nrt=False, wraparound=False)
def frame_rate(comm_fame, comm_n_frames, commission, filled, urgency):
    """Fame of one more frame of a commission when ``filled`` frames are already filled:
    (1 - urgency) x fame / frames + urgency x fame / frames still missing."""
    fame = float(comm_fame[commission])
    n_frames = comm_n_frames[commission]
    return (1.0 - urgency) * fame / n_frames + urgency * fame / max(n_frames - filled, 1)


@jit(inline="always")
def hall_add(key, frames):
    """A HALL key (_context.HALL: 2 bits per frame mask, capped at 3) with one more
    painting that fits exactly ``frames`` (0: none, nothing counted)."""
    shift = max(2 * frames - 2, 0)  # (without branches: they mispredict)
    counted = (frames != 0) & (((key >> shift) & 3) != 3)  # (& : no short-circuit branch)
    return key + (np.int64(counted) << shift)


@jit(inline="always")
def picked_cells(cells, n_cells, mask, out):
    """out = the cells of ``cells[:n_cells]`` at the positions in the bitmask ``mask``;
    their number. Every cell is written and the count moves on by the mask's bit (a
    branch per position would mispredict)."""
    n = 0
    for position in range(n_cells):
        out[n] = cells[position]
        n += (mask >> position) & 1
    return n


@jit(inline="always")
def hall_at(key, n_frames):
    """HALL's entry for ``key`` and a commission with ``n_frames`` frames."""
    return np.int64(HALL[FRAMES_OFFSET[n_frames] + key])


@jit(inline="always")
def seat_card(land_features, land_fit, seat, card, vis, n_vis, with_features, held, features, keys):
    """Count one unsold painting of ``seat`` (see seat_state)."""
    held[seat] += 1
    if with_features:
        features[seat] |= card_features(land_features, card)
    for k in range(n_vis):
        slot = seat * MAX_VISIBLE + k
        keys[slot] = hall_add(keys[slot], land_fit[card, vis[k]])


@jit(_nrt=False, wraparound=False)
def seat_state(
    obs, cards, n_players, wanted, vis, n_vis, urgency, with_features, held, features, keys,
    adds, filled, rates,
):  # fmt: skip
    """What each seat's public unsold paintings make of the visible commissions, in one
    pass over the landscapes: held[seat] their number, features[seat] their feature mask;
    at slot = seat * MAX_VISIBLE + k, keys[slot] their HALL key for visible commission k
    (how many fit exactly each of its frame masks, _context.HALL), filled[slot] the
    frames of it they fill at once, adds[slot] the frame masks of a card that would fill
    one more (bit m) and rates[slot] that frame's worth (frame_rate). Only the seats in
    the bitmask ``wanted`` are counted (the others' entries stay 0: a decision reads only
    the seats it plays). Features are counted only ``with_features`` (else 0: only an
    "all features" goal reads them)."""
    land_features, land_fit, land_icons, comm_fame, comm_n_frames = cards
    for slot in range(SEAT_VIS):
        keys[slot] = 0
    for seat in range(n_players):
        held[seat] = 0
        features[seat] = 0
    first = obs[OBS_LAND_PLACE]
    n_cards = obs[OBS_COMM_PLACE] - first
    for block in range(0, n_cards, 64):
        # place == seat: that seat's unsold painting; a bitmask first (a branch per card
        # would mispredict: most cards are elsewhere), then one step per painting
        owned = np.uint64(0)
        for offset in range(min(64, n_cards - block)):
            seat = obs[first + block + offset]
            bit = np.uint64(1) << np.uint64(offset)
            mine = seat >= 0 and seat < n_players and (wanted >> seat) & 1
            owned |= bit if mine else np.uint64(0)
        while owned:
            card = block + lowest_bit(owned)
            owned &= owned - np.uint64(1)
            seat_card(
                land_features,
                land_fit,
                obs[first + card],
                card,
                vis,
                n_vis,
                with_features,
                held,
                features,
                keys,
            )
    for seat in range(n_players):
        if not (wanted >> seat) & 1:
            continue
        for k in range(n_vis):
            slot = seat * MAX_VISIBLE + k
            hall = hall_at(keys[slot], comm_n_frames[vis[k]])
            adds[slot] = hall & 255
            filled[slot] = hall >> 8
            rates[slot] = frame_rate(comm_fame, comm_n_frames, vis[k], filled[slot], urgency)


@jit(_nrt=False, wraparound=False)
def cell_state(obs, cards, cell_mask, vis, n_vis, with_features, fit, cell_features, cell_icons):
    """Per cell of the grid in the bitmask ``cell_mask``: fit[k * FIT_STRIDE + cell] the
    frames of visible commission k its card fits (0 on an empty cell), the card's
    features (only ``with_features``, else 0: only an "all features" goal reads them)
    and icons."""
    land_features, land_fit, land_icons, comm_fame, comm_n_frames = cards
    for cell in range(N_CELLS):
        if not (cell_mask >> cell) & 1:
            continue
        card = obs[OBS_GRID + cell]
        shown = card_features(land_features, card) if with_features and card >= 0 else 0
        cell_features[cell] = shown
        cell_icons[cell] = land_icons[card] if card >= 0 else 0
        for k in range(n_vis):
            fit[k * FIT_STRIDE + cell] = land_fit[card, vis[k]] if card >= 0 else 0
    for k in range(n_vis):  # (the padding: read by seat_values, never a value)
        for cell in range(N_CELLS, FIT_STRIDE):
            fit[k * FIT_STRIDE + cell] = 0


@jit(_nrt=False, wraparound=False)
def seat_values(
    obs, n_players, wanted, n_vis, fit, cell_icons, adds, rates, w_icons, w_commission, values
):
    """values[seat * N_CELLS + cell]: the card on the cell to that seat (half its icons
    times ``w_icons``, plus ``w_commission`` times the fame per frame of the best visible
    commission whose frame it would newly fill, given the seat's public unsold
    paintings); -1 on empty cells. Only for the seats in the bitmask ``wanted``. The
    commission share is taken commission by commission over all cells (a loop without
    branches over the cells)."""
    share = stack_empty(FIT_STRIDE, np.float64)
    for seat in range(n_players):
        if not (wanted >> seat) & 1:
            continue
        for cell in range(FIT_STRIDE):
            share[cell] = 0.0
        for k in range(n_vis):
            slot = seat * MAX_VISIBLE + k
            frames = adds[slot]  # (bit 0 is never set: an empty cell's fit 0 adds nothing)
            if frames == 0:  # no card newly fills a frame: max(share, 0.0) is share
                continue
            rate = rates[slot]
            for cell in range(FIT_STRIDE):  # (whole vector steps: see FIT_STRIDE)
                offer = rate if (frames >> fit[k * FIT_STRIDE + cell]) & 1 else 0.0
                now = share[cell]
                share[cell] = offer if offer > now else now
        for cell in range(N_CELLS):
            if obs[OBS_GRID + cell] < 0:
                values[seat * N_CELLS + cell] = -1.0
            else:
                values[seat * N_CELLS + cell] = (
                    w_icons * cell_icons[cell] + w_commission * share[cell]
                )


@jit(inline="always")
def set_worth(
    cells, n, me, n_vis, n_frames, fit, cell_icons, keys, filled, rates, w_icons, w_commission
):
    """My weighted value of taking the cards on ``cells[:n]`` (today's goal not included):
    ``w_icons`` per icon plus ``w_commission`` times the most progress toward one visible
    commission (frames it newly fills at once, by Hall, times its rate): balanced's exact
    evaluation of a set. ``n_frames[k]``: the frames of visible commission k."""
    icons = 0
    for i in range(n):
        icons += cell_icons[cells[i]]
    value = w_icons * icons
    if w_commission == 0.0:
        return value
    other = 0.0
    for k in range(n_vis):
        slot = me * MAX_VISIBLE + k
        key = keys[slot]
        for i in range(n):
            key = hall_add(key, fit[k * FIT_STRIDE + cells[i]])
        if key == keys[slot]:  # no card of the set fits a frame (or all are capped)
            continue
        gain = (hall_at(key, n_frames[k]) >> 8) - filled[slot]
        if gain <= 0:
            continue
        progress = gain * rates[slot]
        if progress > other:
            other = progress
    return value + w_commission * other


@jit(_nrt=False, wraparound=False)
def perturb(values, base, me, n_players, wanted, noise, rng):
    """values = base, plus a uniform draw in [0, noise) on every other seat's card, for the
    seats in the bitmask ``wanted``. The draws are rng_below's (0 .. NOISE_STEPS - 1), with
    the stream's counter kept in a register and stored back once (each draw stored it)."""
    key = rng[0]
    counter = rng[1]
    for seat in range(n_players):
        if not (wanted >> seat) & 1:
            continue
        if seat == me or noise <= 0.0:  # no draws: base as it is
            for cell in range(N_CELLS):
                values[seat * N_CELLS + cell] = base[seat * N_CELLS + cell]
            continue
        for cell in range(N_CELLS):
            # every cell's draw is computed, and the counter moves on (and the value
            # changes) only on a card: a branch per cell mispredicted on empty cells
            value = base[seat * N_CELLS + cell]
            draw = draw_at(key, counter, NOISE_STEPS)
            take = value >= 0.0
            counter += np.uint64(take)
            values[seat * N_CELLS + cell] = value + noise * draw / NOISE_STEPS if take else value
    rng[1] = counter


@jit(_nrt=False, wraparound=False)
def mobility_of(tables, cell):
    """The mean number of hike ends a plan card offers from ``cell`` on a full grid with
    no other artist: what standing there is worth for tomorrow's hike."""
    n_plans = tables.plan_wake.shape[0]
    ends = 0
    for plan in range(n_plans):
        for direction in range(N_DIRECTIONS):
            if not (tables.plan_directions[plan] >> direction) & 1:
                continue
            here = cell
            for _ in range(tables.plan_hike[plan]):
                here = step_cell(here, direction)
                if here < 0:
                    break
                ends += 1
    return ends / max(n_plans, 1)


@jit(_nrt=False, wraparound=False)
def grid_present(obs):
    """The rollouts' grid: a bit mask of the cells holding a card (one integer to copy)."""
    present = 0
    for cell in range(N_CELLS):
        present |= np.int64(obs[OBS_GRID + cell] >= 0) << cell
    return present


@jit(_nrt=False, wraparound=False)
def pos_copy(obs, n_players, pos):
    for seat in range(MAX_PLAYERS):
        pos[seat] = obs[OBS_POS + seat] if seat < n_players else -1
