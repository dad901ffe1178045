"""One engine compiled once (engine/decisions.py, engine/compiling.py), the compile cache
keyed per source file (engine/jit.py), and where strategies come from.

The subprocess tests play a plug-in written to a temporary folder, so only its small
adapter compiles; the engine and the built-ins come from the shared cache that the
session fixture (conftest.py) filled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numba
import pytest
from test_plugins import PLUGIN_MODULE, PLUGIN_NAME, write_plugin

from sunset_sim.engine import jit as jit_module

ROOT = Path(__file__).resolve().parents[1]
COMPILING = "sunset-sim: compiling "


def run(args: list[str], cwd: Path, **env_changes: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )


def simulate_args(*strategies: str, strategy_path: Path | None = None) -> list[str]:
    args = ["-m", "sunset_sim.cli"]
    if strategy_path is not None:
        args += ["--strategy-path", str(strategy_path)]
    args += ["simulate", "--games", "20", "--players", "2", "--quiet"]
    for name in strategies:
        args += ["--strategy", name]
    return args


def test_a_users_strategies_folder_does_not_shadow_the_built_ins(tmp_path):
    own = tmp_path / "strategies"
    own.mkdir()
    (own / "__init__.py").write_text("")
    (own / "edge_lover.py").write_text("STRATEGY = None\n")
    done = run(["-m", "sunset_sim.cli", "strategies"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = {line for line in done.stdout.splitlines() if not line.startswith(" ")}
    assert {"greedy", "random", "balanced"} <= listed


def test_strategy_path_adds_a_folder_and_cannot_replace_a_built_in(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    write_plugin(folder)
    (folder / "impostor.py").write_text(
        "from sunset_sim.strategy import StrategySpec, registry\n"
        "STRATEGY = StrategySpec('greedy', 'not greedy', registry()['random'].decide)\n"
    )
    (folder / "wrong.py").write_text("STRATEGY = 42\n")
    (folder / "zz_twin.py").write_text(
        "from sunset_sim.strategy import StrategySpec, registry\n"
        f"STRATEGY = StrategySpec({PLUGIN_NAME!r}, 'a twin', registry()['random'].decide)\n"
    )
    done = run(simulate_args(PLUGIN_NAME, "greedy", strategy_path=folder), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert PLUGIN_NAME in done.stdout and "greedy" in done.stdout
    # each skipped module named, and why (a bad STRATEGY was skipped without a word)
    assert f"{folder / 'impostor.py'}: the name is taken by a built-in strategy" in done.stderr
    twin = f"{folder / 'zz_twin.py'}: the name is taken by {folder / (PLUGIN_MODULE + '.py')}"
    assert twin in done.stderr
    assert f"{folder / 'wrong.py'}: STRATEGY is not a StrategySpec (int)" in done.stderr
    missing = run(simulate_args("greedy", strategy_path=tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"error: --strategy-path: strategy path {tmp_path / 'nope'}: not a folder"
    ]


def test_first_run_says_it_compiles_then_an_edit_recompiles_only_that_strategy(tmp_path):
    """The plug-in has a module name of its own (never compiled before): the other tests
    compile plug-test from the usual module name with other code, and numba's index for a
    module name keeps one version of each function, so a test beside this one evicted
    its entry between its two runs (a cache thrash between tests, not a miss)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    plugin = write_plugin(folder)
    path = plugin.with_name(f"{plugin.stem}_{uuid.uuid4().hex[:12]}.py")
    plugin.rename(path)
    try:
        _first_run_then_an_edit(folder, path, tmp_path)
    finally:
        forget_compiled(path.stem)


def forget_compiled(*modules: str) -> None:
    """Remove the cache files of plug-in modules named for one test only (no later run
    reads them: left, every test run would add some to the user's cache)."""
    cache = jit_module.cache_folder()
    for module in modules if cache else ():
        for leftover in [*cache.glob(f"*{module}*"), *cache.glob(f"*/*{module}*")]:
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)


