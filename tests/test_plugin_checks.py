"""The conformance check of strategies (``sunset_sim.testing.check_strategy``) and a
strategy that fails while it plays: each fault is found, and is one line naming the
strategy, from the command line and from the Python API."""

from __future__ import annotations

import dataclasses
import importlib.util
import pickle
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
from click.testing import CliRunner

from sunset_sim import strategy as strategy_module
from sunset_sim.cards import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.cli import main
from sunset_sim.engine import compiling, decisions, kernel
from sunset_sim.engine.batch import run_games
from sunset_sim.engine.jit import jit
from sunset_sim.enums import DECIDE_PLAN
from sunset_sim.play import play_reference
from sunset_sim.rules.options import Rules
from sunset_sim.runner import simulate
from sunset_sim.strategy import (
    IllegalChoiceError,
    Parameter,
    Player,
    StrategyError,
    StrategyFault,
    StrategyRaisedError,
    StrategySpec,
    make_player,
    registry,
    seat_players,
)
from sunset_sim.strategy_tools import rng_below
from sunset_sim.testing import StrategyCheckError, assert_strategy, check_strategy

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_cards()
TABLES = build_tables(CARDS)


# ---- check_strategy ----------------------------------------------------------------------------


def edge_lover() -> StrategySpec:
    """docs/examples/edge_lover.py, imported once (numba needs its module importable)."""
    if "edge_lover" not in sys.modules:
        path = ROOT / "docs" / "examples" / "edge_lover.py"
        spec = importlib.util.spec_from_file_location("edge_lover", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["edge_lover"] = module
        spec.loader.exec_module(module)
    return sys.modules["edge_lover"].STRATEGY


@pytest.mark.parametrize("name", ["random", "greedy", "edge-lover"])
def test_check_strategy_passes_for_good_strategies(name):
    spec = edge_lover() if name == "edge-lover" else name
    assert check_strategy(spec, games=9, seed=3) == []
    assert_strategy(spec, games=3, seed=4)


@jit
def off_the_list(kind, obs, options, n_options, params, rng, tables):
    return n_options  # one past the last option


@jit
def writes_obs(kind, obs, options, n_options, params, rng, tables):
    obs[0] = 99  # OBS_DAY: in the fast engine this is the live game state
    return rng_below(rng, n_options)


CALLS = [0]


def global_counter(kind, obs, options, n_options, params, rng, tables):
    CALLS[0] += 1  # state of its own: not a function of its inputs
    return CALLS[0] % n_options


@jit
def numpy_random(kind, obs, options, n_options, params, rng, tables):
    return np.random.randint(n_options)  # not the player's stream


@jit
def reads_padding(kind, obs, options, n_options, params, rng, tables):
    return rng_below(rng, options.shape[0]) % n_options  # options.shape[0], not n_options


def test_a_plugin_that_fails_to_load_is_one_warning_line(tmp_path, monkeypatch):
    """The command goes on without it and says why in one line (not Python's warning
    with its file, line number and source echo)."""
    (tmp_path / "broken_plugin_mod.py").write_text("def oops(:\n", encoding="utf-8")
    monkeypatch.setattr(strategy_module, "_REGISTRY", {})  # scan again, with the folder
    monkeypatch.setattr(sys, "path", list(sys.path))
    result = CliRunner().invoke(main, ["--strategy-path", str(tmp_path), "strategies"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"warning: strategy module {tmp_path / 'broken_plugin_mod'}: ")
    assert "was never closed" in lines[0] or "invalid syntax" in lines[0], lines[0]
    assert "greedy" in result.stdout


def one_error_line(monkeypatch, spec: StrategySpec, args: list) -> str:
    """Run the command line with ``spec`` registered for this test: exit code 2, no
    traceback, and the one ``error:`` line it printed (compile notes aside)."""
    registry()
    monkeypatch.setitem(strategy_module._REGISTRY, spec.name, spec)
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("sunset-sim:")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "--games", "20"],
        ["tournament", "--games", "10"],
        ["play"],
        ["report", "--games", "20", "--out", "{tmp}/report"],
    ],
    ids=["simulate", "tournament", "play", "report"],
)
def test_an_answer_off_the_list_is_one_line_naming_the_strategy(tmp_path, monkeypatch, command):
    """Both engines name the strategy and the answer (IllegalChoiceError); the command
    line prints that one line, exit code 2, no traceback."""
    spec = StrategySpec("off-the-list", "answers n_options", off_the_list)
    args = [part.format(tmp=tmp_path) for part in command]
    lines = [one_error_line(monkeypatch, spec, [*args, "--players", "2", "--strategy",
                                                spec.name, "--strategy", "greedy", "-q"])]  # fmt: skip
    assert "strategy off-the-list chose option" in lines[0]
    assert "decide must return an index from 0 to n_options - 1" in lines[0]
    # the file whose decide answered, as a raise names it (a tester's: it named none)
    assert lines[0].endswith(f"({Path(__file__).resolve()})") or Path(__file__).name in lines[0]
    with pytest.raises(IllegalChoiceError, match="strategy off-the-list chose option 3 of 3"):
        simulate(games=5, players=2, strategies=[spec.name, "greedy"], seed=0)
    none = IllegalChoiceError.of("x", off_the_list, None)
    assert Path(__file__).name in str(none) and str(pickle.loads(pickle.dumps(none))) == str(none)


