"""Saved engine frames: the fast engine's raw results for fixed cases, to check that an
engine change leaves every game byte-identical.

    python scripts/engine_frames.py save tests/data/engine_frames.npz
    python scripts/engine_frames.py check tests/data/engine_frames.npz

``tests/test_engine_frames.py`` runs the check. Save again only when a change is meant
to alter games (a rule fix), and say so in the commit.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine.batch import run_games
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import make_player

# balanced as its defaults were when the frames were saved (deny 0.3; 0 since 2026-12-06):
# the frames check the engine, and so its denial stays covered
BALANCED = "balanced:deny=0.3"
FIELD = (
    "greedy",
    BALANCED,
    "greedy-painter",
    "commission-hunter",
    "goal-chaser",
    "early-bird",
    "late-riser",
)
# (name, seats, games, restricted plan-card column or None)
CASES = (
    ("field4", ("greedy", BALANCED, "goal-chaser", "late-riser"), 300, None),
    ("field4b", ("commission-hunter", "early-bird", "greedy-painter", "greedy"), 300, None),
    ("field3", (BALANCED, "greedy", "commission-hunter"), 300, None),
    ("field2", ("goal-chaser", "early-bird"), 300, None),
    ("field4_banned", ("greedy", BALANCED, "goal-chaser", "late-riser"), 200, 2),
)


def frames() -> dict[str, np.ndarray]:
    cards = load_cards()
    tables = build_tables(cards)
    field = [make_player(name) for name in FIELD]
    out: dict[str, np.ndarray] = {}
    for name, seats, games, ban_column in CASES:
        players = [make_player(seat) for seat in seats]
        banned = None
        if ban_column is not None:
            width = 1 + len(cards.plans) + len(cards.landscapes) + len(cards.commissions)
            banned = np.zeros((len(players), len(players), width), dtype=np.uint8)
            for mask in range(len(players)):
                banned[mask, mask, 0] = 1
                banned[mask, mask, ban_column] = 1
        arrays = run_games(tables, players, Rules(), 2026, 17, games, field=field, banned=banned)
        for key, array in arrays.arrays().items():
            out[f"{name}/{key}"] = array
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("save", "check"), help="write the frames, or compare")
    parser.add_argument("path", help="the .npz file (tests/data/engine_frames.npz)")
    args = parser.parse_args(argv)
    mode, path = args.mode, args.path
    if mode == "check" and not Path(path).is_file():
        print(f"engine_frames.py: {path}: no such file", file=sys.stderr)
        return 2
    now = frames()
    if mode == "save":
        np.savez_compressed(path, **now)
        print(f"saved {len(now)} arrays to {path}")
        return 0
    saved = np.load(path)
    different = [k for k in saved.files if k not in now or not np.array_equal(saved[k], now[k])]
    different += [k for k in now if k not in saved.files]
    if different:
        print("different: " + ", ".join(different))
        return 1
    print(f"all {len(now)} arrays equal to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