def _first_run_then_an_edit(folder: Path, path: Path, tmp_path: Path) -> None:
    first = run(simulate_args(PLUGIN_NAME, "greedy", strategy_path=folder), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    notices = [line for line in first.stderr.splitlines() if line.startswith(COMPILING)]
    assert len(notices) == 1, first.stderr
    assert notices[0].startswith(f"{COMPILING}strategy {PLUGIN_NAME} (first run only, about ")
    again = run(simulate_args(PLUGIN_NAME, "greedy", strategy_path=folder), cwd=tmp_path)
    assert again.returncode == 0 and COMPILING not in again.stderr, again.stderr
    assert again.stdout == first.stdout  # loaded code plays the same games

    path.write_text(path.read_text() + "\n# edited\n")
    probe = textwrap.dedent(
        f"""
        from sunset_sim.engine.compiling import missing
        from sunset_sim.strategy import registry
        known = registry()
        print(missing([known[name] for name in ("{PLUGIN_NAME}", "greedy", "random")]))
        """
    )
    done = run(["-c", probe], cwd=tmp_path, SUNSET_SIM_STRATEGY_PATH=str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr([PLUGIN_NAME])  # not the engine, not the others


def test_no_home_compiles_in_memory_with_one_warning(tmp_path):
    """HOME empty and no XDG_CACHE_HOME or NUMBA_CACHE_DIR: the run works, compiling in
    memory, says so once, and writes no cache anywhere (not under the current folder,
    not in the package)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    write_plugin(folder)
    done = run(
        simulate_args(PLUGIN_NAME, strategy_path=folder),
        cwd=tmp_path,
        HOME="",
        XDG_CACHE_HOME=None,
        NUMBA_CACHE_DIR=None,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "compiling in memory" in warnings[0], done.stderr
    assert not (tmp_path / ".cache").exists()
    written = [p for p in (ROOT / "sunset_sim").rglob("*.nb[ic]")]
    written += [p for p in (ROOT / "strategies").rglob("*.nb[ic]")]
    assert written == []


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_an_unwritable_cache_folder_is_one_warning(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "cache"))  # under a file: unwritable
    monkeypatch.setattr(jit_module, "_warned", set())

    def twice(n):
        return 2 * n

    def thrice(n):
        return 3 * n

    doubled = jit_module.jit(twice)
    tripled = jit_module.jit(thrice)
    assert doubled(21) == 42 and tripled(2) == 6
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1 and "compiling in memory" in warnings[0], warnings
    assert str(blocker) in warnings[0]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_a_read_only_cache_is_one_warning_for_every_module(tmp_path, monkeypatch, capsys):
    """A cache mounted read-only gave a line per module whose save failed (four for one
    run: each named its module's subfolder); one names the cache's folder."""
    from numba.core import caching

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(jit_module, "_warned", set())

    def refuse(self, sig, data):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(caching.Cache, "save_overload", refuse)

    def once(n):
        return n + 1

    def again(n):
        return n + 2

    first, second = jit_module.jit(once), jit_module.jit(again)
    first._cache._cache_path = str(tmp_path / "cache" / "sunset_sim.engine.kernel")
    second._cache._cache_path = str(tmp_path / "cache" / "sunset_sim.engine.turn")
    assert first(1) == 2 and second(1) == 3
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1, warnings
    assert f"{tmp_path / 'cache'} (Read-only file system)" in warnings[0]


def test_cache_writable_looks_at_the_nearest_folder_that_exists(monkeypatch, tmp_path):
    """The compile notice said "cached in C" for a cache that could not be written (the
    warning after it said otherwise): whether C, or the folder it will be made in, takes
    writes."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "not" / "made" / "yet"))
    assert jit_module.cache_writable()
    unwritable = {str(tmp_path)}
    real_access = jit_module.os.access

    def access(path, mode):
        return (
            False
            if str(path) in unwritable and mode & jit_module.os.W_OK
            else real_access(path, mode)
        )

    monkeypatch.setattr(jit_module.os, "access", access)
    assert not jit_module.cache_writable()  # tmp_path: the nearest that exists
    (tmp_path / "not").mkdir()
    assert jit_module.cache_writable()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "file" / "cache"))
    assert not jit_module.cache_writable()  # under a file: nothing can be made
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("HOME", "")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert not jit_module.cache_writable()  # nowhere


def test_cache_folder_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jit_module.cache_folder() == tmp_path / "xdg" / "sunset-sim" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert jit_module.cache_folder() == tmp_path / "home" / ".cache" / "sunset-sim" / "numba"
    monkeypatch.setenv("HOME", "")
    assert jit_module.cache_folder() is None
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert jit_module.cache_folder() == tmp_path / "mine"


def _own_index(path: Path) -> None:
    """An index file as numba writes it for this tool: numba's version, then our stamp."""
    import pickle

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(numba.__version__) + pickle.dumps((jit_module.SOURCE_STAMP, {})))


