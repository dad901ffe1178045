"""The lookahead strategy: the strategy contract, engine parity in mixed tables, the
``samples`` and ``margin`` parameters, and its fast parts against the exact evaluation
they replace (observations recorded from reference games).

The fast-engine checks compile one kernel per set of strategies ({lookahead} and
{lookahead, balanced, greedy, random}); warm runs load them from the cache.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sunset_sim.strategies import (
    _lookahead_parameters,
    _lookahead_plan,
    _public_values,
    _rollout,
    _style_tools,
    lookahead,
)

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.trace import comparable
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PAINT, DECIDE_PLAN, MAX_PLAYERS, N_CELLS
from sunset_sim.observation import (
    OBS_DAY,
    OBS_DAYS,
    OBS_GOAL,
    OBS_GRID,
    OBS_ME,
    OBS_N_PLAYERS,
    OBS_POS,
)
from sunset_sim.play import play_reference
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player, registry
from sunset_sim.testing import check_strategy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_parity import check_game  # noqa: E402 - the parity suite's own helper

CARDS = load_cards()
TABLES = build_tables(CARDS)
MIXED = ("lookahead", "balanced", "greedy", "random")


def test_lookahead_is_registered_with_samples():
    spec = registry()["lookahead"]
    params = {p.name: p for p in spec.parameters}
    assert [p.name for p in spec.parameters][0] == "samples"
    assert (params["samples"].low, params["samples"].high) == (1.0, 256.0)
    assert 3 <= params["samples"].default <= 16  # at most: plan decisions stop early
    assert params["hike_samples"].default >= 1
    assert params["margin"].default > 0  # plan decisions may stop sampling early


def test_lookahead_keeps_the_strategy_contract():
    """Legal moves, deterministic, no writes, randomness only from rng, reference/fast parity
    (sunset_sim.testing.check_strategy)."""
    assert check_strategy("lookahead", games=6, seed=3) == []


@pytest.mark.parametrize(
    ("n_players", "lineup", "tie_break"),
    [
        (4, MIXED, "random"),
        (4, MIXED[1:] + MIXED[:1], "lowest-fame"),
        (4, MIXED[2:] + MIXED[:2], "seat"),
        (2, ("lookahead",), "random"),
        (3, ("lookahead",), "seat"),
    ],
    ids=["4p-mixed-random", "4p-mixed-fame", "4p-mixed-seat", "2p-alone", "3p-alone"],
)
def test_lookahead_parity_between_engines(n_players, lineup, tie_break):
    rules = Rules(tie_break=tie_break)
    for game in range(3):
        check_game(CARDS, TABLES, lineup, n_players, rules, 2024, game)


def test_samples_change_the_choices():
    spec = registry()["lookahead"]
    few = Player(spec, spec.param_vector({"samples": 1}), label="lookahead:samples=1")
    many = Player(spec, spec.param_vector({"samples": 32}), label="lookahead:samples=32")
    greedy = Player(registry()["greedy"], registry()["greedy"].param_vector())
    differ = 0
    for game in range(4):
        records = [
            comparable(play_reference(CARDS, [who, greedy, greedy, greedy], 5, game).record)
            for who in (few, many)
        ]
        differ += records[0] != records[1]
    assert differ > 0, "samples=1 and samples=32 played the same games"


def test_margin_changes_nothing_within_the_first_samples():
    """The early stop looks only after MIN_SAMPLES samples: with no more samples than that
    a margin cannot change a game; with more, a tiny margin stops almost every decision."""
    spec = registry()["lookahead"]
    greedy = Player(registry()["greedy"], registry()["greedy"].param_vector())

    def games(n_games=3, **overrides):
        who = Player(spec, spec.param_vector(overrides), label=str(overrides))
        return [
            comparable(play_reference(CARDS, [who, greedy, greedy, greedy], 9, game).record)
            for game in range(n_games)
        ]

    few = _lookahead_parameters.MIN_SAMPLES
    assert games(samples=few, margin=0.0) == games(samples=few, margin=0.01)
    # (a stop changes a decision far more often than a game's outcome: 1 game in 6 here)
    assert games(6, samples=16, margin=0.0) != games(6, samples=16, margin=0.01)


def test_clear_lead_needs_the_margin_over_every_other_card():
    price = np.zeros(3)
    # means 2.0, 1.5, 0.0 after 2 samples: the lead is 0.5
    score = np.array([4.0, 3.0, 0.0])
    assert _lookahead_plan.clear_lead(score, price, 3, 2, 0.5)
    assert not _lookahead_plan.clear_lead(score, price, 3, 2, 0.51)
    price[0] = 0.5  # a late card's price counts: now 1.5 against 1.5
    assert not _lookahead_plan.clear_lead(score, price, 3, 2, 0.01)


# ---- the fast parts against the exact evaluation, on recorded observations ---------------


def _recorded(n_games: int = 3) -> list[tuple[int, np.ndarray, np.ndarray, int]]:
    """(kind, obs, options, n_options) of every lookahead decision in reference games."""
    spec = registry()["lookahead"]
    seen = []

    def recording(kind, obs, options, n_options, params, rng, tables):
        seen.append((int(kind), obs.copy(), options.copy(), int(n_options)))
        return spec.decide(kind, obs, options, n_options, params, rng, tables)

    spy = type(spec)(spec.name, spec.description, recording, spec.parameters)
    who = Player(spy, spec.param_vector(), label="lookahead")
    greedy = Player(registry()["greedy"], registry()["greedy"].param_vector())
    for game in range(n_games):
        play_reference(CARDS, [who, greedy, who, greedy], 11, game)
    return seen


RECORDED = _recorded()


def _state(obs, urgency=0.5, with_features=True):
    """lookahead's per-decision state for every seat and cell."""
    n_players = int(obs[OBS_N_PLAYERS])
    vis = np.zeros(_style_tools.MAX_VISIBLE, dtype=np.int64)
    n_vis, _ = _style_tools.visible_commissions(obs, obs[OBS_DAY] < obs[OBS_DAYS], vis)
    cards = (
        TABLES.land_features, TABLES.land_fit, TABLES.land_icons, TABLES.comm_fame,
        TABLES.comm_n_frames,
    )  # fmt: skip
    fit = np.zeros(lookahead.CELL_VIS, dtype=np.int64)
    cell_features = np.zeros(N_CELLS, dtype=np.int64)
    cell_icons = np.zeros(N_CELLS, dtype=np.int64)
    _public_values.cell_state(
        obs, cards, (1 << N_CELLS) - 1, vis, n_vis, with_features, fit, cell_features, cell_icons
    )  # fmt: skip
    held = np.zeros(MAX_PLAYERS, dtype=np.int64)
    features = np.zeros(MAX_PLAYERS, dtype=np.int64)
    keys = np.zeros(_public_values.SEAT_VIS, dtype=np.int64)
    adds = np.zeros(_public_values.SEAT_VIS, dtype=np.int64)
    filled = np.zeros(_public_values.SEAT_VIS, dtype=np.int64)
    rates = np.zeros(_public_values.SEAT_VIS, dtype=np.float64)
    _public_values.seat_state(
        obs, cards, n_players, (1 << n_players) - 1, vis, n_vis, urgency, with_features, held,
        features, keys, adds, filled, rates,
    )  # fmt: skip
    return dict(
        vis=vis, n_vis=n_vis, cards=cards, fit=fit, cell_features=cell_features,
        cell_icons=cell_icons, held=held, features=features, keys=keys, adds=adds,
        filled=filled, rates=rates, n_players=n_players,
    )  # fmt: skip


