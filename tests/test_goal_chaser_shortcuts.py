"""goal-chaser's shortcuts, each of which must leave every choice as it was, checked on
decisions recorded from real games (the ``recorded`` fixture: 4 greedy games):

- its paint shortcut (whole_paint_set at greedy's half an icon): greedy chooses that
  set, and today's goal keeps it wherever it keeps any set, but for a 'sold' goal, where
  goal-chaser's count of sales is not kept up by one more card (a recorded decision
  where the shortcut chose otherwise, tests/data/goal_chaser_sold_paint.npz);
- the row's order for its count of sales (``sales_setup``) and the bounds of the sales
  a 'sold' day allows (``sold_bound``, ``sold_directions``), against plain accounts;
- a 'sold' sale with one sale offered, decided with no count of sales;
- greedy's choice tested first (hikes, paint sets, sales under 'holds' and 'all
  features'): where it meets the goal it is the choice."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
from sunset_sim.strategies import _goal_sales, _goal_sets, goal_chaser, greedy

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_SALE,
    GOAL_ALL_FEATURES,
    GOAL_HOLDS,
    GOAL_SOLD,
    MAX_FRAMES,
    N_CELLS,
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
from sunset_sim.strategy_tools import ray_cell, sale_value, whole_paint_set


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


def test_goal_chasers_holds_and_all_features_sales_are_greedys_among_those_that_keep_it(
    recorded,
):
    """choose_sale under 'holds' and 'all features' (greedy's sale tested first) against
    a plain account: where my paintings meet the goal, greedy's choice among the sales
    that keep it met (the most fame less leftover fame above 0, the first of equals),
    else greedy's."""
    tables = build_tables(load_cards())
    n_types = tables.land_features.shape[1]
    seen = set()
    for kind, obs, options in recorded:
        goal = obs[OBS_GOAL]
        if kind != DECIDE_SALE or goal < 0:
            continue
        goal_kind, goal_param = int(tables.goal_kind[goal]), int(tables.goal_param[goal])
        if goal_kind not in (GOAL_HOLDS, GOAL_ALL_FEATURES):
            continue
        mine = [int(c) for c in obs[OBS_PAINTINGS : OBS_PAINTINGS + obs[OBS_N_PAINTINGS]]]

        def meets(cards, goal_kind=goal_kind, goal_param=goal_param):
            if goal_kind == GOAL_HOLDS:
                return len(cards) >= goal_param
            shown = {f for c in cards for f in range(n_types) if tables.land_features[c, f] > 0}
            return len(shown) == n_types

        values = [sale_value(options, i, tables.comm_fame, tables.land_icons, 1.0)
                  for i in range(len(options))]  # fmt: skip
        rows = range(1, len(options))
        met = meets(mine)
        if met:
            handed = [[int(c) for c in options[i, 1 : 1 + MAX_FRAMES] if c >= 0] for i in rows]
            rows = [i for i, cards in zip(rows, handed, strict=True)
                    if meets([c for c in mine if c not in cards])]  # fmt: skip
        expected, best = 0, 0.0
        for i in rows:
            if values[i] > best:
                expected, best = i, values[i]
        choice = _goal_sales.choose_sale(
            obs, options, len(options), goal_kind, goal_param, 0.0, tables
        )
        assert choice == expected, (goal_kind, options, mine)
        seen.add((goal_kind, met, expected > 0))
    assert len(seen) >= 4  # both goals; met and not; a sale made and none
