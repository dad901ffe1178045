"""The Python API as a notebook user calls it (the third audit): what it silently took
(two players under one label, an empty strategy list or path) and odd argument types,
each a one-line InputError now."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import sunset_sim
from sunset_sim.cards.tables import build_tables
from sunset_sim.play import play_reference
from sunset_sim.rules.options import Rules
from sunset_sim.validation import InputError


@pytest.fixture(scope="module")
def results():
    return sunset_sim.simulate(games=20, players=2, strategies=["greedy", "random"])


def _edge_players():
    from sunset_sim.strategy import Player, make_player

    greedy = make_player("greedy")
    return Player(greedy.spec, greedy.params), Player(
        make_player("random").spec, make_player("random").params, label="greedy"
    )


def _report(**options):
    """build_report of a small run with ``options`` (a TypeError or AttributeError deep in
    the report before they were checked)."""
    return sunset_sim.build_report(sunset_sim.simulate(games=20, players=2), **options)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: sunset_sim.simulate(games=5, players=2, strategies=list(_edge_players())),
            "two players are labelled 'greedy' but play differently",
        ),
        (
            lambda: sunset_sim.tournament(list(_edge_players()), players=2, games=5),
            "two players are labelled 'greedy'",
        ),
        (lambda: sunset_sim.compare([], rules_b={"days": 4}, games=5), "give at least one"),
        (lambda: sunset_sim.sweep(rule="days=4,5", strategies=[], games=5), "give at least one"),
        # a string was split into characters: values="12" swept 1 and 2
        (
            lambda: sunset_sim.sweep(param="greedy:lateness", values="12", games=5),
            "values: expected a list of values, e.g. .0, 0.5, 1.; got .12.",
        ),
        (
            lambda: sunset_sim.sweep(rule="days", values="45", games=5),
            "values: expected a list of values",
        ),
        (
            lambda: sunset_sim.sweep(param="greedy:lateness", values=[True], games=5),
            "lateness=True is not a number",
        ),
        (lambda: sunset_sim.tune("balanced", [], games=5), "opponent: give at least one"),
        (lambda: sunset_sim.read_results(""), "path: empty path"),
        (lambda: sunset_sim.write_report(None, "out"), "report: expected a Report"),
        (lambda: sunset_sim.run_study(["greedy"], 2, 1), "games: 1 deal gives no confidence"),
        (
            lambda: sunset_sim.run_study(["greedy"], 2, 10, verify_games=1),
            "verify_games: 1 deal gives no confidence",
        ),
        (lambda: sunset_sim.run_study(["greedy"], 2, 5, progress=5), "progress: 5 is not"),
        (lambda: sunset_sim.run_study(["greedy"], 2, 5, status="x"), "status: 'x' is not"),
        (
            lambda: sunset_sim.run_study(["greedy"], 2, 5, check_games=10),
            "check_games: given without check_field",
        ),
        (lambda: _report(max_findings=None), "max_findings: None is not a whole number"),
        (lambda: _report(max_findings=-1), "max_findings: -1 is less than 0"),
        (lambda: _report(study=5), "study: expected a Study"),
        # None played greedy in these two, where simulate and tournament refuse it
        (
            lambda: sunset_sim.compare(None, games=4, rules_b=["days=5"]),
            "strategies: expected a list of strategy names or players, got NoneType",
        ),
        (
            lambda: sunset_sim.sweep(rule="days", values=[5, 6], strategies=None, games=4),
            "strategies: expected a list of strategy names or players, got NoneType",
        ),
    ],
    ids=[
        "simulate-label",
        "tournament-label",
        "compare",
        "sweep",
        "sweep-string",
        "sweep-rule-string",
        "sweep-bool",
        "tune",
        "read",
        "write",
        "study",
        "verify",
        "study-progress",
        "study-status",
        "study-check-games",
        "report-findings-none",
        "report-findings-negative",
        "report-study",
        "compare-none",
        "sweep-none",
    ],  # fmt: skip
)
def test_api_refuses_what_it_silently_took(call, message):
    """Two players under one label were pooled into one row (two edge-lover players at
    0.198 and 0.032 read as one at 0.115); an empty strategy list played greedy; an
    empty path was the current folder."""
    with pytest.raises(InputError, match=message):
        call()


def test_write_report_is_whole_or_not_at_all(results, tmp_path, monkeypatch):
    """A write that fails half-way (a full disk) leaves the old report as it was and no new
    folder; it deleted the old report's files but its report.html, or left an empty
    tables/. Files that are not the report's (a study's, the user's) stay."""
    from sunset_sim.analysis.report import files

    report = sunset_sim.build_report(results)
    out = tmp_path / "rep"
    sunset_sim.write_report(report, out)
    (out / "mine.txt").write_text("the user's own")
    (out / "tables" / "mynotes.csv").write_text("a,b")  # (beside a study's files too)
    (out / "study.md").write_text("a study written here before")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "render_html", full_disk)
    for folder in (out, tmp_path / "fresh"):
        with pytest.raises(OSError, match="No space left"):
            sunset_sim.write_report(report, folder)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    monkeypatch.undo()
    written = sunset_sim.write_report(report, out)  # (replaced whole; the user's file kept)
    assert all(path.is_file() and path.parent.parent == tmp_path for path in written[:2])
    assert (out / "mine.txt").read_text() == "the user's own"
    assert (out / "tables" / "mynotes.csv").is_file() and (out / "study.md").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no staging left


