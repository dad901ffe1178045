"""The ``sunset-sim`` command line: output, files, exit codes, and one-line errors.

Every bad input must end with exit code 2 and exactly one line on stderr naming the
problem, never a traceback. Most cases run in-process with click's CliRunner; a few run
the real console script in a subprocess, where a traceback would actually be printed.
"""

from __future__ import annotations

import io
import json
import sys

import pandas as pd
import pytest
from conftest import cli, fails, ok, run_process

from sunset_sim.cards.loader import default_cards_text
from sunset_sim.strategy import registry

SIMULATE = ["simulate", "--games", "200", "--players", "4", "--strategy", "greedy"]
SIMULATE += ["--strategy", "random", "--seed", "3", "--quiet"]
SEAT_COLUMNS = ["game", "seat", "strategy", "fame", "fame_commissions", "fame_goals"]
SEAT_COLUMNS += ["fame_paintings", "win_share", "won", "n_winners", "end_reason", "days_played"]
SEAT_COLUMNS += [f"plan_day{d}" for d in range(1, 7)] + [f"turn_day{d}" for d in range(1, 7)]
SEAT_COLUMNS += ["painted_0"]


# ---------------------------------------------------------------- cards and strategies


@pytest.mark.parametrize("option", ["--rule", "--a-rule", "--b-rule"])
def test_a_rule_given_twice_is_refused(option):
    """Which value was meant is ambiguous: one line naming the option and the key (the
    last one silently won: compare --b-rule days=5 --b-rule days=4 played 4 days)."""
    variant = [] if option == "--b-rule" else ["--b-rule", "tie_break=seat"]
    args = ["--games", "10", "--quiet", *variant, option, "days=5", option, "days=4"]
    line = fails(cli("compare", *args))
    assert line == f"error: {option}: rule option 'days' is given more than once", line


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--b-rule", "days=4", "--games", "2", "--games=3"],
        ["compare", "--b-rule", "days=4", "--a-cards", "missing.toml", "--a-cards", "x.toml"],
        ["simulate", "-n", "2", "--seed", "1", "-s", "2"],
        ["tournament", "-n", "2", "--table", "by_seat", "--table", "head_to_head"],
    ],
)
def test_an_option_of_one_value_given_twice_is_refused(args):
    """click took the last one without a word (compare played 3 deals; a --cards file
    given first was never opened); which was meant is ambiguous, as for a rule key."""
    line = fails(cli(*args, "--quiet"))
    assert f" {args[0]}: " in line and "given 2 times; give it once" in line


def test_a_compare_base_neither_variant_plays_is_refused(tmp_path):
    """--cards beside --a-cards and --b-cards was never even opened (a missing file ran,
    exit 0); a --rule key both variants set was played by neither."""

    own = tmp_path / "mine.toml"
    own.write_text(default_cards_text(), "utf-8")
    args = ["compare", "--games", "2", "--quiet", "--cards", tmp_path / "missing.toml"]
    fails(cli(*args, "--a-cards", own, "--b-cards", own), "--cards: --a-cards and --b-cards")
    args = ["compare", "--games", "2", "--quiet", "--rule", "days=5"]
    fails(cli(*args, "--a-rule", "days=4", "--b-rule", "days=3"), "--rule: days is set by both")
    ok(cli(*args, "--b-rule", "days=3"))


@pytest.mark.parametrize("tail", ["/", "/."])
@pytest.mark.parametrize("args", [["tune", "balanced", "--out"], ["play", "--record"]])
def test_a_file_output_naming_a_folder_is_refused(tmp_path, args, tail):
    """tune --out y.json/ (or y.json/.) wrote the file y.json: it names a folder."""
    target = f"{tmp_path / 'y.json'}{tail}"
    fails(cli(*args, target, "--quiet"), f"{target}: names a folder; give a file")
    assert not (tmp_path / "y.json").exists()


