"""The report's command line: from a results file or playing games, its errors, several
player counts, the study beside the games, and the module entry points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import cli, fails, ok

import sunset_sim
from sunset_sim.cli import main

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


def test_cli_report_of_a_file_keeps_its_games_count_and_rules(tmp_path, monkeypatch):
    """A study beside the report of a results file is played at the file's player count
    and rules (it was played at --players' default 4 and six days); settings the file
    contradicts, or that nothing uses, are one line, not ignored."""
    results = tmp_path / "r3.parquet"
    simulate = ["simulate", "--games", "40", "--players", "3", "--rule", "days=4"]
    assert cli(*simulate, "--out", results, "--quiet").exit_code == 0
    from sunset_sim import cli_report

    studied = []
    play_study = cli_report._study

    def spy(*arguments):  # (strategies, players, deals, seed, cards, rules, ...)
        studied.append(arguments)
        return play_study(*arguments)

    monkeypatch.setattr(cli_report, "_study", spy)
    out = tmp_path / "rep"
    ok(cli("report", results, "--study-games", "20", "--strategy", "greedy", "--out", out, "-q"))
    assert [(a[1], a[5].days) for a in studied] == [(3, 4)]
    head = (out / "study.md").read_text().splitlines()[2]
    assert "3 players" in head, head
    for args, needle in (
        (("--players", "4"), "--players: "),
        (("--rule", "days=5"), "--rule: "),
        (("--seed", "5"), "--seed: "),
        (("--strategy", "balanced"), "--strategy: "),
    ):
        line = fails(cli("report", results, *args, "--out", tmp_path / "x", "-q"), needle)
        assert line.startswith(f"error: {needle}"), line
    ok(cli("report", results, "--players", "3", "--rule", "days=4", "--out", tmp_path / "y", "-q"))


def test_cli_report_at_several_player_counts_says_where_each_study_is(tmp_path):
    """--players 2,3: one report with the counts side by side, the 3-player study beside
    it and the 2-player study in players-2/, which the report and the last line name."""
    out = tmp_path / "rep"
    args = ["report", "--games", "120", "--players", "2,3", "--strategy", "greedy"]
    result = cli(*args, "--strategy", "balanced", "--study-games", "30", "--out", out, "-q")
    ok(result)
    assert (out / "study.md").is_file() and (out / "players-2" / "study.md").is_file()
    assert (out / "players-2" / "suggestions.csv").is_file()
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "Player counts side by side (2, 3)" in text
    # each count's figures with what they rest on (n, the smaller group's n, notes)
    strategies = pd.read_csv(out / "tables" / "players_strategies.csv")
    assert {"n_2p", "n_3p", "note_2p", "note_3p"} <= set(strategies.columns)
    assert (strategies[["n_2p", "n_3p"]] > 0).all().all()
    plans = pd.read_csv(out / "tables" / "players_plan_cards.csv")
    assert {"n_smaller_2p", "n_smaller_3p"} <= set(plans.columns)
    assert " n_2p " in text and " n_smaller_3p " in text  # (in the tables of report.md)
    assert "The 2-player study's files" in text and "are in players-2/." in text
    assert f"the 2-player study in {out / 'players-2'}" in result.stderr
    # each count's headline on stdout (only the last count's was), and in the last line
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["players", *"2233"]
    assert "games at 2 players and " in result.stderr and " games at 3 players; " in result.stderr


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
            "--study-games",
            "0",  # the study's own CLI tests are in test_study.py
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"strategy":"greedy"' in result.output.replace(" ", "")
    assert (tmp_path / "rep" / "report.html").is_file()


def test_cli_report_study_beside_the_games_writes_the_same_files(tmp_path):
    """On two threads the study plays on its own thread beside the report's games and
    analysis; with --jobs 1 after them, on this one. Every file is the same."""
    folders = {}
    for jobs in ("1", "2"):
        folders[jobs] = tmp_path / f"jobs{jobs}"
        result = CliRunner().invoke(
            main,
            ["report", "--games", "120", "--players", "2", "--strategy", "greedy"]
            + ["--strategy", "random", "--seed", "3", "--jobs", jobs, "--study-games", "30"]
            + ["--out", str(folders[jobs]), "--quiet"],
        )
        assert result.exit_code == 0, result.output
    names = sorted(p.relative_to(folders["1"]) for p in folders["1"].rglob("*") if p.is_file())
    assert len(names) > 10 and (folders["1"] / "study.md").is_file()
    assert names == sorted(
        p.relative_to(folders["2"]) for p in folders["2"].rglob("*") if p.is_file()
    )
    for name in names:
        one = (folders["1"] / name).read_bytes().replace(b"jobs1", b"JOBS")
        assert one == (folders["2"] / name).read_bytes().replace(b"jobs2", b"JOBS"), name


# ---------------------------------------------------------------- command line structure


def test_module_entry_points_load():
    import subprocess
    import sys

    for module in ("sunset_sim", "sunset_sim.cli"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr
        assert "report" in done.stdout and "tournament" in done.stdout


def test_commission_columns_match_the_kernel_rows():
    """``commissions_day{d}_{w}`` and ``commissions_shown_{w}`` (compiled passes) against a
    loop over the kernel's per-commission rows: who completed it on which day (R-SELL-1),
    and whether it was in the row on a day played."""
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games
    from sunset_sim.enums import C_DAY, C_SEAT, C_SHOWN, G_DAYS
    from sunset_sim.results import commissions_by_day, commissions_shown
    from sunset_sim.strategy import seat_players

    players = seat_players(["greedy", "commission-hunter", "random"], 3)
    batch = run_games(build_tables(sunset_sim.load_cards()), players, sunset_sim.Rules(), 4, 0, 60)
    n_games, n_commissions, _ = batch.commission.shape
    completed = commissions_by_day(batch.commission, 3, 6)
    shown = commissions_shown(batch)
    expected_completed = np.zeros_like(completed)
    expected_shown = np.zeros_like(shown)
    for game in range(n_games):
        for c in range(n_commissions):
            bit = np.uint64(1) << np.uint64(c % 64)
            seat, day = (int(v) for v in batch.commission[game, c, [C_SEAT, C_DAY]])
            if seat >= 0:
                expected_completed[game * 3 + seat, day - 1, c // 64] |= bit
            if 1 <= batch.commission[game, c, C_SHOWN] <= batch.game[game, G_DAYS]:
                expected_shown[game, c // 64] |= bit
    assert expected_completed.any() and expected_shown.any()
    assert np.array_equal(completed, expected_completed)
    assert np.array_equal(shown, expected_shown)


@pytest.mark.parametrize(
    ("column", "value", "needles"),
    [
        ("days_played", 99, ["row 1, column 'days_played': 99", "the file has 6 days"]),
        ("days_played", 5, ["row 1: game", "disagree on days_played"]),
        ("turn_day1", 9, ["row 1, column 'turn_day1': 9", "from -1 to 3"]),
        ("plan_day1", "P99", ["r.parquet: ", "row 1, column 'plan_day1': plan card 'P99'"]),
    ],
)
def test_a_tampered_results_file_is_refused_naming_file_row_and_column(
    frame, tmp_path, column, value, needles
):
    """A cell no game can hold: 99 days in a 6-day file (the report had printed a mean
    of 7.86 days played), a game whose seats disagree on its days, a turn position past
    the last seat (its row had silently left the turn tables), a plan card the set does
    not have (the line named neither the file nor the row)."""
    tampered = frame.copy()
    if column == "plan_day1":
        tampered[column] = tampered[column].astype(str)
    tampered.loc[tampered.index[0], column] = value
    results = tmp_path / "r.parquet"
    tampered.to_parquet(results)
    fails(cli("report", results, "--out", tmp_path / "rep"), *needles)
    assert not (tmp_path / "rep").exists()


def test_a_title_is_one_line(frame, tmp_path):
    """--title with a newline split the Markdown heading (# a, then b as a paragraph):
    its whitespace is one space now; an empty title or one with control characters is
    refused in one line."""
    results = tmp_path / "r.parquet"
    frame.to_parquet(results)
    ok(cli("report", results, "--out", tmp_path / "rep", "--title", "a\nb", "--quiet"))
    assert (tmp_path / "rep" / "report.md").read_text().splitlines()[0] == "# a b"
    fails(cli("report", results, "--out", tmp_path / "x", "--title", " \n"), "--title: empty")
    fails(cli("report", results, "--out", tmp_path / "x", "--title", "a\x1bb"), "control")


def test_report_players_reads_a_count_as_every_command_does():
    """--players +2 was refused by report alone ("'+2' is not a whole number"), while
    every other command read it as 2; other scripts' digits stay refused everywhere."""
    from sunset_sim.cli_common import CliError
    from sunset_sim.cli_report import _player_counts

    assert _player_counts("+2, 3") == [2, 3]
    for text, line in (
        ("2,２", "'２' is not a whole number"),
        ("2,+2", "2 is given twice"),
        ("1_0", "'1_0' is not a whole number"),
        ("5", "outside 2 to 4"),
    ):
        with pytest.raises(CliError, match=line):
            _player_counts(text)


def test_findings_of_several_player_counts_name_their_count():
    """--players 2,3 listed the 3-player findings alone, unlabelled, as the report's; a
    card the 2-player study found outside its target was in its study.md alone."""
    from sunset_sim.analysis.report import build_report
    from sunset_sim.analysis.report.model import Finding
    from sunset_sim.analysis.report.sections.player_counts import combine

    reports = {}
    for players in (2, 3):
        frame = sunset_sim.simulate(
            games=60, players=players, strategies=["greedy", "random"], seed=players, jobs=1
        )
        reports[players] = build_report(frame, min_samples=5, source=f"{players}p games")
        reports[players].findings = [
            Finding(f"effect at {players}", "plan_cards", 1.0, 0.5, 1.5, 60, 0.01),
            Finding(f"plan P1 outside at {players}", "card value", 1.0, 0.5, 1.5, 60, 0.01),
        ]
    combined = combine(reports)
    assert [f.text for f in combined.findings] == [
        "3 players: effect at 3", "3 players: plan P1 outside at 3",
        "2 players: plan P1 outside at 2",
    ]  # fmt: skip
    assert combined.sections[0].key == "findings"
    assert combined.sections[0].blocks[0] == ("list", [f.text for f in combined.findings])
    assert combined.sections[1].key == "player-counts"
    # the header's source names each count's games (it gave the largest count's alone)
    assert combined.meta["source"] == "2 players: 2p games; 3 players: 3p games"


def test_a_study_of_another_field_than_the_results_says_so(tmp_path):
    """`report s3.csv --study-games N --strategy greedy --strategy random` on a file played
    by greedy, balanced and late-riser exited 0 without a word: the card values and the
    early-rise answer then described another field than the report's header."""
    results = tmp_path / "r.csv"
    ok(cli("simulate", "-n", 30, "-p", 2, "--strategy", "greedy", "--strategy", "balanced",
           "--out", results, "-q"))  # fmt: skip
    other = cli("report", results, "--study-games", 20, "--strategy", "greedy", "--strategy",
                "random", "--out", tmp_path / "a", "-q")  # fmt: skip
    ok(other)
    assert (
        f"note: the study beside this report plays greedy, random, not the field of {results} "
        "(balanced, greedy): its card values describe that field"
    ) in other.stderr
    same = cli("report", results, "--study-games", 20, "--strategy", "balanced", "--strategy",
               "greedy", "--out", tmp_path / "b", "-q")  # fmt: skip
    ok(same)
    assert "the study beside this report plays" not in same.stderr


def test_a_study_of_the_same_field_spelled_otherwise_gets_no_note(tmp_path):
    """greedy:lateness=1 in the results and greedy:lateness=1.0 for the study are one
    strategy: the note said the study played another field (labels were compared)."""
    results = tmp_path / "ds"
    ok(cli("simulate", "-n", 30, "-p", 2, "--strategy", "greedy:lateness=1", "--strategy",
           "random", "--out", f"{results}/", "-q"))  # fmt: skip
    same = cli("report", results, "--study-games", 20, "--strategy", "greedy:lateness=1.0",
               "--strategy", "random", "--out", tmp_path / "a", "-q")  # fmt: skip
    ok(same)
    assert "the study beside this report plays" not in same.stderr
    other = cli("report", results, "--study-games", 20, "--strategy", "greedy:lateness=2",
                "--strategy", "random", "--out", tmp_path / "b", "-q")  # fmt: skip
    assert (
        "the study beside this report plays greedy:lateness=2, random" in ok(other) + other.stderr
    )
