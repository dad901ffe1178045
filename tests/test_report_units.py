"""The report's figures in the units and ranges their measures have (issue "A balance
report a designer can read and trust"): each test here would have caught a figure a
hostile reader found out of its range or drawn in other units than its table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_report_trust import CARDS, FIELD, figure_of

import sunset_sim
from sunset_sim.analysis.report import build_report
from sunset_sim.analysis.stats import ends_text


@pytest.fixture(scope="module")
def fixed():
    """test_report_trust's games: greedy in seats 0-1, random in 2-3 (not rotated)."""
    return sunset_sim.simulate(games=2000, players=4, strategies=FIELD, seed=11, jobs=1)


def test_vs_field_of_a_strategy_that_never_wins_is_not_a_zero_width_interval():
    """A strategy that never won had vs_field -33.3 in every row and the interval -33.3
    to -33.3 (its win share's Wilson interval 0 to 0.0019 beside it). A row's vs_field is
    (p x share - 1) / (p - 1), so its interval holds the win share's, mapped onto it."""
    lone = sunset_sim.simulate(
        games=400, players=4, strategies=["greedy", "early-bird", "late-riser", "random"],
        seed=3, jobs=1,
    )  # fmt: skip
    table = build_report(lone, CARDS, min_samples=30).tables["strategies"]
    table = table.set_index("strategy")
    assert table.loc["random", "win_share"] == 0.0  # (never won here)
    for _, row in table.iterrows():
        mapped = [(4 * row[f"win_share_ci_{end}"] - 1) / 3 for end in ("low", "high")]
        assert row["vs_field_ci_low"] <= mapped[0] + 1e-12
        assert row["vs_field_ci_high"] >= mapped[1] - 1e-12
        assert row["vs_field_ci_low"] <= row["vs_field"] <= row["vs_field_ci_high"]
    random = table.loc["random"]
    assert random["vs_field_ci_high"] - random["vs_field_ci_low"] > 0.005


@pytest.mark.parametrize("games", [1, 300])
def test_vs_field_stays_in_its_range_and_its_p_agrees_with_its_interval(games):
    """At 2 players vs_field read -100.5 to -95.2 points (the normal interval is not
    bounded: -1 / (p - 1) to 1), and one game's CI of -0.315 to 1.0 sat beside p = 0.003
    (from the lopsided interval's mean half-width)."""
    results = sunset_sim.simulate(
        games=games, players=2, strategies=["balanced", "early-bird"], seed=3, jobs=1
    )
    table = build_report(results, CARDS, min_samples=30).tables["strategies"]
    for _, row in table.iterrows():
        assert -1.0 <= row["vs_field_ci_low"] <= row["vs_field"] <= row["vs_field_ci_high"] <= 1.0
        excludes_zero = row["vs_field_ci_low"] > 0 or row["vs_field_ci_high"] < 0
        assert (row["vs_field_p"] < 0.05) == excludes_zero, row.to_dict()


def _points(axis) -> tuple[list[float], list[str]]:
    """The y value and colour of each point an axis draws (errorbar's marker lines)."""
    from matplotlib.colors import to_hex

    lines = [line for line in axis.lines if line.get_marker() == "o"]
    return [float(line.get_ydata()[0]) for line in lines], [
        to_hex(line.get_color()) for line in lines
    ]


