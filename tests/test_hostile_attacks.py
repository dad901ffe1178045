"""Hostile input, the attack set rerun (issue "Hostile input and hard faults", continued
from test_hostile.py): strings that reach the terminal, the day number, a byte order
mark, a second writer of one output, memory running out, outputs the system refuses,
engine limits. Every case ends in one line and exit code 2 (or the right answer)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest
from conftest import cli, fails, ok
from test_hostile import TEXT, problems, record_of_default_game
from test_output_safety import DATASET

from sunset_sim.play import play_reference
from sunset_sim.records.replay import RecordError, replay
from sunset_sim.strategy import seat_players

# ---- the attack set rerun: strings that reach the terminal, the day number, a BOM -------


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ('id = "C01"', 'id = "\\u001b[2JC01\\u0007"', "id: must not contain control"),
        ('id = "C01"', 'id = "C\\u0000"', "id: must not contain control"),
        ('id = "L01"', 'id = "L\\n01"', "id: must not contain control"),
        ('id = "C01"', 'id = "' + "C" * 100_000 + '"', "id: must be at most 64 characters"),
        (
            'name = "sunset-default-reconstructed"',
            'name = "x\\u001b]0;owned\\u0007"',
            "name: must not contain control",
        ),
        ('name = "sunset-default-reconstructed"', 'name = "' + "n" * 500 + '"', "at most 400"),
    ],
    ids=["escape-id", "nul-id", "newline-id", "long-id", "escape-name", "long-name"],
)
def test_ids_and_names_that_reach_the_terminal_are_refused(old, new, needle):
    """Card ids and the set's name are printed by play, cards, study and reports: a control
    character in one would drive the user's terminal, so the loader refuses it."""
    assert old in TEXT
    found = problems(TEXT.replace(old, new, 1))
    assert any(needle in line for line in found), found
    assert all(line.isprintable() for line in found), found  # the problem lines too


def test_card_file_with_a_byte_order_mark_loads(tmp_path):
    """Some editors save UTF-8 with a BOM; tomllib alone calls it an invalid statement."""
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    assert "sunset-default-reconstructed" in ok(cli("cards", "--cards", path))


def test_record_hash_is_printed_without_terminal_escapes(tmp_path):
    record = record_of_default_game()
    record["cards"] = {"name": "n\x1b[2J", "hash": "\x1b]0;owned\x07\x1b[2J"}
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record))
    line = fails(cli("replay", file), "pass --cards FILE")
    assert line.isprintable(), line


def test_a_record_replayed_with_another_card_set_says_the_one_given_differs(tmp_path):
    """--cards FILE of another set: the line says that set is not the record's (it said
    "pass --cards FILE", as when none is given)."""
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record_of_default_game()))
    other = tmp_path / "other.toml"
    other.write_text(TEXT.replace("[set]\n", "[set]\n# another set\n", 1))
    line = fails(cli("replay", file, "--cards", other), "the --cards FILE given is another set")
    assert "pass --cards" not in line


@pytest.mark.parametrize(("value", "shown"), [("x", "str"), (None, "null"), ({}, "dict")])
def test_a_record_whose_days_are_not_a_list_says_so(tmp_path, value, shown):
    """``"days": "x"`` (or null, or an object) is a field of the wrong type, not a
    record that stops early (it read "day 1: R-END-1: the record stops after day 0")."""
    record = record_of_default_game()
    record["days"] = value
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record))
    fails(cli("replay", file), f"days: expected a list of the days played, not {shown}")


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (5, "the record numbers this day 5"),
        (0, "the record numbers this day 0"),
        (None, "expected a whole number, got null"),
        ("1", 'expected a whole number, got "1"'),  # not "numbers this day 1" (the audit)
        (1.0, "expected a whole number, got 1.0"),
        ("\x1b[2J", 'expected a whole number, got "\\x1b[2J"'),
    ],
)
def test_replay_checks_each_days_number(value, needle):
    """A day's ``day`` field, when present, is its place in ``days`` (it was ignored)."""
    record = record_of_default_game()
    record["days"][0]["day"] = value
    with pytest.raises(RecordError, match="^day 1: day: ") as info:
        replay(record)
    assert str(info.value).isprintable()
    assert needle in str(info.value), str(info.value)


