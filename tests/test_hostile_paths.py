"""Hostile input, continued from test_hostile.py: paths the user did not quite name, and
results files a report reads that are damaged or edited. Every case ends in one line and
exit code 2 (or the right answer), never a traceback or a wrong figure."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import cli, fails, ok
from test_hostile import TEXT, problems
from test_output_safety import DATASET

from sunset_sim.records.replay import RecordError, load_record

# ---- paths the user did not quite name (QA pass on the command line) ---------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("cards", "--cards", ""), "--cards"),
        (("simulate", "--games", "5", "--cards", " "), "--cards"),
        (("compare", "--a-cards", ""), "--a-cards"),
        (("replay", ""), "RECORD_PATH"),
        (("play", "--record", ""), "--record"),
        (("play", "--record", "", "--force"), "--record"),
        (("tune", "greedy", "--out", ""), "--out"),
        (("sweep", "--plot", ""), "--plot"),
        (("report", "", "--out", "elsewhere"), "RESULTS"),
        (("report", "--games", "5", "--out", ""), "--out"),
        (("simulate", "--games", "5", "--out", ""), "--out"),
        (("--strategy-path", "", "strategies"), "--strategy-path"),
        (("simulate", "--strategy", "balanced:params="), "params="),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_an_empty_path_is_refused_naming_its_option(tmp_path, monkeypatch, args, option):
    """An empty path was the current folder: `--cards ''` said ".: is a directory",
    `--strategy-path ''` imported every module of the current folder (code the user never
    named), `play --record '' --force` tried to replace the folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.py").write_text('open("IMPORTED", "w")\n')
    fails(cli(*args), f"{option}: empty path")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["evil.py"]


def test_a_path_of_the_wrong_kind_is_one_line_in_the_projects_form(tmp_path):
    """click's own "Invalid value for '--cards': File 'x' is a directory." is now
    "--cards: x: is a directory", as the project's other lines name option, value and
    problem."""
    line = fails(cli("cards", "--cards", tmp_path), f"--cards: {tmp_path}: is a directory")
    assert "Invalid value" not in line
    folder = tmp_path / "plugins.py"
    folder.write_text("")
    line = fails(cli("--strategy-path", folder, "strategies"), f"{folder}: is a file")
    assert "Invalid value" not in line


def test_an_empty_strategy_path_is_refused_by_the_python_api(tmp_path, monkeypatch):
    from sunset_sim.strategy import STRATEGY_PATH_VARIABLE, StrategyError, add_strategy_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(STRATEGY_PATH_VARIABLE, raising=False)
    with pytest.raises(StrategyError, match="empty path"):
        add_strategy_path("")
    assert STRATEGY_PATH_VARIABLE not in __import__("os").environ


@pytest.mark.parametrize("command", ["study", "report"])
def test_an_output_folder_needs_its_parent_folder(tmp_path, command):
    """study (and report) made every missing folder above --out, where simulate, tune and
    play refuse a missing folder: the same one line now; the folder itself is made."""
    out = tmp_path / "missing" / "out"
    line = fails(cli(command, "--games", "5", "--quiet", "--out", out), "does not exist")
    assert f"folder {tmp_path / 'missing'} does not exist" in line
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("out", ["x.parquet", "x/"])
def test_an_output_under_a_file_says_the_file_is_no_folder(tmp_path, out):
    (tmp_path / "afile").write_text("mine\n")
    line = fails(cli("simulate", "-n", "5", "-q", "--out", f"{tmp_path}/afile/{out}"), "folder")
    assert f"folder {tmp_path / 'afile'} is a file, not a folder" in line


def test_a_csv_sidecar_is_not_replaced_without_force(tmp_path):
    """`simulate -o data.csv` replaced a user's data.csv.json (the provenance sidecar) with
    no --force; a folder of that name was reported as data.csv."""
    out = tmp_path / "data.csv"
    sidecar = tmp_path / "data.csv.json"
    sidecar.write_text('{"mine": 1}\n')
    fails(cli("simulate", "-n", "20", "-q", "-o", out), f"{sidecar}: already exists")
    assert sidecar.read_text() == '{"mine": 1}\n' and not out.exists()
    ok(cli("simulate", "-n", "20", "-q", "-o", out, "--force"))
    assert "mine" not in sidecar.read_text()
    out.unlink()
    sidecar.unlink()
    sidecar.mkdir()
    line = fails(cli("simulate", "-n", "20", "-q", "-o", out, "--force"), str(sidecar))
    assert "not a regular file" in line and not out.exists()