def test_plots_draw_rates_in_the_tables_units_and_grey_their_own_small_samples(monkeypatch, fixed):
    """plan_tradeoff drew win_effect in fractions beside a table in points, and greyed a
    card in every panel where only its effect had too few samples; commission_pricing
    drew rates 0 to 1 beside a table in %."""
    from sunset_sim.analysis.report.plotting import GREY
    from sunset_sim.analysis.report.sections import commissions, plans

    # P3 to P5's effects under min_samples (no strategy both keeps and leaves them 1,000
    # times), each card kept more often than that
    least = 1000
    tables = build_report(fixed, CARDS, min_samples=least).tables
    table = tables["plan_cards"]
    figure = figure_of(monkeypatch, plans, plans.plan_tradeoff, tables)
    panels = {axis.get_title(): axis for axis in figure.axes if axis.get_visible()}
    effect = panels["win share: chosen - not, within strategy (points)"]
    values, colours = _points(effect)
    shown = table["win_effect"].to_numpy(dtype=float)
    assert np.allclose(values, 100 * shown, equal_nan=True)
    grey = (table["note"] != "").to_numpy()
    assert [c == GREY for c in colours] == list(grey)
    _, colours = _points(panels["turn position that day (0 = first)"])
    assert [c == GREY for c in colours] == list(table["n"] < least)
    assert grey.any() and not (table["n"] < least).any()  # (the two differ here)
    report = build_report(fixed, CARDS, min_samples=30)
    rates = report.tables["commissions"]
    figure = figure_of(monkeypatch, commissions, commissions.commission_pricing, report.tables)
    values, _ = _points(figure.axes[0])
    assert np.allclose(values, 100 * rates["completion_rate"].to_numpy(float), equal_nan=True)
    assert "(%" in figure.axes[0].get_ylabel()
    # a row's note says whose sample is small: the price flag rests on the games shown
    # (a row read "under-priced" beside "too few samples", about its completions)
    rates = build_report(fixed, CARDS, min_samples=800).tables["commissions"]
    effect_only = (rates["n"] < 800) & (rates["n_shown"] >= 800)
    both = rates["n_shown"] < 800
    assert effect_only.any() and both.any()
    assert (rates.loc[effect_only, "note"] == "completer's win: too few samples").all()
    assert (rates.loc[both, "note"] == "too few samples").all()
    assert (rates.loc[rates["n"] >= 800, "note"] == "").all()


def test_intervals_stay_within_what_their_measure_can_take():
    """C05 raised to fame 15 at 2 players: its completer's win effect read +96.2 points
    (+91.3 to +101.0), and in a 7-game report a turn position ran -0.08 to 0.25."""
    from sunset_sim.cards.edit import edit_card

    cards = edit_card(CARDS, "C05", "fame", 12)
    frame = sunset_sim.simulate(
        games=400, players=2, strategies=["greedy", "late-riser"], cards=cards, seed=0, jobs=1
    )
    tables = build_report(frame, cards, min_samples=30).tables
    assert tables["commissions"].set_index("commission").loc["C05", "completer_win_effect"] > 0.9
    for name, table in tables.items():
        for column in (c for c in table.columns if "win_effect_ci_" in c):
            values = table[column].dropna()
            assert values.between(-1.0, 1.0).all(), (name, column, values.max())
    with pytest.warns(UserWarning):  # (2 strategies for 3 seats: a note)
        seven = sunset_sim.simulate(
            games=7, players=3, strategies=["greedy", "late-riser"], seed=0, jobs=1
        )
    few = build_report(seven, CARDS)
    plans = few.tables["plan_cards"]
    assert plans["turn_position_ci_low"].dropna().ge(0).all()
    assert plans["turn_position_ci_high"].dropna().le(2).all()


def test_no_price_residual_outside_the_other_commissions_fame_per_painting():
    """C05 at fame 20 (20 per painting, no other commission near it) read "over-priced:
    +108.8 points against commissions of the same fame per painting": the others' line,
    extrapolated, predicted a rate of -9%. Within half their range beyond either end (the
    lowest and the highest commission) it is given, its prediction a rate (0 to 1)."""
    from sunset_sim.analysis.report.sections.commissions import _pricing

    x = np.append(np.linspace(1.0, 3.0, 11), 20.0)
    rate = np.append(0.9 - 0.2 * x[:11] + np.tile([0.004, -0.004], 6)[:11], 0.998)
    half = np.full(12, 0.01)
    table = pd.DataFrame(
        {
            "fame_per_painting": x, "note": "", "completion_rate": rate,
            "completion_rate_ci_low": rate - half, "completion_rate_ci_high": rate + half,
            "completer_win": 0.3, "completer_win_ci_low": 0.29, "completer_win_ci_high": 0.31,
            "n_shown": 5_000,
        }
    )  # fmt: skip
    _pricing(table, 10)
    assert np.isnan(table.loc[11, "completion_residual"]) and table.loc[11, "price_flag"] == ""
    assert np.isfinite(table.loc[:10, "completion_residual"]).all()
    table.loc[11, "fame_per_painting"] = 3.9  # just past the others' highest: given
    _pricing(table, 10)
    assert np.isfinite(table.loc[11, "completion_residual"])
    assert table.loc[11, "completion_residual"] == pytest.approx(0.998 - 0.12, abs=0.05)


