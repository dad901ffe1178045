"""``sunset-sim report``: the balance report (Markdown + HTML with embedded plots) from a
results file, a dataset folder, or a batch played on the spot."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import click

from sunset_sim import cli_notes, validation
from sunset_sim.cli_common import (
    GAMES,
    SEED,
    WHOLE,
    CliError,
    PathText,
    RangedInt,
    backend_options,
    cards_option,
    check_players,
    checked,
    checked_field,
    compile_engine,
    games_progress,
    load_card_set,
    make_seats,
    on_interrupt,
    open_cli_backend,
    parse_rules,
    progress_output,
    rule_option,
    strategy_option,
)
from sunset_sim.cli_outputs import check_inputs_kept, check_out_folder, params_inputs
from sunset_sim.cli_recorded import as_recorded, played_cards
from sunset_sim.cli_tables import (
    one_table_format_option,
    print_tables,
)
from sunset_sim.files import folder_written_whole


def _report_owns(name: str) -> bool:
    """Whether an entry of an old --out folder is a report's (replaced with --force, so
    no stale plot or study survives) rather than a file of the user's own (kept)."""
    from sunset_sim.analysis.report import PLOTS
    from sunset_sim.analysis.study_files import STUDY_FILES

    ours = {"report.md", "report.html", "tables", *(f"{plot}.png" for plot in PLOTS)}
    return name in ours or name in STUDY_FILES or re.fullmatch(r"players-\d+", name) is not None


def _not_into_the_results(results: str | None, out_dir: Path) -> None:
    """A report written into the dataset folder it reads (`report ds/ -o ds --force`) left
    a folder that `simulate --resume` and `--force` then refused: foreign files."""
    if results is None or not Path(results).is_dir():
        return
    folder = Path(results).resolve()
    where = out_dir.resolve()
    if where == folder or folder in where.parents:
        raise CliError(
            f"--out {out_dir}: is the results folder {results} or inside it; write the "
            "report to another folder"
        )


