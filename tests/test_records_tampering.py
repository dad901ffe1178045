"""Game records (docs/record-format.md): a tampered record is refused with one line naming
the rule or field it breaks, for each rule a record can break (paint, end and scoring,
plan, hike, sell, goals, turn order, set-up and clean-up). The edits are made on real
records, at a turn of the shared pool that allows each (records_tools.py).
"""

from __future__ import annotations

import copy
import re

import pytest
from records_tools import (
    CARDS,
    COMM,
    LAND,
    PLAN,
    Before,
    cell_json,
    edit,
    first,
    plan_of,
    play,
    rejects,
    sale_turn,
    set_turn,
    via_json,
)

from sunset_sim.cards.loader import load_cards
from sunset_sim.enums import DIRECTION_NAMES, N_CELLS
from sunset_sim.records.replay import RecordError, replay
from sunset_sim.rules.hike import hike_path
from sunset_sim.rules.options import Rules
from sunset_sim.rules.state import EMPTY

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


def _set(record: dict, path: tuple, value) -> None:
    for key in path[:-1]:
        record = record[key]
    record[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value", "line"),
    [
        (("days", 0, "turns", 0, "goal"), "false", 'goal: expected true or false, got "false"'),
        (("days", 0, "turns", 0, "goal"), None, "goal: expected true or false, got null"),
        (("days", 0, "turns", 0, "goal"), 1, "goal: expected true or false, got 1"),
        (("days", 0, "fame", 0), "float", "day 1: fame: expected whole numbers, got "),
        (("end", "day"), "float", "end: expected whole numbers, got 6.0"),
        (("fame_parts", 0, 0), "float", "fame_parts: expected whole numbers, got "),
        (("fame", 0), "float", "fame: expected whole numbers, got "),
        (("days", 0, "reshuffles"), {}, "day 1: reshuffles: expected a list, got {}"),
        # {} was read as no sales, and the fame after the day was wrong two days later
        (("days", 0, "turns", 0, "sales"), {}, "sales: expected a list, got {}"),
        # null was read as [] (painted is required: [] when nothing was painted)
        (("days", 0, "turns", 0, "painted"), None, "painted: expected a list, got null"),
        # a tester's: Python's own words ("object of type 'bool' has no len()"), no field
        (("days", 0, "turns"), True, "day 1: turns: expected a list, got true"),
        # false, 0, "" and [] were read as "stay" (null or missing is stay, as documented)
        (
            ("days", 0, "turns", 0, "hike"),
            False,
            "hike: expected an object (direction, steps), got false",
        ),
        (("days", 0, "turns", 0, "hike"), 0, "hike: expected an object (direction, steps), got 0"),
        (
            ("days", 0, "turns", 0, "hike"),
            [],
            "hike: expected an object (direction, steps), got []",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_a_shape_error(base, path, value, line):
    """A record's whole numbers and true/false are JSON types (docs/record-format.md): 6.0
    or "false" was accepted in some fields (Python's 6.0 == 6) and, for a turn's goal,
    refused as the opposite claim ("the record says the player took the goal")."""
    record = edit(base)
    entry = record
    for key in path:
        entry = entry[key]
    _set(record, path, float(entry) if value == "float" else value)
    with pytest.raises(RecordError, match="^(day 1, player [0-9]: )?" + re.escape(line)):
        replay(via_json(record))


@pytest.mark.parametrize(
    ("where", "key", "line"),
    [
        ("sales", "sale", 'turns[{p}]: "sale": unknown field (a turn has seat, hike, painted,'),
        ("fame", "fmae", '"fmae": unknown field (a day has day, goal, plans, order, turns,'),
        ("steps", "step", 'hike: "step": unknown field (a hike has direction, steps)'),
        ("cell", "cel", 'painted: "cel": unknown field (a painted entry has cell, card)'),
        ("paintings", "painting", 'sales: "painting": unknown field (a sale has commission,'),
        ("kept", "keep", 'plans[0]: "keep": unknown field (a plan entry has drawn, kept)'),
    ],
)
def test_a_misspelt_field_is_refused_not_left_out(base, where, key, line):
    """A tester's: a turn's "sales" renamed "sale" replayed OK, the sale gone from the
    game (its fame counted as paintings): inside a day and a turn an unknown key is refused."""
    record = edit(base)
    found = None
    for day in record["days"]:
        for position, turn in enumerate(day["turns"]):
            holders = {
                "sales": turn, "fame": day, "steps": turn["hike"],
                "cell": (turn["painted"] or [None])[0], "paintings": (turn["sales"] or [None])[0],
                "kept": day["plans"][0],
            }  # fmt: skip
            holder = holders[where]
            if holder is not None and holder.get(where) not in (None, [], 0) and found is None:
                found = (day["day"], position, holder)
    assert found is not None
    d, position, holder = found
    holder[key] = holder.pop(where)
    with pytest.raises(
        RecordError, match=f"^day {d}(, player [0-9])?: " + re.escape(line.format(p=position))
    ):
        replay(via_json(record))


def test_a_plan_entry_for_a_player_the_game_does_not_have_is_refused(base):
    """A day's plans hold one entry per player: a third entry in a 2-player record was
    replayed OK (an extra turn was refused)."""
    record = edit(base)
    plans = record["days"][0]["plans"]
    plans.append(dict(plans[0]))
    rejects(record, f"day 1: R-PLAN-1: the record has {len(plans)} plans, the game has")


def test_null_sales_is_none(base):
    """ "sales" is optional and null means none, as for "reshuffles"."""
    record = edit(base)
    turn = next(t for d in record["days"] for t in d["turns"] if not t["sales"])
    turn["sales"] = None
    replay(via_json(record))


def test_null_reshuffles_on_a_day_without_one_is_none(base):
    """ "reshuffles": null reads as none, as it did before the list check."""
    record = edit(base)
    day = next(d for d in record["days"] if not d.get("reshuffles"))
    day["reshuffles"] = None
    replay(via_json(record))


def test_a_set_named_without_a_hash_is_not_replayed_on_the_default(base):
    """With no hash, the set's name is all that says which cards the game had."""
    record = edit(base)
    del record["cards"]["hash"]
    replay(via_json(record))  # the packaged set's own name: replayed on it
    record["cards"]["name"] = "moon-set"
    with pytest.raises(RecordError, match='card set "moon-set", not .* gives no hash'):
        replay(via_json(record))
    # the set given with --cards is used, with a note that the names differ (a record
    # of another set was scored on the given one without a word)
    with pytest.warns(UserWarning, match='names card set "moon-set" and gives no hash; it '):
        replay(via_json(record), load_cards(None))


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
    assert '"UP"' in message


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
    rules_give = "null" if day["goal_holder"] is None else day["goal_holder"]  # (JSON's words)
    assert message.endswith(f"the rules give {rules_give}")


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


def test_strategy_labels_that_are_not_one_string_a_seat_are_refused(base):
    """``strategies`` is informational, but the replay log labels seats with it:
    ``[1, 2, 3]`` read "seat 0 [1]", and two labels for three seats replayed too."""
    for labels in ([1, 2], ["greedy"], "greedy"):
        record = edit(base)
        record["strategies"] = labels
        with pytest.raises(RecordError, match="strategies: expected a list of 2 strategy labe"):
            replay(via_json(record))
    record = edit(base)
    record["strategies"] = ["mine"] * record["players"]
    replay(via_json(record))  # any text: informational