ESCAPE = "\x1b[2J\x1b]0;owned\x07"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.__setitem__("fame", [ESCAPE] * 2),
        lambda r: r.__setitem__("fame_parts", [ESCAPE] * 2),
        lambda r: r["days"][0]["turns"][0].__setitem__("seat", ESCAPE),
        lambda r: r["days"][0]["turns"][0]["painted"][0].__setitem__("cell", ESCAPE),
    ],
    ids=["fame", "fame-parts", "turn-seat", "painted-cell"],
)
def test_no_record_string_reaches_the_terminal_raw(tmp_path, mutate):
    """Whichever check fails, the one line quotes the record's strings escaped."""
    record = record_of_default_game()
    mutate(record)
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record))
    line = fails(cli("replay", file))
    assert line.isprintable() and "\\x1b[2J" in line, line


@pytest.mark.parametrize(
    "text",
    ["greedy:lateness=1,lateness=2", "greedy:lateness=1, lateness =1"],
)
def test_a_strategy_parameter_given_twice_is_refused(text):
    """``lateness=1,lateness=2`` silently played lateness 2; now it names the key."""
    from sunset_sim.strategy import StrategyError, make_player

    with pytest.raises(StrategyError, match="given more than once"):
        make_player(text)
    fails(cli("play", "--players", "2", "--quiet", "--strategy", text), "more than once")


@pytest.mark.parametrize(
    "text", ["greedy:lateness=1,", "greedy:lateness=1,,goal=0", "greedy:,goal=0"]
)
def test_an_empty_item_beside_others_is_refused(text):
    """ "greedy:lateness=1," was a second entrant beside "greedy:lateness=1" (its label
    kept the comma), where `sweep --param greedy:lateness=0,,1` refuses an empty value."""
    from sunset_sim.strategy import StrategyError, make_player

    with pytest.raises(StrategyError, match="an empty item in .*a comma too many"):
        make_player(text)
    fails(cli("play", "--players", "2", "--quiet", "--strategy", text), "a comma too many")


@pytest.mark.parametrize("text", ["greedy:", "greedy: ", "greedy:,"])
def test_a_strategy_text_that_sets_nothing_is_the_plain_strategy(text):
    """The audit: "greedy:" was labelled "greedy:" ("greedy: " with its space), so a
    tournament of greedy and "greedy:" passed its two-strategies check with one strategy."""
    from sunset_sim.strategy import make_player

    player = make_player(text)
    assert player.name == "greedy"
    assert player.params.tolist() == make_player("greedy").params.tolist()
    fails(
        cli("tournament", "--strategy", "greedy", "--strategy", text, "--games", "2"),
        "--strategy: a tournament needs at least two different strategies",
    )


@pytest.mark.parametrize("kind", ["device", "fifo", "too-big"])
def test_replay_reads_only_a_bounded_regular_file(tmp_path, kind):
    """``replay /dev/zero`` read until MemoryError and a FIFO without a writer blocked."""
    import os

    if kind == "device":
        path, needle = "/dev/zero", "not a regular file"
    elif kind == "fifo":
        path, needle = tmp_path / "pipe", "not a regular file"
        os.mkfifo(path)
    else:
        from sunset_sim.records.replay import MAX_RECORD_BYTES

        path, needle = tmp_path / "big.json", "larger than"
        path.write_text(json.dumps(record_of_default_game()) + " " * MAX_RECORD_BYTES)
    started = time.perf_counter()
    fails(cli("replay", path), needle)
    assert time.perf_counter() - started < 10


def _turn(record: dict) -> dict:
    """Day 1's first turn that paints (every default game has one)."""
    return next(t for t in record["days"][0]["turns"] if t.get("painted"))


