"""``sunset-sim sweep``: one strategy parameter or rule option at a list of values, on
common random numbers (sunset_sim.analysis.sweep); its options are compare's
(cli_whatif.py). Registered on the ``main`` group in cli.py.

Every bad input ends with exit code 2 and one line naming the option and the problem.
"""

from __future__ import annotations

from pathlib import Path

import click

from sunset_sim import cli_notes
from sunset_sim.cli_common import (
    CliError,
    PathText,
    checked_field,
    compile_engine,
    games_progress,
    load_card_set,
    on_interrupt,
    open_cli_backend,
    parse_rules,
    progress_output,
)
from sunset_sim.cli_outputs import check_output, params_inputs
from sunset_sim.cli_tables import print_tables
from sunset_sim.cli_whatif import _common, _entrants, _option, _playable, _settings, _tail


@click.command("sweep")
@_option(
    "--param",
    "param_text",
    multiple=True,  # to refuse a second one (click kept the last alone, silently)
    metavar="NAME:KEY=V1,V2,...",
    help="Sweep one strategy parameter, e.g. balanced:deny=0,0.5,1,2. The swept strategy "
    "sits in one seat, the --strategy list (default greedy) in the others (more of them "
    "than those seats: each group that fills them, in turn).",
)
@_option(
    "--rule-values",
    "rule_values_text",
    multiple=True,
    metavar="KEY=V1,V2,...",
    help="Sweep one rule option, e.g. days=4,5,6 or tie_break=seat,random,lowest-fame. "
    "The --strategy list sits round the table.",
)
@_common
@_option(
    "--plot",
    "plot_path",
    type=PathText(dir_okay=False, path_type=Path),
    help="Write a plot of the effect with 95% CI error bars (FILE.png, .svg or .pdf).",
)
@_option("--force", is_flag=True, help="Overwrite an existing plot file.")
@_option(
    "--table",
    "table_name",
    type=click.Choice(["per_value", "per_strategy"]),
    help="Print only this table (a rule sweep has per_strategy and per_value, a parameter "
    "sweep per_value); --format csv prints one table, the first unless named.",
)
@_tail
def sweep_command(
    param_text,
    rule_values_text,
    strategy_texts,
    games_text,
    players_text,
    seed_text,
    jobs_text,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    plot_path,
    force,
    table_name,
    format_text,
    quiet,
):
    """Play one strategy parameter or one rule option at each of a list of values, on the
    same seeds for every value, and print its effect with 95% confidence intervals.

    \b
    Give exactly one of:
      --param NAME:KEY=V1,V2,...    a strategy parameter (`sunset-sim strategies` lists
                                    names and ranges); prints per value the swept
                                    strategy's win share and mean fame
      --rule-values KEY=V1,V2,...   a rule option (tie_break, days); prints per value
                                    each strategy's win share and mean fame, then seat
                                    Balance, tie rate, early-end rate and days played

    \b
    Examples:
      sunset-sim sweep --param balanced:deny=0,0.5,1,2 --strategy greedy --plot deny.png
      sunset-sim sweep --rule-values days=4,5,6 --strategy balanced --strategy greedy
      sunset-sim sweep --rule-values tie_break=seat,random,lowest-fame --plot ties.png

    Deal g uses seed (--seed, g) for every value, and every deal is played at every
    rotation of the table (n counts deals). Results are bot-versus-bot.
    """
    from sunset_sim.analysis.sweep import (
        PLOT_SUFFIXES,
        parse_param_sweep,
        parse_rule_sweep,
        sweep,
        sweep_games,
    )
    from sunset_sim.rules.options import RuleOptionError, Rules
    from sunset_sim.strategy import StrategyError

    games, players, seed, jobs, table_format = _settings(
        games_text, players_text, seed_text, jobs_text, format_text
    )
    for name, given in (("--param", param_text), ("--rule-values", rule_values_text)):
        if len(given) > 1:
            raise CliError(
                f"{name}: given {len(given)} times; a sweep varies one thing (run one "
                "sweep for each)"
            )
    param_text = param_text[0] if param_text else None
    rule_values_text = rule_values_text[0] if rule_values_text else None
    if (param_text is None) == (rule_values_text is None):
        raise CliError(
            "sweep: give exactly one of --param NAME:KEY=V1,V2,... or --rule-values KEY=V1,V2,..."
        )
    base_rules = parse_rules(rule_texts)
    entrants = checked_field(_entrants(strategy_texts))
    if param_text is not None:
        try:
            parsed = parse_param_sweep(param_text)
        except StrategyError as error:
            raise CliError(f"--param: {error}") from None
        if table_name == "per_strategy":  # (said before the games, not after them)
            raise CliError(
                "--table: a parameter sweep has only per_value (per_strategy: --rule-values)"
            )
        cards = _playable("--cards", cards_path, players, base_rules)
        total = sweep_games(entrants, players, games, param=parsed)
        arguments = {"param": param_text}
    else:
        try:
            key, options = parse_rule_sweep(rule_values_text)
        except RuleOptionError as error:
            raise CliError(f"--rule-values: {error}") from None
        given = {text.partition("=")[0].strip().replace("-", "_") for text in rule_texts}
        if key in given:
            raise CliError(f"--rule: {key} is the option swept by --rule-values")
        cards = load_card_set(cards_path)
        for option in options:
            variant = Rules.from_dict({**base_rules.to_dict(), key: option})
            _playable("--cards", cards_path, players, variant, "--rule-values")
        total = sweep_games(entrants, players, games, rule_values=len(options))
        arguments = {"rule": rule_values_text}
    if force and plot_path is None:  # (as play's --force without --record)
        raise CliError("--force: overwrites the --plot file; give --plot too")
    if plot_path is not None:
        if plot_path.suffix.lower() not in PLOT_SUFFIXES:
            raise CliError(f"--plot: {plot_path} must end in .png, .svg or .pdf")
        check_output(
            plot_path, force, {"--cards": cards_path, **params_inputs(strategy_texts)}, "--plot"
        )
    compile_engine(entrants)
    with (
        open_cli_backend(backend, jobs, scheduler) as runner,
        games_progress(total, progress_output(quiet)) as bar,
    ):
        frame = sweep(
            **arguments,
            strategies=entrants,
            players=players,
            games=games,
            seed=seed,
            cards=cards,
            rules=base_rules,
            jobs=jobs or None,
            on_chunk=bar.update,
            backend=runner,
        )
    strategy_columns = ["value", "strategy", "n"]
    strategy_columns += ["win_share", "win_share_ci_low", "win_share_ci_high"]
    strategy_columns += ["mean_fame", "mean_fame_ci_low", "mean_fame_ci_high"]
    # (json key, title, table)
    # (titles name the swept setting: "Per value of tie_break and strategy")
    tables = [
        ("per_value", "Per value of {swept} and strategy (n: deals)", frame[strategy_columns])
    ]
    if frame.attrs["kind"] == "rule":
        game_columns = ["value", "n", "balance", "balance_ci_low", "balance_ci_high"]
        game_columns += ["tie_rate", "early_end_rate", "days_played"]
        tables = [
            (
                "per_strategy",
                "Per value of {swept} and strategy (n: deals)",
                frame[strategy_columns],
            ),
            (
                "per_value",
                "Per value of {swept}: seat Balance (1 = fair), tie rate, early-end rate, "
                "days played",
                frame.drop_duplicates("value")[game_columns],
            ),
        ]
    swept = frame.attrs["swept"]
    if table_format == "table":
        tables = [
            (
                key,
                title.format(swept=swept),
                part.assign(value=[f"{v:g}" for v in part["value"]])  # 0.0625, not 0.062
                if frame.attrs["kind"] == "param"
                else part,
            )
            for key, title, part in tables
        ]
    meta = {"swept": swept, "deals": games, "players": players}
    try:
        print_tables(tables, table_format, table_name, meta)
        if table_format == "table":
            click.echo(
                f"\n{games} deals per value (same seeds), every rotation of the table, "
                f"{players} players, 95% CIs; results between bots: they describe these "
                "strategies, not human play"
            )
    except BrokenPipeError:  # (`| head`: the plot needs no stdout, and was lost with it)
        if plot_path is not None:
            _write_plot(frame, plot_path, on_interrupt, said=False)
        raise
    if plot_path is not None:  # after the tables: a full disk then loses the plot alone
        _write_plot(frame, plot_path, on_interrupt)


def _write_plot(frame, plot_path, on_interrupt, said: bool = True) -> None:
    """The sweep's plot, whole; said on stderr unless the command is ending on a closed
    pipe (its own note then says it stopped)."""
    from sunset_sim.analysis.sweep import plot_sweep
    from sunset_sim.validation import InputError

    try:
        plot_sweep(frame, plot_path)
    except InputError as error:  # (its folder gone during the games: the API's "path:")
        raise CliError(f"--plot: {str(error).removeprefix('path: ')}") from None
    on_interrupt(f"{plot_path} written in full")
    if said:
        cli_notes.say(f"plot written to {plot_path}")