def test_cache_commands_touch_only_the_tools_own_files(tmp_path):
    """`cache clear` deleted the whole NUMBA_CACHE_DIR folder, a user's files in it too:
    it removes only the compiled files and compile times this tool wrote."""
    cache = tmp_path / "cache"
    module = cache / "sunset_sim.engine.kernel"
    _own_index(module / "kernel.play_games-f.py311.nbi")
    (module / "kernel.play_games-f.py311.1.nbc").write_bytes(b"code")
    (module / "kernel.play_games-f.py311.2.nbc.tmp.0123456789abcdef").write_bytes(b"half")
    (cache / "sunset_sim.engine.turn").mkdir()  # made at import, never written
    (cache / jit_module.TIMES_FILE).write_text("{}")
    mine = {
        cache / "mydocs" / "thesis.txt": "t",
        cache / "notes.nbi": "mine",  # numba's suffix, not our name
        module / "readme.txt": "mine",
        cache / "other_program" / "f-12.py311.nbi": "numba's own locator: a line number",
        cache / "unstamped" / "g-f.py311.nbi": "not our stamp",
        cache / "unstamped" / "g-f.py311.1.nbc": "not ours either",
    }
    for path, text in mine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    info = run(["-m", "sunset_sim.cli", "cache", "info"], cwd=tmp_path, NUMBA_CACHE_DIR=str(cache))
    assert info.returncode == 0, info.stderr
    assert f"folder: {cache}" in info.stdout and "files: 4" in info.stdout
    cleared = run(
        ["-m", "sunset_sim.cli", "cache", "clear"], cwd=tmp_path, NUMBA_CACHE_DIR=str(cache)
    )
    assert cleared.returncode == 0, cleared.stderr
    assert cleared.stdout.startswith(f"removed 4 compiled files (0.0 MiB) from {cache}; ")
    assert "left alone there: mydocs, notes.nbi, other_program and 2 more" in cleared.stdout
    assert {path: path.read_text() for path in mine} == mine
    left = {str(path.relative_to(cache)) for path in cache.rglob("*") if path.is_file()}
    assert left == {str(path.relative_to(cache)) for path in mine}
    assert not (cache / "sunset_sim.engine.turn").exists()
    helped = run(["-m", "sunset_sim.cli", "cache", "--help"], cwd=tmp_path)
    assert "XDG_CACHE_HOME" in helped.stdout


def test_cache_clear_removes_the_default_folder_once_empty(tmp_path):
    home = tmp_path / "home"
    cache = home / ".cache" / "sunset-sim" / "numba"
    _own_index(cache / "sunset_sim.engine.kernel" / "kernel.play_games-f.py311.nbi")
    env = {"HOME": str(home), "XDG_CACHE_HOME": None, "NUMBA_CACHE_DIR": None}
    cleared = run(["-m", "sunset_sim.cli", "cache", "clear"], cwd=tmp_path, **env)
    assert cleared.stdout.strip() == f"removed 1 compiled files (0.0 MiB) from {cache}"
    assert not cache.exists() and cache.parent.is_dir()


