"""Inputs the public API once took and failed on later (the hostile tester's list): an
unordered strategy collection, numpy seeds, a Player's label and params, a StrategySpec
that could never be used, check_strategy's and tune's arguments, a plug-in that prints
while imported, and the warnings the docs name. Each is one line, where it is given."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import sunset_sim
from sunset_sim import strategy as strategy_module
from sunset_sim.analysis.whatif import _check_sizes
from sunset_sim.cli import main
from sunset_sim.strategy import (
    Parameter,
    Player,
    StrategyError,
    StrategySpec,
    add_strategy_path,
    make_player,
)
from sunset_sim.testing import assert_strategy, check_strategy
from sunset_sim.validation import InputError, check_strategies

GREEDY = make_player("greedy")
DECIDE = GREEDY.spec.decide

UNORDERED = [
    {"greedy", "random"},
    frozenset({"greedy", "random"}),
    {"greedy": 1, "random": 2},
    {"greedy": 1, "random": 2}.keys(),
]
ORDERED = "strategies: expected an ordered list of strategy names or players, got "


@pytest.mark.parametrize("strategies", UNORDERED, ids=["set", "frozenset", "dict", "keys"])
def test_an_unordered_strategy_collection_is_refused(strategies):
    """Seats follow the order given; a set's order changes with PYTHONHASHSEED, so the
    same call seated the strategies differently from run to run."""
    with pytest.raises(InputError) as raised:
        check_strategies(strategies)
    assert str(raised.value).startswith(ORDERED + type(strategies).__name__)
    assert check_strategies(("greedy", "random"))[1].name == "random"  # a tuple is ordered


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: sunset_sim.simulate(games=5, players=2, strategies=s), "strategies: "),
        (lambda s: sunset_sim.tournament(s, players=2, games=5), "strategies: "),
        (lambda s: sunset_sim.compare(s, rules_b={"days": 4}, games=5), "strategies: "),
        (lambda s: sunset_sim.sweep(rule="days=4,5", strategies=s, games=5), "strategies: "),
        (lambda s: sunset_sim.tune("balanced", s, games=5), "opponent: "),
        (lambda s: sunset_sim.run_study(s, 2, 5), "strategies: "),
        (lambda s: sunset_sim.run_study(["greedy"], 2, 5, check_field=s), "check_field: "),
        (lambda s: sunset_sim.play_reference(None, s), "players: "),
    ],
    ids=["simulate", "tournament", "compare", "sweep", "tune", "study", "check_field", "play"],
)
def test_every_entry_refuses_an_unordered_strategy_collection(call, message):
    with pytest.raises(InputError, match=f"^{message}expected an ordered list .* got set"):
        call({"greedy", "random"})


@pytest.mark.parametrize("kind", [np.int64, np.uint64, np.int32])
def test_a_numpy_seed_plays_the_same_game_as_its_int(kind):
    """play_reference checked a numpy seed but went on with it: OverflowError in the rng."""
    given = sunset_sim.play_reference(None, ["greedy", "random"], seed=kind(5), game_index=kind(2))
    plain = sunset_sim.play_reference(None, ["greedy", "random"], seed=5, game_index=2)
    assert given.record == plain.record
    assert type(given.record["seed"]) is int and type(given.record["game_index"]) is int


def test_compare_and_sweep_go_on_with_python_ints():
    checked = _check_sizes(np.int64(2), np.int64(5), np.uint64(5), np.int64(1), np.int64(9))
    assert checked == (2, 5, 5, 1, 9) and all(type(value) is int for value in checked)


def test_tournament_takes_a_numpy_rating_games_as_every_other_count():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sunset_sim.tournament(
            ["greedy", "random"], players=2, games=2, rating_games=np.int64(2)
        )
    assert result.standings["n"].sum() > 0
    with pytest.raises(InputError, match="^rating_games: -1 is less than 0$"):
        sunset_sim.tournament(["greedy", "random"], players=2, games=2, rating_games=-1)


@pytest.mark.parametrize(
    ("label", "needle"),
    [
        ("a\nb", "label 'a\\\\nb' is blank or holds a control character"),
        ("  ", "label '  ' is blank"),
        (5, "label must be a text, got int"),
    ],
)
def test_a_player_label_is_checked_where_the_player_is_made(label, needle):
    """A number failed mid-tournament (sorting labels), a newline only in the report."""
    with pytest.raises(StrategyError, match=f"^strategy greedy: {needle}"):
        Player(GREEDY.spec, GREEDY.params, label=label)
    assert Player(GREEDY.spec, GREEDY.params, label="greedy (mine)").name == "greedy (mine)"
    assert Player(GREEDY.spec, GREEDY.params, label=None).name == "greedy"  # no label: as ""


def test_a_players_params_cannot_be_changed_after_the_check():
    """``p.params[:] = nan`` once played silently: the checked vector is read-only, a
    copy (the caller's own array stays writable)."""
    given = GREEDY.spec.param_vector()
    player = Player(GREEDY.spec, given)
    with pytest.raises(ValueError, match="read-only"):
        player.params[:] = np.nan
    before = player.params.copy()
    given[:] = 0.0  # the caller's array: still theirs, and not the player's
    assert np.array_equal(player.params, before) and given.flags.writeable
    result = sunset_sim.play_reference(None, [player, "random"], seed=1)  # plays as before
    assert result.record["strategies"] == ["greedy", "random"]


@pytest.mark.parametrize(
    ("parameters", "needle"),
    [
        ((Parameter("n", 0.5, 0, 1, integer=True),), "default 0.5 of a count is not a whole"),
        ((Parameter("n", 1, 0.2, 0.7, integer=True),), "range 0.2..0.7 holds no whole number"),
        ((Parameter("params", 1, 0, 2),), "parameter name 'params' is taken"),
        ((Parameter("a=b", 1, 0, 2),), "'a=b' may not hold '=', ',', ':' or spaces"),
        ((Parameter("a,b", 1, 0, 2),), "may not hold"),
        ((Parameter("a:b", 1, 0, 2),), "may not hold"),
        ((Parameter("a b", 1, 0, 2),), "may not hold"),
        ((Parameter("", 1, 0, 2),), "parameter name '' is empty or not a text"),
        ((Parameter(5, 1, 0, 2),), "parameter name 5 is empty or not a text"),
        ((Parameter("x", 1, -np.inf, np.inf),), "low -inf is not a finite number"),
        ((Parameter("x", 1, 0, np.inf),), "high inf is not a finite number"),
        ((Parameter("x", np.nan, 0, 2),), "default nan is not a finite number"),
        ((Parameter("x", "1", 0, 2),), "default '1' is not a number"),
        ((Parameter("x", None, 0, 2),), "default None is not a number"),
        (("x",), "parameters holds 'x', not a Parameter"),
        (None, "parameters must be a tuple of Parameter, got NoneType"),
        # (a tester's: each was accepted)
        ((Parameter("x", 1, 0, 2, help=7),), "parameter 'x': help 7 is not a text"),
        ((Parameter("x", 1, 0, 2, integer="yes"),), "integer 'yes' is not True or False"),
    ],
)
def test_a_declaration_the_docstring_refuses_is_refused(parameters, needle):
    """Each was accepted, or a raw TypeError/AttributeError, before."""
    with pytest.raises(StrategyError) as raised:
        StrategySpec("spec-x", "a mistaken declaration", DECIDE, parameters)
    text = str(raised.value)
    assert text.startswith("strategy spec-x: ") and needle in text and "\n" not in text, text


@pytest.mark.parametrize("decide", [None, 5])
def test_a_decide_that_cannot_be_called_is_refused(decide):
    kind = type(decide).__name__
    with pytest.raises(StrategyError, match=f"^strategy x: decide must be a function, got {kind}"):
        StrategySpec("x", "no decide", decide)


def test_a_decide_with_the_wrong_arguments_is_refused():
    """Six arguments gave numba's binding error (its Var(...) reprs) on the fast engine and
    "raised TypeError" on the reference one; *args and other names still bind."""
    from sunset_sim.engine.jit import jit

    def six(kind, obs, options, n_options, params, rng):
        return 0

    for decide in (six, jit(six)):
        with pytest.raises(StrategyError) as raised:
            StrategySpec("x", "six arguments", decide)
        assert str(raised.value) == (
            "strategy x: decide must take 7 arguments (kind, obs, options, n_options, "
            "params, rng, tables); it takes (kind, obs, options, n_options, params, rng)"
        )
    StrategySpec("x", "any names", lambda a, b, c, d, e, f, g: 0)
    StrategySpec("x", "star", lambda *arguments: 0)


def test_a_list_of_parameters_is_kept_as_a_tuple():
    spec = StrategySpec("x", "listed", DECIDE, [Parameter("a", 1, 0, 2)])
    assert spec.parameters == (Parameter("a", 1, 0, 2),) and hash(spec)
    # a flag's bool default is 0 or 1, as it was before the checks
    flag = StrategySpec("x", "a flag", DECIDE, (Parameter("flag", False, 0, 1),))
    assert flag.param_vector().tolist() == [0.0]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seed": -1}, "seed: must not be negative, got -1"),
        ({"players": (5,)}, "players: 5 is outside 2 to 4"),
        ({"players": ()}, "players: give at least one player count"),
        ({"players": "23"}, "players: expected player counts such as (2, 3), got str"),
        ({"games": 0}, "games: 0 is not a positive number of games"),
        ({"strategy": None}, "strategy: expected a strategy name, a StrategySpec or a Player"),
    ],
)
def test_check_strategy_refuses_bad_arguments_up_front(arguments, message):
    """Not reported as a problem of the strategy (seed=-1 was one per game)."""
    arguments = {"strategy": "random", **arguments}
    for check in (check_strategy, assert_strategy):
        with pytest.raises(InputError) as raised:
            check(**arguments)
        assert str(raised.value).startswith(message), str(raised.value)