@pytest.mark.parametrize(
    ("decide", "needles"),
    [
        (off_the_list, ["the reference engine stopped", "chose option", "fast engine was not run"]),
        (writes_obs, ["decide wrote to obs[0] (OBS_DAY)", "fast engine was not run"]),
        (
            global_counter,
            [
                "decide is not a numba function",
                "the same decision asked twice",
                "not deterministic: two plays with seed 0 differ at days / day 1",
            ],
        ),
        (numpy_random, ["the same decision asked twice", "not deterministic"]),
        (reads_padding, ["decide reads option rows past n_options", "use n_options"]),
    ],
    ids=["off-the-list", "writes-obs", "global-counter", "numpy-random", "reads-padding"],
)
def test_check_strategy_finds_bad_strategies(decide, needles):
    if numba.config.DISABLE_JIT and decide is global_counter:
        needles = needles[1:]
    spec = StrategySpec(f"bad-{decide.__name__}", "a deliberately bad strategy", decide)
    problems = check_strategy(spec, games=4, seed=0)
    text = "\n".join(problems)
    for needle in needles:
        assert needle in text, text
    assert all("\n" not in problem for problem in problems)
    with pytest.raises(StrategyCheckError) as caught:
        assert_strategy(spec, games=2)
    assert f"strategy bad-{decide.__name__} failed" in str(caught.value)
    assert caught.value.problems


@jit
def reads_the_deck(kind, obs, options, n_options, params, rng, tables):
    return tables.comm_fame.sum() % n_options  # every commission's fame, unseen ones too


def test_check_strategy_tests_the_unseen_commissions_promise():
    """(e): a strategy that reads the fame of commissions still in the deck fails when its
    spec promises not to (studies would skip deals it plays differently), and passes
    when it makes no such promise."""
    promised = StrategySpec("deck-reader", "reads every commission", reads_the_deck, (), False)
    problems = check_strategy(promised, games=4, seed=0)
    assert any(
        "reads_unseen_commissions=False" in problem and "changed the game" in problem
        for problem in problems
    ), problems
    honest = dataclasses.replace(promised, reads_unseen_commissions=True)
    assert check_strategy(honest, games=4, seed=0) == []


def test_check_strategy_reports_an_unknown_name():
    assert check_strategy("no-such-strategy") == [
        f"unknown strategy 'no-such-strategy' (known: {', '.join(registry())})"
    ]