@pytest.mark.parametrize(
    ("title", "message"),
    [(None, "title: expected a text, got NoneType"), (5, "expected a text, got int"),
     (" \n ", "title: empty"), ("a\x1b[31mb", "holds control characters")],
)  # fmt: skip
def test_a_report_title_is_checked_as_the_command_line_checks_it(results, title, message):
    with pytest.raises(ValueError, match=message):
        sunset_sim.build_report(results, title=title)


def test_write_report_and_plot_sweep_refuse_an_empty_or_unusable_path(results, tmp_path):
    """write_report(report, "") wrote 27 files into the current folder; plot_sweep gave
    OSError or matplotlib's ValueError for "", a .txt name or a missing folder."""
    report = sunset_sim.build_report(results)
    with pytest.raises(InputError, match="out_dir: empty path"):
        sunset_sim.write_report(report, "")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder"):
        sunset_sim.write_report(report, tmp_path / "file")
    frame = sunset_sim.sweep(rule="days=4,5", games=4, players=2)
    for path, message in (
        ("", "path: empty path"),
        (tmp_path / "a.txt", "must end in .png, .svg or .pdf"),
        (tmp_path / "no" / "a.png", "is not a folder that exists"),
        (tmp_path, "is a folder, not a file"),
    ):
        with pytest.raises(InputError, match=message):
            sunset_sim.plot_sweep(frame, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_api_odd_types_are_one_line_input_errors():
    """The audit: Rules.parse("days=4") read the text letter by letter, Rules.parse(None)
    and load_cards(5) raised TypeError, a parameter given as text a bare float error."""
    from sunset_sim.strategy import StrategyError, make_player

    assert Rules.parse("days=4").days == 4
    with pytest.raises(InputError, match="rules: expected key=value texts, got NoneType"):
        Rules.parse(None)
    with pytest.raises(InputError, match="rules: 5 is not a key=value text"):
        Rules.parse([5])
    with pytest.raises(InputError, match="card-set path: expected a file path or None, got int"):
        sunset_sim.load_cards(5)
    with pytest.raises(StrategyError, match="strategy greedy: lateness='x' is not a number"):
        make_player("greedy").spec.param_vector({"lateness": "x"})


def test_a_rule_number_with_leading_zeros_is_read_as_written():
    """A tester's: days=0000000006 was refused as "not a whole number" (ten characters),
    where days=06 and --players 0000000002 were read; a number too long for its digits
    is still refused."""
    assert Rules.parse(["days=0000000006"]).days == 6
    assert Rules.parse(["days=06"]).days == 6
    with pytest.raises(InputError, match="is not a whole number from 1 to 12"):
        Rules.parse(["days=6000000000"])


def test_rules_named_reads_keys_as_parse_does():
    """The options a --rule list names: report checks a results file's rules
    against those alone, so a spelling parse accepts must name the same key."""
    assert Rules.named(["tie-break = seat", " days=4"]) == {"tie_break", "days"}
    assert Rules.named("days=4") == {"days"}
    assert Rules.named([]) == frozenset()
    with pytest.raises(InputError, match="given more than once"):
        Rules.named(["days=4", "days=5"])


def test_a_game_without_commissions_for_its_row_is_refused_by_play_and_replay():
    """R-SET-2 lays out players + 1 commissions and a preview: with 3 in the set, the
    reference engine set up a short row for 4 players, ended the game after day 1, and
    ``replay`` passed the record, where the command line refused the set."""
    from dataclasses import replace

    from sunset_sim.records.replay import RecordError, replay

    cards = sunset_sim.load_cards()
    few = replace(cards, commissions=cards.commissions[:3])
    with pytest.raises(InputError, match=r"commissions: 3 cards, a game needs at least 6"):
        play_reference(few, ["greedy"] * 4)
    record = play_reference(cards, ["greedy"] * 4, seed=1).record
    with pytest.raises(RecordError, match=r"commissions: 3 cards, a game needs at least 6"):
        replay(record, few)
    assert replay(record, cards).fame == play_reference(cards, ["greedy"] * 4, seed=1).fame


def test_play_reference_checks_its_tables_and_bans():
    """The audit: another card set's tables or a ``banned`` of the wrong shape or type
    gave an IndexError or numba's TypingError from inside the game."""

    tables = build_tables(sunset_sim.load_cards())
    width = 1 + len(tables.plan_wake) + len(tables.land_icons) + len(tables.comm_fame)
    for kwargs, message in (
        ({"tables": "x"}, "tables: str, not the CardTables of build_tables"),
        (
            {"tables": tables._replace(land_icons=np.zeros(3, np.int32))},
            "tables: 3 landscapes where the card set has 60",
        ),
        ({"banned": "x"}, "banned: <U1 values; give 0/1 flags"),
        ({"banned": np.zeros((2, 3))}, r"banned: shape \(2, 3\) is not \(masks, 2, columns\)"),
        ({"banned": np.zeros((1, 3, width), np.uint8)}, "is not \\(masks, 2, columns\\)"),
        ({"banned": np.ones((1, 2, 5), np.uint8)}, f"5 columns where this card set needs {width}"),
        ({"banned": np.full((1, 2, width), np.nan)}, "values other than 0 and 1"),
    ):
        with pytest.raises(InputError, match=message):
            play_reference(None, ["greedy", "greedy"], **kwargs)
    played = play_reference(
        None, ["greedy", "greedy"], tables=tables, banned=np.zeros((1, 2, width), np.uint8)
    )
    plain = play_reference(None, ["greedy", "greedy"])  # no bans: the same game
    assert (played.fame, played.winners, played.days_played) == (
        plain.fame,
        plain.winners,
        plain.days_played,
    )


def test_numpy_whole_numbers_are_rule_values_and_bools_are_not():
    """np.arange(3, 7) as a sweep's days, or days=np.int64(4), as games and seed take
    numpy integers; stored as plain int (records, JSON), and a bool is still refused."""
    rules = Rules(days=np.int64(4), tie_break=np.str_("seat"))
    assert rules == Rules(days=4, tie_break="seat") and type(rules.days) is int
    assert type(rules.to_dict()["tie_break"]) is str
    frame = sunset_sim.sweep(rule="days", values=np.arange(2, 4), players=2, games=4)
    assert list(frame["days_played"]) == [2.0, 3.0]
    for bad in (True, np.bool_(True), np.float64(4.0), np.int64(13)):
        with pytest.raises(InputError, match="is not a whole number from 1 to 12"):
            Rules(days=bad)


def test_a_study_family_named_twice_is_played_once():
    """families=["plan", "plan"] played the plan cards' arms twice (and listed them twice)."""
    from sunset_sim import validation
    from sunset_sim.analysis.restrictions import FAMILIES

    names = validation.check_names(["plan", "commission", "plan"], "families", FAMILIES)
    assert names == ["plan", "commission"]


def test_write_study_checks_its_inputs_before_writing(tmp_path, monkeypatch):
    """write_study wrote four CSVs and then raised AttributeError for cards=None or a
    study that was not one, took any card set (the edits written onto the wrong cards,
    exit OK), wrote into the current folder for out="" and left files half-written."""
    from sunset_sim.analysis import study_files
    from sunset_sim.cards.loader import default_cards_text, load_cards

    study = sunset_sim.run_study(
        ["greedy"], players=2, games=20, families=["plan"], edits=[], suggest=False
    )
    other = tmp_path / "other.toml"
    other.write_text(default_cards_text().replace("fame = 3", "fame = 4", 1), encoding="utf-8")
    (tmp_path / "file").write_text("x")
    for call, message in (
        (lambda: sunset_sim.write_study("x", tmp_path / "a", None), "study: expected a Study"),
        (lambda: sunset_sim.write_study(study, "", None), "out: empty path"),
        (lambda: sunset_sim.write_study(study, tmp_path / "file", None), "is a file, not a"),
        (lambda: sunset_sim.write_study(study, tmp_path / "a", None, named=5), "named: "),
        (lambda: sunset_sim.write_study(study, tmp_path / "a", other), "the study was run on"),
    ):
        with pytest.raises(InputError, match=message):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "other.toml"]
    written = sunset_sim.write_study(study, tmp_path / "a", None)  # None: the packaged set
    assert (
        "study.md" in written
        and (tmp_path / "a" / "original-cards.toml").read_text(encoding="utf-8")
        == load_cards().source
    )

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(study_files, "study_markdown", full_disk)
    before = {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    with pytest.raises(OSError):
        sunset_sim.write_study(study, tmp_path / "a", load_cards())
    assert {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()} == before


@pytest.mark.parametrize(
    "rules", [{"days": 3}, {"days": 3, "tie_break": "seat"}, "days=3", ["days=3"], Rules(days=3)]
)
def test_a_base_rule_on_the_swept_option_is_refused_as_on_the_command_line(rules):
    """sweep(rule="days=4,5", rules={"days": 3}) played days 4 and 5 and dropped the 3
    without a word; `sweep --rule-values days=4,5 --rule days=3` is refused."""
    with pytest.raises(InputError, match="^rules: days is the option swept by rule"):
        sunset_sim.sweep(rule="days=4,5", rules=rules, players=2, games=2)
    other = sunset_sim.sweep(rule="days=2,3", rules={"tie_break": "seat"}, players=2, games=2)
    assert list(other["days_played"]) == [2.0, 3.0]


def test_simulate_whose_rows_cannot_be_held_stops_after_its_first_chunk(monkeypatch):
    """A tester's: simulate(games=10**9) (about 590 GiB of rows, 22 GiB free) played on
    for ten minutes toward the kill, every game then lost; compare, sweep and tune refuse
    such runs first. It now stops after its first chunk, whose rows tell their size."""
    from sunset_sim import validation

    played = []
    monkeypatch.setattr(validation, "free_memory", lambda: 2**20)  # 1 MiB
    with pytest.raises(InputError, match="^games: not enough memory for this run: 4,000 games'"):
        sunset_sim.simulate(games=4000, chunk_size=500, jobs=1, progress=played.append)
    assert 0 < sum(played) <= 1000  # (the first chunk, and at most one more in flight)
    monkeypatch.setattr(validation, "free_memory", lambda: None)  # (unknown: played)
    assert len(sunset_sim.simulate(games=40, chunk_size=10, jobs=1)) == 40 * 4
    monkeypatch.setattr(validation, "free_memory", lambda: 2**34)  # 16 GiB: plenty
    assert len(sunset_sim.simulate(games=4000, chunk_size=500, jobs=1)) == 4000 * 4


def test_run_study_out_of_memory_is_one_input_error():
    """A tester's: run_study(games=10**9) raised numpy's MemoryError ("Unable to allocate
    59.6 GiB ...") with its traceback, where the command line says it in one line."""
    from sunset_sim.analysis import study
    from sunset_sim.validation import memory_as_input_error

    @memory_as_input_error
    def allocates(size: int) -> None:
        """(its docstring and signature kept)"""
        raise MemoryError(f"Unable to allocate {size} GiB for an array")

    with pytest.raises(InputError, match=r"^games: not enough memory for this run \(Unable"):
        allocates(60)
    assert allocates.__doc__ == "(its docstring and signature kept)"
    assert study.run_study.__wrapped__.__name__ == "run_study"  # (run_study is wrapped so)


def test_replay_takes_a_card_path_and_refuses_what_is_no_record(tmp_path):
    """A tester's: replay(None) and replay("x") raised an AttributeError from inside, and
    a card file's path for ``cards`` ("'str' object has no attribute 'content_hash'"),
    where every other call takes paths."""
    from sunset_sim.cards.loader import default_cards_text
    from sunset_sim.records.replay import RecordError, replay

    record = play_reference(sunset_sim.load_cards(), ["greedy"] * 3, seed=2).record
    path = tmp_path / "cards.toml"
    path.write_text(default_cards_text(), encoding="utf-8")
    assert replay(record, path).fame == replay(record, str(path)).fame == replay(record).fame
    for bad, shown in ((None, "NoneType"), ("x.json", "str")):
        with pytest.raises(RecordError, match=f"^record: expected a game record .*got {shown}$"):
            replay(bad)
    with pytest.raises(InputError, match="missing.toml"):
        replay(record, tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((2.5, 4, ["greedy"], 1), {}, "games: 2.5 is not a whole number"),
        ((-5, 4, ["greedy"], 1), {}, "games: -5 is not a positive number of games"),
        ((10, 4, ["greedy"], 2.5), {}, "seed: 2.5 is not a whole number"),
        ((10, 4, ["greedy"], -1), {}, "seed: must not be negative, got -1"),
        ((10, 4, ["greedy"], 1), {"jobs": -1}, "jobs: -1 is negative"),
        ((10, 4, ["greedy"], 1), {"resume": "yes"}, "resume: expected True or False, got 'yes'"),
        ((10, 4, ["greedy"], 1), {"force": "no"}, "force: expected True or False, got 'no'"),
        (
            (10**10, 4, ["greedy"], 1),
            {"chunk_size": 1},
            "chunk_size: 10,000,000,000 games in chunks of 1 are 10,000,000,000 chunks, more "
            "than the limit of 100,000; give 100,000 or more, or at most 100,000 games",
        ),
    ],
)
def test_simulate_to_dataset_holds_its_arguments_as_simulate_does(tmp_path, args, kwargs, message):
    """A tester's: simulate_to_dataset played 2.5 games as 2, wrote a manifest of -5 games
    that read_dataset and report then refused, and for a seed of -1 raised numpy's
    OverflowError and left a locked folder; resume="yes" resumed. Refused now, in one
    line, before a folder is made."""
    from sunset_sim.runner import simulate_to_dataset

    with pytest.raises(InputError, match="^" + re.escape(message) + "$"):
        simulate_to_dataset(tmp_path / "runs", *args, **kwargs)
    assert not (tmp_path / "runs").exists()


