"""``sunset-sim cards``: the summary of a set, every problem in it listed (exit code 2),
and notes on what a set allows but no game can use (a feature on no landscape, a goal no
turn can meet, too few cards for some player counts)."""

from __future__ import annotations

import re

import pytest
from conftest import cli, fails, ok, run_process

from sunset_sim.cards.loader import default_cards_text


def test_cards_summarises_the_default_set():
    out = ok(cli("cards"))
    assert "sunset-default-reconstructed" in out
    assert "60 landscapes, 30 commissions, 7 goals, 8 plans" in out


def test_cards_lists_every_problem(bad_cards):
    result = cli("cards", "--cards", bad_cards)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stdout == ""
    problems = result.stderr.splitlines()
    assert len(problems) == 2, problems
    assert all(line.startswith(f"error: {bad_cards}: ") for line in problems)  # as elsewhere
    assert "unknown feature 'mountian'" in problems[0]
    assert "fame: must not be negative, got -3" in problems[1]
    process = run_process("cards", "--cards", bad_cards)
    assert process.returncode == 2 and process.stderr.splitlines() == problems


@pytest.mark.parametrize(
    ("keep", "exit_code", "needle"),
    [
        ({"plans": 7}, 2, "plans: 7 cards, a game needs at least 8"),
        ({"commissions": 3}, 2, "commissions: 3 cards, a game needs at least 4"),
        ({"commissions": 5}, 0, "note: not playable by 4 players: "),
    ],
)
def test_cards_checks_the_set_can_be_played(tmp_path, keep, exit_code, needle):
    """A set that parses but that every game command refuses (too few cards for any
    player count, six days) is listed as a problem, exit code 2; one too small for some
    player counts is summarised with a note naming them."""
    import dataclasses

    from sunset_sim.cards.edit import dump_cards
    from sunset_sim.cards.loader import load_cards

    cards = load_cards()
    field, count = next(iter(keep.items()))
    path = tmp_path / "small.toml"
    small = dataclasses.replace(cards, **{field: getattr(cards, field)[:count]})
    path.write_text(dump_cards(small), encoding="utf-8")
    result = cli("cards", "--cards", path)
    assert result.exit_code == exit_code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and needle in lines[0], lines
    assert (result.stdout == "") == (exit_code == 2)


def test_cards_notes_a_feature_type_on_no_landscape(tmp_path):
    """A sixth feature type no landscape shows (a typo, or one forgotten) is summarised
    with a note naming it; the set is still valid."""
    text = default_cards_text().replace('"sun"]', '"sun", "moon"]', 1)
    assert '"moon"' in text
    path = tmp_path / "moon.toml"
    path.write_text(text, encoding="utf-8")
    result = cli("cards", "--cards", path)
    ok(result)
    assert result.stderr.splitlines() == [
        f"note: {path}: features: 'moon' is on no landscape (no painting can show it)"
    ]
    assert cli("cards").stderr == ""


