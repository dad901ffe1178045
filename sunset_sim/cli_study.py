"""``sunset-sim study`` (also ``sunset-sim value``): card values from paired experiments,
targets and verified rebalance suggestions (sunset_sim.analysis.study). Registered on
the ``main`` group in cli.py.

Every bad input ends with exit code 2 and one line naming the option and the problem.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sunset_sim import cli_notes, validation
from sunset_sim.cli_common import (
    CliError,
    PathText,
    checked,
    checked_field,
    compile_engine,
    games_progress,
    on_interrupt,
    open_cli_backend,
    parse_number,
    parse_rules,
    progress_output,
    text_option,
)
from sunset_sim.cli_outputs import check_inputs_kept, check_out_folder, params_inputs
from sunset_sim.cli_tables import (
    print_tables,
)
from sunset_sim.cli_whatif import _common, _entrants, _playable, _settings, _tail
from sunset_sim.files import folder_written_whole

FAMILY_CHOICES = ("plan", "commission", "feature", "landscape")
EDIT_CHOICES = ("commission-fame", "goal-fame", "plan", "none")


def _list(option: str, text: str, choices: tuple[str, ...]) -> list[str]:
    """The comma-separated names, checked as the API checks them ("none": no edits)."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    try:
        items = validation.check_names(items, option, choices)  # none: "none", not ""
    except validation.InputError as error:
        raise CliError(str(error)) from None
    others = [item for item in items if item != "none"]
    if "none" in items and others:
        raise CliError(f"{option}: 'none' (no edits) cannot be combined with {others[0]!r}")
    return [item for item in items if item != "none"]