def test_read_dataset_refuses_an_empty_path(tmp_path, monkeypatch):
    """A tester's: read_dataset("") read the current folder, a dataset folder there."""
    from sunset_sim.run import RunError
    from sunset_sim.run.dataset import read_dataset
    from sunset_sim.runner import simulate_to_dataset

    simulate_to_dataset(tmp_path, 4, 2, ["greedy"], 1, jobs=1, force=True)
    monkeypatch.chdir(tmp_path)
    assert len(read_dataset(".")) == 8  # (4 games, 2 seat rows each)
    with pytest.raises(RunError, match="^folder: empty path"):
        read_dataset("")


def test_a_chunk_plan_past_the_limit_is_one_line_on_the_command_line(tmp_path):
    """The tester's command grew to 3.7 GB before its first chunk of 1 game."""
    from conftest import cli, fails

    line = fails(cli("simulate", "--games", "10000000000", "--chunk-size", "1", "-q",
                     "--out", f"{tmp_path / 'huge'}/"))  # fmt: skip
    assert line == (
        "error: --chunk-size: 10,000,000,000 games in chunks of 1 are 10,000,000,000 chunks, "
        "more than the limit of 100,000; give 100,000 or more, or at most 100,000 games"
    )
    assert not (tmp_path / "huge").exists()