def test_an_empty_scheduler_is_refused_not_taken_for_none():
    fails(cli("simulate", "-n", "2", "-q", "--scheduler", " "), "--scheduler: empty;")


def test_force_without_an_output_is_refused():
    args = ["sweep", "--param", "greedy:lateness=0.3,1", "-n", "2", "-q", "--force"]
    fails(cli(*args), "--force: overwrites the --plot file; give --plot too")
    fails(cli("simulate", "-n", "2", "-q", "--force"), "--force: overwrites the --out file")
    fails(cli("simulate", "-n", "2", "-q", "--force", "--out", "-"), "--force: overwrites")


@pytest.mark.parametrize(
    "args",
    [
        ["report", "-n", "20", "--jobs", "1", "--title", "--games"],  # the title's value
        ["report", "-n", "20", "--jobs", "1", "--title", "-n"],
    ],
)
def test_a_value_that_looks_like_an_option_is_not_counted_as_one(tmp_path, args):
    """click reads --title --games as the title "--games": the repeat check counted it as
    --games given twice and refused a command that had worked."""
    ok(cli(*args, "--out", tmp_path / "r", "--quiet"))


def test_attached_short_values_and_help_are_read_as_click_reads_them():
    fails(cli("simulate", "-n2", "-n3", "-q"), "--games: given 2 times")
    assert "Usage:" in ok(cli("simulate", "-n", "1", "-n", "2", "--help"))


def test_flags_and_repeatable_options_may_be_given_again():
    ok(cli("simulate", "-n", "2", "-q", "--quiet", "--strategy", "greedy", "--strategy", "random"))


def test_a_rule_number_with_a_sign_is_read_as_the_readme_says():
    """--b-rule days=+6 was refused ("'+6' is not a whole number"), where every other
    number may carry a sign."""
    from sunset_sim.rules.options import Rules

    assert Rules.parse(["days=+4"]).days == 4
    assert "days: -4 is not a whole number" in fails(cli("simulate", "--rule", "days=-4"))


@pytest.mark.parametrize(
    ("args", "prefix"),
    [
        (("simulate", "--rule", "days=7"), "error: rule days=7: "),
        (("sweep", "--rule-values", "days=5,6,7"), "error: --rule-values days=7: "),
        (("compare", "--b-rule", "days=9"), "error: --b-rule days=9: "),
        (("compare", "--rule", "days=8", "--b-rule", "tie_break=seat"), "error: --rule days=8: "),
    ],
)
def test_too_many_days_for_the_plan_deck_names_the_rule(args, prefix):
    """More days than the set's plan deck allows (R-PLAN-3: days + 2 cards) is the days
    option's doing: the line names the option that set it and the most days the set
    plays, not a fault of the (packaged, untouched) card set or of --cards."""
    line = fails(cli(*args, "--games", "10", "--quiet"))
    assert line.startswith(prefix), line
    assert "<default> has 8 plan cards, enough for at most 6 days" in line
    assert "--cards" not in line


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_a_bad_card_set_is_one_line(bad_cards, command):
    line = fails(
        cli(command, "--cards", bad_cards, "--games" if command == "simulate" else "--seed", "1")
    )
    assert "unknown feature 'mountian'" in line
    assert f"(and 1 more: run `sunset-sim cards --cards {bad_cards}`)" in line


def test_strategies_lists_names_and_parameters():
    out = ok(cli("strategies"))
    lines = out.splitlines()
    for name, spec in registry().items():
        assert name in lines
        for parameter in spec.parameters:
            assert any(
                line.strip().startswith(f"{parameter.name} = {parameter.default:g}  (range ")
                for line in lines
            ), parameter.name
    assert {"random", "greedy"} <= {line for line in lines if not line.startswith(" ")}
    assert "lateness = " in out


