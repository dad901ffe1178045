"""Every enumeration and fixed size of the game, named in one place.

Both engines (the readable reference engine in ``sunset_sim.rules`` and the numba
engine in ``sunset_sim.engine``) use these integer codes, so a record written by one
can be replayed by the other.
"""

from __future__ import annotations

GRID_SIZE = 5  # R-SET-1: the wilderness is 5x5
N_CELLS = GRID_SIZE * GRID_SIZE
CENTRE_CELL = 2 * GRID_SIZE + 2  # R-SET-5
MIN_PLAYERS = 2
MAX_PLAYERS = 4  # R-COMP-5
PLAN_HAND = 3  # R-PLAN-1: draw three, keep one
MAX_FRAMES = 3  # frames per commission the engines support
MAX_FEATURES = 8  # feature types a card set may name

# R-HIKE-1: the eight compass directions, as (row step, column step).
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRECTION_DELTAS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
N_DIRECTIONS = 8
NO_DIRECTION = -1  # a hike of 0 steps (R-HIKE-1 DECISION)

# Direction classes, used by plan cards and by the "moved ..." goal.
DIRCLASS_VERTICAL = 0
DIRCLASS_HORIZONTAL = 1
DIRCLASS_DIAGONAL = 2
DIRCLASS_NAMES = ("vertical", "horizontal", "diagonal")
DIRECTION_CLASS = (0, 2, 1, 2, 0, 2, 1, 2)  # per direction index above

# Direction sets a plan card may allow (docs/cards.md), as bitmasks over direction indices.
DIRECTION_SETS = {
    "orthogonal": 0b01010101,  # N, E, S, W
    "diagonal": 0b10101010,  # NE, SE, SW, NW
    "horizontal": 0b01000100,  # E, W
    "vertical": 0b00010001,  # N, S
    "all": 0b11111111,
}

# Daily goal condition kinds (docs/cards.md, R-GOAL-3). The parameter's meaning is per kind.
GOAL_MOVED = 0  # param: direction class (moved in that class this turn)
GOAL_PAINTED = 1  # param: n, painted at least n cards this turn (sold ones count)
GOAL_SOLD = 2  # param: n, fulfilled at least n commissions this turn
GOAL_ALL_FEATURES = 3  # unsold paintings together show every feature type
GOAL_EDGE = 4  # ended the turn on an edge cell
GOAL_HOLDS = 5  # param: n, holds at least n unsold paintings after selling
GOAL_STEPS = 6  # param: n, hiked at least n steps this turn
GOAL_KIND_NAMES = (
    "moved",
    "painted",
    "sold",
    "all_features",
    "edge",
    "holds",
    "steps",
)
GOAL_KINDS_WITH_COUNT = (GOAL_PAINTED, GOAL_SOLD, GOAL_HOLDS, GOAL_STEPS)
# What a seat did with a day's goal (result bit flags, R-GOAL-1/2)
GOAL_FLAG_MET = 1  # met it on its turn and took the card
GOAL_FLAG_TOOK = 2  # took it from another player who held it
GOAL_FLAG_KEPT = 4  # held it at the end of the hike phase, so kept it for good

# R-ORD-2 tie-break options.
TIE_RANDOM = 0
TIE_SEAT = 1
TIE_LOWEST_FAME = 2
TIE_BREAK_NAMES = ("random", "seat", "lowest-fame")

# How a game ended (R-END-1).
END_SIX_DAYS = 0  # after the last day's hike phase
END_COMMISSION_SHORTAGE = 1  # R-CLEAN-5
END_REASON_NAMES = ("days", "commission-shortage")

# Counter-based random streams (DESIGN-NOTES: separate streams so that a change of
# strategy never changes the deal). Strategy streams are STREAM_STRATEGY + seat.
STREAM_SETUP = 0
STREAM_CHANCE = 1
STREAM_STRATEGY = 2

# Where a card is, as a player may see it (observation "place" arrays).
# 0 .. MAX_PLAYERS-1: held by that seat (painting, commission won, goal kept).
PLACE_HIDDEN = -1  # in a face-down deck: its position is not public
PLACE_TABLE = 8  # landscape in the wilderness, commission in the row, today's goal
PLACE_DISCARD = 9
PLACE_PREVIEW = 10  # R-SET-2: the commission preview
PLACE_GONE = 11  # a goal nobody took (R-CLEAN-3)

# The decisions a strategy makes; each gets a list of legal options (observation.py).
DECIDE_PLAN = 0
DECIDE_HIKE = 1
DECIDE_PAINT = 2
DECIDE_SALE = 3
DECISION_NAMES = ("plan", "hike", "paint", "sale")

# ---- the fast engine's per-game outputs (engine/kernel.py fills them, results.py reads) --
# Each output is an int32 (commissions: int8) array whose last axis is one of these
# records; the column constants below are derived from the field order, and the record
# dtypes view the same bytes with names (``BatchArrays.records``).
SEAT_FIELDS = (
    "fame",
    "fame_commissions",
    "fame_goals",
    "fame_paintings",
    "commissions_won",
    "goals_won",
    "paintings_sold",
    "cards_painted",
    "n_winners",  # seats sharing the win (R-END-3), on every seat's row
    "won",  # 1 if this seat is among the winners
)
(
    R_FAME,
    R_FAME_COMMISSIONS,
    R_FAME_GOALS,
    R_FAME_PAINTINGS,
    R_COMMISSIONS_WON,
    R_GOALS_WON,
    R_PAINTINGS_SOLD,
    R_CARDS_PAINTED,
    R_WINNERS,
    R_WON,
) = range(len(SEAT_FIELDS))
SEAT_COLUMNS = len(SEAT_FIELDS)
# violations: bitmask of failed invariants (engine/invariants.py), 0 when unchecked
GAME_FIELDS = ("end_reason", "days_played", "violations")
G_END_REASON, G_DAYS, G_VIOLATIONS = range(len(GAME_FIELDS))
GAME_COLUMNS = len(GAME_FIELDS)
# Per seat and day, -1 on days not played: fame as R-END-2 counts it at the end of the
# day's hike phase (after the goal), cards painted that day, GOAL_FLAG_* bits.
DAY_FIELDS = ("fame", "painted", "goal_flags")
D_FAME, D_PAINTED, D_GOAL = range(len(DAY_FIELDS))
DAY_COLUMNS = len(DAY_FIELDS)
# Per commission, -1 if it never happened: who completed it, on which day, and the day
# it first entered the commission row (so could be completed); "offered": the seats
# (bit s: seat s) whose sale options (R-SELL-1) ever listed it, before any restricted
# play took options away (0: nobody's). Studies skip replaying a deal under a ban on
# selling to a commission where the banned seat was never offered it.
COMMISSION_FIELDS = ("seat", "day", "shown", "offered")
C_SEAT, C_DAY, C_SHOWN, C_OFFERED = range(len(COMMISSION_FIELDS))
COMMISSION_COLUMNS = len(COMMISSION_FIELDS)


def record_dtype(names: tuple[str, ...], base: str = "int32"):
    """The numpy record dtype of one output record (same bytes as its last axis)."""
    import numpy as np

    return np.dtype([(name, base) for name in names])
