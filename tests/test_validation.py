"""One validation layer (sunset_sim/validation.py): the Python API refuses what the CLI
refuses, with the same one-line message (an InputError, a ValueError, in Python; exit
code 2 on the command line), and takes rules as a dict or a Rules record everywhere."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
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
        ({"rules": {"tie_break": None}}, "rules: tie_break: null is not one of random"),
        ({"rules": {"days": True}}, "rules: days: true is not a whole number"),
        ({"rules": ["days=-1"]}, "rules: days: -1 is not a whole number"),  # (was '-1')
        ({"rules": 4}, "rules: expected a Rules record, a dict"),
        ({"cards": 7}, "cards: expected a CardSet, a TOML file path or None"),
        ({"cards": ""}, "card-set path: empty, give a card-set file"),
        ({"strategies": []}, "strategies: give at least one strategy"),
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
    # a game the cards cannot last (as simulate refuses it), not a rule violation mid-game
    with pytest.raises(InputError) as error:
        sunset_sim.play_reference(None, ["greedy"] * 4, rules={"days": 7})
    assert "days" in one_line(error)


# ---- the rest of the public API: each bad input one line naming the argument -----------


GREEDY_PARAMS = "3 values (lateness, commission, goal)"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ([], f"strategy greedy: params has 0 values; expected a vector of {GREEDY_PARAMS}"),
        (
            [[0.3, 1, 1]],
            f"strategy greedy: params has shape (1, 3); expected a vector of {GREEDY_PARAMS}",
        ),
        (
            [0.3, 1, 1, 1],
            f"strategy greedy: params has 4 values; expected a vector of {GREEDY_PARAMS}",
        ),
        ([float("nan"), 1, 1], "strategy greedy: lateness=nan is not a number"),
        ([9.0, 1, 1], "strategy greedy: lateness=9 is outside 0..2"),
        (["a", "b", "c"], f"strategy greedy: params must be numbers, {GREEDY_PARAMS}"),
    ],
    ids=["empty", "2-d", "too-long", "nan", "out-of-range", "text"],
)
def test_a_player_checks_its_params_vector(params, message):
    """``Player(spec, params)`` took any vector: an empty one played as all zeros, a NaN
    and values outside the range played on, a (1, 3) array was a numpy broadcast error."""
    from sunset_sim.strategy import Player, registry

    with pytest.raises(InputError) as error:
        Player(registry()["greedy"], params)
    assert one_line(error) == message


def test_a_player_takes_a_list_and_keeps_float64():
    from sunset_sim.strategy import Player, registry

    spec = registry()["greedy"]
    player = Player(spec, [0, 1, 1])
    assert player.params.dtype == np.float64 and list(player.params) == [0.0, 1.0, 1.0]
    with pytest.raises(InputError, match="samples=2.5 is not a whole number"):
        Player(registry()["lookahead"], np.r_[2.5, registry()["lookahead"].param_vector()[1:]])
    with pytest.raises(InputError, match="Player: spec must be a StrategySpec, got str"):
        Player("greedy", np.zeros(3))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 1.5}, "alpha: 1.5 is not a fraction between 0 and 1"),
        ({"alpha": -0.1}, "alpha: -0.1 is not a fraction between 0 and 1"),
        ({"alpha": float("nan")}, "alpha: nan is not a finite number"),
        ({"alpha": "x"}, "alpha: 'x' is not a number"),
        ({"rules_b": 5}, "rules_b: expected a Rules record, a dict such as {'days': 4} or"),
        ({"rules_b": {"days": 0}}, "rules_b: days: 0 is not a whole number from 1 to 12"),
        ({"rules_a": ["days"]}, "rules_a: 'days' is not of the form key=value"),
        ({"rules_b": None}, "compare: only one variant; give B's difference with cards_b or"),
    ],
    ids=[
        "alpha-big",
        "alpha-negative",
        "alpha-nan",
        "alpha-text",
        "rules_b-int",
        "rules_b-days",
        "rules_a-text",
        "no-variant",
    ],  # fmt: skip
)
def test_compare_refuses_what_the_cli_refuses(kwargs, message):
    with pytest.raises(InputError) as error:
        sunset_sim.compare(["greedy"], players=2, games=5, **{"rules_b": {"days": 4}, **kwargs})
    assert one_line(error).startswith(message)


def test_compare_without_a_variant_says_what_the_cli_says():
    line = fails(cli("compare", "--games", "5", "--quiet"))
    with pytest.raises(InputError) as error:
        sunset_sim.compare(["greedy"], players=2, games=5)
    names = {
        "cards_b": "--b-cards",
        "rules_b": "--b-rule",
        "cards_a": "--a-cards",
        "rules_a": "--a-rule",
    }
    expected = str(error.value)
    for name, option in names.items():
        expected = expected.replace(name, option)
    assert line == f"error: {expected}"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"population": 2},
            "elite: 0.25 of population 2 keeps no candidate (use a population of at least 3)",
        ),
        ({"initial_std": float("nan")}, "initial_std: nan is not a finite number"),
        ({"initial_std": -1}, "initial_std: -1 is negative"),
        ({"min_std": float("nan")}, "min_std: nan is not a finite number"),
        ({"min_std": -0.5}, "min_std: -0.5 is negative"),
        ({"smoothing": "x"}, "smoothing: 'x' is not a number"),
        ({"elite": "x"}, "elite: 'x' is not a number"),
        (
            {"generations": 10**30},
            "generations: 10000000... (31 digits) is more than the limit of 10,000",
        ),
    ],
    ids=[
        "elite-hint",
        "initial_std-nan",
        "initial_std-negative",
        "min_std-nan",
        "min_std-negative",
        "smoothing-text",
        "elite-text",
        "generations-limit",
    ],  # fmt: skip
)
def test_tune_refuses_bad_search_settings(kwargs, message):
    arguments = dict(games=2, players=2, generations=1, population=4, validation_games=2)
    with pytest.raises(InputError) as error:
        sunset_sim.tune("greedy", ["random"], **{**arguments, **kwargs})
    assert one_line(error) == message


def test_tune_elite_hint_is_the_same_in_python_and_on_the_command_line():
    """Population 2 at elite 0.25 keeps round(0.5) = 0: Python said "at least 2", the
    command line "at least 3"; both use one check now."""
    line = fails(cli("tune", "greedy", "--players", "2", "--population", "2", "--quiet"))
    with pytest.raises(InputError) as error:
        sunset_sim.tune("greedy", players=2, population=2)
    shown = (
        str(error.value).replace("elite:", "--elite:").replace("of population", "of --population")
    )
    assert line == f"error: {shown}"


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ([[]], {}, "strategies: give at least one strategy"),
        (["nosuch"], {}, "strategies: unknown strategy 'nosuch'"),  # not 'n', 'o', ...
        ([["greedy"]], {"games": 0}, "games: 0 is not a positive number of games"),
        ([["greedy"]], {"games": -3}, "games: -3 is not a positive number of games"),
        ([["greedy"]], {"players": 5}, "players: 5 is outside 2 to 4"),
        ([["greedy"]], {"verify_games": 0}, "verify_games: 0 is not a positive number"),
        ([["greedy"]], {"families": []}, "families: give at least one of plan, commission"),
        ([["greedy"]], {"edits": ["plans"]}, "edits: 'plans' is not one of commission-fame"),
        ([["greedy"]], {"check_field": ["nosuch"]}, "check_field: unknown strategy 'nosuch'"),
        ([["greedy"]], {"rules": {"days": 0}}, "rules: days: 0 is not a whole number"),
        ([["greedy"]], {"max_steps": "x"}, "max_steps: 'x' is not a whole number"),
        ([["greedy"]], {"max_steps": 0}, "max_steps: 0 is less than 1"),
        ([["greedy"]], {"suggest": "no"}, "suggest: 'no' is not True or False"),
        ([["greedy"]], {"targets": {"ratio": 2}}, "targets: dict is not a Targets"),
    ],
    ids=[
        "empty-field",
        "text-field",
        "games-0",
        "games-negative",
        "players",
        "verify_games",
        "families",
        "edits",
        "check_field",
        "rules",
        "max_steps-text",
        "max_steps-0",
        "suggest",
        "targets",
    ],  # fmt: skip
)
def test_run_study_refuses_what_simulate_refuses(args, kwargs, message):
    """An empty field was a ZeroDivisionError, games=0 and -3 raw errors, and a text
    field was played letter by letter."""
    from sunset_sim.analysis.study import run_study

    with pytest.raises(InputError) as error:
        run_study(*args, **{"players": 2, "games": 5, **kwargs})
    assert one_line(error).startswith(message)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategies": []}, "strategies: give at least one strategy"),
        ({"players": 7}, "players: 7 is outside 2 to 4"),
        ({"games": 0}, "games: 0 is not a positive number of games"),
        ({"rules": {"dayz": 3}}, "rules: unknown rule option 'dayz'"),
        ({"cards": "no-such.toml"}, "no-such.toml: file not found"),
    ],
)
def test_restricted_play_refuses_what_simulate_refuses(kwargs, message):
    """games=0 was a bare ValueError ("need at least one array to concatenate") and a
    rules dict went on unchecked; it is held to run_study's limits now."""
    from sunset_sim.analysis.experiments import restricted_play

    with pytest.raises(InputError) as error:
        restricted_play(**{"strategies": ["greedy"], "players": 2, "games": 5, **kwargs})
    assert one_line(error).startswith(message)


