"""R-SELL-1: every legal sale is offered, however many there are.

With a permissive card set (every frame takes any landscape showing a mountain) and a
hand of many kinds of painting, one commission alone allows thousands of sales. Both
engines once stopped listing them at 2,047, in row order, so later commissions in the row
got no options at all. Now the reference engine lists them all and the fast engine gives
such a decision a buffer of its own (engine/sell.py, engine/kernel.py).
"""

from __future__ import annotations

import itertools
import json
from types import SimpleNamespace

import numpy as np
import pytest
from test_parity import first_difference, reference_game, result_differences

from sunset_sim.cards import parse_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine import restricted
from sunset_sim.engine.batch import trace_game
from sunset_sim.engine.jit import jit
from sunset_sim.engine.sell import sale_options as fast_sale_options
from sunset_sim.engine.trace import comparable, trace_to_record
from sunset_sim.enums import COMMISSION_COLUMNS, DECIDE_PAINT, DECIDE_SALE
from sunset_sim.observation import (
    OBS_N_PAINTINGS,
    OBS_ROW,
    OBS_ROW_LEN,
    OPTION_ROWS,
    OPTION_WIDTH,
    empty_observation,
)
from sunset_sim.rules import sell
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player, StrategySpec
from sunset_sim.strategy_tools import rng_below

FEATURES = ["mountain", "flower", "waterfall", "tree", "sun"]
OTHERS = FEATURES[1:]
# Every multiset of 1-3 icons with at least one mountain: 21 kinds of painting.
KINDS = [
    ["mountain", *rest]
    for size in range(3)
    for rest in itertools.combinations_with_replacement(FEATURES, size)
]
N_COMMISSIONS = 12
NINE_FAME = "C11"  # the most valuable commission


def permissive_toml() -> str:
    parts = [f'[set]\nname = "many-sales"\nfeatures = {json.dumps(FEATURES)}\n']
    for i in range(60):
        parts.append(
            f'[[landscape]]\nid = "L{i:02d}"\nfeatures = {json.dumps(KINDS[i % len(KINDS)])}\n'
        )
    for i in range(N_COMMISSIONS):
        fame = 9 if f"C{i:02d}" == NINE_FAME else 1 + i % 5
        parts.append(
            f'[[commission]]\nid = "C{i:02d}"\nfame = {fame}\n'
            'frames = ["mountain ?...", "mountain ?...", "mountain ?..."]\n'
        )
    parts.append('[[goal]]\nid = "G1"\nfame = 2\nkind = "painted"\nn = 2\n')
    for i in range(8):
        parts.append(
            f'[[plan]]\nid = "P{i + 1}"\nwake = "{5 + i // 4}:{(i % 4) * 15:02d}"\n'
            'directions = "all"\nhike = 4\npaint = 5\n'
        )
    return "\n".join(parts)


CARDS = parse_cards(permissive_toml(), "<many-sales>")
TABLES = build_tables(CARDS)
HOARD = 14  # the hoarder sells nothing until it holds this many paintings


@jit
def hoarder_decide(kind, obs, options, n_options, params, rng, tables):
    """Paints as many cards as it can and sells nothing until it holds HOARD paintings;
    then it takes the LAST sale offered: the last commission in the row, which a capped
    list would not reach."""
    if kind == DECIDE_SALE:
        return n_options - 1 if obs[OBS_N_PAINTINGS] >= HOARD else 0
    if kind == DECIDE_PAINT:
        best = 0
        most = -1
        for index in range(n_options):
            cells = 0
            for column in range(options.shape[1]):
                if options[index, column] >= 0:
                    cells += 1
            if cells > most:
                most = cells
                best = index
        return best
    return rng_below(rng, n_options)


HOARDER = Player(
    StrategySpec(
        name="hoarder", description="test: hoards, then sells last", decide=hoarder_decide
    ),
    np.zeros(0),
)


def distinct_hand(n_kinds: int) -> list[int]:
    """One landscape of each of the first n_kinds kinds (landscape i shows KINDS[i])."""
    return list(range(n_kinds))


def reference_options(hand: list[int], row: list[int]) -> list[tuple[int, list[int]]]:
    state = SimpleNamespace(
        tables=TABLES, players=[SimpleNamespace(paintings=hand)], commission_row=row
    )
    return sell.sale_options(state, 0)