def _painted(record: dict) -> dict:
    return _turn(record)["painted"][0]


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda r: r["rules"].__setitem__("days", True), "days: true is not a whole number"),
        (lambda r: r.__setitem__("rules", "days"), "rules: expected an object"),
        (lambda r: r.__setitem__("rules", 6), "rules: expected an object"),
        (lambda r: r["days"][0]["plans"][0].__setitem__("kept", ["P1"]), "unknown plan id"),
        (
            lambda r: r["setup"].__setitem__("landscapes", [[x] for x in r["setup"]["landscapes"]]),
            "unknown landscape id",
        ),
        # the audit: each was "malformed record (ValueError: not enough values to unpack)",
        # an AttributeError or a TypeError, naming no field
        (lambda r: _turn(r).__setitem__("hike", [1, 2]), "hike: expected an object"),
        (lambda r: _painted(r).__setitem__("cell", [1]), "R-PAINT-1: painted cell [1] is"),
        (lambda r: _turn(r).__setitem__("painted", "L08"), 'painted: expected a list, got "L08"'),
        (lambda r: _turn(r).__setitem__("painted", [None]), "painted: expected objects"),
        (lambda r: _turn(r).__setitem__("sales", [None]), "sales: expected objects"),
        (lambda r: r["days"][0]["plans"].__setitem__(0, None), "plans[0]: expected an object"),
        # a wrong type read as the right value ("the record numbers this day 1")
        (lambda r: r["days"][0].__setitem__("day", "1"), 'day: expected a whole number, got "1"'),
        (lambda r: _turn(r).__setitem__("seat", str(_turn(r)["seat"])), "seat: expected a whole"),
        (lambda r: r["days"][0].__setitem__("goal_holder", "0"), "goal_holder: expected a seat"),
        # accepted before
        (lambda r: r.__setitem__("rules", []), "rules: expected an object"),
        (lambda r: _painted(r).__setitem__("cell", [True, 2]), "R-PAINT-1: painted cell [true"),
        (lambda r: r.__setitem__("winners", [float(w) for w in r["winners"]]), "winners: expected"),
        (lambda r: r.__setitem__("cards", None), "cards: expected an object"),
        (lambda r: r["cards"].__setitem__("name", 5), "cards: name: expected a string, got 5"),
    ],
    ids=[
        "days-true",
        "rules-text",
        "rules-number",
        "kept-list",
        "landscapes-nested",
        "hike-list",
        "cell-short",
        "painted-text",
        "painted-null",
        "sale-null",
        "plan-null",
        "day-text",
        "seat-text",
        "holder-text",
        "rules-list",
        "cell-true",
        "winners-float",
        "cards-null",
        "cards-name-number",
    ],
)
def test_record_values_of_the_wrong_type_name_their_field(mutate, needle):
    """``days: true`` played a one-day game; a list where an id belongs said only
    'malformed record (TypeError: unhashable type)'."""
    record = record_of_default_game()
    mutate(record)
    with pytest.raises(RecordError, match=re.escape(needle)):
        replay(record)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("report", "--games", "20", "--players", "2", "--study-games", "0", "--out"), "rep"),
        (("study", "--games", "10", "--players", "2", "--families", "plan", "--edits", "none",
          "--no-suggest", "--out"), "st"),
        (("play", "--players", "2", "--record"), "game.json"),
        (("tune", "greedy", "--games", "2", "--players", "2", "--generations", "1",
          "--population", "4", "--validation-games", "2", "--out"), "t.json"),
        (("sweep", "--games", "4", "--players", "2", "--rule-values", "days=4,5", "--plot"),
         "s.png"),
    ],
    ids=["report", "study", "play-record", "tune-out", "sweep-plot"],
)  # fmt: skip
def test_a_second_writer_of_the_same_output_is_refused(tmp_path, monkeypatch, args, name):
    """Two reports into one folder both said they succeeded; the folder held files of both
    (the attack rerun found 1 file of the first run among 26 of the second)."""
    import fcntl

    monkeypatch.chdir(tmp_path)
    with open(tmp_path / f".{name}.writing", "a+b") as other:  # another run's lock
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fails(cli(*args, name, "--quiet"), "another sunset-sim run is writing this output")
    assert not (tmp_path / name).exists()
    ok(cli(*args, name, "--quiet"))  # the lock released: a run alone writes
    ok(cli(*args, name, "--quiet", "--force"))  # and the next one too (released at the end)
    assert not (tmp_path / f".{name}.writing").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "--b-rule", "days=4", "--games"),
        ("sweep", "--rule-values", "days=4,5", "--games"),
        ("tune", "greedy", "--generations", "1", "--population", "4", "--games"),
        ("study", "--out", "st", "--games"),
        ("report", "--games", "50", "--out", "rep", "--study-games"),
    ],
    ids=["compare", "sweep", "tune", "study", "report-study"],
)
def test_the_largest_number_of_deals_is_one_line_when_memory_runs_out(tmp_path, args):
    """10**10 deals (the stated limit) allocate 149 GiB up front in the paired commands:
    a MemoryError traceback before; now one line, exit 2 (run with 8 GiB of address space):
    the memory line, or the chunk plan's limit where it comes first."""
    import resource
    import subprocess

    from conftest import console_script

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

    done = subprocess.run(
        [*console_script(), *args, str(10**10), "--players", "2", "--quiet"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, preexec_fn=limit,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    # (the chunk plan's limit refuses 10**10 deals in chunks of 50,000 before memory can)
    refused = ("not enough memory", "chunks, more than the limit of 100,000; give")
    assert len(lines) == 1 and any(why in lines[0] for why in refused), done.stderr
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_report_study_games_has_a_stated_range(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fails(cli("report", "--games", "5", "--out", "r", "--study-games", str(10**30)), "limit")


@pytest.mark.parametrize(
    ("out", "needle"),
    [
        ("x" * 300 + ".parquet", "File name too long"),
        ("x" * 300 + ".csv", "File name too long"),
        ("x" * 300, "File name too long"),
        ("/proc/ds", "/proc/ds"),
        ("link", "link: a link to"),  # a dangling symbolic link where the folder goes
    ],
    ids=["long-parquet", "long-csv", "long-folder", "proc-folder", "dangling-link"],
)
def test_an_output_path_the_system_refuses_is_one_line(tmp_path, monkeypatch, out, needle):
    """These were OSError tracebacks (ENAMETOOLONG, ENOENT, EEXIST) found by the rerun."""
    import os

    monkeypatch.chdir(tmp_path)
    os.symlink(tmp_path / "nowhere" / "x", tmp_path / "link")
    fails(cli("simulate", "--games", "5", "--quiet", "--out", out), needle)


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--generations", str(10**30), "more than the limit of 10,000"),
        ("--population", str(2**64), "more than the limit of 10,000"),
        ("--population", "2", "use a population of at least 3"),
    ],
    ids=["generations", "population", "elite-hint"],
)
def test_tune_search_sizes_have_a_stated_range(tmp_path, monkeypatch, option, value, needle):
    """10**30 generations ran on, a 2**64 population was a ValueError traceback, and
    population 2 with elite 0.25 (which keeps round(0.5) = 0) was told to use 2."""
    monkeypatch.chdir(tmp_path)
    fails(cli("tune", "greedy", "--players", "2", "--quiet", option, value), needle)


def test_study_out_empty_is_refused(tmp_path, monkeypatch):
    """``study --out ''`` wrote its files into the current folder (report was fixed)."""
    monkeypatch.chdir(tmp_path)
    fails(cli("study", "--games", "5", "--quiet", "--out", ""), "--out: empty path")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--players", "2", "--quiet", "--record"),
        ("simulate", "--games", "5", "--quiet", "--out"),
    ],
    ids=["play-record", "simulate-out"],
)
def test_force_never_replaces_a_device(tmp_path, monkeypatch, args):
    """``--record /dev/null --force`` (as root) replaced the device with a regular file:
    the attack rerun did it with a FIFO and a device node of its own."""
    import os
    import stat

    monkeypatch.chdir(tmp_path)
    name = "r.json" if args[0] == "play" else "o.csv"
    os.mkfifo(tmp_path / name)
    fails(cli(*args, name, "--force"), "not a regular file")
    assert stat.S_ISFIFO(os.lstat(tmp_path / name).st_mode)