def _add_one(n):
    """Module level: a function freed after its test could lend its id() to a later one,
    which jit's digest memo is keyed by."""
    return n + 1


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_clear_cache_removes_what_numba_wrote_for_a_function(tmp_path, monkeypatch):
    """The names and stamp ``cache_files`` knows are those of numba's real files."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    (cache / "keep.txt").parent.mkdir(parents=True)
    (cache / "keep.txt").write_text("mine")

    assert jit_module.jit(_add_one)(1) == 2
    written = [path for path in cache.rglob("*") if path.is_file() and path.name != "keep.txt"]
    assert {path.suffix for path in written} == {".nbi", ".nbc"}, written
    assert sorted(jit_module.cache_files()) == sorted(written)
    size = sum(path.stat().st_size for path in written)
    assert jit_module.clear_cache() == (cache, len(written), size)
    assert [path.name for path in cache.rglob("*")] == ["keep.txt"]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_a_damaged_cache_file_is_compiled_again_with_one_warning(tmp_path, monkeypatch, capsys):
    """A cache entry or index cut short or overwritten raised pickle's UnpicklingError, a
    traceback on every run until the file was removed: now it is one warning, the code
    compiles, and the save that follows mends the file."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert jit_module.jit(_add_one)(1) == 2
    for suffix, damage in ((".nbc", b"\x9e" * 64), (".nbi", b"\x80\x04junk")):
        (path,) = list(cache.rglob(f"*{suffix}"))
        path.write_bytes(damage)
        monkeypatch.setattr(jit_module, "_warned", set())
        assert jit_module.jit(_add_one)(41) == 42  # a fresh dispatcher reads the cache
        warnings = capsys.readouterr().err.strip().splitlines()
        assert len(warnings) == 1 and "unreadable compile cache" in warnings[0]
        assert jit_module.jit(_add_one)(1) == 2
        assert capsys.readouterr().err == ""  # mended: loaded without a word


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_an_index_entry_without_its_code_file_is_not_compiled_code(tmp_path, monkeypatch):
    """A cache whose code files (.nbc) were deleted, their index kept, was taken as
    compiled: a two-minute compile followed with no compile notice."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert jit_module.jit(_add_one)(1) == 2
    assert jit_module.is_cached(jit_module.jit(_add_one))
    for path in cache.rglob("*.nbc"):
        path.write_bytes(b"")  # emptied; then deleted
        assert not jit_module.is_cached(jit_module.jit(_add_one))
        path.unlink()
    assert list(cache.rglob("*.nbi")) and not jit_module.is_cached(jit_module.jit(_add_one))


def test_a_new_plug_ins_compile_estimate_is_a_small_strategys():
    """A tester's seven new plug-ins each read "about 25 s" (the built-ins' figure) and
    compiled in 0.3 to 2.2 s: a plug-in with no time of its own is estimated at 5 s, a
    built-in at its own default, and any strategy at its recorded time once it has one."""
    from sunset_sim.engine import compiling

    times = {"strategy:mine": 12.0}
    assert compiling._estimate({}, "new-plugin", {"new-plugin"}) == compiling.PLUGIN_SECONDS == 5
    assert compiling._estimate({}, "greedy", {"new-plugin"}) == 25.0
    assert compiling._estimate(times, "mine", {"mine"}) == 12.0
    assert compiling._duration(compiling.PLUGIN_SECONDS) == "5 s"


def _reads_past_the_end(values):
    return values[values.shape[0] + 5]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_numba_boundscheck_is_part_of_the_cache_key(tmp_path, monkeypatch):
    """A tester's: code cached without bounds checks was loaded under NUMBA_BOUNDSCHECK=1,
    so the IndexError writing-a-strategy.md promises for an index out of range never
    came (and code cached with them was loaded without it). Unset, the key is the
    digest alone, as before."""
    import numpy as np

    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert jit_module.compiled_key(_reads_past_the_end) == jit_module.dependency_digest(
        _reads_past_the_end
    )
    jit_module.jit(_reads_past_the_end)(np.zeros(3))  # unchecked: reads past the end
    assert jit_module.is_cached(jit_module.jit(_reads_past_the_end))
    monkeypatch.setattr(numba.config, "BOUNDSCHECK", 1)
    checked = jit_module.jit(_reads_past_the_end)
    assert not jit_module.is_cached(checked)  # not the unchecked code
    with pytest.raises(IndexError):
        checked(np.zeros(3))
    monkeypatch.setattr(numba.config, "BOUNDSCHECK", None)
    assert jit_module.is_cached(jit_module.jit(_reads_past_the_end))  # the unchecked again


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing compiles")
def test_a_read_only_cache_is_loaded_from(tmp_path, monkeypatch, capsys):
    """A cache warmed when a container was built and read-only when it runs: its code
    was compiled again on every run (the cache was dropped as unwritable); now what it
    holds loads, and only a function it lacks compiles, with one warning."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert jit_module.jit(_add_one)(1) == 2  # warmed

    def read_only(self, *args):  # as a folder no file can be written in
        raise PermissionError(13, "Permission denied", str(cache))

    monkeypatch.setattr(jit_module._Locator, "ensure_cache_path", read_only)
    monkeypatch.setattr(jit_module._IndexFile, "_save_index", read_only)
    monkeypatch.setattr(jit_module._IndexFile, "_save_data", read_only)
    monkeypatch.setattr(jit_module, "_warned", set())
    loaded = jit_module.jit(_add_one)
    assert jit_module.is_cached(loaded) and loaded(2) == 3
    assert capsys.readouterr().err == ""  # loaded, nothing to say

    def _times_two(n):
        return 2 * n

    assert jit_module.jit(_times_two)(4) == 8  # not in it: compiled in memory
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1 and "compiling in memory" in warnings[0], warnings
    assert not list(cache.rglob("*_times_two*"))


