"""Helpers shared by the ``sunset-sim`` commands (cli.py and the command modules
cli_report.py, cli_tune.py, cli_whatif.py, cli_sweep.py, ...): option decorators, card and rule loading,
number parsing, progress output and safe writing (the tables they print: cli_tables.py).

This module imports no command module, so any of them can import it at load time.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import click

from sunset_sim import validation
from sunset_sim.cards.model import CardSet
from sunset_sim.cli_watchdog import note_kept, stuck_watch
from sunset_sim.enums import MAX_PLAYERS, MIN_PLAYERS
from sunset_sim.files import SIGNALS_SEEN, note_signal, write_atomically
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import StrategyError
from sunset_sim.validation import MAX_GAMES, MAX_SEED, InputError, one_line

__all__ = [
    "GAMES",
    "MAX_GAMES",
    "MAX_SEED",
    "SEED",
    "CliError",
    "PathText",
    "backend_options",
    "check_range",
    "cards_option",
    "check_path_text",
    "error_line",
    "check_players",
    "checked",
    "games_progress",
    "jobs_text_option",
    "load_card_set",
    "make_seats",
    "on_interrupt",
    "parse_number",
    "parse_rules",
    "players_option",
    "players_text_option",
    "progress_output",
    "compile_engine",
    "check_fast",
    "open_cli_backend",
    "one_line",
    "rule_option",
    "strategy_option",
    "text_option",
    "write_atomically",
]


def error_line(message: object) -> None:
    """Print ``error: MESSAGE`` on stderr as one line (every error the CLI reports)."""
    click.echo(f"error: {one_line(str(message))}", err=True)


class CliError(click.ClickException):
    """A bad input: printed as one line, exit code 2 (the command line's face of
    ``validation.InputError``, which the group turns into the same line)."""

    exit_code = 2

    def show(self, file=None) -> None:
        error_line(self.format_message())


def check_path_text(option: str, text: str | os.PathLike) -> None:
    """Refuse an empty path as given: ``Path("")`` is ".", the current folder, which the
    user never named (a folder of strategies imported from it, a card file "is a folder")."""
    if isinstance(text, str) and not text.strip():
        raise CliError(f"{option}: empty path")


class PathText(click.Path):
    """``click.Path`` that refuses an empty path in one line (``check_path_text``), named
    as the option (or argument) it was given for. Every path option uses it. With
    ``dash=False`` (an output of files: tune's params, a study's or report's folder) a
    "-" is refused, not made a file or folder named "-" (simulate's --out - is stdout)."""

    def __init__(self, *args, dash: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.dash = dash

    def convert(self, value, param, ctx):
        name = None
        if param is not None:
            name = param.opts[-1] if isinstance(param, click.Option) else param.name.upper()
            check_path_text(name, value)
            if not self.dash and str(value) == "-":
                raise click.UsageError(
                    f"{name}: '-' is not stdout here (this command writes files); give a name",
                    ctx,
                )
            text = str(value).replace(os.sep, "/")
            if not self.dir_okay and (text.endswith("/") or text.rsplit("/", 1)[-1] in (".", "..")):
                # (y.json/ and y.json/. name a folder: each was written as the file y.json)
                raise click.UsageError(f"{name}: {value}: names a folder; give a file", ctx)
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as error:
            # click's "Invalid value for '--cards': File 'adir' is a directory." in the
            # project's form: "--cards: adir: is a directory"
            found = re.fullmatch(r"\w+ '.*' (.+?)\.?", error.message or "", re.DOTALL)
            if name is None or found is None:
                raise
            raise click.UsageError(f"{name}: {value}: {found.group(1)}", ctx) from None


INTERRUPT_NOTE = "sunset_sim.on_interrupt"  # Context.meta key: what an interrupt leaves


# ending a run as Ctrl-C does: SIGTERM (kill, timeout, a stopped container or CI job) and
# SIGHUP (its terminal closed; left ignored under nohup)
ENDING_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``number``), raised where the program is, as Ctrl-C is: the same
    clean-up runs and the same line is printed."""

    def __init__(self, number: int = getattr(signal, "SIGTERM", 15)) -> None:
        super().__init__(number)
        self.number = number


class Interrupted(click.ClickException):
    """Ctrl-C (SIGINT): one line saying what was kept, exit code 128 + the signal (130;
    SIGTERM the same line, 143; SIGHUP 129)."""

    def __init__(self, message: str, number: int = signal.SIGINT) -> None:
        super().__init__(message)
        self.exit_code = 128 + number

    def show(self, file=None) -> None:
        click.echo(one_line(f"interrupted; {self.format_message()}", None), err=True)


def _terminate(number: int, frame) -> None:
    note_signal(number)
    raise Terminated(number)


def _interrupt(number: int, frame) -> None:
    note_signal(number)
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` in the main thread for the block (a command's run),
    so that what Ctrl-C cleans up is cleaned up on ``kill`` too; both it and Ctrl-C are
    noted (``files.note_signal``), so that one Python drops (raised in a finalizer) still
    stops the run before it commits anything. The handlers before are put back after,
    and the noted signals forgotten.
    Elsewhere than the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    SIGNALS_SEEN.clear()
    handlers = {n: _terminate for n in ENDING_SIGNALS if signal.getsignal(n) != signal.SIG_IGN}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        handlers[signal.SIGINT] = _interrupt
    previous = {kind: signal.signal(kind, handler) for kind, handler in handlers.items() if kind}
    try:
        with stuck_watch(frozenset(previous)):  # a strategy that never returns: cli_watchdog
            yield
    finally:
        for kind, handler in previous.items():
            signal.signal(kind, handler if handler is not None else signal.SIG_DFL)
        # the signals were this run's: an API call after it in the same process (a test
        # worker, a notebook) must not find them and stop before it writes anything
        SIGNALS_SEEN.clear()


def signal_seen() -> int | None:
    """The first signal this run was sent (SIGINT or SIGTERM), if any."""
    return SIGNALS_SEEN[0] if SIGNALS_SEEN else None


def on_interrupt(kept: str | Callable[[], str]) -> None:
    """Say what an interrupt from now on leaves behind ("nothing written to X", "X is
    complete"): the one line the command ends with on Ctrl-C (default: no output written).
    A callable is asked at the interrupt (how much a dataset folder holds by then)."""
    context = click.get_current_context(silent=True)
    if context is not None:
        context.meta[INTERRUPT_NOTE] = kept
        note_kept(kept)


def interrupted_note(context: click.Context | None) -> str:
    """The line ``on_interrupt`` last set for this run."""
    meta = context.meta if context is not None else {}
    kept = meta.get(INTERRUPT_NOTE, "no output written")
    return kept() if callable(kept) else kept


CARDS_HELP = "Card-set TOML file (default: the packaged reconstructed set)."


def cards_option(function=None, *, help_text: str = CARDS_HELP):
    """``--cards FILE``; ``cards_option(help_text=...)`` where a command reads it otherwise."""
    option = click.option(
        "--cards",
        "cards_path",
        type=PathText(dir_okay=False, path_type=Path),
        default=None,
        help=help_text,
    )
    return option if function is None else option(function)


def rule_option(function):
    return click.option(
        "--rule",
        "rule_texts",
        multiple=True,
        metavar="KEY=VALUE",
        help="Rule option, repeatable: tie_break=random|seat|lowest-fame, days=N.",
    )(function)


def players_option(function):
    return click.option(
        "--players",
        type=WHOLE,
        default=4,  # as every other command
        show_default=True,
        help=f"Number of players ({MIN_PLAYERS} to {MAX_PLAYERS}).",
    )(function)


def strategy_option(function):
    return click.option(
        "--strategy",
        "strategy_texts",
        multiple=True,
        metavar="NAME[:k=v,...]",
        help="Strategy per seat, repeatable; repeated round the table (default greedy). "
        "Parameters as NAME:key=value,..., NAME:params=FILE.json (a tuned parameter "
        "file) or NAME:params=tuned (the packaged tuned set, e.g. balanced:params=tuned). "
        "See `sunset-sim strategies`.",
    )(function)


def text_option(name: str, dest: str, default: str, help: str, metavar: str = "N", **kwargs):
    """An option taken as text and checked by the command (``parse_number``), so that a
    bad value is one line rather than click's usage error (several lines)."""
    kwargs.setdefault("show_default", True)
    return click.option(name, dest, default=default, metavar=metavar, help=help, **kwargs)


def players_text_option(function):
    return text_option("--players", "players_text", "4", "Players per game (2 to 4).")(function)


def jobs_text_option(function):
    return text_option(
        "--jobs",
        "jobs_text",
        "0",
        "Worker threads; 0 (the default) uses every core, more than there are is the same. "
        "Results do not depend on it.",
        show_default=False,
    )(function)


def load_card_set(path: Path | None, players: int | None = None, days: int = 6) -> CardSet:
    """Cards for a command: a bad file is one line (the first problem and how many more)."""
    try:
        return validation.as_cards(path, "--cards", players, days)
    except InputError as error:
        raise CliError(str(error)) from None


def check_range(option: str, value: int) -> int:
    """The stated range of a seed (or a game index) or a number of games
    (validation.py), in one line if outside it. Zero games passes here (commands say "not a
    positive number" themselves)."""
    try:
        if option in ("--seed", "--game"):  # play --game 2**64 was game 0
            return validation.check_seed(value, option)
        if option.endswith("games") and value > MAX_GAMES:
            return validation.check_games(value, option)
    except InputError as error:
        raise CliError(str(error)) from None
    return value


class RangedInt(click.ParamType):
    """A whole-number option with a stated range (``check_range``), for click options."""

    name = "integer"

    def __init__(self, option: str) -> None:
        self.option = option

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            number = value
        else:
            try:
                number = validation.number_text(str(value), whole=True)
            except ValueError:
                self.fail(f"{str(value)[:40]!r} is not a whole number", param, ctx)
        try:
            return check_range(self.option, number)
        except CliError as error:
            self.fail(error.format_message().partition(": ")[2], param, ctx)


SEED = RangedInt("--seed")
GAMES = RangedInt("--games")
WHOLE = RangedInt("")  # any whole number in ASCII digits (click's int reads "1_0" as 10)


def parse_number(option: str, text: str, whole: bool = True) -> int | float:
    """An option given as text (so that "--games abc" is one line, not click's usage
    error): a whole number, or with ``whole=False`` a finite number. Seeds and numbers of
    games are held to their stated ranges (``check_range``)."""
    try:
        value = validation.number_text(text, whole)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise CliError(f"{option}: {text[:40]!r} is not {kind}") from None
    if not whole and not math.isfinite(value):
        raise CliError(f"{option}: {text!r} is not a finite number")
    return check_range(option, value) if whole else value


def parse_rules(texts: tuple[str, ...]) -> Rules:
    try:
        return validation.as_rules(list(texts), "--rule")
    except InputError as error:
        raise CliError(str(error)) from None


def checked(check, value, option: str):
    """``value`` through one of validation.py's checks, named as the option; one line
    (exit 2) if outside the stated limits, the same limits the Python API holds to."""
    try:
        return check(value, option)
    except InputError as error:
        raise CliError(str(error)) from None


def check_players(players: int) -> None:
    try:
        validation.check_players(players, "--players")
    except InputError as error:
        raise CliError(str(error)) from None


def make_seats(texts: tuple[str, ...], players: int):
    from sunset_sim.strategy import seat_players

    try:
        validation.check_field_fits(len(texts), players, "--strategy")
    except InputError as error:
        raise CliError(str(error)) from None
    try:
        seats = seat_players(texts, players)
    except StrategyError as error:
        raise CliError(f"--strategy: {error}") from None
    validation.warn_repeated(seats[: len(texts)], players)  # one line (OneLineWarnings)
    return seats


def checked_field(entrants: list) -> list:
    """A rotated field's entrants (tournament, report, study, compare), each listed once
    (``analysis.tournament.check_distinct``), or one --strategy line."""
    from sunset_sim.analysis.tournament import check_distinct

    try:
        check_distinct(entrants, "--strategy")
    except InputError as error:
        raise CliError(str(error)) from None
    return entrants


def check_fast(player) -> None:
    """A seat whose strategy cannot run in the fast engine is a one-line --strategy error."""
    from sunset_sim.engine.compiling import check_compilable

    try:
        check_compilable(player.spec)
    except StrategyError as error:
        raise CliError(f"--strategy: {error}") from None


def compile_engine(players) -> None:
    """Compile (or load) the engine and these players' strategies now, before a progress
    bar starts, so that its ETA leaves the compile out; a compile says so on stderr."""
    from sunset_sim.engine.compiling import prepare

    try:
        prepare(player.spec for player in players)
    except StrategyError as error:
        raise CliError(f"--strategy: {error}") from None


@functools.cache
def _nowhere():
    """The one os.devnull stream of the process, closed as it ends."""
    stream = open(os.devnull, "w")  # noqa: SIM115 - closed at exit
    atexit.register(stream.close)
    return stream


def progress_output(quiet: bool):
    """Where progress bars go: stderr on a terminal; nowhere with --quiet or when stderr is
    a file or pipe (a bar there is only noise in logs). One os.devnull stream for every
    command of the process: each interrupted command in a notebook kept its own open."""
    if quiet or not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
        return _nowhere()  # (a dumb terminal, an editor's shell: click's bar hides the
    return sys.stderr  # cursor with escape codes it shows as junk)


def games_progress(total: int, stream):
    """The progress bar over ``total`` games, written to ``stream`` (see progress_output)."""
    return click.progressbar(length=total, label="games", file=stream, show_pos=True, show_eta=True)


def backend_options(function):
    """``--backend`` and ``--scheduler``: where a command plays its chunks (run/backends.py).
    Every command that plays games takes them; the results never depend on them. A pair
    that cannot go together is refused before the command does anything (a compile can
    take minutes)."""

    @functools.wraps(function)
    def checked_first(*args, **kwargs):
        check_backend_options(kwargs["backend"], kwargs["scheduler"])
        return function(*args, **kwargs)

    with_scheduler = click.option(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address for --backend dask, e.g. tcp://10.0.0.5:8786 "
        "(default: $DASK_SCHEDULER_ADDRESS).",
    )(checked_first)
    return click.option(
        "--backend",
        type=click.Choice(["local", "dask"]),
        default="local",
        show_default=True,
        help="Where chunks are played: this process, or a Dask cluster (needs dask and "
        "distributed: pip install -e '.[dask]' in a checkout, or pip install dask "
        "distributed; start `dask scheduler` and `dask worker ADDRESS --nthreads 1` on each "
        "machine, with sunset-sim installed there too). Results are identical.",
    )(with_scheduler)


def check_backend_options(backend: str, scheduler: str | None) -> None:
    """``--backend`` and ``--scheduler`` that cannot go together, named as the command
    line's options (``open_backend`` names its Python arguments)."""
    from sunset_sim.run import SCHEDULER_VARIABLE, START_A_CLUSTER, scheduler_address  # (light)

    if scheduler is not None and not scheduler.strip():  # (read as not given at all)
        raise CliError("--scheduler: empty; give the scheduler's address, or leave it out")
    if scheduler and backend != "dask":
        raise CliError("--scheduler: only for --backend dask")
    if backend == "dask" and not scheduler_address(scheduler):
        raise CliError(
            f"--backend dask needs --scheduler ADDRESS or {SCHEDULER_VARIABLE} ({START_A_CLUSTER})"
        )


@contextlib.contextmanager
def open_cli_backend(backend: str, jobs: int | None, scheduler: str | None, **options):
    """The backend for a command, open for the block; a ``RunError`` (dask missing, a
    scheduler that cannot be reached, a strategy a worker lacks) becomes one line, exit 2."""
    from sunset_sim.run import RunError
    from sunset_sim.run.backends import open_backend

    try:
        opened = open_backend(backend, jobs or None, scheduler, **options)
        runner = opened.__enter__()
    except RunError as error:
        raise CliError(str(error)) from None
    try:
        yield runner
    except RunError as error:
        raise CliError(str(error)) from None
    finally:
        opened.__exit__(None, None, None)
