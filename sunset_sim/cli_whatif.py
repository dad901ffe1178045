"""``sunset-sim compare``: what-if analysis on common random numbers
(sunset_sim.analysis.whatif), and the option helpers ``sweep`` (cli_sweep.py) and
``study`` share with it. Registered on the ``main`` group in cli.py.

Every bad input ends with exit code 2 and one line naming the option and the problem.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import click

from sunset_sim import validation
from sunset_sim.analysis.stats import MIN_VERDICT_DEALS
from sunset_sim.cli_common import (
    CliError,
    PathText,
    backend_options,
    cards_option,
    check_fast,
    check_players,
    checked,
    checked_field,
    compile_engine,
    games_progress,
    jobs_text_option,
    load_card_set,
    open_cli_backend,
    parse_number,
    parse_rules,
    players_text_option,
    progress_output,
    rule_option,
    text_option,
)
from sunset_sim.cli_tables import (
    frame_rows,
    print_table,
)

FORMATS = ("table", "csv", "json")


def _option(*names, **kwargs):
    return click.option(*names, **kwargs)


def _common(function):
    """The options compare and sweep share. Numbers and --format are read as text and
    checked in the command, so that a bad value is one line (click's usage errors are
    several); the texts mirror cli.py's options (--cards and --rule are cli_common's)."""
    decorators = [
        _option(
            "--strategy",
            "strategy_texts",
            multiple=True,
            metavar="NAME[:k=v,...]",
            help="Strategy, repeatable; seated round the table and rotated through every "
            "seat (default greedy). Parameters as NAME:key=value,... or "
            "NAME:params=FILE.json or NAME:params=tuned (packaged). See `sunset-sim strategies`.",
        ),
        text_option(
            "--games",
            "games_text",
            "2000",
            "Deals per variant (compare), value (sweep) or arm (study); each is played at "
            "every rotation of the table.",
        ),
        players_text_option,
        text_option(
            "--seed",
            "seed_text",
            "0",
            "Root seed; deal g uses (seed, g) in every variant, value or arm of the run.",
        ),
        jobs_text_option,
        backend_options,
        cards_option,
        rule_option,
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _tail(function):
    """--format and --quiet (last in --help)."""
    function = _option("--quiet", is_flag=True, help="No progress bar.")(function)
    return text_option(
        "--format",
        "format_text",
        "table",
        "table (aligned text for people), csv (exactly one table on stdout) or json (one "
        "object holding every table). Status lines always go to stderr.",
        metavar="table|csv|json",
    )(function)


def _settings(games_text, players_text, seed_text, jobs_text, format_text):
    """(games, players, seed, jobs, table format), each checked: one line if bad."""
    games = parse_number("--games", games_text)
    players = parse_number("--players", players_text)
    seed = parse_number("--seed", seed_text)
    jobs = parse_number("--jobs", jobs_text)
    check_players(players)
    checked(validation.check_games, games, "--games")
    checked(validation.check_seed, seed, "--seed")
    checked(validation.check_jobs, jobs, "--jobs")
    if format_text not in FORMATS:
        raise CliError(f"--format: {format_text!r} is not one of {', '.join(FORMATS)}")
    return games, players, seed, jobs, format_text


def _entrants(texts: tuple[str, ...], option: str = "--strategy"):
    """The players of these strategy texts (greedy if none); a bad one is one line naming
    ``option``, the command-line option that gave it."""
    from sunset_sim.strategy import StrategyError, make_player

    players = []
    for text in texts or ("greedy",):
        try:
            players.append(make_player(text))
        except StrategyError as error:
            raise CliError(f"{option}: {error}") from None
    for player in players:
        check_fast(player)
    return players


def _variant_rules(option: str, texts: tuple[str, ...], base):
    from sunset_sim.analysis.whatif import resolve_rules

    if not texts:
        return base
    try:
        return resolve_rules(list(texts), base, option)
    except validation.InputError as error:
        raise CliError(str(error)) from None


def _refuse_unused_base(cards_path, a_cards, b_cards, rule_texts, a_rules, b_rules) -> None:
    """--cards with both --a-cards and --b-cards (it was never even opened: a missing
    file ran, exit 0), or a --rule key both variants set: a base that neither variant
    plays is refused, not ignored."""
    from sunset_sim.rules.options import Rules

    if cards_path is not None and a_cards and b_cards:
        raise CliError("--cards: --a-cards and --b-cards both replace it; leave it out")
    both = Rules.named(a_rules) & Rules.named(b_rules) & Rules.named(rule_texts)
    if both:
        raise CliError(
            f"--rule: {sorted(both)[0]} is set by both --a-rule and --b-rule, so neither "
            "variant plays its --rule value; leave it out"
        )


def _playable(option: str, path: Path | None, players: int, rules, rule_option="--rule"):
    """The card set at ``path`` (one line naming the file if bad), checked playable; a
    problem of the days rule's making names ``rule_option``, not the card option."""
    from sunset_sim.cards.loader import check_playable

    try:
        cards = load_card_set(path)
    except CliError as error:
        raise CliError(f"{option}: {error.format_message()}") from None
    problems = check_playable(cards, players, rules.days)
    if problems:
        if problems[0].startswith("rule days="):  # "--b-rule days=9: ..."
            raise CliError(f"{rule_option} {problems[0].removeprefix('rule ')}")
        raise CliError(f"{option}: {problems[0]}")
    return cards