@click.command("study")
@_common
@text_option(
    "--families",
    "families_text",
    "plan,commission,feature",
    "Restricted-play families to value, comma-separated: plan, commission, feature, landscape.",
    metavar="LIST",
)
@text_option(
    "--edits",
    "edits_text",
    "commission-fame",
    "Card edits to play, comma-separated: commission-fame (each commission's fame +-1), "
    "goal-fame (each goal's fame +-1), plan (each plan card's wake, hike, paint and "
    "directions one step either way), or none.",
    metavar="LIST",
)
@text_option(
    "--verify-games",
    "verify_text",
    None,
    "Fresh deals, per batch of up to four, that judge again each card the study's deals "
    "found outside its target or at an edge, and that verify the suggestions (default: "
    "--games). Too few leave such a card unsettled, never inside.",
    show_default=False,
)
@text_option(
    "--check-field",
    "check_text",
    None,
    "A second field, comma-separated strategies (e.g. lookahead,balanced; a strategy's "
    "own parameters keep their commas: balanced:deny=1,paint=2,greedy): the values are "
    "measured again with it, and each finding is marked with what that field finds on "
    "its deals (the same, unsettled, or not, with its value and CI; targets.csv has them).",
    metavar="LIST",
    show_default=False,
)
@text_option(
    "--check-games",
    "check_games_text",
    None,
    "Deals for --check-field (default: --games).",
    show_default=False,
)
@click.option("--no-suggest", is_flag=True, help="Values and targets only; no suggestions.")
@click.option(
    "--out",
    "out_path",
    type=PathText(file_okay=False, dash=False),  # text: an empty --out is refused, not "."
    default=Path("study"),
    show_default=True,
    help="Folder for values.csv, edits.csv, targets.csv, suggestions.csv, "
    "suggested-cards.toml, original-cards.toml and study.md.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace the study in an --out folder that is not empty, once the new one is "
    "complete (other files there are kept).",
)
@click.option(
    "--table",
    "table_name",
    type=click.Choice(["suggestions", "outside", "unsettled", "targets", "values", "edits"]),
    help="Print only this table (--format csv prints one table: this one, or suggestions); "
    "--format json prints one object with every table and the notes.",
)
@_tail
def study_command(
    strategy_texts,
    games_text,
    players_text,
    seed_text,
    jobs_text,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    families_text,
    edits_text,
    verify_text,
    check_text,
    check_games_text,
    no_suggest,
    out_path,
    force,
    table_name,
    format_text,
    quiet,
):
    """A designer study: what every card is worth, which cards are outside their targets,
    and the smallest card edits that bring them back, verified before they are suggested.

    \b
    1. Values by restricted play: the field (--strategy, every strategy rotated through
       every seat) plays --games deals unchanged, then once per card with one seat that
       may never keep that plan card, sell to that commission or paint that feature type
       (or landscape). A card's value is what losing it costs that seat: win share in
       points (1 point = 0.01) and fame, paired on the same deals, with 95% CIs.
    2. Edits (--edits): each commission's fame +-1 (and more on request) on the same
       deals: how the card's value and each strategy's win share move.
    3. Targets: commissions' value per fame point and plan cards' value within a band of
       the other cards of the family, and no commission's whole value far above the
       others'; goals not kept mostly by the last player to move (a goal's fame has no
       target: --edits goal-fame shows what it moves). A commission or plan card
       outside its band, or at its edge, is judged again on fresh deals alone.
    4. Suggestions: for each card outside its target, the smallest edit that brings it
       in on the study's deals, then VERIFIED by playing the field on the edited set on
       fresh deals (before/after with CIs; more fresh deals while the after-value's CI
       holds an edge of the target; a miss tries the next larger edit, and with none
       inside, the nearest edit whose CI still reached the target, said to be not
       verified inside). All verified edits are then played together once more
       (after_all_edits in suggestions.csv).

    \b
    Then read DIR/study.md and DIR/suggestions.csv, and check the suggested set:
      sunset-sim study --strategy balanced --strategy greedy --out study
      sunset-sim compare --strategy balanced --strategy greedy --seed 1 \\
          --a-cards study/original-cards.toml --b-cards study/suggested-cards.toml
    (--seed 1: deals the study, on seed 0, did not play; study.md prints the line.)
    Results are bot-versus-bot: they describe these strategies, not human play.
    """
    from sunset_sim.analysis.experiments import restrictions_for
    from sunset_sim.analysis.study import EDIT_FAMILIES, _edit_list, run_study
    from sunset_sim.analysis.study_files import (
        STUDY_FILES,
        UNSETTLED_TEXT,
        joint_edit_lines,
        outside_text,
        suggestion_text,
        suggestions_heading,
        unsettled_text,
        write_study_into,
    )
    from sunset_sim.analysis.tournament import seatings

    games, players, seed, jobs, table_format = _settings(
        games_text, players_text, seed_text, jobs_text, format_text
    )
    families = _list("--families", families_text, FAMILY_CHOICES)
    edits = _list("--edits", edits_text, EDIT_CHOICES)
    verify_games = parse_number("--verify-games", verify_text) if verify_text is not None else games
    check_games = (
        parse_number("--check-games", check_games_text) if check_games_text is not None else games
    )
    for option, value in (
        ("--games", games), ("--verify-games", verify_games), ("--check-games", check_games)
    ):  # fmt: skip
        if value < 1:
            raise CliError(f"{option}: {value} is not a positive number of games")
        checked(validation.check_deals, value, option)
    rules = parse_rules(rule_texts)
    cards = _playable("--cards", cards_path, players, rules)
    entrants = _entrants(strategy_texts)
    check_field = None
    if check_games_text is not None and check_text is None:
        raise CliError("--check-games: the deals of --check-field's check; give --check-field too")
    if check_text is not None:
        texts = strategy_list(check_text)
        if not texts:
            raise CliError("--check-field: no strategy given")
        check_field = _entrants(texts, "--check-field")
    out_path = Path(out_path)
    # (--cards: its own line below)
    check_inputs_kept(out_path, params_inputs(strategy_texts), STUDY_FILES.__contains__)
    check_out_folder(out_path, force)
    if cards_path is not None and Path(cards_path).name in STUDY_FILES:
        where = Path(cards_path).resolve().parent
        if out_path.exists() and where == out_path.resolve():
            raise CliError(
                f"--cards: {cards_path} is one of the files this study replaces in --out "
                f"{out_path}; copy it out first, or give another --out"
            )
    assert set(EDIT_CHOICES) - {"none"} == set(EDIT_FAMILIES)
    tables = len(seatings(checked_field(entrants), players))
    arms = 1 + len(restrictions_for(cards, families)) + 2 * len(_edit_list(cards, edits))
    stream = progress_output(quiet)
    say = (lambda text: None) if quiet else cli_notes.say
    say(f"study: {arms} arms x {games} deals x {tables} table(s)")
    compile_engine([*entrants, *(check_field or [])])
    with (
        open_cli_backend(backend, jobs, scheduler) as runner,
        games_progress(arms * games * tables, stream) as bar,
    ):
        study = run_study(
            entrants,
            players,
            games,
            seed,
            cards,
            rules,
            families=families,
            edits=edits,
            suggest=not no_suggest,
            verify_games=verify_games,
            check_field=check_field,
            check_games=check_games if check_field else None,
            jobs=jobs or None,
            progress=bar.update,
            status=say,
            backend=runner,
        )
    with folder_written_whole(
        out_path,
        owned=STUDY_FILES.__contains__,  # other files in the folder are the user's: kept
        done=lambda: on_interrupt(f"the study in {out_path} is complete"),
    ) as staging:
        written = write_study_into(study, staging, cards, named=out_path)
    outside = study.outside()
    if table_format != "table" or table_name is not None:
        tables = [
            ("suggestions", "Verified suggestions", study.suggestions),
            ("outside", "Outside their targets", outside),
            ("unsettled", "Unsettled", study.unsettled()),
            ("targets", "Targets", study.targets),
            ("values", "Values", study.values),
            ("edits", "Edits", study.edits),
        ]
        print_tables(tables, table_format, table_name, {"notes": list(study.notes)})
    else:
        click.echo(f"Outside their targets ({len(outside)}):")
        if outside.empty:
            click.echo("  none")
        for _, row in outside.iterrows():
            click.echo(f"  {outside_text(row)}")
        unsettled = study.unsettled()
        if not unsettled.empty:
            click.echo(f"Unsettled ({len(unsettled)}): {UNSETTLED_TEXT}:")
            for _, row in unsettled.iterrows():
                click.echo(f"  {unsettled_text(row)}")
        if study.suggested:  # (a card's rows, one per field, are one edit)
            click.echo(f"{suggestions_heading(study.suggestions)}:")
        else:
            click.echo("Verified suggestions: not looked for (--no-suggest)")
        for _, row in study.suggestions.iterrows():
            click.echo(f"  {suggestion_text(row)}")
        for line in joint_edit_lines(study.suggestions):
            click.echo(f"  {line}")
        for note in study.notes:
            click.echo(f"  note: {note}")
        if study.compare_command:
            click.echo("Play the original against the suggested set on other deals:")
            click.echo(f"  {study.compare_command}")
    cli_notes.say(f"wrote {', '.join(written)} in {out_path}")
    sys.stdout.flush()


def strategy_list(text: str) -> tuple[str, ...]:
    """Strategies separated by commas, where a strategy's own parameters keep theirs: a
    part holding "=" but no ":" continues the strategy before it
    ("balanced:deny=1,paint=2,greedy" is balanced with two parameters, then greedy)."""
    texts: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if texts and "=" in part and ":" not in part:
            texts[-1] += f",{part}"
        elif part:
            texts.append(part)
    return tuple(texts)


value_command = click.Command(
    "value",
    # a list of its own: cli.py adds -v/--verbose to each command's list and wraps that
    # command's callback (a shared list once gave this alias the option but not the
    # wrapper: every `value` run failed on the unexpected argument)
    params=list(study_command.params),
    callback=study_command.callback,
    help=study_command.help,
    short_help="The same as study (card values and verified suggestions).",
)
