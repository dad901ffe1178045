"""Plug-in strategies: any registered strategy runs in the fast engine (one engine, an
adapter per strategy), and params files. The conformance check and strategies that fail
while they play: test_plugin_checks.py.

The plug-in used here is written to a temporary folder, so it lives outside the
repository like a real one. Its text is fixed, so its compiled adapter (and numba's cache
of it) is shared between test runs and between the in-process and the subprocess tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
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
from sunset_sim.engine.batch import kernel_arguments, lineup, run_games, trace_game
from sunset_sim.engine.jit import dependency_digest, dependency_files
from sunset_sim.engine.trace import comparable, trace_to_record
from sunset_sim.enums import R_PAINTINGS_SOLD
from sunset_sim.play import play_reference
from sunset_sim.rules.options import Rules
from sunset_sim.runner import simulate
from sunset_sim.strategy import (
    Player,
    StrategyError,
    StrategySpec,
    make_player,
    registry,
    seat_players,
)

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_cards()
TABLES = build_tables(CARDS)
PLUGIN_MODULE = "sunset_plugin_test"
PLUGIN_NAME = "plug-test"
PLUGIN_SOURCE = textwrap.dedent(
    '''
    """A plug-in strategy written by tests/test_plugins.py (outside the repository)."""

    from sunset_sim.engine.jit import jit
    from sunset_sim.enums import DECIDE_PLAN, DECIDE_SALE
    from sunset_sim.strategy import Parameter, StrategySpec
    from sunset_sim.strategy_tools import rng_below

    BONUS = {bonus}


    @jit
    def decide(kind, obs, options, n_options, params, rng, tables):
        if kind == DECIDE_PLAN:  # the plan card that paints most
            best = 0
            for index in range(1, n_options):
                if tables.plan_paint[options[index, 0]] > tables.plan_paint[options[best, 0]]:
                    best = index
            return best
        if kind == DECIDE_SALE:  # sell the first offer when params[0] says so, else stop
            return 1 if params[0] + BONUS > 0.5 else 0
        return rng_below(rng, n_options)


    STRATEGY = StrategySpec(
        name="{name}",
        description="Test plug-in: paints most, sells the first offer, hikes at random.",
        decide=decide,
        parameters=(Parameter("sell", 1.0, 0.0, 1.0, "sell (1) or never sell (0)"),),
    )
    '''
)


def write_plugin(folder: Path, bonus: float = 0.0) -> Path:
    path = folder / f"{PLUGIN_MODULE}.py"
    path.write_text(PLUGIN_SOURCE.format(bonus=bonus, name=PLUGIN_NAME), encoding="utf-8")
    return path


def load_module(path: Path, name: str = PLUGIN_MODULE):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def plugin(tmp_path, monkeypatch) -> StrategySpec:
    """The plug-in, imported from a temporary folder and registered for the test."""
    module = load_module(write_plugin(tmp_path))
    monkeypatch.setitem(sys.modules, PLUGIN_MODULE, module)
    registry()  # fill the registry first: it scans only when empty
    monkeypatch.setitem(strategy_module._REGISTRY, PLUGIN_NAME, module.STRATEGY)
    return module.STRATEGY


def assert_parity(players: list[Player], rules: Rules, seed: int, game: int) -> None:
    trace, _ = trace_game(TABLES, players, rules, seed, game)
    fast = trace_to_record(trace, CARDS, len(players), rules.days)
    reference = comparable(play_reference(CARDS, players, seed, game, rules, TABLES).record)
    assert fast == reference, f"fast engine differs from reference: seed {seed} game {game}"


# ---- a plug-in in the fast engine -----------------------------------------------------------


def test_plugin_runs_in_fast_engine_with_trace_parity(plugin):
    sold = 0
    for game in range(12):
        n_players = (2, 3, 4)[game % 3]
        texts = [f"{PLUGIN_NAME}:sell={game % 2}", "greedy"]
        players = seat_players(texts, n_players)
        assert_parity(players, Rules(), 31, game)
        batch = run_games(TABLES, players, Rules(), 31, game, 1)
        _, out = trace_game(TABLES, players, Rules(), 31, game)
        assert np.array_equal(batch.seat[0], out.seat[0])
        sold += int(batch.seat[0, 0, R_PAINTINGS_SOLD])  # seat 0 holds the plug-in
    assert sold > 0, "the plug-in never sold: its params row did not reach the kernel"
    functions, ids, _ = kernel_arguments(seat_players([PLUGIN_NAME, "greedy"], 2))
    assert ids.tolist() == [1, 0]  # ids follow the names' order: greedy, then the plug-in
    assert functions[1] == decisions.address(decisions.adapter_for(plugin.decide))


# A decide that writes to params (or obs, options, tables) does not compile: its arrays are
# typed read-only (tests/test_plugin_arrays.py).


def test_plugin_runs_through_simulate_and_the_cli(plugin):
    frame = simulate(games=50, players=3, strategies=[PLUGIN_NAME, "greedy"], seed=2)
    assert len(frame) == 150 and set(frame["strategy"]) == {PLUGIN_NAME, "greedy"}
    runner = CliRunner()
    result = runner.invoke(
        main,
        ["simulate", "--games", "50", "--players", "3", "--quiet", "--format", "csv"]
        + ["--strategy", PLUGIN_NAME, "--strategy", "greedy", "--seed", "2"],
    )
    assert result.exit_code == 0, result.output
    assert PLUGIN_NAME in result.output


def test_entry_point_plugin_runs_in_simulate(tmp_path):
    """The installed-package route: a module and a *.dist-info with an entry point."""
    write_plugin(tmp_path)
    info = tmp_path / f"{PLUGIN_MODULE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PLUGIN_MODULE}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[sunset_sim.strategies]\n{PLUGIN_NAME} = {PLUGIN_MODULE}:STRATEGY\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    command = [sys.executable, "-m", "sunset_sim.cli", "simulate", "--games", "100"]
    command += ["--players", "3", "--strategy", PLUGIN_NAME, "--strategy", "greedy", "--quiet"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert PLUGIN_NAME in done.stdout and "100 games, 3 players" in done.stdout


# ---- one engine, an adapter per strategy ------------------------------------------------------


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="every function is plain Python")
def test_one_engine_for_every_line_up():
    """The engine does not depend on the strategies: a line-up is an array of adapter
    addresses, and two line-ups play through the same compiled ``play_games``."""
    run_games(TABLES, seat_players(["greedy", "random"], 2), Rules(), 1, 0, 2)
    compiled = dict(kernel.play_games.overloads)
    run_games(TABLES, seat_players(["random", "early-bird"], 3), Rules(), 1, 0, 2)
    assert dict(kernel.play_games.overloads) == compiled and len(compiled) == 1
    engine_files = {Path(path).name for path in dependency_files(kernel.play_games)[0]}
    assert "kernel.py" in engine_files and "decisions.py" in engine_files
    assert not any(
        Path(path).parent.name == "strategies" for path in dependency_files(kernel.play_games)[0]
    )


def test_an_adapter_depends_on_its_strategy_only():
    greedy = dependency_files(decisions.adapter_dispatcher(registry()["greedy"].decide))[0]
    names = {Path(path).name for path in greedy}
    assert {"greedy.py", "decisions.py", "strategy_tools.py"} <= names
    assert not names & {"goal_chaser.py", "balanced.py", "kernel.py", "uniform_random.py"}


def test_digest_follows_the_plugin_source_not_its_folder(tmp_path):
    def digest(folder: Path, bonus: float) -> str:
        folder.mkdir(exist_ok=True)
        module = load_module(write_plugin(folder, bonus), "hash_probe")
        return dependency_digest(module.STRATEGY.decide)

    first = digest(tmp_path / "a", 0.0)
    assert digest(tmp_path / "b", 0.0) == first  # same text elsewhere: the cache is reused
    assert digest(tmp_path / "c", 0.25) != first  # an edited plug-in: a new compile


def test_digest_does_not_depend_on_where_the_package_lies(tmp_path, monkeypatch):
    """A checkout has strategies/ beside sunset_sim/, a wheel sunset_sim/strategies/:
    sorted by path the same files were hashed in another order, so random's and
    lookahead's engine hash differed between the two installs (a resume refused)."""
    from sunset_sim.engine import jit as jit_module

    def files(root: Path, strategy_folder: str) -> list[str]:
        paths = [root / strategy_folder / "greedy.py", root / "sunset_sim/engine/kernel.py"]
        for path, text in zip(paths, ("GREEDY = 1\n", "KERNEL = 2\n"), strict=True):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return sorted(str(path) for path in paths)

    checkout = files(tmp_path / "checkout", "strategies")
    wheel = files(tmp_path / "wheel", "sunset_sim/strategies")
    assert [Path(p).name for p in checkout] != [Path(p).name for p in wheel]  # the trap

    def digest_with(paths: list[str]) -> str:
        def probe():  # a fresh function each time: the digest is cached per function
            return 0

        monkeypatch.setattr(jit_module, "dependency_files", lambda function: (paths, []))
        return jit_module.dependency_digest(probe)

    assert digest_with(checkout) == digest_with(wheel)


