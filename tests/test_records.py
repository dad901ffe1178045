"""Game records (docs/record-format.md): play -> record -> JSON -> replay reproduces every
game, and a tampered record is refused with one line naming the rule or field it breaks.

Tampering is built from real records: the states before each turn are captured while
replaying the untouched record, and a search over a small pool of games finds a turn
where each illegal edit can be made (a hike ending on another artist, a painting that
does not match a frame, ...), so the tests do not depend on one strategy's choices.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner
from conftest import small_cards_toml

from sunset_sim.cards.loader import default_cards_text, load_cards, parse_cards
from sunset_sim.cli import main
from sunset_sim.enums import DIRECTION_NAMES, GRID_SIZE, N_CELLS
from sunset_sim.play import play_reference
from sunset_sim.records.format import RECORD_FORMAT, RECORD_VERSION, card_set_json
from sunset_sim.records.log import GameLog
from sunset_sim.records.replay import RecordError, load_record, replay
from sunset_sim.rules.hike import hike_path
from sunset_sim.rules.options import Rules
from sunset_sim.rules.state import EMPTY
from sunset_sim.strategy import seat_players

CARDS = load_cards()
LAND = [c.id for c in CARDS.landscapes]
COMM = [c.id for c in CARDS.commissions]
PLAN = {c.id: c for c in CARDS.plans}
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


def play(players, seed, strategies=("greedy",), rules=None, cards=CARDS, game_index=0, log=None):
    seats = seat_players(list(strategies), players)
    return play_reference(
        cards, seats, seed, game_index, rules or Rules(), on_event=log and log.on_event
    )


def via_json(record: dict) -> dict:
    return json.loads(json.dumps(record))


def cell_json(cell: int) -> list[int]:
    return list(divmod(cell, GRID_SIZE))


def cell_of(entry: dict) -> int:
    row, col = entry["cell"]
    return row * GRID_SIZE + col


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
    assert replay(record).fame == record["fame"]


# ---------------------------------------------------------------- tampering machinery


@dataclass
class Before:
    """The state before one turn (or before a day's first turn)."""

    grid: list[int]
    positions: list[int]
    plans: list[int]
    row: list[int]
    preview: int
    deck: list[int]
    paintings: list[list[int]]


@dataclass
class Game:
    record: dict
    before: dict[tuple[int, int], Before] = field(default_factory=dict)

    def turns(self):
        """(day number, position, turn, state before it) for every turn, in play order."""
        for d, day in enumerate(self.record["days"], start=1):
            for position, turn in enumerate(day["turns"]):
                yield d, position, turn, self.before[d, position]


def capture(record: dict) -> Game:
    game = Game(record)

    def on_event(kind, state, data):
        if kind in ("day", "turn"):
            game.before[state.day, len(state.turns_done)] = Before(
                list(state.grid),
                [p.position for p in state.players],
                [p.plan for p in state.players],
                list(state.commission_row),
                state.preview,
                list(state.commission_deck),
                [list(p.paintings) for p in state.players],
            )

    replay(via_json(record), on_event=on_event)
    return game


POOL_SPECS = [(2, s, ("greedy",)) for s in range(1, 5)]
POOL_SPECS += [(3, s, ("greedy", "random")) for s in range(3)]
POOL_SPECS += [(4, s, ("greedy",)) for s in (0, 3, 4)]
POOL_SPECS += [(2, s, ("random",)) for s in range(8)]  # random sells often: turns with 2+ sales


@pytest.fixture(scope="module")
def pool() -> list[Game]:
    return [capture(play(p, s, m).record) for p, s, m in POOL_SPECS]


@pytest.fixture(scope="module")
def base(pool) -> Game:
    """2 players, seed 1, greedy: the example of docs/record-format.md."""
    return pool[0]


def rejects(record: dict, rule: str, where: str | None = None) -> str:
    """Replay must raise one RecordError line naming ``rule`` (after ``where``, if given)."""
    with pytest.raises(RecordError) as info:
        replay(via_json(record))
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert rule in message, message
    if where is not None:
        assert message.startswith(f"{where}: {rule}"), message
    return message


def edit(game: Game) -> dict:
    return copy.deepcopy(game.record)


def plan_of(record: dict, day: int, seat: int):
    return PLAN[record["days"][day - 1]["plans"][seat]["kept"]]


def first(pool, predicate):
    """The first (game, day, position, turn, before, extra) where predicate gives extra."""
    for game in pool:
        for d, position, turn, before in game.turns():
            extra = predicate(game, d, turn, before)
            if extra is not None and extra is not False:
                return game, d, position, turn, before, extra
    pytest.fail("no turn in the pool allows this edit")


def set_turn(record: dict, day: int, position: int, **changes) -> dict:
    record["days"][day - 1]["turns"][position].update(changes)
    return record


# ---------------------------------------------------------------- paint


def test_painted_cell_not_on_the_path(pool):
    def find(game, d, turn, before):
        if not turn["painted"]:
            return None
        seat, hike = turn["seat"], turn["hike"]
        direction = DIRECTION_NAMES.index(hike["direction"]) if hike["steps"] else -1
        path = hike_path(before.positions[seat], direction, hike["steps"])
        return next(c for c in range(N_CELLS) if c not in path)

    game, d, position, turn, _, off = first(pool, find)
    record = edit(game)
    record["days"][d - 1]["turns"][position]["painted"][0]["cell"] = cell_json(off)
    message = rejects(record, "R-PAINT-1", f"day {d}, player {turn['seat']}")
    assert f"cell {cell_json(off)} is not on the path" in message


def test_painted_card_differs_from_the_card_at_the_cell(base):
    d, position, turn, _ = next((d, p, t, b) for d, p, t, b in base.turns() if t["painted"])
    record = edit(base)
    painted = record["days"][d - 1]["turns"][position]["painted"][0]
    true_card = painted["card"]
    painted["card"] = next(c for c in LAND if c != true_card)
    message = rejects(record, "R-PAINT-2", f"day {d}, player {turn['seat']}")
    assert f"held {true_card}, not {painted['card']}" in message


def test_painting_more_cards_than_the_plan_allows(pool):
    def find(game, d, turn, before):
        return (
            turn["painted"] and len(turn["painted"]) == plan_of(game.record, d, turn["seat"]).paint
        )

    game, d, position, turn, _, _ = first(pool, find)
    record = edit(game)
    painted = record["days"][d - 1]["turns"][position]["painted"]
    painted.append(copy.deepcopy(painted[0]))
    message = rejects(record, "R-PAINT-2", f"day {d}, player {turn['seat']}")
    assert "allows" in message


def test_painting_a_cell_holding_another_artist(pool):
    def find(game, d, turn, before):
        seat = turn["seat"]
        start = before.positions[seat]
        shared = any(p == start for s, p in enumerate(before.positions) if s != seat)
        room = len(turn["painted"]) < plan_of(game.record, d, seat).paint
        return shared and room and before.grid[start] != EMPTY

    game, d, position, turn, before, _ = first(pool, find)
    record = edit(game)
    start = before.positions[turn["seat"]]
    record["days"][d - 1]["turns"][position]["painted"].append({"cell": cell_json(start)})
    message = rejects(record, "R-PAINT-2", f"day {d}, player {turn['seat']}")
    assert "another artist" in message


def test_painted_cell_off_the_grid(base):
    d, position, turn, _ = next((d, p, t, b) for d, p, t, b in base.turns() if t["painted"])
    record = edit(base)
    record["days"][d - 1]["turns"][position]["painted"][0]["cell"] = [5, 0]
    rejects(record, "R-PAINT-1", f"day {d}, player {turn['seat']}")


# ---------------------------------------------------------------- end and scoring


def test_changed_final_fame(base):
    record = edit(base)
    true = record["fame"][1]
    record["fame"][1] += 1
    message = rejects(record, "R-END-2", "player 1")
    assert f"recorded fame {true + 1}, the rules give {true}" in message


def test_changed_fame_parts(base):
    record = edit(base)
    record["fame_parts"][0][2] += 1
    rejects(record, "R-END-2", "player 0")


def test_changed_winners(base):
    record = edit(base)
    true = record["winners"]
    record["winners"] = [s for s in range(record["players"]) if s not in true][:1]
    message = rejects(record, "R-END-3")
    assert message.startswith(f"R-END-3: recorded winners {record['winners']}")
    assert f"the rules give {true}" in message


def test_claimed_tie(base):
    record = edit(base)
    record["winners"] = list(range(record["players"]))
    rejects(record, "R-END-3")


def test_extra_day(base):
    record = edit(base)
    record["days"].append(copy.deepcopy(record["days"][-1]))
    message = rejects(record, "R-END-1")
    assert "the record has 7 days, the game lasts 6" in message


def test_missing_day(base):
    record = edit(base)
    del record["days"][5:]
    message = rejects(record, "R-END-1")  # a record that stops before the game's end
    assert message == "day 6: R-END-1: the record stops after day 5, but the game goes on"


# ---------------------------------------------------------------- plan


def test_kept_plan_not_among_drawn(base):
    record = edit(base)
    entry = record["days"][0]["plans"][0]
    entry["kept"] = next(p for p in PLAN if p not in entry["drawn"])
    message = rejects(record, "R-PLAN-1", "day 1, player 0")
    assert f"plan card {entry['kept']} is not among the three drawn" in message


def test_kept_plan_not_among_drawn_without_drawn(base):
    """Without `drawn`, replay still knows the top three of the plan deck."""
    record = edit(base)
    entry = record["days"][1]["plans"][1]
    true_drawn = entry.pop("drawn")
    entry["kept"] = next(p for p in PLAN if p not in true_drawn)
    rejects(record, "R-PLAN-1", "day 2, player 1")


def test_drawn_plans_not_the_top_of_the_deck(base):
    record = edit(base)
    entry = record["days"][0]["plans"][1]
    entry["drawn"] = list(reversed(entry["drawn"]))
    message = rejects(record, "R-PLAN-1", "day 1, player 1")
    assert "not the top three" in message


# ---------------------------------------------------------------- hike


def test_hike_direction_not_allowed_by_the_plan(pool):
    def find(game, d, turn, before):
        plan = plan_of(game.record, d, turn["seat"])
        if not turn["hike"]["steps"]:
            return None
        return next(
            (n for i, n in enumerate(DIRECTION_NAMES) if not plan.direction_mask >> i & 1), None
        )

    game, d, position, turn, _, name = first(pool, find)
    record = edit(game)
    record["days"][d - 1]["turns"][position]["hike"]["direction"] = name
    plan = plan_of(record, d, turn["seat"])
    message = rejects(record, "R-HIKE-1", f"day {d}, player {turn['seat']}")
    assert f"direction {name} is not allowed by plan card {plan.id}" in message


def test_hike_with_too_many_steps(base):
    d, position, turn, _ = next((d, p, t, b) for d, p, t, b in base.turns() if t["hike"]["steps"])
    record = edit(base)
    plan = plan_of(record, d, turn["seat"])
    record["days"][d - 1]["turns"][position]["hike"]["steps"] = plan.hike + 1
    message = rejects(record, "R-HIKE-1", f"day {d}, player {turn['seat']}")
    assert f"{plan.hike + 1} steps is outside 0..{plan.hike} (plan card {plan.id})" in message


def test_hike_with_negative_steps(base):
    record = set_turn(edit(base), 1, 0, hike={"direction": "N", "steps": -1})
    rejects(record, "R-HIKE-1", f"day 1, player {base.record['days'][0]['order'][0]}")


def test_hike_in_an_unknown_direction(base):
    record = set_turn(edit(base), 1, 0, hike={"direction": "UP", "steps": 1})
    message = rejects(record, "R-HIKE-1", f"day 1, player {base.record['days'][0]['order'][0]}")
    assert "'UP'" in message


def hike_edit(pool, problem):
    """The first turn where some (direction, steps) the plan allows has ``problem``."""

    def find(game, d, turn, before):
        seat = turn["seat"]
        plan = plan_of(game.record, d, seat)
        others = {p for s, p in enumerate(before.positions) if s != seat}
        for direction, name in enumerate(DIRECTION_NAMES):
            if not plan.direction_mask >> direction & 1:
                continue
            for steps in range(1, plan.hike + 1):
                path = hike_path(before.positions[seat], direction, steps)
                if problem(path, before.grid, others):
                    return {"direction": name, "steps": steps}
        return None

    game, d, position, turn, _, hike = first(pool, find)
    record = set_turn(edit(game), d, position, hike=hike, painted=[], sales=[])
    return record, f"day {d}, player {turn['seat']}"


def test_hike_ending_on_another_artist(pool):
    def ends_on_artist(path, grid, others):
        return path is not None and all(grid[c] != EMPTY for c in path[1:]) and path[-1] in others

    record, where = hike_edit(pool, ends_on_artist)
    message = rejects(record, "R-HIKE-5", where)
    assert "ends on a cell holding another artist" in message


def test_staying_on_a_cell_holding_another_artist(base):
    """Day 1: everyone starts on the centre, so the first player may not stay."""
    seat = base.record["days"][0]["order"][0]
    record = set_turn(edit(base), 1, 0, hike={"direction": None, "steps": 0}, painted=[], sales=[])
    message = rejects(record, "R-HIKE-5", f"day 1, player {seat}")
    assert "may not stay" in message


def test_hike_through_an_empty_cell(pool):
    def crosses_empty(path, grid, others):
        return path is not None and any(grid[c] == EMPTY for c in path[1:])

    record, where = hike_edit(pool, crosses_empty)
    message = rejects(record, "R-HIKE-4", where)
    assert "empty cell" in message


def test_hike_leaving_the_grid(pool):
    record, where = hike_edit(pool, lambda path, grid, others: path is None)
    rejects(record, "R-HIKE-3", where)


# ---------------------------------------------------------------- sell


def sale_turn(pool, predicate=lambda game, turn, before: True):
    return first(
        pool,
        lambda game, d, turn, before: bool(turn["sales"]) and predicate(game, turn, before) or None,
    )


def test_selling_the_preview(pool):
    game, d, position, turn, before, _ = sale_turn(pool, lambda g, t, b: b.preview >= 0)
    record = edit(game)
    record["days"][d - 1]["turns"][position]["sales"][0]["commission"] = COMM[before.preview]
    message = rejects(record, "R-SELL-1", f"day {d}, player {turn['seat']}")
    assert f"commission {COMM[before.preview]} is the preview" in message


def test_selling_a_commission_not_in_the_row(pool):
    game, d, position, turn, before, _ = sale_turn(pool)
    record = edit(game)
    outside = next(c for c in range(len(COMM)) if c not in before.row and c != before.preview)
    record["days"][d - 1]["turns"][position]["sales"][0]["commission"] = COMM[outside]
    message = rejects(record, "R-SELL-1", f"day {d}, player {turn['seat']}")
    assert f"commission {COMM[outside]} is not in the commission row" in message


def held_before_sales(before: Before, turn: dict) -> list[str]:
    held = [LAND[c] for c in before.paintings[turn["seat"]]]
    return held + [p["card"] for p in turn["painted"]]


def test_selling_a_painting_not_held(pool):
    game, d, position, turn, before, _ = sale_turn(pool)
    held = held_before_sales(before, turn)
    record = edit(game)
    stranger = next(c for c in LAND if c not in held)
    record["days"][d - 1]["turns"][position]["sales"][0]["paintings"][0] = stranger
    message = rejects(record, "R-SELL-2", f"day {d}, player {turn['seat']}")
    assert f"painting {stranger} is not held by the player" in message


def test_selling_a_painting_twice_in_one_sale(pool):
    game, d, position, turn, _, _ = sale_turn(
        pool, lambda g, t, b: len(t["sales"][0]["paintings"]) >= 2
    )
    record = edit(game)
    paintings = record["days"][d - 1]["turns"][position]["sales"][0]["paintings"]
    paintings[1] = paintings[0]
    message = rejects(record, "R-SELL-2", f"day {d}, player {turn['seat']}")
    assert "used for two frames" in message


def test_selling_a_painting_already_sold_this_turn(pool):
    game, d, position, turn, _, _ = sale_turn(pool, lambda g, t, b: len(t["sales"]) >= 2)
    record = edit(game)
    sales = record["days"][d - 1]["turns"][position]["sales"]
    sales[1]["paintings"][0] = sales[0]["paintings"][0]
    message = rejects(record, "R-SELL-2", f"day {d}, player {turn['seat']}")
    assert "not held" in message


def test_sale_with_the_wrong_number_of_paintings(pool):
    game, d, position, turn, before, _ = sale_turn(pool)
    record = edit(game)
    sale = record["days"][d - 1]["turns"][position]["sales"][0]
    sale["paintings"] = sale["paintings"] + [sale["paintings"][0]]
    message = rejects(record, "R-SELL-2", f"day {d}, player {turn['seat']}")
    assert "one per frame" in message


def test_selling_a_painting_that_does_not_match_its_frame(pool):
    def mismatch(game, turn, before):
        sale = turn["sales"][0]
        frame = CARDS.commissions[COMM.index(sale["commission"])].frames[0]
        spare = [c for c in held_before_sales(before, turn) if c not in sale["paintings"]]
        return next(
            (c for c in spare if not frame.matches(CARDS.landscapes[LAND.index(c)].features)),
            None,
        )

    game, d, position, turn, _, wrong = sale_turn(pool, mismatch)
    wrong = mismatch(game, turn, game.before[d, position])
    record = edit(game)
    sale = record["days"][d - 1]["turns"][position]["sales"][0]
    sale["paintings"][0] = wrong
    message = rejects(record, "R-SELL-3", f"day {d}, player {turn['seat']}")
    assert f"painting {wrong} does not match frame 0 of {sale['commission']}" in message


# ---------------------------------------------------------------- goals


@pytest.mark.parametrize("taken", [False, True])
def test_goal_flag_flipped(pool, taken):
    game, d, position, turn, _, _ = first(pool, lambda g, d, t, b: t["goal"] is taken)
    record = set_turn(edit(game), d, position, goal=not taken)
    message = rejects(record, "R-GOAL-1", f"day {d}, player {turn['seat']}")
    assert ("did not take" in message) is taken


@pytest.mark.parametrize("held", [False, True])
def test_wrong_goal_holder(pool, held):
    game, day = next(
        (g, day)
        for g in pool
        for day in g.record["days"]
        if "goal_holder" in day and (day["goal_holder"] is not None) is held
    )
    record = edit(game)
    entry = record["days"][day["day"] - 1]
    entry["goal_holder"] = None if held else entry["order"][0]
    message = rejects(record, "R-GOAL-2", f"day {day['day']}")
    assert f"the rules give {day['goal_holder']}" in message


# ---------------------------------------------------------------- turn order


def wake(record, d, seat):
    return plan_of(record, d, seat).wake


def test_turn_order_against_wake_up_order(pool):
    game, day = next(
        (g, day)
        for g in pool
        for day in g.record["days"]
        if wake(g.record, day["day"], day["order"][0])
        < wake(g.record, day["day"], day["order"][-1])
    )
    record = edit(game)
    order = day["order"]
    record["days"][day["day"] - 1]["order"] = order[1:] + order[:1]
    message = rejects(record, "R-ORD-1", f"day {day['day']}")
    assert f"player {order[0]} acts too late" in message


def test_turn_recorded_for_the_wrong_seat(base):
    record = edit(base)
    turns = record["days"][0]["turns"]
    turns[0], turns[1] = turns[1], turns[0]
    order = record["days"][0]["order"]
    message = rejects(record, "R-ORD-1", f"day 1, player {order[0]}")
    assert f"recorded for player {order[1]}" in message


def test_turn_order_that_is_not_one_turn_each(base):
    record = edit(base)
    record["days"][2]["order"] = [0, 0]
    rejects(record, "R-ORD-1", "day 3")


def test_seat_tie_break_order(pool):
    """With tie_break=seat, players waking together act in seat order (R-ORD-2)."""
    for seed in range(20):
        record = play(3, seed, rules=Rules(tie_break="seat")).record
        for day in record["days"]:
            order = day["order"]
            for i in range(len(order) - 1):
                if wake(record, day["day"], order[i]) == wake(record, day["day"], order[i + 1]):
                    assert order[i] < order[i + 1]
                    bad = copy.deepcopy(record)
                    swapped = bad["days"][day["day"] - 1]["order"]
                    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
                    rejects(bad, "R-ORD-2", f"day {day['day']}")
                    return
    pytest.fail("no tie in wake-up times in 20 games")


# ---------------------------------------------------------------- setup and clean-up


@pytest.mark.parametrize(
    "deck, change, rule",
    [
        ("landscapes", "duplicate", "R-SET-1"),
        ("landscapes", "drop", "R-SET-1"),
        ("commissions", "duplicate", "R-SET-2"),
        ("commissions", "drop", "R-SET-2"),
        ("goals", "duplicate", "R-SET-3"),
        ("plans", "duplicate", "R-SET-4"),
        ("plans", "drop", "R-SET-4"),
    ],
)
def test_setup_deck_not_a_permutation(base, deck, change, rule):
    record = edit(base)
    order = record["setup"][deck]
    if deck == "plans":
        order = order[1]
    if change == "duplicate":
        order[1] = order[0]
    else:
        order.pop()
    message = rejects(record, rule)
    assert message.startswith(f"{rule}: ") and "not a shuffle" in message


def test_setup_with_too_few_plan_decks(base):
    record = edit(base)
    record["setup"]["plans"].pop()
    rejects(record, "R-SET-4")


@pytest.fixture(scope="module")
def reshuffled() -> tuple[dict, int]:
    """A 4-player record whose landscape deck was reshuffled, and that day's index."""
    for seed in range(40):
        record = play(4, seed).record
        for index, day in enumerate(record["days"]):
            if day.get("reshuffles"):
                return record, index
    pytest.fail("no 4-player game in 40 reshuffled")


def test_reshuffle_that_is_not_the_discard_pile(reshuffled):
    record, index = copy.deepcopy(reshuffled[0]), reshuffled[1]
    deck = record["days"][index]["reshuffles"][0]
    deck[1] = deck[0]
    message = rejects(record, "R-CLEAN-2", f"day {index + 1}")
    assert "not the discard pile" in message


def test_missing_reshuffle(reshuffled):
    record, index = copy.deepcopy(reshuffled[0]), reshuffled[1]
    record["days"][index]["reshuffles"] = []
    message = rejects(record, "R-CLEAN-2", f"day {index + 1}")
    assert "none is recorded" in message


def test_reshuffle_in_the_wrong_order(reshuffled):
    """A wrong order is legal in itself; the painted cards then differ (docs: R-PAINT-2)."""
    record, index = copy.deepcopy(reshuffled[0]), reshuffled[1]
    deck = record["days"][index]["reshuffles"][0]
    deck.reverse()
    assert len(deck) > 1
    message = rejects(record, "R-")
    assert message.startswith("day ")


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
        ({"version": None}, "version: unknown record version None"),
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
        (("days", 0, "plans", 0, "kept"), "P9", "day 1, player 0: kept: unknown plan id 'P9'"),
        (
            ("days", 0, "plans", 1, "drawn", 0),
            "P0",
            "day 1, player 1: plans: drawn: unknown plan id",
        ),
        (("setup", "landscapes", 0), "L99", "setup: landscapes: unknown landscape id 'L99'"),
        (("setup", "commissions", 0), "C99", "setup: commissions: unknown commission id"),
        (("setup", "goals", 0), "G99", "setup: goals: unknown goal id 'G99'"),
        (("setup", "plans", 1, 0), "X", "setup: plans[1]: unknown plan id 'X'"),
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
    rejects(record, "sales: unknown commission id 'C99'", f"day {d}, player {turn['seat']}")
    record = edit(game)
    record["days"][d - 1]["turns"][position]["sales"][0]["paintings"][0] = "L99"
    rejects(record, "sales: unknown landscape id 'L99'", f"day {d}, player {turn['seat']}")


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