def test_shared_helpers_are_importable_from_cli():
    import sunset_sim.cli
    import sunset_sim.cli_common

    assert set(sunset_sim.cli_common.__all__) < set(sunset_sim.cli.__all__)
    for name in sunset_sim.cli.__all__:
        assert hasattr(sunset_sim.cli, name), name


def test_help_and_version():
    out = ok(cli("--help"))
    for command in ("simulate", "play", "replay", "cards", "strategies"):
        assert command in out
    assert "version" in ok(cli("--version")).lower()


def test_help_mentions_only_options_the_command_has():
    """A command's --help names --table only where the command has it (report, simulate
    and tune print one table; their --format help once pointed at a --table they lack)."""
    from sunset_sim.cli import _leaf_commands, main

    for command in _leaf_commands(main):
        flags = {flag for p in command.params for flag in getattr(p, "opts", [])}
        text = " ".join(str(getattr(p, "help", "") or "") for p in command.params) + str(
            command.help or ""
        )
        for flag in ("--table",):
            assert flag not in text or flag in flags, (command.name, flag)


@pytest.mark.parametrize("group", [(), ("cache",)])
def test_a_group_alone_prints_its_help(group):
    """`sunset-sim` alone (the first thing a newcomer types) and `sunset-sim cache` print
    their help as --help does, not one squeezed error line."""
    out = ok(cli(*group))
    assert out == ok(cli(*group, "--help"))
    assert out.startswith("Usage: ") and len(out.splitlines()) > 5  # (prog name: the runner's)


# ---------------------------------------------------------------- simulate


@pytest.fixture(scope="module")
def parquet_run(files):
    path = files / "a.parquet"
    return ok(cli(*SIMULATE, "--out", path)), path


@pytest.fixture(scope="module")
def frame(parquet_run) -> pd.DataFrame:
    return pd.read_parquet(parquet_run[1])


@pytest.fixture(scope="module")
def json_table() -> pd.DataFrame:
    out = ok(cli(*SIMULATE, "--format", "json"))
    return pd.DataFrame(json.loads(out)["strategies"])


def test_simulate_prints_a_table(parquet_run):
    out, path = parquet_run
    lines = out.splitlines()
    header = lines[0].split()
    assert header[:3] == ["strategy", "n", "win_share"]
    for column in (
        "win_share_ci_low",
        "win_share_ci_high",
        "mean_fame",
        "mean_fame_ci_low",
        "mean_fame_ci_high",
    ):
        assert column in header
    rows = {line.split()[0]: line.split() for line in lines[1:3]}
    assert set(rows) == {"greedy", "random"}
    assert all(row[1] == "400" for row in rows.values())
    assert lines[3].startswith("200 games, 4 players; tied games ")
    assert len(lines) == 4  # "results written to" is a status line: stderr


def test_simulate_table_win_shares_add_up(json_table):
    table = json_table
    assert set(table["strategy"]) == {"greedy", "random"}
    assert table["n"].sum() == 200 * 4
    # each game's win shares sum to 1, so the n-weighted mean share is 1 / players
    weighted = (table["win_share"] * table["n"]).sum() / table["n"].sum()
    assert abs(weighted - 1 / 4) < 1e-9
    assert abs((table["win_share"] * table["n"] / 200).sum() - 1) < 1e-9
    assert (table["win_share_ci_low"] <= table["win_share"] + 1e-12).all()
    assert (table["win_share"] <= table["win_share_ci_high"] + 1e-12).all()
    assert (table["mean_fame_ci_low"] < table["mean_fame"]).all()
    assert (table["mean_fame"] < table["mean_fame_ci_high"]).all()


def test_one_game_gives_a_mean_fame_without_an_interval():
    """One game has no spread: "28 (28 to 28)" claimed certainty; tournament and sweep
    already gave no interval there."""
    result = cli("simulate", "--games", "1", "--players", "2", "--strategy", "greedy",
                 "--strategy", "random", "--jobs", "1", "--format", "json")  # fmt: skip
    rows = json.loads(ok(result))["strategies"]
    assert [row["n"] for row in rows] == [1, 1]
    assert all(row["mean_fame_ci_low"] is None and row["mean_fame_ci_high"] is None for row in rows)
    assert all(row["win_share_ci_high"] > row["win_share_ci_low"] for row in rows)  # (Wilson's)


