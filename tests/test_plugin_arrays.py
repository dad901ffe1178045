"""What a plug-in's ``decide`` may not do to the fast engine: write the game's own arrays
(obs, options, params, tables: typed read-only, so such a write does not compile), or
share a compiled adapter with another strategy made by the same factory function.

Testers' cases: a decide that set every commission's fame to 50 gave its opponent 71.0
mean fame with --check-invariants reporting 0 violations; one that rewrote the options
row it chose painted off its path; two strategies from one factory played one's code."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import cli, fails, ok, run_process

WRITER = """\
from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    {write}
    return 0


STRATEGY = StrategySpec(name="writer-{name}", description="writes", decide=decide)


@jit
def bump(flat, index):
    flat[index] = flat[index] + 1
"""

WRITES = {
    "obs": ("obs[0] = 0", "readonly array(int32, 1d, C)"),
    "options": ("options[0, 0] = 0", "readonly array(int32, 2d, C)"),
    "params": ("params[0] = 1.0", "readonly array(float64, 1d, C)"),
    "tables": ("tables.comm_fame[0] = 50", "readonly array("),
    # numba's own slip (an AttributeError from npydecl.py, a traceback) and calls it finds
    # no version of for a read-only array ("arr_fill ... found for signature:")
    "in-place": ("obs += 0", "readonly array"),
    "fill": ("obs.fill(0)", "readonly array(int32, 1d, C)"),
    "sort": ("options[0].sort()", "readonly array(int32, 1d, C)"),
    # through .flat, which numba typed (decisions._refuse_flat_writes_to_read_only): a
    # plug-in that rewrote the options row it chose made the engine carry out a plan card
    # it did not hold, exit 0 (--check-invariants: 276 of 300 games broken)
    "flat-options": ("options.flat[0] = 1 - options[0, 0]", "readonly array(int32, 2d, C)"),
    "flat-obs": ("obs.flat[3] = 0", "readonly array(int32, 1d, C)"),
    "flat-params": ("params.flat[0] = 2.0", "readonly array(float64, 1d, C)"),
    "flat-helper": ("bump(options.flat, 0)", "readonly array(int32, 2d, C)"),
    "flat-tables": ("tables.comm_fame.flat[0] = 50", "readonly array(int32, 1d, C)"),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_a_decide_writing_the_games_arrays_is_refused_in_one_line(tmp_path, name):
    write, shown = WRITES[name]
    (tmp_path / f"writer_{name}_mod.py").write_text(WRITER.format(write=write, name=name))
    result = cli(
        "--strategy-path", tmp_path, "simulate", "-n", 4, "-p", 2, "--jobs", 1, "-q",
        "--strategy", f"writer-{name}", "--strategy", "random",
    )  # fmt: skip
    fails(result, f"strategy writer-{name}", f"a write to a {shown}", "read-only")
    if name in ("obs", "options", "params", "tables"):
        assert "line 7" in result.stderr


FLAT_WRITER = """\
from numba import carray, types
from numba.extending import intrinsic

from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec


@intrinsic
def pointer(typingctx, address):  # (a write numba cannot see: through a raw pointer)
    def codegen(context, builder, signature, args):
        kind = context.get_value_type(types.CPointer(types.int32))
        return builder.inttoptr(args[0], kind)

    return types.CPointer(types.int32)(address), codegen


@jit
def decide(kind, obs, options, n_options, params, rng, tables):
    fame = carray(pointer(tables.comm_fame.ctypes.data), tables.comm_fame.shape[0])
    for index in range(tables.comm_fame.shape[0]):
        fame[index] = 50
    return 0


