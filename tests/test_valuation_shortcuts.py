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
  the values it gives are those with the goal checked;
- goal-chaser's paint shortcut (whole_paint_set at greedy's half an icon): greedy chooses
  that set, and today's goal keeps it wherever it keeps any set, but for a 'sold' goal,
  where goal-chaser's count of sales is not kept up by one more card (a recorded
  decision where the shortcut chose otherwise, tests/data/goal_chaser_sold_paint.npz)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from sunset_sim.strategies import (
    _card_worth,
    _context,
    _goal_sets,
    goal_chaser,
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
    DECIDE_SALE,
    GOAL_SOLD,
    MAX_FRAMES,
    N_CELLS,
    PLAN_HAND,
)
from sunset_sim.observation import (
    MAX_PAINTINGS,
    MAX_ROW,
    OBS_GOAL,
    OBS_GRID,
    OBS_ME,
    OBS_N_PAINTINGS,
    OBS_PAINTINGS,
    OBS_PLAN,
    OBS_POS,
    OBS_ROW,
    OBS_ROW_LEN,
)
from sunset_sim.strategy_tools import (
    PATH_SHORT,
    PATH_TOP,
    card_features,
    ray_cell,
    whole_paint_set,
)

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
def paints(recorded):
    """The paint decisions: (obs, options)."""
    found = [(obs, options) for kind, obs, options in recorded if kind == DECIDE_PAINT]
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


def test_goal_chaser_whole_paint_set_is_greedys_choice_and_meets_the_goal(paints):
    tables = build_tables(load_cards())
    found = 0
    for obs, options in paints:
        n = len(options)
        whole = whole_paint_set(obs, options, n, tables.land_icons, 0.5)
        if whole < 0:
            continue
        found += 1
        assert greedy.choose_paint(obs, options, n, tables, 1.0) == whole
        goal = obs[OBS_GOAL]
        if goal < 0 or tables.goal_kind[goal] == GOAL_SOLD:
            continue
        keep = goal_chaser.paint_keep(
            obs, options, n, tables.goal_kind[goal], tables.goal_param[goal], tables, -1
        )
        assert keep == 0 or (keep >> whole) & 1, (options, keep)
    assert found > len(paints) // 3


@numba.njit
def goal_chaser_choice(kind, obs, options, params, stream, tables):
    return goal_chaser.decide(kind, obs, options, options.shape[0], params, stream, tables)


def test_goal_chaser_keeps_the_set_its_sold_goal_count_prefers():
    """A 'sold n=2' day where goal-chaser's count keeps only {15, 11}, not the set with
    cell 7 as well: the whole set is not its choice, and the shortcut leaves it alone."""
    tables = build_tables(load_cards())
    data = np.load(Path(__file__).parent / "data" / "goal_chaser_sold_paint.npz")
    obs, options = data["obs"], np.ascontiguousarray(data["options"])
    assert tables.goal_kind[obs[OBS_GOAL]] == GOAL_SOLD
    whole = whole_paint_set(obs, options, len(options), tables.land_icons, 0.5)
    assert whole >= 0 and whole != data["choice"]
    choice = goal_chaser_choice(
        DECIDE_PAINT, obs, options, data["params"], data["stream"].copy(), tables
    )
    assert choice == data["choice"] == 3


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