def test_a_goals_keeps_under_min_samples_are_noted():
    """G3's last-mover rate read 0.0% (0.0 to 49.0) beside n = 34 (days shown) with no
    note: it rests on its 4 keeps (n_kept, now shown)."""
    results = sunset_sim.simulate(
        games=40, players=3, strategies=["greedy", "greedy:lateness=1", "random"], seed=5, jobs=1
    )
    goals = build_report(results, CARDS, min_samples=30).tables["goals"]
    few = goals[(goals["n"] >= 30) & (goals["n_kept"] < 30)]
    assert len(few) and set(few["note"]) == {"last mover, keeper's win: too few samples"}
    enough = goals[(goals["n_kept"] >= 30) & (goals["n_smaller"] >= 30)]
    assert set(enough["note"]) <= {""}
    # the keeper's win effect rests on the keepers within strategies (random's keeps,
    # which never win, are no evidence of it)
    within = goals[(goals["n_kept"] >= 30) & (goals["n_smaller"] < 30)]
    assert set(within["note"]) <= {"keeper's win: too few samples"}


def test_lead_by_day_greys_each_measures_own_small_samples(monkeypatch):
    """The table marked day 5 "leader wins: too few samples" and day 6 "too few
    samples"; the plot drew them as the rest under "n = 200 games"."""
    from matplotlib.colors import to_hex

    from sunset_sim.analysis.report.plotting import GREY
    from sunset_sim.analysis.report.sections import fairness

    table = pd.DataFrame(
        {
            "day": [1, 2, 3], "n": [200, 200, 8], "n_comparable": [0, 150, 8],
            "n_ongoing": [200, 12, 0],
        }
    )  # fmt: skip
    for column in ("lead_change", "leader_wins", "sole_leader"):
        table[column] = [0.5, 0.5, 0.5]
        table[f"{column}_ci_low"] = 0.4
        table[f"{column}_ci_high"] = 0.6
    table.attrs["min_samples"] = 30
    assert fairness._lead_small(table, "leader_wins").tolist() == [False, True, True]
    assert fairness._lead_small(table, "lead_change").tolist() == [False, False, True]
    figure = figure_of(monkeypatch, fairness, fairness.lead_by_day, {"lead_by_day": table})
    grey = [
        line.get_xdata().tolist()
        for line in figure.axes[0].lines
        if line.get_marker() == "o" and to_hex(line.get_color()) == GREY
    ]
    assert len(grey) == 3  # one grey overlay per measure
    assert "grey: too few samples" in figure.axes[0].get_title()


def test_a_plot_of_many_cards_draws_them_by_colour_without_labels():
    """A set of 1,000 plan cards: one error bar and one label per card took 49 s of a
    94 s report. Past MANY_POINTS rows they are drawn in one call per colour."""
    import matplotlib.pyplot as plt

    from sunset_sim.analysis.report.plotting import MANY_POINTS, _labelled_points

    for rows in (MANY_POINTS, MANY_POINTS + 1):
        values = np.linspace(0.0, 1.0, rows)
        table = pd.DataFrame(
            {"card": [f"P{i}" for i in range(rows)], "value": values,
             "value_ci_low": values - 0.1, "value_ci_high": values + 0.1}
        )  # fmt: skip
        figure, axis = plt.subplots()
        colours = ["C0" if i % 3 else "#aaaaaa" for i in range(rows)]
        _labelled_points(axis, table, "value", "card", np.arange(rows), colours, 3, 6, 2)
        drawn = sorted(
            y for line in axis.lines if line.get_marker() == "o" for y in line.get_ydata()
        )
        assert drawn == pytest.approx(sorted(values))  # every card, once
        if rows > MANY_POINTS:
            assert len([line for line in axis.lines if line.get_marker() == "o"]) == 2
            assert not axis.texts
        else:
            assert len(axis.texts) == rows
        plt.close(figure)


