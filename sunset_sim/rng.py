"""Counter-based random streams (pure Python reference; ``engine/nb.py`` mirrors it).

A draw depends only on (root seed, game index, stream, counter), never on the order
in which games are run, so results do not depend on jobs or chunk sizes. Streams are
named in ``enums`` (setup, in-game chance, one per seat for strategy choices).
"""

from __future__ import annotations

from sunset_sim.enums import STREAM_STRATEGY

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(value: int) -> int:
    """SplitMix64's finaliser: a bijective 64-bit hash."""
    z = (value + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, game_index: int, stream: int) -> int:
    """The key of one stream of one game."""
    return mix64(mix64(mix64(seed & MASK64) ^ (game_index & MASK64)) ^ (stream & MASK64))


def strategy_key(seed: int, game_index: int, seat: int) -> int:
    """The key of ``seat``'s strategy stream: its stream key k made one-way, k ^ mix64(k).
    A strategy sees its draws, which give back its key (mix64 is a bijection); with k
    itself it could undo stream_key and rebuild the deal's setup and chance streams."""
    key = stream_key(seed, game_index, STREAM_STRATEGY + seat)
    return key ^ mix64(key)


def draw64(key: int, counter: int) -> int:
    """The counter-th 64-bit draw of a stream (SplitMix64's sequence)."""
    return mix64((key + counter * GOLDEN) & MASK64)


def below(key: int, counter: int, n: int) -> int:
    """A draw reduced to 0..n-1 by multiply-shift (n < 2**32), exact in 64-bit arithmetic."""
    return (((draw64(key, counter) >> 32) * n) >> 32) & MASK64


class Stream:
    """One stream with its counter: the only source of randomness in the reference engine."""

    __slots__ = ("key", "counter")

    def __init__(self, seed: int, game_index: int, stream: int) -> None:
        self.key = stream_key(seed, game_index, stream)
        self.counter = 0

    def below(self, n: int) -> int:
        value = below(self.key, self.counter, n)
        self.counter += 1
        return value

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the back, in place: i = n-1 .. 1 swaps with below(i + 1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