# what compare says when A's and B's card sets deal different cards
OTHER_DEALS = (
    "the card sets hold different cards, so deal g is a different deal in A and B (same "
    "seeds only); differences are still paired by game index"
)


# ... and when B holds A's cards in another order
REORDERED_DEALS = (
    "B holds some of A's cards at other places in their decks, so deal g deals them "
    "elsewhere: a different deal in A and B (same seeds only); differences are still "
    "paired by game index"
)


def _deals_note(renamed: list[tuple[str, str]], reordered: bool = False) -> str:
    """What compare says of deals whose card ids differ: the same places for decks of
    the same sizes (``renamed``: the ids that differ), else other deals."""
    if reordered:
        return REORDERED_DEALS
    if not renamed:
        return OTHER_DEALS
    first = ", ".join(f"{a} in A, {b} in B" for a, b in renamed[:3])
    more = f" and {len(renamed) - 3} more" if len(renamed) > 3 else ""
    return (
        f"{len(renamed)} card id(s) differ between the sets ({first}{more}), but each deck "
        "has the same size in both, so deal g puts B's card where it puts A's: the games "
        "are paired by deal as for an edited card"
    )


def _shown(frame):
    """A compare section as printed: A/B headers and a '*' column for significance."""
    shown = frame.drop(columns=["section", "significant"]).rename(columns={"a": "A", "b": "B"})
    shown["sig"] = ["*" if s else "" for s in frame["significant"]]
    return shown