def test_cards_notes_a_goal_no_turn_can_meet(tmp_path):
    """A tester's: goals asking for 6 cards painted or 6 steps (paint and hike reach 3
    and 4 in the shipped plans), or holding 99 paintings, were taken with no word, where
    a commission no landscape can complete is refused. A goal one past can is noted, one
    at the reach is not; the notes follow the days played (R-GOAL-3)."""
    text = default_cards_text()
    for old, new in (
        ('"painted"\nn = 3', '"painted"\nn = 4'),
        ('"steps"\nn = 3', '"steps"\nn = 5'),
        ('"holds"\nn = 5', '"holds"\nn = 19'),
        ('direction = "horizontal"', 'direction = "diagonal"'),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "goals.toml"
    path.write_text(text, encoding="utf-8")
    result = cli("cards", "--cards", path)
    ok(result)
    assert result.stderr.splitlines() == [
        f"note: {path}: goal G2 (painted n=4) can never be met: no turn paints more than 3 cards",
        f"note: {path}: goal G6 (holds n=19) can never be met: no player holds more than 13 "
        "paintings in 6 days (each plan card kept once)",
        f"note: {path}: goal G7 (steps n=5) can never be met: no hike is longer than 4 steps",
    ]
    # 13 is within reach: each plan card is kept once (R-PLAN-1), and the six best paint
    # 3, 3, 2, 2, 2 and 1 (a tester's: days x 3 let 14 to 18 pass); G1 diagonal: P3 and
    # others hike so
    reach = text.replace('"holds"\nn = 19', '"holds"\nn = 13')
    path.write_text(text.replace('"holds"\nn = 19', '"holds"\nn = 14'), encoding="utf-8")
    assert "G6 (holds n=14) can never be met" in cli("cards", "--cards", path).stderr
    path.write_text(reach, encoding="utf-8")
    assert "G6" not in cli("cards", "--cards", path).stderr
    # four days hold 3 + 3 + 2 + 2 = 10 at most
    path.write_text(reach.replace('"steps"\nn = 5', '"steps"\nn = 4'), encoding="utf-8")
    lines = cli("cards", "--cards", path, "--rule", "days=4").stderr.splitlines()
    assert [line for line in lines if "goal" in line] == [
        f"note: {path}: goal G2 (painted n=4) can never be met: no turn paints more than 3 cards",
        f"note: {path}: goal G6 (holds n=13) can never be met: no player holds more than 10 "
        "paintings in 4 days (each plan card kept once)",
    ], lines
    # no plan card hikes diagonally: a "moved diagonal" goal is never met
    flat = re.sub(r'directions = "(diagonal|all)"', 'directions = "orthogonal"', reach)
    path.write_text(flat, encoding="utf-8")
    assert (
        f"note: {path}: goal G1 (moved direction=diagonal) can never be met: no plan card "
        "hikes diagonally" in cli("cards", "--cards", path).stderr
    )


def test_cards_checks_a_set_for_the_days_it_is_played(tmp_path):
    """A 6-plan-card set made for 4-day games (study and compare take it with --rule
    days=4) could not be checked: `cards` had no --rule and refused it for six days."""
    text = re.sub(
        r'\[\[plan\]\]\nid = "P[78]".*?(?=\n\[\[|\Z)', "", default_cards_text(), flags=re.S
    )
    path = tmp_path / "six-plans.toml"
    path.write_text(text, encoding="utf-8")
    line = fails(cli("cards", "--cards", path))
    assert line.endswith(
        "plans: 6 cards, a game needs at least 8 (a plan deck of days+2 for 6 days)"
    )
    ok(cli("cards", "--cards", path, "--rule", "days=4"))
    assert "for 6 days" in fails(cli("cards", "--cards", path, "--rule", "days=6"))


def test_cards_of_a_missing_file(tmp_path):
    result = cli("cards", "--cards", tmp_path / "none.toml")
    assert result.exit_code == 2 and "file not found" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_cards_toml_prints_a_card_file_to_copy_and_edit(tmp_path):
    """A tester's: no command said how to get a copy of the packaged set to edit (only a
    study's original-cards.toml held one). --toml prints it, byte for byte; with --cards,
    the set's values, which load back to the same set."""
    from sunset_sim.cards.loader import default_cards_text, load_cards, parse_cards

    result = cli("cards", "--toml")
    assert ok(result) == default_cards_text() and result.stderr == ""
    path = tmp_path / "mine.toml"
    path.write_text(default_cards_text().replace("fame = 2  # 2.91 bits", "fame = 5", 1))
    again = ok(cli("cards", "--cards", path, "--toml"))

    def values(cards):
        return cards.name, cards.features, cards.landscapes, cards.commissions, cards.goals

    assert values(parse_cards(again, "again")) == values(load_cards(path))
    assert values(load_cards(path)) != values(load_cards(None))  # (the edit is in it)
    assert parse_cards(again, "again").plans == load_cards(path).plans
    assert "--toml" in ok(cli("cards", "--help"))
    fails(cli("cards", "--toml", "--format", "csv"), "--toml prints the card file")
