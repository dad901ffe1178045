"""Shortcuts in the strategies' valuations, each of which must leave every choice as it
was, checked on decisions recorded from real games:

- hike decisions valued down the option rows (greedy's ``hike_values``, ``_card_worth``'s
  ``hike_rows``): a row's path is built on the previous row's only where it goes on in the
  same direction, so every row's worth is the same whatever the order of the rows (the
  engines list them by direction, then steps: R-HIKE-1..6), reversed or shuffled;
- plan cards valued on paths that keep only PATH_SHORT values where no card paints more
  (greedy's ``plan_values``, ``_card_worth``'s ``scan_rays``): worth the same as on whole
  paths;
- the paint set that holds every other set (``_card_worth.whole_paint_set``): the best
  of the valuation of balanced, commission-hunter and greedy-painter, for any weights
  >= 0, and strictly;
- greedy-painter's paint set chosen by its icons alone (``paint_by_icons``): its choice
  by the whole value;
- a daily goal worth nothing (greedy-painter's) left out of ``_card_worth``'s valuation:
  the values it gives are those with the goal checked.

goal-chaser's own shortcuts are checked in tests/test_goal_chaser_shortcuts.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from sunset_sim.strategies import (
    _card_worth,
    _context,
    greedy,
    greedy_painter,
)
from sunset_sim.strategies._style_tools import (
    N_WEIGHTS,
    RATE_MISSING,
    RATE_SHARE,
    W_DENY,
    W_GOAL,
    W_ICONS,
    W_OTHER,
    W_TARGET,
)

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    PLAN_HAND,
)
from sunset_sim.observation import (
    OBS_GOAL,
    OBS_ME,
    OBS_PAINTINGS,
    OBS_PLAN,
)
from sunset_sim.strategy_tools import (
    PATH_SHORT,
    PATH_TOP,
    card_features,
    whole_paint_set,
)


@pytest.fixture(scope="module")
def hikes(recorded):
    """The hike decisions with at least 3 rows: (obs, options)."""
    found = [(obs, options) for kind, obs, options in recorded if kind == DECIDE_HIKE]
    found = [(obs, options) for obs, options in found if len(options) >= 3]
    assert len(found) > 50
    return found


@pytest.fixture(scope="module")
def plans(recorded):
    """The plan decisions: (obs, options)."""
    found = [(obs, options) for kind, obs, options in recorded if kind == DECIDE_PLAN]
    assert len(found) > 50
    return found


@numba.njit
def greedy_values(obs, options, tables):
    """greedy's worth of each hike row (its default weights, today's goal counted)."""
    out = np.empty(options.shape[0])
    goal = obs[OBS_GOAL]
    kind = tables.goal_kind[goal] if goal >= 0 else -1
    param = tables.goal_param[goal] if goal >= 0 else 0
    bonus = float(tables.goal_fame[goal]) if goal >= 0 else 0.0
    paint = tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]]
    greedy.hike_values(
        obs, options, options.shape[0], tables.land_commissions_ranked, tables.share_rank,
        tables.share_by_rank, tables.land_icons, 1.0, paint, kind, param, bonus,
        PATH_SHORT if paint <= PATH_SHORT else PATH_TOP, out,
    )  # fmt: skip
    return out


@numba.njit
def weighted_context(obs, tables, icons, other, deny, rate_mode=RATE_SHARE, preview=1.0):
    """_card_worth's context with these weights (and no target, no goal): (ints, floats,
    number visible, my unsold paintings, their features)."""
    weights = np.zeros(N_WEIGHTS)
    weights[W_ICONS] = icons
    weights[W_OTHER] = other
    weights[W_DENY] = deny
    ints = np.empty(_context.N_INTS, dtype=np.int64)
    floats = np.empty(_context.N_FLOATS)
    n_vis, n_held, held_features = _context.context(
        obs, tables, True, rate_mode, preview, deny != 0.0, weights, ints, floats
    )
    return ints, floats, n_vis, n_held, held_features


@numba.njit
def card_worth_values(obs, options, tables):
    """_card_worth's worth of each hike row, with greedy-painter's weights."""
    out = np.empty(64)
    ints, floats, n_vis, n_held, held_features = weighted_context(obs, tables, 1.0, 0.01, 0.0)
    _card_worth.option_values(
        DECIDE_HIKE, obs, options, options.shape[0], tables, n_vis, ints, floats, -1, n_held,
        held_features, out,
    )  # fmt: skip
    return out[: options.shape[0]]


@numba.njit
def greedy_plan_values(obs, options, tables, depth):
    """greedy's worth of each plan card (its default weights), paths of ``depth`` values."""
    out = np.empty(PLAN_HAND)
    goal = obs[OBS_GOAL]
    kind = tables.goal_kind[goal] if goal >= 0 else -1
    param = tables.goal_param[goal] if goal >= 0 else 0
    bonus = float(tables.goal_fame[goal]) if goal >= 0 else 0.0
    greedy.plan_values(
        obs, options.shape[0], tables.plan_hike, tables.plan_paint, tables.plan_directions,
        tables.plan_wake, tables.land_commissions_ranked, tables.share_rank,
        tables.share_by_rank, tables.land_icons, 1.0, 0.3, kind, param, bonus, depth, out,
    )  # fmt: skip
    return out[: options.shape[0]]


