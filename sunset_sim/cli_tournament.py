"""``sunset-sim tournament``: every strategy in every seat on the same deals
(analysis/tournament.py).

cli.py imports ``tournament_command`` at the top and adds it to the ``sunset-sim``
group; the shared helpers come from cli_common.py, which imports no command module.
Every bad input is exit code 2 and one line.
"""

from __future__ import annotations

import click

from sunset_sim import cli_common, validation
from sunset_sim.cli_common import (
    CliError,
    backend_options,
    cards_option,
    check_players,
    checked,
    checked_field,
    compile_engine,
    games_progress,
    load_card_set,
    make_seats,
    parse_rules,
    progress_output,
    rule_option,
    strategy_option,
)
from sunset_sim.cli_tables import (
    format_option,
    print_tables,
    table_option,
)

__all__ = ["tournament_command"]


@click.command("tournament")
@strategy_option
@cli_common.players_option
@click.option(
    "--games",
    type=cli_common.GAMES,
    default=10_000,
    show_default=True,
    help="Deals; each is played at every seating.",
)
@click.option(
    "--seed",
    type=cli_common.SEED,
    default=0,
    show_default=True,
    help="Root seed; deal g uses (seed, g).",
)
@click.option(
    "--jobs", type=cli_common.WHOLE, default=0, help="Worker threads (default: all cores)."
)
@backend_options
@click.option(
    "--rating-games",
    type=cli_common.RangedInt("--rating-games"),
    default=20_000,
    show_default=True,
    help="Deals per seating used for the openskill ratings (at most --games: the first "
    "of the deals played).",
)
@cards_option
@rule_option
@format_option
@table_option(["standings", "head_to_head", "by_seat", "by_turn_position"])
@click.option("--quiet", is_flag=True, help="No progress bar.")
def tournament_command(
    strategy_texts,
    players,
    games,
    seed,
    jobs,
    backend,
    scheduler,
    rating_games,
    cards_path,
    rule_texts,
    table_format,
    table_name,
    quiet,
):
    """Every strategy in every seat on the same deals (paired), with 95% CIs.

    \b
    Prints: standings (win share, mean fame, openskill rating), head-to-head scores
    (share of games A out-scores B, ties half), win share by seat and by day-1 turn
    position. Give at least two strategies; with more strategies than seats every
    combination of them is played. The ratings are updated game by game (deal by deal,
    every seating of a deal in turn), so later games weigh more: rank by win share and
    its CI; a rating gap within a sigma or two says nothing.

    \b
    --format csv prints one table (--table NAME, default standings): pipe-friendly;
    --format json prints one object with every table:
      {"deals": ..., "standings": [...], "head_to_head": [...], "by_seat": [...], ...}
    """
    from sunset_sim.analysis.tournament import (
        RESULTS_NOTE,
        seatings,
        tournament,
    )

    check_players(players)
    checked(validation.check_games, games, "--games")
    checked(validation.check_jobs, jobs, "--jobs")
    if rating_games < 0:
        raise CliError(f"--rating-games: {rating_games} is negative")
    rules = parse_rules(rule_texts)
    cards = load_card_set(cards_path, players, rules.days)
    entrants = make_seats(strategy_texts, len(strategy_texts) or 1)
    if len({p.name for p in entrants}) < 2:
        raise CliError("--strategy: a tournament needs at least two different strategies")
    # (fewer strategies than seats: seatings' note, one line on stderr, before compiling)
    total = games * len(seatings(checked_field(entrants), players))
    compile_engine(entrants)
    with (
        cli_common.open_cli_backend(backend, jobs, scheduler) as runner,
        games_progress(total, progress_output(quiet)) as bar,
    ):
        result = tournament(
            entrants,
            players,
            games,
            seed,
            cards,
            rules,
            jobs or None,
            rating_games=rating_games,
            on_chunk=bar.update,
            backend=runner,
        )
    sections = [
        (
            "standings",
            "Standings (n: games the strategy played, once per seat it holds)",
            result.standings,
        ),
        (
            "head_to_head",
            "Head to head (score of strategy against opponent; n: games they met in)",
            result.head_to_head,
        ),
        ("by_seat", "Win share by seat (n: games)", result.by_seat),
        (
            "by_turn_position",
            "Win share by day-1 turn position (n: games)",
            result.by_turn_position,
        ),
    ]
    meta = {"deals": result.games, "seatings": result.tables, "players": players}
    print_tables(sections, table_format, table_name, meta)
    if table_format == "table":
        click.echo(
            f"\n{validation.counted(result.games, 'deal')} x "
            f"{validation.counted(result.tables, 'seating')}, {players} players; ratings "
            f"from {validation.counted(result.rating_games, 'deal')} per seating; {RESULTS_NOTE}"
        )