def test_digest_covers_helpers_in_other_files_and_constants(tmp_path):
    (tmp_path / "hash_helper_mod.py").write_text(
        "from sunset_sim.engine.jit import jit\n\nOFFSET = 1\n\n"
        "@jit\ndef helper(n):\n    return n - OFFSET\n"
    )
    (tmp_path / "hash_main_mod.py").write_text(
        "import hash_helper_mod\nfrom hash_helper_mod import helper\n"
        "from sunset_sim.engine.jit import jit\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return helper(n_options) + hash_helper_mod.OFFSET\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("hash_main_mod")
        files, constants = dependency_files(module.decide)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("hash_main_mod", None)
        sys.modules.pop("hash_helper_mod", None)
    assert str(tmp_path / "hash_helper_mod.py") in files
    assert str(tmp_path / "hash_main_mod.py") in files
    assert ("hash_helper_mod.OFFSET", b"1") in constants


def _digest_of(folder: Path, module: str, edit=None) -> str:
    """The digest of ``module.decide`` imported from ``folder`` (every module imported
    fresh); ``edit`` (path, text): written after the import, before the digest."""
    sys.path.insert(0, str(folder))
    before = set(sys.modules)
    try:
        decide = importlib.import_module(module).decide
        if edit is not None:
            edit[0].write_text(edit[1], encoding="utf-8")
        return dependency_digest(decide)
    finally:
        sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            sys.modules.pop(name, None)


def test_digest_is_of_the_code_compiled_not_only_of_the_files(tmp_path):
    """A file edited after its module was imported and before the first compile: the old
    code was cached under the new file's key, and every later process loaded it (a
    notebook edited in an editor, its kernel restarted: still the old strategy). And
    code with no file (python -c, stdin): only its bytecode was hashed, the same for
    return 0 and return 2."""
    main = tmp_path / "edit_race_mod.py"
    text = "from sunset_sim.engine.jit import jit\n\n@jit\ndef decide(*a):\n    return {}\n"
    main.write_text(text.format(0), encoding="utf-8")
    stale = _digest_of(tmp_path, "edit_race_mod", (main, text.format(2)))
    fresh = _digest_of(tmp_path, "edit_race_mod")  # (a new process: the file as it is)
    assert stale != fresh
    unnamed = []
    for value in (0, 2):
        scope: dict = {}
        exec(compile(text.format(value), "<stdin>", "exec"), scope)
        unnamed.append(dependency_digest(scope["decide"]))
    assert unnamed[0] != unnamed[1]


ELSEWHERE_FILES = {  # a plug-in reading a table of helpers, and constants from elsewhere
    "plug/far_plugin_mod.py": (
        "import far_lib_mod.sub\nfrom far_enum_mod import Pick\nfrom far_table_mod import TABLE\n"
        "from sunset_sim.engine.jit import jit\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return TABLE[0]() + Pick.K + far_lib_mod.sub.K\n"
    ),
    "plug/far_table_mod.py": (
        "from sunset_sim.engine.jit import jit\n\n@jit\ndef first():\n    return 0\n\n"
        "TABLE = (first,)\n"
    ),
    "lib/far_enum_mod.py": "from enum import IntEnum\n\nclass Pick(IntEnum):\n    K = 0\n",
    "lib/far_lib_mod/__init__.py": "",
    "lib/far_lib_mod/sub.py": "K = 0\n",
}


@pytest.mark.parametrize(
    "edited", ["plug/far_table_mod.py", "lib/far_enum_mod.py", "lib/far_lib_mod/sub.py"]
)
def test_digest_covers_a_table_of_helpers_and_constants_from_other_folders(tmp_path, edited):
    """Each of these edits left the digest as it was (cache info: nothing to compile; the
    old strategy played): a helper reached through a tuple of functions, an IntEnum
    constant from a module in another folder, a constant of a sub-module (pkg.sub.K)."""
    for name, text in ELSEWHERE_FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path / "lib"))
    try:
        before = _digest_of(tmp_path / "plug", "far_plugin_mod")
        path = tmp_path / edited
        path.write_text(path.read_text().replace("0", "2"), encoding="utf-8")
        assert _digest_of(tmp_path / "plug", "far_plugin_mod") != before
    finally:
        sys.path.remove(str(tmp_path / "lib"))