@numba.njit
def card_worth_plan_values(obs, options, tables, depth):
    """_card_worth's worth of each plan card (balanced's weights, denial included), paths
    of ``depth`` values."""
    ints, floats, n_vis, n_held, held_features = weighted_context(obs, tables, 0.5, 1.0, 0.3)
    _card_worth.fit_tables(n_vis, ints, floats, -1)
    goal = obs[OBS_GOAL]
    kind = tables.goal_kind[goal] if goal >= 0 else -1
    param = tables.goal_param[goal] if goal >= 0 else 0
    reach = 0
    directions = 0
    for i in range(PLAN_HAND):
        plan = options[i, 0] if i < options.shape[0] else -1
        ints[_context.PLAN_HIKE + i] = tables.plan_hike[plan] if plan >= 0 else 0
        ints[_context.PLAN_PAINT + i] = tables.plan_paint[plan] if plan >= 0 else 0
        ints[_context.PLAN_DIRECTIONS + i] = tables.plan_directions[plan] if plan >= 0 else 0
        reach = max(reach, ints[_context.PLAN_HIKE + i])
        directions |= ints[_context.PLAN_DIRECTIONS + i]
    out = np.empty(PLAN_HAND)
    _card_worth.scan_rays(
        obs, tables.land_icons, tables.land_fit, tables.land_features, n_vis, ints, floats, -1,
        kind, param, n_held, held_features, directions, reach, options.shape[0], out, depth,
    )  # fmt: skip
    return out[: options.shape[0]]


@pytest.mark.parametrize(
    "values", [greedy_plan_values, card_worth_plan_values], ids=["greedy", "card_worth"]
)
def test_plan_cards_are_worth_the_same_on_short_paths(plans, values):
    tables = build_tables(load_cards())
    assert tables.plan_paint.max() <= PATH_SHORT  # the shipped cards take the short paths
    shorter = 0  # decisions where paths of one value change a worth: the check can fail
    for obs, options in plans:
        whole = values(obs, options, tables, PATH_TOP)
        assert np.array_equal(values(obs, options, tables, PATH_SHORT), whole), options
        shorter += not np.array_equal(values(obs, options, tables, 1), whole)
    assert shorter > len(plans) // 4


@pytest.mark.parametrize("values", [greedy_values, card_worth_values], ids=["greedy", "card_worth"])
def test_every_hike_is_worth_the_same_whatever_the_order_of_the_rows(hikes, values):
    tables = build_tables(load_cards())
    shuffle = np.random.default_rng(7)
    for obs, options in hikes:
        listed = values(obs, options, tables)
        assert (listed > -1e9).sum() >= len(options) - 1  # every hike valued (the stay may not be)
        for order in (np.arange(len(options))[::-1], shuffle.permutation(len(options))):
            reordered = values(obs, np.ascontiguousarray(options[order]), tables)
            assert np.array_equal(reordered, listed[order]), (options, order)


@numba.njit
def paint_worths(obs, options, tables, weights, rate_mode, target, preview_factor=0.5):
    """_card_worth's worth of each paint option with these weights (W_* order), rate mode,
    target (-1: none) and preview factor, today's goal counted."""
    ints = np.empty(_context.N_INTS, dtype=np.int64)
    floats = np.empty(_context.N_FLOATS)
    goal = obs[OBS_GOAL]
    weights[W_GOAL] = weights[W_GOAL] * tables.goal_fame[goal] if goal >= 0 else 0.0
    n_vis, n_held, held_features = _context.context(
        obs,
        tables,
        True,
        rate_mode,
        preview_factor,
        weights[W_DENY] != 0.0,
        weights,
        ints,
        floats,
    )
    out = np.empty(64)
    _card_worth.option_values(
        DECIDE_PAINT, obs, options, options.shape[0], tables, n_vis, ints, floats,
        min(target, n_vis - 1), n_held, held_features, out,
    )  # fmt: skip
    return out[: options.shape[0]]


def test_the_whole_paint_set_is_the_best_for_any_weights(paints):
    tables = build_tables(load_cards())
    draw = np.random.default_rng(11)
    found = 0
    for number, (obs, options) in enumerate(paints):
        icon_weight = float(draw.uniform(0.05, 2.0))
        whole = whole_paint_set(obs, options, len(options), tables.land_icons, icon_weight)
        if whole < 0:
            continue
        found += 1
        union = set(int(c) for row in options for c in row if c >= 0)
        assert set(int(c) for c in options[whole] if c >= 0) == union
        weights = np.zeros(N_WEIGHTS)
        weights[W_ICONS] = icon_weight
        weights[[W_TARGET, W_OTHER, W_DENY, W_GOAL]] = draw.uniform(0.0, 3.0, 4)
        rate_mode = (RATE_SHARE, RATE_MISSING)[number % 2]
        values = paint_worths(obs, options, tables, weights, rate_mode, number % 3 - 1)
        others = np.delete(values, whole)
        assert values[whole] > others.max(), (options, values)
    assert found > len(paints) // 3  # the shortcut is taken often: the check can fail