@click.command("compare")
@_common
@_option(
    "--a-cards",
    "a_cards",
    type=PathText(dir_okay=False, path_type=Path),
    help="Card-set TOML for variant A (default: --cards, else the packaged set).",
)
@_option(
    "--b-cards",
    "b_cards",
    type=PathText(dir_okay=False, path_type=Path),
    help="Card-set TOML for variant B (default: --cards, else the packaged set).",
)
@_option(
    "--a-rule",
    "a_rules",
    multiple=True,
    metavar="KEY=VALUE",
    help="Rule option for variant A only, repeatable; applied on top of --rule.",
)
@_option(
    "--b-rule",
    "b_rules",
    multiple=True,
    metavar="KEY=VALUE",
    help="Rule option for variant B only, repeatable; applied on top of --rule.",
)
@text_option(
    "--alpha",
    "alpha_text",
    "0.05",
    "Mark a difference significant (*) when its p-value is below this.",
    metavar="P",
)
@_tail
def compare_command(
    strategy_texts,
    games_text,
    players_text,
    seed_text,
    jobs_text,
    backend,
    scheduler,
    cards_path,
    rule_texts,
    a_cards,
    b_cards,
    a_rules,
    b_rules,
    alpha_text,
    format_text,
    quiet,
):
    """Play the same strategies on two variants, A and B, on the same seeds, and show
    every key measure side by side: A, B, the difference B - A, its 95% CI and p-value.

    \b
    Variants: --cards and --rule set the base of both; --a-cards/--b-cards replace one
    variant's card set and --a-rule/--b-rule change its rule options (repeatable). Give
    at least one --a-* or --b-* option. Examples:
      sunset-sim compare --strategy balanced --strategy greedy --b-rule days=4
      sunset-sim compare --a-rule tie_break=random --b-rule tie_break=seat --games 5000
      sunset-sim compare --a-cards mine.toml --b-cards theirs.toml --players 3

    \b
    Tables: per strategy win share and mean fame; per strategy mean fame parts
    (commissions, goals, paintings); win share per seat and seat Balance (1 - the
    largest gap between seats' win rates); tie rate, early-end rate (ended by
    commission shortage) and days played.

    \b
    Common random numbers: deal g uses seed (--seed, g) in both variants, and every
    deal is played at every rotation of the table. A rule change, or card sets with the
    same card ids in the same order (numbers edited, as a study's suggested-cards.toml),
    keep the deals identical, so the paired differences are precise; decks of the same
    sizes with some ids renamed or replaced put B's card where A's was (paired as an
    edit is). The same cards in another order, or decks of other sizes, make deal g
    another deal: only the seeds are shared, and differences are paired by game index.
    A copy that differs only in comments or layout is the same variant (an A/A check).
    '*' marks p < --alpha (with many rows, expect a few marks by chance; none on fewer
    than 20 deals). Results are bot-versus-bot.
    """
    from sunset_sim.analysis.tournament import seatings
    from sunset_sim.analysis.whatif import (
        SAME_VARIANT,
        SameVariantWarning,
        check_two_variants,
        compare,
        same_cards,
    )

    games, players, seed, jobs, table_format = _settings(
        games_text, players_text, seed_text, jobs_text, format_text
    )
    alpha = checked(
        validation.check_fraction, parse_number("--alpha", alpha_text, whole=False), "--alpha"
    )
    try:
        check_two_variants(
            bool(a_cards or b_cards or a_rules or b_rules),
            "--b-cards or --b-rule",
            "--a-cards or --a-rule",
        )
    except validation.InputError as error:
        raise CliError(str(error)) from None
    base_rules = parse_rules(rule_texts)
    rules_a = _variant_rules("--a-rule", a_rules, base_rules)
    rules_b = _variant_rules("--b-rule", b_rules, base_rules)
    _refuse_unused_base(cards_path, a_cards, b_cards, rule_texts, a_rules, b_rules)
    cards_a = _playable(
        "--a-cards" if a_cards else "--cards", a_cards or cards_path, players, rules_a,
        "--a-rule" if a_rules else "--rule",
    )  # fmt: skip
    cards_b = _playable(
        "--b-cards" if b_cards else "--cards", b_cards or cards_path, players, rules_b,
        "--b-rule" if b_rules else "--rule",
    )  # fmt: skip
    entrants = _entrants(strategy_texts)
    total = 2 * games * len(seatings(checked_field(entrants), players))
    compile_engine(entrants)
    with (
        open_cli_backend(backend, jobs, scheduler) as runner,
        games_progress(total, progress_output(quiet)) as bar,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", SameVariantWarning)  # said below, as a note
        frame = compare(
            entrants,
            players,
            games,
            seed,
            cards_a=cards_a,
            cards_b=cards_b,
            rules_a=rules_a,
            rules_b=rules_b,
            jobs=jobs or None,
            alpha=alpha,
            on_chunk=bar.update,
            backend=runner,
        )
    attrs = frame.attrs
    # what the csv rows cannot carry goes to stderr (status lines; json has same_deals)
    if table_format == "csv" and not attrs["same_deals"]:
        click.echo(f"note: {_deals_note(attrs['renamed'], attrs['reordered'])}", err=True)
    if rules_a == rules_b and same_cards(cards_a, cards_b):
        click.echo(f"note: {SAME_VARIANT}", err=True)
    if table_format == "json":
        payload = {
            "a": attrs["a"],
            "b": attrs["b"],
            "same_deals": attrs["same_deals"],
            "renamed": [list(pair) for pair in attrs["renamed"]],
            "reordered": attrs["reordered"],
            "games": games,
            "players": players,
            "seatings": attrs["tables"],
            "alpha": alpha,
            "rows": frame_rows(frame),
        }
        click.echo(json.dumps(payload, indent=1, allow_nan=False))
        return
    if table_format == "csv":
        print_table(frame, "csv")
        return
    click.echo(f"A: {attrs['a']}")
    click.echo(f"B: {attrs['b']}")
    if attrs["same_deals"]:
        click.echo(
            "Same card ids in the same order: A and B are played on identical deals "
            "(paired by deal)."
        )
    else:
        click.echo(f"Note: {_deals_note(attrs['renamed'], attrs['reordered'])}.")
    titles = {
        "strategy": "Per strategy: win share and mean fame",
        "fame parts": "Per strategy: mean fame parts",
        "seat": "Per seat: win share, and seat Balance (1 - largest gap between seats)",
        "game": "Per game: tie rate, early end (commission shortage), days played",
    }
    for section, title in titles.items():
        click.echo(f"\n{title}")
        print_table(_shown(frame[frame["section"] == section]), "table", "{:.4f}")
    marked = int(frame["significant"].sum())
    # (the same deal, or only the same seeds: other cards, or the same in another order)
    paired_deals = attrs["same_deals"] or (attrs["renamed"] and not attrs["reordered"])
    pairing = "deal" if paired_deals else "game index"
    few = f", none with fewer than {MIN_VERDICT_DEALS} deals" if games < MIN_VERDICT_DEALS else ""
    click.echo(
        f"\ndiff = B - A, paired by {pairing} (n: deals), 95% CI; * p < {alpha:g}{few} ({marked} of "
        f"{len(frame)} rows). {validation.counted(games, 'deal')} x "
        f"{validation.counted(attrs['tables'], 'seating')} per variant, "
        f"{players} players; results between bots: they describe these strategies, not "
        "human play"
    )
