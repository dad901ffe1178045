"""The report on card sets and results at the edges of what is allowed: more than 64 cards
of a kind (docs/cards.md allows up to 1,000 per section), and results whose values a game
cannot produce."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sunset_sim
import sunset_sim.cards
from sunset_sim.analysis.report import build_report

DEFAULT_TOML = (Path(sunset_sim.cards.__file__).parent / "default.toml").read_text(encoding="utf-8")


def test_a_set_of_more_than_64_plan_cards_is_reported(tmp_path):
    """The plan-card section kept which cards a seat chose in one 64-bit word: a 65th card
    was an IndexError (a traceback from `report`)."""
    extra = "".join(
        f'\n[[plan]]\nid = "X{i:02d}"\nwake = "7:00"\ndirections = "all"\nhike = 1\npaint = 1\n'
        for i in range(57)
    )
    path = tmp_path / "plans65.toml"
    path.write_text(DEFAULT_TOML + extra, encoding="utf-8")
    cards = sunset_sim.load_cards(path)
    assert len(cards.plans) == 65
    frame = sunset_sim.simulate(
        games=200, players=2, strategies=["greedy", "random"], cards=cards, seed=3, jobs=1
    )
    table = build_report(frame, cards).tables["plan_cards"].set_index("plan")
    assert len(table) == 65
    days = int(frame["days_played"].max())
    for plan in ("X56", "P1"):  # the 65th card, and the first
        chose = np.zeros(len(frame), dtype=bool)
        for day in range(1, days + 1):
            column = frame[f"plan_day{day}"].astype(str).to_numpy()
            chose |= (column == plan) & (frame["days_played"].to_numpy() >= day)
        assert chose.any()
        assert table.loc[plan, "win_when_chosen"] == pytest.approx(
            frame["win_share"].to_numpy()[chose].mean()
        )


@pytest.fixture(scope="module")
def played():
    """3 players, sorted by game and seat as the checks read them."""
    frame = sunset_sim.simulate(
        games=200, players=3, strategies=["greedy", "random", "balanced"], seed=4, jobs=1
    )
    assert (frame["days_played"] == 6).all()
    return frame


def _game(frame, game=5):
    return frame["game"] == game


def _kept_by_two(frame):
    rows = frame.index[_game(frame)][:2]
    frame.loc[rows, "goal_day2"] = 4
    frame.loc[rows, "goals_won"] += 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda f: f.__setitem__("goal_card_day1", f["goal_card_day1"].where(~_game(f), 99)),
            "column 'goal_card_day1': not one goal card of the set's 7",
        ),
        (
            lambda f: f.__setitem__("goal_day1", f["goal_day1"].where(~_game(f), 100)),
            "column 'goal_day1': a bit that is no goal flag",
        ),
        (_kept_by_two, "column 'goal_day2': a day's goal kept by two seats"),
        (  # (R-SET-3; a tester's: the goals table shifted one count to another card)
            lambda f: f.__setitem__(
                "goal_card_day2", f["goal_card_day2"].where(~_game(f), f["goal_card_day1"])
            ),
            "column 'goal_card_day2': a goal card shown on an earlier day of the game too",
        ),
        (
            lambda f: f.__setitem__("painted_day1", f["painted_day1"].where(~_game(f), 100)),
            "column 'painted_day1': no plan card paints more than 3",
        ),
        (
            lambda f: f.__setitem__("fame_day6", f["fame_day6"].where(~_game(f), 1000)),
            "column 'fame': not what the fame_day\\* columns give",
        ),
        (  # (a middle day: only the last was checked, against fame)
            lambda f: f.__setitem__("fame_day3", f["fame_day3"].where(~_game(f), 30000)),
            "column 'fame_day3': 30000 is not a fame the seat can have then",
        ),
        (
            lambda f: f.__setitem__("fame_day1", f["fame_day1"].where(~_game(f), 95)),
            "column 'fame_day1': 95 is not a fame the seat can have then",
        ),
        (
            lambda f: f.__setitem__("days_played", f["days_played"].where(~_game(f), 5)),
            "column 'fame_day6': -1 is for a day not played",
        ),
        (
            lambda f: f.__setitem__(
                "end_reason", f["end_reason"].astype(str).where(~_game(f), "commission-shortage")
            ),
            "column 'end_reason': 'days' exactly when the game played its last day",
        ),
        (
            lambda f: f.__setitem__("cards_painted", f["cards_painted"].where(~_game(f), 9999)),
            "column 'cards_painted': not what the painted_day\\* columns give",
        ),
        (  # (README: nothing empty but a plan after an early end)
            lambda f: f.__setitem__("plan_day3", f["plan_day3"].where(~_game(f), None)),
            "column 'plan_day3': empty exactly on a day not played",
        ),
        (  # (a landscape painted twice, back from the discard pile, counts once)
            lambda f: f.__setitem__("painted_0", f["painted_0"].where(~_game(f), 0)),
            "column 'painted_0': not the landscapes of the cards_painted it counts",
        ),
        (  # (R-SELL-2: one painting a frame; only its range was checked)
            lambda f: f.__setitem__("paintings_sold", f["paintings_sold"].where(~_game(f), 99)),
            "column 'paintings_sold': not the frames of the commissions completed",
        ),
        (
            lambda f: f.__setitem__("goals_won", f["goals_won"].where(~_game(f), 50)),
            "column 'goals_won': not what the goal_day\\* columns give",
        ),
    ],
)
def test_values_no_game_can_produce_are_refused(played, edit, message):
    """Each of these edits, inside its column's range, was reported as played (a goal card
    past the set dropped its game from the goals table; a day's fame moved the lead)."""
    from sunset_sim.analysis.report import ReportInputError

    frame = played.copy()
    build_report(frame)  # as played: no complaint
    edit(frame)
    with pytest.raises(ReportInputError, match=f"results: game 5, seat ., {message}"):
        build_report(frame)


