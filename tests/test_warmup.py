"""``sunset-sim warmup`` and ``sunset-sim cache info``: compiling ahead for both engines,
and what they say (split from test_compile_once.py, which keeps the compile cache)."""

from __future__ import annotations

from sunset_sim.engine import jit as jit_module


def test_warmup_that_could_keep_nothing_says_so(monkeypatch):
    """NUMBA_CACHE_DIR a file: warmup warned, compiled in memory for a minute, then said
    "ready: the engine and random" and exit 0 (a container built so ships nothing
    compiled). Now exit 2 and one line that nothing was kept."""
    from conftest import cli, fails

    monkeypatch.setattr(jit_module, "is_cached", lambda dispatcher: False)  # (no cache)
    result = cli("warmup", "--strategy", "random")
    fails(result, "warmup: compiled, but nothing could be kept in the compile cache")
    assert "ready:" not in result.stdout


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