def test_simulate_table_matches_the_rows(json_table, frame):
    by_strategy = frame.groupby("strategy", observed=True)
    for row in json_table.itertuples():
        assert by_strategy.size()[row.strategy] == row.n
        assert abs(by_strategy["win_share"].mean()[row.strategy] - row.win_share) < 1e-9
        assert abs(by_strategy["fame"].mean()[row.strategy] - row.mean_fame) < 1e-9


def test_simulate_csv_table_parses(json_table):
    out = ok(cli(*SIMULATE, "--format", "csv"))
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == list(json_table.columns)
    pd.testing.assert_frame_equal(table, json_table, check_dtype=False, atol=1e-12)


def test_simulate_writes_one_row_per_game_and_seat(frame):
    assert len(frame) == 200 * 4
    assert set(SEAT_COLUMNS) <= set(frame.columns), set(SEAT_COLUMNS) - set(frame.columns)
    keys = sorted(zip(frame["game"], frame["seat"], strict=True))
    assert keys == [(g, s) for g in range(200) for s in range(4)]
    strategies = frame.groupby("seat")["strategy"].agg(lambda x: set(map(str, x)))
    assert [strategies[s] for s in range(4)] == [{"greedy"}, {"random"}] * 2
    games = frame.groupby("game")
    assert (abs(games["win_share"].sum() - 1) < 1e-9).all()
    assert (games["won"].sum() == games["n_winners"].first()).all()
    assert (frame["won"] == (frame["win_share"] > 0)).all()
    parts = frame["fame_commissions"] + frame["fame_goals"] + frame["fame_paintings"]
    assert (parts == frame["fame"]).all()
    assert set(map(str, frame["end_reason"])) <= {"days", "commission-shortage"}
    assert ((frame["days_played"] == 6) | (frame["end_reason"] != "days")).all()
    plans = {str(p) for d in range(1, 7) for p in frame[f"plan_day{d}"].dropna()}
    assert plans <= {f"P{i}" for i in range(1, 9)}
    assert frame[[f"turn_day{d}" for d in range(1, 7)]].isin(range(-1, 4)).all().all()


def test_simulate_csv_output_has_the_same_rows(files, frame):
    path = files / "a.csv"
    ok(cli(*SIMULATE, "--out", path))
    rows = pd.read_csv(path)
    assert len(rows) == 200 * 4
    assert set(SEAT_COLUMNS) <= set(rows.columns)
    for column in ("game", "seat", "fame", "fame_goals", "n_winners", "painted_0"):
        assert (rows[column].to_numpy() == frame[column].to_numpy()).all(), column
    assert (abs(rows["win_share"] - frame["win_share"]) < 1e-12).all()
    assert list(rows["strategy"]) == list(map(str, frame["strategy"]))


def test_simulate_same_seed_same_file(files, parquet_run):
    path = files / "again.parquet"
    ok(cli(*SIMULATE, "--out", path))
    pd.testing.assert_frame_equal(pd.read_parquet(path), pd.read_parquet(parquet_run[1]))
    assert path.read_bytes() == parquet_run[1].read_bytes()


def test_simulate_another_seed_other_games(files, frame):
    path = files / "seed4.parquet"
    args = [a if a != "3" else "4" for a in SIMULATE]
    ok(cli(*args, "--out", path))
    assert not pd.read_parquet(path)["fame"].equals(frame["fame"])


@pytest.mark.parametrize(
    "extra", [["--jobs", "1"], ["--jobs", "2"], ["--chunk-size", "37"]], ids=lambda x: "".join(x)
)
def test_simulate_does_not_depend_on_jobs_or_chunks(files, frame, extra):
    path = files / f"run{''.join(extra)}.parquet"
    ok(cli(*SIMULATE, *extra, "--out", path))
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)


