"""Which problem replay names when a record has several (the rules' replay section): the
FIRST in game order, where a recorded result of day d (cards painted, goal flags and
keeper, reshuffles, fame) is checked when day d ends, before any step of day d+1. So a
step that breaks a rule later the same day is named before a wrong result earlier that
day, and a wrong result of day d before a broken step of day d + 1.
"""

from __future__ import annotations

from records_tools import LAND, edit, plan_of, rejects, set_turn


def _day_with_two_turns(pool, first_turn):
    """(game, day, position p of a turn for which first_turn holds, a later position q of
    the same day whose hike takes steps)."""
    for game in pool:
        for d, day in enumerate(game.record["days"], start=1):
            turns = day["turns"]
            for p, turn in enumerate(turns):
                later = [q for q in range(p + 1, len(turns)) if turns[q]["hike"]["steps"]]
                if first_turn(turn) and later:
                    return game, d, p, later[0]
    raise AssertionError("no such day in the pool")


def _too_far(record: dict, d: int, position: int) -> str:
    """Make turn ``position`` of day d hike one step past its plan card (R-HIKE-1); the
    line replay must start with."""
    turn = record["days"][d - 1]["turns"][position]
    turn["hike"]["steps"] = plan_of(record, d, turn["seat"]).hike + 1
    return f"day {d}, player {turn['seat']}"


def test_a_later_step_of_the_day_is_named_before_a_wrong_painted_card(pool):
    game, d, p, q = _day_with_two_turns(pool, lambda turn: bool(turn["painted"]))
    record = edit(game)
    painted = record["days"][d - 1]["turns"][p]["painted"][0]
    painted["card"] = next(c for c in LAND if c != painted["card"])
    rejects(record, "R-PAINT-2")  # alone, the wrong card is named
    where = _too_far(record, d, q)
    rejects(record, "R-HIKE-1", where)


def test_a_later_step_of_the_day_is_named_before_a_wrong_goal_flag(pool):
    game, d, p, q = _day_with_two_turns(pool, lambda turn: turn["goal"] is not None)
    record = set_turn(edit(game), d, p, goal=not game.record["days"][d - 1]["turns"][p]["goal"])
    rejects(record, "R-GOAL-1")
    where = _too_far(record, d, q)
    rejects(record, "R-HIKE-1", where)


def test_a_wrong_result_of_a_day_is_named_before_a_step_of_the_next(pool):
    """An extra reshuffle and a wrong fame on day d come before day d + 1's broken hike."""
    game, d = next(
        (g, d)
        for g in pool
        for d in range(1, len(g.record["days"]))
        if any(t["hike"]["steps"] for t in g.record["days"][d]["turns"])
    )
    q = next(i for i, t in enumerate(game.record["days"][d]["turns"]) if t["hike"]["steps"])
    record = edit(game)
    _too_far(record, d + 1, q)
    day = record["days"][d - 1]
    fame = day["fame"]
    day["fame"] = [fame[0] + 1, *fame[1:]]
    rejects(record, "R-END-2", f"day {d}")
    day["fame"] = fame
    day["reshuffles"] = [*(day.get("reshuffles") or []), list(LAND[:3])]
    message = rejects(record, "R-CLEAN-2", f"day {d}")
    assert "the record has" in message and "reshuffles" in message


def test_a_later_days_goal_card_names_the_clean_up_rule(pool):
    """Day 1's goal is turned up at set-up (R-SET-3), every later one at clean-up
    (R-CLEAN-3)."""
    game = next(g for g in pool if len(g.record["days"]) > 2)
    for d, rule in ((1, "R-SET-3"), (3, "R-CLEAN-3")):
        record = edit(game)
        recorded = record["days"][d - 1]["goal"]
        record["days"][d - 1]["goal"] = "G1" if recorded != "G1" else "G2"
        message = rejects(record, rule, f"day {d}")
        assert f"the day's goal is {recorded}" in message


def test_a_day_without_a_goal_is_said_null_as_json_says_it():
    """A tester's: a set with fewer goals than days, a record claiming G1 on a day with
    none, read "the day's goal is None" (Python's word); other messages say null."""
    import pytest

    from sunset_sim.records.replay import RecordError, _compare_day

    with pytest.raises(RecordError, match=r"^day 6: R-CLEAN-3: the day's goal is null, not G1$"):
        _compare_day(6, {"goal": None, "plans": []}, [], {"goal": "G1"})