HOME_FILES = {
    "home_plugin_mod.py": (
        "import home_pkg_mod.tools\nimport home_overload_api\n"
        "from home_enum_mod import Choice\nfrom sunset_sim.engine.jit import jit\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return home_pkg_mod.tools.pick(n_options) + Choice.FIRST"
        " + home_overload_api.pick(n_options)\n"
    ),
    "home_pkg_mod/__init__.py": "",
    "home_pkg_mod/tools.py": (
        "from sunset_sim.engine.jit import jit\n\n@jit\ndef pick(n):\n    return 0\n"
    ),
    "home_enum_mod.py": "from enum import IntEnum\n\nclass Choice(IntEnum):\n    FIRST = 0\n",
    "home_overload_api.py": "def pick(n):\n    return 0\n\nimport home_overload_impl\n",
    "home_overload_impl.py": (
        "from numba.extending import overload\nimport home_overload_api\n\n"
        "@overload(home_overload_api.pick)\ndef _pick(n):\n    return lambda n: 0\n"
    ),
    "home_sibling_mod.py": "VALUE = 1\n",  # in the folder, never imported by the plug-in
}


def test_digest_covers_what_a_plugin_imports_from_its_own_folder(tmp_path):
    """A helper reached as ``pkg.sub.fn``, an IntEnum's constants and an ``@overload``
    in another file: the walk of names in the code missed all three, so editing them
    loaded the old machine code (exit 0, other results than with the cache off)."""
    for name, text in HOME_FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        files = dependency_files(importlib.import_module("home_plugin_mod").decide)[0]
    finally:
        sys.path.remove(str(tmp_path))
        for name in list(sys.modules):
            if name.startswith("home_"):
                sys.modules.pop(name)
    found = {Path(path).relative_to(tmp_path).as_posix() for path in files if "home_" in path}
    assert found == set(HOME_FILES) - {"home_sibling_mod.py"}