def test_simulate_refuses_to_overwrite_without_force(files, parquet_run):
    path = files / "keep.parquet"
    path.write_bytes(b"precious")
    result = cli(*SIMULATE, "--out", path)
    fails(result, str(path), "already exists", "--force")
    assert result.stdout == ""
    assert path.read_bytes() == b"precious"
    ok(cli(*SIMULATE, "--out", path, "--force"))
    assert path.read_bytes() == parquet_run[1].read_bytes()


def test_simulate_with_rule_options():
    out = ok(cli("simulate", "--games", "30", "--players", "3", "--rule", "tie_break=seat"))
    assert "30 games, 3 players" in out
    out = ok(cli("simulate", "--games", "30", "--rule", "days=3", "--format", "json", "--quiet"))
    assert json.loads(out)["strategies"][0]["n"] == 30 * 4


@pytest.mark.parametrize("table_format", ["csv", "json"])
def test_simulate_machine_readable_table_without_quiet(table_format):
    out = ok(cli("simulate", "--games", "30", "--format", table_format))
    if table_format == "csv":
        assert out.splitlines()[0].startswith("strategy,n,win_share")
    else:
        assert json.loads(out)["strategies"][0]["n"] == 30 * 4


BAD_SIMULATE = [
    (["--players", "5"], "--players: 5 is outside 2 to 4"),
    (["--players", "1"], "--players: 1 is outside 2 to 4"),
    (["--games", "0"], "--games: 0 is not a positive number of games"),
    (["--games", "-3"], "--games: -3 is not a positive number of games"),
    (["--strategy", "nosuch"], "--strategy: unknown strategy 'nosuch' (known: "),
    (["--strategy", "greedy:nosuch=1"], "unknown parameter 'nosuch'"),
    (["--strategy", "greedy:lateness=abc"], "lateness='abc' is not a number"),
    # Python's float() and int() read these as 1, 10 and 3: ASCII digits only here
    (["--strategy", "greedy:lateness=0_1"], "lateness='0_1' is not a number"),
    (["--strategy", "greedy:lateness=１"], "lateness='１' is not a number"),
    (["--players", "1_0"], "'1_0' is not a whole number"),
    (["--games", "٣"], "'٣' is not a whole number"),
    (["--jobs", "1_0"], "'1_0' is not a whole number"),
    (["--strategy", "greedy:lateness=5"], "outside"),
    (["--strategy", "greedy:lateness"], "not of the form key=value"),
    (["--rule", "tie_break=alphabetical"], "--rule: tie_break: 'alphabetical' is not one of"),
    (["--rule", "nosuch=1"], "--rule: unknown rule option 'nosuch'"),
    (["--rule", "days=0"], "--rule: days"),
    (["--rule", "days"], "not of the form key=value"),
    (
        ["--rule", "days=5", "--rule", "days=6"],
        "--rule: rule option 'days' is given more than once",
    ),
    (["--rule", "tie-break=seat", "--rule", "tie_break=seat"], "'tie_break' is given more than"),
    (["--out", "/nonexistent-dir/x.parquet"], "folder /nonexistent-dir does not exist"),
    (["--out", "{tmp}/x.txt"], "the output must end in .parquet or .csv"),
    (["--jobs", "-1"], "--jobs"),
    (["--chunk-size", "0"], "--chunk-size"),
    (["--seed", "-1"], "--seed"),
]