# ---- compiling in parallel child processes (engine/compiling.py) ---------------------------


def test_missing_parts_are_split_over_the_cores_longest_first(monkeypatch):
    from sunset_sim.engine import compiling
    from sunset_sim.strategy import StrategySpec, registry

    known = registry()
    specs = compiling.lineup([known["greedy"], known["random"], known["goal-chaser"]])
    times = {"engine": 60.0, "strategy:goal-chaser": 50.0, "strategy:greedy": 5.0}
    times["strategy:random"] = 1.0
    todo = ["engine", "goal-chaser", "greedy", "random"]
    monkeypatch.setenv(compiling.JOBS_VARIABLE, "2")
    groups = compiling._child_groups(specs, todo, times)
    # engine (60) and goal-chaser (50) on different cores, then the rest on the lighter one
    assert sorted(map(sorted, groups)) == [["engine"], ["goal-chaser", "greedy", "random"]]
    # a strategy a fresh process cannot find by name is compiled in this process
    local = StrategySpec(name="greedy", description="a local copy", decide=known["greedy"].decide)
    groups = compiling._child_groups((local,), ["engine", "greedy"], times)
    assert groups == []  # one part left: nothing to share
    monkeypatch.setenv(compiling.JOBS_VARIABLE, "1")
    assert compiling._child_groups(specs, todo, times) == []


def test_a_compile_jobs_value_that_is_no_number_is_said_and_ignored(monkeypatch, capsys):
    """SUNSET_SIM_COMPILE_JOBS=abc was ignored without a word."""
    from sunset_sim.engine import compiling
    from sunset_sim.strategy import registry

    monkeypatch.setattr(jit_module, "_warned", set())
    monkeypatch.setattr(compiling, "_workers", lambda: 1)
    monkeypatch.setenv(compiling.JOBS_VARIABLE, "abc")
    specs = compiling.lineup([registry()["greedy"]])
    assert compiling._child_groups(specs, ["engine", "greedy"], {}) == []  # (one core)
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "sunset-sim: warning: SUNSET_SIM_COMPILE_JOBS='abc' is not a whole number of "
        "processes; ignored"
    )


