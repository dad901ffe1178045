"""``sunset-sim play`` and ``replay``: one game on the reference engine, logged day by
day, and a game record checked against the rules."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sunset_sim import cli_common, cli_notes
from sunset_sim.cli_common import (
    CliError,
    cards_option,
    check_players,
    load_card_set,
    make_seats,
    on_interrupt,
    parse_rules,
    players_option,
    rule_option,
    strategy_option,
    write_atomically,
)
from sunset_sim.cli_engine import announce_reference_compile
from sunset_sim.cli_outputs import check_output, params_inputs


@click.command("play")
@players_option
@click.option("--seed", type=cli_common.SEED, default=0, show_default=True, help="Root seed.")
@click.option(
    "--game",
    "game_index",
    type=cli_common.RangedInt("--game"),
    default=0,
    show_default=True,
    help="Game index under the seed.",
)
@strategy_option
@cards_option
@rule_option
@click.option(
    "--record",
    "record_path",
    type=cli_common.PathText(dir_okay=False, path_type=Path),
    help="Write the game record (JSON) here.",
)
@click.option("--force", is_flag=True, help="Overwrite an existing record file.")
@click.option("--quiet", is_flag=True, help="Print only the final scores.")
def play_command(
    players, seed, game_index, strategy_texts, cards_path, rule_texts, record_path, force, quiet
):
    """Play one game on the reference engine and print its day-by-day log."""
    from sunset_sim.play import play_reference
    from sunset_sim.records.format import card_set_json
    from sunset_sim.records.log import GameLog, game_heading

    check_players(players)
    if seed < 0 or game_index < 0:
        raise CliError("--seed and --game must not be negative")
    rules = parse_rules(rule_texts)
    cards = load_card_set(cards_path, players, rules.days)
    seats = make_seats(strategy_texts, players)
    announce_reference_compile(seats)
    if force and record_path is None:
        raise CliError("--force: overwrites the --record file; give --record too")
    if record_path is not None and str(record_path) == "-":
        raise CliError(
            "--record: '-' is not a file (the log is on stdout); give the record a file name"
        )
    if record_path is not None:
        check_output(
            record_path, force, {"--cards": cards_path, **params_inputs(strategy_texts)}, "--record"
        )
    heading = game_heading(cards.name, cards.content_hash, rules.to_dict(), seed, game_index)
    log = GameLog([p.name for p in seats], heading)
    result = play_reference(cards, seats, seed, game_index, rules, on_event=log.on_event)
    if cards_path is not None:  # a user's card set travels inside the record
        result.record["cards"] = card_set_json(cards, inline=True)
    lines = log.lines if not quiet else log.lines[-(players + 2) :]
    click.echo("\n".join(lines))
    if record_path is not None:
        write_atomically(record_path, json.dumps(result.record, indent=1) + "\n")
        on_interrupt(f"{record_path} written in full")
        cli_notes.say(f"record written to {record_path}")


@click.command("replay")
@click.argument("record_path", type=cli_common.PathText(path_type=Path))
@cards_option(
    help_text="Card-set TOML file, for a record without its card set inline (one that carries "
    "its set is replayed with it, and a note says this file is not used; default: the "
    "packaged reconstructed set)."
)
@click.option("--quiet", is_flag=True, help="Print only the final scores.")
def replay_command(record_path: Path, cards_path: Path | None, quiet: bool) -> None:
    """Replay a game record under the rules; exit 2 at the first illegal step or wrong score."""
    from sunset_sim.records.log import record_log
    from sunset_sim.records.replay import RecordError, load_record, replay

    try:
        record = load_record(record_path)
        cards = load_card_set(cards_path) if cards_path is not None else None
        log = record_log(record)
        result = replay(record, cards, on_event=log.on_event)
    except RecordError as error:
        raise CliError(f"{record_path}: {error}") from None
    lines = log.lines if not quiet else log.lines[-(result.state.n_players + 2) :]
    click.echo("\n".join(lines))
    days = len(record["days"])
    click.echo(f"replay OK: {days} day{'' if days == 1 else 's'}, fame {result.fame}")