STRATEGY = StrategySpec(name="flat-writer", description="writes", decide=decide)
"""


def test_a_write_to_the_tables_that_compiles_stops_the_run_and_is_undone(tmp_path):
    """Through .flat a write compiled (it is refused now, as any write to the game's
    arrays): greedy then scored 202.7 mean fame with --check-invariants silent, and a
    later run in the same process played on the changed tables. A write numba cannot see
    (a raw pointer here, or past an array's end) stops the run in one line naming the
    plug-in, and the tables are put back."""
    import sunset_sim

    before = sunset_sim.simulate(games=20, players=2, strategies=["greedy", "random"])
    (tmp_path / "flat_writer_mod.py").write_text(FLAT_WRITER)
    result = cli(
        "--strategy-path", tmp_path, "simulate", "-n", 20, "-p", 2, "--jobs", 1, "-q",
        "--strategy", "flat-writer", "--strategy", "greedy", "--check-invariants",
    )  # fmt: skip
    fails(result, "strategy flat-writer wrote to the card tables (tables.comm_fame)")
    after = sunset_sim.simulate(games=20, players=2, strategies=["greedy", "random"])
    assert after.equals(before)


def test_the_reference_engine_hands_strategies_a_copy_of_the_tables(tmp_path):
    """A write there changed the game played and scored (greedy 208 fame, and replay of
    the record refused it), where the docs say the reference engine passes copies."""
    (tmp_path / "flat_writer_mod.py").write_text(FLAT_WRITER)
    record = tmp_path / "game.json"
    ok(cli("--strategy-path", tmp_path, "play", "-p", 2, "--seed", 1, "-q",
           "--strategy", "flat-writer", "--strategy", "greedy", "--record", record))  # fmt: skip
    assert "replay OK" in ok(cli("replay", record))


FACTORY = """\
from sunset_sim.engine.jit import jit
from sunset_sim.strategy import StrategySpec


def make(last):
    @jit
    def decide(kind, obs, options, n_options, params, rng, tables):
        if last:
            return n_options - 1
        return 0

    return decide


STRATEGY = StrategySpec(name="made-zero", description="option 0", decide=make(False))
"""
FACTORY_TWO = """\
from made_by_factory import make
from sunset_sim.strategy import StrategySpec

STRATEGY = StrategySpec(name="made-last", description="last option", decide=make(True))
"""


def test_two_strategies_made_by_one_factory_play_their_own_code(tmp_path):
    """Separate runs, as the tester's: the first compiles made-last's adapter; the next
    loads one adapter from the cache and compiles the other. With one cache name for both
    closures, made-last played made-zero's option 0 there (mean fame 0.07 against about
    17, exit 0). Each line-up's seeded results are also the same run after run."""
    (tmp_path / "made_by_factory.py").write_text(FACTORY)
    (tmp_path / "made_second.py").write_text(FACTORY_TWO)
    base = ["--strategy-path", tmp_path, "simulate", "-n", 30, "-p", 2, "--jobs", 1, "-q"]
    base += ["--format", "csv"]

    def mean_fame(*strategies: str) -> dict[str, float]:
        done = run_process(*base, *[f"--strategy={name}" for name in strategies])
        assert done.returncode == 0, done.stderr
        rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
        return {row[0]: float(row[5]) for row in rows}

    alone = mean_fame("made-last", "random")
    together = mean_fame("made-zero", "made-last")
    assert together["made-zero"] == 0.0 and together["made-last"] > 5.0, together
    assert mean_fame("made-last", "random") == alone
    assert mean_fame("made-zero", "made-last") == together


def test_closures_are_told_apart_by_what_they_close_over():
    from sunset_sim.engine.decisions import _closure_tag

    def make(value):
        def decide():
            return value

        return decide

    assert _closure_tag(make(1)) == _closure_tag(make(1)) != _closure_tag(make(2))
    assert _closure_tag(make("a")) != _closure_tag(make(1))
    assert _closure_tag(test_closures_are_told_apart_by_what_they_close_over) == ""
    # arrays by their bytes: repr elides long ones and rounds floats
    long, changed = np.zeros(3000), np.zeros(3000)
    changed[1500] = 1
    assert _closure_tag(make(long)) != _closure_tag(make(changed))
    assert _closure_tag(make(np.array([0.5]))) != _closure_tag(make(np.array([0.50000000001])))


def test_a_flat_write_to_an_array_of_its_own_still_compiles():
    """Only a read-only array's flat iterator is refused: a strategy's own scratch array
    (stack_empty, np.zeros) is written through .flat as before."""
    from sunset_sim.engine.jit import jit

    @jit
    def fill(n):
        own = np.zeros((2, 3), np.int32)
        own.flat[n] = 7
        return own.sum()

    assert fill(4) == 7
