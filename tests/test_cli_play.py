"""The ``sunset-sim play`` and ``replay`` commands: the day-by-day log, game records and
their replay, and one-line errors for records that are damaged, tampered with or not
records at all (split from test_cli.py; its shared files are conftest's)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import cli, fails, ok, run_process, tampered

# ---------------------------------------------------------------- play


def test_play_prints_a_day_by_day_log():
    out = ok(cli("play", "--players", "3", "--seed", "7"))
    lines = out.splitlines()
    assert sum(line.startswith("== Day ") for line in lines) == 6
    orders = [line for line in lines if line.startswith("Order: ")]
    assert len(orders) == 6
    for line in orders:
        assert len(re.findall(r"seat \d [5-6]:[0-5]\d \(plan card P\d", line)) == 3, line
    turns = [line for line in lines if re.match(r"  seat \d \[greedy\]: (hikes|stays) ", line)]
    assert len(turns) == 18
    assert sum(line.startswith("Fame after day ") for line in lines) == 6
    assert any(line.startswith("== End: days after day 6") for line in lines)
    assert re.fullmatch(r"Winner: seat \d(, seat \d)*( \(tie\))?", lines[-1])
    # which game, set and rules first; the grid's letters named before the grid
    assert lines[0].startswith("Game 0 of seed 7; cards sunset-default-reconstructed (")
    assert lines[0].endswith("rules tie_break=random, days=6")
    assert lines[1].startswith("Features on the grid: m mountain, f flower, w waterfall")
    assert ok(cli("play", "--players", "3", "--seed", "7")) == out  # the same seed, the same log
    assert ok(cli("play", "--players", "3", "--seed", "8")) != out


def test_the_log_tells_a_stay_and_features_sharing_an_initial_apart(tmp_path):
    """A 0-step hike read "hikes stays to [0, 2]"; a set with "snow" beside "sun" showed
    both as s ("ss": snow and sun, or sun twice)."""
    from sunset_sim.cards.loader import default_cards_text

    out = ok(cli("play", "--players", "4", "--seed", "2", "--strategy", "random"))
    stays = [line for line in out.splitlines() if ": stays at [" in line]
    assert stays and "hikes stays" not in out
    cards = tmp_path / "snow.toml"
    cards.write_text(re.sub(r"\btree\b", "snow", default_cards_text()), encoding="utf-8")
    out = ok(cli("play", "--players", "2", "--seed", "1", "--cards", cards))
    assert "Features on the grid: m mountain, f flower, w waterfall, s snow, u sun;" in out
    from sunset_sim.records.log import feature_letters

    letters = feature_letters(("a", "a2", "aa", "a-a", "sun"))  # ("2" and "aa" both 2 once)
    assert len(set(letters)) == 5 and letters[:2] == ["a", "2"]


def test_play_options_change_the_game():
    out = ok(cli("play", "--players", "2", "--seed", "7", "--rule", "days=3"))
    assert sum(line.startswith("== Day ") for line in out.splitlines()) == 3
    out = ok(cli("play", "--players", "4", "--seed", "7", "--strategy", "random", "--quiet"))
    lines = out.splitlines()
    assert len(lines) == 4 + 2 and lines[0].startswith("== End")
    assert all("[random]" in line for line in lines[1:5])


def test_play_is_the_same_in_a_new_process():
    in_process = ok(cli("play", "--players", "3", "--seed", "7"))
    process = run_process("play", "--players", "3", "--seed", "7")
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr
    assert process.stdout == in_process


def test_play_record_replays(record_file):
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert record["format"] == "sunset-sim-record" and record["players"] == 3
    assert record["seed"] == 7 and len(record["days"]) == 6
    out = ok(cli("replay", record_file))
    assert out.splitlines()[-1] == f"replay OK: 6 days, fame {record['fame']}"
    played = ok(cli("play", "--players", "3", "--seed", "7")).splitlines()
    assert out.splitlines()[:-1] == played  # the replay log is the play log
    quiet = ok(cli("replay", record_file, "--quiet")).splitlines()
    assert quiet[-1] == out.splitlines()[-1] and len(quiet) == 3 + 3


def test_play_refuses_to_overwrite_a_record_without_force(tmp_path):
    path = tmp_path / "game.json"
    ok(cli("play", "--players", "2", "--seed", "1", "--record", path))
    before = path.read_bytes()
    result = cli("play", "--players", "2", "--seed", "2", "--record", path)
    fails(result, str(path), "already exists", "--force")
    assert result.stdout == ""
    assert path.read_bytes() == before
    written = cli("play", "--players", "2", "--seed", "2", "--record", path, "--force")
    assert f"record written to {path}" not in ok(written)  # a status line: stderr
    assert f"record written to {path}" in written.stderr
    assert json.loads(path.read_text(encoding="utf-8"))["seed"] == 2


def test_play_record_into_a_missing_folder(tmp_path):
    path = tmp_path / "nowhere" / "game.json"
    fails(cli("play", "--record", path), "does not exist")
    assert not path.parent.exists()


# ---------------------------------------------------------------- replay


def test_replay_of_a_tampered_record(record_file, tmp_path):
    def keep_an_undrawn_plan(record):
        entry = record["days"][0]["plans"][1]
        entry["kept"] = next(f"P{i}" for i in range(1, 9) if f"P{i}" not in entry["drawn"])

    path = tampered(record_file, tmp_path, keep_an_undrawn_plan)
    result = cli("replay", path)
    line = fails(result, f"error: {path}: day 1, player 1: R-PLAN-1: ", "not among the three drawn")
    assert result.stdout == ""
    process = run_process("replay", path)
    assert process.returncode == 2
    assert process.stdout == "" and process.stderr == line + "\n"


def test_replay_of_a_record_with_a_changed_score(record_file, tmp_path):
    def more_fame(record):
        record["fame"][2] += 1

    path = tampered(record_file, tmp_path, more_fame)
    fails(cli("replay", path), f"error: {path}: player 2: R-END-2: recorded fame")


def test_replay_of_a_hike_the_plan_does_not_allow(record_file, tmp_path):
    def long_hike(record):
        record["days"][0]["turns"][0]["hike"] = {"direction": "N", "steps": 9}

    path = tampered(record_file, tmp_path, long_hike)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    seat = record["days"][0]["order"][0]
    fails(cli("replay", path), f"{path}: day 1, player {seat}: R-HIKE-1: 9 steps is outside")


def test_replay_of_a_missing_file(tmp_path):
    path = tmp_path / "nothing.json"
    fails(cli("replay", path), f"error: {path}: cannot read: ")
    process = run_process("replay", path)
    assert process.returncode == 2 and "Traceback" not in process.stderr
    assert len(process.stderr.splitlines()) == 1


def test_replay_of_a_folder(tmp_path):
    fails(cli("replay", tmp_path), "cannot read")


def test_replay_of_truncated_json(record_file, tmp_path):
    path = tmp_path / "cut.json"
    text = record_file.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 3], encoding="utf-8")
    fails(cli("replay", path), f"error: {path}: not valid JSON (line ")


@pytest.mark.parametrize(
    "change, needle",
    [
        (lambda r: r.update(version=2), "version: unknown record version 2"),
        (lambda r: r.update(format="other"), "format: not a sunset-sim game record"),
        (
            lambda r: r["days"].pop(),
            "day 6: R-END-1: the record stops after day 5, but the game goes on",
        ),
        (lambda r: r["setup"]["landscapes"].__setitem__(0, "L99"), "unknown landscape id"),
    ],
    ids=["version", "format", "missing-day", "unknown-card"],
)
def test_replay_of_a_malformed_record(record_file, tmp_path, change, needle):
    fails(cli("replay", tampered(record_file, tmp_path, change)), needle)


def test_replay_with_a_bad_card_set(record_file, bad_cards):
    fails(cli("replay", record_file, "--cards", bad_cards), "mountian", "(and 1 more")


def test_replay_of_a_game_with_reshuffles_on_two_days(tmp_path):
    path = tmp_path / "four.json"
    ok(cli("play", "--players", "4", "--seed", "1", "--record", path))
    record = json.loads(path.read_text(encoding="utf-8"))
    assert sum(bool(day.get("reshuffles")) for day in record["days"]) == 2
    assert "replay OK" in ok(cli("replay", path))


def test_replay_of_a_record_with_a_number_for_fame(record_file, tmp_path):
    fails(cli("replay", tampered(record_file, tmp_path, lambda r: r.update(fame=5))), "fame")


def test_replay_of_a_binary_file(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00{")
    fails(cli("replay", path), str(path))


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("play", "--force"), ["--force: overwrites the --record file; give --record too"]),
        (("play", "--record", "-"), ["--record: '-' is not a file"]),
        (("study", "--edits", "none,plan"), ["--edits: 'none' (no edits) cannot be combined"]),
        (("study", "--edits", ""), ["--edits: give at least one of"]),
        (("study", "--check-games", "5"), ["--check-games:", "give --check-field too"]),
    ],
    ids=["force-alone", "record-dash", "edits-none-and-more", "edits-empty", "check-games-alone"],
)  # fmt: skip
def test_options_that_would_be_ignored_are_refused(tmp_path, monkeypatch, args, needles):
    """The audit: these were accepted and silently ignored (--force without a record,
    'none' beside edits that were then played) or wrote a file named '-'."""
    monkeypatch.chdir(tmp_path)
    fails(cli(*args), *needles)
    assert list(tmp_path.iterdir()) == []


def test_play_says_when_it_compiles_a_strategy(monkeypatch):
    """play calls the strategies from Python (the reference engine); their first run there
    compiled for about 10 s without a word, where simulate says so on stderr."""
    from sunset_sim import strategy as strategy_module
    from sunset_sim.engine import jit as jit_module
    from sunset_sim.strategy import StrategySpec

    def first(kind, obs, options, n_options, params, rng, tables):
        return 0

    strategy_module.registry()  # (filled first: it scans only when empty)
    spec = StrategySpec("first-probe", "the first option", jit_module.jit(first))
    monkeypatch.setitem(strategy_module._REGISTRY, "first-probe", spec)
    monkeypatch.setattr(jit_module, "is_cached", lambda dispatcher: False)
    result = cli("play", "--players", "2", "--strategy", "first-probe", "--quiet")
    ok(result)
    assert "sunset-sim: compiling first-probe for the reference engine" in result.stderr
    again = cli("play", "--players", "2", "--strategy", "first-probe", "--quiet")
    assert "compiling" not in again.stderr  # (compiled in this process now)