@pytest.mark.parametrize(
    ("name", "parameters", "needle"),
    [
        ("dup", (Parameter("x", 1, 0, 2), Parameter("x", 1, 0, 2)), "'x' is declared twice"),
        ("range", (Parameter("x", 20, 0, 10),), "default 20 is outside its range 0..10"),
        ("lowhigh", (Parameter("x", 2, 10, 0),), "low 10 is above high 0"),
        ("a:b", (), "its name may not hold ':'"),
    ],
)
def test_a_declaration_that_could_never_be_seated_is_refused(name, parameters, needle):
    """Refused where the spec is made, naming the strategy (a default out of range was
    refused only when seated, worded as if the user had given that value)."""
    with pytest.raises(StrategyError, match=f"strategy {name}: .*{needle}"):
        StrategySpec(name, "a mistaken declaration", off_the_list, parameters)


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("", "strategy '': its name is empty"),
        (
            "p-" + "x" * 100,
            f"strategy p-{'x' * 62}...: its name is 102 characters long, more than 64",
        ),
        ("p-\x1b[31mred", "strategy 'p-\\x1b[31mred': its name holds a control character"),
    ],
    ids=["empty", "long", "control"],
)
def test_a_name_that_could_not_be_typed_or_shown_is_refused(name, needle):
    """An empty name cannot be named on a command line, a 5,000-character one fills
    every table, a control character garbles the terminal: refused where the spec is
    made, in one short line (a plug-in folder's module: one warning, skipped)."""
    with pytest.raises(StrategyError) as raised:
        StrategySpec(name, "a mistaken declaration", off_the_list)
    assert str(raised.value).startswith(needle), str(raised.value)
    StrategySpec("x" * 64, "the longest name", off_the_list)


# ---- a strategy that fails while it plays ---------------------------------------------------


@jit
def raises_on_plan(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PLAN:
        raise ValueError("boom")
    return rng_below(rng, n_options)


@jit
def none_after_plan(kind, obs, options, n_options, params, rng, tables):
    if kind == DECIDE_PLAN:  # every other kind falls off the end: None
        return 0


@pytest.mark.parametrize("command", [["simulate", "--games", "20"], ["play"]])
@pytest.mark.parametrize(
    ("decide", "needle"),
    [
        (raises_on_plan, "strategy failing's decide raised ValueError: boom (/"),
        (none_after_plan, "strategy failing returned None: decide must return an integer index"),
    ],
    ids=["raises", "returns-none"],
)
def test_a_strategy_that_fails_is_one_line_naming_it(monkeypatch, command, decide, needle):
    """In both engines (play: the reference; simulate: the fast one) a strategy's
    exception or None answer is one line naming it (and, for a raise, its file), exit
    code 2: it used to be a traceback, exit code 1."""
    spec = StrategySpec("failing", "fails while it plays", decide)
    lines = [one_error_line(monkeypatch, spec, [*command, "--players", "2", "--strategy",
                                                spec.name, "--strategy", "random", "-q"])]  # fmt: skip
    assert needle in lines[0], lines[0]
    if decide is raises_on_plan:
        assert (
            lines[0].endswith(f"({Path(__file__).resolve()})")
            or str(Path(__file__).name) in lines[0]
        )


def test_a_strategy_that_raises_is_named_by_the_python_api():
    """simulate and play_reference raise StrategyRaisedError (a StrategyFault), the
    strategy's own exception its cause where Python has it; it pickles (Dask)."""
    spec = StrategySpec("failing", "raises", raises_on_plan)
    player = Player(spec, spec.param_vector())
    random = make_player("random")
    with pytest.raises(
        StrategyRaisedError, match="strategy failing's decide raised ValueError: boom"
    ):
        run_games(TABLES, [random, player], Rules(), 0, 0, 20)
    with pytest.raises(StrategyRaisedError) as raised:
        play_reference(CARDS, [random, player], 0, 0, None, TABLES)
    assert isinstance(raised.value.__cause__, ValueError)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert str(copy) == str(raised.value) and isinstance(copy, StrategyFault)
    none = IllegalChoiceError("failing", None)
    assert str(pickle.loads(pickle.dumps(none))) == str(none)


def test_only_an_error_from_a_strategy_is_put_on_it(monkeypatch):
    """The engine's own errors surface as they are: the fault slot that names a strategy
    is written only when that strategy's call fails (decisions.call_strategy)."""
    players = seat_players(["random", "greedy"], 2)
    run_games(TABLES, players, Rules(), 0, 0, 2)  # compiled before the engine is replaced

    def engine_bug(*args):
        raise IndexError("an engine bug")

    monkeypatch.setattr(kernel, "play_games", engine_bug)
    with pytest.raises(IndexError, match="an engine bug"):
        run_games(TABLES, players, Rules(), 0, 0, 2)

    def strategy_bug(*args):
        functions, ids = args[4], args[5]
        functions[decisions.FAULT_SLOT] = ids[1]  # as call_strategy does if greedy raises
        raise IndexError("in greedy")

    monkeypatch.setattr(kernel, "play_games", strategy_bug)
    with pytest.raises(
        StrategyRaisedError, match="strategy greedy's decide raised IndexError: in greedy"
    ):
        run_games(TABLES, players, Rules(), 0, 0, 2)


@jit
def answers_a_float(kind, obs, options, n_options, params, rng, tables):
    return 0.5


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="every function is plain Python")
def test_a_strategy_made_in_code_that_does_not_compile_is_one_line(monkeypatch):
    """A user's strategy made in their own code (a notebook, a script: not this project's)
    is refused as a --strategy-path plug-in is, in one line naming its file (the Python
    API gave numba's whole TypingError, the command line one line); one of this project's
    own is a bug to see whole."""
    spec = StrategySpec("float-answer", "answers 0.5", answers_a_float)
    with pytest.raises(StrategyError) as raised:
        compiling.prepare([spec], announce=False)
    assert str(raised.value) == (
        f"strategy float-answer ({__file__}): decide must return an integer option index, "
        "not float64"
    )
    with pytest.raises(ValueError, match="^strategy float-answer .*not float64$"):
        simulate(games=5, strategies=[Player(spec, spec.param_vector({}))])
    monkeypatch.setattr(compiling, "plugin_file", lambda spec: None)  # as a built-in's
    with pytest.raises(numba.core.errors.TypingError, match="integer option index, not float64"):
        compiling.prepare([StrategySpec("float-answer-2", "", answers_a_float)], announce=False)


