"""Hostile input (issue "Hostile input and hard faults"): every case ends in one line and
exit code 2 (or the right answer), never a traceback, a hang, a wrong figure or a file
opened that the user did not name."""

from __future__ import annotations

import json
import time

import pytest
from conftest import cli, fails, ok

from sunset_sim.cards.fields import MAX_FAME, MAX_FILE_BYTES, MAX_NESTING
from sunset_sim.cards.loader import CardSetError, default_cards_text, parse_cards
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
        # (Python's own advice, "use sys.set_int_max_str_digits()", is not passed on)
        ("x = " + "7" * 5_000 + "\n", "toml: line 1: a number of more than 4,300 digits"),
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


@pytest.mark.parametrize("threads", ["0", "-1", "abc", "", "\u00b2", "+0", "1_0"])
def test_a_bad_thread_count_in_the_environment_is_one_line(threads):
    """numba reads NUMBA_NUM_THREADS when the engine starts: 0 gave its traceback (exit
    1), a word its warning with a flattened traceback (then exit 0)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_NUM_THREADS": threads}
    done = subprocess.run(
        [sys.executable, "-m", "sunset_sim", "simulate", "-q", "--games", "5"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "error: NUMBA_NUM_THREADS: expected a whole number of threads, at least 1, "
        f"got {threads!r}\n"
    )


def test_a_numba_setting_it_cannot_read_is_one_warning_line():
    """NUMBA_DISABLE_JIT=x (docs/writing-a-strategy.md has users set it) printed numba's
    warning with a whole traceback flattened into it, then ran as usual."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_DISABLE_JIT": "x"}
    done = subprocess.run(
        [sys.executable, "-m", "sunset_sim", "simulate", "-q", "--games", "5", "--players", "2"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "warning: environment variable NUMBA_DISABLE_JIT: its value 'x' could not be read; "
        "numba ignores it\n"
    )


def test_a_chunk_too_large_to_hold_in_memory_is_refused():
    """--chunk-size 10000000000 grew by 11 MB/s until memory ran out (a chunk's rows are
    held in memory; the README says memory stays flat)."""
    from click.testing import CliRunner

    from sunset_sim.cli import main
    from sunset_sim.validation import MAX_CHUNK, InputError, check_chunk_size

    assert check_chunk_size(MAX_CHUNK) == MAX_CHUNK
    with pytest.raises(InputError, match="more than the limit of 1,000,000"):
        check_chunk_size(MAX_CHUNK + 1)
    from sunset_sim.runner import iter_seatings, simulate_to_dataset, simulate_to_file

    for call in (
        lambda: simulate_to_dataset("unused/", 10, 2, ["greedy"], 0, chunk_size=MAX_CHUNK + 1),
        lambda: simulate_to_file(None, 10, 2, ["greedy"], 0, None, None, chunk_size=10**10),
        lambda: next(iter_seatings(10, 2, [["greedy"] * 2], chunk_size=10**10)),
    ):  # (the Python API: docs/cluster.md's simulate_to_dataset took any size)
        with pytest.raises(InputError, match="more than the limit"):
            call()
    result = CliRunner().invoke(
        main, ["simulate", "-q", "--games", "10", "--chunk-size", "10000000000"]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --chunk-size: 10000000000 is more than the limit of 1,000,000 (a chunk's "
        "rows are held in memory)"
    ]