def test_a_dangling_link_is_an_existing_output(tmp_path):
    """A dangling link named as the output file was replaced without --force (as a
    dataset folder: test_an_output_path_the_system_refuses_is_one_line)."""
    link = tmp_path / "dang.csv"
    link.symlink_to(tmp_path / "nowhere" / "x")
    fails(cli("simulate", "-n", "20", "-q", "-o", link), f"{link}: already exists")
    assert link.is_symlink()


@pytest.mark.parametrize("out", ["run/", "rows.parquet"])
@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_lock_file_that_is_a_fifo_or_a_link_is_one_line(tmp_path, out, kind):
    """The lock an output holds beside it (``.lock`` in a dataset folder, ``.NAME.lock``
    and ``.NAME.writing`` beside a file): a FIFO there blocked the run forever, and a
    dangling link made it create the file the link names, outside what the user named."""
    import os

    target = tmp_path / out
    locks = [target / ".lock"] if out.endswith("/") else [
        tmp_path / f".{target.name}.lock", tmp_path / f".{target.name}.writing"
    ]  # fmt: skip
    target.parent.mkdir(exist_ok=True)
    (target if out.endswith("/") else tmp_path).mkdir(exist_ok=True)
    for lock in locks:
        for made in (tmp_path / "named-by-the-link.txt", *locks):
            if os.path.lexists(made):
                made.unlink()
        if kind == "fifo":
            os.mkfifo(lock)
        else:
            lock.symlink_to(tmp_path / "named-by-the-link.txt")
        reason = "not a regular file" if kind == "fifo" else "symbolic link"
        fails(cli("simulate", "-n", "20", "-q", "-o", str(target)), lock.name, reason)
        assert not (tmp_path / "named-by-the-link.txt").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("play", "--record", "{cards}"),
        ("tune", "greedy", "--games", "2", "--generations", "1", "--population", "4",
         "--validation-games", "2", "--out", "{cards}"),
        ("sweep", "-n", "2", "--rule-values", "days=5,6", "--plot", "{cards}"),
    ],
    ids=lambda command: command[0],
)  # fmt: skip
def test_an_output_never_overwrites_an_input(tmp_path, command):
    """--force replaces an output, never an input: ``play --cards m.toml --record m.toml
    --force`` replaced the card set with the game record, exit 0."""
    from sunset_sim.cards.loader import default_cards_text

    cards = tmp_path / ("m.png" if command[0] == "sweep" else "m.toml")
    cards.write_text(default_cards_text(), encoding="utf-8")
    args = [str(cards) if arg == "{cards}" else arg for arg in command]
    fails(cli(*args, "--cards", cards, "--force", "-q"), f"{cards}: is the --cards file too")
    assert cards.read_text(encoding="utf-8") == default_cards_text()


def test_an_error_line_shows_control_characters_escaped():
    """A newline in a file name printed the error on two lines, an ESC reached the
    terminal: both are shown as Python writes them, on one line."""
    line = fails(cli("simulate", "-n", "5", "--cards", "a\nb\x1b[31m.toml"), "file not found")
    assert "a\\nb\\x1b[31m.toml" in line
    result = cli("cards", "--cards", "a\nb.toml")
    assert result.exit_code == 2 and result.stderr == "error: a\\nb.toml: file not found\n"


def test_a_status_line_shows_control_characters_escaped(tmp_path):
    """The success line named a file with a newline on two lines (errors escaped it)."""
    out = tmp_path / "a\nb.csv"
    result = cli("simulate", "-n", "5", "-q", "-o", out)
    ok(result)
    assert result.stderr.splitlines() == [f"results written to {tmp_path}/a\\nb.csv"]


def test_the_interrupt_line_shows_control_characters_escaped(capsys):
    """Ctrl-C's line named an output with a newline on three lines."""
    from sunset_sim.cli_common import Interrupted

    Interrupted("nothing written to x\ny.csv").show()
    assert capsys.readouterr().err == "interrupted; nothing written to x\\ny.csv\n"