def test_recorded_games_cover_every_decision_kind():
    kinds = {kind for kind, *_ in RECORDED}
    assert {DECIDE_PLAN, DECIDE_HIKE, DECIDE_PAINT} <= kinds


def test_state_without_features_differs_only_in_features():
    """Features are counted only for an "all features" goal: without them, the state is
    the same but for features 0 (every seat, every cell)."""
    some = 0
    for _, obs, _, _ in RECORDED[::5]:
        full = _state(obs)
        bare = _state(obs, with_features=False)
        for name in ("fit", "cell_icons", "held", "keys", "adds", "filled", "rates"):
            np.testing.assert_array_equal(full[name], bare[name])
        assert not bare["cell_features"].any() and not bare["features"].any()
        some += int(full["cell_features"].any())
    assert some > 0


def test_set_worth_equals_the_matching_evaluation():
    """set_worth (Hall table) gives exactly _style_tools.set_value (matching) for sets of
    one to three cards, for me in every recorded position."""
    rng = np.random.default_rng(1)
    weights = np.zeros(_style_tools.N_WEIGHTS)
    weights[_style_tools.W_ICONS] = 0.7
    weights[_style_tools.W_OTHER] = 1.3
    compared = 0
    for _, obs, _, _ in RECORDED[::3]:
        state = _state(obs)
        me = int(obs[OBS_ME])
        lookup = _style_tools.evaluation(
            obs, TABLES, me, obs[OBS_DAY] < obs[OBS_DAYS], 0, 1.0, False
        )
        n_vis, _, vis, hist, base, rate, masks, deny, _, extra = lookup
        for k in range(n_vis):  # lookahead's rate of a frame, as its decide sets it
            rate[k] = _public_values.frame_rate(
                TABLES.comm_fame, TABLES.comm_n_frames, vis[k], base[k], 0.5
            )
        n_frames = TABLES.comm_n_frames[vis[:n_vis]].astype(np.int64)
        full_cells = np.flatnonzero(obs[OBS_GRID : OBS_GRID + N_CELLS] >= 0)
        for _ in range(4):
            size = int(rng.integers(1, 4))
            if len(full_cells) < size:
                continue
            cells = rng.choice(full_cells, size=size, replace=False).astype(np.int64)
            exact = _style_tools.set_value(
                obs, TABLES, cells, size, weights, n_vis, vis, hist, base, rate, masks, -1,
                deny, extra,
            )  # fmt: skip
            fast = _public_values.set_worth(
                cells, size, me, n_vis, n_frames, state["fit"], state["cell_icons"],
                state["keys"], state["filled"], state["rates"], 0.7, 1.3,
            )  # fmt: skip
            assert fast == exact, (cells, fast, exact)
            compared += 1
    assert compared > 50


