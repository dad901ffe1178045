"""Within-strategy effects and the report's notes on them, and the report's header and
text (the balance report's tables: test_report.py): strata that tell nothing of an effect
(a strategy that never wins) carry no weight in it nor in its error over games; an
effect on too few seats says so; a report built in Python names its rules."""

from __future__ import annotations

import numpy as np
import pandas as pd

import sunset_sim
from sunset_sim.analysis import stats
from sunset_sim.analysis.report import build_report


def test_the_early_rise_extremes_name_only_those_that_played(cards_module):
    """A field with early-bird and no late-riser read '"Always earliest" (early-bird) and
    "always most powerful" (late-riser) against the field:' over a one-row table."""
    frame = sunset_sim.simulate(games=40, players=3, strategies=["greedy", "early-bird"], jobs=1)
    report = build_report(frame, cards_module, min_samples=30)
    texts = [b[1] for s in report.sections for b in s.blocks if b[0] == "text"]
    line = next(text for text in texts if "(early-bird)" in text)
    assert line == '"Always earliest" (early-bird) against the field:'
    assert report.tables["plan_extremes"]["strategy"].tolist() == ["early-bird"]
    frame = sunset_sim.simulate(games=40, players=3, strategies=["greedy", "late-riser"], jobs=1)
    report = build_report(frame, cards_module, min_samples=30)
    texts = [b[1] for s in report.sections for b in s.blocks if b[0] == "text"]
    line = next(text for text in texts if "(late-riser)" in text)
    assert line == '"Always most powerful" (late-riser) against the field:'  # (capital A)


def test_an_effect_on_too_few_seats_within_strategies_is_marked_in_every_table():
    """A commission only random completed, and every feature type beside random's seats,
    had an empty within-strategy effect and no note (plan cards had one): every table
    with ``n_smaller`` marks a row whose effect rests on fewer than min_samples."""
    from sunset_sim.analysis.report.data import _mark
    from sunset_sim.analysis.report.model import TOO_FEW

    table = pd.DataFrame(
        {"n": [500, 500, 10, 500], "n_smaller": [12, 400, 400, 0],
         "completer_win_effect": [np.nan, 0.1, 0.3, np.nan]}
    )  # fmt: skip
    marked = _mark(table, "n", 30, "completer_win_effect")
    # (its own n large: the within-strategy effect is what rests on too few; with none at
    # all, no strategy on both sides, as a seat held by one strategy all run, no number of
    # games would give it one: the note had said "too few samples")
    assert marked["note"].tolist() == [
        f"within-strategy effect: {TOO_FEW}", "", TOO_FEW,
        "within-strategy effect: no strategy in both groups",
    ]  # fmt: skip
    assert marked["rank"].isna().tolist() == [True, False, True, True]
    assert marked["rank"].tolist()[1] == 1


def test_a_row_short_by_a_later_count_names_that_count():
    """P5 read "too few samples" on a row of 8,984 choices: the 16 seats that never chose
    it were what was short (its raw difference's other group)."""
    from sunset_sim.analysis.report.data import _mark
    from sunset_sim.analysis.report.model import TOO_FEW

    table = pd.DataFrame(
        {"n": [8984, 10, 10, 900], "n_not_chosen": [16, 900, 5, 900], "n_smaller": 400,
         "win_effect": [0.1, 0.2, 0.3, 0.4]}
    )  # fmt: skip
    marked = _mark(table, ["n", "n_not_chosen"], 30, "win_effect")
    assert marked["note"].tolist() == [f"not chosen: {TOO_FEW}", TOO_FEW, TOO_FEW, ""]
    assert marked["rank"].isna().tolist() == [True, True, True, False]
    # greyed in the HTML as before, when the note was the bare "too few samples"
    from sunset_sim.analysis.report.render import _html_table

    rows = _html_table("plan_cards", marked).split("<tr")[2:]  # (after the header's)
    assert ['class="few"' in row for row in rows] == [True, True, True, False]


def test_a_report_built_in_python_names_the_rules_its_games_were_played_under(cards_module):
    """build_report of 4-day games played with tie_break=seat read as the 6-day game: only
    the command line's source line named the rules. They come from the rows' run record,
    said once where the source names them too."""
    from sunset_sim.analysis.report.render import _header_lines

    rules = {"days": 4, "tie_break": "seat"}
    frame = sunset_sim.simulate(games=40, players=2, strategies=["greedy"], rules=rules, jobs=1)
    report = build_report(frame, cards_module)
    assert report.meta["rules"] == "rules tie_break=seat, days=4"
    assert _header_lines(report)[0].endswith("; rules tie_break=seat, days=4")
    named = build_report(frame, cards_module, source="r.csv (rules tie_break=seat, days=4)")
    assert _header_lines(named)[0].count("tie_break=seat") == 1
    frame.attrs.pop("provenance")  # (rows without a run record: nothing to say)
    assert build_report(frame, cards_module).meta["rules"] == ""


