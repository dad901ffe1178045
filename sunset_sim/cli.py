"""The ``sunset-sim`` command line: thin wrappers that parse, call the API and print.

Every bad input ends with exit code 2 and one line naming the problem, never a traceback.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import json
import os
import signal
import sys
import warnings

import click

from sunset_sim import cli_common, cli_notes, cli_outputs, cli_tables, validation
from sunset_sim.cli_catalog import cards_command, strategies_command
from sunset_sim.cli_common import (
    CliError,
    backend_options,
    cards_option,
    check_fast,
    check_players,
    checked,
    compile_engine,
    error_line,
    games_progress,
    load_card_set,
    make_seats,
    on_interrupt,
    parse_rules,
    progress_output,
    rule_option,
    strategy_option,
)
from sunset_sim.cli_engine import cache_group, warmup_command
from sunset_sim.cli_games import play_command, replay_command
from sunset_sim.cli_outputs import check_output, output_kind
from sunset_sim.cli_report import report_command
from sunset_sim.cli_study import study_command, value_command
from sunset_sim.cli_sweep import sweep_command
from sunset_sim.cli_tournament import tournament_command
from sunset_sim.cli_tune import tune_command
from sunset_sim.cli_watchdog import exit_when_interrupted
from sunset_sim.cli_whatif import compare_command
from sunset_sim.strategy import StrategyError, StrategyFault
from sunset_sim.strategy_path import one_command
from sunset_sim.validation import InputError, memory_text

__all__ = ["main", *cli_common.__all__]


def __getattr__(name: str):
    """The shared helpers stay importable from here (they lived here before cli_common)."""
    if name in cli_common.__all__:
        return getattr(cli_common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A write that fails for the disk or the folder (full, read-only, no permission, quota):
# one line naming the file, exit 2; the writers leave nothing half-written.
WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}


class ReaderGone(Exception):
    """Standard output's reader closed the pipe (not an OSError: click's handler of
    those would exit 1 silently)."""


def refuse_repeated(command: click.Command, args: list[str], ctx: click.Context) -> None:
    """An option that takes one value, given twice (``--games 2 --games 3``, ``-n2 -n3``,
    ``--cards missing.toml --cards mine.toml``), is refused: which was meant is
    ambiguous, as for a rule key given twice (``Rules.parse``); click took the last
    without a word, and a file given first was never even opened. The occurrences are
    click's own parse of the arguments (a value that looks like an option, ``--title
    --games``, is the title's); flags and repeatable options are left alone, and a bad
    argument or --help is left to click."""
    try:
        order = command.make_parser(ctx).parse_args(args=list(args))[2]
    except click.ClickException:
        return
    if any(isinstance(param, click.Option) and "--help" in param.opts for param in order):
        return
    counts = collections.Counter(
        param.name
        for param in order
        if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_flag)
    )
    for param in order:
        if counts.get(param.name, 0) > 1:
            shown = max(param.opts, key=len)
            raise click.UsageError(
                f"{shown}: given {counts[param.name]} times; give it once", ctx=ctx
            )


class OneLineErrors(click.Group):
    """click's usage errors (an unknown option, a number that is not one, a bad choice)
    print three lines; here they are one, ``error: COMMAND: problem``, exit code 2, like
    every other bad input."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        if sys.stdout is None:  # started with its standard output closed (`>&-`)
            closed = "standard output is closed, so nothing asked for could be printed"
            error_line(f"{closed}; redirect it to a file or /dev/null instead")
            sys.exit(2)
        with warnings.catch_warnings(), cli_common.sigterm_as_interrupt(), one_command():
            warnings.showwarning = cli_notes.OneLineWarnings()
            with exit_when_interrupted(own_process=args is None):  # (no args: a script's)
                return self._main(args, prog_name, complete_var, **extra)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:  # (a context of the command's own, for its name)
            refuse_repeated(command, rest, click.Context(command, info_name=name, parent=ctx))
        return name, command, rest

    def invoke(self, ctx: click.Context):
        """Ctrl-C becomes one line saying what was kept (``on_interrupt``), exit 130,
        instead of click's empty line and "Aborted!" (exit 1); SIGTERM the same line,
        exit 143."""
        try:
            value = super().invoke(ctx)
            cli_notes.say_notes()  # (held back until the command had done its work)
        except KeyboardInterrupt as error:
            number = error.number if isinstance(error, cli_common.Terminated) else None
            number = number or cli_common.signal_seen() or signal.SIGINT
            raise cli_common.Interrupted(cli_common.interrupted_note(ctx), number) from None
        except BrokenPipeError:  # (click would exit 1 without a word)
            raise ReaderGone from None
        except Exception:  # after a signal, its doing (a Ctrl-C dropped in the compiler's
            if cli_common.signal_seen() is None:  # ctypes callback: numba then failed, exit 1)
                raise
        seen = cli_common.signal_seen()
        if seen is not None:  # dropped by Python where it landed (a finalizer): still 128 + N
            raise cli_common.Interrupted(cli_common.interrupted_note(ctx), seen)
        return value

    def _main(self, args, prog_name, complete_var, **extra):
        try:
            os.getcwd()
        except FileNotFoundError:  # every relative path, and the output lock, need it
            error_line("the current folder no longer exists (deleted or moved): cd to another")
            sys.exit(2)
        try:
            value = super().main(args, prog_name, complete_var, False, **extra)
        except ReaderGone:
            # the reader of standard output closed it (`| head`): stop, as `seq | head`
            # does, with exit code 141 (128 + SIGPIPE); nothing more goes to the pipe
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            try:
                click.echo(
                    "note: standard output was closed by its reader (a pipe); stopped", err=True
                )
            except OSError:  # standard error in the same pipe (`2>&1 | head`): gone too; a
                os.dup2(devnull, sys.stderr.fileno())  # traceback there had made it exit 1
            sys.exit(141)
        except click.exceptions.NoArgsIsHelpError as error:
            # `sunset-sim` or a command group alone: its help as --help prints it (the
            # first thing a newcomer types), not squeezed into one error line
            click.echo(error.ctx.get_help())
            sys.exit(0)
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx is not None else "sunset-sim"
            error_line(f"{where}: {' '.join(error.format_message().split())}")
            sys.exit(2)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except (InputError, StrategyFault) as error:  # the API's checks; a strategy's
            error_line(error)  # (a plug-in's) bad answer or raise: one line
            sys.exit(2)
        except click.Abort as error:  # Ctrl-C while the arguments were read: nothing done
            click.echo("interrupted; no output written", err=True)
            sys.exit(128 + getattr(error.__context__, "number", signal.SIGINT))  # (Terminated's)
        except MemoryError as error:  # e.g. compare --games 10**10: 149 GiB of results
            error_line(memory_text(error))
            sys.exit(2)
        except OSError as error:
            if error.errno in WRITE_ERRORS:
                where = error.filename or "output"
                error_line(f"{where}: cannot write: {error.strerror}")
                sys.exit(2)
            if error.filename is None:
                raise
            # A path the user gave that the system refuses (a name too long, a dangling
            # link in the way, a folder that cannot be made there): one line naming it.
            error_line(f"{error.filename}: {error.strerror or error}")
            sys.exit(2)
        sys.exit(value if isinstance(value, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sunset-sim")
@click.option(
    "--strategy-path",
    "strategy_paths",
    multiple=True,
    type=cli_common.PathText(file_okay=False),
    metavar="DIR",
    help="A folder of your own strategy modules (each defines STRATEGY), repeatable; "
    "also read from SUNSET_SIM_STRATEGY_PATH. Built-in names cannot be replaced.",
)
def main(strategy_paths: tuple[str, ...] = ()) -> None:
    """Monte Carlo strategy analysis for the board game Sunset over Water.

    \b
    Start here:
      sunset-sim simulate --games 10000            a batch on the fast engine, summarised
      sunset-sim play --players 3 --seed 7         one game, logged day by day
      sunset-sim cards                             the card set and its difficulty model
      sunset-sim strategies                        the strategies you can seat
      sunset-sim study --strategy balanced ...     card values and verified rebalance
                                                   suggestions (alias: value)
      sunset-sim warmup                            compile ahead (a container build)

    The first run compiles the engine and the strategies it seats (a minute or two,
    said on stderr); later runs load them from the compile cache, see `sunset-sim cache`.
    """
    from sunset_sim.strategy import add_strategy_path

    for folder in strategy_paths:
        try:
            add_strategy_path(folder)
        except StrategyError as error:
            raise CliError(f"--strategy-path: {error}") from None


@main.command("simulate")
@click.option(
    "--games", type=cli_common.GAMES, default=10_000, show_default=True, help="Number of games."
)
@cli_common.players_option
@strategy_option
@click.option(
    "--seed",
    type=cli_common.SEED,
    default=0,
    show_default=True,
    help="Root seed; game g uses (seed, g).",
)
@click.option(
    "--jobs",
    type=cli_common.WHOLE,
    default=0,
    help="Worker threads; 0 (the default) uses every core, more than there are is the same; "
    "with --backend dask, numba threads per "
    "chunk on a worker (default: all of the worker's).",
)
@click.option(
    "--chunk-size",
    type=cli_common.WHOLE,
    default=50_000,
    show_default=True,
    help="Games per chunk (at most 1,000,000: a chunk is held in memory): memory stays "
    "flat; results do not depend on it.",
)
@click.option(
    "--out",
    "out_text",
    metavar="FILE|DIR/|-",
    help="Write one row per game and seat: FILE.parquet or FILE.csv (one file), a folder "
    "name without a suffix or ending in / (a resumable Parquet dataset: one file per chunk "
    "and _manifest.json), or - (CSV rows on stdout, streamed; the summary then goes to "
    "stderr).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing output file or dataset.")
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an interrupted run into the dataset folder --out DIR/ (same arguments); "
    "starts afresh if the folder is missing or empty.",
)
@backend_options
@cards_option
@rule_option
@cli_tables.one_table_format_option("the summary (each strategy's win share and mean fame)")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--check-invariants",
    is_flag=True,
    help="Check every game's invariants at the end of each day (card places, artists, "
    "fame recount, plan decks); exit code 1 if any game breaks one.",
)
def simulate_command(
    games,
    players,
    strategy_texts,
    seed,
    jobs,
    chunk_size,
    out_text,
    force,
    resume,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    table_format,
    quiet,
    check_invariants,
):
    """Run a batch of games on the fast engine and summarise it per strategy.

    Prints each strategy's win share (ties split 1/k) and mean fame with 95% confidence
    intervals. Seats take the strategies in the order given, repeated round the table.
    Results are bot-versus-bot results.

    \b
    --out big-run/ writes a dataset folder that survives interruption:
      sunset-sim simulate --games 10000000 --out big-run/            (killed halfway)
      sunset-sim simulate --games 10000000 --out big-run/ --resume   (finishes the rest)
    """
    from sunset_sim.provenance import sidecar_path
    from sunset_sim.run import OutputTaken, RunError
    from sunset_sim.run.backends import open_backend
    from sunset_sim.runner import open_dataset, simulate_to_dataset, simulate_to_file

    check_players(players)
    checked(validation.check_games, games, "--games")
    checked(validation.check_chunk_size, chunk_size, "--chunk-size")
    checked(lambda size, name: validation.check_chunk_plan(games, size, name), chunk_size,
            "--chunk-size")  # fmt: skip
    checked(validation.check_jobs, jobs, "--jobs")
    checked(validation.check_seed, seed, "--seed")
    rules = parse_rules(rule_texts)
    cards = load_card_set(cards_path, players, rules.days)
    seats = make_seats(strategy_texts, players)
    for seat in seats:
        check_fast(seat)
    to_stdout = out_text == "-"  # the rows as CSV on stdout, the summary on stderr
    out_path, dataset = output_kind(None if to_stdout else out_text)
    if resume and force:
        raise CliError("--resume and --force exclude each other")
    if force and out_path is None:  # (as play's --force without --record; stdout too)
        raise CliError("--force: overwrites the --out file or folder; give --out FILE or DIR/")
    if resume and not dataset:
        raise CliError("--resume: only a dataset folder (--out DIR/) can be resumed")
    if out_path is not None and not dataset:
        if out_path.is_dir():
            raise CliError(f"{out_path}: is a folder (give a folder name without a suffix)")
        inputs = {"--cards": cards_path, **cli_outputs.params_inputs(strategy_texts)}
        check_output(out_path, force, inputs)
        if out_path.suffix.lower() == ".csv":  # its provenance sidecar is written too
            cli_outputs.check_companion(sidecar_path(out_path), force, inputs)
    with contextlib.ExitStack() as stack:
        try:  # connect first: the dataset folder is created only for a run that can start
            runner = stack.enter_context(
                open_backend(backend, jobs or None, scheduler, check_invariants)
            )
            store = None
            if dataset:
                store = open_dataset(
                    out_path, games, players, seats, seed, cards, rules, chunk_size, resume, force
                )
                stack.callback(store.close)
        except RunError as error:
            raise CliError(str(error)) from None
        if store is not None and store.chunks and not quiet:
            click.echo(
                f"resuming {out_path}: {len(store.chunks)} chunk{'s' if len(store.chunks) != 1 else ''} "
                f"({store.games_done:,} games) already done",
                err=True,
            )
        if store is not None:
            on_interrupt(
                lambda: (
                    f"{out_path}{os.sep} keeps every finished chunk ({store.games_done:,} "
                    f"of {games:,} games); the same command with --resume finishes the run"
                )
            )
        elif out_path is not None:  # one file: written whole at the end
            kept = (
                f"{out_path} left as it was"
                if out_path.exists()
                else f"nothing written to {out_path}"
            )
            on_interrupt(
                f"{kept} (a single file is written whole at the end); "
                f"--out {out_path.with_suffix('')}/ keeps every finished chunk and --resume "
                "finishes the run"
            )
        elif to_stdout:
            on_interrupt("stdout holds the rows of the chunks finished so far, no more")
        compile_engine(seats)
        kept = store.games_done if store is not None else 0  # (played before: not checked now)
        with games_progress(games, progress_output(quiet)) as bar:
            arguments = (games, players, seats, seed, cards, rules, jobs or None, chunk_size)
            try:
                if store is not None:
                    summary = simulate_to_dataset(
                        store, *arguments, on_chunk=bar.update, backend=runner
                    )
                else:
                    summary = simulate_to_file(
                        out_path,
                        *arguments,
                        on_chunk=bar.update,
                        backend=runner,
                        stream=sys.stdout if to_stdout else None,
                    )
            except OutputTaken as error:  # (README: "its results printed before")
                print_summary(error.summary, players, table_format, err=to_stdout)
                if check_invariants:  # (its verdict too; the exit is the file's error's)
                    with contextlib.suppress(SystemExit):
                        report_invariants(error.summary, kept)
                raise CliError(str(error)) from None
            except RunError as error:  # e.g. a strategy that a Dask worker does not have
                raise CliError(str(error)) from None
    if out_path is not None:
        on_interrupt(f"{out_path} written in full")
    elif to_stdout:
        on_interrupt("every row written to stdout")
    print_summary(summary, players, table_format, err=to_stdout)
    if dataset:
        cli_notes.say(f"results written to {out_path}{os.sep} (a Parquet dataset folder)")
    elif out_path is not None:
        cli_notes.say(f"results written to {out_path}")
    if check_invariants:
        report_invariants(summary, kept)