def _seat_values(obs, state, w_icons, w_commission):
    """_public_values.seat_values for every seat of this decision (_state's tables)."""
    n_players = state["n_players"]
    values = np.zeros(_lookahead_plan.SEAT_CELLS)
    _public_values.seat_values(
        obs, n_players, (1 << n_players) - 1, state["n_vis"], state["fit"],
        state["cell_icons"], state["adds"], state["rates"], w_icons, w_commission, values,
    )  # fmt: skip
    return values


def test_plan_totals_equal_one_policy_turn_per_plan_card():
    """The opponents' model walks each direction once for every plan card: the same value
    as a fast-policy turn with that card, seat by seat, in every recorded plan decision."""
    plans = TABLES.plan_wake.shape[0]
    compared = 0
    for kind, obs, _, _ in RECORDED:
        if kind != DECIDE_PLAN:
            continue
        state = _state(obs)
        n_players = state["n_players"]
        values = _seat_values(obs, state, 0.7, 1.0)
        present = _public_values.grid_present(obs)
        pos = np.full(MAX_PLAYERS, -1, dtype=np.int64)
        pos[:n_players] = obs[OBS_POS : OBS_POS + n_players]
        goal = int(obs[OBS_GOAL])
        kind_, param = (TABLES.goal_kind[goal], TABLES.goal_param[goal]) if goal >= 0 else (-1, 0)
        full = (1 << TABLES.land_features.shape[1]) - 1
        for seat in range(n_players):
            mine = values[seat * N_CELLS : (seat + 1) * N_CELLS]
            common = (
                TABLES.plan_directions, TABLES.plan_hike, TABLES.plan_paint,
                state["cell_features"], kind_, param, 3.0, state["held"][seat],
                state["features"][seat], full,
            )  # fmt: skip
            totals = np.zeros(plans)
            _rollout.plan_totals(seat, n_players, present, pos, mine, *common, totals)
            for plan in range(plans):
                occupied = _rollout.others_here(seat, n_players, pos)
                _, _, one, _, _ = _rollout.policy_turn(
                    seat, plan, occupied, present, pos, mine, *common, False
                )
                assert totals[plan] == one, (seat, plan, totals[plan], one)
                compared += 1
    assert compared > 100


def test_seat_values_follow_the_hall_table():
    """A card is worth w_icons x icons plus w_commission x the best rate of a visible
    commission whose frames it newly fills for that seat (by the exact matching)."""
    checked = 0
    for _, obs, _, _ in RECORDED[::4]:
        state = _state(obs)
        n_players = state["n_players"]
        values = _seat_values(obs, state, 0.5, 2.0)
        for seat in range(n_players):
            work = np.zeros(64, dtype=np.int64)
            n_cards = _style_tools.seat_paintings(obs, seat, work)
            for cell in range(N_CELLS):
                card = int(obs[OBS_GRID + cell])
                if card < 0:
                    assert values[seat * N_CELLS + cell] == -1.0
                    continue
                best = 0.0
                for k in range(state["n_vis"]):
                    commission = state["vis"][k]
                    n_frames = int(TABLES.comm_n_frames[commission])
                    hist = np.zeros(_style_tools.N_MASKS, dtype=np.int64)
                    _style_tools.fill_hist(TABLES, work, n_cards, commission, hist)
                    before = _style_tools.matched(n_frames, hist, work, 0)
                    extra = np.array([TABLES.land_fit[card, commission], 0], dtype=np.int64)
                    if extra[0] and _style_tools.matched(n_frames, hist, extra, 1) > before:
                        rate = _public_values.frame_rate(
                            TABLES.comm_fame, TABLES.comm_n_frames, commission, before, 0.5
                        )
                        best = max(best, rate)
                expected = 0.5 * TABLES.land_icons[card] + 2.0 * best
                assert values[seat * N_CELLS + cell] == pytest.approx(expected, abs=1e-12)
                checked += 1
    assert checked > 500
