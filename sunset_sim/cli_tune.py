"""``sunset-sim tune``: improve a parametric strategy's weights (analysis/tune.py).

cli.py imports ``tune_command`` at the top and adds it to the ``sunset-sim`` group. The
shared helpers come from cli_common.py, which imports no command module, so this module
loads the same way whether cli.py runs as the console script, as
``python -m sunset_sim.cli`` or is imported. Every bad input is exit code 2 and one line
(but --format, the shared click choice, which fails as in ``simulate``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sunset_sim import cli_notes, validation
from sunset_sim.analysis.stats import MIN_VERDICT_DEALS
from sunset_sim.cli_common import (
    CliError,
    PathText,
    backend_options,
    cards_option,
    check_players,
    checked,
    compile_engine,
    games_progress,
    interrupted_note,
    jobs_text_option,
    load_card_set,
    on_interrupt,
    open_cli_backend,
    parse_number,
    parse_rules,
    players_text_option,
    progress_output,
    rule_option,
    text_option,
)
from sunset_sim.cli_outputs import check_output, params_inputs
from sunset_sim.cli_tables import (
    one_table_format_option,
    print_table,
    print_tables,
)

if TYPE_CHECKING:
    from sunset_sim.strategy import StrategySpec

# Numbers are read as text and checked here, so that "--games abc" is one line too.
_WHOLE = {"--games", "--generations", "--population", "--players", "--seed"}
_WHOLE |= {"--jobs", "--validation-games"}


def _number(option: str, text: str) -> float | int:
    return parse_number(option, text, whole=option in _WHOLE)


@click.command("tune")
@click.argument("strategy", metavar="STRATEGY")
@click.option(
    "--opponent",
    "opponent_texts",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="An opponent, repeatable; the other seats take them in turn, repeated round the "
    "table (at most players - 1 of them; default greedy).",
)
@text_option(
    "--games",
    "games_text",
    "100",
    "Deals per candidate per generation; each is played with the candidate in every "
    "seat (players x N games).",
)
@text_option("--generations", "generations_text", "10", "Generations of the search.")
@text_option(
    "--population",
    "population_text",
    "12",
    "Candidates per generation (the first is the search's current mean): 2 or more, "
    "and enough that --elite keeps one (3 or more at the default 0.25).",
)
@text_option(
    "--elite",
    "elite_text",
    "0.25",
    "Share of each generation the search moves toward (between 0 and 1).",
    metavar="FRACTION",
)
@players_text_option
@text_option("--seed", "seed_text", "0", "Root seed of the deals and of the search.")
@text_option(
    "--validation-games",
    "validation_text",
    "2000",
    "Fresh deals (each at every seat) on which tuned and default values are compared.",
)
@jobs_text_option
@backend_options
@cards_option
@rule_option
@click.option(
    "--out",
    "out_path",
    type=PathText(dir_okay=False, path_type=Path, dash=False),
    default=None,
    help="Params file to write (default: STRATEGY-tuned.json in this folder).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing params file.")
@one_table_format_option("the validation table (tuned against default values)")
@click.option("--quiet", is_flag=True, help="No progress bar and no per-generation lines.")
def tune_command(
    strategy,
    opponent_texts,
    games_text,
    generations_text,
    population_text,
    elite_text,
    players_text,
    seed_text,
    validation_text,
    jobs_text,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    out_path,
    force,
    table_format,
    quiet,
):
    """Tune a parametric strategy's weights against a field of opponents.

    The cross-entropy method: each generation draws --population parameter vectors
    around the search's mean (within each parameter's range), plays every one on the
    same --games deals with it in every seat against the opponents (paired seeds, so
    luck and seat effects cancel), and moves the mean and spread toward the best
    --elite share. The objective is the candidate's mean win share. The tuned values
    (the final mean) and the defaults are then compared on --validation-games fresh
    deals, with 95% confidence intervals, and written with the run's settings to a
    params file that any command seats with --strategy STRATEGY:params=FILE.

    STRATEGY is a name from `sunset-sim strategies` with parameters, optionally with
    starting values (NAME:key=value,...). With --format csv or json, stdout holds only
    the validation table; the other lines go to stderr.

    \b
    Example (about a minute on two cores):
      sunset-sim tune balanced --opponent greedy --games 50 --generations 5
      sunset-sim simulate --strategy balanced:params=balanced-tuned.json --strategy greedy
    """
    from sunset_sim.analysis.tune import (
        RESULTS_NOTE,
        TuneError,
        check_search,
        total_games,
        tunable_spec,
        tune,
        write_params,
    )
    from sunset_sim.strategy import StrategyError, make_player

    games = _number("--games", games_text)
    generations = _number("--generations", generations_text)
    population = _number("--population", population_text)
    elite = _number("--elite", elite_text)
    players = _number("--players", players_text)
    seed = _number("--seed", seed_text)
    validation_games = _number("--validation-games", validation_text)
    jobs = _number("--jobs", jobs_text)
    check_players(players)
    checked(validation.check_games, games, "--games")
    checked(validation.check_games, validation_games, "--validation-games")
    checked(validation.check_seed, seed, "--seed")
    checked(validation.check_jobs, jobs, "--jobs")
    try:  # the API's limits (10**30 generations ran on; a 2**64 population, a traceback)
        generations, population, elite = check_search(generations, population, elite, "--")
    except TuneError as error:
        raise CliError(str(error)) from None
    try:
        player = tunable_spec(strategy)
    except TuneError as error:  # (named, as --opponent's are)
        raise CliError(f"STRATEGY: {error}") from None
    if len(opponent_texts) > players - 1:
        raise CliError(
            f"--opponent: {len(opponent_texts)} opponents do not fit round a table of "
            f"{players} (at most {players - 1})"
        )
    opponents = []  # each built once (a params file read once), then passed along
    for text in opponent_texts or ("greedy",):
        try:
            opponents.append(make_player(text))
        except StrategyError as error:
            raise CliError(f"--opponent: {error}") from None
    rules = parse_rules(rule_texts)
    cards = load_card_set(cards_path, players, rules.days)
    out = out_path if out_path is not None else Path(f"{player.spec.name}-tuned.json")
    if out.is_dir():
        raise CliError(f"{out}: is a folder (give a file name)")
    if "," in str(out):  # --strategy NAME:params=FILE,key=value splits at every comma
        raise CliError(
            f"--out: {out} has a ',', which --strategy {player.spec.name}:params=FILE cannot "
            "take (it separates key=value items); give a name without one"
        )
    inputs = {
        "--cards": cards_path,
        **params_inputs([strategy], "STRATEGY"),
        **params_inputs(opponent_texts, "--opponent"),
    }
    check_output(out, force, inputs)

    progress_stream = progress_output(quiet)
    on_terminal = progress_stream is sys.stderr
    # with --format csv or json, stdout holds the table alone; the other lines go to stderr
    aside = table_format != "table"

    left_as_it_was = interrupted_note(click.get_current_context(silent=True))

    def on_generation(row: dict) -> None:
        # an interrupt from here on keeps the search's progress in its last line: the
        # mean after this generation, as starting values for a new search
        on_interrupt(_continue_line(player.spec, row, generations, left_as_it_was))
        if quiet:
            return
        if on_terminal:  # clear the bar's line first
            click.echo("\r\x1b[K", nl=False, err=True)
        spread = sum(row[f"{p.name}_std"] / (p.high - p.low) for p in player.spec.parameters)
        click.echo(
            f"generation {row['generation']}/{generations}: objective mean "
            f"{row['mean_objective']:.3f}, best {row['best_objective']:.3f}, elite "
            f"{row['elite_objective']:.3f}, search mean {row['mean_candidate']:.3f}; "
            f"spread {spread / len(player.spec.parameters):.3f} of range",
            err=True,  # a status line: stdout holds the results only
        )

    total = total_games(players, games, generations, population, validation_games)
    compile_engine([player, *opponents])
    with (
        open_cli_backend(backend, jobs, scheduler) as runner,
        games_progress(total, progress_stream) as bar,
    ):
        try:
            result = tune(
                player,
                opponents,
                games=games,
                players=players,
                generations=generations,
                population=population,
                elite=elite,
                seed=seed,
                cards=cards,
                rules=rules,
                jobs=jobs or None,
                validation_games=validation_games,
                on_games=bar.update,
                on_generation=on_generation,
                backend=runner,
            )
        except TuneError as error:  # (the API's argument names: the options here)
            message = re.sub(r"^(validation_games|games): ", _option_name, str(error))
            raise CliError(message) from None
    try:
        write_params(result, out)
        on_interrupt(f"{out} written in full")
        write_error = None
    except OSError as error:  # a full disk: said after the results, which it does not lose
        write_error = error

    click.echo(
        f"\nValidation: {result.validation_games} fresh deals x {players} seats against "
        f"{', '.join(result.opponents)}",
        err=aside,
    )
    table = result.validation.rename(columns={"params": "values", "games": "n"})
    table.insert(1, "strategy", [f"{result.strategy} tuned", f"{result.strategy} default"])
    table = table.drop(columns=["values"])
    if table_format == "table":
        print_table(table, "table")
    else:  # csv: the one table; json: one object with the validation rows and the figures
        meta = {"strategy": result.strategy, "best": result.best, "difference": result.difference}
        print_tables([("validation", "", table)], table_format, None, meta)
    d = result.difference
    verdict = (
        f"fewer than {MIN_VERDICT_DEALS} deals, too few for a verdict"
        if not result.settled
        else "tuned beats default"
        if result.significant
        else "default beats tuned"
        if d["diff_ci_high"] < 0
        else "no significant difference"
    )
    interval = (
        f"95% CI {d['diff_ci_low']:+.4f} to {d['diff_ci_high']:+.4f}"
        if d["diff_ci_low"] == d["diff_ci_low"]  # (NaN: one deal has no spread)
        else "no CI from one deal"
    )
    click.echo(
        f"tuned - default (paired by deal): {d['diff']:+.4f} ({interval}): {verdict}", err=aside
    )
    click.echo(
        "tuned: "
        + ", ".join(
            f"{name}={value:g} (default {result.default[name]:g})"
            for name, value in result.best.items()
        ),
        err=aside,
    )
    if write_error is None and verdict == "default beats tuned":  # (written, not advised)
        cli_notes.say(
            f"params written to {out}, but the defaults beat them on the validation deals: "
            f"keep seating --strategy {result.strategy}"
        )
    elif write_error is None:
        cli_notes.say(
            f"params written to {out}; seat with --strategy {result.strategy}:params={out}"
        )
    click.echo(RESULTS_NOTE, err=aside)
    if write_error is not None:
        raise write_error


def _continue_line(spec: StrategySpec, row: dict, generations: int, out_note: str) -> str:
    """What a Ctrl-C after ``row``'s generation leaves: the search mean then, as the
    STRATEGY to start a new search from (its spread starts again, on new deals: a new
    search that starts where this one stood, not the rest of this one)."""
    values = ",".join(f"{p.name}={round(row[p.name], 4):g}" for p in spec.parameters)
    stopped = (
        f"stopped after generation {row['generation']} of {generations}, whose search mean "
        f"was {values}"
        if row["generation"] < generations
        else f"stopped while validating the search's final mean, {values}"
    )
    return (
        f"{out_note}; {stopped}: to search on from there, "
        f"sunset-sim tune {spec.name}:{values} (and your other options)"
    )


def _option_name(found: re.Match) -> str:
    """``validation_games: `` as the option that sets it: ``--validation-games: ``."""
    return "--" + found[1].replace("_", "-") + ": "
