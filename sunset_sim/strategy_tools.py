"""numba helpers for strategies: reading an observation, never the engine's state.

Everything here takes the observation array (``sunset_sim.observation``) and the card
tables, so a strategy built from them sees only what its player may know.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from sunset_sim.engine.jit import jit
from sunset_sim.engine.rng import draw_at, rng_below
from sunset_sim.enums import (
    DIRECTION_CLASS,
    DIRECTION_DELTAS,
    GOAL_EDGE,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_STEPS,
    GRID_SIZE,
    MAX_FRAMES,
    MAX_PLAYERS,
    N_CELLS,
    N_DIRECTIONS,
)
from sunset_sim.observation import OBS_GRID, OBS_ME, OBS_N_PLAYERS, OBS_POS, OPTION_WIDTH

DELTA_ROW = np.array([d[0] for d in DIRECTION_DELTAS], dtype=np.int64)
DELTA_COL = np.array([d[1] for d in DIRECTION_DELTAS], dtype=np.int64)
# NEXT_CELL[cell * N_DIRECTIONS + direction]: step_cell(cell, direction) as one lookup
# (for hot loops over valid cells and directions)
NEXT_CELL = np.array(
    [
        (cell // GRID_SIZE + dr) * GRID_SIZE + cell % GRID_SIZE + dc
        if 0 <= cell // GRID_SIZE + dr < GRID_SIZE and 0 <= cell % GRID_SIZE + dc < GRID_SIZE
        else -1
        for cell in range(N_CELLS)
        for dr, dc in DIRECTION_DELTAS
    ],
    dtype=np.int64,
)
# RAY_CELLS[(cell * N_DIRECTIONS + direction) * RAY_LENGTH + k]: the cell k + 1 steps
# away, -1 off the grid. A hike's cells in one lookup each, none waiting for the step
# before it (NEXT_CELL walks one step at a time).
RAY_LENGTH = GRID_SIZE - 1  # the longest straight hike on the grid
RAY_CELLS = np.full(N_CELLS * N_DIRECTIONS * RAY_LENGTH, -1, dtype=np.int64)
for _cell in range(N_CELLS):
    for _direction, (_dr, _dc) in enumerate(DIRECTION_DELTAS):
        for _k in range(RAY_LENGTH):
            _row = _cell // GRID_SIZE + _dr * (_k + 1)
            _col = _cell % GRID_SIZE + _dc * (_k + 1)
            if 0 <= _row < GRID_SIZE and 0 <= _col < GRID_SIZE:
                RAY_CELLS[(_cell * N_DIRECTIONS + _direction) * RAY_LENGTH + _k] = (
                    _row * GRID_SIZE + _col
                )
del _cell, _direction, _dr, _dc, _k, _row, _col
DIRECTION_CLASS_ARRAY = np.array(DIRECTION_CLASS, dtype=np.int64)
PATH_TOP = GRID_SIZE  # a straight path on a 5x5 grid has at most 5 cells
PATH_PREFIX = PATH_TOP + 1
# the paths of scans whose plan cards all paint at most this many (every shipped plan card
# paints 1-3) keep this many values (path_add_top): three insertion steps, not five
PATH_SHORT = 3

__all__ = [
    "draw_at",
    "rng_below",
    "step_cell",
    "ray_step",
    "ray_cell",
    "takeable_cells",
    "popcount",
    "sale_value",
    "other_artist_at",
    "is_edge_cell",
    "hike_goal_met",
    "lowest_bit",
    "trailing_zeros",
    "stack_empty",
    "NEXT_CELL",
    "RAY_CELLS",
    "RAY_LENGTH",
    "PATH_TOP",
    "PATH_PREFIX",
    "PATH_SHORT",
    "others_mask",
    "card_features",
    "path_add",
    "path_start",
    "path_add_top",
    "path_start_top",
    "path_steps_cells",
    "row_path_cells",
    "whole_paint_set",
    "MIN_WORTH",
]


@jit(_nrt=False)
def step_cell(cell, direction):
    """The neighbour of ``cell`` in ``direction``, or -1 off the grid (R-HIKE-3): one
    lookup in NEXT_CELL. The engine and every strategy step with this."""
    return NEXT_CELL[cell * N_DIRECTIONS + direction]


@jit(_nrt=False)
def ray_step(obs, cell, direction):
    """The next cell of a straight hike from ``cell``, or -1 where the ray stops: off the
    grid (R-HIKE-3) or at an empty cell (R-HIKE-4). A cell holding another artist is
    returned: the hike passes through it but never ends there (R-HIKE-5, the caller's
    check). ``ray_cell`` gives the same cells without waiting on the step before."""
    following = NEXT_CELL[cell * N_DIRECTIONS + direction]
    if following < 0 or obs[OBS_GRID + following] < 0:
        return -1
    return following


@jit(_nrt=False)
def ray_cell(obs, start, direction, steps):
    """The cell ``steps`` along a straight hike from ``start``, or -1 off the grid
    (R-HIKE-3) or at an empty cell (R-HIKE-4); taken for steps 1, 2, ... and stopped at
    the first -1, it is ``ray_step``'s walk, with each cell read from ``RAY_CELLS``
    rather than from the step before it (a hike's cards can be fetched at once). The
    engine lists the legal hikes with it."""
    if steps > RAY_LENGTH:
        return -1
    cell = RAY_CELLS[(start * N_DIRECTIONS + direction) * RAY_LENGTH + steps - 1]
    if cell < 0 or obs[OBS_GRID + cell] < 0:
        return -1
    return cell


@jit(_nrt=False)
def takeable_cells(obs, occupied, start, direction, steps, cells):
    """The cells a hike's painting may take, in path order (R-PAINT-1/2: start and path
    cells with a card and no other artist); their number."""
    n = 0
    if obs[OBS_GRID + start] >= 0 and not (occupied >> start) & 1:
        cells[0] = start
        n = 1
    ray = (start * N_DIRECTIONS + direction) * RAY_LENGTH
    for step in range(min(steps, RAY_LENGTH)):
        cell = RAY_CELLS[ray + step]
        if obs[OBS_GRID + cell] >= 0 and not (occupied >> cell) & 1:
            cells[n] = cell
            n += 1
    return n


@jit(_nrt=False)
def popcount(value):
    """The number of set bits (paint set sizes, frame subsets, card masks)."""
    count = 0
    while value:
        value &= value - 1
        count += 1
    return count


@jit(_nrt=False)
def sale_value(options, index, comm_fame, land_icons, leftover_weight):
    """What sale option ``index`` gains: the commission's fame against what its paintings
    were worth unsold (half an icon each, R-END-2), that loss weighted by
    ``leftover_weight`` (1.0: its true cost). Every built-in strategy values sales so."""
    icons = 0
    # (a sale row holds its paintings in columns 1 .. MAX_FRAMES, -1 after them: a loop of
    # that constant length, where one to the row's width was vectorized with a gather)
    for column in range(1, 1 + MAX_FRAMES):
        if options[index, column] >= 0:
            icons += land_icons[options[index, column]]
    return comm_fame[options[index, 0]] - leftover_weight * 0.5 * icons


@jit
def other_artist_at(obs, cell):
    me = obs[OBS_ME]
    for seat in range(min(obs[OBS_N_PLAYERS], MAX_PLAYERS)):
        if seat != me and obs[OBS_POS + seat] == cell:
            return True
    return False


@jit
def is_edge_cell(cell):
    row = cell // GRID_SIZE
    col = cell % GRID_SIZE
    return row == 0 or col == 0 or row == GRID_SIZE - 1 or col == GRID_SIZE - 1


@jit
def hike_goal_met(goal_kind, goal_param, direction, steps, end_cell, n_painted):
    """Whether a hike-and-paint would meet a goal of the hike-side kinds (R-GOAL-3)."""
    if goal_kind == GOAL_MOVED:
        return steps > 0 and DIRECTION_CLASS_ARRAY[direction] == goal_param
    if goal_kind == GOAL_EDGE:
        return is_edge_cell(end_cell)
    if goal_kind == GOAL_STEPS:
        return steps >= goal_param
    if goal_kind == GOAL_PAINTED:
        return n_painted >= goal_param
    return False


@jit
def grid_card(obs, cell):
    return obs[OBS_GRID + cell]


# ---- speed helpers: scratch arrays without allocation, bit scans ----------------------------


@intrinsic
def _stack_empty(typingctx, count, dtype):
    """A C-contiguous 1-D array of ``count`` (a constant) items on the caller's stack."""
    if not isinstance(count, types.IntegerLiteral):
        return None
    if isinstance(dtype, types.NumberClass):
        element = dtype.instance_type
    elif isinstance(dtype, types.DType):
        element = dtype.dtype
    else:
        return None
    array_type = types.Array(element, 1, "C")
    n = count.literal_value

    def codegen(context, builder, signature, args):
        item = context.get_data_type(element)
        data = cgutils.alloca_once(builder, item, size=n)  # in the entry block
        array = make_array(array_type)(context, builder)
        intp = context.get_value_type(types.intp)
        size = intp(context.get_abi_sizeof(item))
        populate_array(
            array, data=data, shape=[intp(n)], strides=[size], itemsize=size, meminfo=None
        )
        return array._getvalue()

    return array_type(count, dtype), codegen


