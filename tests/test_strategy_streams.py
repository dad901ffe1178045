"""A strategy's random stream gives it nothing of the deal (R-PLAN-2: a strategy decides on
what its player may know). Its draws give back its stream key, as SplitMix64's finaliser
is a bijection; that key must not lead back to the game's setup and chance streams."""

from __future__ import annotations

import numpy as np
import pytest

from sunset_sim.engine.setup import start_streams
from sunset_sim.enums import STREAM_CHANCE, STREAM_SETUP, STREAM_STRATEGY
from sunset_sim.rng import GOLDEN, MASK64, draw64, mix64, strategy_key, stream_key

CASES = [(0, 0, 0), (0, 1, 3), (2026, 123_456, 1), (2**63 + 5, 7, 2)]


def _undo_xorshift(value: int, shift: int) -> int:
    result = value
    for _ in range(64 // shift + 1):
        result = value ^ (result >> shift)
    return result & MASK64


def unmix64(value: int) -> int:
    """mix64's inverse: what a strategy can compute from one of its draws."""
    z = _undo_xorshift(value, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 2**64)) & MASK64
    z = _undo_xorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 2**64)) & MASK64
    z = _undo_xorshift(z, 30)
    return (z - GOLDEN) & MASK64


def _deal_from_key(key: int, seat: int) -> tuple[int, int]:
    """The setup and chance keys a strategy would get if its key were a plain stream key."""
    inner = unmix64(key) ^ (STREAM_STRATEGY + seat)
    return mix64(inner ^ STREAM_SETUP), mix64(inner ^ STREAM_CHANCE)


@pytest.mark.parametrize(("seed", "game", "seat"), CASES)
def test_a_strategy_key_does_not_lead_back_to_the_deal(seed, game, seat):
    deal = (stream_key(seed, game, STREAM_SETUP), stream_key(seed, game, STREAM_CHANCE))
    plain = stream_key(seed, game, STREAM_STRATEGY + seat)
    assert unmix64(mix64(plain)) == plain
    assert _deal_from_key(plain, seat) == deal  # the attack, on a plain stream key
    key = strategy_key(seed, game, seat)
    assert unmix64(draw64(key, 0)) == key  # a strategy knows its key from its first draw
    assert _deal_from_key(key, seat) != deal
    assert key not in deal


def test_the_fast_engine_hands_each_seat_the_one_way_key():
    seed, game, n_players = 2026, 41, 4
    setup = np.zeros(2, dtype=np.uint64)
    chance = np.zeros(2, dtype=np.uint64)
    streams = np.zeros((n_players, 2), dtype=np.uint64)
    start_streams(seed, game, n_players, setup, chance, streams)
    assert int(setup[0]) == stream_key(seed, game, STREAM_SETUP)
    assert int(chance[0]) == stream_key(seed, game, STREAM_CHANCE)
    assert [int(k) for k in streams[:, 0]] == [strategy_key(seed, game, s) for s in range(4)]
