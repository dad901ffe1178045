"""Game records (docs/record-format.md): play -> record -> JSON -> replay reproduces every
game (custom card sets included), and a record of the wrong shape or format is refused
with one line naming the field. A record that breaks a rule: test_records_tampering.py
(the tampering machinery and the pool of games it edits are in records_tools.py)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from click.testing import CliRunner
from conftest import cli, ok, small_cards_toml
from records_tools import (
    CARDS,
    edit,
    play,
    rejects,
    sale_turn,
    set_turn,
    via_json,
)

from sunset_sim.cards.loader import check_playable, default_cards_text, parse_cards
from sunset_sim.cli import main
from sunset_sim.records.format import RECORD_FORMAT, RECORD_VERSION, card_set_json
from sunset_sim.records.log import GameLog
from sunset_sim.records.replay import RecordError, load_record, replay
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players

TIE_BREAKS = ("random", "seat", "lowest-fame")
MIXES = (
    ("greedy",),
    ("random",),
    ("greedy", "random"),
    ("random", "greedy:lateness=0.8"),
    ("greedy:goal=2", "random", "greedy"),
)
CUSTOM_TOML = (
    default_cards_text()
    .replace('name = "sunset-default-reconstructed"', 'name = "test-custom"', 1)
    .replace(
        'wake = "6:45"\ndirections = "all"\nhike = 4', 'wake = "6:45"\ndirections = "all"\nhike = 3'
    )
)


# ---------------------------------------------------------------- round trips


def reshuffles_on_two_days(record: dict) -> bool:
    return sum(bool(day.get("reshuffles")) for day in record["days"]) > 1


def check_round_trip(result, cards=None):
    again = replay(via_json(result.record), cards)
    assert again.fame == result.fame
    assert [list(p) for p in again.fame_parts] == [list(p) for p in result.fame_parts]
    assert again.winners == result.winners
    assert again.end_reason == result.end_reason
    assert again.days_played == result.days_played
    assert again.record == result.record
    return again


@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_trip_reproduces_every_game(players):
    seen = Counter()
    for seed in range(40):
        rules = Rules(tie_break=TIE_BREAKS[seed % 3])
        mix = MIXES[seed % len(MIXES)]
        log = GameLog([p.name for p in seat_players(list(mix), players)])
        result = play(players, seed, mix, rules, game_index=seed % 2, log=log)
        seen["two reshuffle days"] += reshuffles_on_two_days(result.record)
        assert result.record["format"] == RECORD_FORMAT
        assert result.record["version"] == RECORD_VERSION
        assert result.record["rules"]["tie_break"] == rules.tie_break
        assert len(result.record["days"]) == result.days_played
        replay_log = GameLog(result.record["strategies"])
        again = replay(via_json(result.record), on_event=replay_log.on_event)
        assert again.fame == result.fame
        assert again.fame_parts == result.fame_parts
        assert again.winners == result.winners
        assert again.record == result.record
        assert replay_log.lines == log.lines  # the replay log is the play log
        seen[rules.tie_break] += 1
        seen["tie" if len(result.winners) > 1 else "single"] += 1
        seen["reshuffle"] += any(day.get("reshuffles") for day in result.record["days"])
    assert all(seen[t] for t in TIE_BREAKS)
    if players == 4:
        assert seen["reshuffle"], "no 4-player game reshuffled the landscape deck"


def test_round_trip_through_a_file(tmp_path):
    result = play(3, 11, ("greedy", "random"))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(result.record, indent=1), encoding="utf-8")
    again = replay(load_record(path))
    assert again.record == result.record


def test_round_trip_with_reshuffles():
    games = [play(4, seed) for seed in range(6)]
    reshuffled = [g for g in games if any(d.get("reshuffles") for d in g.record["days"])]
    assert reshuffled
    for result in reshuffled:
        check_round_trip(result)


def test_reshuffles_on_two_days_replay():
    result = play(4, 1)
    assert reshuffles_on_two_days(result.record)
    check_round_trip(result)


def test_a_stripped_record_with_only_required_fields_replays():
    """docs: a record with only the required fields replays to the same result."""
    for players, seed in ((2, 1), (3, 4), (4, 0)):
        result = play(players, seed, ("greedy", "random"), Rules(tie_break="seat"))
        full = result.record
        stripped = {k: full[k] for k in ("format", "version", "players", "setup", "rules")}
        stripped["days"] = []
        for day in full["days"]:
            entry = {
                "plans": [{"kept": p["kept"]} for p in day["plans"]],
                "order": day["order"],
                "turns": [
                    {
                        "seat": t["seat"],
                        "hike": t["hike"],
                        "painted": [{"cell": p["cell"]} for p in t["painted"]],
                        "sales": t["sales"],
                    }
                    for t in day["turns"]
                ],
            }
            if day.get("reshuffles"):
                entry["reshuffles"] = day["reshuffles"]
            stripped["days"].append(entry)
        again = replay(via_json(stripped))
        assert again.fame == result.fame
        assert again.winners == result.winners
        expected = {k: v for k, v in full.items() if k not in ("seed", "game_index", "strategies")}
        assert again.record == expected


# ---------------------------------------------------------------- custom card sets


@pytest.mark.parametrize("toml", [CUSTOM_TOML, small_cards_toml()], ids=["custom", "tiny"])
def test_round_trip_with_a_custom_card_set(toml):
    cards = parse_cards(toml, "<custom>")
    reasons = set()
    for players in (2, 3, 4):
        if check_playable(cards, players):  # (tiny: 4 commissions, a row for 2 players)
            continue
        for seed in range(4):
            result = play(players, seed, MIXES[seed % 3], Rules(TIE_BREAKS[seed % 3]), cards)
            reasons.add(result.record["end"]["reason"])
            assert result.record["cards"]["hash"] == cards.content_hash
            check_round_trip(result, cards)  # the set given to replay
            inline = via_json(result.record)
            inline["cards"] = card_set_json(cards, inline=True)
            again = replay(inline)  # the set carried inline, nothing given
            assert again.fame == result.fame and again.winners == result.winners
            with pytest.raises(RecordError, match=r"^cards: the record names the card-set file"):
                replay(via_json(result.record))  # neither inline nor given: never opened
            with pytest.raises(RecordError, match=r"^cards: the record was played with"):
                replay(via_json(result.record), CARDS)  # the wrong set given
    if toml != CUSTOM_TOML:
        assert "commission-shortage" in reasons  # R-CLEAN-5 ends are replayed too


def test_default_record_refuses_a_custom_set():
    result = play(2, 1)
    with pytest.raises(RecordError) as info:
        replay(via_json(result.record), parse_cards(CUSTOM_TOML, "<custom>"))
    message = str(info.value)
    assert message.startswith("cards: the record was played with card set")
    assert "test-custom" in message and "\n" not in message


def test_cli_record_of_a_custom_set_carries_it_inline(tmp_path):
    cards_file = tmp_path / "my-cards.toml"
    cards_file.write_text(CUSTOM_TOML, encoding="utf-8")
    record_file = tmp_path / "game.json"
    runner = CliRunner()
    played = runner.invoke(
        main,
        ["play", "--players", "3", "--seed", "5", "--cards", str(cards_file)]
        + ["--record", str(record_file)],
    )
    assert played.exit_code == 0, played.output
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert record["cards"]["inline"] == CUSTOM_TOML
    assert record["cards"]["name"] == "test-custom"
    assert record["cards"]["hash"] == parse_cards(CUSTOM_TOML).content_hash
    cards_file.unlink()  # replay must not need the file
    replayed = runner.invoke(main, ["replay", str(record_file), "--quiet"])
    assert replayed.exit_code == 0, replayed.output
    assert f"replay OK: 6 days, fame {record['fame']}" in replayed.stdout
    # an inline set wins over --cards (docs/record-format.md, rule 1)
    default_file = tmp_path / "default.toml"
    default_file.write_text(default_cards_text(), encoding="utf-8")
    replayed = runner.invoke(main, ["replay", str(record_file), "--cards", str(default_file)])
    assert replayed.exit_code == 0, replayed.output
    # ... and says so, once, after the replay (it was ignored without a word)
    note = "note: the record carries its card set inline (test-custom, hash "
    assert replayed.stderr.count(note) == 1, replayed.stderr
    assert "the card set given (" in replayed.stderr and "is not used" in replayed.stderr
    cards_file.write_text(CUSTOM_TOML, encoding="utf-8")  # the same set: nothing to say
    same = runner.invoke(main, ["replay", str(record_file), "--cards", str(cards_file)])
    assert same.exit_code == 0 and "note:" not in same.stderr, same.output
    assert replay(record).fame == record["fame"]
    # a tester's: the inline text edited after the game read "pass --cards FILE", which
    # an inline record never uses; now it says the text is not the recorded set's
    record["cards"]["inline"] += "\n# a comment\n"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(record), encoding="utf-8")
    refused = runner.invoke(main, ["replay", str(edited), "--cards", str(cards_file)])
    assert refused.exit_code == 2 and refused.stderr.startswith(
        f"error: {edited}: cards: inline: the card set's text does not match the record's "
        f"hash {record['cards']['hash']} (its own is "
    ), refused.stderr
    assert 'remove "inline" to replay on the set given with --cards FILE' in refused.stderr
    del record["cards"]["inline"]  # as it says: replayed on the set given
    assert replay(record, cards_file).fame == record["fame"]


# ---------------------------------------------------------------- shape and format


def test_truncated_json(tmp_path, base):
    path = tmp_path / "cut.json"
    text = json.dumps(base.record, indent=1)
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert str(info.value).startswith("not valid JSON (line ")
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(RecordError, match=r"^cannot read: "):
        load_record(tmp_path / "nothing.json")


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"version": 2}, "version: unknown record version 2 (this sunset-sim reads version 1)"),
        ({"version": None}, "version: unknown record version null"),
        ({"format": "chess-pgn"}, "format: not a sunset-sim game record"),
    ],
)
def test_unknown_version_or_format(tmp_path, base, change, expected):
    record = edit(base)
    record.update(change)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert str(info.value).startswith(expected)


def test_a_json_list_is_not_a_record(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="^format: "):
        load_record(path)


def set_path(record: dict, path: tuple, value):
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return record


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (("days", 0, "plans", 0, "kept"), "P9", 'day 1, player 0: kept: unknown plan id "P9"'),
        (
            ("days", 0, "plans", 1, "drawn", 0),
            "P0",
            "day 1, player 1: plans: drawn: unknown plan id",
        ),
        (("setup", "landscapes", 0), "L99", 'setup: landscapes: unknown landscape id "L99"'),
        (("setup", "commissions", 0), "C99", "setup: commissions: unknown commission id"),
        (("setup", "goals", 0), "G99", 'setup: goals: unknown goal id "G99"'),
        (("setup", "plans", 1, 0), "X", 'setup: plans[1]: unknown plan id "X"'),
        (("setup",), None, "setup: missing"),
        (("days", 0, "order"), "01", "day 1: order: expected a list of seats"),
        (("players",), 5, "players: 5 is not a player count from 2 to 4"),
        (("rules",), {"tie_break": "alphabetical"}, "rules: tie_break: 'alphabetical'"),
        (("rules",), {"colour": "red"}, "rules: unknown rule option 'colour'"),
        (("cards", "hash"), "0123456789abcdef", "cards: the record was played with"),
    ],
)
def test_malformed_fields(base, path, value, expected):
    record = set_path(edit(base), path, value)
    with pytest.raises(RecordError) as info:
        replay(via_json(record))
    assert str(info.value).startswith(expected), str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_card_ids_in_a_turn(pool):
    game, d, position, turn, _, _ = sale_turn(pool)
    record = edit(game)
    record["days"][d - 1]["turns"][position]["sales"][0]["commission"] = "C99"
    rejects(record, 'sales: unknown commission id "C99"', f"day {d}, player {turn['seat']}")
    record = edit(game)
    record["days"][d - 1]["turns"][position]["sales"][0]["paintings"][0] = "L99"
    rejects(record, 'sales: unknown landscape id "L99"', f"day {d}, player {turn['seat']}")


def test_missing_plan_and_turn_entries(base):
    record = edit(base)
    record["days"][0]["plans"].pop()
    rejects(record, "plans: no plan entry for this player", "day 1, player 1")
    record = edit(base)
    record["days"][0]["turns"].pop()
    seat = base.record["days"][0]["order"][-1]
    rejects(record, "the record has no turn for this player", f"day 1, player {seat}")


def test_steps_that_are_not_a_whole_number(base):
    record = set_turn(edit(base), 1, 0, hike={"direction": "N", "steps": "2"})
    rejects(record, "hike: steps: not a whole number")


def test_a_missing_part_of_a_turn_is_named(base):
    """A hike with a direction and no steps (or steps and no direction), and a turn with
    no painted list, are named as missing: read as "stay" or "painted nothing" they were
    refused later under a rule about a cell or a sale (docs/record-format.md: hike and
    painted are part of every turn, a missing hike alone meaning stay)."""
    day, position = next(
        (d, j)
        for d, entry in enumerate(base.record["days"], start=1)
        for j, turn in enumerate(entry["turns"])
        if turn["hike"]["steps"] > 0
    )
    turn = base.record["days"][day - 1]["turns"][position]
    where = f"day {day}, player {turn['seat']}"
    record = set_turn(edit(base), day, position, hike={"direction": turn["hike"]["direction"]})
    rejects(record, "hike: steps: missing", where)
    record = set_turn(edit(base), day, position, hike={"steps": turn["hike"]["steps"]})
    rejects(record, "hike: direction: missing", where)
    record = edit(base)
    del record["days"][day - 1]["turns"][position]["painted"]
    rejects(record, "painted: missing", where)
    record = edit(base)
    del record["days"][day - 1]["turns"][position]["hike"]  # a stay: the rules judge it
    with pytest.raises(RecordError) as info:
        replay(via_json(record))
    assert "missing" not in str(info.value)


@pytest.mark.parametrize(
    "path, value",
    [
        (("days", 0, "turns", 0, "hike"), "N"),
        (("days", 0, "turns", 0, "painted"), "L01"),
        (("days", 0, "turns", 0, "sales"), ["C01"]),
        (("days", 0, "turns"), {"0": {}}),
        (("days", 0, "plans", 0), "P1"),
        (("days", 0, "plans", 0, "kept"), ["P1"]),
    ],
)
def test_wrong_json_types_are_one_line_errors(base, path, value):
    record = set_path(edit(base), path, value)
    with pytest.raises(RecordError) as info:
        replay(via_json(record))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("key", ["fame", "fame_parts"])
def test_final_fame_of_the_wrong_type(base, key):
    record = edit(base)
    record[key] = 5
    with pytest.raises(RecordError):
        replay(via_json(record))


@pytest.mark.parametrize("value", ["default", "inline"])
def test_cards_field_of_the_wrong_type(base, value):
    record = edit(base)
    record["cards"] = value
    with pytest.raises(RecordError):
        replay(via_json(record))


def test_record_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b'\xff\xfe{"format": 1}')
    with pytest.raises(RecordError):
        load_record(path)


@pytest.mark.parametrize("extra", ["turn", "reshuffle"])
def test_unused_record_entries_are_refused(base, extra):
    record = edit(base)
    day = record["days"][0]
    if extra == "turn":
        day["turns"].append(copy.deepcopy(day["turns"][0]))
    else:
        day["reshuffles"] = [list(record["setup"]["landscapes"][:3])]
    with pytest.raises(RecordError):
        replay(via_json(record))


def test_record_values_in_error_lines_are_written_as_json_and_missing_ones_named(base, tmp_path):
    """Python's reprs showed in these lines (an end of {'reason': 'dayz', 'day': 6}, a
    painted cell [True, 2], a fame of [9, 5, '\\x00']), a turn without its seat was "for
    player None", a painted entry without its cell "cell None is not a cell of the grid",
    and a UTF-8 byte-order mark was "Unexpected UTF-8 BOM (decode using utf-8-sig)"."""
    turn = next(t for t in base.record["days"][0]["turns"] if t["painted"])
    seat = turn["seat"]

    def replayed(change) -> str:
        record = edit(base)
        change(record)
        with pytest.raises(RecordError) as info:
            replay(via_json(record))
        return str(info.value)

    def first_turn(record):
        return next(t for t in record["days"][0]["turns"] if t["seat"] == seat)

    ended = replayed(lambda r: r.update(end={"reason": "dayz", "day": 6}))
    assert 'ended {"reason": "dayz", "day": 6}, the rules give {"reason": "days"' in ended
    cell = replayed(lambda r: first_turn(r)["painted"][0].update(cell=[True, 2]))
    assert "painted cell [true, 2] is not a cell of the grid" in cell
    no_cell = replayed(lambda r: first_turn(r)["painted"][0].pop("cell"))
    assert no_cell.endswith("painted: cell: missing")
    no_seat = replayed(lambda r: first_turn(r).pop("seat"))
    assert "seat: missing" in no_seat and "None" not in no_seat
    fame = replayed(lambda r: r["days"][0].update(fame=[9, 5, "\x00", 1][: base.record["players"]]))
    assert "None" not in fame and "'" not in fame.split("recorded as")[-1]
    path = tmp_path / "bom.json"
    path.write_text("\ufeff" + json.dumps(base.record), encoding="utf-8")
    assert replay(load_record(path)).fame == base.record["fame"]


def test_replay_help_says_when_cards_is_used():
    """--help read "Card-set TOML file (default: the packaged reconstructed set)", but a
    record that carries its card set inline is replayed with it and --cards is not used."""
    text = " ".join(ok(cli("replay", "--help")).split())
    assert "for a record without its card set inline" in text
