"""Every result file records how it was made (sunset_sim/provenance.py): Parquet schema
metadata, a CSV's FILE.csv.json sidecar, a dataset folder's manifest. ``report FILE``
uses the card set recorded there and refuses a --cards that disagrees, naming both."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import cli, fails, ok

import sunset_sim
import sunset_sim.cards
from sunset_sim.cards.loader import default_cards_text, load_cards
from sunset_sim.provenance import METADATA_KEY, read_provenance, sidecar_path

DEFAULT_CARDS = Path(sunset_sim.cards.__file__).parent / "default.toml"  # the packaged set


@pytest.fixture
def mine(tmp_path):
    """A small custom card set: the default with another name and one fame changed."""
    text = re.sub(r"^name = .*$", 'name = "mine"', default_cards_text(), count=1, flags=re.M)
    text = text.replace("fame = 3", "fame = 4", 1)
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    cards = load_cards(path)
    assert cards.content_hash != load_cards().content_hash
    return path


def simulate_to(path, cards_path, *extra):
    ok(cli("simulate", "--games", "60", "--seed", "3", "--cards", cards_path,
           "--rule", "days=5", "--strategy", "greedy", "--strategy", "random",
           "--out", path, "--quiet", *extra))  # fmt: skip


def check_recorded(run: dict, cards_path) -> None:
    cards = load_cards(cards_path)
    assert run["cards"]["name"] == "mine"
    assert run["cards"]["hash"] == cards.content_hash
    assert run["cards"]["text"] == cards_path.read_text(encoding="utf-8")
    assert run["rules"] == {"tie_break": "random", "days": 5}
    assert run["seed"] == 3 and run["games"] == 60 and run["players"] == 4
    assert [s["label"] for s in run["strategies"]] == ["greedy", "random"] * 2
    assert run["written_by"] == f"sunset-sim {sunset_sim.__version__}"


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_results_file_records_how_it_was_made(tmp_path, mine, suffix):
    out = tmp_path / f"mine{suffix}"
    simulate_to(out, mine)
    if suffix == ".parquet":
        metadata = pq.read_schema(out).metadata
        check_recorded(json.loads(metadata[METADATA_KEY]), mine)
    else:
        check_recorded(json.loads(sidecar_path(out).read_text(encoding="utf-8")), mine)
    check_recorded(read_provenance(out), mine)


@pytest.mark.parametrize("name", ["mine.parquet", "mine.csv", "mine-dataset/"])
def test_report_uses_the_card_set_the_file_was_played_with(tmp_path, mine, name):
    out = tmp_path / name
    simulate_to(out, mine)
    ok(cli("report", out, "--out", tmp_path / "report", "--quiet"))
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"cards: mine ({load_cards(mine).content_hash[:12]})" in text
    # the same set given again is fine; another set is refused, naming both
    ok(cli("report", out, "--cards", mine, "--out", tmp_path / "again", "--quiet"))
    line = fails(cli("report", out, "--cards", DEFAULT_CARDS, "--out", tmp_path / "x"))
    assert "the games used card set 'mine'" in line
    assert f"not 'sunset-default-reconstructed' (from {DEFAULT_CARDS}, hash " in line
    assert "leave out --cards" in line and "(cards=)" not in line


def test_a_file_without_provenance_still_reports(tmp_path, mine):
    """Files from older versions: the packaged set, or --cards, as before; but games of
    another set are refused, not reported on the packaged one (their commissions' fame
    does not add up: ``report/checks.py``)."""
    frame = sunset_sim.simulate(games=40, players=3, cards=mine)
    frame.attrs.clear()
    old = tmp_path / "old.parquet"
    frame.to_parquet(old)  # no sunset_sim metadata
    assert read_provenance(old) is None
    fails(
        cli("report", old, "--out", tmp_path / "a", "--quiet"),
        "column 'fame_commissions': not the fame of the commissions completed in card set "
        "'sunset-default-reconstructed'",
    )
    ok(cli("report", old, "--cards", mine, "--out", tmp_path / "b", "--quiet"))
    assert "cards: mine" in (tmp_path / "b" / "report.md").read_text()
    default = sunset_sim.simulate(games=40, players=3)
    default.attrs.clear()
    default.to_parquet(old)
    assert read_provenance(old) is None
    ok(cli("report", old, "--out", tmp_path / "c", "--quiet"))
    text = (tmp_path / "c" / "report.md").read_text()
    assert "cards: sunset-default-reconstructed" in text
    # said: an interrupted `--out -` stream read as a complete run, without a word
    assert "the results carry no run record" in text
    recorded = tmp_path / "recorded.parquet"
    simulate_to(recorded, mine)
    ok(cli("report", recorded, "--out", tmp_path / "d", "--quiet"))
    assert "no run record" not in (tmp_path / "d" / "report.md").read_text()


def test_the_api_reports_with_the_recorded_card_set(tmp_path, mine):
    out = tmp_path / "mine.csv"
    simulate_to(out, mine)
    frame, run = sunset_sim.read_results(out)
    assert run["cards"]["name"] == "mine"
    report = sunset_sim.build_report(frame)
    assert report.meta["cards"].startswith("mine (")
    with pytest.raises(ValueError, match="the games used card set 'mine'"):
        sunset_sim.build_report(frame, load_cards())


def test_an_api_frame_saved_by_pandas_keeps_its_record(tmp_path, mine):
    """``simulate(...).to_parquet(FILE)``: pandas writes ``frame.attrs`` (PANDAS_ATTRS),
    and the record in it is read as the file's own (it was "no record", then the
    packaged set's check refused the games)."""
    saved = tmp_path / "api.parquet"
    sunset_sim.simulate(games=40, players=3, cards=mine, seed=5).to_parquet(saved)
    assert METADATA_KEY not in (pq.read_schema(saved).metadata or {})
    frame, run = sunset_sim.read_results(saved)
    assert run["cards"]["name"] == "mine" and run["games"] == 40
    assert sunset_sim.build_report(frame).meta["cards"].startswith("mine (")
    ok(cli("report", saved, "--out", tmp_path / "report", "--quiet"))
    assert "cards: mine (" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    line = fails(cli("report", saved, "--cards", DEFAULT_CARDS, "--out", tmp_path / "x"))
    assert "the games used card set 'mine'" in line
    # rows dropped after the run: not that run's record any more, refused in one line
    frame[frame["game"] < 20].to_parquet(saved)
    fails(cli("report", saved, "--out", tmp_path / "y"), "the record says 40 games")
    # a user's own attrs["provenance"] is not a record of this tool's: no record
    frame.attrs = {"provenance": "my notes"}
    frame.to_parquet(saved)
    assert read_provenance(saved) is None


