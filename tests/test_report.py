"""The balance report: statistics helpers, report tables, files written and the CLI."""

from __future__ import annotations

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
    write_report,
)
from sunset_sim.cli import main

STRATEGIES = ["greedy", "early-bird", "late-riser", "random"]


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


# ---------------------------------------------------------------- report from a real batch


@pytest.fixture(scope="module")
def frame():
    return sunset_sim.simulate(games=300, players=4, strategies=STRATEGIES, seed=3, jobs=1)


@pytest.fixture(scope="module")
def report(frame, cards_module):
    return build_report(frame, cards_module, min_samples=30)


@pytest.fixture(scope="module")
def cards_module():
    return sunset_sim.load_cards()


def test_report_tables(report, frame):
    t = report.tables
    for name in ("strategies", "plan_cards", "seats", "balance", "game_shape", "margins"):
        assert name in t
    strategies = t["strategies"].set_index("strategy")
    assert strategies["n"].sum() == len(frame)
    assert strategies.loc["greedy", "win_share"] == pytest.approx(
        frame.loc[frame.strategy == "greedy", "win_share"].mean()
    )
    assert (strategies["win_share_lo"] <= strategies["win_share"]).all()
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
    assert not re.search(r'(href|src)="(?!data:)', page)  # self-contained: no links out
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


# ---------------------------------------------------------------- command line


def test_cli_report_from_file(frame, tmp_path):
    results = tmp_path / "r.parquet"
    frame.to_parquet(results)
    out = tmp_path / "rep"
    runner = CliRunner()
    result = runner.invoke(main, ["report", str(results), "--out", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("strategy,n,win_share")
    assert (out / "report.md").is_file() and (out / "report.html").is_file()
    again = runner.invoke(main, ["report", str(results), "--out", str(out)])
    assert again.exit_code == 2 and "not empty" in again.output
    forced = runner.invoke(main, ["report", str(results), "--out", str(out), "--force", "--quiet"])
    assert forced.exit_code == 0, forced.output


def test_cli_report_errors(tmp_path):
    runner = CliRunner()
    cases = [
        ([str(tmp_path / "missing.parquet")], "no such file"),
        ([], "give a results file"),
    ]
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    cases.append(([str(junk)], "not a Parquet results file"))
    other = tmp_path / "other.parquet"
    pd.DataFrame({"x": [1, 2]}).to_parquet(other)
    cases.append(([str(other)], "missing column 'game'"))
    for arguments, message in cases:
        result = runner.invoke(main, ["report", *arguments, "--out", str(tmp_path / "o")])
        assert result.exit_code == 2, result.output
        assert message in result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    both = runner.invoke(main, ["report", str(other), "--games", "5", "--out", str(tmp_path / "o")])
    assert both.exit_code == 2


def test_cli_report_plays_games(tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "report",
            "--games",
            "200",
            "--players",
            "3",
            "--strategy",
            "greedy",
            "--strategy",
            "random",
            "--seed",
            "1",
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "rep"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"strategy":"greedy"' in result.output.replace(" ", "")
    assert (tmp_path / "rep" / "report.html").is_file()