def test_a_csv_sidecar_never_overwrites_an_input(tmp_path):
    """``--cards r.csv.json --out r.csv --force`` replaced the card set with the sidecar."""
    from sunset_sim.cards.loader import default_cards_text

    cards = tmp_path / "r.csv.json"
    cards.write_text(default_cards_text(), encoding="utf-8")
    out = tmp_path / "r.csv"
    fails(cli("simulate", "-n", "5", "-q", "--cards", cards, "-o", out, "--force"),
          f"{cards}: is the --cards file too")  # fmt: skip
    assert cards.read_text(encoding="utf-8") == default_cards_text() and not out.exists()


def test_a_huge_value_in_a_card_file_is_shown_short(tmp_path):
    """A frame of 100,000 wild cards was shown whole: a 200 KB error line."""
    frame = " ".join(["?"] * 100_000)
    text = re.sub(r"frames = \[[^\]]*\]", f'frames = ["{frame}"]', TEXT, count=1)
    found = problems(text)
    assert any("no landscape in the set can match '? ? ?" in line for line in found), found
    assert all(len(line) < 300 for line in found), [len(line) for line in found]
    assert any("(199999 characters)" in line for line in found)
    path = tmp_path / "wild.toml"
    path.write_text(text)
    result = cli("cards", "--cards", path)
    assert result.exit_code == 2 and all(len(line) < 400 for line in result.stderr.splitlines())


def test_verbose_says_an_option_left_out_is_not_given():
    """-v showed --out=- for no --out: the same as stdout (--out -)."""
    result = cli("simulate", "-n", "5", "-q", "-v")
    first = result.stderr.splitlines()[0]
    assert "--out=(not given)" in first and "--cards=(not given)" in first
    assert "=- " not in first
    # a repeatable option left out too: "--strategy=[]" did not say a default field sits
    assert "--strategy=(not given)" in first and "=[]" not in first
    given = cli("simulate", "-n", "5", "-q", "-v", "--strategy", "random", "--strategy", "greedy")
    assert "--strategy=[random,greedy]" in given.stderr.splitlines()[0]


# ---- results files a report reads: damaged or edited rows and records are one line ----


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory):
    """A small results CSV and its sidecar (FILE.csv.json), written by simulate."""
    folder = tmp_path_factory.mktemp("results")
    ok(cli("simulate", "--games", "6", "--players", "2", "--quiet", "--out", folder / "r.csv"))
    return folder / "r.csv"


def _edited_copy(results_csv, tmp_path, edit, sidecar=True):
    """A copy of the results CSV with ``edit(header, rows)`` applied to its cells."""
    import shutil

    lines = results_csv.read_text().splitlines()
    header, rows = lines[0].split(","), [line.split(",") for line in lines[1:]]
    edit(header, rows)
    path = tmp_path / "r.csv"
    path.write_text("\n".join([",".join(header), *(",".join(row) for row in rows)]) + "\n")
    if sidecar:
        shutil.copy(f"{results_csv}.json", f"{path}.json")
    return path


def _cell(column, value, row=0):
    def edit(header, rows):
        rows[row][header.index(column)] = value

    return edit


def _loser_to_90(header, rows):
    """A losing seat's fame raised to 90, its parts raised with it (win_share unchanged)."""
    row = next(row for row in rows if row[header.index("won")] == "False")
    parts = sum(int(row[header.index(f"fame_{p}")]) for p in ("commissions", "goals"))
    row[header.index("fame")] = "90"
    row[header.index("fame_paintings")] = str(90 - parts)


def _other_end_reason(header, rows):
    column = header.index("end_reason")
    rows[0][column] = "days" if rows[0][column] != "days" else "commission-shortage"


def _turn_taken_twice(header, rows):
    rows[0][header.index("turn_day1")] = rows[1][header.index("turn_day1")]


