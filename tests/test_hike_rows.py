"""Hike decisions valued down the option rows (greedy's ``hike_values``, ``_card_worth``'s
``hike_rows``): a row's path is built on the previous row's only where it goes on in the
same direction, so every row's worth is the same whatever the order of the rows (the
engines list them by direction, then steps: R-HIKE-1..6). Checked on hike decisions
recorded from real games, with the rows reversed and shuffled. And plan cards valued on
paths that keep only PATH_SHORT values where no card paints more (greedy's
``plan_values``, ``_card_worth``'s ``scan_rays``): worth the same as on whole paths."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from sunset_sim.strategies import _card_worth, greedy
from sunset_sim.strategies._style_tools import (
    N_WEIGHTS,
    RATE_SHARE,
    W_DENY,
    W_ICONS,
    W_OTHER,
)

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PLAN, PLAN_HAND
from sunset_sim.observation import OBS_GOAL, OBS_ME, OBS_PLAN
from sunset_sim.strategy_tools import PATH_SHORT, PATH_TOP

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "decision_bench.py"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The decisions of 4 greedy games: (kind, obs, options) each."""
    recording = tmp_path_factory.mktemp("hikes") / "greedy.npz"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "record", "greedy", str(recording), "--games", "4"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = np.load(recording)
    ends = np.cumsum(data["n_options"])
    return [
        (
            kind,
            data["obs"][index],
            np.ascontiguousarray(data["options"][ends[index] - count : ends[index]]),
        )
        for index, (kind, count) in enumerate(zip(data["kind"], data["n_options"], strict=True))
    ]


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
    greedy.hike_values(
        obs, options, options.shape[0], tables.land_commissions_ranked, tables.share_rank,
        tables.share_by_rank, tables.land_icons, 1.0,
        tables.plan_paint[obs[OBS_PLAN + obs[OBS_ME]]], kind, param, bonus, out,
    )  # fmt: skip
    return out


@numba.njit
def card_worth_values(obs, options, tables):
    """_card_worth's worth of each hike row, with greedy-painter's weights."""
    out = np.empty(64)
    weights = np.zeros(N_WEIGHTS)
    weights[W_ICONS] = 1.0
    weights[W_OTHER] = 0.01
    ints = np.empty(_card_worth.N_INTS, dtype=np.int64)
    floats = np.empty(_card_worth.N_FLOATS)
    n_vis, n_held, held_features = _card_worth.context(
        obs, tables, True, RATE_SHARE, 1.0, False, weights, ints, floats
    )
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
    weights = np.zeros(N_WEIGHTS)
    weights[W_ICONS] = 0.5
    weights[W_OTHER] = 1.0
    weights[W_DENY] = 0.3
    ints = np.empty(_card_worth.N_INTS, dtype=np.int64)
    floats = np.empty(_card_worth.N_FLOATS)
    n_vis, n_held, held_features = _card_worth.context(
        obs, tables, True, RATE_SHARE, 1.0, True, weights, ints, floats
    )
    _card_worth.fit_tables(n_vis, ints, floats, -1)
    goal = obs[OBS_GOAL]
    kind = tables.goal_kind[goal] if goal >= 0 else -1
    param = tables.goal_param[goal] if goal >= 0 else 0
    reach = 0
    directions = 0
    for i in range(PLAN_HAND):
        plan = options[i, 0] if i < options.shape[0] else -1
        ints[_card_worth.PLAN_HIKE + i] = tables.plan_hike[plan] if plan >= 0 else 0
        ints[_card_worth.PLAN_PAINT + i] = tables.plan_paint[plan] if plan >= 0 else 0
        ints[_card_worth.PLAN_DIRECTIONS + i] = tables.plan_directions[plan] if plan >= 0 else 0
        reach = max(reach, ints[_card_worth.PLAN_HIKE + i])
        directions |= ints[_card_worth.PLAN_DIRECTIONS + i]
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