def test_whole_numbers_written_as_decimals_are_read_exactly_or_refused_in_one_line():
    """A `game` column of text "5.0" was an int() error naming no file, row or column; a
    bitmask column read as floats (one CSV cell "5.0") lost its bits past 2**53."""
    from sunset_sim.result_rows import check_rows
    from sunset_sim.validation import InputError

    frame = sunset_sim.simulate(games=20, players=2, strategies=["greedy"], seed=2, jobs=1)
    expected = frame.copy()
    text = frame.copy()
    text["game"] = [f"{g}.0" for g in frame["game"]]
    text["available_0"] = [f"{w}" for w in frame["available_0"]]
    text.loc[3, "available_0"] = f"{frame['available_0'][3]}.0"
    checked = check_rows(text.copy(), "t.csv", 2)
    assert (checked["game"].to_numpy() == expected["game"].to_numpy()).all()
    assert (checked["available_0"].to_numpy() == expected["available_0"].to_numpy()).all()
    text.loc[5, "game"] = "2.5"
    with pytest.raises(InputError, match=r"^t.csv: row 6, column 'game': '2.5' is not a whole"):
        check_rows(text, "t.csv", 2)
    floats = frame.copy()
    floats["available_0"] = floats["available_0"].astype(np.float64)
    big = int(np.flatnonzero(floats["available_0"] >= 2**53)[0])
    with pytest.raises(InputError, match=rf"row {big + 1}, column 'available_0': .* inexact"):
        check_rows(floats, "t.csv", 2)


def test_games_of_another_card_set_are_refused_by_their_fame(tmp_path):
    """Rows with no card set recorded (a CSV without its sidecar, a frame from Python)
    were reported on whatever set was given, or the packaged one: a commission's fame
    printed at 9 for games played at 1. The commissions completed and the goals kept
    must add up to the fame the rows record; and simulate's frame now records its set."""
    from sunset_sim.analysis.report import ReportInputError

    richer = DEFAULT_TOML.replace('id = "C01"\nfame = 1 ', 'id = "C01"\nfame = 9 ', 1)
    richer = richer.replace('id = "G1"\nfame = 2', 'id = "G1"\nfame = 5', 1)
    path = tmp_path / "richer.toml"
    path.write_text(richer, encoding="utf-8")
    rich = sunset_sim.load_cards(path)
    assert (rich.commissions[0].fame, rich.goals[0].fame) == (9, 5)
    frame = sunset_sim.simulate(games=400, players=2, strategies=["random"], cards=rich, seed=1)
    c01 = build_report(frame).tables["commissions"].set_index("commission").loc["C01"]
    assert c01["fame"] == 9  # the recorded set, not the packaged one
    frame.attrs.clear()  # as a file without its card set
    with pytest.raises(ReportInputError, match="column 'fame_commissions': not the fame of"):
        build_report(frame)
    build_report(frame, rich)
    without_commissions = frame.drop(columns=["fame_commissions"])
    with pytest.raises(ReportInputError, match="column 'fame_goals': not the fame of the goals"):
        build_report(without_commissions)