def test_a_helper_edited_while_the_process_runs_changes_the_digest(tmp_path):
    """A notebook that edits a helper file in place and imports again must compile the new
    code: the file's digest was kept by its path for the life of the process, so the
    edited helper had the old digest and numba's cache gave back the old machine code."""
    helper = tmp_path / "edit_helper_mod.py"
    (tmp_path / "edit_main_mod.py").write_text(
        "from edit_helper_mod import helper\nfrom sunset_sim.engine.jit import jit\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return helper(n_options)\n"
    )

    def digest(body: str) -> str:
        helper.write_text(
            f"from sunset_sim.engine.jit import jit\n\n@jit\ndef helper(n):\n    {body}\n"
        )
        sys.path.insert(0, str(tmp_path))
        try:
            return dependency_digest(importlib.import_module("edit_main_mod").decide)
        finally:
            sys.path.remove(str(tmp_path))
            sys.modules.pop("edit_main_mod", None)
            sys.modules.pop("edit_helper_mod", None)

    first = digest("return n - 1")
    assert digest("return n - 1") == first
    assert digest("return n - 2") != first


def test_a_default_argument_read_at_import_is_in_the_digest(tmp_path):
    """A helper's default set at import from a data file (``last=_cfg["last"]``) compiles
    in as a constant: after the file was edited, the cached code, and the old results,
    were loaded with no compile (a global constant from the same file was followed)."""
    text = (
        "import json\nfrom pathlib import Path\nfrom sunset_sim.engine.jit import jit\n\n"
        "LAST = json.loads((Path(__file__).parent / 'cfg.json').read_text())['last']\n\n"
        "@jit\ndef pick(n_options, last=LAST, *, first=LAST):\n"
        "    return n_options - 1 if last == 1 else first\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return pick(n_options)\n"
    )
    (tmp_path / "default_arg_mod.py").write_text(text, encoding="utf-8")
    digests = []
    for last in (0, 1, 0):
        (tmp_path / "cfg.json").write_text(f'{{"last": {last}}}', encoding="utf-8")
        digests.append(_digest_of(tmp_path, "default_arg_mod"))
    assert digests[0] != digests[1] and digests[0] == digests[2]


