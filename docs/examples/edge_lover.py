"""edge-lover: an example strategy (docs/writing-a-strategy.md walks through it).

- plan:  keep the drawn plan card that paints most (then hikes furthest, then wakes earliest)
- hike:  prefer hikes that end on an edge cell, then the most icons along the path;
         equally good hikes are broken at random from the player's own stream
- paint: take the set of cards with the most icons
- sale:  sell the best commission whose fame is at least `ratio` x the icons handed in
"""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PAINT, DECIDE_PLAN
from sunset_sim.observation import OBS_GRID, OBS_ME, OBS_POS
from sunset_sim.strategy import Parameter, StrategySpec
from sunset_sim.strategy_tools import is_edge_cell, other_artist_at, rng_below, step_cell

# positions in the params vector, in the order of STRATEGY.parameters
EDGE = 0
RATIO = 1


@jit
def cell_icons(obs, tables, cell):
    """Icons of the card on ``cell``, 0 if it is empty or another artist stands there."""
    card = obs[OBS_GRID + cell]
    if card < 0 or other_artist_at(obs, cell):
        return 0
    return tables.land_icons[card]


@jit
def choose_plan(options, n_options, tables):
    best_index = 0
    best = -1
    for index in range(n_options):
        plan = options[index, 0]  # a plan card index (the same as obs[OBS_HAND + index])
        # paint first, then hike length, then earlier wake-up (wake is in minutes, < 10000)
        score = (
            tables.plan_paint[plan] * 1_000_000
            + tables.plan_hike[plan] * 10_000
            + (9_999 - tables.plan_wake[plan])
        )
        if score > best:
            best = score
            best_index = index
    return best_index


@jit
def choose_hike(obs, options, n_options, params, rng, tables):
    start = obs[OBS_POS + obs[OBS_ME]]
    best = -1.0
    best_index = 0
    ties = 0
    for index in range(n_options):
        direction = options[index, 0]  # -1 for the 0-step stay
        steps = options[index, 1]
        end = options[index, 2]
        score = 0.0
        if is_edge_cell(end):
            score += params[EDGE]
        cell = start  # the path: start, every cell passed, the end (R-PAINT-1)
        score += cell_icons(obs, tables, cell)
        for _ in range(steps):
            cell = step_cell(cell, direction)
            score += cell_icons(obs, tables, cell)
        if score > best:
            best = score
            best_index = index
            ties = 1
        elif score == best:  # keep each of the tied options with equal probability
            ties += 1
            if rng_below(rng, ties) == 0:
                best_index = index
    return best_index


@jit
def choose_paint(obs, options, n_options, tables):
    best = -1
    best_index = 0  # row 0 is always the empty set
    for index in range(n_options):
        icons = 0
        for column in range(options.shape[1]):
            cell = options[index, column]
            if cell >= 0:
                icons += tables.land_icons[obs[OBS_GRID + cell]]
        if icons > best:
            best = icons
            best_index = index
    return best_index


@jit
def choose_sale(options, n_options, params, tables):
    best_index = 0  # row 0 is "stop selling"
    best = -1e18
    for index in range(1, n_options):
        fame = tables.comm_fame[options[index, 0]]
        icons = 0
        for column in range(1, options.shape[1]):
            card = options[index, column]
            if card >= 0:
                icons += tables.land_icons[card]
        if fame >= params[RATIO] * icons and fame - icons > best:
            best = fame - icons
            best_index = index
    return best_index


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PLAN:
        return choose_plan(options, n_options, tables)
    if kind == DECIDE_HIKE:
        return choose_hike(obs, options, n_options, params, rng, tables)
    if kind == DECIDE_PAINT:
        return choose_paint(obs, options, n_options, tables)
    return choose_sale(options, n_options, params, tables)  # DECIDE_SALE


STRATEGY = StrategySpec(
    name="edge-lover",
    description="Example: keeps the plan card that paints most, hikes to an edge if it can "
    "(then the most icons on the path), paints the most icons, and sells when a commission's "
    "fame is at least `ratio` times the icons handed in.",
    decide=decide,
    parameters=(
        Parameter("edge", 2.0, 0.0, 10.0, "bonus (in icons) for a hike ending on an edge cell"),
        Parameter("ratio", 1.0, 0.0, 5.0, "sell when fame >= ratio x icons handed in"),
    ),
)
