"""Hostile input (issue "Hostile input and hard faults"): every case ends in one line and
exit code 2 (or the right answer), never a traceback, a hang, a wrong figure or a file
opened that the user did not name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli, fails, ok
from test_output_safety import DATASET

from sunset_sim.cards.loader import (
    MAX_FAME,
    MAX_FILE_BYTES,
    MAX_NESTING,
    CardSetError,
    default_cards_text,
    parse_cards,
)
from sunset_sim.play import play_reference
from sunset_sim.records.replay import RecordError, load_record, replay
from sunset_sim.strategy import seat_players

TEXT = default_cards_text()


def problems(text: str) -> list[str]:
    with pytest.raises(CardSetError) as info:
        parse_cards(text, "mine.toml")
    return info.value.problems


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ('id = "C01"\nfame = 1', 'id = "C01"\nfame = 2147483647', "fame: must be 0 to 99"),
        ('id = "C01"\nfame = 1', 'id = "C01"\nfame = 2147483648', "fame: must be 0 to 99"),
        ('id = "G1"\nfame = 2', 'id = "G1"\nfame = 100', "fame: must be 0 to 99"),
        ("n = 3", "n = 4294967296", "n: must be 1 to 99"),
        ('id = "P8"\nwake = "6:45"', 'id = "P8"\nwake = "6:45"\n# ', None),  # control: valid
    ],
)
def test_every_number_has_a_stated_range(old, new, needle):
    """int32 overflow is impossible: fame, goal counts and paint are range-checked."""
    assert old in TEXT
    text = TEXT.replace(old, new, 1)
    if needle is None:
        parse_cards(text)
        return
    found = problems(text)
    assert any(needle in line for line in found), found
    assert all(line.startswith("mine.toml: ") for line in found)


def test_paint_range():
    text = TEXT.replace("paint = 3", "paint = 6", 1)
    assert any("paint: must be 1 to 5" in line for line in problems(text))
    assert MAX_FAME == 99


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a" + ".b" * 50_000 + " = 1\n", "dotted parts"),
        ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", f"nested more than {MAX_NESTING}"),
        ("x = " + "{a = " * 5_000 + "1" + "}" * 5_000 + "\n", f"nested more than {MAX_NESTING}"),
        ("# " + "x" * (MAX_FILE_BYTES + 10) + "\n", "larger than"),
        ("x = " + "7" * 5_000 + "\n", "toml"),
    ],
    ids=["dotted-key", "deep-arrays", "deep-tables", "huge-file", "huge-integer"],
)
def test_pathological_toml_is_refused_quickly(text, needle):
    started = time.perf_counter()
    found = problems(text)
    assert len(found) == 1 and needle in found[0], found
    assert time.perf_counter() - started < 5  # linear pre-check, not the quadratic parse


def test_strings_with_brackets_and_dots_are_not_counted():
    text = TEXT.replace(
        'name = "sunset-default-reconstructed"',
        'name = "' + "[{." * 100 + '"  # ' + "[[[[...." * 50,
    )
    assert parse_cards(text).name.startswith("[{.")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/stdin"])
def test_card_file_that_is_a_device_is_refused_at_once(device):
    started = time.perf_counter()
    line = fails(cli("simulate", "--games", "5", "--cards", device), device)
    assert "not a regular file" in line or "larger than" in line
    assert time.perf_counter() - started < 5


def test_overflowing_card_set_is_refused_by_simulate(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(TEXT.replace('id = "C01"\nfame = 1', 'id = "C01"\nfame = 2147483647'))
    fails(cli("simulate", "--games", "10", "--cards", path, "--quiet"), "fame", "0 to 99")


# ---- records: a record never names a file for the tool to open -----------------------


def record_of_default_game() -> dict:
    from sunset_sim.cards.loader import load_cards

    result = play_reference(load_cards(), seat_players(["greedy"], 2), seed=3)
    return json.loads(json.dumps(result.record))


@pytest.mark.parametrize(
    "path", ["/etc/shadow", "/proc/self/environ", "pyproject.toml", "/dev/zero", "-"]
)
def test_record_card_path_is_never_opened(path, tmp_path, monkeypatch):
    import builtins

    record = record_of_default_game()
    record["cards"] = {"name": "x", "hash": "0" * 16, "path": path}
    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    with pytest.raises(RecordError, match="pass it with --cards FILE") as info:
        replay(record)
    assert path not in opened
    assert "\n" not in str(info.value)


def test_record_path_message_has_no_terminal_escapes(tmp_path):
    record = record_of_default_game()
    record["cards"] = {"path": "evil\x1b[2J\x07.toml"}
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record))
    line = fails(cli("replay", file))
    assert "\x1b" not in line and "\x07" not in line


@pytest.mark.parametrize(
    "cards", [{"inline": 5}, {"inline": ["x"]}, {"path": 7}, {"path": {"a": 1}}]
)
def test_record_cards_of_the_wrong_type(cards):
    record = record_of_default_game()
    record["cards"] = cards
    with pytest.raises(RecordError) as info:
        replay(record)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text",
    ["[" * 200_000 + "]" * 200_000, '{"format": ' + "9" * 5_000 + "}"],
    ids=["deep", "huge-integer"],
)
def test_pathological_record_json(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert "\n" not in str(info.value)
    fails(cli("replay", path))


def test_default_record_still_replays(tmp_path):
    file = tmp_path / "ok.json"
    file.write_text(json.dumps(record_of_default_game()))
    assert "replay OK" in ok(cli("replay", file))


def test_replay_prints_no_terminal_escapes_from_a_record(tmp_path):
    record = record_of_default_game()
    record["strategies"] = ["evil\x1b]0;owned\x07\x1b[2J", "greedy"]
    file = tmp_path / "r.json"
    file.write_text(json.dumps(record))
    result = cli("replay", file)
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "replay OK" in result.stdout


# ---- odd values on the command line: one line, never a traceback ----------------------


HUGE = "1" + "0" * 30


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "--games", "abc"),
        ("simulate", "--bogus"),
        ("simulate", "--format", "xml"),
        ("simulate", "--backend", "ray"),
        ("tournament", "--games", "x1"),
        ("play", "--players", "three"),
        ("report", "--games", "2.5", "--out", "r"),
        ("nosuchcommand",),
        ("simulate", "--rule", "days=²"),
        ("simulate", "--rule", "days=" + "9" * 400),
        ("simulate", "--seed", str(2**64), "--games", "3"),
        ("play", "--seed", str(2**64)),
        ("tournament", "--seed", str(2**64)),
        ("report", "--games", "5", "--seed", str(2**64), "--out", "r"),
        ("compare", "--seed", str(2**64), "--b-rule", "days=4"),
        ("sweep", "--seed", str(2**64), "--rule-values", "days=4,5"),
        ("simulate", "--games", HUGE, "--out", "ds/"),
        ("compare", "--games", HUGE, "--b-rule", "days=4"),
        ("tune", "balanced", "--games", HUGE),
        ("study", "--games", HUGE),
    ],
)
def test_odd_command_line_values_are_one_line(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    started = time.perf_counter()
    fails(cli(*args))
    assert time.perf_counter() - started < 30
    assert list(tmp_path.iterdir()) == []  # nothing created


def test_seed_at_the_top_of_its_range_plays(tmp_path):
    ok(cli("play", "--players", "2", "--seed", str(2**64 - 1), "--quiet"))


# ---- params files: odd numbers and nesting --------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"params": {"lateness": 1' + "0" * 400 + "}}",
        '{"params": {"lateness": 1' + "0" * 5000 + "}}",
        '{"params": ' + "[" * 200_000 + "]" * 200_000 + "}",
        '{"params": {"lateness": ' + "[" * 50 + "]" * 50 + "}}",
    ],
    ids=["400-digits", "5000-digits", "deep", "array"],
)
@pytest.mark.parametrize(
    "command",
    [
        ("simulate", "--games", "5", "--quiet"),
        ("play", "--players", "2", "--quiet"),
        ("tournament", "--games", "5", "--quiet", "--strategy", "random"),
        ("compare", "--games", "5", "--quiet", "--b-rule", "days=4"),
        ("sweep", "--games", "5", "--quiet", "--rule-values", "days=4,5"),
        ("study", "--games", "5", "--quiet"),
    ],
    ids=lambda c: c[0],
)
def test_bad_params_files_are_one_line(tmp_path, monkeypatch, text, command):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "p.json"
    path.write_text(text)
    fails(cli(*command, "--strategy", f"greedy:params={path}"), "params file")


# ---- replay names the first wrong entry, when its day ends -----------------------------


def first_day_with(record: dict, test) -> int:
    return next(i for i, day in enumerate(record["days"]) if test(day)) + 1


def test_replay_names_a_wrong_day_one_goal_holder_on_day_one():
    record = record_of_default_game()
    record["days"][0]["goal_holder"] = (record["days"][0]["goal_holder"] or 0) + 1
    with pytest.raises(RecordError, match=r"^day 1: R-GOAL-2"):
        replay(record)


def test_replay_checks_each_days_fame_and_goal_and_the_end():
    record = record_of_default_game()
    record["days"][0]["fame"] = [f + 1 for f in record["days"][0]["fame"]]
    with pytest.raises(RecordError, match=r"^day 1: R-END-2: fame after the day"):
        replay(record)
    record = record_of_default_game()
    goals = [g for g in record["setup"]["goals"] if g != record["days"][0]["goal"]]
    record["days"][0]["goal"] = goals[0]
    with pytest.raises(RecordError, match=r"^day 1: R-SET-3"):
        replay(record)
    record = record_of_default_game()
    record["end"] = {"reason": "commission-shortage", "day": 2}
    with pytest.raises(RecordError, match=r"^R-END-1: the record says the game ended"):
        replay(record)


def test_replay_names_a_mis_noted_painting_on_its_own_day():
    record = record_of_default_game()
    day = first_day_with(record, lambda d: any(t["painted"] for t in d["turns"]))
    turn = next(t for t in record["days"][day - 1]["turns"] if t["painted"])
    held = {p["card"] for t in record["days"][day - 1]["turns"] for p in t["painted"]}
    turn["painted"][0]["card"] = next(c.id for c in load_default().landscapes if c.id not in held)
    with pytest.raises(RecordError, match=rf"^day {day}, player {turn['seat']}: R-PAINT-2"):
        replay(record)


def load_default():
    from sunset_sim.cards.loader import load_cards

    return load_cards()


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


@pytest.mark.parametrize("value", [5, 0, None, "1", 1.0, "\x1b[2J"])
def test_replay_checks_each_days_number(value):
    """A day's ``day`` field, when present, is its place in ``days`` (it was ignored)."""
    record = record_of_default_game()
    record["days"][0]["day"] = value
    with pytest.raises(RecordError, match="^day 1: day: the record numbers this day") as info:
        replay(record)
    assert str(info.value).isprintable()


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


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda r: r["rules"].__setitem__("days", True), "days: True is not a whole number"),
        (lambda r: r.__setitem__("rules", "days"), "rules: expected an object"),
        (lambda r: r.__setitem__("rules", 6), "rules: expected an object"),
        (lambda r: r["days"][0]["plans"][0].__setitem__("kept", ["P1"]), "unknown plan id"),
        (
            lambda r: r["setup"].__setitem__("landscapes", [[x] for x in r["setup"]["landscapes"]]),
            "unknown landscape id",
        ),
    ],
    ids=["days-true", "rules-text", "rules-number", "kept-list", "landscapes-nested"],
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
    a MemoryError traceback before; now one line, exit 2 (run with 8 GiB of address space)."""
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
    assert len(lines) == 1 and "not enough memory" in lines[0], done.stderr
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


def test_an_error_line_shows_control_characters_escaped():
    """A newline in a file name printed the error on two lines, an ESC reached the
    terminal: both are shown as Python writes them, on one line."""
    line = fails(cli("simulate", "-n", "5", "--cards", "a\nb\x1b[31m.toml"), "file not found")
    assert "a\\nb\\x1b[31m.toml" in line
    result = cli("cards", "--cards", "a\nb.toml")
    assert result.exit_code == 2 and result.stderr == "a\\nb.toml: file not found\n"


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
    ],
    ids=[
        "fame-word", "fame-nan", "fame-inf", "fame-5000-digits", "fame-negative",
        "fame-fraction", "short-row", "seat-99", "win-share-2", "won-maybe", "strategy-esc",
        "strategy-empty", "end-reason", "plan-bell", "game-short-a-row", "seat-twice",
        "win-share-half",
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
    import sys

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