def test_an_overload_reading_a_value_at_import_is_in_the_digest(tmp_path):
    """A tester's: a helper implemented with numba's @overload read its value from a data
    file at import; after the file was edited, the cached code (and the old results, on
    both engines) ran with no compile, and `cache info` said nothing was to compile. The
    digest now follows a function's @overload implementations and what they read."""
    library = (
        "from pathlib import Path\nfrom numba.extending import overload\n\n"
        "PICK = int((Path(__file__).parent / 'pick.txt').read_text())\n\n"
        "def pick():\n    return 0\n\n"
        "@overload(pick)\ndef _pick_impl():\n    value = PICK\n    return lambda: value\n"
    )
    text = (
        "from sunset_sim.engine.jit import jit\nfrom overload_lib_mod import pick\n\n"
        "@jit\ndef decide(kind, obs, options, n_options, params, rng, tables):\n"
        "    return (pick() + kind) % n_options\n"
    )
    (tmp_path / "overload_lib_mod.py").write_text(library, encoding="utf-8")
    (tmp_path / "overload_mod.py").write_text(text, encoding="utf-8")
    digests = []
    for pick in (0, 1, 0):
        (tmp_path / "pick.txt").write_text(str(pick), encoding="utf-8")
        sys.modules.pop("overload_lib_mod", None)
        digests.append(_digest_of(tmp_path, "overload_mod"))
    assert digests[0] != digests[1] and digests[0] == digests[2]


def test_a_function_given_a_freed_functions_id_gets_its_own_digest():
    """Digests were kept by id(function): a new function that CPython placed where a
    freed one had been took the freed one's digest (and so its compiled code). The new
    function is made right after the old one is freed, from code compiled beforehand,
    so that the allocator hands it the freed memory."""
    import gc
    import types

    first_code = compile("def first(n):\n    return n + 1\n", "<first>", "exec").co_consts[0]
    second_code = compile("def second(n):\n    return n * 7 - 3\n", "<second>", "exec")
    second_code = second_code.co_consts[0]
    scope: dict = {}
    for _ in range(1000):
        first = types.FunctionType(first_code, scope)
        old_id, old_digest = id(first), dependency_digest(first)
        del first
        gc.collect()
        second = types.FunctionType(second_code, scope)
        if id(second) == old_id:
            assert dependency_digest(second) != old_digest
            return
    pytest.skip("the allocator never gave a new function the freed one's address")