def test_check_strategy_takes_one_player_count_as_a_number():
    assert check_strategy("random", games=1, players=3) == []


def test_tune_and_make_player_refuse_what_is_not_a_strategy_text():
    """AttributeError 'partition' before."""
    with pytest.raises(InputError, match="^strategy: expected a strategy name or a Player"):
        sunset_sim.tune(None)
    with pytest.raises(StrategyError, match="^strategy: expected a text such as 'greedy'"):
        make_player(None)


@pytest.mark.parametrize("folder", [None, 5])
def test_add_strategy_path_refuses_what_is_not_a_path(folder):
    kind = type(folder).__name__
    with pytest.raises(StrategyError, match=f"^strategy path: expected a folder, got {kind}$"):
        add_strategy_path(folder)


def test_a_plugin_printing_at_import_leaves_stdout_to_the_results(tmp_path, monkeypatch):
    """``--out -`` writes the CSV to stdout; a plug-in's print went before its header."""
    (tmp_path / "noisy_plugin_mod.py").write_text("print('hello from a plug-in')\n")
    monkeypatch.setattr(strategy_module, "_REGISTRY", {})  # scan again, with the folder
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "noisy_plugin_mod", raising=False)
    monkeypatch.delenv(strategy_module.STRATEGY_PATH_VARIABLE, raising=False)
    args = ["--strategy-path", str(tmp_path), "simulate", "-n", "4", "-p", "2", "--out", "-"]
    try:
        result = CliRunner().invoke(main, args)
    finally:  # --strategy-path sets the variable, which delenv (nothing to undo) leaves:
        # later subprocesses of this worker would import the noisy plug-in too
        os.environ.pop(strategy_module.STRATEGY_PATH_VARIABLE, None)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("game,seat,strategy,"), result.stdout[:200]
    assert "hello from a plug-in" in result.stderr


def test_the_warnings_the_docs_name_are_exported():
    from sunset_sim.analysis.tournament import TournamentSeatWarning
    from sunset_sim.analysis.whatif import SameVariantWarning

    assert sunset_sim.TournamentSeatWarning is TournamentSeatWarning
    assert sunset_sim.SameVariantWarning is SameVariantWarning
    assert {"TournamentSeatWarning", "SameVariantWarning"} <= set(sunset_sim.__all__)
