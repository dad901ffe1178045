"""Outputs for pipes and tools: one table per CSV stream, one JSON object, rows on stdout
with ``simulate --out -``, status lines on stderr, one CI naming scheme
(``measure``, ``measure_ci_low``, ``measure_ci_high``) and Wilson intervals for rates."""

from __future__ import annotations

import csv
import io
import json
import math
import pickle
import re
import subprocess
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest
from conftest import cli, ok

import sunset_sim
from sunset_sim import cli_tables
from sunset_sim.analysis import stats

PAIR = ["--strategy", "greedy", "--strategy", "random"]


# ---- Wilson intervals --------------------------------------------------------------------


def test_wilson_interval_is_not_zero_width_at_zero_and_one():
    p, lo, hi = stats.proportion_ci(0, 40_000)
    assert (p, lo) == (0.0, 0.0) and 5e-5 < hi < 2e-4  # 0.000 (0.000 to 0.0001)
    p, lo, hi = stats.rate_ci_sums(40_000, 40_000.0)
    assert p == 1.0 and hi == 1.0 and 1 - 2e-4 < lo < 1 - 5e-5


@pytest.fixture(scope="module")
def lopsided():
    """greedy against random at two seats: greedy wins (nearly) every game."""
    return sunset_sim.tournament(["greedy", "random"], players=2, games=60)


def test_rates_never_get_a_zero_width_interval(lopsided):
    for frame in (lopsided.standings, lopsided.by_seat, lopsided.head_to_head):
        measure = "score" if "score" in frame else "win_share"
        low, high = frame[f"{measure}_ci_low"], frame[f"{measure}_ci_high"]
        assert (high - low > 0.01).all(), frame
        assert ((0 <= low) & (high <= 1)).all()


def test_simulate_summary_uses_wilson_for_win_share():
    out = ok(cli("simulate", "--games", "40", "--players", "2", *PAIR, "--format", "json"))
    payload = json.loads(out)
    table = pd.DataFrame(payload["strategies"])
    assert (table["win_share_ci_high"] - table["win_share_ci_low"] > 0.01).all()
    assert payload["tie_rate_ci_low"] <= payload["tie_rate"] < payload["tie_rate_ci_high"]


# ---- one naming scheme ---------------------------------------------------------------------


def check_names(frame: pd.DataFrame, where: str) -> None:
    columns = list(frame.columns)
    for column in columns:
        assert not re.search(r"(_lo|_hi|_low|_high)$", column) or re.search(
            r"_ci_(low|high)$|^target_(low|high)$", column
        ), f"{where}: {column}"
        if column.endswith("_ci_low"):
            measure = column[: -len("_ci_low")]
            assert measure in columns and f"{measure}_ci_high" in columns, f"{where}: {column}"


def test_every_api_frame_uses_one_ci_naming_scheme(lopsided):
    for name in ("standings", "head_to_head", "by_seat", "by_turn_position"):
        check_names(getattr(lopsided, name), f"tournament.{name}")
    sweep = sunset_sim.sweep(rule="days=2,3", strategies=["greedy", "random"], players=2, games=8)
    check_names(sweep, "sweep")
    compare = sunset_sim.compare(["greedy", "random"], players=2, games=8, rules_b={"days": 3})
    check_names(compare, "compare")
    frame = sunset_sim.simulate(games=60, players=2, strategies=["greedy", "random"])
    report = sunset_sim.build_report(frame, sunset_sim.load_cards())
    for name, table in report.tables.items():
        check_names(table, f"report table {name}")


# ---- one table per CSV stream, one JSON object ------------------------------------------