def test_an_overwritten_csv_never_keeps_another_runs_sidecar(tmp_path, mine):
    out = tmp_path / "mine.csv"
    simulate_to(out, mine)
    ok(cli("simulate", "--games", "20", "--out", out, "--force", "--quiet"))
    assert read_provenance(out)["cards"]["name"] == "sunset-default-reconstructed"
    assert len(pd.read_csv(out)) == 20 * 4


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("version", 7, "provenance version 7; this sunset-sim reads version 1"),
        ("version", True, "provenance version true; this sunset-sim reads version 1"),
        ("version", 1.0, "provenance version 1.0; this sunset-sim reads version 1"),
        ("version", "1", 'provenance version "1"; this sunset-sim reads version 1'),
        ("games", 999, "games: the record says 999 games, the rows hold 20"),
        ("rules", {"tie_break": "random", "days": 3}, "rules.days: the record says 3 days, "),
        (
            "strategies",
            [{"label": "random", "strategy": "random", "params": []}] * 2,
            "strategies: the record seats 'random' at seat 0, the rows have 'greedy' there "
            "(game 0, row 1)",  # (rows counted from 1, as every other message: it said 0)
        ),
        ("rules", {"tie_break": "random", "days": 12}, "rules.days: the record says 12 days, "),
        ("seed", None, "seed: missing from the record of the run"),
        ("strategies", None, "strategies: missing from the record of the run"),
    ],
    ids=[
        "version",
        "version-true",  # (== 1 in Python: replay refused it, the report took it)
        "version-float",
        "version-text",
        "games",
        "days",
        "strategies",
        "days-12",
        "no-seed",
        "no-strategies",
    ],
)
def test_a_sidecar_that_does_not_match_its_rows_is_refused(tmp_path, key, value, needle):
    """The audit: a CSV sidecar of version 7 (a dataset manifest's is refused), or one
    saying 999 games or 3 days beside 20 games of 6 days, was accepted and reported."""
    out = tmp_path / "r.csv"
    ok(cli("simulate", "--games", "20", "--players", "2", "--seed", "1", "--out", out, "-q"))
    record = json.loads(sidecar_path(out).read_text(encoding="utf-8"))
    record[key] = value
    if value is None:  # (removed: every record has had it since records began)
        del record[key]
    sidecar_path(out).write_text(json.dumps(record), encoding="utf-8")
    fails(cli("report", out, "--out", tmp_path / "rep", "-q"), f"{sidecar_path(out)}: ", needle)
    from sunset_sim.analysis.report import ReportInputError

    with pytest.raises(ReportInputError, match=re.escape(needle)):
        sunset_sim.read_results(out)