def fast_options(hand: list[int], row: list[int], rows: int) -> tuple[int, np.ndarray]:
    obs = empty_observation(len(CARDS.landscapes), len(CARDS.commissions), len(CARDS.goals))
    obs[OBS_ROW_LEN] = len(row)
    obs[OBS_ROW : OBS_ROW + len(row)] = row
    hands = np.full((1, 64), -1, dtype=np.int32)
    hands[0, : len(hand)] = hand
    options = np.full((rows, OPTION_WIDTH), -7, dtype=np.int32)
    offered = np.zeros((TABLES.comm_fame.shape[0], COMMISSION_COLUMNS), dtype=np.int8)
    n = fast_sale_options(obs, TABLES, hands, 0, len(hand), options, offered)
    return int(n), options


def test_every_commission_in_the_row_gets_its_sales():
    """16 kinds held: 16 x 15 x 14 = 3,360 sales per commission, 5 commissions in the
    row: 16,800 sales, every one listed by both engines, in the same order."""
    hand = distinct_hand(16)
    row = [0, 3, 5, 8, 11]
    listed = reference_options(hand, row)
    per_commission = 16 * 15 * 14
    assert len(listed) == per_commission * len(row) > OPTION_ROWS
    assert [c for c, _ in listed[::per_commission]] == row  # the 9-fame C11 is offered
    for _, paintings in listed[:: per_commission // 7]:
        assert len(set(paintings)) == 3 and all(p in hand for p in paintings)
    # the fast engine counts past a small buffer, then fills a large enough one alike
    n_small, small = fast_options(hand, row, OPTION_ROWS)
    n_full, full = fast_options(hand, row, n_small)
    assert n_small == n_full == len(listed) + 1  # row 0 is "stop"
    assert np.array_equal(small, full[:OPTION_ROWS])
    expected = np.array([[c, *p, -1] for c, p in listed], dtype=np.int32)
    assert full[0].tolist() == [-1] * OPTION_WIDTH
    assert np.array_equal(full[1:], expected)


def test_kinds_are_still_offered_once_per_frame():
    """Two paintings of one kind are interchangeable: the count follows kinds, not cards."""
    hand = distinct_hand(5) + [card + len(KINDS) for card in distinct_hand(5)]  # kinds twice
    listed = reference_options(hand, [2])
    # ordered assignments of kinds to the 3 frames, each kind used at most twice
    expected = sum(
        1 for combo in itertools.product(range(5), repeat=3) if max(map(combo.count, combo)) <= 2
    )
    assert len(listed) == expected
    n, _ = fast_options(hand, [2], OPTION_ROWS)
    assert n == expected + 1


def check_parity(seed: int, game: int, banned: np.ndarray | None = None):
    players = [HOARDER, HOARDER]
    rules = Rules()
    reference, offered = reference_game(CARDS, players, seed, game, rules, TABLES, banned)
    trace, out = trace_game(TABLES, players, rules, seed, game, field=players, banned=banned)
    fast = trace_to_record(trace, CARDS, len(players), rules.days)
    difference = first_difference(fast, comparable(reference.record))
    assert difference is None, f"game {game}: first difference at {difference}"
    problems = result_differences(reference, out, CARDS, len(players), rules.days, offered)
    assert not problems, f"game {game}: " + "; ".join(problems)
    return reference


@pytest.mark.parametrize("restricted_seat", [False, True])
def test_both_engines_offer_every_sale_in_real_games(monkeypatch, restricted_seat):
    """Whole games where sale decisions have more options than the engine's buffer: the
    engines agree, and the hoarder sells the last commission of the row from them."""
    largest: list[int] = []
    last_offered: list[tuple[int, int]] = []
    unbounded = sell.sale_options

    def counting(state, seat):
        listed = unbounded(state, seat)
        largest.append(len(listed))
        if len(listed) >= OPTION_ROWS:
            last_offered.append((listed[-1][0], state.commission_row[-1]))
        return listed

    monkeypatch.setattr(sell, "sale_options", counting)
    banned = None
    if restricted_seat:  # seat 0 may not sell to C00 (restricted play keeps the rest)
        n_plan, n_land = len(CARDS.plans), len(CARDS.landscapes)
        banned = np.zeros((1, 2, 1 + n_plan + n_land + N_COMMISSIONS), dtype=np.uint8)
        banned[0, 0, restricted.BAN_ANY] = 1
        banned[0, 0, 1 + n_plan + n_land + 0] = 1
    sales = 0
    for game in range(4):
        result = check_parity(41, game, banned)
        sales += sum(len(turn["sales"]) for day in result.record["days"] for turn in day["turns"])
    assert max(largest) > OPTION_ROWS, f"no decision beyond the buffer: {max(largest)}"
    # the row's last commission was offered in every such decision, and sales were made
    assert last_offered and all(offered == last for offered, last in last_offered)
    assert sales > 0