@pytest.mark.parametrize("game", [str(2**64), str(10**30), "-1"])
def test_play_game_index_has_a_stated_range(game):
    """``play --game 2**64`` played game 0 again (a silent wrap, as --seed did)."""
    fails(cli("play", "--players", "2", "--quiet", "--game", game), "--game")


@pytest.mark.parametrize("game", [2**64, 10**30, -1, 1.5])
def test_play_reference_game_index_has_the_same_range(game):
    """The Python ``play_reference(game_index=2**64)`` played game 0's deal again."""
    from sunset_sim.validation import InputError

    with pytest.raises(InputError, match="game_index"):
        play_reference(None, ["greedy"] * 3, seed=7, game_index=game)


def _dataset_with(tmp_path, change) -> object:
    from sunset_sim.run.dataset import MANIFEST

    folder = tmp_path / "ds"
    ok(cli(*DATASET, "--out", f"{folder}/"))
    manifest = json.loads((folder / MANIFEST).read_text())
    change(folder, manifest)
    return folder


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (
            lambda folder, m: m["chunks"][0].__setitem__("file", "../outside.parquet"),
            "not this folder's part file",
        ),
        (lambda folder, m: m["chunks"].append(m["chunks"][0]), "overlaps another"),
        (lambda folder, m: m["chunks"][0].__setitem__("games", -5), "overlaps another"),
        (lambda folder, m: m["chunks"][0].__setitem__("file", 5), "not this folder's part"),
    ],
    ids=["outside-file-that-exists", "chunk-twice", "negative-games", "file-not-text"],
)
def test_report_reads_only_the_folders_own_chunks_once(tmp_path, change, needle):
    """``report DIR/`` read whatever file a manifest named (an existing file out of the
    folder was opened), counted a chunk listed twice twice, and a number as a file name
    was a TypeError traceback; ``read_dataset`` already refused the first."""
    import shutil

    from sunset_sim.run.dataset import MANIFEST

    def write(folder, manifest):
        shutil.copy(folder / manifest["chunks"][0]["file"], tmp_path / "outside.parquet")
        change(folder, manifest)
        (folder / MANIFEST).write_text(json.dumps(manifest))

    folder = _dataset_with(tmp_path, write)
    fails(cli("report", f"{folder}/", "--out", tmp_path / "rep", "--quiet"), needle)
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("kind", ["deep", "fifo"])
def test_a_damaged_manifest_is_one_line(tmp_path, kind):
    """A manifest nested 100,000 deep was a RecursionError traceback; a FIFO in its place
    would block the read."""
    import os

    from sunset_sim.run.dataset import MANIFEST

    def damage(folder, manifest):
        (folder / MANIFEST).unlink()
        if kind == "deep":
            (folder / MANIFEST).write_text("[" * 100_000 + "]" * 100_000)
        else:
            os.mkfifo(folder / MANIFEST)

    folder = _dataset_with(tmp_path, damage)
    fails(cli("report", f"{folder}/", "--out", tmp_path / "rep", "--quiet"), "_manifest.json")
    fails(cli(*DATASET, "--out", f"{folder}/", "--resume"), "_manifest.json")