def test_the_report_says_which_rule_options_its_games_were_played_under(tmp_path):
    """A report under tie_break=seat (an OPTION the report can compare) did not say so."""
    from conftest import cli, ok

    ok(cli("report", "--games", 60, "--players", 2, "--rule", "tie_break=seat", "--rule",
           "days=5", "--out", tmp_path / "r", "--quiet"))  # fmt: skip
    header = (tmp_path / "r" / "report.md").read_text(encoding="utf-8").splitlines()[2]
    assert "rules tie_break=seat, days=5" in header


def test_a_one_game_report_says_one_game(tmp_path):
    """ "1 games" in the header, the source and the Balance caveat."""
    from conftest import cli, ok

    ok(cli("report", "--games", 1, "--study-games", 0, "--out", tmp_path / "r", "--quiet"))
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "1 games" not in text
    assert text.splitlines()[2].startswith("1 game, 4 players")
    assert "1 game played now" in text and "too few samples (1 game, fewer than" in text


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_column_written_twice_is_refused(played, tmp_path, suffix):
    """A CSV whose fame_goals header was renamed fame_paintings (written twice) gave a
    report with the goals' fame read as the paintings', exit 0 (pandas renames the second
    fame_paintings.1); the same in Parquet was a traceback."""
    from sunset_sim.analysis.report.files import read_results
    from sunset_sim.analysis.report.model import ReportInputError

    path = tmp_path / f"r{suffix}"
    renamed = played.rename(columns={"fame_goals": "fame_paintings"})
    if suffix == ".csv":
        renamed.to_csv(path, index=False)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_arrays(
            [pa.array(renamed.iloc[:, i].astype(str)) for i in range(renamed.shape[1])],
            names=list(renamed.columns),
        ), path)  # fmt: skip
    with pytest.raises(ReportInputError, match="column 'fame_paintings' appears twice"):
        read_results(path)
    played.to_csv(path.with_suffix(".bom.csv"), index=False, encoding="utf-8-sig")
    assert len(read_results(path.with_suffix(".bom.csv"))[0]) == len(played)  # a BOM is fine
    # a spreadsheet's empty trailing columns (",," at each line's end) are not repeats
    trailing = path.with_suffix(".trailing.csv")
    lines = played.to_csv(index=False).splitlines()
    trailing.write_text("".join(f"{line},,\n" for line in lines), encoding="utf-8")
    assert len(read_results(trailing)[0]) == len(played)


def test_an_effect_on_a_small_smaller_group_is_shown_but_not_ranked(played):
    """Issue 12: an effect whose smaller group is under --min-group is never ranked (a
    2-player report ranked first a plan card whose effect rested on 35 seats)."""
    plans = build_report(played, min_samples=5, min_group=1).tables["plan_cards"]
    sizes = plans.loc[plans["rank"].notna(), "n_smaller"].astype(int)
    assert sizes.nunique() > 1
    min_group = int(sizes.max())  # the ranked effects under it lose their rank, one keeps it
    report = build_report(played, min_samples=5, min_group=min_group)
    checked = 0
    for name, table in report.tables.items():
        if "rank" not in table or "n_smaller" not in table:
            continue
        small = table["n_smaller"].astype(float).fillna(-1) < min_group
        assert table.loc[small, "rank"].isna().all(), name
        ranked = table[table["rank"].notna()]
        by = table.attrs["rank_by"]
        assert (ranked.sort_values("rank")[by].diff().dropna() <= 0).all(), name
        expected = ranked[by].rank(ascending=False, method="min").astype(int)
        assert ranked["rank"].astype(int).tolist() == expected.tolist(), name
        checked += int(small.any() and not ranked.empty)
    assert checked >= 1
    assert plans["rank"].notna().sum() > report.tables["plan_cards"]["rank"].notna().sum()