def _report(path, tmp_path):
    return cli("report", path, "--out", tmp_path / "rep", "--quiet", "--study-games", "0")


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (_cell("fame", "abc"), ["row 1, column 'fame'", "'abc'", "0 to 32767"]),
        (_cell("fame", "nan"), ["row 1, column 'fame'", "0 to 32767"]),
        (_cell("fame", "inf", row=3), ["row 4, column 'fame'", "inf"]),
        (_cell("fame", "9" * 5000), ["row 1, column 'fame'", "(5000 characters)"]),
        (_cell("fame", "-3"), ["row 1, column 'fame'", "-3", "0 to 32767"]),
        (_cell("fame", "2.5"), ["row 1, column 'fame'", "2.5 is not a whole number"]),
        (lambda header, rows: rows[1].__delitem__(slice(3, None)), ["row 2", "empty"]),
        (_cell("seat", "99"), ["row 1, column 'seat'", "99", "0 to 1 (a 2-player file)"]),
        (_cell("win_share", "2.0"), ["row 1, column 'win_share'", "2.0", "0 to 1"]),
        (_cell("won", "maybe"), ["row 1, column 'won'", "'maybe'", "True/False"]),
        (_cell("strategy", "gre\x1bedy"), ["row 1, column 'strategy'", "control characters"]),
        (_cell("strategy", ""), ["row 1, column 'strategy'", "empty"]),
        (_cell("end_reason", "boom"), ["row 1, column 'end_reason'", "days, commission-"]),
        (_cell("plan_day1", "P\x07"), ["row 1, column 'plan_day1'", "control characters"]),
        (lambda header, rows: rows.__delitem__(1), ["game 0 has 1 rows", "one row per seat"]),
        (_cell("seat", "0", row=1), ["game 0 does not have one row for each seat 0 to 1"]),
        (_cell("win_share", "0.5"), ["game 0's win_share, n_winners and won disagree"]),
        (_cell("fame", "99"), ["row 1, column 'fame': 99 is not fame_commissions + "]),
        (_loser_to_90, ["winners (win_share > 0) are not the seats with the most fame"]),
        (_other_end_reason, ["row 1: game 0: its rows disagree on end_reason"]),
        (_turn_taken_twice, ["row 1: game 0: column 'turn_day1' does not give each seat"]),
        # not reported, so not read at all: -2 passed as sound
        (_cell("paintings_sold", "-2"), ["row 1, column 'paintings_sold'", "-2 is not a whole"]),
        (_cell("goals_won", "1.5"), ["row 1, column 'goals_won'", "1.5"]),
    ],
    ids=[
        "fame-word", "fame-nan", "fame-inf", "fame-5000-digits", "fame-negative",
        "fame-fraction", "short-row", "seat-99", "win-share-2", "won-maybe", "strategy-esc",
        "strategy-empty", "end-reason", "plan-bell", "game-short-a-row", "seat-twice",
        "win-share-half", "fame-not-its-parts", "loser-most-fame", "end-reason-differs",
        "turn-twice", "sold-negative", "goals-fraction",
    ],
)  # fmt: skip
def test_edited_results_rows_are_one_line(results_csv, tmp_path, edit, needles):
    """Cells a report cannot use were tracebacks (ValueError, IntCastingNaNError, "'list'
    argument must have no negative elements"), and rows that no game can have (seat 99 in
    a 2-player file, win_share 2.0, a negative fame, won=maybe, a raw ESC in a strategy
    label) were reported as if played; ``read_results`` now checks the rows once for
    every command and the Python API, naming the row, the column and what is allowed."""
    import sunset_sim
    from sunset_sim.validation import InputError

    path = _edited_copy(results_csv, tmp_path, edit)
    fails(_report(path, tmp_path), f"{path}: ", *needles)
    assert not (tmp_path / "rep").exists()
    with pytest.raises(InputError):
        sunset_sim.read_results(path)


@pytest.mark.parametrize("column", ["turn_day3", "plan_day3", "goal_day2", "fame_day6"])
def test_one_days_column_dropped_is_refused(results_csv, tmp_path, column):
    """A report on a file with one day's column dropped exited 0 with changed tables and
    no word (a whole kind of column missing has its note: a cut file is not that)."""

    def drop(header, rows):
        at = header.index(column)
        for row in [header, *rows]:
            del row[at]

    path = _edited_copy(results_csv, tmp_path, drop)
    kind = column.rstrip("0123456789")
    fails(_report(path, tmp_path), f"results: column '{column}' missing ({kind}* has days ")
    assert not (tmp_path / "rep").exists()


