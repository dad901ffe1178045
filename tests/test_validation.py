"""One validation layer (sunset_sim/validation.py): the Python API refuses what the CLI
refuses, with the same one-line message (an InputError, a ValueError, in Python; exit
code 2 on the command line), and takes rules as a dict or a Rules record everywhere."""

from __future__ import annotations

import warnings

import pytest
from conftest import cli, fails, ok

import sunset_sim
from sunset_sim.rules.options import Rules
from sunset_sim.validation import MAX_GAMES, InputError


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    assert isinstance(error.value, ValueError)
    return message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 100, "players": 7}, "players: 7 is outside 2 to 4"),
        ({"players": 1}, "players: 1 is outside 2 to 4"),
        ({"games": 0}, "games: 0 is not a positive number of games"),
        ({"games": MAX_GAMES + 1}, "games: 10000000001 is more than the limit of"),
        ({"games": 2.5}, "games: 2.5 is not a whole number"),
        ({"seed": -1}, "seed: must not be negative, got -1"),
        ({"seed": 2**64}, "seed: 18446744073709551616 is outside 0 to 2**64 - 1"),
        ({"jobs": -2}, "jobs: -2 is negative"),
        ({"strategies": ["nosuch"]}, "unknown strategy 'nosuch'"),
        ({"rules": {"dayz": 4}}, "rules: unknown rule option 'dayz'"),
        ({"rules": {"days": 0}}, "rules: days: 0 is not a whole number from 1 to 12"),
        ({"rules": 4}, "rules: expected a Rules record, a dict"),
        ({"cards": 7}, "cards: expected a CardSet, a TOML file path or None"),
    ],
)
def test_simulate_refuses_what_the_cli_refuses(kwargs, message):
    with pytest.raises(InputError) as error:
        sunset_sim.simulate(**{"games": 10, **kwargs})
    assert message in one_line(error)


@pytest.mark.parametrize(
    ("option", "value", "keyword"),
    [("--players", "7", "players"), ("--players", "1", "players"), ("--games", "0", "games")],
)
def test_the_cli_and_the_api_say_the_same(option, value, keyword):
    line = fails(cli("simulate", option, value, "--quiet"))
    with pytest.raises(InputError) as error:
        sunset_sim.simulate(**{"games": 10, keyword: int(value)})
    assert line == f"error: --{keyword}: {str(error.value).removeprefix(f'{keyword}: ')}"


@pytest.mark.parametrize("rules", [{"days": 4}, Rules(days=4), "days=4", ["days=4"]])
def test_simulate_takes_rules_as_a_dict_or_a_record(rules):
    frame = sunset_sim.simulate(games=20, rules=rules)
    assert len(frame) == 20 * 4
    assert frame["days_played"].max() <= 4


def test_a_single_strategy_text_is_one_strategy():
    frame = sunset_sim.simulate(games=5, players=2, strategies="random")
    assert set(frame["strategy"]) == {"random"}


@pytest.mark.parametrize(
    "call",
    [
        lambda: sunset_sim.tournament(["greedy", "random"], players=7, games=10),
        lambda: sunset_sim.compare(["greedy"], players=7, games=10),
        lambda: sunset_sim.sweep(rule="days=4,5", players=7, games=10),
        lambda: sunset_sim.tune("balanced", players=7, games=10),
    ],
    ids=["tournament", "compare", "sweep", "tune"],
)
def test_every_api_call_holds_the_player_limit(call):
    with pytest.raises(InputError) as error:
        call()
    assert one_line(error) == "players: 7 is outside 2 to 4"


@pytest.mark.parametrize(
    "call",
    [
        lambda: sunset_sim.tournament(["greedy", "random"], games=0),
        lambda: sunset_sim.compare(["greedy"], games=0),
        lambda: sunset_sim.sweep(rule="days=4,5", games=0),
    ],
    ids=["tournament", "compare", "sweep"],
)
def test_every_api_call_holds_the_games_limit(call):
    with pytest.raises(InputError) as error:
        call()
    assert one_line(error) == "games: 0 is not a positive number of games"


def test_tournament_and_tune_take_rules_as_a_dict():
    result = sunset_sim.tournament(
        ["greedy", "random"], players=2, games=10, rating_games=5, rules={"days": 3}
    )
    assert result.standings["n"].sum() == 10 * 2 * 2
    with pytest.raises(InputError, match="rules: unknown rule option 'dayz'"):
        sunset_sim.tune("balanced", players=2, rules={"dayz": 3})


def test_bad_input_errors_are_input_errors():
    """Strategy, rule-option, tune and report errors are all the one kind of bad input."""
    from sunset_sim.analysis.report.model import ReportInputError
    from sunset_sim.analysis.tune import TuneError
    from sunset_sim.rules.options import RuleOptionError
    from sunset_sim.strategy import StrategyError

    for kind in (ReportInputError, TuneError, RuleOptionError, StrategyError):
        assert issubclass(kind, InputError)


# ---- fewer strategies than seats ------------------------------------------------------


def test_tournament_says_when_a_strategy_takes_two_seats():
    result = cli(
        "tournament", "--strategy", "greedy", "--strategy", "random", "--players", "3",
        "--games", "10", "--rating-games", "5", "--quiet",
    )  # fmt: skip
    ok(result)
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: 2 strategies for 3 seats: repeated round the table, so greedy (2 seats) at "
        "every table (and a larger n); give 3 strategies for one seat each"
    ]


def test_tournament_api_warns_when_a_strategy_takes_two_seats():
    from sunset_sim.analysis.tournament import TournamentSeatWarning

    with pytest.warns(TournamentSeatWarning, match="greedy \\(2 seats\\)"):
        sunset_sim.tournament(["greedy", "random"], players=3, games=5, rating_games=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sunset_sim.tournament(["greedy", "random"], players=2, games=5, rating_games=5)


def test_play_reference_takes_texts_and_a_rules_dict():
    game = sunset_sim.play_reference(None, ["greedy", "random"], seed=7, rules={"days": 3})
    assert len(game.fame) == 2
    with pytest.raises(InputError) as error:
        sunset_sim.play_reference(None, ["greedy"] * 5)
    assert one_line(error) == "players (one per seat): 5 is outside 2 to 4"