def print_summary(summary, players: int, table_format: str, err: bool = False) -> None:
    """The per-strategy summary (``Summary.table``) in ``table_format``; on stderr when
    the rows themselves go to stdout (``--out -``). json: one object."""
    from sunset_sim.analysis.stats import ci_columns, proportion_ci

    rows = summary.rows()
    tie = proportion_ci(summary.tied_games, summary.games)
    early = proportion_ci(summary.shortage_games, summary.games)
    if table_format == "table":
        click.echo(cli_tables.records_text(rows), err=err)
        click.echo(
            f"{validation.counted(summary.games, 'game')}, {players} players; "
            f"tied games {tie[0]:.1%}; "
            f"ended by commission shortage {early[0]:.1%}",
            err=err,
        )
    elif table_format == "csv":
        click.echo(cli_tables.records_csv(rows), nl=False, err=err)
    else:
        payload = {
            "games": summary.games,
            "players": players,
            **ci_columns("tie_rate", *tie),
            **ci_columns("early_end_rate", *early),
            "strategies": cli_tables.records_json(rows),
        }
        click.echo(json.dumps(cli_tables.json_ready(payload), indent=1), err=err)


def report_invariants(summary, kept: int = 0) -> None:
    """The --check-invariants verdict (exit 1 if a game broke one); ``kept``: not checked."""
    from sunset_sim.engine.invariants import VIOLATION_NAMES

    if not summary.violating_games:
        # on stderr, as every status line: stdout holds only the data asked for
        checked = f"all {summary.games} games"
        if kept:
            checked = (
                f"the {summary.games - kept} games played now (not the {kept} kept by --resume)"
            )
        click.echo(f"invariants: checked in {checked}, 0 violations", err=True)
        return
    broken = [name for bit, name in enumerate(VIOLATION_NAMES) if summary.violations >> bit & 1]
    click.echo(
        f"invariants: {summary.violating_games} of {summary.games} games broke: "
        + "; ".join(broken),
        err=True,
    )
    raise SystemExit(1)


