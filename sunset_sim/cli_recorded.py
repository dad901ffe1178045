"""What ``sunset-sim report`` reads from a results file besides its rows: the card set,
player count and rules the games were played with (from the run record, or from the rows
where there is none), so that a study beside the report plays the same game and a
setting the file contradicts is refused in one line."""

from __future__ import annotations

import warnings

import click

from sunset_sim import cli_notes
from sunset_sim.cli_common import CliError, make_seats


def played_cards(results, run: dict | None, given):
    """The card set the results were played with (provenance.played_cards), or one line."""
    from sunset_sim import provenance
    from sunset_sim.validation import InputError

    try:
        return provenance.played_cards(run, given, str(results))
    except InputError as error:
        raise CliError(str(error)) from None


def as_recorded(results, frame, run, rules, study_games) -> tuple[int, object]:
    """The player count and rules of the games in a results file, for a study beside its
    report; settings given for games played here that the file contradicts, or that
    nothing would use (--seed without --study-games), are refused in one line rather
    than ignored."""
    from click.core import ParameterSource

    from sunset_sim.rules.options import Rules

    context = click.get_current_context()

    def given(name: str) -> bool:
        return context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)

    n_players = int(frame["seat"].max()) + 1 if len(frame) else 0
    if run and isinstance(run.get("players"), int):
        n_players = run["players"]
    if given("players_text") and context.params["players_text"].strip() != str(n_players):
        raise CliError(f"--players: {results} holds {n_players}-player games")
    recorded = Rules.from_dict(run["rules"]) if run and isinstance(run.get("rules"), dict) else None
    named = Rules.named(context.params.get("rule_texts") or ()) if given("rule_texts") else set()
    if recorded is not None:
        # only the options named: --rule days=6 for a file of 6 days with tie_break=seat
        # was refused for the tie_break it did not name (its default)
        differ = [key for key in sorted(named) if getattr(rules, key) != getattr(recorded, key)]
        if differ:
            shown = ", ".join(f"{k}={v}" for k, v in recorded.to_dict().items())
            raise CliError(
                f"--rule: {differ[0]}={getattr(rules, differ[0])}, but {results} was played "
                f"with {shown}"
            )
        rules = recorded
    else:
        rules = _days_of_rows(results, frame, rules, "days" in named)
    for name, option in (("seed", "--seed"), ("strategy_texts", "--strategy")):
        if given(name) and not study_games:
            raise CliError(
                f"{option}: a results file holds its games; {option} is for games played "
                "here (--games) or for a study beside the report (--study-games)"
            )
    _other_field_note(results, run, context.params.get("strategy_texts") or ())
    return n_players, rules


def _days_of_rows(results, frame, rules, named: bool):
    """The rules of rows without a run record (a CSV without its sidecar): days as the rows
    played them. A game that ended by the days (R-END-1) played every day, so its
    days_played is the rules' days; no game plays more. Such a file was reported under the
    default 6 days (its header said so beside 'days played 4.00'), and a study beside it
    played 6. --rule days=N that the rows contradict is refused; without it, days is
    taken from the rows, with a note."""
    from dataclasses import replace

    if "days_played" not in frame or not len(frame):
        return rules
    days_played = frame["days_played"].to_numpy()
    ended = days_played[(frame["end_reason"] == "days").to_numpy()] if "end_reason" in frame else []
    played = int(ended.max()) if len(ended) else None
    longest = int(days_played.max())
    if played is None and longest <= rules.days:
        return rules  # (every game cut short, none longer than the rules: not told)
    days = played if played is not None else longest
    if days == rules.days:
        return rules
    if named:
        raise CliError(
            f"--rule: days={rules.days}, but the games in {results} were played over "
            f"{days} days (the file has no run record)"
        )
    cli_notes.say(f"note: {results} has no run record: its games were played over {days} days")
    return replace(rules, days=days)


def _other_field_note(results, run: dict | None, strategy_texts) -> None:
    """A study field other than the results' own was taken without a word, and the card
    values and early-rise answer then described another field than the header's."""
    seats = run.get("strategies") if run else None
    if not strategy_texts or not isinstance(seats, list):
        return
    theirs = {seat.get("label") for seat in seats if isinstance(seat, dict)}
    players = make_seats(strategy_texts, max(len(strategy_texts), 1))
    ours = {seat.name for seat in players}

    def played(seat) -> tuple:  # (what a seat plays: greedy:lateness=1 is greedy:lateness=1.0)
        return (seat.get("strategy"), tuple(seat.get("params") or ()))

    same = all(isinstance(seat, dict) and "params" in seat for seat in seats) and {
        played(seat) for seat in seats
    } == {(p.spec.name, tuple(float(v) for v in p.params)) for p in players}
    if ours != theirs and not same:
        warnings.warn(
            f"note: the study beside this report plays {', '.join(sorted(ours))}, not the "
            f"field of {results} ({', '.join(sorted(map(str, theirs)))}): its card values "
            "describe that field",
            stacklevel=2,
        )