def test_a_plan_card_without_a_within_strategy_effect_says_why(frame, cards_module):
    """A plan card whose within-strategy effect is empty (no strategy both kept and left
    it in enough seat-games: n_smaller 0) is marked, as one with too few seat-games either
    way is: P8 had an empty effect and no note beside P5's note. Where both groups are
    big enough on their own, the note names the effect."""
    report = build_report(frame, cards_module, min_samples=80)
    table = report.tables["plan_cards"]
    empty = table["win_effect"].isna()
    # one that only n_smaller marks: both groups are big enough on their own
    only_effect = empty & (table["n"] >= 80) & (table["n_not_chosen"] >= 80)
    assert only_effect.any()
    assert set(table.loc[empty & ~only_effect, "note"]) <= {
        "too few samples", "not chosen: too few samples"
    }  # fmt: skip
    assert set(table.loc[only_effect, "note"]) <= {
        "within-strategy effect: too few samples",
        "within-strategy effect: no strategy in both groups",
    }
    assert table.loc[~empty, "n_smaller"].min() >= 80


def test_a_commissions_effect_error_over_games_leaves_out_the_strata_the_effect_does(report, frame):
    """random never wins: its stratum carries no weight in a completer's effect, but the
    error over games still divided by a total holding its weight, so the intervals came
    out 0.85-0.96 of the right width. Recomputed here from the rows, as a tester did."""
    rows = frame.sort_values(["game", "seat"])
    table = report.tables["commissions"]
    completed = np.zeros(len(rows), np.uint64)
    for column in [c for c in rows.columns if c.startswith("commissions_day")]:
        completed |= rows[column].to_numpy().astype(np.uint64)
    shown = rows["commissions_shown_0"].to_numpy().astype(np.uint64)
    win, label = rows["win_share"].to_numpy(float), rows["strategy"].to_numpy()
    game = rows["game"].to_numpy()
    checked = 0
    for index, row in table.iterrows():
        bit = np.uint64(1) << np.uint64(index)
        side_a = (completed & bit) != 0
        side_b = ((shown & bit) != 0) & ~side_a
        strata = []
        for name in np.unique(label):
            a, b = win[(label == name) & side_a], win[(label == name) & side_b]
            still = a.size > 1 and b.size > 1 and a.var() == b.var() == 0 and a.mean() == b.mean()
            if a.size >= 30 and b.size >= 30 and not still:
                strata.append((name, a.size, b.size, a.mean(), b.mean()))
        if not strata or not any(name == "random" for name in np.unique(label)):
            continue
        total = sum(na * nb / (na + nb) for _, na, nb, _, _ in strata)
        influence = np.zeros(len(rows))
        for name, na, nb, mean_a, mean_b in strata:
            weight, here = na * nb / (na + nb), label == name
            influence[here & side_a] += weight * (win[here & side_a] - mean_a) / (na * total)
            influence[here & side_b] -= weight * (win[here & side_b] - mean_b) / (nb * total)
        per_game = pd.Series(influence).groupby(game).sum().to_numpy()
        games = per_game.size
        se = np.sqrt((per_game**2).sum() * games / (games - 1))
        low, high = row["completer_win_effect_ci_low"], row["completer_win_effect_ci_high"]
        assert (high - low) / 2 >= stats.Z95 * se * (1 - 1e-9), row["commission"]
        checked += 1
    assert checked


def test_no_strategy_in_both_groups_is_said_only_where_none_is(cards_module):
    """A tester's: 150 games of greedy, early-bird and late-riser read "within-strategy
    effect: no strategy in both groups" for C03, completed by 22, 12 and 16 seats of them
    against the others: each under --min-samples, so n_smaller (over the strategies that
    carry weight) was 0. More games would give it one: "too few samples". The note that no
    number of games mends is kept for no strategy on both sides at all."""
    from sunset_sim.analysis.report.data import ANY_BOTH, WITHIN_NONE, WITHIN_TOO_FEW, _mark

    table = pd.DataFrame({"n": [500, 500, 500], "n_smaller": [0, 0, 40], ANY_BOTH: [25, 0, 40]})
    marked = _mark(table, "n", 30, None)
    assert marked["note"].tolist() == [WITHIN_TOO_FEW, WITHIN_NONE, ""]
    assert ANY_BOTH not in marked  # (read, then dropped: no column added to the tables)
    frame = sunset_sim.simulate(
        games=150, players=3, strategies=["greedy", "early-bird", "late-riser"], jobs=1
    )
    report = build_report(frame, cards_module, min_samples=30)
    for name, shown in report.tables.items():
        assert ANY_BOTH not in shown, name
    commissions = report.tables["commissions"]
    # each strategy has seats that completed and seats that did not
    assert WITHIN_NONE not in set(commissions["note"])
    assert (commissions["note"] == WITHIN_TOO_FEW).any()