@pytest.mark.parametrize(
    "args, needle", BAD_SIMULATE, ids=lambda x: " ".join(x) if isinstance(x, list) else ""
)
def test_simulate_bad_arguments(tmp_path, args, needle):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    games = [] if "--games" in args else ["--games", "10"]  # (once: given twice is refused)
    result = cli("simulate", *games, "--quiet", *args)
    fails(result, needle)
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_unknown_strategy_message_lists_every_strategy():
    line = fails(cli("simulate", "--strategy", "nosuch"))
    for name in registry():
        assert name in line


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--players", "5"], "--players: 5 is outside 2 to 4"),
        (["--players", "1"], "--players: 1 is outside 2 to 4"),
        (["--strategy", "nosuch"], "unknown strategy 'nosuch'"),
        (["--strategy", "greedy:lateness=abc"], "is not a number"),
        (["--rule", "tie_break=alphabetical"], "tie_break"),
        (["--rule", "nosuch=1"], "unknown rule option 'nosuch'"),
        (["--seed", "-1"], "must not be negative"),
    ],
)
def test_play_bad_arguments(args, needle):
    result = cli("play", *args)
    fails(result, needle)
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--players", "5"],
        ["play", "--strategy", "nosuch"],
        ["simulate", "--out", "/x/y.txt"],
    ],
)
def test_errors_in_a_real_process_are_one_line(args):
    process = run_process(*args)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert len(process.stderr.splitlines()) == 1
    assert process.stderr.startswith("error: ")
    assert process.stdout == ""


def test_more_strategies_than_seats_is_refused_not_dropped():
    """simulate seats the strategies in order; the ones past the last seat were dropped
    without a word (tournament and report rotate a larger field instead)."""
    import sunset_sim
    from sunset_sim.validation import InputError

    args = ("simulate", "--games", "5", "--players", "2", "--quiet")
    line = fails(
        cli(*args, "--strategy", "greedy", "--strategy", "random", "--strategy", "balanced")
    )
    assert "--strategy: 3 strategies for 2 seats" in line
    with pytest.raises(InputError, match="strategies: 3 strategies for 2 seats"):
        sunset_sim.simulate(games=5, players=2, strategies=["greedy", "random", "balanced"])


def test_one_game_gives_mean_fame_no_interval_even_over_two_seats():
    """greedy in two seats of one game read 25.5 (14.72 to 36.28): its two seats taken as
    a sample, where the README says a mean of one game has no interval."""
    result = cli("simulate", "--games", 1, "--jobs", 1, "-q", "--format", "json",
                 "--strategy", "greedy", "--strategy", "random")  # fmt: skip
    rows = json.loads(ok(result))["strategies"]
    assert all(row["n"] == 2 and row["mean_fame_ci_low"] is None for row in rows), rows


@pytest.mark.parametrize(
    "args",
    [
        ("tune", "greedy", "--opponent", "random", "-p", "2", "-n", "5", "--out", "-"),
        ("study", "--strategy", "greedy", "-p", "2", "-n", "5", "--out", "-"),
        ("report", "--games", "5", "-p", "2", "--strategy", "greedy", "--out", "-"),
    ],
    ids=["tune", "study", "report"],
)
def test_a_dash_for_an_output_of_files_is_refused(args, tmp_path, monkeypatch):
    """tune, study and report made a file or folder named '-' (simulate's --out - is
    stdout; play --record - was refused already)."""
    monkeypatch.chdir(tmp_path)
    fails(cli(*args), "--out: '-' is not stdout here")
    assert not (tmp_path / "-").exists()


def test_a_deleted_current_folder_is_one_line(tmp_path, monkeypatch):
    """Every command that writes gave a traceback (os.path.abspath) and exit 1."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    fails(cli("simulate", "-n", 10, "--jobs", 1, "-q", "-o", "x.csv"), "current folder no longer")


def test_no_progress_bar_on_a_dumb_terminal(monkeypatch):
    """click's bar hides and shows the cursor with escape codes a dumb terminal (an
    editor's shell) prints as junk."""
    from sunset_sim import cli_common

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert cli_common.progress_output(False) is sys.stderr
    monkeypatch.setenv("TERM", "dumb")
    assert cli_common.progress_output(False) is not sys.stderr