@pytest.fixture(scope="module")
def results():
    return sunset_sim.simulate(games=20, players=2, strategies=["greedy", "random"])


def _without_record(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.attrs.clear()
    return frame


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (lambda r: pd.DataFrame(), "results: missing column 'game' (and 5 more): not a sunset-sim"),
        (lambda r: None, "frame: expected a DataFrame of results (one row per game and seat"),
        (
            lambda r: r.iloc[:1],
            "results: row 1: game 0 has 1 rows; every game of a 2-player file has one row",
        ),
        (  # without the record simulate keeps with its rows, the players are not known
            lambda r: _without_record(r.iloc[:1]),
            "results: column 'seat': only seat 0 appears; a game has 2 to 4 players",
        ),
        (lambda r: r[["game", "seat"]], "results: missing column 'strategy' (and 3 more)"),
    ],
    ids=["empty", "none", "one-row", "one-row-no-record", "columns"],
)
def test_build_report_says_what_is_wrong_with_the_frame(results, frame, message):
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(frame(results))
    assert one_line(error).startswith(message)


def test_build_report_checks_whole_games_as_results_reading_does(results):
    """A frame given to build_report never went through read_results' row checks: a game
    with one seat twice (seats 0, 0 then 1, 1) was reported as two whole games. The
    report checks whole games with result_rows.whole_games, the same check and message."""
    frame = results.copy()
    frame.loc[1, "seat"], frame.loc[2, "seat"] = 0, 1  # game 0: seats 0, 0; game 1: 1, 1
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(frame)
    assert one_line(error) == "results: row 1: game 0 does not have one row for each seat 0 to 1"
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(results.iloc[::-1].iloc[1:])  # out of order, a row short
    assert one_line(error) == (
        "results: row 1: game 19 has 1 rows; every game of a 2-player file has one row per "
        "seat 0 to 1"
    )