def one_csv_table(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert rows and all(len(row) == len(rows[0]) for row in rows), text
    assert all(row for row in rows), "a blank line inside the CSV"
    return rows


def test_tournament_csv_is_one_table_and_json_one_object():
    base = ["tournament", *PAIR, "--players", "2", "--games", "20", "--quiet"]
    rows = one_csv_table(ok(cli(*base, "--format", "csv")))
    assert rows[0][:3] == ["strategy", "n", "win_share"] and len(rows) == 3
    rows = one_csv_table(ok(cli(*base, "--format", "csv", "--table", "head_to_head")))
    assert rows[0][:2] == ["strategy", "opponent"]
    payload = json.loads(ok(cli(*base, "--format", "json")))
    assert {"standings", "head_to_head", "by_seat", "by_turn_position"} <= set(payload)
    only = json.loads(ok(cli(*base, "--format", "json", "--table", "by_seat")))
    assert "by_seat" in only and "standings" not in only


def test_sweep_and_cards_csv_are_one_table():
    sweep = ["sweep", "--rule-values", "days=2,3", *PAIR, "--players", "2", "--games", "6"]
    rows = one_csv_table(ok(cli(*sweep, "--quiet", "--format", "csv")))
    assert "win_share_ci_low" in rows[0]
    rows = one_csv_table(ok(cli(*sweep, "--quiet", "--format", "csv", "--table", "per_value")))
    assert "balance_ci_low" in rows[0]
    payload = json.loads(ok(cli(*sweep, "--quiet", "--format", "json")))
    assert {"per_strategy", "per_value"} <= set(payload)
    rows = one_csv_table(ok(cli("cards", "--format", "csv", "--table", "plans")))
    assert rows[0][0] == "id"
    cards = json.loads(ok(cli("cards", "--format", "json")))
    assert {"name", "hash", "commissions", "goals", "plans", "landscapes"} <= set(cards)


def test_strategies_lists_as_one_csv_table_or_one_json_object():
    rows = one_csv_table(ok(cli("strategies", "--format", "csv")))
    assert rows[0] == ["strategy", "description"]
    assert {"greedy", "random", "balanced"} <= {row[0] for row in rows[1:]}
    rows = one_csv_table(ok(cli("strategies", "--format", "csv", "--table", "parameters")))
    assert rows[0][:5] == ["strategy", "parameter", "default", "low", "high"]
    assert ["balanced", "deny"] in [row[:2] for row in rows[1:]]
    payload = json.loads(ok(cli("strategies", "--format", "json")))
    assert set(payload) == {"strategies", "parameters"}
    assert "greedy" in ok(cli("strategies")).splitlines()  # the text list stays the default


def test_a_missing_table_is_one_line_exit_2():
    result = cli("sweep", "--param", "greedy:lateness=0,1", "--strategy", "random", "--games", "4")
    ok(result)
    bad = cli(
        "sweep", "--param", "greedy:lateness=0,1", "--strategy", "random", "--games", "4",
        "--table", "per_strategy", "--format", "csv",
    )  # fmt: skip
    assert bad.exit_code == 2 and "--table" in bad.stderr and len(bad.stderr.splitlines()) == 1


# ---- rows on stdout, status on stderr ----------------------------------------------------


def test_simulate_out_dash_streams_csv_rows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("simulate", "--games", "30", "--players", "3", "--seed", "3", "--out", "-")
    rows = pd.read_csv(io.StringIO(ok(result)))
    expected = sunset_sim.simulate(games=30, players=3, seed=3)
    assert rows.shape == expected.shape
    assert list(rows.columns) == list(expected.columns)
    np.testing.assert_array_equal(rows["fame"].to_numpy(), expected["fame"].to_numpy())
    assert "win_share_ci_low" in result.stderr  # the summary went to stderr
    assert not (tmp_path / "-").exists()


def test_status_lines_go_to_stderr(tmp_path):
    path = tmp_path / "a.csv"
    result = cli("simulate", "--games", "10", "--quiet", "--out", path)
    assert "results written" not in ok(result) and "results written" in result.stderr
    plot = tmp_path / "p.png"
    result = cli("sweep", "--param", "greedy:lateness=0,1", "--games", "4", "--plot", plot)
    assert "plot written" not in ok(result) and "plot written" in result.stderr


# ---- plots leave the backend alone --------------------------------------------------------


def test_plot_functions_return_figures_and_keep_the_backend(tmp_path):
    from matplotlib.figure import Figure

    before = matplotlib.get_backend()
    matplotlib.use("svg")  # anything but Agg: the plots must not switch it
    try:
        frame = sunset_sim.sweep(param="greedy:lateness=0,1", strategies=["random"], games=4)
        figure = sunset_sim.plot_sweep(frame, tmp_path / "s.png")
        assert isinstance(figure, Figure) and (tmp_path / "s.png").is_file()
        assert figure._repr_png_().startswith(b"\x89PNG")  # inline in Jupyter, no pyplot
        assert isinstance(pickle.loads(pickle.dumps(figure)), Figure)
        games = sunset_sim.simulate(games=40, players=2, strategies=["greedy", "random"])
        report = sunset_sim.build_report(games, sunset_sim.load_cards())
        sunset_sim.write_report(report, tmp_path / "rep")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


def test_json_output_is_strict_json():
    from sunset_sim.cli_tables import json_ready

    ready = json_ready({"a": math.nan, "b": [1.0, math.inf], "c": np.float64(0.5)})
    assert ready == {"a": None, "b": [1.0, None], "c": 0.5}
    json.dumps(ready, allow_nan=False)


SUMMARY_LIKE = [
    [{"strategy": "greedy", "n": 2000, "win_share": 0.5, "mean_fame": 22.319}],
    [
        {"strategy": "a_long_strategy_label", "n": 5, "x": -22.3194, "y": 0.00012},
        {"strategy": "b,c", "n": 123456, "x": float("nan"), "y": 123456789.5},
        {"strategy": 'say "hi"', "n": 0, "x": 1.0, "y": 0.0},
    ],
    [{"s": "a", "nnnnn": 1, "xxxxxxxx": 0.5}, {"s": "bb", "nnnnn": 10, "xxxxxxxx": 1e-7}],
]


@pytest.mark.parametrize("rows", SUMMARY_LIKE)
def test_summary_rows_print_as_pandas_prints_them(rows):
    """simulate prints its summary without pandas (cli_tables.records_*), so that it
    starts without importing it: the text, CSV and JSON are pandas' own, to the byte."""
    frame = pd.DataFrame(rows)
    assert cli_tables.records_text(rows) == frame.to_string(
        index=False, float_format=cli_tables._small
    )
    assert cli_tables.records_csv(rows) == frame.to_csv(index=False)
    assert cli_tables.records_json(rows) == cli_tables.frame_rows(frame)


def test_json_keeps_a_tiny_p_value():
    """pandas' to_json keeps 10 decimals: compare's p of 2.6e-12 was 0.0 in its JSON (0
    is the value for a zero standard error) and 2.6e-12 in its CSV."""
    frame = pd.DataFrame({"p_value": [2.6496517082475027e-12, 1.4e-219, float("nan")]})
    frame["n"] = pd.array([1, None, 3], dtype="Int64")
    rows = cli_tables.frame_rows(frame)
    assert [row["p_value"] for row in rows] == [2.6496517082475027e-12, 1.4e-219, None]
    assert [row["n"] for row in rows] == [1, None, 3]
    assert json.loads(json.dumps(rows, allow_nan=False)) == rows


def test_a_table_without_rows_prints_its_columns_and_none(capsys):
    """A table with no rows (`cards --table goals` of a set without goals) prints its
    columns and "(none)", not pandas' "Empty DataFrame ... Index: []"; CSV keeps the
    header alone."""
    frame = pd.DataFrame({"id": pd.Series([], dtype=str), "fame": pd.Series([], dtype=int)})
    cli_tables.print_table(frame, "table")
    assert capsys.readouterr().out == "id  fame\n(none)\n"
    cli_tables.print_table(frame, "csv")
    assert capsys.readouterr().out == "id,fame\n"


def test_simulate_without_out_does_not_import_pandas(tmp_path):
    """The summary alone needs no pandas: its import was about a third of the start."""
    code = (
        "import sys; from sunset_sim.cli import main\n"
        "try:\n    main(['simulate', '--games', '20', '--quiet'])\n"
        "except SystemExit as end:\n    assert not end.code, end.code\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "win_share" in done.stdout


def test_printed_interval_ends_are_rounded_outward(capsys):
    """0 wins in 3,000 games printed "0.000 (0.000 to 0.001)" for an upper end of
    0.00128, and 3,000 wins "(0.999 to 1.000)" for a lower end of 0.99872: the interval
    printed was narrower than the one computed. Ends now round outward; a tiny nonzero
    end keeps two significant digits, and a point value rounds as before."""
    rows = [
        {"strategy": "greedy", "win_share": 1.0, "win_share_ci_low": 0.99872,
         "win_share_ci_high": 1.0, "diff_ci_low": -0.0234, "diff_ci_high": 0.2},
        {"strategy": "random", "win_share": 0.00128, "win_share_ci_low": 0.0,
         "win_share_ci_high": 0.00128, "diff_ci_low": -0.0004, "diff_ci_high": 9.6e-05},
    ]  # fmt: skip
    cli_tables.print_table(pd.DataFrame(rows), "table")  # (pandas, as most commands)
    for text in (cli_tables.records_text(rows), capsys.readouterr().out):  # (and simulate)
        greedy, random = (line.split() for line in text.splitlines()[1:])
        assert greedy[1:] == ["1.000", "0.998", "1.000", "-0.024", "0.200"]
        assert random[1:] == ["0.001", "0.000", "0.002", "-0.0004", "9.6e-05"]
    # an end too small for three decimals: two significant digits, outward all the same
    high, low = cli_tables.column_format("x_ci_high"), cli_tables.column_format("x_ci_low")
    assert [high(9.603e-05), high(0.000384), low(0.000384), low(-0.000384)] == [
        "9.7e-05", "0.00039", "0.00038", "-0.00039"
    ]  # fmt: skip
    assert [low(0.0006), high(0.0006), high(0.0), low(float("nan"))] == [
        "0.000", "0.001", "0.000", "nan"
    ]  # fmt: skip
