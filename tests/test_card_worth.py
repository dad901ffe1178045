"""The card evaluation of balanced, commission-hunter and greedy-painter
(strategies/_card_worth.py): its Hall table against the matching it replaces, the frame
fit table it reads (CardTables.land_fit), and a card's worth on a hand-made position."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sunset_sim.strategies import _card_worth, _context, _style_tools

from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.enums import MAX_FRAMES


@pytest.fixture(scope="module")
def tables():
    return build_tables(load_cards())


def hall(n_frames: int, counts: dict[int, int]) -> tuple[int, int]:
    """(adds mask, frames filled) from HALL for paintings counted by frame mask."""
    row = np.zeros(_context.N_MASKS, dtype=np.int64)
    for m, count in counts.items():
        row[m] = count
    entry = int(_context.hall_entry(row, 0, n_frames))
    return entry & 255, entry >> 8


def matched(n_frames: int, counts: dict[int, int], extra: list[int]) -> int:
    """The exact matching (_style_tools.matched, the deficiency form of Hall's theorem)."""
    hist = np.zeros(_style_tools.N_MASKS, dtype=np.int64)
    for m, count in counts.items():
        hist[m] = count
    extra_masks = np.array(extra + [0], dtype=np.int64)
    return int(_style_tools.matched(n_frames, hist, extra_masks, len(extra)))


@pytest.mark.parametrize("n_frames", range(1, MAX_FRAMES + 1))
def test_hall_table_agrees_with_the_matching_for_every_holding(n_frames):
    masks = range(1, 1 << n_frames)
    checked = 0
    for counts in itertools.product(range(5), repeat=len(masks)):  # 0..4: past the cap of 3
        holding = dict(zip(masks, counts, strict=True))
        adds, filled = hall(n_frames, holding)
        before = matched(n_frames, holding, [])
        assert filled == before, (n_frames, holding)
        for m in masks:
            raises = matched(n_frames, holding, [m]) > before
            assert bool((adds >> m) & 1) == raises, (n_frames, holding, m)
        assert adds & 1 == 0  # a card that fits no frame never adds one
        checked += 1
    assert checked == 5 ** len(masks)


def test_hall_key_caps_each_packed_count_at_3():
    """hall_key's branch-free cap (a carry test per byte) against min(count, 3), for counts
    0..64 (MAX_PAINTINGS) in every byte, m = 0 included (it is not part of the key)."""
    rng = np.random.default_rng(5)
    words = [[c] * _context.N_MASKS for c in range(65)]
    words += rng.integers(0, 65, size=(2000, _context.N_MASKS)).tolist()
    for counts in words:
        packed = sum(c << (8 * m) for m, c in enumerate(counts))
        expected = sum(min(c, 3) << (2 * (m - 1)) for m, c in enumerate(counts) if m)
        assert _context.hall_key(packed) == expected, counts


def test_land_fit_holds_the_frames_each_landscape_fits(tables):
    n_lands, n_commissions = tables.land_fit.shape
    assert (n_lands, n_commissions) == (len(tables.land_icons), len(tables.comm_fame))
    for card in range(n_lands):
        for commission in range(n_commissions):
            expected = 0
            for slot in range(tables.comm_n_frames[commission]):
                if tables.match[card, tables.comm_frames[commission, slot]]:
                    expected |= 1 << slot
            assert tables.land_fit[card, commission] == expected


def test_a_card_is_worth_its_icons_plus_the_best_frame_it_adds(tables):
    """One visible commission, no paintings held: any card fitting a frame adds one."""
    ints = np.zeros(_context.N_INTS, dtype=np.int64)
    floats = np.zeros(_context.N_FLOATS, dtype=np.float64)
    commission = 0
    fitting = next(c for c in range(len(tables.land_icons)) if tables.land_fit[c, commission])
    other = next(c for c in range(len(tables.land_icons)) if not tables.land_fit[c, commission])
    n_frames = int(tables.comm_n_frames[commission])
    ints[_context.VIS] = commission
    ints[_context.ADDS] = hall(n_frames, {})[0]
    floats[_context.RATE] = 2.5
    floats[_context.WEIGHTS + _style_tools.W_ICONS] = 0.5
    floats[_context.WEIGHTS + _style_tools.W_OTHER] = 2.0
    _card_worth.fit_tables.py_func(1, ints, floats, -1)
    worth = _card_worth.card_worth.py_func
    args = (tables.land_icons, tables.land_fit, 1, ints, floats, -1, False)
    assert worth(fitting, *args) == pytest.approx(0.5 * tables.land_icons[fitting] + 2.0 * 2.5)
    assert worth(other, *args) == pytest.approx(0.5 * tables.land_icons[other])
    # as the target (weight 0 for others), the same frame counts through W_TARGET
    floats[_context.WEIGHTS + _style_tools.W_TARGET] = 3.0
    _card_worth.fit_tables.py_func(1, ints, floats, 0)
    args = (tables.land_icons, tables.land_fit, 1, ints, floats, 0, False)
    assert worth(fitting, *args) == pytest.approx(0.5 * tables.land_icons[fitting] + 3.0 * 2.5)


@pytest.mark.parametrize("row_len", [0, 1, 5, 6, 7, 12, 16])
def test_prepare_counts_each_visible_commissions_fits_of_my_paintings(tables, row_len):
    """prepare's counts (how many of my paintings fit exactly the frames m of each visible
    commission, 8 bits per m) and frames filled, for rows shorter and longer than the FEW
    it counts at once, with the preview, against a direct count."""
    from sunset_sim import observation as ob

    rng = np.random.default_rng(row_len)
    n_land, n_comm = tables.land_fit.shape
    obs = np.full(ob.observation_size(n_land, n_comm, len(tables.goal_kind)), -1, np.int32)
    obs[ob.OBS_LAND_PLACE] = ob.OBS_CARDS
    obs[ob.OBS_COMM_PLACE] = ob.OBS_CARDS + n_land
    obs[ob.OBS_ME] = 0
    obs[ob.OBS_N_PLAYERS] = 4
    row = rng.choice(n_comm, size=row_len + 1, replace=False)
    obs[ob.OBS_ROW_LEN] = row_len
    obs[ob.OBS_ROW : ob.OBS_ROW + row_len] = row[:row_len]
    obs[ob.OBS_PREVIEW] = row[row_len]
    held = rng.choice(n_land, size=9, replace=False)
    obs[ob.OBS_N_PAINTINGS] = len(held)
    obs[ob.OBS_PAINTINGS : ob.OBS_PAINTINGS + len(held)] = held
    obs[ob.OBS_CARDS + held] = 0
    ints = np.zeros(_context.N_INTS, dtype=np.int64)
    floats = np.zeros(_context.N_FLOATS, dtype=np.float64)
    n_vis, n_held, _ = _context.prepare(
        obs, tables.land_features, tables.land_fit, tables.land_commissions,
        tables.comm_n_frames, tables.comm_fame, tables.comm_share, True,
        _style_tools.RATE_SHARE, 1.0, True, False, ints, floats,
    )  # fmt: skip
    assert (n_vis, n_held) == (row_len + 1, len(held))
    for k, commission in enumerate(row):
        assert ints[_context.VIS + k] == commission
        masks = [int(tables.land_fit[card, commission]) for card in held]
        expected = sum(masks.count(m) << (8 * m) for m in range(_context.N_MASKS))
        assert ints[_context.COUNTS + k] == expected, k
        n_frames = int(tables.comm_n_frames[commission])
        counts = {m: masks.count(m) for m in range(1, 1 << n_frames)}
        assert ints[_context.BASE + k] == matched(n_frames, counts, []), k