@click.command("report")
@click.argument(
    "results", type=PathText(), required=False, metavar="[RESULTS.parquet|DATASET_DIR/]"
)
@click.option(
    "--games", type=GAMES, default=None, help="Play this many games now instead of reading results."
)
@click.option(
    "--players",
    "players_text",
    default="4",
    show_default=True,
    metavar="N[,N...]",
    help="Players per game with --games; several counts (2,3,4) play each and put the key "
    "tables side by side in one report.",
)
@strategy_option
@click.option("--seed", type=SEED, default=0, show_default=True, help="Root seed with --games.")
@click.option("--jobs", type=WHOLE, default=0, help="Worker threads with --games (default: all).")
@backend_options
@cards_option
@rule_option
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=PathText(dash=False),
    help="Folder for report.md, report.html, the PNG plots and tables/*.csv (made if "
    "missing, in a folder that exists).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace the report in a folder that is not empty, once the new one is complete "
    "(other files beside it are kept; its tables/ and players-N/ folders are the report's, "
    "replaced whole).",
)
@click.option(
    "--min-samples",
    type=WHOLE,
    default=30,
    show_default=True,
    help="Groups with fewer samples are marked 'too few samples' and never ranked; a "
    "strategy with fewer on either side of a within-strategy effect is left out of it.",
)
@click.option(
    "--min-group",
    type=WHOLE,
    default=1000,
    show_default=True,
    help="An effect (with vs without a card, a goal, a turn position) whose smaller group "
    "is smaller than this is shown in its table (n_smaller) but never ranked or listed as "
    "a finding.",
)
@click.option(
    "--study-games",
    type=RangedInt("--study-games"),  # at most MAX_GAMES, like --games
    default=None,
    help="Deals for the paired experiments (card values by restricted play, targets and "
    "verified rebalance suggestions, as `sunset-sim study --edits none`, whose files it "
    "writes beside the report), each played at every table of the field: default with "
    "--games 2000 for up to four tables, fewer for a bigger field (8000 / tables, at least "
    "200); none with a results file unless given (then --strategy names the field); 0 for "
    "no study.",
)
@click.option("--title", default="Sunset over Water balance report", help="Report title.")
@one_table_format_option(
    "the headline table (each strategy's win share and mean fame; every table of the report is "
    "written to OUT/tables)"
)
@click.option("--quiet", is_flag=True, help="No progress messages.")
def report_command(
    results,
    games,
    players_text,
    strategy_texts,
    seed,
    jobs,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    out_dir,
    force,
    min_samples,
    min_group,
    study_games,
    title,
    table_format,
    quiet,
):
    """Write a balance report: who wins, early rise vs paint power, card value, fairness.

    \b
    From results written by `simulate --out`:
      sunset-sim report big.parquet --out report1
      sunset-sim report big-run/ --out report1            (a dataset folder)
    Or play the games first:
      sunset-sim report --games 1000000 --players 4 --strategy greedy --strategy early-bird \\
          --strategy late-riser --strategy random --out my-report

    The strategies are seated as `tournament` seats them: every group of --players of
    them (or, when they fit at one table, that table, repeated round it) in every
    rotation, the games split evenly over those seatings (rounded up), each game a
    different deal: every strategy sits in every seat, so seat advantage and strategy
    strength are told apart. All the seatings run on one engine kernel, built once (and
    cached) for the whole field of strategies.

    Writes DIR/report.md with PNG plots beside it and DIR/report.html (self-contained,
    images embedded) and prints the win-share table. Every estimate has n and a 95% CI;
    the results are bot-versus-bot results. A results file records the card set it was
    played with (Parquet metadata, a CSV's FILE.csv.json sidecar, a dataset's manifest)
    and the report uses it; a --cards that differs is refused. For files from older
    versions, pass --cards FILE if the games used another card set.
    """
    from sunset_sim.analysis.report import ReportInputError, build_report
    from sunset_sim.analysis.report.files import write_report_into
    from sunset_sim.run.backends import thread_count

    if results is not None and games is not None:
        raise CliError("give either a results file or folder, or --games N, not both")
    if results is None and games is None:
        raise CliError("give a results file (.parquet/.csv) or dataset folder, or --games N")
    checked(validation.check_whole, min_samples, "--min-samples")
    checked(validation.check_whole, min_group, "--min-group")
    out_dir = Path(out_dir)
    _not_into_the_results(results, out_dir)
    inputs = {
        "RESULTS": Path(results) if results is not None else None,
        "--cards": Path(cards_path) if cards_path is not None else None,
        **params_inputs(strategy_texts),
    }
    check_inputs_kept(out_dir, inputs, _report_owns)
    check_out_folder(out_dir, force)
    rules = parse_rules(rule_texts)
    stream = progress_output(quiet)
    started, cpu_started = time.perf_counter(), time.process_time()
    timing = bool(os.environ.get("SUNSET_SIM_TIMING"))  # profiling: every step, with CPU time

    def step(message: str) -> None:
        cpu = f" cpu {time.process_time() - cpu_started:6.1f}s" if timing else ""
        line = f"[{time.perf_counter() - started:6.1f}s{cpu}] {message}"
        click.echo(line, file=sys.stderr if timing else stream)

    counts = _player_counts(players_text)
    studies: dict[int, Callable[[], object]] = {}

    def start_study(players: int) -> Callable[[], object]:
        """The study of this count, started now: on its own thread with the local backend
        on more than one core (it plays while this thread plays the report's games and
        computes its sections), else when waited for (--jobs 1 keeps to one core); the
        callable returns it (None: no study)."""
        deals = study_games
        if deals is None:
            deals = _default_study_games(strategy_texts, players) if games is not None else 0
        if not deals:
            return lambda: None
        arguments = (
            strategy_texts, players, deals, seed, cards, rules, jobs, step, (backend, scheduler)
        )  # fmt: skip
        if backend != "local" or thread_count(jobs or None) < 2:
            return lambda: _study(*arguments)
        return in_background(_study, *arguments)

    if results is not None and len(counts) > 1:
        raise CliError("--players: several counts only with --games (a results file has one)")
    title = checked(validation.check_title, title, "--title")
    if study_games is not None and study_games < 0:
        raise CliError(f"--study-games: {study_games} is negative")
    if study_games:  # (0: no study)
        checked(validation.check_deals, study_games, "--study-games")
    if results is not None and study_games and not strategy_texts:
        raise CliError("--study-games: with a results file, name the field with --strategy")
    if results is not None:
        given = load_card_set(cards_path) if cards_path is not None else None
        step(f"reading {results}")
        try:
            frame, run = _read(Path(results))
        except ReportInputError as error:
            raise CliError(str(error)) from None
        cards = played_cards(results, run, given)
        n_players, rules = as_recorded(results, frame, run, rules, study_games)
        counts = [n_players]  # a study beside the report: at the games' count and rules
        played = {n_players: (frame, f"{results} ({rules_text(rules)})")}
    else:
        checked(validation.check_games, games, "--games")
        checked(validation.check_jobs, jobs, "--jobs")
        for players in counts:  # playable at every count
            cards = load_card_set(cards_path, players, rules.days)
        if backend == "local":  # compiled before the study starts beside the games
            compile_engine(make_seats(strategy_texts, max(len(strategy_texts), 1)))
        played = {}
        for players in counts:
            if len(counts) > 1:
                step(f"{players} players")
            studies[players] = start_study(players)
            played[players] = _play_count(
                games, players, strategy_texts, seed, cards, rules, jobs, stream, step,
                (backend, scheduler),
            )  # fmt: skip
    reports = {}
    study_folders: dict[int, str] = {}  # the smaller counts' study files, by count
    try:
        # written whole into a temporary folder that then becomes --out: an error or
        # Ctrl-C leaves the old folder (or none) as it was
        with folder_written_whole(
            out_dir,
            owned=_report_owns,
            done=lambda: on_interrupt(f"the report in {out_dir} is complete"),
        ) as staging:
            for players, (frame, source) in played.items():
                wait = studies.get(players) or start_study(players)

                def study_files(players=players, wait=wait):
                    """The study once played, its files written beside the report."""
                    study = wait()
                    if study is not None:
                        from sunset_sim.analysis.study_files import write_study_into

                        # the largest count's study beside the report, the others in
                        # players-N/
                        sub = "" if players == max(played) else f"players-{players}"
                        write_study_into(study, staging / sub, cards, named=out_dir / sub)
                        if sub:
                            study_folders[players] = f"{sub}/"
                    return study

                reports[players] = build_report(
                    frame,
                    cards,
                    min_samples=min_samples,
                    min_group=min_group,
                    title=title,
                    source=source,
                    on_step=step,
                    study=study_files,
                )
            played.clear()
            del frame
            if len(reports) > 1:
                from sunset_sim.analysis.report.sections.player_counts import combine

                report = combine(reports, study_folders)
            else:
                report = reports[next(iter(reports))]
            written = [
                out_dir / path.relative_to(staging)
                for path in write_report_into(report, staging, on_step=step)
            ]
    except ReportInputError as error:  # of the rows read: said with their file
        where = f"{results}: " if results is not None else ""
        raise CliError(f"{where}{error}") from None
    step("done")
    meta = {"games": int(report.meta["games"]), "players": report.meta["players"]}
    played_text = f"{validation.counted(meta['games'], 'game')}, {meta['players']} players"
    headline = report.headline()
    if len(reports) > 1:  # each count's table, a "players" column first (only the last was)
        import pandas as pd

        headline = pd.concat(
            [part.headline().assign(players=count) for count, part in sorted(reports.items())]
        )
        headline = headline[["players", *headline.columns[:-1]]].reset_index(drop=True)
        counts = sorted(reports)  # (the combined report's meta is the last count's)
        meta = {"games": [int(reports[c].meta["games"]) for c in counts], "players": counts}
        parts = [f"{reports[c].meta['games']:,} games at {c} players" for c in counts]
        played_text = ", ".join(parts[:-1]) + f" and {parts[-1]}"
    aliases = report.meta.get("aliases") or {}
    if aliases:  # the table shows them; what they stand for (report.md's header lists them too)
        meta["aliases"] = dict(aliases)
    print_tables([("strategies", "", headline)], table_format, None, meta)
    if aliases:
        cli_notes.say("short labels: " + "; ".join(f"{a} = {f}" for f, a in aliases.items()))
    for note in report.notes:  # notes and where the files went: status lines, on stderr
        cli_notes.say(f"note: {note}")
    cli_notes.say(
        f"{played_text}; report written "
        f"to {written[0]} and {written[1]} ({sum(p.suffix == '.png' for p in written)} plots, "
        f"every table in {out_dir / 'tables'}"
        + "".join(f"; the {p}-player study in {out_dir / f}" for p, f in study_folders.items())
        + "); results between bots"
    )


