"""Counter-based random streams for numba code; the same numbers as ``sunset_sim.rng``.

A stream is a uint64 array ``[key, counter]``; every draw advances the counter.
"""

from __future__ import annotations

import numba
import numpy as np

from sunset_sim.engine.jit import jit
from sunset_sim.enums import STREAM_STRATEGY
from sunset_sim.rng import below as python_below
from sunset_sim.rng import mix64 as python_mix64
from sunset_sim.rng import strategy_key as python_strategy_key

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MUL1 = np.uint64(0xBF58476D1CE4E5B9)
MUL2 = np.uint64(0x94D049BB133111EB)


@jit
def mix64(value):
    z = np.uint64(value) + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * MUL1
    z = (z ^ (z >> np.uint64(27))) * MUL2
    return z ^ (z >> np.uint64(31))


@jit
def stream_key(seed, game_index, stream):
    inner = mix64(mix64(np.uint64(seed)) ^ np.uint64(game_index))
    return mix64(inner ^ np.uint64(stream))


@jit
def strategy_key(seed, game_index, seat):
    """``sunset_sim.rng.strategy_key``: a seat's strategy stream key, one-way."""
    key = stream_key(seed, game_index, np.uint64(STREAM_STRATEGY) + np.uint64(seat))
    return key ^ mix64(key)


@jit
def draw_at(key, counter, n):
    """Draw number ``counter`` of the stream keyed ``key``, in 0..n-1 (multiply-shift).
    For loops that keep the counter in a register and store it back once."""
    z = mix64(key + counter * GOLDEN)
    return np.int64(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@jit
def rng_below(stream, n):
    """A draw in 0..n-1, advancing ``stream``'s counter."""
    value = draw_at(stream[0], stream[1], n)
    stream[1] += np.uint64(1)
    return value


@jit
def rng_shuffle(stream, items, n):
    """Fisher-Yates from the back over items[:n], as ``sunset_sim.rng.Stream.shuffle``.

    The draws are rng_below's, with the key and counter kept in registers: stored back
    once, not after every draw (items may be any integer array, so the compiler could not
    keep them there itself: a store to items might change the stream)."""
    key = stream[0]
    counter = stream[1]
    for i in range(n - 1, 0, -1):
        j = draw_at(key, counter, i + 1)
        counter += np.uint64(1)
        items[i], items[j] = items[j], items[i]
    stream[1] = counter


if numba.config.DISABLE_JIT:  # plain Python: exact 64-bit wrap-around without numpy warnings

    def mix64(value):  # noqa: F811 - replaces the kernel version above
        return np.uint64(python_mix64(int(value)))

    def draw_at(key, counter, n):  # noqa: F811
        return np.int64(python_below(int(key), int(counter), int(n)))

    def rng_below(stream, n):  # noqa: F811
        value = draw_at(stream[0], stream[1], n)
        stream[1] = np.uint64(int(stream[1]) + 1)
        return value

    def rng_shuffle(stream, items, n):  # noqa: F811
        for i in range(n - 1, 0, -1):
            j = rng_below(stream, i + 1)
            items[i], items[j] = items[j], items[i]


def new_strategy_stream(seed: int, game_index: int, seat: int) -> np.ndarray:
    """A fresh strategy stream array for ``seat``, keyed by the pure-Python reference (any
    seed below 2**64)."""
    return np.array([python_strategy_key(seed, game_index, seat), 0], dtype=np.uint64)
