"""The catalogue commands: what there is to play with, the card set (``cards``) and the
strategies (``strategies``)."""

from __future__ import annotations

from pathlib import Path

import click

from sunset_sim.cards.loader import CardSetError, default_cards_text, load_cards
from sunset_sim.cli_common import (
    CliError,
    cards_option,
    one_line,
    parse_rules,
    rule_option,
)
from sunset_sim.cli_tables import (
    format_option,
    print_tables,
    table_option,
)


@click.command("cards")
@cards_option
@rule_option
@format_option
@table_option(["commissions", "landscapes", "goals", "plans"])
@click.option(
    "--toml",
    "as_toml",
    is_flag=True,
    help="Print the card set as a card file instead (without --cards, the packaged file "
    "itself, comments and all; with it, the set's values): a copy to edit, `sunset-sim "
    "cards --toml > my-cards.toml`, then --cards my-cards.toml anywhere.",
)
def cards_command(
    cards_path: Path | None,
    rule_texts: tuple[str, ...],
    table_format: str,
    table_name: str | None,
    as_toml: bool,
) -> None:
    """Summarise a card set, or list every problem in it (exit code 2), including too few
    cards to play it (at 2 to 4 players over six days, or --rule days=N; a note names the
    player counts that cannot, when others can). Notes also name a feature type on no
    landscape and a daily goal no turn can meet (more steps than any hike, say).

    --format csv prints one table (--table NAME, default commissions); --format json one
    object with the set's name, hash and every table. --toml prints the set as a card
    file, to copy and edit (the packaged file's comments say what each field means)."""
    from sunset_sim.cards.loader import check_playable
    from sunset_sim.cards.summary import format_summary, goals_never_met, summary_tables
    from sunset_sim.enums import MAX_PLAYERS, MIN_PLAYERS

    try:
        cards = load_cards(cards_path)
    except CardSetError as error:
        for problem in error.problems:
            click.echo(one_line(f"error: {problem}"), err=True)  # one problem, one line
        raise SystemExit(2) from None
    # A set every game command refuses (too few cards for any number of players, six
    # days) is a problem too; one too small for some player counts gets a note.
    days = parse_rules(rule_texts).days  # (a set for fewer days than six needs fewer plans)
    unplayable = {n: check_playable(cards, n, days) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    if all(unplayable.values()):
        for problem in unplayable[MIN_PLAYERS]:
            click.echo(one_line(f"error: {problem}"), err=True)  # one problem, one line
        raise SystemExit(2)
    for n, problems in unplayable.items():
        for problem in problems:
            click.echo(one_line(f"note: not playable by {n} players: {problem}"), err=True)
    for index, feature in enumerate(cards.features):  # a typo'd or forgotten feature type
        if not any(landscape.features[index] for landscape in cards.landscapes):
            note = f"note: {cards.path}: features: {feature!r} is on no landscape"
            click.echo(one_line(f"{note} (no painting can show it)"), err=True)
    for never in goals_never_met(cards, days):  # a typo'd count, or a kind no plan allows
        click.echo(one_line(f"note: {cards.path}: goal {never}"), err=True)
    if as_toml:  # (a tester's: no command said how to get a copy of the packaged set)
        if table_format != "table" or table_name is not None:
            raise CliError("--toml prints the card file: give it without --format or --table")
        from sunset_sim.cards.edit import dump_cards

        # the packaged file as it is; a given one as its values (as a record holds them)
        click.echo(default_cards_text() if cards_path is None else dump_cards(cards), nl=False)
        return
    if table_format == "table" and table_name is None:
        click.echo(format_summary(cards))
        return
    tables = [(name, name.capitalize(), frame) for name, frame in summary_tables(cards).items()]
    meta = {"name": cards.name, "hash": cards.content_hash, "path": str(cards.path)}
    print_tables(tables, table_format, table_name, meta)


@click.command("strategies")
@format_option
@table_option(["strategies", "parameters"])
def strategies_command(table_format: str, table_name: str | None) -> None:
    """List the strategies, their descriptions and parameters.

    --format csv prints one table (strategies, or --table parameters: one row per
    strategy and parameter); json one object with both."""
    import pandas as pd

    from sunset_sim.strategy import registry

    specs = registry()
    if table_format == "table":
        for name, spec in specs.items():
            click.echo(f"{name}")
            click.echo(f"    {spec.description}")
            for p in spec.parameters:
                whole = ", a whole number" if p.integer else ""
                click.echo(
                    f"    {p.name} = {p.default:g}  (range {p.low:g}..{p.high:g}{whole}) {p.help}"
                )
        return
    strategies = pd.DataFrame(
        [{"strategy": name, "description": spec.description} for name, spec in specs.items()]
    )
    parameters = pd.DataFrame(
        [
            {
                "strategy": name,
                "parameter": p.name,
                "default": p.default,
                "low": p.low,
                "high": p.high,
                "integer": p.integer,
                "help": p.help,
            }
            for name, spec in specs.items()
            for p in spec.parameters
        ]
    )
    print_tables(
        [("strategies", "Strategies", strategies), ("parameters", "Parameters", parameters)],
        table_format,
        table_name,
    )