def test_build_report_takes_a_card_path_as_the_other_functions_do(results, tmp_path):
    from sunset_sim.cards.loader import default_cards_text

    path = tmp_path / "cards.toml"
    path.write_text(default_cards_text(), encoding="utf-8")
    report = sunset_sim.build_report(results, path, min_samples=5)
    assert report.meta["games"] == 20
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(results, tmp_path / "nope.toml")
    assert one_line(error) == f"{tmp_path / 'nope.toml'}: file not found"
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(results, min_samples=0)
    assert one_line(error) == "min_samples: 0 is less than 1"


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (lambda r: r, "frame: missing column 'swept' (and 7 more): not a sweep result"),
        (
            lambda r: pd.DataFrame(),
            "frame: missing column 'swept' (and 9 more): not a sweep result",
        ),
        (lambda r: [1, 2], "frame: expected the DataFrame that sweep() returns, got list"),
    ],
    ids=["simulate-frame", "empty", "list"],
)
def test_plot_sweep_says_the_frame_is_not_a_sweep(results, frame, message):
    with pytest.raises(InputError) as error:
        sunset_sim.plot_sweep(frame(results))
    assert one_line(error).startswith(message)


def test_card_set_and_backend_errors_are_input_errors(tmp_path):
    """load_cards raised a CardSetError that was no InputError, and a bad backend a
    RunError naming the command line's --backend."""
    from sunset_sim.cards.loader import CardSetError

    assert issubclass(CardSetError, InputError)
    with pytest.raises(InputError) as error:
        sunset_sim.load_cards(tmp_path / "nope.toml")
    assert one_line(error) == f"{tmp_path / 'nope.toml'}: file not found"
    with pytest.raises(InputError) as error:
        sunset_sim.simulate(games=5, backend="nope")
    assert one_line(error) == "backend: 'nope' is not 'local', 'dask' or a distributed.Client"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sunset_sim.simulate(games=5, progress="yes"), "progress: 'yes' is not True"),
        (lambda: _experiments().restricted_play([], games=5), "strategies: give at least one"),
        (
            lambda: _experiments().restricted_play(["greedy"], families=["plans"], games=5),
            "family: 'plans' is not one of plan",
        ),
        (
            lambda: _experiments().restricted_play(
                ["greedy"], restrictions=[_experiments().Restriction("feature", "lava")], games=5
            ),
            "feature: 'lava' is not a feature type",
        ),
        (
            lambda: _experiments().restricted_play(
                ["greedy"], restrictions=[_experiments().Restriction("plan", "P99")], games=5
            ),
            "plan: no card 'P99'",
        ),
    ],
    ids=["progress", "no-strategy", "family", "feature", "card"],
)
def test_api_argument_errors_are_input_errors(call, message):
    """These were plain ValueErrors, which the one-line error handling of the CLI and of
    callers that catch InputError did not take as bad input."""
    with pytest.raises(InputError, match=message):
        call()


