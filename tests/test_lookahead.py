"""The lookahead strategy: the strategy contract, engine parity in mixed tables, and the
``samples`` parameter.

The fast-engine checks compile one kernel per set of strategies ({lookahead} and
{lookahead, balanced, greedy, random}); warm runs load them from the cache.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.trace import comparable
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
    names = [p.name for p in spec.parameters]
    assert names[0] == "samples"
    samples = spec.parameters[0]
    assert (samples.low, samples.high) == (1.0, 256.0)
    assert 8 <= samples.default <= 16


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
