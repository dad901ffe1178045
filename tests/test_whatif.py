"""What-if analysis: ``compare`` (two variants on common random numbers) and ``sweep``
(one setting over values), through the Python API and the ``sunset-sim`` CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import cli, fails, ok

import sunset_sim
from sunset_sim import validation
from sunset_sim.analysis import sweep as sweep_module
from sunset_sim.analysis import whatif as whatif_module
from sunset_sim.analysis.sweep import sweep
from sunset_sim.analysis.whatif import (
    COMPARE_COLUMNS,
    SameVariantWarning,
    compare,
    paired_diff,
    resolve_rules,
)
from sunset_sim.cards.loader import default_cards_text, load_cards
from sunset_sim.rules.options import RuleOptionError, Rules

DEFAULT_CARDS = load_cards()
FIELD = ["--strategy", "greedy", "--strategy", "random", "--players", "3", "--quiet"]


def _row(frame: pd.DataFrame, section: str, item: str, metric: str) -> pd.Series:
    rows = frame[(frame["section"] == section) & (frame["item"] == item)]
    rows = rows[rows["metric"] == metric]
    assert len(rows) == 1, (section, item, metric)
    return rows.iloc[0]


# --- compare ------------------------------------------------------------------------


def test_compare_identical_variants_has_zero_differences():
    with pytest.warns(SameVariantWarning, match="an A/A check"):  # the CLI's note
        frame = compare(["greedy", "random"], players=3, games=60, seed=2, rules_b=Rules())
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == COMPARE_COLUMNS
    assert set(frame["section"]) == {"strategy", "fame parts", "seat", "game"}
    assert (frame["diff"] == 0).all()
    assert (frame["a"] == frame["b"]).all()
    assert not frame["significant"].any()
    assert (frame["p_value"] == 1).all()
    assert frame.attrs["same_deals"] is True
    # every key measure is there: strategies, fame parts, seats, Balance, game measures
    for label in ("greedy", "random"):
        for metric in ("win_share", "mean_fame"):
            _row(frame, "strategy", label, metric)
        for metric in ("fame_commissions", "fame_goals", "fame_paintings"):
            _row(frame, "fame parts", label, metric)
    for seat in range(3):
        _row(frame, "seat", f"seat {seat}", "win_share")
    assert 0 <= _row(frame, "seat", "all seats", "balance")["a"] <= 1
    for metric in ("tie_rate", "early_end_rate", "days_played"):
        _row(frame, "game", "all games", metric)


def test_compare_cli_identical_variants_marks_nothing():
    result = cli("compare", *FIELD, "--games", 40, "--a-rule", "days=5", "--b-rule", "days=5")
    out = ok(result)
    assert "note: A and B are the same variant" in result.stderr  # said, not silent
    assert "(0 of 17 rows)" in out  # 2x2 strategy + 2x3 parts + 3 seats + balance + 3
    assert "*" not in out.split("diff = B - A")[0].replace("'*'", "")


def test_compare_fewer_days_is_shorter_and_significant():
    result = cli("compare", *FIELD, "--games", 60, "--b-rule", "days=4", "--format", "json")
    payload = json.loads(ok(result))
    assert payload["same_deals"] is True
    assert "days=4" in payload["b"] and "days=6" in payload["a"]
    rows = {(r["section"], r["item"], r["metric"]): r for r in payload["rows"]}
    days = rows[("game", "all games", "days_played")]
    assert days["a"] == 6 and days["b"] == 4 and days["diff"] == -2
    assert days["significant"]
    fame = rows[("strategy", "greedy", "mean_fame")]
    assert fame["diff"] < 0 and fame["diff_ci_high"] < 0 and fame["significant"]


def test_compare_table_and_csv_formats():
    out = ok(cli("compare", *FIELD, "--games", 30, "--b-rule", "tie_break=seat"))
    for title in (
        "Per strategy",
        "fame parts",
        "Balance",
        "tie rate",
        "diff = B - A, paired by deal (n: deals)",
    ):
        assert title in out
    assert "identical deals" in out
    csv = ok(cli("compare", *FIELD, "--games", 30, "--b-rule", "tie_break=seat", "--format", "csv"))
    assert csv.splitlines()[0] == ",".join(COMPARE_COLUMNS)
    assert len(csv.splitlines()) == 1 + 17


def test_compare_edited_card_set_keeps_the_deals_and_other_cards_do_not(tmp_path):
    """Same card ids in the same order (numbers edited) are identical deals; two ids
    swapped (decks of the same sizes) still put each card in the same places, which
    compare said were other deals (every difference was 0); a deck of another size deals
    other cards (CardSet.deal_key)."""
    from sunset_sim.cards.edit import dump_cards, edit_card

    edited = edit_card(DEFAULT_CARDS, DEFAULT_CARDS.plans[2].id, "paint", 1)
    path = tmp_path / "edited.toml"
    path.write_text(dump_cards(edited), encoding="utf-8")
    out = ok(cli("compare", *FIELD, "--games", 20, "--b-cards", path))
    assert "identical deals" in out and "different deal" not in out
    text = default_cards_text()
    first, second = 'id = "L01"', 'id = "L60"'
    swapped = text.replace(first, "@@").replace(second, first).replace("@@", second)
    other = tmp_path / "swapped.toml"
    other.write_text(swapped.replace("name = ", 'name = "variant"\n# was: ', 1), "utf-8")
    out = ok(cli("compare", *FIELD, "--games", 20, "--b-cards", other))
    assert "2 card id(s) differ between the sets (L01 in A, L60 in B, L60 in A, L01 in B)" in out
    assert "deal g puts B's card where it puts A's" in out and "different deal" not in out
    assert "B: cards " in out and "(variant)" in out
    more = tmp_path / "more.toml"
    extra = '\n[[landscape]]\nid = "L61"\nfeatures = ["sun"]\n'
    more.write_text(text.replace("\n[[commission]]", extra + "\n[[commission]]", 1), "utf-8")
    assert len(load_cards(more).landscapes) == 61
    result = cli("compare", *FIELD, "--games", 20, "--b-cards", more, "--format", "csv")
    assert "deal g is a different deal" in result.stderr  # csv rows cannot carry it
    assert ok(result).splitlines()[0] == ",".join(COMPARE_COLUMNS)
    assert "same variant" not in result.stderr


def test_compare_tells_a_reordered_set_and_a_commented_copy(tmp_path):
    """The same cards in another order were said to be "paired by deal as for an edited
    card" (89 ids differing by place), though deal g deals them elsewhere; a copy that
    differs only in a comment got no A/A note (the file's hash covers comments)."""
    text = default_cards_text()
    head, first, rest = text.partition("\n[[commission]]")
    blocks = rest.split("\n[[commission]]")
    reordered = tmp_path / "reordered.toml"
    reordered.write_text(
        head + first + "\n[[commission]]".join([blocks[1], blocks[0], *blocks[2:]]), "utf-8"
    )
    assert load_cards(reordered).commissions[0].id == DEFAULT_CARDS.commissions[1].id
    out = ok(cli("compare", *FIELD, "--games", 20, "--b-cards", reordered))
    assert "B holds some of A's cards at other places" in out and "a different deal" in out
    assert "paired by game index (n: deals)" in out  # the footer says so too
    assert "paired by deal as for an edited card" not in out and "same variant" not in out
    # two ids swapped over cards alike but for their ids (L01 and L02, both a mountain)
    # deal the same games: a renaming, as the note said before moves were told
    alike = tmp_path / "alike.toml"
    alike.write_text(
        text.replace('id = "L01"', "@@")
        .replace('id = "L02"', 'id = "L01"')
        .replace("@@", 'id = "L02"'),
        "utf-8",
    )
    assert [c.features for c in load_cards(alike).landscapes[:2]] == [
        c.features for c in DEFAULT_CARDS.landscapes[:2]
    ]
    out = ok(cli("compare", *FIELD, "--games", 20, "--b-cards", alike))
    assert "2 card id(s) differ" in out and "paired by deal as for an edited card" in out
    commented = tmp_path / "commented.toml"
    commented.write_text("# a designer's note\n" + text, "utf-8")
    result = cli("compare", *FIELD, "--games", 20, "--b-cards", commented)
    assert "an A/A check" in result.stderr and "identical deals" in ok(result)
    with pytest.warns(SameVariantWarning):
        compare(["greedy"], players=2, games=4, cards_b=load_cards(commented))


def test_paired_diff_and_rules_helpers():
    assert paired_diff([1, 2, 3], [1, 2, 3]) == (0.0, 0.0, 0.0, 1.0)
    diff, lo, hi, p = paired_diff([0, 0, 0, 0], [1, 2, 1, 2])
    assert diff == 1.5 and lo < 1.5 < hi and p < 0.05
    base = Rules(tie_break="seat")
    assert resolve_rules("days=4", base) == Rules(tie_break="seat", days=4)
    assert resolve_rules({"days": 5}, base) == Rules(tie_break="seat", days=5)
    assert resolve_rules(Rules(days=3), base) == Rules(days=3)
    with pytest.raises(RuleOptionError):
        resolve_rules(["colour=red"])


# --- sweep --------------------------------------------------------------------------


def _valid_cis(frame: pd.DataFrame) -> None:
    for mean, low, high in (
        ("win_share", "win_share_ci_low", "win_share_ci_high"),
        ("mean_fame", "mean_fame_ci_low", "mean_fame_ci_high"),
    ):
        values = frame[[mean, low, high]].to_numpy(dtype=float)
        assert np.isfinite(values).all()
        assert (values[:, 1] <= values[:, 0] + 1e-12).all()
        assert (values[:, 0] <= values[:, 2] + 1e-12).all()
    assert frame["win_share_ci_low"].min() >= 0 and frame["win_share_ci_high"].max() <= 1


def test_sweep_param_cli_one_row_per_value_and_png(tmp_path):
    plot = tmp_path / "lateness.png"
    result = cli(
        "sweep", "--param", "greedy:lateness=0,1,2", "--strategy", "random", "--players", 3,
        "--games", 40, "--plot", plot, "--quiet", "--format", "json",
    )  # fmt: skip
    payload = json.loads(ok(result))
    assert payload["swept"] == "greedy:lateness"
    frame = pd.DataFrame(payload["per_value"])
    assert list(frame["value"]) == [0.0, 1.0, 2.0]
    assert list(frame["strategy"]) == [
        "greedy:lateness=0",
        "greedy:lateness=1",
        "greedy:lateness=2",
    ]
    assert (frame["n"] == 40).all()
    _valid_cis(frame)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = cli("sweep", "--param", "greedy:lateness=0,1", "--games", 5, "--plot", plot)
    fails(again, str(plot), "--force")


def test_sweep_api_param_and_rule():
    frame = sunset_sim.sweep(
        param="greedy:lateness", values=[0, 2], strategies=["random"], players=3, games=30
    )
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    _valid_cis(frame)
    # same seeds for every value: the random opponent's deals are the same, so the
    # swept strategy alone changes; a lateness of 2 costs fame against random
    assert frame["mean_fame"].iloc[0] > frame["mean_fame"].iloc[1]
    rules = sweep(rule="days=3,6", strategies=["greedy", "random"], players=3, games=30)
    assert len(rules) == 4 and set(rules["strategy"]) == {"greedy", "random"}
    assert list(rules.drop_duplicates("value")["days_played"]) == [3.0, 6.0]
    assert rules["balance"].between(0, 1).all()
    _valid_cis(rules)


def test_a_param_sweep_plays_every_opponent_of_a_larger_field():
    """Three opponents for one free seat: each in turn (every group that fills the other
    seats, every rotation), as a rule sweep plays a larger field. Only the first was
    seated before, and the other two were left out without a word."""
    from sunset_sim.analysis.sweep import sweep_tables

    field = ["random", "greedy", "balanced"]
    tables = sweep_tables(field, 2, ("greedy", "lateness", 0.0))
    assert sorted(p.name for table in tables for p in table if "lateness" not in p.name) == (
        sorted(field * 2)
    )  # each opponent at 2 tables: before and after the swept strategy
    assert len(tables) == 6 and all(len(table) == 2 for table in tables)
    assert len(sweep_tables(field, 4, ("greedy", "lateness", 0.0))) == 4  # 3 fit: one group
    wide = sweep(param="greedy:lateness=0", strategies=field, players=2, games=20)
    alone = sweep(param="greedy:lateness=0", strategies=["random"], players=2, games=20)
    assert wide["win_share"].iloc[0] < alone["win_share"].iloc[0]  # greedy and balanced too


def test_sweep_rule_cli_tables(tmp_path):
    plot = tmp_path / "ties.png"
    out = ok(
        cli("sweep", "--rule-values", "tie_break=seat,random", *FIELD, "--games", 30,
            "--plot", plot)
    )  # fmt: skip
    assert "Per value of tie_break and strategy (n: deals)" in out and "seat Balance" in out
    assert plot.exists() and plot.stat().st_size > 1000
    csv = ok(cli("sweep", "--rule-values", "days=2,3", *FIELD, "--games", 10, "--format", "csv"))
    assert csv.splitlines()[0].startswith("value,strategy,n,win_share")


def test_api_exports_return_dataframes():
    assert {"compare", "sweep", "tournament", "build_report", "tune"} <= set(sunset_sim.__all__)
    frame = sunset_sim.compare(["greedy", "random"], players=3, games=20, rules_b={"days": 3})
    assert isinstance(frame, pd.DataFrame)
    assert _row(frame, "game", "all games", "days_played")["b"] == 3
    result = sunset_sim.tournament(["greedy", "random"], players=3, games=10, rating_games=5)
    assert isinstance(result.standings, pd.DataFrame)


# --- bad input: exit 2, one line ----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["compare"], ["only one variant"]),
        (["compare", "--b-rule", "colour=red"], ["--b-rule", "colour"]),
        (["compare", "--a-rule", "days=99"], ["--a-rule", "days"]),
        (["compare", "--b-cards", "missing.toml"], ["--b-cards", "missing.toml"]),
        (["compare", "--b-rule", "days=4", "--alpha", "2"], ["--alpha"]),
        (["compare", "--b-rule", "days=4", "--games", "abc"], ["--games", "abc"]),
        (["compare", "--b-rule", "days=4", "--strategy", "nobody"], ["--strategy", "nobody"]),
        (["sweep"], ["--param", "--rule-values"]),
        (["sweep", "--param", "greedy:nope=1,2"], ["--param", "nope"]),
        (["sweep", "--param", "greedy:lateness=0,5"], ["--param", "lateness", "outside"]),
        (["sweep", "--param", "greedy:lateness=0,x"], ["--param", "not a number"]),
        (["sweep", "--param", "nobody:x=1"], ["--param", "nobody"]),
        (["sweep", "--rule-values", "colour=red,blue"], ["--rule-values", "colour"]),
        (["sweep", "--rule-values", "days=4,0"], ["--rule-values", "days"]),
        (["sweep", "--rule-values", "days=4", "--rule", "days=5"], ["--rule", "days"]),
        (["sweep", "--param", "greedy:lateness=1", "--players", "9"], ["--players"]),
        (["sweep", "--param", "greedy:lateness=1", "--format", "xml"], ["--format"]),
        (["sweep", "--param", "greedy:lateness=1", "--plot", "out.txt"], ["--plot"]),
    ],
)
def test_bad_input_is_one_line(args, needles, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    extra = ["--quiet"] if "--games" in args else ["--games", "5", "--quiet"]
    fails(cli(*args, *extra), *needles)


def test_bad_card_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[set]\nname = "x"\n', encoding="utf-8")
    fails(cli("compare", "--b-cards", bad, "--games", 5), "--b-cards", "bad.toml")
    fails(cli("sweep", "--rule-values", "days=3", "--cards", bad, "--games", 5), "bad.toml")


def test_ci_values_are_numbers():
    frame = compare(["greedy", "random"], players=3, games=30, rules_b="tie_break=seat")
    assert frame[["a", "b", "diff", "diff_ci_low", "diff_ci_high"]].notna().all().all()
    assert all(0 <= p <= 1 for p in frame["p_value"] if not math.isnan(p))


def test_deal_rate_ci_counts_the_games_of_each_deal():
    """A rate measured as one mean per deal: Wilson at the deals' effective number of
    games, which a deal's mean of several games makes more than the deals (the sweep took
    each deal as one trial: its win-share CIs were about twice too wide)."""
    from sunset_sim.analysis.stats import Z95, deal_rate_ci, mean_ci, proportion_ci

    rng = np.random.default_rng(3)
    per_deal = rng.binomial(4, 0.25, size=1000) / 4  # 4 independent games a deal
    p, low, high = deal_rate_ci(per_deal, 4)
    _, normal_low, normal_high, _ = mean_ci(per_deal)
    assert (high - low) == pytest.approx(normal_high - normal_low, rel=0.02)
    _, wilson_low, wilson_high = proportion_ci(per_deal.sum(), per_deal.size)
    assert (high - low) < 0.6 * (wilson_high - wilson_low)
    # never narrower than all the games taken as independent, nor zero-width at 0
    assert deal_rate_ci(np.full(50, 0.25), 4) == pytest.approx(proportion_ci(50.0, 200))
    p, low, high = deal_rate_ci(np.zeros(50), 4)
    assert p == 0.0 and low == 0.0 and high > 0.0
    assert high == pytest.approx(proportion_ci(0.0, 200)[2])
    assert Z95 > 1.95


def test_cluster_rate_ci_takes_a_deals_alike_games_as_one_trial():
    """A goal kept on a deal's four rotations by the last to move every time, or never:
    the four keeps are one trial, not four (the study's goal targets took each keep as
    independent: their CIs were too narrow)."""
    from sunset_sim.analysis.stats import cluster_rate_ci, proportion_ci

    trials = np.full(200, 4.0)
    alike = np.where(np.arange(200) % 2 == 0, 4.0, 0.0)
    assert cluster_rate_ci(alike, trials) == pytest.approx(proportion_ci(100.0, 200), rel=1e-3)
    independent = np.random.default_rng(5).binomial(4, 0.5, size=200).astype(float)
    p, low, high = cluster_rate_ci(independent, trials)
    wilson = proportion_ci(independent.sum(), 800)
    assert p == pytest.approx(wilson[0]) and (high - low) == pytest.approx(
        wilson[2] - wilson[1], rel=0.15
    )
    # unequal clusters: the ratio, and all trials where nothing varies
    assert cluster_rate_ci([1.0, 3.0], [1.0, 3.0]) == pytest.approx(proportion_ci(4.0, 4))
    assert np.isnan(cluster_rate_ci([], [])[0])


def test_sweep_win_share_ci_is_over_each_deals_games():
    """The audit: a sweep's win share 0.254 (0.228 to 0.282) on 1,000 deals where the
    same games' per-deal CI is +-0.012. A deal's seat-rotated games share its cards, so
    the interval is the per-deal one (Wilson at the effective number of games)."""
    from sunset_sim.analysis.stats import proportion_ci

    frame = sweep(
        rule="tie_break=random,seat", strategies=["greedy", "greedy-painter"], players=2,
        games=400,
    )  # fmt: skip
    for row in frame.itertuples():
        half = (row.win_share_ci_high - row.win_share_ci_low) / 2
        _, low, high = proportion_ci(row.win_share * row.n, row.n)  # a deal as one trial
        assert half < 0.9 * (high - low) / 2, row
        _, low, high = proportion_ci(row.win_share * 2 * row.n, 2 * row.n)  # 2 games a deal
        assert half >= 0.999 * (high - low) / 2, row  # never narrower than the games' own


def test_two_deals_give_no_verdict_and_no_share_beyond_its_range():
    """On 2 deals the normal intervals marked rows significant with p = 2.6e-55, zero-width
    intervals too, and a seat's win-share difference ran from -1.48 (Balance's to 1.24)."""
    from sunset_sim.analysis.stats import MIN_VERDICT_DEALS

    result = cli("compare", *FIELD, "--games", 2, "--b-rule", "days=4", "--format", "json")
    rows = json.loads(ok(result))["rows"]
    assert MIN_VERDICT_DEALS == 20 and not any(r["significant"] for r in rows)
    days = next(r for r in rows if r["metric"] == "days_played")
    assert days["p_value"] < 0.05  # what a verdict would have read
    for row in rows:
        if row["metric"] in ("win_share", "balance", "tie_rate", "early_end_rate"):
            assert -1.0 <= row["diff_ci_low"] <= row["diff_ci_high"] <= 1.0, row
    text = ok(cli("compare", *FIELD, "--games", 2, "--b-rule", "days=4"))
    assert "none with fewer than 20 deals (0 of" in text


def test_tune_gives_no_verdict_on_a_few_validation_deals(tmp_path):
    out = cli("tune", "balanced", "-n", 2, "--validation-games", 3, "--generations", 1,
              "--population", 3, "-p", 2, "-q", "-o", tmp_path / "t.json")  # fmt: skip
    assert "fewer than 20 deals, too few for a verdict" in ok(out)


def test_a_sweep_plot_joins_its_points_in_the_order_of_value():
    """--param balanced:earliness=2,0,1 joined 2 to 0 to 1, a line back across the plot."""
    frame = sweep("greedy:lateness=2,0,1", players=2, games=4)
    figure = sunset_sim.plot_sweep(frame)
    for axis in figure.axes[:2]:
        line = axis.lines[0]  # the errorbar's line through the points (then its caps)
        assert list(line.get_xdata()) == [0.0, 1.0, 2.0]


def test_a_table_a_param_sweep_does_not_have_is_refused_before_the_games(monkeypatch):
    """--table per_strategy on a parameter sweep was refused after every game was played
    (7 s of play, or a minute's compile first): now before any."""
    from sunset_sim.analysis import sweep as sweep_module

    def no_games(*args, **kwargs):
        raise AssertionError("the games were played")

    monkeypatch.setattr(sweep_module, "sweep", no_games)
    result = cli("sweep", "--param", "greedy:lateness=0,1", *FIELD, "--table", "per_strategy")
    fails(result, "--table: a parameter sweep has only per_value")


def test_a_compare_larger_than_free_memory_is_refused_before_its_games(monkeypatch):
    """compare reserved B's per-deal sums only after A's games: 60 million deals of four
    strategies played A for an hour, then asked for 13 GB more than the machine had.
    Both variants' sums are now counted against the free memory before any game."""

    monkeypatch.setattr(validation, "free_memory", lambda: 100_000)  # bytes
    with pytest.raises(sunset_sim.InputError, match="1,000 deals need about .* GiB for the two"):
        sunset_sim.compare(["greedy", "random"], players=2, games=1000, rules_b={"days": 4})
    monkeypatch.setattr(validation, "free_memory", lambda: None)  # (unknown: played)
    assert len(sunset_sim.compare(["greedy", "random"], players=2, games=20, rules_b={"days": 4}))


class _Played(Exception):
    """Raised by a stand-in for the games: the run got past its checks."""


@pytest.mark.parametrize(
    "kwargs", [{"rule": "days=4,5"}, {"param": "balanced:deny=0,1"}], ids=["rule", "param"]
)
def test_a_sweep_larger_than_free_memory_is_refused_before_its_games(monkeypatch, kwargs):
    """A tester's: `sweep -n 300000000` was taken (compare refuses it) and played on,
    its per-deal sums 27 GiB a value against 22.6 GiB free, toward the kill hours on.
    One value's sums, its strategies counted, now go against the free memory first."""

    def games(*args, **kwargs):
        raise _Played

    monkeypatch.setattr(sweep_module, "_play", games)
    field = {"strategies": ["greedy", "random"], "players": 2, "games": 1000, **kwargs}
    monkeypatch.setattr(validation, "free_memory", lambda: 100_000)  # bytes
    with pytest.raises(sunset_sim.InputError, match="1,000 deals need about .* GiB for each value"):
        sunset_sim.sweep(**field)
    # compare's sums for one variant: 8 bytes a deal for each seat, game metric and
    # strategy label (2 seats; greedy and random, and the swept balanced)
    labels = {"rule": 2, "param": 3}[next(iter(kwargs))]
    need = (
        1000 * 8 * (2 + len(whatif_module.GAME_METRICS) + len(whatif_module.PER_STRATEGY) * labels)
    )
    monkeypatch.setattr(validation, "free_memory", lambda: need)
    with pytest.raises(_Played):
        sunset_sim.sweep(**field)
    monkeypatch.setattr(validation, "free_memory", lambda: need - 1)
    with pytest.raises(sunset_sim.InputError, match="not enough memory"):
        sunset_sim.sweep(**field)


def test_sweep_messages_about_its_plot_name_plot(tmp_path, monkeypatch):
    """A tester's: a plot another run was writing said "choose another --out", and a plot
    folder removed during the games "path: sub is not a folder that exists" (the Python
    argument's name); sweep has neither: its option is --plot."""
    import fcntl
    import shutil

    monkeypatch.chdir(tmp_path)
    base = ["sweep", "--rule-values", "days=4,5", "-n", "5", "--players", "2", "--jobs", "1"]
    with open(tmp_path / ".held.png.writing", "w") as lock:  # (another run writing it)
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fails(
            cli(*base, "--plot", "held.png"), "held.png: another sunset-sim run", "another --plot"
        )
    (tmp_path / "sub").mkdir()
    real = sweep_module.sweep

    def folder_gone(*args, **kwargs):
        frame = real(*args, **kwargs)
        shutil.rmtree(tmp_path / "sub")  # (with the lock file beside the plot)
        return frame

    monkeypatch.setattr(sweep_module, "sweep", folder_gone)
    line = fails(cli(*base, "-q", "--plot", "sub/p.png"))
    assert line == "error: --plot: sub is not a folder that exists", line


def test_a_rate_at_one_end_on_both_sides_has_no_zero_width_difference():
    """A tester's: days=6 against days=4 printed early_end_rate "0.0000 (0.0000 to
    0.0000)": 0 of N against 0 of N, the paired t with no spread to go on, as if the
    difference were known. Where every deal's difference is 0, it now reaches as far as
    N deals with none can rule out (Wilson's bound for 0 of N, a deal moving a rate by at
    most 1, as the study's edits that changed no game); an A/A check keeps 0 to 0 (the
    same games). A mean (fame, days played) is bounded so too, a deal moving it by at
    most its largest value seen (at least a point): a tester's random at 6.25 fame on
    both sides of 20 deals read "0 (0 to 0), p = 1" where 4,000 deals found +0.06."""
    from sunset_sim.analysis.stats import rate_floor_bounds

    zeros = np.zeros(50)
    low, high = rate_floor_bounds(zeros, zeros, 0.0, 0.0)
    wilson_high = 1.959963984540054**2 / (50 + 1.959963984540054**2)  # 0 of 50
    assert (low, high) == pytest.approx((-wilson_high, wilson_high))
    assert rate_floor_bounds(zeros + 1, zeros + 1, 0.0, 0.0) == pytest.approx((low, high))
    spread = np.r_[np.zeros(49), 0.5]  # (the same games on every deal, not at an end)
    assert rate_floor_bounds(spread, spread, 0.0, 0.0) == pytest.approx((low, high))
    assert rate_floor_bounds(zeros, zeros + 1, 1.0, 1.0) == (1.0, 1.0)  # a difference
    assert rate_floor_bounds(spread, zeros, -0.01, 0.02) == (-0.01, 0.02)
    frame = compare(["greedy", "random"], players=2, games=30, rules_b={"days": 4})
    early = _row(frame, "game", "all games", "early_end_rate")
    assert early["a"] == early["b"] == early["diff"] == 0.0
    assert early["diff_ci_low"] < 0 < early["diff_ci_high"] and early["p_value"] == 1
    with pytest.warns(SameVariantWarning):
        same = compare(["greedy", "random"], players=2, games=30, rules_b={"days": 6})
    early = _row(same, "game", "all games", "early_end_rate")
    assert early["diff_ci_low"] == early["diff_ci_high"] == 0.0
    assert rate_floor_bounds(zeros + 6, zeros + 6, 0.0, 0.0, mean=True) == pytest.approx(
        (6 * low, 6 * high)
    )
    fame = compare(["greedy", "random"], players=2, games=20, seed=5, cards_b=_c30_at_40())
    random = _row(fame, "strategy", "random", "mean_fame")
    assert random["a"] == random["b"] and random["diff"] == 0.0 and random["p_value"] == 1
    wilson = 1.959963984540054**2 / (20 + 1.959963984540054**2)  # 0 of 20 deals
    # (a deal's mean fame of 6 or more: the bound is that many times Wilson's)
    assert random["diff_ci_high"] == -random["diff_ci_low"] > 6 * wilson
    same_fame = _row(same, "strategy", "random", "mean_fame")
    assert same_fame["diff_ci_low"] == same_fame["diff_ci_high"] == 0.0  # (A/A: 0 to 0)


def _c30_at_40():
    """The packaged set with C30's fame raised from 8 to 40: a commission random sells
    too rarely for 20 deals to show it."""
    from sunset_sim.cards.edit import edit_card
    from sunset_sim.cards.loader import load_cards

    return edit_card(load_cards(), "C30", "fame", 32)