def _experiments():
    from sunset_sim.analysis import experiments

    return experiments


# ---- options that an inner ValueError (or nothing) used to check --------------------

PROGRESS_CALLS = {
    "simulate": lambda **kw: sunset_sim.simulate(games=5, players=2, **kw),
    "tournament": lambda **kw: sunset_sim.tournament(["greedy", "random"], games=5, **kw),
    "compare": lambda **kw: sunset_sim.compare(games=5, rules_b={"days": 4}, **kw),
    "sweep": lambda **kw: sunset_sim.sweep(rule="days=4,5", games=5, **kw),
    "tune": lambda **kw: sunset_sim.tune("balanced", games=5, **kw),
}


@pytest.mark.parametrize("call", PROGRESS_CALLS.values(), ids=PROGRESS_CALLS.keys())
def test_every_api_call_refuses_a_progress_it_does_not_take(call):
    """progress="yes" was a plain ValueError from inside progress_bar (in tune, after the
    engine had compiled)."""
    with pytest.raises(InputError) as error:
        call(progress="yes")
    assert one_line(error) == "progress: 'yes' is not True, False, None or a callable"


@pytest.mark.parametrize(
    ("call", "hook"),
    [
        (PROGRESS_CALLS["tournament"], "on_chunk"),
        (PROGRESS_CALLS["compare"], "on_chunk"),
        (PROGRESS_CALLS["sweep"], "on_chunk"),
        (PROGRESS_CALLS["tune"], "on_games"),
        (PROGRESS_CALLS["tune"], "on_generation"),
        (lambda **kw: sunset_sim.play_reference(None, ["greedy", "random"], **kw), "on_event"),
    ],
    ids=["tournament", "compare", "sweep", "tune-games", "tune-generation", "play_reference"],
)
def test_a_hook_that_is_not_callable_is_refused(call, hook):
    """A hook that is not callable was silently ignored (on_chunk) or failed mid-run."""
    with pytest.raises(InputError) as error:
        call(**{hook: "print"})
    assert one_line(error) == f"{hook}: 'print' is not a callable or None"


def test_report_hooks_that_are_not_callable_are_refused(results, tmp_path):
    """write_report failed after report.md was written (a half-written folder)."""
    with pytest.raises(InputError) as error:
        sunset_sim.build_report(results, on_step=1)
    assert one_line(error) == "on_step: 1 is not a callable or None"
    out = tmp_path / "rep"
    with pytest.raises(InputError) as error:
        sunset_sim.write_report(object(), out, on_step=1)
    assert one_line(error) == "on_step: 1 is not a callable or None"
    assert not out.exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "param or rule: give exactly one (param: a strategy parameter"),
        ({"param": "balanced:deny=0,1", "rule": "days=4,5"}, "param or rule: give exactly"),
        ({"param": 3}, "param: 3 is not a text NAME:KEY=V1,V2,..."),
        ({"rule": ["days=4,5"]}, "rule: ['days=4,5'] is not a text KEY=V1,V2,..."),
        (
            {"param": "balanced:deny", "values": [0, "x"]},
            "values: strategy balanced: deny='x' is not a number",
        ),
        ({"rule": "days=4,5", "chunk_size": 0}, "chunk_size: 0 is not positive"),
    ],
)
def test_sweep_names_the_argument_that_is_wrong(kwargs, message):
    """Neither param nor rule was a plain ValueError; a param that is no text an
    AttributeError; a chunk_size of 0 a ValueError from inside the runner."""
    with pytest.raises(InputError) as error:
        sunset_sim.sweep(games=5, **kwargs)
    assert one_line(error).startswith(message)


def test_compare_checks_its_chunk_size():
    with pytest.raises(InputError) as error:
        sunset_sim.compare(games=5, rules_b={"days": 4}, chunk_size="big")
    assert one_line(error) == "chunk_size: 'big' is not a whole number"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "nope"}, "backend: 'nope' is not 'local', 'dask'"),
        ({"scheduler": "tcp://127.0.0.1:1"}, "^scheduler: only with backend='dask'"),
    ],
    ids=["backend", "scheduler"],
)
def test_tune_names_a_bad_backend_before_it_compiles(kwargs, message, monkeypatch):
    """A bad backend or a scheduler without Dask failed only after the engine and the
    strategies were compiled (minutes on a cold cache)."""
    from sunset_sim.engine import compiling

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled before the backend was checked")

    monkeypatch.setattr(compiling, "prepare", no_compile)
    with pytest.raises(InputError, match=message):
        sunset_sim.tune("balanced", games=5, **kwargs)