def test_no_whole_paint_set_when_a_card_may_be_worth_nothing(paints):
    tables = build_tables(load_cards())
    taken = [
        (obs, options)
        for obs, options in paints
        if whole_paint_set(obs, options, len(options), tables.land_icons, 1.0) >= 0
    ]
    assert taken
    for obs, options in taken:  # no icon weight: a card's worth may be 0, as a smaller set's
        assert whole_paint_set(obs, options, len(options), tables.land_icons, 0.0) < 0


def test_greedy_painter_paint_by_icons_is_its_choice_by_the_whole_value(paints):
    tables = build_tables(load_cards())
    weights = np.zeros(N_WEIGHTS)
    weights[W_ICONS] = 1.0
    weights[W_OTHER] = greedy_painter.TIE_BREAK
    decided = left = 0
    for obs, options in paints:
        if whole_paint_set(obs, options, len(options), tables.land_icons, 1.0) >= 0:
            continue
        left += 1
        chosen = greedy_painter.paint_by_icons(
            obs, options, len(options), tables.land_icons, tables.land_fit,
            tables.land_features, tables.comm_share,
        )  # fmt: skip
        if chosen < 0:
            continue
        decided += 1
        values = paint_worths(obs, options, tables, weights.copy(), RATE_SHARE, -1, 1.0)
        assert values[chosen] > np.delete(values, chosen).max(), (options, values)
    assert decided > left // 3  # the shortcut is taken often: the check can fail


@numba.njit
def worthless_goal_values(kind, obs, options, tables, checked):
    """greedy-painter's values of a plan, hike or paint decision (no weight on the goal):
    by option_values (which leaves the goal out), or with today's goal ``checked`` by the
    functions option_values calls."""
    ints, floats, n_vis, n_held, held_features = weighted_context(obs, tables, 1.0, 0.01, 0.0)
    n = options.shape[0]
    out = np.empty(64)
    if not checked:
        _card_worth.option_values(
            kind, obs, options, n, tables, n_vis, ints, floats, -1, n_held, held_features, out
        )
        return out[:n]
    goal = obs[OBS_GOAL]
    goal_kind, goal_param = tables.goal_kind[goal], tables.goal_param[goal]
    features = 0  # my paintings' features, as the context finds them for the goal
    for i in range(n_held):
        features |= card_features(tables.land_features, obs[OBS_PAINTINGS + i])
    _card_worth.fit_tables(n_vis, ints, floats, -1)
    if kind == DECIDE_PAINT:
        _card_worth.paint_values(
            obs, options, n, tables.land_icons, tables.land_fit, tables.land_features, n_vis,
            ints, floats, -1, goal_kind, goal_param, n_held, features, out,
        )  # fmt: skip
    elif kind == DECIDE_HIKE:
        _card_worth.hike_rows(
            obs, options, n, tables.land_icons, tables.land_fit, tables.land_features, n_vis,
            ints, floats, -1, goal_kind, goal_param, n_held, features,
            tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]], out,
        )  # fmt: skip
    else:
        reach = 0
        directions = 0
        for i in range(PLAN_HAND):
            plan = options[i, 0] if i < n else -1
            ints[_context.PLAN_HIKE + i] = tables.plan_hike[plan] if plan >= 0 else 0
            ints[_context.PLAN_PAINT + i] = tables.plan_paint[plan] if plan >= 0 else 0
            ints[_context.PLAN_DIRECTIONS + i] = tables.plan_directions[plan] if plan >= 0 else 0
            reach = max(reach, ints[_context.PLAN_HIKE + i])
            directions |= ints[_context.PLAN_DIRECTIONS + i]
        _card_worth.hike_scan(
            obs, tables.land_icons, tables.land_fit, tables.land_features, n_vis, ints, floats,
            -1, goal_kind, goal_param, n_held, features, directions, reach, n, out,
        )  # fmt: skip
    return out[:n]


def test_a_goal_worth_nothing_is_left_out_with_no_value_changed(recorded):
    tables = build_tables(load_cards())
    kinds = set()
    for kind, obs, options in recorded:
        if kind not in (DECIDE_PLAN, DECIDE_HIKE, DECIDE_PAINT) or obs[OBS_GOAL] < 0:
            continue
        kinds.add(int(tables.goal_kind[obs[OBS_GOAL]]))
        left_out = worthless_goal_values(kind, obs, options, tables, False)
        checked = worthless_goal_values(kind, obs, options, tables, True)
        assert np.array_equal(left_out, checked), (kind, options)
    assert len(kinds) >= 5  # the goals that hikes and sets are checked against came up