def test_wake_ticks_are_each_time_once_and_at_most_24():
    """1,000 plan cards gave 1,000 tick labels (15 s of a report to draw)."""
    import matplotlib.pyplot as plt

    from sunset_sim.analysis.report.sections.plans import wake_ticks

    figure, axis = plt.subplots()
    x = np.array([300.0, 315.0, 300.0, 330.0])
    wake_ticks(axis, x, ["5:00", "5:15", "5:00", "5:30"])
    assert [t.get_text() for t in axis.get_xticklabels()] == ["5:00", "5:15", "5:30"]
    many = np.arange(1000, dtype=float)
    wake_ticks(axis, many, [f"{m // 60}:{m % 60:02d}" for m in range(1000)])
    assert len(axis.get_xticks()) <= 24 and axis.get_xticks()[0] == 0.0
    plt.close(figure)


def test_the_pricing_plot_draws_the_line_of_the_commissions_not_flagged(monkeypatch):
    """The plot drew a line fitted over every commission, the flagged one too, so an
    over-priced card sat near a line it had pulled to itself, while its table residual
    is against the others' line."""
    from sunset_sim.analysis.report.sections import commissions

    x = np.linspace(1.0, 3.0, 12)
    rate = 0.2 + 0.1 * x + np.tile([0.004, -0.004], 6)
    rate[5] += 0.4  # over-priced
    half = np.full(12, 0.01)
    table = pd.DataFrame(
        {
            "commission": [f"C{i:02d}" for i in range(12)], "fame_per_painting": x,
            "note": "", "completion_rate": rate, "completion_rate_ci_low": rate - half,
            "completion_rate_ci_high": rate + half, "completer_win": 0.3,
            "completer_win_ci_low": 0.29, "completer_win_ci_high": 0.31, "n_shown": 5_000,
            "games": 5_000,
        }
    )  # fmt: skip
    commissions._pricing(table, 10)
    assert table.loc[5, "price_flag"] == "over-priced"
    figure = figure_of(
        monkeypatch, commissions, commissions.commission_pricing, {"commissions": table}
    )
    (line,) = [line for line in figure.axes[0].lines if line.get_marker() in ("None", "")]
    grid, drawn = line.get_xdata(), line.get_ydata()
    assert np.allclose(drawn, 100 * (0.2 + 0.1 * grid), atol=0.5)  # the others' line


def test_a_day_no_game_reached_is_said_so_not_too_few_samples():
    """Games cut short by a commission shortage (R-CLEAN-5): a day every game had ended
    before read "too few samples" in the lead-by-day table, as if a few had been seen."""
    from conftest import small_cards

    cards = small_cards()  # 4 commissions: the row runs out within a day or two
    results = sunset_sim.simulate(games=60, players=2, strategies=["greedy"], cards=cards, jobs=1)
    lead = build_report(results, cards, min_samples=30).tables["lead_by_day"]
    assert (lead["n"] == 0).any()
    assert set(lead.loc[lead["n"] == 0, "note"]) == {"no game went on to this day"}
    assert set(lead.loc[(lead["n"] > 0) & (lead["n"] < 30), "note"]) <= {"too few samples"}


def test_a_reports_intervals_are_rounded_outward_as_the_command_lines_are():
    """A tester's: 0 wins in 3,000 games (an upper end of 0.128%) read "0.0% (0.0 to 0.1)"
    in report.md and report.html where stdout printed 0.002, and a lower end of 2.794%
    read 2.8: the printed interval was narrower than the one computed."""
    from sunset_sim.analysis.report.render import display_table

    table = pd.DataFrame(
        {
            "win_share": [0.0, 0.035],
            "win_share_ci_low": [0.0, 0.02794],
            "win_share_ci_high": [0.00128, 0.0413],
            "mean_fame": [6.0, 7.0],
            "mean_fame_ci_low": [5.9056, 6.999],
            "mean_fame_ci_high": [6.0944, 7.2],
            "win_effect": [-0.01, 0.2],
            "win_effect_ci_low": [-0.0201, 0.15],
            "win_effect_ci_high": [0.00001, 0.25],
        }
    )
    shown = display_table(table)
    assert shown["win_share"].tolist() == ["0.0% (0.0 to 0.2)", "3.5% (2.7 to 4.2)"]
    assert shown["mean_fame"].tolist() == ["6.00 (5.90 to 6.10)", "7.00 (6.99 to 7.20)"]
    assert shown["win_effect"].tolist() == ["-1.0 pt (-2.1 to +0.1)", "+20.0 pt (+15.0 to +25.0)"]
    assert ends_text(0.2, 0.3, 3) == "0.200 to 0.300"  # (0.2 x 1000 is not raised to 201)