def test_report_refuses_a_chunk_damaged_without_a_size_change(tmp_path):
    """``--resume`` checks each part's SHA-256 (issue item 8); ``report DIR/`` read the
    damaged part as results."""
    from sunset_sim.run.dataset import MANIFEST

    def damage(folder, manifest):
        part = folder / manifest["chunks"][1]["file"]
        data = bytearray(part.read_bytes())
        data[len(data) // 2] ^= 0xFF
        part.write_bytes(bytes(data))

    folder = _dataset_with(tmp_path, damage)
    assert json.loads((folder / MANIFEST).read_text())["complete"]
    fails(cli("report", f"{folder}/", "--out", tmp_path / "rep", "--quiet"), "damaged", "SHA-256")


@pytest.mark.parametrize("n_players", [0, 1, 5, 8])
def test_engine_refuses_seats_outside_two_to_four(n_players):
    """R-COMP-5: the engine's own entry points refuse what the CLI and API refuse (five
    seats once wrote past the kernel's four-artist arrays and crashed the process)."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games, trace_game
    from sunset_sim.rules.options import Rules

    tables = build_tables(load_cards())
    players = seat_players(["greedy"], max(n_players, 1))[:n_players]
    with pytest.raises(ValueError, match=f"players: {n_players} seats is outside 2 to 4"):
        run_games(tables, players, Rules(), 0, 0, 3)
    with pytest.raises(ValueError, match="outside 2 to 4"):
        trace_game(tables, players, Rules(), 0, 0)


def test_engine_refuses_fewer_plan_cards_than_a_hand():
    """R-PLAN-1: a card set is validated to hold days + 2 plan cards, but tables built by
    hand reach the engine without that check, and the kernel's plan deck wraps round by
    one subtraction (plan.ring_index), which reads past the deck below three cards."""
    import dataclasses

    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules

    cards = load_cards()
    tables = build_tables(dataclasses.replace(cards, plans=cards.plans[:2]))
    with pytest.raises(ValueError, match="2 plan cards; a hand is 3"):
        run_games(tables, seat_players(["greedy"], 2), Rules(), 0, 0, 3)
    three = build_tables(dataclasses.replace(cards, plans=cards.plans[:3]))
    out = run_games(three, seat_players(["greedy"], 2), Rules(days=1), 0, 0, 3)
    assert (out.plan[:, :, 0] >= 0).all() and (out.plan[:, :, 0] < 3).all()


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--players", "2", "--record", "/proc/g.json"),
        ("simulate", "--games", "5", "--out", "/proc/x.parquet"),
        ("report", "--games", "5", "--out", "/proc/report"),
    ],
    ids=["play-record", "simulate-file", "report-folder"],
)
def test_an_output_folder_that_cannot_be_written_is_refused_first(args):
    """/proc passes the permission test for root but takes no new file: said at the
    start, before any game (play printed a whole game, then failed on the record)."""
    result = cli(*args, "--quiet")
    line = fails(result, "/proc")
    # root: the probe file fails; anyone else: the permission test
    assert "cannot write in folder /proc" in line or "is not writable" in line, line
    assert result.stdout == "", line


def test_plots_with_an_unwritable_home_print_nothing_of_matplotlib(tmp_path):
    """With no writable cache folder (HOME unwritable), matplotlib's own fallback printed
    two lines of warnings on every plot; the tool now gives it a temporary folder."""
    from sunset_sim.engine.jit import cache_folder

    code = (
        "import os, tempfile\n"
        "from sunset_sim.analysis.report.plotting import _matplotlib_cache\n"
        "_matplotlib_cache()\n"
        "import matplotlib\n"
        "matplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\n"
        "plt.figure(); plt.plot([1, 2]); plt.savefig(os.path.join(os.environ['OUT'], 'p.png'))\n"
        "assert os.environ['MPLCONFIGDIR'].startswith(tempfile.gettempdir())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "MPLCONFIGDIR")}
    env.update(HOME="/proc/no-home", OUT=str(tmp_path))
    env["NUMBA_CACHE_DIR"] = str(cache_folder() or tmp_path)  # the compile cache as it is
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and (tmp_path / "p.png").is_file()