def test_parquet_rows_that_move_a_strategy_between_seats_are_refused(tmp_path):
    """The record's seats against the rows' strategy labels, for a Parquet file too
    (its strategy column is categorical: compared by code)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    ok(cli("simulate", "--games", "20", "--players", "2", "--strategy", "greedy",
           "--strategy", "random", "--out", out, "-q"))  # fmt: skip
    sunset_sim.read_results(out)  # as written: accepted
    table = pq.read_table(out)
    frame = table.to_pandas().copy()  # (arrow's arrays are read-only)
    row = int(frame.index[frame["seat"] == 0][0])
    frame.loc[row, "strategy"] = "random"
    edited = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(edited.replace_schema_metadata(table.schema.metadata), out)
    from sunset_sim.analysis.report import ReportInputError

    with pytest.raises(ReportInputError, match="the record seats 'greedy' at seat 0, the rows"):
        sunset_sim.read_results(out)


@pytest.mark.parametrize("kind", ["folder", "broken link"])
def test_a_sidecar_that_is_no_file_is_refused_not_ignored(tmp_path, mine, kind):
    """A sidecar replaced by a folder or a broken link read as "no provenance": a custom
    set's games were reported on the packaged set."""
    out = tmp_path / "mine.csv"
    simulate_to(out, mine)
    sidecar = sidecar_path(out)
    sidecar.unlink()
    if kind == "folder":
        sidecar.mkdir()
    else:
        sidecar.symlink_to(tmp_path / "nowhere.json")
    needle = "cannot be read (not a file, or a broken link)"
    fails(cli("report", out, "--out", tmp_path / "rep", "-q"), f"{sidecar}: ", needle)


def test_plan_ids_that_read_as_missing_numbers_or_flags_survive_a_csv(tmp_path):
    """Plan cards "NA", "null", "01" and "True": pandas' defaults read them back from a
    results CSV as missing plans (the report: "NA" picked 0 times, exit 0), a number and
    a flag (refused: "5 is not a label"). The CSV's report now equals the Parquet's."""
    text = default_cards_text()
    for old, new in [("P1", "NA"), ("P2", "null"), ("P3", "01"), ("P4", "True")]:
        text = text.replace(f'id = "{old}"', f'id = "{new}"', 1)
    cards = tmp_path / "odd-ids.toml"
    cards.write_text(text, encoding="utf-8")
    frames = []
    for name in ("r.csv", "r.parquet"):
        simulate_to(tmp_path / name, cards)
        frames.append(sunset_sim.read_results(tmp_path / name)[0])
    plans = [f"plan_day{day}" for day in range(1, 6)]  # (days=5)
    from_csv, from_parquet = (frame[plans].astype(object) for frame in frames)
    assert from_csv.equals(from_parquet)
    assert {"NA", "null", "01", "True"} <= set(from_csv.stack())
    tables = [sunset_sim.build_report(frame).tables["plan_cards"] for frame in frames]
    assert tables[0]["n"].tolist() == tables[1]["n"].tolist()
    assert tables[0].set_index("plan").loc["NA", "n"] > 0