def test_simulate_to_dataset_and_to_file_take_paths_as_every_call_does(tmp_path, monkeypatch):
    """A tester's: simulate_to_dataset("") wrote a dataset into the current folder; and
    simulate_to_file raised AttributeError for a text path and ValueError for Path("")."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import simulate_to_dataset, simulate_to_file

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="^folder: empty path$"):
        simulate_to_dataset("", 4, 2, ["greedy"], 1, jobs=1)
    with pytest.raises(InputError, match=r"^path: \. is a folder, not a results file$"):
        simulate_to_file(Path(""), 4, 2, ["greedy"], 1, load_cards(), Rules(), jobs=1)
    assert list(tmp_path.iterdir()) == []
    summary = simulate_to_file("y.csv", 4, 2, ["greedy"], 1, load_cards(), Rules(), jobs=1)
    assert summary is not None and (tmp_path / "y.csv").is_file()


@pytest.mark.parametrize(
    "call",
    [
        lambda: sunset_sim.tournament(["greedy", "random"], players=2, games=10**10, chunk_size=1),
        lambda: sunset_sim.compare(
            ["greedy"], games=10**6, players=2, chunk_size=1, rules_b=["days=5"]
        ),  # fmt: skip
        lambda: sunset_sim.sweep(rule="days", values=[5, 6], games=10**6, chunk_size=1),
        lambda: sunset_sim.tune("greedy-painter", games=5, validation_games=10**6, chunk_size=1),
    ],
    ids=["tournament", "compare", "sweep", "tune"],
)
def test_every_paired_call_holds_the_chunk_plan_limit(call):
    """A tester's: the limit held simulate alone; tournament(games=10**10, chunk_size=1)
    ran out of memory building its plan before a game was played."""
    with pytest.raises(
        InputError,
        match="^chunk_size: .* in chunks of 1 are .* chunks, more than the limit of 100,000",
    ):
        call()


def test_a_folder_named_like_the_manifest_is_said_to_be_a_folder(tmp_path):
    """A tester's: a directory called _manifest.json read "not a regular file (a device,
    pipe or socket)"."""
    from sunset_sim.run import RunError
    from sunset_sim.run.dataset import MANIFEST, read_manifest

    (tmp_path / MANIFEST).mkdir()
    with pytest.raises(RunError, match="a folder, not the dataset's manifest file$"):
        read_manifest(tmp_path)


def test_a_parquet_file_saved_with_its_keys_as_the_index_is_read_as_columns(tmp_path):
    """A tester's: a results file re-saved by pandas after set_index(["game", "seat"])
    crashed `report` with KeyError 'seat' (a traceback, exit 1); set_index("game") read
    "missing column 'game'". Columns pandas saved as the index are columns again."""
    import pandas as pd
    from conftest import cli, ok

    from sunset_sim.run.dataset import arrow_to_pandas

    out = tmp_path / "r.parquet"
    ok(cli("simulate", "--games", "30", "--players", "2", "--jobs", "1", "-q", "--out", out))
    rows = pd.read_parquet(out)
    for keys in (["game", "seat"], "game"):
        indexed = tmp_path / "indexed.parquet"
        rows.set_index(keys).to_parquet(indexed)
        import pyarrow.parquet as pq

        again = arrow_to_pandas(pq.read_table(indexed))
        pd.testing.assert_frame_equal(again[rows.columns], rows, check_dtype=False)
        ok(cli("report", indexed, "--out", tmp_path / f"rep-{len(keys)}", "-q"))