FAILING_PLUGIN = textwrap.dedent(
    """
    from sunset_sim.engine.jit import jit
    from sunset_sim.strategy import StrategySpec


    def helper(n_options):  # not jitted
        return n_options - 1


    @jit
    def decide(kind, obs, options, n_options, params, rng, tables):
        return {answer}


    STRATEGY = StrategySpec(name="{name}", description="answers badly", decide=decide)
    COUNTS = __import__("collections").Counter()  # no numba type
    """
)


@pytest.mark.parametrize(
    ("kind", "answer", "command", "needle"),
    [
        ("float", "0.5", "simulate", "decide must return an integer option index, not float64"),
        ("float", "0.5", "play", "returned float 0.5: decide must return an integer index"),
        ("str", "'a'", "simulate", "must return an integer option index, not unicode_type"),
        ("str", "'a'", "play", "returned str 'a': decide must return an integer index"),
        ("helper", "helper(n_options)", "simulate", "decorate helpers with @jit"),
        # the fast engine's inlining said "NameError: name 'COUNTS' is not defined", and no
        # line: now numba's own words, with the line, as the reference engine gives them
        ("helper", "helper(n_options)", "simulate", "line 12): "),
        ("helper", "helper(n_options)", "simulate", "Untyped global name 'helper'"),
        ("global", "COUNTS[kind]", "simulate", "line 12): "),
        ("global", "COUNTS[kind]", "simulate", "Untyped global name 'COUNTS'"),
        ("global", "COUNTS[kind]", "play", "Untyped global name 'COUNTS'"),
        ("helper", "helper(n_options)", "play", "decorate helpers with @jit"),
        # a tester's: numba's line ended at "found for signature:", with the helper hint
        ("tables", "0 if tables[0].shape[0] > 0 else 1", "simulate", "never by index"),
    ],
)
def test_a_plugin_answering_no_index_is_one_line(
    tmp_path, monkeypatch, kind, answer, command, needle
):
    """A plug-in whose decide returns a float or a string, or calls a plain Python
    function: one line naming it, exit code 2 (it was numba's 105-line TypingError, a
    ValueError from int(), or a float silently cut to an index). The fast engine finds
    it when the adapter compiles, from the type numba gives decide's answer. (The text
    of each is fixed, so numba's cache of it serves later runs.)"""
    if numba.config.DISABLE_JIT and command == "simulate":
        pytest.skip("the fast engine's check is numba's typing")
    module, name = f"sunset_failing_{kind}", f"bad-answer-{kind}"
    (tmp_path / f"{module}.py").write_text(FAILING_PLUGIN.format(answer=answer, name=name))
    monkeypatch.setenv(strategy_module.STRATEGY_PATH_VARIABLE, "")
    monkeypatch.setattr(strategy_module, "_REGISTRY", {})
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    args = ["--strategy-path", str(tmp_path), command, "--players", "2", "-q"]
    if command == "simulate":
        args += ["--games", "5"]
    result = CliRunner().invoke(main, [*args, "--strategy", name, "--strategy", "random"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("sunset-sim:")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert f"strategy {name}" in lines[0] and needle in lines[0], lines[0]
    if kind == "tables":  # the line of the plug-in numba stopped at, not the helper hint
        assert f"{module}.py, line 12): " in lines[0] and "decorate helpers" not in lines[0]


def test_a_plugin_that_exits_or_reuses_a_taken_name_is_one_warning_line(tmp_path, monkeypatch):
    """The audit: a module calling sys.exit() at import ended the whole tool (exit 0, no
    output); a module named like one already imported (json.py, or mod.py in a second
    folder) was silently that other module. Each is now one warning line and skipped, and
    the command goes on."""
    exits, first, second = (tmp_path / name for name in ("exits", "first", "second"))
    for folder in (exits, first, second):
        folder.mkdir()
    (exits / "quits_plugin_mod.py").write_text("import sys\nsys.exit('bye')\n", encoding="utf-8")
    (first / "json.py").write_text("STRATEGY = None\n", encoding="utf-8")
    for folder in (first, second):
        (folder / "twin_plugin_mod.py").write_text("STRATEGY = None\n", encoding="utf-8")
    monkeypatch.setattr(strategy_module, "_REGISTRY", {})  # scan again, with the folders
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "twin_plugin_mod", raising=False)
    monkeypatch.delenv(strategy_module.STRATEGY_PATH_VARIABLE, raising=False)
    paths = [arg for folder in (exits, first, second) for arg in ("--strategy-path", folder)]
    result = CliRunner().invoke(main, [*map(str, paths), "strategies"])
    assert result.exit_code == 0, result.output
    assert "greedy" in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 3, lines
    assert lines[0] == (
        f"warning: strategy module {exits / 'quits_plugin_mod'}: exited (SystemExit: bye)"
    )
    assert lines[1].startswith(f"warning: strategy module {first / 'json'}: the module name ")
    assert lines[2] == (
        f"warning: strategy module {second / 'twin_plugin_mod'}: the module name "
        f"'twin_plugin_mod' is already taken by {first / 'twin_plugin_mod.py'} (rename the "
        "file): skipped"
    )


def _raises_plainly(kind, obs, options, n_options, params, rng, tables):
    values = [0, 1, 2]
    return values[n_options + 5]  # (an IndexError on this line)


def test_a_raise_in_python_names_the_line_that_raised():
    """A tester's: writing-a-strategy.md says NUMBA_DISABLE_JIT=1 "shows the line", and the
    one line named the file alone. Where Python ran the code, the line is named."""
    import inspect

    try:
        _raises_plainly(0, None, None, 1, None, None, None)
    except IndexError as error:
        raised = StrategyRaisedError.of("plain", _raises_plainly, error)
    line = inspect.getsourcelines(_raises_plainly)[1] + 2
    assert str(raised) == (
        f"strategy plain's decide raised IndexError: list index out of range "
        f"({__file__}, line {line})"
    )