# ---- conventions shared by every command -------------------------------------------

# The common flags' short forms, the same on every command that has the long one.
SHORT_OPTIONS = {"--games": "-n", "--players": "-p", "--seed": "-s", "--out": "-o", "--quiet": "-q"}


def _leaf_commands(command: click.Command):
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            yield from _leaf_commands(sub)
    else:
        yield command


def _add_short_options(command: click.Command) -> None:
    """``-n/--games``, ``-p/--players``, ``-s/--seed``, ``-o/--out``, ``-q/--quiet``
    wherever the long option exists, so that they cannot drift apart between commands."""
    taken = {flag for p in command.params if isinstance(p, click.Option) for flag in p.opts}
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        for long, short in SHORT_OPTIONS.items():
            if long in param.opts and short not in taken:
                param.opts.insert(0, short)
                taken.add(short)


def _add_verbose(command: click.Command) -> None:
    """``-v/--verbose``: the command's settings as used (defaults included, so a run can be
    repeated exactly) and the package version on stderr first, its wall time last."""
    if any(p.name == "verbose" for p in command.params):
        return
    command.params.append(
        click.Option(
            ["-v", "--verbose"],
            is_flag=True,
            help="Say on stderr which settings were used (defaults included) and how long "
            "the command took.",
        )
    )
    original = command.callback

    def callback(*args, verbose: bool = False, **kwargs):
        if not verbose:
            return original(*args, **kwargs)
        import time

        from sunset_sim import __version__

        ctx = click.get_current_context()
        flags = {
            p.name: (p.opts[-1] if isinstance(p, click.Option) else p.name)
            for p in ctx.command.params
        }
        settings = " ".join(f"{flags.get(k, k)}={_setting(v)}" for k, v in kwargs.items())
        line = f"sunset-sim {__version__}: {ctx.command_path} {settings}"
        click.echo(cli_common.one_line(line), err=True)
        started = time.perf_counter()
        value = original(*args, **kwargs)
        click.echo(f"{ctx.command_path}: done in {time.perf_counter() - started:.1f} s", err=True)
        return value

    callback.__doc__ = original.__doc__
    command.callback = callback


def _setting(value) -> str:
    """A setting as -v shows it: an option left out is "(not given)", never "-", which
    would read as stdout (``--out -``), nor "[]" for a repeatable one (``--strategy``
    left out seats the command's default field, which "[]" did not say)."""
    if isinstance(value, tuple | list) and value:
        return "[" + ",".join(str(v) for v in value) + "]"
    if isinstance(value, tuple | list):
        return "(not given)"
    return "(not given)" if value is None else str(value)


main.add_command(play_command)
main.add_command(replay_command)
main.add_command(cards_command)
main.add_command(strategies_command)
main.add_command(tournament_command)
main.add_command(tune_command)
main.add_command(warmup_command)
main.add_command(cache_group)
main.add_command(report_command)
main.add_command(compare_command)
main.add_command(sweep_command)
main.add_command(study_command)
main.add_command(value_command)
for _command in _leaf_commands(main):
    _add_short_options(_command)
    _add_verbose(_command)

if __name__ == "__main__":
    main()
