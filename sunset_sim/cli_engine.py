"""``sunset-sim warmup`` and ``sunset-sim cache``: compile ahead, see and clear the cache."""

from __future__ import annotations

import os
import time

import click

from sunset_sim.cli_common import CliError, one_line


def _cache_help() -> str:
    from sunset_sim.engine.jit import cache_folder
    from sunset_sim.validation import one_line

    folder = cache_folder()  # (control characters escaped, as in an error line)
    return one_line(str(folder), None) if folder is not None else "none (compiled in memory)"


@click.command("warmup")
@click.option(
    "--strategy",
    "strategy_texts",
    multiple=True,
    metavar="NAME",
    help="A strategy to compile (repeatable); default: every registered strategy.",
)
def warmup_command(strategy_texts: tuple[str, ...]) -> None:
    """Compile the engine and strategies now, so later runs start in about a second.

    The engine is compiled once for every line-up, each strategy once for every line-up
    it sits in, and each once more for the reference engine (play, replay and
    check_strategy call it from Python: one reference game each); all are kept in the
    compile cache (see `sunset-sim cache`), so this is for a container build or a fresh
    machine. An edited strategy recompiles on its own.
    """
    from sunset_sim.engine import jit
    from sunset_sim.engine.compiling import missing, prepare
    from sunset_sim.strategy import StrategyError, make_player, registry

    if not jit.CACHE:  # (a tester's: it compiled for 36 s, then blamed the folder)
        raise CliError(
            "warmup: SUNSET_SIM_NO_CACHE is set, which turns the compile cache off: nothing "
            "compiled now would be kept for later runs; unset it to warm the cache"
        )
    try:
        specs = (
            [make_player(text).spec for text in strategy_texts]
            if strategy_texts
            else list(registry().values())
        )
        todo = missing(specs)
        start = time.perf_counter()
        prepare(specs)
        # and for the reference engine (play, replay, check_strategy), which calls each
        # decide from Python: a play after warmup still compiled for some seconds
        reference = reference_missing(specs)
        _compile_for_reference(specs, reference)
    except StrategyError as error:
        if strategy_texts:
            raise CliError(f"--strategy: {error}") from None
        # (no --strategy given: it had said "--strategy:" all the same)
        raise CliError(
            f"{error} (warmup compiles every strategy it knows; --strategy NAME compiles "
            "only those named)"
        ) from None
    names = ", ".join(dict.fromkeys(spec.name for spec in specs))  # each strategy once
    if todo or reference:
        done = todo + [f"{name} (reference engine)" for name in reference]
        click.echo(f"compiled {', '.join(done)} in {time.perf_counter() - start:.0f} s")
    lost = not_kept(specs)
    if lost:  # compiled in memory only: a read-only cache kept the engine, not these
        raise CliError(
            f"warmup: compiled, but {', '.join(lost)} could not be kept in the compile cache "
            f"({_cache_help()}); later runs compile them again: give NUMBA_CACHE_DIR a "
            "writable folder"
        )
    click.echo(f"ready: the engine and {names} (cache: {_cache_help()})")


def not_kept(specs) -> list[str]:
    """What the compile cache does not hold for these strategies, this process's own
    compiles aside: "the engine", strategy names, "NAME (reference engine)". A tester's
    read-only cache held the engine: warmup said "ready" for a strategy kept nowhere."""
    from numba.core.dispatcher import Dispatcher

    from sunset_sim.engine import decisions
    from sunset_sim.engine.compiling import engine_entry
    from sunset_sim.engine.jit import is_cached

    lost = [] if is_cached(engine_entry()) else ["the engine"]
    for spec in {spec.name: spec for spec in specs}.values():
        if not is_cached(decisions.adapter_dispatcher(spec.decide)):
            lost.append(spec.name)
        if isinstance(spec.decide, Dispatcher) and not is_cached(spec.decide):
            lost.append(f"{spec.name} (reference engine)")
    return lost