def _trailing_zeros_intrinsic(name: str, zero_undefined: bool):
    """LLVM's cttz on a uint64, as an intrinsic called ``name``; with ``zero_undefined``
    the result for 0 is undefined (a non-zero mask: a plain bit scan), otherwise 64."""

    def count(typingctx, value):
        if not isinstance(value, types.Integer) or value.bitwidth != 64 or value.signed:
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), int(zero_undefined)))

        return types.uint64(types.uint64), codegen

    count.__name__ = count.__qualname__ = name
    return intrinsic(count)


_count_trailing_zeros = _trailing_zeros_intrinsic("_count_trailing_zeros", True)
_count_trailing_zeros_or_64 = _trailing_zeros_intrinsic("_count_trailing_zeros_or_64", False)


if numba.config.DISABLE_JIT:  # plain Python: the same results from ordinary code

    def stack_empty(count, dtype):
        """``np.empty(count, dtype)``; ``count`` must be a constant."""
        return np.empty(count, dtype=dtype)

    def lowest_bit(mask):
        """Index of the lowest set bit of a non-zero uint64 ``mask``."""
        value = int(mask)
        return np.int64((value & -value).bit_length() - 1)

    def trailing_zeros(mask):
        """Index of the lowest set bit of a uint64 ``mask``; 64 for 0."""
        value = int(mask)
        return np.int64((value & -value).bit_length() - 1 if value else 64)