def test_children_compile_into_the_cache_this_process_then_loads(tmp_path, monkeypatch):
    """Two plug-ins never compiled before (their text is new): one child process each
    compiles its adapter into the disk cache; this process then finds both cached. The
    children import this process's package, never a ``sunset_sim`` folder in the current
    one (``-m`` put it first on their path: a tester's file ran in both)."""
    from sunset_sim import strategy as strategy_module
    from sunset_sim.engine import compiling

    shadowed = tmp_path / "here"
    (shadowed / "sunset_sim").mkdir(parents=True)
    marker = tmp_path / "shadow-imported"
    (shadowed / "sunset_sim" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'a').write('imported')\n", encoding="utf-8"
    )
    monkeypatch.chdir(shadowed)
    token = uuid.uuid4().hex[:12]
    names = []
    for number in (1, 2):
        name = f"child-{number}-{token}"
        module = f"child_plugin_{number}_{token}"
        (tmp_path / f"{module}.py").write_text(
            textwrap.dedent(
                f'''
                from sunset_sim.engine.jit import jit
                from sunset_sim.strategy import StrategySpec

                @jit
                def decide(kind, obs, options, n_options, params, rng, tables):
                    return n_options - 1  # {token}

                STRATEGY = StrategySpec(name="{name}", description="test", decide=decide)
                '''
            ),
            encoding="utf-8",
        )
        names.append(name)
    monkeypatch.setenv(strategy_module.STRATEGY_PATH_VARIABLE, str(tmp_path))
    monkeypatch.setenv(compiling.JOBS_VARIABLE, "2")
    monkeypatch.setattr(strategy_module, "_REGISTRY", {})
    specs = compiling.lineup(strategy_module.registry()[name] for name in names)
    try:
        assert compiling.missing(specs) == sorted(names)
        groups = compiling._child_groups(specs, sorted(names), {})
        assert sorted(map(sorted, groups)) == [[names[0]], [names[1]]]
        times: dict = {}
        assert compiling._compile_in_children(groups, times) == set(names)
        assert set(times) == {f"strategy:{name}" for name in names}
        assert compiling.missing(specs) == []  # both are on disk now: loading, not compiling
        assert not marker.exists()
    finally:
        forget_compiled(*(f"child_plugin_{number}_{token}" for number in (1, 2)))


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="compiles")
def test_loop_vectorize_false_compiles_without_the_loop_vectorizer():
    """The engine's option (kernel.play_games): the same loop compiles to packed adds
    with the vectorizer and to scalar ones without, and numba's setting is restored."""
    import numpy as np

    def total(values):
        result = 0
        for value in values:
            result += value
        return result

    vectorized = jit_module.jit(cache=False)(total)
    scalar = jit_module.jit(cache=False, loop_vectorize=False)(total)
    values = np.arange(1000, dtype=np.int64)
    before = numba.config.LOOP_VECTORIZE
    assert vectorized(values) == scalar(values) == values.sum()
    assert numba.config.LOOP_VECTORIZE == before
    signature = scalar.signatures[0]
    vector_asm = vectorized.inspect_asm(signature)
    scalar_asm = scalar.inspect_asm(signature)
    if os.uname().machine == "x86_64":  # packed 64-bit integer adds (SSE2 .. AVX-512)
        assert "paddq" in vector_asm
        assert "paddq" not in scalar_asm


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="compiles")
def test_wraparound_false_leaves_negative_indices_as_they_are_in_its_own_code_only():
    """The engine's other option (kernel.play_games): an index of -1 on a row in the middle
    of an array reads the element before the row (memory of the same array) instead of the
    row's last; a helper it calls, not inlined, keeps numba's wrap-around."""
    import numpy as np

    def helper(row, index):
        return row[index]

    shared = jit_module.jit(cache=False)(helper)

    def own_and_helper(row, index):
        return row[index], shared(row, index)

    wrapping = jit_module.jit(cache=False)(own_and_helper)
    unwrapped = jit_module.jit(cache=False, wraparound=False)(own_and_helper)
    rows = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert wrapping(rows[1], -1) == (7, 7)  # numba's default: the row's last element
    assert unwrapped(rows[1], -1) == (3, 7)  # its own index as it is; the helper's wrapped
    assert unwrapped(rows[1], 2) == (6, 6)
    assert shared(rows[1], -1) == 7  # the helper compiled for that call is the default one