def _compile_for_reference(specs, names: list[str]) -> None:
    """Compile the named strategies' ``decide`` for the reference engine: one reference
    game with the strategy at both seats of a 2-player table."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.play import play_reference
    from sunset_sim.strategy import Player

    if not names:
        return
    cards = load_cards()
    for spec in {spec.name: spec for spec in specs if spec.name in names}.values():
        click.echo(f"sunset-sim: compiling {spec.name} for the reference engine", err=True)
        player = Player(spec, spec.param_vector({}))
        play_reference(cards, [player, player], seed=0, game_index=0)


def reference_missing(specs) -> list[str]:
    """The strategies whose ``decide`` the reference engine (play, replay,
    check_strategy: called from Python) would compile first, each once."""
    from numba.core.dispatcher import Dispatcher

    from sunset_sim.engine.jit import is_cached

    return list(
        dict.fromkeys(
            spec.name
            for spec in specs
            if isinstance(spec.decide, Dispatcher)
            and not spec.decide.overloads
            and not is_cached(spec.decide)
        )
    )


def announce_reference_compile(players) -> None:
    """play and replay call the strategies from Python (the reference engine): a first run
    compiles each for that use, some 10 s in silence; say so, as the fast engine does."""
    from sunset_sim.engine.jit import cache_folder

    todo = reference_missing(player.spec for player in players)
    if todo:
        click.echo(
            f"sunset-sim: compiling {', '.join(todo)} for the reference engine (first run "
            f"only, about 10 s a strategy; cached in {cache_folder()})",
            err=True,
        )


@click.group("cache")
def cache_group() -> None:
    """The compile cache: where compiled engine and strategy code is kept.

    \b
    Its folder: NUMBA_CACHE_DIR if set, else $XDG_CACHE_HOME/sunset-sim/numba, else
    ~/.cache/sunset-sim/numba. When it cannot be written, code is compiled in memory
    with one warning line (SUNSET_SIM_NO_CACHE=1 turns it off without one). It is never
    written inside the installed package.
    """


@cache_group.command("info")
def cache_info_command() -> None:
    """Where the cache is, its size, and whether the engine is compiled in it."""
    from sunset_sim.engine import jit
    from sunset_sim.engine.compiling import check_compilable, missing
    from sunset_sim.engine.jit import cache_files, cache_folder
    from sunset_sim.strategy import StrategyError, registry

    folder = cache_folder()
    click.echo(f"folder: {_cache_help()}")
    if not jit.CACHE:  # (a tester's: everything "to compile", and no word why)
        click.echo("cache: off (SUNSET_SIM_NO_CACHE is set): every run compiles in memory")
    if folder is not None and folder.is_dir():
        files = cache_files(folder)  # its own: not what else NUMBA_CACHE_DIR holds
        size = sum(path.lstat().st_size for path in files)
        click.echo(f"files: {len(files)}, {size / 2**20:.1f} MiB")
    compilable = []  # (a plain-Python decide never compiles: refused where it is seated)
    for spec in registry().values():
        try:
            check_compilable(spec)
        except StrategyError:
            continue
        compilable.append(spec)
    todo = missing(compilable)
    click.echo("to compile: " + (", ".join(todo) if todo else "nothing (all compiled)"))
    reference = reference_missing(compilable)
    click.echo(
        "to compile for the reference engine (play, replay, check_strategy): "
        + (", ".join(reference) if reference else "nothing (all compiled)")
    )


@cache_group.command("clear")
def cache_clear_command() -> None:
    """Remove the compiled code this tool wrote (and its compile times): the next run
    compiles again. Nothing else in the folder is touched (NUMBA_CACHE_DIR may be shared)."""
    from sunset_sim.engine.jit import clear_cache

    try:
        folder, count, size = clear_cache()
    except OSError as error:
        raise CliError(f"{error.filename or 'cache'}: cannot remove: {error.strerror}") from None
    if folder is None:
        click.echo("no cache folder")
        return
    line = f"removed {count} compiled files ({size / 2**20:.1f} MiB) from {folder}"
    left = sorted(os.listdir(folder)) if folder.is_dir() else []
    if left:  # the folder stays: it holds what this tool did not write
        shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
        line += f"; left alone there: {shown}"
    click.echo(one_line(line))


__all__ = ["cache_group", "warmup_command"]