else:

    @jit(inline="always")
    def stack_empty(count, dtype):
        """``np.empty(count, dtype)`` without a heap allocation (no malloc, no reference
        counting): the array lives on the stack of the jitted function that calls this and
        must not outlive it (never return or store it). ``count`` must be a literal or a
        module-level int constant (not an expression), so that the size is known when the
        function compiles. Each call site has one buffer: called in a loop, it returns the
        same memory every time."""
        return _stack_empty(count, dtype)

    @jit(inline="always")
    def lowest_bit(mask):
        """Index of the lowest set bit of a non-zero uint64 ``mask``."""
        return np.int64(_count_trailing_zeros(np.uint64(mask)))

    @jit(inline="always")
    def trailing_zeros(mask):
        """Index of the lowest set bit of a uint64 ``mask``; 64 for 0 (so that a table
        with an entry at 64 needs no test for an empty mask)."""
        return np.int64(_count_trailing_zeros_or_64(np.uint64(mask)))


# ---- paths: the best cards of a straight hike, one cell at a time --------------------------


@jit(inline="always")
def others_mask(obs):
    """Bitmask over cells holding another player's artist (R-HIKE-5, R-PAINT-2)."""
    me = obs[OBS_ME]
    mask = 0
    for seat in range(obs[OBS_N_PLAYERS]):
        # every position loaded, my bit shifted as 0: with "if seat != me" LLVM loaded the
        # positions by masked loads (vpmaskmovd), slow on AMD EPYC
        mask |= np.int64(seat != me) << obs[OBS_POS + seat]
    return mask


@jit(inline="always")
def card_features(land_features, card):
    """The feature types a landscape shows, as a bitmask (bit f: tables.land_features)."""
    mask = 0
    for feature in range(land_features.shape[1]):  # (without branches: they mispredict)
        mask |= np.int64(land_features[card, feature] > 0) << feature
    return mask


# The least a card must be worth for whole_paint_set: far above the rounding of a sum of
# a few card values (values are at most thousands; a double keeps 15-16 digits).
MIN_WORTH = 1e-6


