"""The fast engine's games are byte-identical to the saved frames (scripts/engine_frames.py):
an engine or strategy change that alters any game fails here. Save again only for a change
meant to alter games, and say so in the commit."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import engine_frames  # noqa: E402


def test_games_equal_the_saved_frames():
    saved = np.load(ROOT / "tests" / "data" / "engine_frames.npz")
    now = engine_frames.frames()
    assert sorted(saved.files) == sorted(now)
    for name in saved.files:
        assert np.array_equal(saved[name], now[name]), name