def test_two_strategies_with_one_name_are_refused():
    greedy = registry()["greedy"]
    impostor = StrategySpec("greedy", "another greedy", registry()["random"].decide)
    with pytest.raises(StrategyError, match="two different strategies are called 'greedy'"):
        lineup([greedy, impostor])


def test_an_unknown_name_with_a_helper_module_of_that_name_says_so(tmp_path, monkeypatch):
    """A plug-in module without STRATEGY is taken for a helper and skipped in silence;
    seating it by its name says that the module gave no strategy."""
    (tmp_path / "my_bot.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.setenv(strategy_module.STRATEGY_PATH_VARIABLE, str(tmp_path))
    with pytest.raises(StrategyError) as info:
        strategy_module.make_player("my-bot")
    assert str(info.value).endswith(
        f"; {tmp_path / 'my_bot.py'} gave no strategy (it defines "
        "no STRATEGY, or a warning says why)"
    )
    with pytest.raises(StrategyError) as info:
        strategy_module.make_player("other-bot")
    assert "gave no strategy" not in str(info.value)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="every function is plain Python")
def test_a_python_decide_is_refused_in_one_line():
    spec = StrategySpec("plain-python", "not jitted", lambda *args: 0)
    with pytest.raises(StrategyError, match="decide is not a numba function"):
        compiling.prepare([spec])


# ---- --strategy NAME:params=FILE -------------------------------------------------------------


def test_params_file(tmp_path):
    path = tmp_path / "tuned.json"
    data = {"name": "greedy", "params": {"lateness": 0.5, "goal": 2}, "score": 0.4}
    path.write_text(json.dumps(data))
    player = make_player(f"greedy:params={path}")
    assert player.params.tolist() == [0.5, 1.0, 2.0]
    assert player.name == f"greedy:params={path}"
    later = make_player(f"greedy:params={path},goal=0")  # key=value after the file wins
    assert later.params.tolist() == [0.5, 1.0, 0.0]
    # before the file too: it was overridden by the file while the label still read 0
    before = make_player(f"greedy:goal=0,params={path}")
    assert before.params.tolist() == [0.5, 1.0, 0.0]
    unnamed = tmp_path / "unnamed.json"
    unnamed.write_text('{"params": {"commission": 3}}')
    assert make_player(f"greedy:params={unnamed}").params.tolist() == [0.3, 3.0, 1.0]
    marked = tmp_path / "bom.json"  # saved by an editor with a BOM, as card files may be
    marked.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert make_player(f"greedy:params={marked}").params.tolist() == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "cannot be read (No such file or directory)"),
        ("{not json", "not valid JSON (line 1, column 2"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"name": "random", "params": {}}', "names strategy 'random', not 'greedy'"),
        ('{"name": "greedy"}', 'has no "params" object'),
        ('{"params": [0.5]}', '"params" must be an object'),
        ('{"params": {"lateness": "high"}}', 'lateness="high" is not a number'),
        ('{"params": {"lateness": true}}', "lateness=true is not a number"),
        ('{"params": {"latenes": 0.5}}', "unknown parameter 'latenes'"),
        ('{"params": {"lateness": 9}}', "lateness=9 is outside 0..2"),
        ('{"params": {"lateness": 1, "lateness": 2}}', "key 'lateness' appears more than once"),
        ('{"params": {"goal": 1}, "params": {}}', "key 'params' appears more than once"),
    ],
)
def test_bad_params_file_is_one_line_naming_the_file(tmp_path, text, problem):
    path = tmp_path / "params.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(StrategyError) as caught:
        make_player(f"greedy:params={path}")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"strategy greedy: params file {path}: "), message
    assert problem in message, message


def test_bad_params_file_in_the_cli(tmp_path):
    path = tmp_path / "params.json"
    path.write_text('{"params": {"latenes": 0.5}}')
    result = CliRunner().invoke(
        main, ["simulate", "--games", "10", "--strategy", f"greedy:params={path}"]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        f"error: --strategy: strategy greedy: params file {path}: unknown parameter "
        "'latenes' (known: lateness, commission, goal)"
    )