def in_background(function: Callable, *arguments) -> Callable[[], object]:
    """Start ``function(*arguments)`` on a thread of its own; the callable returned waits
    for its result (or raises its error). The engine releases the GIL, so its games play
    beside this thread's work. A daemon thread: a command stopped by an error or Ctrl-C
    exits without waiting for it."""
    future: Future = Future()

    def run() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(function(*arguments))
        except BaseException as error:  # noqa: BLE001 - handed to whoever waits
            future.set_exception(error)

    threading.Thread(target=run, name="sunset-sim-study", daemon=True).start()
    return future.result


DEFAULT_STUDY_GAMES = 2000  # deals per arm for a field of up to four tables


def _player_counts(text: str) -> list[int]:
    """``--players 4`` or ``--players 2,3,4``: each checked, in the order given."""
    counts = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            count = validation.number_text(part, whole=True)  # as every --players reads it
        except ValueError:
            raise CliError(f"--players: {part[:20]!r} is not a whole number") from None
        check_players(count)
        if count in counts:
            raise CliError(f"--players: {count} is given twice")
        counts.append(count)
    return counts


def _default_study_games(strategy_texts, players: int) -> int:
    """2000 deals for a field of up to four tables; fewer for a bigger field (each deal is
    played at every table), at least 200."""
    count = len(_study_field(strategy_texts, players)[1])
    return max(200, DEFAULT_STUDY_GAMES * 4 // max(count, 4))


def rules_text(rules) -> str:
    """The rule options the games were played under, for the report's source line (a
    report under tie_break=seat did not say so)."""
    return "rules " + rules.describe()


def _play_count(
    games, players, strategy_texts, seed, cards, rules, jobs, stream, step, where=("local", None)
):
    """Play ``games`` games at ``players`` (every seating equally often): (rows, source)."""
    tables = _lineups(strategy_texts, players)
    per_table = -(-games // len(tables))  # every seating plays equally often
    if per_table * len(tables) != games:
        step(
            f"--games {games:,}: playing {per_table * len(tables):,} games, {per_table:,} "
            f"at each of {len(tables)} seatings, so every strategy sits in every seat "
            "equally often"
        )
    frame = _play(per_table, players, tables, seed, cards, rules, jobs or None, stream, where)
    total = per_table * len(tables)
    if len(tables) == 1:
        names = ", ".join(seat.name for seat in tables[0])
        return (
            frame,
            f"{validation.counted(total, 'game')} played now (seed {seed}; "
            f"{rules_text(rules)}; seats: {names})",
        )
    names = ", ".join(dict.fromkeys(seat.name for table in tables for seat in table))
    return frame, (
        f"{validation.counted(total, 'game')} played now (seed {seed}; {rules_text(rules)}; "
        f"strategies {names} rotated through the seats: {len(tables)} seatings of {players}, "
        f"{validation.counted(per_table, 'game')} each, every game a different deal)"
    )


def _study_field(strategy_texts, players):
    """The study's entrants (one per strategy) and the tables they are seated at."""
    from sunset_sim.analysis.tournament import seatings

    entrants = checked_field(make_seats(strategy_texts, max(len(strategy_texts), 1)))
    return entrants, seatings(entrants, players)


def _study(strategy_texts, players, games, seed, cards, rules, jobs, step, where=("local", None)):
    """The designer study of the report's field (analysis.study), on its own deals, on
    the backend ``where`` (--backend, --scheduler)."""
    from sunset_sim.analysis.study import run_study

    entrants, _ = _study_field(strategy_texts, players)
    step(f"study: paired experiments on {games:,} deals (card values, suggestions)")
    with open_cli_backend(where[0], jobs, where[1]) as runner:
        return run_study(
            entrants, players, games, seed, cards, rules, edits=(), jobs=jobs or None,
            status=step, backend=runner,
        )  # fmt: skip


def _read(path: Path):
    from sunset_sim.analysis.report import read_results

    return read_results(path)


def _lineups(strategy_texts, players: int) -> list:
    """The seatings to play, as the tournament seats them (``analysis.tournament.seatings``):
    every group of ``players`` strategies in every rotation; a field that fits at one table
    (repeated round it when smaller) in every rotation of that table. So every strategy
    sits in every seat, and the fairness section can tell seat advantage from strategy
    strength (one fixed table mixes them)."""
    from sunset_sim.analysis.tournament import seatings

    entrants = make_seats(strategy_texts, max(len(strategy_texts), 1))  # none: greedy
    return seatings(checked_field(entrants), players)


def _play(
    games_per_table, players, tables, seed, cards, rules, jobs, stream, where=("local", None)
):
    """Play ``games_per_table`` games at each seating chunk by chunk, keeping only the
    columns the report reads. Seating i plays games i * games_per_table onwards under the
    same root seed: every game has its own index and deal, so the rows stay independent
    (the report's intervals assume that) and each row's ``strategy`` is its seat's."""
    from sunset_sim.analysis.report import wanted_columns
    from sunset_sim.results import FrameBuilder
    from sunset_sim.runner import iter_seatings

    plan_ids = [p.id for p in cards.plans]
    # the rows go straight into columns sized once (no frame per chunk, no concat)
    rows = FrameBuilder(games_per_table * len(tables) * players, keep=wanted_columns)
    compile_engine(player for table in tables for player in table)
    with (
        open_cli_backend(where[0], jobs, where[1]) as runner,
        games_progress(games_per_table * len(tables), stream) as bar,
    ):
        # every seating handed over at once, so the next ones play while these rows are
        # written (LocalBackend.play_seatings); the chunks come back in seating order
        for _, batch, labels in iter_seatings(
            games_per_table,
            players,
            tables,
            seed,
            cards,
            rules,
            jobs,
            first_games=[index * games_per_table for index in range(len(tables))],
            field=[player for table in tables for player in table],
            backend=runner,
        ):
            rows.add(batch, labels, plan_ids)
            bar.update(len(batch.game))
    return rows.frame()
