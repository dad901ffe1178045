"""The balance report: statistics helpers, report tables, files written, within-strategy
effects and larger fields. The command line: test_report_cli.py."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sunset_sim
from sunset_sim.analysis import stats
from sunset_sim.analysis.report import (
    TOO_FEW,
    ReportInputError,
    bit_sums,
    build_report,
    render_all,
    write_report,
)
from sunset_sim.cli import main

# ---------------------------------------------------------------- statistics helpers


def test_wilson_interval_of_half():
    p, lo, hi = stats.proportion_ci(50, 100)
    assert p == 0.5
    assert lo == pytest.approx(0.4038, abs=1e-4)
    assert hi == pytest.approx(0.5962, abs=1e-4)


def test_wilson_interval_edges_and_vectorised():
    p, lo, hi = stats.proportion_ci(0, 20)
    assert (p, lo) == (0.0, 0.0) and 0 < hi < 0.2
    p, lo, hi = stats.proportion_ci(20, 20)
    assert hi == 1.0 and lo < 1.0
    ps, los, his = stats.proportion_ci(np.array([1, 5]), np.array([10, 10]))
    assert ps.tolist() == [0.1, 0.5] and (los < ps).all() and (his > ps).all()
    assert math.isnan(stats.proportion_ci(0, 0)[0])


def test_mean_ci():
    assert stats.mean_ci([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0, 3)
    mean, lo, hi, n = stats.mean_ci([0, 1] * 50)
    half = 1.959963984540054 * np.std([0, 1] * 50, ddof=1) / 10
    assert (mean, n) == (0.5, 100)
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    assert math.isnan(stats.mean_ci([])[0]) and stats.mean_ci([])[3] == 0
    assert math.isnan(stats.mean_ci([2.0])[1])
    # from sums, the same numbers
    values = np.array([0.0, 0.25, 1.0, 0.5, 0.0])
    assert stats.mean_ci_sums(5, values.sum(), (values**2).sum()) == pytest.approx(
        stats.mean_ci(values)[:3]
    )


def test_diff_ci_significance():
    rng = np.random.default_rng(0)
    a = rng.normal(1.0, 1.0, 2000)
    b = rng.normal(0.0, 1.0, 2000)
    diff, lo, hi, p = stats.diff_ci(a, b)
    assert lo < 1.0 < hi and lo < diff < hi and p < 1e-10
    diff, lo, hi, p = stats.diff_ci(a, a + 0.0)
    assert diff == 0 and p == pytest.approx(1.0)
    assert stats.z_test_p(1.959963984540054, 1.0) == pytest.approx(0.05)


def test_balance():
    assert stats.balance([0.3, 0.2, 0.25, 0.25]) == pytest.approx(0.9)
    rng = np.random.default_rng(1)
    fair = np.eye(4)[rng.integers(0, 4, 20_000)]
    value, lo, hi, n = stats.balance_ci(fair)
    assert n == 20_000 and lo <= value <= hi and hi == 1.0  # a fair game is not ruled out
    skewed = np.eye(4)[rng.choice(4, 20_000, p=[0.4, 0.2, 0.2, 0.2])]
    value, lo, hi, _ = stats.balance_ci(skewed)
    assert lo < 0.8 < hi and hi < 0.9


def test_bit_sums_matches_loop():
    rng = np.random.default_rng(2)
    words = rng.integers(0, 2**63, size=(1000, 2), dtype=np.uint64)
    values = rng.random((1000, 2))
    sums = bit_sums(words, values, 100)
    for bit in (0, 5, 63, 64, 99):
        mask = (words[:, bit // 64] >> np.uint64(bit % 64)) & np.uint64(1) == 1
        assert sums[bit] == pytest.approx(values[mask].sum(axis=0))


def test_bit_sums_counts_match_loop():
    rng = np.random.default_rng(3)
    words = rng.integers(0, 2**63, size=(70_000, 2), dtype=np.uint64)
    counts = bit_sums(words, np.ones(len(words)), 100)
    assert counts.shape == (100, 1)
    for bit in (0, 7, 8, 63, 64, 99):
        assert counts[bit, 0] == ((words[:, bit // 64] >> np.uint64(bit % 64)) & np.uint64(1)).sum()


def test_bit_sums_of_win_shares_are_exact():
    """Win shares (won / winners: multiples of 1/12), their squares and fame, split by
    group: each sum is the exact sum of the fractions, correctly rounded."""
    from fractions import Fraction

    rng = np.random.default_rng(4)
    rows = 30_000
    words = rng.integers(0, 2**63, size=(rows, 1), dtype=np.uint64)
    winners = rng.integers(1, 5, size=rows)
    won = rng.random(rows) < 0.3
    win = np.where(won, 1.0 / winners, 0.0)
    fame = rng.integers(0, 90, size=rows).astype(np.float64)
    groups = rng.integers(-1, 3, size=rows)  # -1: left out
    sums = bit_sums(words, np.column_stack([np.ones(rows), win, win * win, fame]), 40, groups, 3)
    assert sums.shape == (40, 12)
    for bit in (0, 9, 39):
        has = (words[:, 0] >> np.uint64(bit)) & np.uint64(1) == 1
        for group in range(3):
            mine = has & (groups == group)
            shares = [
                Fraction(1, int(w)) if x else Fraction(0)
                for w, x in zip(winners[mine], won[mine], strict=True)
            ]
            exact = [len(shares), sum(shares), sum(v * v for v in shares), int(fame[mine].sum())]
            assert list(sums[bit, 4 * group : 4 * group + 4]) == [float(v) for v in exact]


def test_group_sums_are_bincounts_to_the_bit():
    """One compiled pass gives each group's n, sum and sum of squares in row order: the
    per-column ``np.bincount`` sums exactly (rounding included), codes outside 0..n-1
    left out."""
    from sunset_sim.analysis.report.data import _group_sums

    rng = np.random.default_rng(6)
    values = rng.normal(size=50_000)
    codes = rng.integers(-2, 9, size=50_000).astype(np.int8)
    n, total, squares = _group_sums(codes, values, 7)
    kept = (codes >= 0) & (codes < 7)
    c, v = codes[kept].astype(np.int64), values[kept]
    assert n.tolist() == np.bincount(c, minlength=7)[:7].astype(float).tolist()
    assert total.tobytes() == np.bincount(c, weights=v, minlength=7)[:7].tobytes()
    assert squares.tobytes() == np.bincount(c, weights=v * v, minlength=7)[:7].tobytes()


def test_goal_table_counts_match_a_loop(frame, cards_module):
    """The goals table's per-day counts (R-GOAL-1: the keeper is the last to meet it)
    against a plain loop over the games and days of a small batch."""
    from sunset_sim.analysis.report.data import _prepare
    from sunset_sim.analysis.report.sections.goals import goal_tables

    cards = cards_module
    data = _prepare(frame, cards)
    table = goal_tables(data, 1)["goals"]
    n_goals = len(cards.goals)
    shown, claimed, taken, last, kept = (np.zeros(n_goals) for _ in range(5))
    players = data.players
    for day in data.days:
        for game in range(data.games):
            rows = frame.iloc[game * players : (game + 1) * players]
            card = int(rows[f"goal_card_day{day}"].iloc[0])
            if rows["days_played"].iloc[0] < day or not 0 <= card < n_goals:
                continue
            flags = np.maximum(rows[f"goal_day{day}"].to_numpy().astype(int), 0)
            keeps = (flags & 4) != 0
            shown[card] += 1
            claimed[card] += keeps.any()
            taken[card] += ((flags & 2) != 0).any()
            last[card] += (keeps & (rows[f"turn_day{day}"].to_numpy() == players - 1)).any()
            kept[card] += keeps.sum()
    assert shown.sum() > 0 and claimed.sum() > 0
    assert table["n"].tolist() == shown.astype(int).tolist()
    assert table["n_kept"].tolist() == kept.astype(int).tolist()
    claim = table["claim_rate"].to_numpy()
    assert np.allclose(claim[shown > 0], (claimed / np.maximum(shown, 1))[shown > 0])
    take = table["taken_rate"].to_numpy()
    assert np.allclose(take[shown > 0], (taken / np.maximum(shown, 1))[shown > 0])
    mover = table["last_mover_rate"].to_numpy()
    assert np.allclose(mover[claimed > 0], (last / np.maximum(claimed, 1))[claimed > 0])


# ---------------------------------------------------------------- report from a real batch
# (``frame``: conftest's batch of 300 games)


def test_report_tables(report, frame):
    t = report.tables
    for name in ("strategies", "plan_cards", "seats", "balance", "game_shape", "margins"):
        assert name in t
    strategies = t["strategies"].set_index("strategy")
    assert strategies["n"].sum() == len(frame)
    assert strategies.loc["greedy", "win_share"] == pytest.approx(
        frame.loc[frame.strategy == "greedy", "win_share"].mean()
    )
    assert (strategies["win_share_ci_low"] <= strategies["win_share"]).all()
    plans = t["plan_cards"]
    assert len(plans) == 8 and plans["pick_rate"].sum() == pytest.approx(1.0)
    assert plans["n"].sum() == sum(frame[f"plan_day{d}"].notna().sum() for d in range(1, 7))
    assert t["balance"]["balance"].iloc[0] == pytest.approx(
        stats.balance(frame.groupby("seat")["win_share"].mean())
    )
    assert "plan_extremes" in t  # early-bird and late-riser played
    if "lead_by_day" in t:  # the per-day columns are present in this version's results
        assert {"landscapes", "features", "commissions", "goals"} <= set(t)
        assert t["commissions"]["n"].sum() == frame["commissions_won"].sum()
        # a card painted twice by one seat (after a reshuffle) counts once
        assert 0.95 * frame["cards_painted"].sum() <= t["landscapes"]["n"].sum()
        assert t["landscapes"]["n"].sum() <= frame["cards_painted"].sum()


def test_the_headline_names_its_columns_as_simulate_does(report, frame):
    """The report's headline (the table ``report`` prints) and its strategies and seats
    tables say mean_fame, as simulate's and tournament's summaries do; the values are the
    mean of the seats' fame. (A card's fame, in the commissions and goals tables, stays
    fame.)"""
    from sunset_sim.results import Summary

    one_seat = Summary({"greedy": np.array([4, 1, 1, 80, 1700])}, 1, 0, 0)  # n, sums
    assert list(report.headline().columns) == [*one_seat.table().columns, "note"]
    for name in ("strategies", "seats"):
        assert "mean_fame" in report.tables[name] and "fame" not in report.tables[name]
    strategies = report.tables["strategies"].set_index("strategy")
    expected = frame.groupby("strategy")["fame"].mean()
    assert strategies["mean_fame"].to_numpy() == pytest.approx(expected[strategies.index])
    assert "fame" in report.tables["commissions"] and "fame" in report.tables["goals"]


def test_small_groups_are_marked_and_not_ranked(frame, cards_module):
    report = build_report(frame, cards_module, min_samples=500)
    strategies = report.tables["strategies"]
    assert (strategies["note"] == TOO_FEW).all()  # 300 seats each
    assert strategies["rank"].isna().all()
    plans = report.tables["plan_cards"]
    small = plans["n"] < 500
    assert (plans.loc[small, "note"] == TOO_FEW).all() and plans.loc[small, "rank"].isna().all()
    assert not any(f.kind == "strategies" for f in report.findings)


def test_findings_have_ci_and_n(report):
    assert any(
        "results between bots" in text
        for s in report.sections
        for b in s.blocks
        for text in b[1:]
        if isinstance(text, str)
    )
    for finding in report.findings:
        assert re.search(r"n = [\d,]+", finding.text)
        if finding.kind != "commission_price":
            assert "95% CI" in finding.text and finding.lo <= finding.effect <= finding.hi


def test_plots_drawn_early_are_the_plots_drawn_at_the_end(frame, cards_module):
    """While a study plays (a callable study), build_report draws the plots whose tables
    are ready, each from only the tables it names; render_all reuses them where those
    tables did not change: every PNG is the one drawn at the end from the whole report."""
    steps: list[str] = []
    early = build_report(
        frame, cards_module, min_samples=30, study=lambda: None, on_step=steps.append
    )
    assert len(early.drawn) >= 5
    assert all(f"plot {name} (while the study plays)" in steps for name in early.drawn)
    late: list[str] = []
    images = render_all(early, on_step=late.append)
    assert not [step for step in late if step.startswith("plot ")]  # every one reused
    plain = build_report(frame, cards_module, min_samples=30)
    assert not plain.drawn
    assert images == render_all(plain)
    # a table changed after the early drawing: its plot is drawn again
    name, (_, copies) = next(iter(early.drawn.items()))
    table = next(iter(copies))
    early.tables[table] = early.tables[table].iloc[:-1]
    again: list[str] = []
    render_all(early, on_step=again.append)
    assert again == [f"plot {name}"]


def test_write_report(report, tmp_path):
    written = write_report(report, tmp_path / "out")
    names = {p.name for p in written}
    assert {"report.md", "report.html", "seats.png", "plan_tradeoff.png"} <= names
    for path in written:
        assert path.stat().st_size > 0
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "![" in markdown and "95% CI" in markdown and "results between bots" in markdown
    page = (tmp_path / "out" / "report.html").read_text()
    pngs = [p for p in written if p.suffix == ".png"]
    assert page.count('src="data:image/png;base64,') == len(pngs)
    assert not re.search(r'(href|src)="(?!data:|#)', page)  # self-contained: no links out
    assert "<nav><h2>Contents</h2>" in page and 'href="#findings"' in page  # in-page only
    assert "http://" not in page and "https://" not in page


def test_old_results_skip_sections(frame, cards_module):
    old = frame[
        [
            c
            for c in frame.columns
            if not re.match(r"(fame_day|painted_day|goal_|commissions_day|available_)", c)
        ]
    ]
    report = build_report(old, cards_module)
    assert "landscapes" not in report.tables and "lead_by_day" not in report.tables
    assert any("skipped" in note for note in report.notes)
    assert "plan_cards" in report.tables and "seats" in report.tables


def test_missing_columns_raise(cards_module):
    with pytest.raises(ReportInputError, match="missing column 'fame'"):
        build_report(pd.DataFrame({"game": [0], "seat": [0], "strategy": ["a"]}), cards_module)


# ---------------------------------------------------------------- within-strategy effects


def test_stratified_difference_removes_confounding():
    """Simpson's setting: inside each stratum choosing makes no difference, but the strong
    stratum chooses far more often, so the raw difference is large."""
    rng = np.random.default_rng(5)

    def sums(values):
        return len(values), values.sum(), (values**2).sum()

    strong_chosen = rng.binomial(1, 0.8, 9000).astype(float)
    strong_not = rng.binomial(1, 0.8, 1000).astype(float)
    weak_chosen = rng.binomial(1, 0.1, 1000).astype(float)
    weak_not = rng.binomial(1, 0.1, 9000).astype(float)
    chosen = np.array([sums(strong_chosen), sums(weak_chosen)]).T
    other = np.array([sums(strong_not), sums(weak_not)]).T
    diff, lo, hi, p, n_a, n_b = stats.stratified_diff_sums(*chosen, *other)
    assert lo < 0 < hi and abs(diff) < 0.03 and p > 0.01
    assert (n_a, n_b) == (10_000, 10_000)
    raw = stats.diff_ci(
        np.concatenate([strong_chosen, weak_chosen]), np.concatenate([strong_not, weak_not])
    )
    assert raw[0] > 0.5 and raw[3] < 1e-10
    # one stratum: the plain (Welch) difference
    one = stats.stratified_diff_sums(*(c[:1] for c in chosen), *(o[:1] for o in other))
    plain = stats.diff_ci(strong_chosen, strong_not)
    assert one[:4] == pytest.approx(plain)
    # strata too small on one side carry no weight; none left: NaN
    none = stats.stratified_diff_sums(
        [5, 100], [1, 50], [1, 50], [100, 5], [50, 1], [50, 1], min_n=30
    )
    assert all(math.isnan(v) for v in none[:4]) and none[4] == 0


def test_a_side_without_a_win_does_not_make_the_effect_certain():
    """Win share: 96 seat-games without a win against 2,000 that won 0.6% of the time.
    The no-win side's sample variance is 0, which had left the CI at +-0.1 points (and a
    p-value of 1e-37); as a rate it takes the rule of succession's variance (1 / 98):
    the CI now holds 0, as 96 games can show nothing finer. Not a rate (fame): as
    before. A side with wins keeps its own variance."""
    none = (96, 0.0, 0.0)
    rest = (2000, 12.0, 12.0)
    narrow = stats.stratified_diff_sums(*rest, *none)
    honest = stats.stratified_diff_sums(*rest, *none, rate=True)
    assert narrow[1] > 0 and narrow[3] < 0.001
    assert honest[0] == narrow[0] and honest[1] < 0 < honest[2] and honest[3] > 0.05
    some = (96, 3.0, 3.0)
    assert stats.stratified_diff_sums(*rest, *some, rate=True) == pytest.approx(
        stats.stratified_diff_sums(*rest, *some)
    )
    # the raw difference too: 9 seats that all lost gave +33.3 (33.0 to 33.6), p = 0
    lost, field = (9, 0.0, 0.0), (30000, 10000.0, 10000.0)
    assert stats.diff_ci_sums(*field, *lost)[1] > 0.32
    raw = stats.diff_ci_sums(*field, *lost, rate=True)
    assert raw[1] < 0.2 and raw[3] > 1e-4  # no narrower than the lost side's own rate
    assert stats.diff_ci_sums(*rest, *some, rate=True) == stats.diff_ci_sums(*rest, *some)


def test_report_within_strategy_columns(report):
    t = report.tables
    for name, column in (
        ("plan_cards", "win_effect"),
        ("landscapes", "win_effect"),
        ("features", "win_effect"),
        ("commissions", "completer_win_effect"),
        ("goals", "keeper_win_effect"),
        ("seats", "win_effect"),
        ("first_turn", "win_effect"),
    ):
        table = t[name]
        for suffix in ("", "_ci_low", "_ci_high", "_p"):
            assert f"{column}{suffix}" in table, (name, column + suffix)
        assert "n_effect" in table
        finite = table[np.isfinite(table[column])]
        assert (finite[f"{column}_ci_low"] <= finite[column]).all()
        assert (finite[column] <= finite[f"{column}_ci_high"]).all()
    # one strategy per seat in every game: nothing to compare within a strategy
    assert t["seats"]["win_effect"].isna().all()
    markdown = "\n".join(b[1] for s in report.sections for b in s.blocks if b[0] == "text")
    assert "Mantel-Haenszel" in markdown


def test_within_strategy_effect_of_one_strategy_is_the_raw_difference(frame, cards_module):
    one = frame.copy()
    one["strategy"] = "everyone"  # a single stratum
    report = build_report(one, cards_module, min_samples=5)
    plans = report.tables["plan_cards"]
    ok = np.isfinite(plans["win_effect"]) & (plans["n"] >= 5) & (plans["n_not_chosen"] >= 5)
    assert ok.any()
    assert plans.loc[ok, "win_effect"].to_numpy() == pytest.approx(
        plans.loc[ok, "win_diff"].to_numpy()
    )


def test_commission_completion_uses_shown_games(report, frame, cards_module):
    table = report.tables["commissions"]
    assert "n_shown" in table and "shown_rate" in table
    assert (table["n"] <= table["n_shown"]).all() and (table["n_shown"] <= table["games"]).all()
    assert table["completion_rate"].to_numpy() == pytest.approx(
        (table["n"] / table["n_shown"]).to_numpy()
    )
    assert table["shown_rate"].to_numpy() == pytest.approx(
        (table["n_shown"] / table["games"]).to_numpy()
    )
    assert not any("commissions_shown" in note for note in report.notes)
    # older results without the column: completed / all games, with a note
    old = frame[[c for c in frame.columns if not c.startswith("commissions_shown_")]]
    old_report = build_report(old, cards_module)
    old_table = old_report.tables["commissions"]
    assert "n_shown" not in old_table
    assert old_table["completion_rate"].to_numpy() == pytest.approx(
        (old_table["n"] / old_table["games"]).to_numpy()
    )
    assert any("commissions_shown" in note for note in old_report.notes)


def test_findings_every_kind_at_most_three(report):
    from sunset_sim.analysis.report import FINDING_KINDS

    counts: dict[str, int] = {}
    for finding in report.findings:
        kind = FINDING_KINDS.get(finding.kind, finding.kind)
        counts[kind] = counts.get(kind, 0) + 1
    assert all(count <= 3 for count in counts.values())
    kinds = [FINDING_KINDS[f.kind] for f in report.findings if f.kind in FINDING_KINDS]
    assert kinds == sorted(kinds, key=list(dict.fromkeys(FINDING_KINDS.values())).index)


def test_findings_give_each_kind_a_place():
    from sunset_sim.analysis.report import _findings

    def table(label, effects):
        return pd.DataFrame(
            {
                label: [f"{label}{i}" for i in range(len(effects))],
                "n": 1000,
                "n_effect": 1000,
                "note": "",
                "vs_field": effects,
                "vs_field_ci_low": [e - 0.01 for e in effects],
                "vs_field_ci_high": [e + 0.01 for e in effects],
                "vs_field_p": 1e-20,
                "win_effect": effects,
                "win_effect_ci_low": [e - 0.01 for e in effects],
                "win_effect_ci_high": [e + 0.01 for e in effects],
                "win_effect_p": 1e-20,
                "win_diff": effects,
            }
        )

    tables = {
        "strategies": table("strategy", [0.5, 0.4, 0.3, 0.2, 0.1]),
        "seats": table("seat", [0.05]),
    }
    findings = _findings(tables, limit=4)
    kinds = [f.kind for f in findings]
    assert kinds.count("strategies") == 3 and kinds.count("seats") == 1
    assert "seat seat0" in findings[-1].text and "n = 1,000" in findings[-1].text


# ---------------------------------------------------------------- a field larger than the table


def test_lineups_rotate_a_larger_field():
    from sunset_sim.cli_report import _lineups

    names = [
        "greedy",
        "early-bird",
        "late-riser",
        "random",
        "balanced",
        "goal-chaser",
        "commission-hunter",
    ]
    tables = _lineups(tuple(names), 4)
    assert len(tables) == 35 * 4
    for name in names:
        per_seat = [sum(t[seat].name == name for t in tables) for seat in range(4)]
        assert len(set(per_seat)) == 1 and per_seat[0] > 0
    # a field that fits: its table (the strategies repeated round it) in every rotation,
    # identical rotations once; every strategy in every seat
    two = [[p.name for p in table] for table in _lineups(("greedy", "random"), 4)]
    assert two == [["greedy", "random"] * 2, ["random", "greedy"] * 2]
    four = [[p.name for p in table] for table in _lineups(tuple(names[:4]), 4)]
    assert four == [names[shift:4] + names[:shift] for shift in range(4)]
    assert [[p.name for p in t] for t in _lineups(("greedy",), 3)] == [["greedy"] * 3]
    assert [[p.name for p in t] for t in _lineups((), 2)] == [["greedy"] * 2]  # the default


def test_frame_builder_matches_concatenated_frames(cards_module):
    """The report's rows, written into columns sized once, are the rows of a frame per
    batch concatenated; the strategy column, whose labels differ between seatings, is
    categorical over them in order of first appearance (concat makes it strings)."""
    from sunset_sim.results import FrameBuilder, to_frame
    from sunset_sim.runner import iter_batches

    plan_ids = [p.id for p in cards_module.plans]
    lineups = [["greedy", "random"], ["random", "greedy"], ["greedy", "greedy"]]
    batches = [
        item
        for i, seats in enumerate(lineups)
        for item in iter_batches(7, 2, seats, 3, cards_module, chunk_size=4, first_game=7 * i)
    ]
    assert len(batches) == 6
    builder = FrameBuilder(7 * 3 * 2)
    for batch, labels in batches:
        builder.add(batch, labels, plan_ids)
    built = builder.frame()
    joined = pd.concat([to_frame(b, labels, plan_ids) for b, labels in batches], ignore_index=True)
    assert list(built.columns) == list(joined.columns)
    for column in joined.columns:
        if column == "strategy":
            assert list(built[column].cat.categories) == ["greedy", "random"]
            assert built[column].astype(str).tolist() == joined[column].astype(str).tolist()
        else:
            pd.testing.assert_series_equal(built[column], joined[column])
    assert isinstance(built["plan_day1"].dtype, pd.CategoricalDtype)
    with pytest.raises(ValueError, match="sized for"):
        builder.add(*batches[0])


def test_report_plays_a_rotated_field(tmp_path, cards_module):
    from sunset_sim.cli_report import _lineups, _play

    texts = ("greedy", "random", "greedy:lateness=0.9")  # kernels: {greedy}, {greedy, random}
    tables = _lineups(texts, 2)
    assert len(tables) == 6
    frame = _play(3, 2, tables, 4, cards_module, sunset_sim.Rules(), 1, io.StringIO())
    assert sorted(frame["game"].unique()) == list(range(18))
    for index, table in enumerate(tables):
        games = frame[(frame["game"] // 3) == index]
        for seat, player in enumerate(table):
            assert (games.loc[games["seat"] == seat, "strategy"] == player.name).all()
    report = build_report(frame, cards_module, min_samples=2)
    strategies = report.tables["strategies"].set_index("strategy")
    assert strategies["n"].to_dict() == {name: 12 for name in texts}
    assert "strategy_seats" in report.tables
    seats = report.tables["strategy_seats"]
    assert (seats["n"] == 6).all() and len(seats) == 6
    assert not report.meta["seats_confounded"]

    runner = CliRunner()
    result = runner.invoke(
        main,
        ["report", "--games", "10", "--players", "2", "--jobs", "1", "--seed", "4"]
        + [f"--strategy={t}" for t in texts]
        + ["--out", str(tmp_path / "rep"), "--format", "json", "--study-games", "0"],
    )
    assert result.exit_code == 0, result.output
    import json

    shown = {row["strategy"]: row["n"] for row in json.loads(result.stdout)["strategies"]}
    assert shown == {text: 8 for text in texts}  # 10 games rounded up to 2 at 6 seatings
    assert "rotated through the seats" in (tmp_path / "rep" / "report.md").read_text()