@jit(_nrt=False, wraparound=False)
def whole_paint_set(obs, options, n_options, land_icons, icon_weight):
    """The paint option whose cells hold every other option's cells, or -1 if none does (or
    one of its cards is worth less than MIN_WORTH at ``icon_weight`` per icon).

    For a strategy that values a set of cards as the sum of its cards, each worth at
    least icon_weight x its icons, plus terms that a set holding another never loses
    (today's goal: painted n, holds n, all features, sold n), this option is the choice,
    with nothing valued: every other option is a strict subset of it (the engines list
    every set once, R-PAINT-1/2), worth less by the cards it leaves out. In recorded games
    it exists in 54-63% of paint decisions (the path has no more cards than the plan
    card paints). It is the largest set, found in the one pass that joins all the sets.
    goal-chaser, balanced, commission-hunter and greedy-painter use it (greedy values its
    paint sets in less time than this takes: replayed, 42 -> 54 ns a decision with it)."""
    union = 0
    largest = -1
    largest_cells = 0
    largest_count = -1
    for index in range(n_options):
        cells = 0
        count = 0
        for column in range(OPTION_WIDTH):  # (a constant: the loop is unrolled)
            cell = options[index, column]
            cells |= (1 << max(cell, 0)) if cell >= 0 else 0
            count += 1 if cell >= 0 else 0
        union |= cells
        larger = count > largest_count
        largest = index if larger else largest
        largest_cells = cells if larger else largest_cells
        largest_count = max(count, largest_count)
    if largest_cells != union:
        return -1
    while union:
        cell = lowest_bit(np.uint64(union))
        union &= union - 1
        if icon_weight * land_icons[obs[OBS_GRID + cell]] < MIN_WORTH:
            return -1
    return largest


@jit(inline="always")
def path_add(top, prefix, value):
    """Add a cell value (>= 0) to the path: top[] holds the PATH_TOP largest values so far in
    descending order, 0.0 where the path is shorter (a branch-free insertion), and
    prefix[k] the sum of top[:k], so that prefix[k] is the worth of painting k cards."""
    path_add_top(top, prefix, value, PATH_TOP)


@jit(inline="always")
def path_start(top, prefix, start_value):
    """The path of a hike before its first step: the start cell alone (R-PAINT-1)."""
    return path_start_top(top, prefix, start_value, PATH_TOP)


@jit(inline="always")
def path_add_top(top, prefix, value, depth):
    """path_add keeping only the ``depth`` largest values (prefix[k] for k <= depth): the
    same sums where no more than ``depth`` cards are painted. With a constant ``depth`` the
    insertion is that many steps (the shipped plan cards paint at most 3 of a path's 5)."""
    for k in range(depth):
        high = max(top[k], value)
        value = min(top[k], value)
        top[k] = high
    for k in range(depth):
        prefix[k + 1] = prefix[k] + top[k]


@jit(inline="always")
def path_start_top(top, prefix, start_value, depth):
    """path_start for path_add_top."""
    for k in range(depth):
        top[k] = 0.0
    prefix[0] = 0.0
    if start_value >= 0:
        path_add_top(top, prefix, start_value, depth)
        return 1
    for k in range(depth):
        prefix[k + 1] = 0.0
    return 0


@jit(inline="always")
def path_steps_cells(obs, occupied, start, direction, first_step, last_step, cells):
    """The cells a hike passes from step ``first_step`` to ``last_step`` (one is the first)
    that could be painted (a card, no other artist: R-PAINT-2), in path order, into
    cells; returns (their number, the cell at last_step: -1 past the ray's end). With
    path_start and path_add, a hike option's path built on the previous option's when it
    goes on in the same direction (options come by direction, then steps: R-HIKE-1..6)."""
    n = 0
    cell = start
    for step in range(first_step, last_step + 1):
        cell = ray_cell(obs, start, direction, step)
        if cell < 0:  # R-HIKE-3, R-HIKE-4 (not on a legal hike's path)
            break
        if (occupied >> cell) & 1:  # R-HIKE-5: pass through (nor paint there)
            continue
        cells[n] = cell
        n += 1
    return n, cell


@jit(inline="always")
def row_path_cells(obs, occupied, start, options, index, path_direction, path_steps, cells):
    """What hike option row ``index`` adds to the path of the row before it (direction
    path_direction, path_steps steps; -1, 0 for none): (whether the path starts again from
    the artist, how many cells, in cells, and the hike's end cell). A row going on in the
    same direction adds the cells past the previous row's end (the engines list a
    direction's hikes by ascending steps), so a row's path never depends on the rows
    listed before it; a row one step on adds its end cell alone (column 2 of a hike row:
    a card, no other artist, R-HIKE-4/5), with no walk. Shared by greedy's hike values
    and _card_worth's hike_rows."""
    direction = options[index, 0]
    steps = options[index, 1]
    end = options[index, 2]
    if (direction == path_direction) & (steps == path_steps + 1):
        cells[0] = end
        return False, 1, end
    restart = direction != path_direction or steps <= path_steps
    first = 1 if restart else path_steps + 1
    n_new, cell = path_steps_cells(obs, occupied, start, direction, first, steps, cells)
    return restart, n_new, cell
