"""``sunset-sim warmup`` and ``sunset-sim cache info``: compiling ahead for both engines,
and what they say (split from test_compile_once.py, which keeps the compile cache)."""

from __future__ import annotations

import pytest

from sunset_sim.engine import jit as jit_module


def test_warmup_that_could_keep_nothing_says_so(monkeypatch):
    """NUMBA_CACHE_DIR a file: warmup warned, compiled in memory for a minute, then said
    "ready: the engine and random" and exit 0 (a container built so ships nothing
    compiled). Now exit 2 and one line that nothing was kept."""
    from conftest import cli, fails

    monkeypatch.setattr(jit_module, "is_cached", lambda dispatcher: False)  # (no cache)
    result = cli("warmup", "--strategy", "random")
    fails(
        result,
        "warmup: compiled, but the engine, random, random (reference engine) could not be "
        "kept in the compile cache",
    )
    assert "ready:" not in result.stdout


def test_warmup_that_kept_the_engine_but_not_a_strategy_says_so(monkeypatch):
    """A tester's read-only cache that held the engine: warmup compiled balanced for two
    minutes in memory, said "ready: the engine and balanced", exit 0, and `cache info`
    still listed balanced to compile. Only the engine was checked."""
    from conftest import cli, fails

    from sunset_sim.engine.compiling import engine_entry

    engine = engine_entry()
    monkeypatch.setattr(jit_module, "is_cached", lambda dispatcher: dispatcher is engine)
    line = fails(cli("warmup", "--strategy", "random"))
    assert line.startswith(
        "error: warmup: compiled, but random, random (reference engine) could not be kept"
    ), line


def test_warmup_with_the_cache_turned_off_says_why_before_compiling(monkeypatch):
    """A tester's: SUNSET_SIM_NO_CACHE=1 warmup compiled for 36 s, then blamed the cache
    folder ("give NUMBA_CACHE_DIR a writable folder"), which was writable."""
    from conftest import cli, fails

    from sunset_sim.engine import compiling

    monkeypatch.setattr(jit_module, "CACHE", False)
    monkeypatch.setattr(compiling, "prepare", lambda *a, **k: pytest.fail("compiled"))
    fails(cli("warmup", "--strategy", "random"), "warmup: SUNSET_SIM_NO_CACHE is set")


def test_warmup_names_a_strategy_given_twice_once():
    """`warmup --strategy greedy --strategy greedy` said "ready: the engine and greedy,
    greedy"."""
    from conftest import cli, ok

    out = ok(cli("warmup", "--strategy", "random", "--strategy", "random"))
    assert "ready: the engine and random (cache:" in out


def test_warmup_compiles_for_the_reference_engine_too(monkeypatch):
    """After `warmup`, `play` (the reference engine, calling each decide from Python)
    still compiled for some seconds, and `cache info` said nothing was left: a container
    built with warmup recompiled on every play. Both now cover it."""
    from conftest import cli, ok

    from sunset_sim import cli_engine
    from sunset_sim.strategy import registry

    compiled = []
    real = cli_engine._compile_for_reference
    monkeypatch.setattr(cli_engine, "reference_missing", lambda specs: [s.name for s in specs])
    monkeypatch.setattr(
        cli_engine,
        "_compile_for_reference",
        lambda specs, names: (compiled.append(names), real(specs, names)),
    )
    out = ok(cli("warmup", "--strategy", "random"))
    assert compiled == [["random"]]
    assert "compiled random (reference engine) in" in out
    assert registry()["random"].decide.overloads  # ready in this process
    info = ok(cli("cache", "info"))
    assert "to compile for the reference engine (play, replay, check_strategy): balanced, " in info


def test_cache_info_does_not_list_a_plain_python_strategy_to_compile(monkeypatch):
    """A plug-in whose decide is plain Python can never compile (it is refused where it is
    seated), and cache info listed it under "to compile" on every call."""
    from conftest import cli, ok

    from sunset_sim import strategy as strategy_module
    from sunset_sim.strategy import StrategySpec

    strategy_module.registry()  # (filled first: it scans only when empty)
    plain = StrategySpec("plain-probe", "not jitted", lambda *args: 0)
    monkeypatch.setitem(strategy_module._REGISTRY, "plain-probe", plain)
    assert "plain-probe" not in ok(cli("cache", "info"))


def test_warmup_of_every_strategy_does_not_blame_an_option_not_given(monkeypatch):
    """`warmup` with no --strategy stopped at a plug-in that cannot compile with
    "error: --strategy: ..." although no --strategy was given."""
    from conftest import cli, fails

    from sunset_sim import strategy as strategy_module
    from sunset_sim.strategy import StrategySpec

    strategy_module.registry()  # (filled first: it scans only when empty)
    plain = StrategySpec("plain-probe", "not jitted", lambda *args: 0)
    monkeypatch.setitem(strategy_module._REGISTRY, "plain-probe", plain)
    result = cli("warmup")
    fails(result, "plain-probe")
    assert "--strategy:" not in result.stderr
    assert "warmup compiles every strategy it knows; --strategy NAME compiles" in result.stderr


def test_cache_info_says_the_cache_is_off_and_escapes_its_folder(monkeypatch, tmp_path):
    """A tester's: with SUNSET_SIM_NO_CACHE=1 `cache info` listed everything to compile
    and did not say why; a newline in NUMBA_CACHE_DIR split its lines."""
    from conftest import cli, ok

    monkeypatch.setattr(jit_module, "CACHE", False)
    out = ok(cli("cache", "info"))
    assert "cache: off (SUNSET_SIM_NO_CACHE is set)" in out
    monkeypatch.setattr(jit_module, "CACHE", True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "n\nl"))
    out = ok(cli("cache", "info"))
    assert out.splitlines()[0] == f"folder: {tmp_path}/n\\nl"