def test_goal_chasers_sales_setup_orders_the_row_by_frames_then_place(recorded):
    """sales_setup (the row's commissions as goal-chaser's count of sales takes them:
    fewer frames first, then row order; ranked without branches) against a plain
    account of the same, on every recorded observation."""
    tables = build_tables(load_cards())
    setup = _goal_sets.sales_setup
    rows_seen = set()
    for _, obs, _ in recorded:
        n_ids = _goal_sets.N_FRAME_IDS
        frame_ids = np.full(n_ids, -7, dtype=np.int64)
        frame_k = np.full(_goal_sets.N_FRAME_K, -7, dtype=np.int64)
        n_frames = np.full(MAX_ROW, -7, dtype=np.int64)
        held = np.full(MAX_PAINTINGS, -7, dtype=np.int64)
        held_fits = np.full(n_ids, -7, dtype=np.int64)
        n_comm, n_held, row_frames = setup(
            obs, tables.match, tables.land_frames, tables.comm_frames, tables.comm_n_frames,
            frame_ids, frame_k, n_frames, held, held_fits,
        )  # fmt: skip
        row = [int(c) for c in obs[OBS_ROW : OBS_ROW + obs[OBS_ROW_LEN]]]
        order = sorted(row, key=lambda c: (tables.comm_n_frames[c], row.index(c)))
        rows_seen.add(tuple(sorted(int(tables.comm_n_frames[c]) for c in row)))
        mine = sorted(int(c) for c in obs[OBS_PAINTINGS : OBS_PAINTINGS + obs[OBS_N_PAINTINGS]])
        assert (n_comm, n_held) == (len(row), len(mine))
        assert held[:n_held].tolist() == mine
        expected_bits = 0
        for j, commission in enumerate(order):
            assert n_frames[j] == tables.comm_n_frames[commission]
            for s in range(MAX_FRAMES):
                k = j * MAX_FRAMES + s
                frame = int(tables.comm_frames[commission, s])
                assert frame_ids[k] == frame
                fits = [
                    i for i, card in enumerate(mine) if frame >= 0 and tables.match[card, frame]
                ]
                assert held_fits[k] == sum(1 << i for i in fits)
                if frame >= 0:
                    assert frame_k[frame] == k
                    expected_bits |= 1 << frame
        assert int(row_frames) == expected_bits
    assert len(rows_seen) > 3  # rows of several mixes of frame counts came up


def covered_count(tables, row, cards):
    """The row commissions whose every frame one of ``cards`` fits (R-SELL-3), plainly."""
    return sum(
        all(
            any(tables.match[card, frame] for card in cards)
            for frame in tables.comm_frames[commission]
            if frame >= 0
        )
        for commission in row
    )


def test_goal_chasers_sold_bounds_count_the_commissions_the_cards_cover(recorded):
    """sold_bound and sold_directions (goal-chaser's early returns on a 'sold' day,
    before any setup): the row commissions whose every frame some card of mine, of the
    given cells or of a hike's way fits, as a plain account counts them; never below the
    sales my paintings allow (count_sales)."""
    tables = build_tables(load_cards())
    bounds = set()
    lives = set()
    for _, obs, _ in recorded:
        mine = [int(c) for c in obs[OBS_PAINTINGS : OBS_PAINTINGS + obs[OBS_N_PAINTINGS]]]
        row = [int(c) for c in obs[OBS_ROW : OBS_ROW + obs[OBS_ROW_LEN]]]
        with_card = [c for c in range(N_CELLS) if obs[OBS_GRID + c] >= 0]
        for cells in ([], with_card[::3], with_card):
            mask = sum(1 << c for c in cells)
            bound = _goal_sets.sold_bound(obs, tables.land_frames, tables.comm_frame_words, mask)
            expected = covered_count(tables, row, mine + [int(obs[OBS_GRID + c]) for c in cells])
            assert bound == expected
            bounds.add(bound)
        start = int(obs[OBS_POS + obs[OBS_ME]])
        here = [int(obs[OBS_GRID + start])] if obs[OBS_GRID + start] >= 0 else []
        for directions, reach, goal in ((0b1010_1010, 2, 1), (0xFF, 4, 2), (0b0101, 1, 1)):
            live = _goal_sets.sold_directions(
                obs, tables.land_frames, tables.comm_frame_words, directions, reach, goal
            )
            expected = 0
            for direction in range(8):
                if not (directions >> direction) & 1:
                    continue
                way = []
                for steps in range(1, reach + 1):
                    cell = ray_cell(obs, start, direction, steps)
                    if cell < 0:
                        break
                    way.append(int(obs[OBS_GRID + cell]))
                if covered_count(tables, row, mine + here + way) >= goal:
                    expected |= 1 << direction
            assert live == expected, (directions, reach, goal)
            lives.add((directions, live))
        n_ids = _goal_sets.N_FRAME_IDS
        frame_ids = np.empty(n_ids, dtype=np.int64)
        n_frames = np.empty(MAX_ROW, dtype=np.int64)
        held_fits = np.empty(n_ids, dtype=np.int64)
        n_comm, n_held, _ = _goal_sets.sales_setup(
            obs, tables.match, tables.land_frames, tables.comm_frames, tables.comm_n_frames,
            frame_ids, np.empty(_goal_sets.N_FRAME_K, dtype=np.int64), n_frames,
            np.empty(MAX_PAINTINGS, dtype=np.int64), held_fits,
        )  # fmt: skip
        all_held = (1 << n_held) - 1
        sales = _goal_sets.count_sales(
            n_comm, n_frames, held_fits, held_fits, all_held, 0, MAX_ROW + 1
        )
        assert sales <= _goal_sets.sold_bound(obs, tables.land_frames, tables.comm_frame_words, 0)
    assert len(bounds) >= 3  # some commissions covered, some not
    assert len(lives) >= 6  # some directions live, some not