def test_unedited_results_still_report(results_csv, tmp_path):
    path = _edited_copy(results_csv, tmp_path, lambda header, rows: None)
    ok(_report(path, tmp_path))

    def won_as_digits(header, rows):  # won as 1/0, without a sidecar (an older file)
        for row in rows:
            row[header.index("won")] = "1" if row[header.index("won")] == "True" else "0"

    path = _edited_copy(results_csv, tmp_path, won_as_digits, sidecar=False)
    ok(cli("report", path, "--out", tmp_path / "rep", "-q", "--study-games", "0", "--force"))


def test_results_seat_beyond_four_players_without_a_sidecar(results_csv, tmp_path):
    path = _edited_copy(results_csv, tmp_path, _cell("seat", "99"), sidecar=False)
    fails(_report(path, tmp_path), "row 1, column 'seat'", "0 to 3 (a game has at most 4")


def test_results_csv_that_is_not_utf8_is_one_line(results_csv, tmp_path):
    path = _edited_copy(results_csv, tmp_path, lambda header, rows: None)
    path.write_bytes(path.read_bytes().replace(b"greedy", b"gr\xe9edy", 1))
    fails(_report(path, tmp_path), f"{path}: not UTF-8 text")


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda run: run.__setitem__("cards", [1]), "cards: expected an object"),
        (lambda run: run.__setitem__("cards", "x"), "cards: expected an object"),
        (lambda run: run["cards"].update(hash=7, text=None), "cards.hash: expected a string"),
        (lambda run: run.__setitem__("players", 9), "players: expected a whole number 2 to 4"),
        (lambda run: run.__setitem__("rules", []), "rules: expected a mapping"),
        (lambda run: run.__setitem__("seed", 10**5000), "seed: a number of more than 4,300"),
    ],
    ids=["cards-list", "cards-text", "hash-int", "players-9", "rules-list", "seed-5000-digits"],
)
@pytest.mark.parametrize("form", ["csv", "parquet", "dataset"])
def test_edited_results_records_are_one_line(results_csv, tmp_path, change, needle, form):
    """A sidecar, Parquet metadata or dataset manifest whose fields have the wrong type
    was an AttributeError or TypeError traceback, and a 5000-digit number Python's own
    "Exceeds the limit (4300 digits)" advice, naming no file and no field."""

    import pyarrow.parquet as pq

    from sunset_sim.provenance import METADATA_KEY
    from sunset_sim.run.dataset import MANIFEST

    sys.set_int_max_str_digits(0)  # json.dumps of the 5000-digit seed
    try:
        if form == "csv":
            path = _edited_copy(results_csv, tmp_path, lambda header, rows: None)
            run = json.loads(Path(f"{path}.json").read_text())
            change(run)
            Path(f"{path}.json").write_text(json.dumps(run))
            where = f"{path}.json: "
        elif form == "parquet":
            path = tmp_path / "r.parquet"
            ok(cli("simulate", "--games", "6", "--players", "2", "--quiet", "--out", path))
            table = pq.read_table(path)
            run = json.loads(table.schema.metadata[METADATA_KEY])
            change(run)
            pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(run)}), path)
            where = f"{path}: "
        else:
            path = tmp_path / "ds"
            ok(cli(*DATASET, "--out", f"{path}/"))
            manifest = json.loads((path / MANIFEST).read_text())
            change(manifest["run"])
            (path / MANIFEST).write_text(json.dumps(manifest))
            where = f"{path / MANIFEST}: "
    finally:
        sys.set_int_max_str_digits(4300)
    fails(_report(path, tmp_path), where, needle)


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("players", 9, "players: expected a whole number 2 to 4, got 9"),
        ("cards_text", 5, "cards_text: expected the card set's TOML text"),
    ],
)
def test_every_manifest_reader_checks_its_record(tmp_path, key, value, needle):
    """The manifest's record was checked only by the report's reader: read_dataset read
    a manifest whose run said players 9, and --resume took over a cards_text of 5.
    read_manifest checks it now, for every reader, with the report's messages."""
    from sunset_sim.run import RunError
    from sunset_sim.run.dataset import MANIFEST, read_dataset

    folder = tmp_path / "ds"
    ok(cli(*DATASET, "--out", f"{folder}/"))
    manifest = json.loads((folder / MANIFEST).read_text())
    (manifest["run"] if key == "players" else manifest)[key] = value
    (folder / MANIFEST).write_text(json.dumps(manifest))
    line = f"{folder / MANIFEST}: {needle}"
    with pytest.raises(RunError) as error:
        read_dataset(folder)
    assert str(error.value) == line
    assert fails(cli(*DATASET, "--out", f"{folder}/", "--resume")) == f"error: {line}"
    fails(_report(folder, tmp_path), line)


