"""The fast engine's game state: the workspace a thread plays game after game in, the
running sums beside the observation, and the views the engine writes into ``obs``.

The public part of the state *is* the observation array (``observation.py``); hidden
parts (deck orders, plan decks, hands) live in the other arrays of ``Workspace``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from sunset_sim.engine.jit import jit
from sunset_sim.enums import (
    GRID_SIZE,
    PLAN_HAND,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    OBS_CARDS,
    OBS_FAME,
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_PAINTINGS,
    OBS_TURN_POS,
    OPTION_ROWS,
    OPTION_WIDTH,
)

SCRATCH_SIZE = GRID_SIZE  # paint option search: the takeable cells of a path

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
def mark_card(bitmask, card):
    """Set bit ``card`` of a uint64 bitmask spread over words of 64."""
    bitmask[card // 64] |= np.uint64(1) << np.uint64(card % 64)


@jit(_nrt=False)
def refresh_fame(obs, sums, seat):
    """OBS_FAME as R-END-2 counts it now (goals kept for good only)."""
    obs[OBS_FAME + seat] = (
        sums[seat, S_COMMISSION_FAME] + sums[seat, S_GOAL_FAME] + sums[seat, S_ICONS] // 2
    )


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


def _borrowable(value_type):
    if isinstance(value_type, types.Array):
        return True
    if isinstance(value_type, types.BaseTuple):
        return all(_borrowable(member) for member in value_type.types)
    return False


def strip_references(context, builder, value_type, value_llvm):
    """LLVM: the same arrays (an array or a tuple of them) with a constant null
    reference-counting handle, so that every incref and decref on them folds away."""
    if isinstance(value_type, types.Array):
        array = make_array(value_type)(context, builder, value=value_llvm)
        array.meminfo = ir.Constant(array.meminfo.type, None)
        array.parent = ir.Constant(array.parent.type, None)
        return array._getvalue()
    for index, member in enumerate(value_type.types):
        item = builder.extract_value(value_llvm, index)
        value_llvm = builder.insert_value(
            value_llvm, strip_references(context, builder, member, item), index
        )
    return value_llvm


@intrinsic
def _borrowed(typingctx, value):
    if not _borrowable(value):
        return None

    def codegen(context, builder, signature, args):
        return strip_references(context, builder, signature.args[0], args[0])

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


class Workspace(NamedTuple):
    """Every array one game needs, allocated once per thread (``new_workspace``) and reset
    by ``kernel.play_game`` at the start of each game."""

    obs: np.ndarray  # int32 [OBS_CARDS + cards]: the observation, which is the public state
    setup: np.ndarray  # uint64 [2]: the setup stream (key, counter)
    chance: np.ndarray  # uint64 [2]: the chance stream
    streams: np.ndarray  # uint64 [P, 2]: each seat's strategy stream
    land_deck: np.ndarray  # int32 [L]: landscape deck order
    comm_deck: np.ndarray  # int32 [C]: commission deck order
    goal_deck: np.ndarray  # int32 [max(G, 1)]: goal deck order
    discard: np.ndarray  # int32 [L]: landscape discard pile
    plan_ring: np.ndarray  # int32 [P, K]: plan decks, ring buffers with their top at plan_head
    plan_head: np.ndarray  # int64 [P]: plan deck heads
    plan_count: np.ndarray  # int64 [P]: plan deck sizes
    hands: np.ndarray  # int32 [P, MAX_PAINTINGS]: unsold paintings, in the order taken
    n_hand: np.ndarray  # int64 [P]: number of unsold paintings
    sums: np.ndarray  # int32 [P, SUM_COLUMNS]: running sums (S_*)
    options: (
        np.ndarray
    )  # int32 [OPTION_ROWS, OPTION_WIDTH]: the options of a decision, rows filled whole
    scratch: np.ndarray  # int64 [SCRATCH_SIZE]: paint option search
    drawn: np.ndarray  # int32 [P, PLAN_HAND]: drawn plan cards
    kept: np.ndarray  # int32 [P]: kept plan cards
    order: np.ndarray  # int64 [P]: turn order
    keys: np.ndarray  # int64 [P, 3]: turn-order keys
    permutation: np.ndarray  # int64 [P]: tie-break permutation


@jit
def new_workspace(n_players, n_land, n_comm, n_goal, n_plan):
    """A ``Workspace`` for games of this size."""
    return Workspace(
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
        np.empty((OPTION_ROWS, OPTION_WIDTH), dtype=np.int32),  # options, rows filled whole
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