def test_one_sale_offered_is_the_one_sale_goal_chasers_count_allows(recorded):
    """goal-chaser's 'sold' sale with one sale offered skips its count of sales: the
    engine offers every commission my paintings can fulfil (R-SELL-1), so they allow
    exactly that one sale. Held against count_sales on every recorded sale decision (no
    more sales than commissions offered, at least one when any is)."""
    tables = build_tables(load_cards())
    single = 0
    for kind, obs, options in recorded:
        if kind != DECIDE_SALE:
            continue
        n_ids = _goal_sets.N_FRAME_IDS
        n_frames = np.empty(MAX_ROW, dtype=np.int64)
        held_fits = np.empty(n_ids, dtype=np.int64)
        n_comm, n_held, _ = _goal_sets.sales_setup(
            obs, tables.match, tables.land_frames, tables.comm_frames, tables.comm_n_frames,
            np.empty(n_ids, dtype=np.int64), np.empty(_goal_sets.N_FRAME_K, dtype=np.int64),
            n_frames, np.empty(MAX_PAINTINGS, dtype=np.int64), held_fits,
        )  # fmt: skip
        sales = _goal_sets.count_sales(
            n_comm, n_frames, held_fits, held_fits, (1 << n_held) - 1, 0, MAX_ROW + 1
        )
        offered = {int(commission) for commission in options[1:, 0]}
        assert min(len(offered), 1) <= sales <= len(offered), (options, sales)
        single += len(options) == 2
    assert single >= 10  # one sale offered came up


def test_goal_chaser_tests_greedys_choice_first_with_every_keep_unchanged(recorded):
    """goal-chaser's hike_keep and paint_keep given greedy's choice (``first``, any
    option here): a mask that keeps it where the whole mask does, else the whole mask.
    decide takes greedy's choice where it is kept or none is, else greedy's among the
    kept, so no choice changes."""
    tables = build_tables(load_cards())
    outcomes = set()
    for kind, obs, options in recorded:
        goal = obs[OBS_GOAL]
        if kind not in (DECIDE_HIKE, DECIDE_PAINT) or goal < 0:
            continue
        goal_kind, goal_param = tables.goal_kind[goal], tables.goal_param[goal]
        n = len(options)
        plan = obs[OBS_PLAN + obs[OBS_ME]]
        hike = (tables.plan_directions[plan], tables.plan_hike[plan], tables.plan_paint[plan])
        for first in range(n):
            if kind == DECIDE_HIKE:
                keeps = [
                    goal_chaser.hike_keep(obs, options, n, goal_kind, goal_param, *hike, tables, c)
                    for c in (-1, first)
                ]
            else:
                keeps = [
                    goal_chaser.paint_keep(obs, options, n, goal_kind, goal_param, tables, c)
                    for c in (-1, first)
                ]
            whole, tested = keeps
            kept = (whole >> first) & 1
            if kept:
                assert (tested >> first) & 1, (kind, goal_kind, options)
            else:
                assert tested == whole, (kind, goal_kind, options)
            outcomes.add((kind, int(kept), whole not in (0, (1 << n) - 1)))
    assert len(outcomes) >= 5  # kept and not, some options kept and others not