def test_a_parquet_fame_that_is_nan_is_one_line(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "r.parquet"
    ok(cli("simulate", "--games", "6", "--players", "2", "--quiet", "--out", path))
    table = pq.read_table(path)
    fame = pa.array([None, *table["fame"].to_pylist()[1:]], type=pa.float64())
    table = table.set_column(table.schema.get_field_index("fame"), "fame", fame)
    pq.write_table(table, path)
    fails(_report(path, tmp_path), f"{path}: row 1, column 'fame': an empty (or NaN) cell")


def test_results_and_rules_of_the_wrong_type_in_python_are_input_errors():
    """``read_results(5)`` and ``Rules.from_dict([])`` were TypeErrors."""
    import sunset_sim
    from sunset_sim.rules.options import Rules
    from sunset_sim.validation import InputError

    with pytest.raises(InputError, match="path: expected a results file or dataset folder"):
        sunset_sim.read_results(5)
    with pytest.raises(InputError, match="expected a mapping of rule options"):
        Rules.from_dict([])
    with pytest.raises(InputError, match="unknown rule option 1 "):
        Rules.from_dict({1: 2, "days": 4})


def test_json_numbers_of_more_than_4300_digits_name_their_field(tmp_path):
    """A params file, game record or dataset manifest with a 5000-digit number printed
    Python's "Exceeds the limit (4300 digits) for integer string conversion ... use
    sys.set_int_max_str_digits()": now the file and the field, in one line."""
    params = tmp_path / "p.json"
    params.write_text('{"name": "balanced", "params": {"deny": 9' + "9" * 5000 + "}}")
    fails(
        cli("simulate", "--games", "5", "--quiet", "--strategy", f"balanced:params={params}"),
        f"params file {params}: params.deny: a number of more than 4,300 digits",
    )
    record = tmp_path / "game.json"
    record.write_text('{"format": "x", "days": [{"fame": [1, -' + "7" * 5000 + "]}]}")
    with pytest.raises(RecordError, match=r"^days\[0\]\.fame\[1\]: a number of more than 4,300"):
        load_record(record)
    fails(cli("replay", record), "days[0].fame[1]: a number of more than 4,300 digits")


def test_a_report_is_not_written_into_the_dataset_folder_it_reads(tmp_path):
    """`report ds/ -o ds --force` wrote plots and tables into the dataset, which
    `simulate --resume` and `--force` then refused (files not part of a dataset)."""
    from conftest import cli, fails, ok

    folder = tmp_path / "ds"
    ok(cli("simulate", "-q", "-n", 40, "-p", 2, "--jobs", 1, "-o", f"{folder}/"))
    before = sorted(p.name for p in folder.iterdir())
    for out in (folder, folder / "sub"):
        fails(cli("report", folder, "-o", out, "--force", "-q"), "is the results folder")
    assert sorted(p.name for p in folder.iterdir()) == before
    ok(cli("report", folder, "-o", tmp_path / "rep", "-q"))


def test_a_newline_in_a_strategy_path_folder_is_shown_escaped(monkeypatch):
    """The one-line warnings join a message's lines: the newline read as a space."""
    from sunset_sim import strategy

    monkeypatch.setenv(strategy.STRATEGY_PATH_VARIABLE, "/nonexistent\nfolder")
    strategy.forget_registry()
    try:
        result = cli("strategies")
    finally:
        monkeypatch.delenv(strategy.STRATEGY_PATH_VARIABLE)
        strategy.forget_registry()
    assert "warning: strategy path /nonexistent\\nfolder: not a folder" in result.stderr
