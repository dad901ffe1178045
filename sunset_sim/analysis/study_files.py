"""A study's files: the frames as CSV, the original and the suggested card sets, and
``study.md`` with the targets, the cards outside them, the verified suggestions and the
``sunset-sim compare`` line that checks them on the user's own deals."""

from __future__ import annotations

import math
import os
import shlex
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from sunset_sim.analysis.report.render import md_cell, md_escape
from sunset_sim.analysis.study import Study
from sunset_sim.analysis.targets import (
    MIN_GOAL_KEEPS,
    band_side,
    inside_interval,
    plain_zeros,
    telling_digits,
)
from sunset_sim.cards.edit import dump_cards, edited_text
from sunset_sim.cards.fields import MAX_FILE_BYTES
from sunset_sim.cards.model import CardSet
from sunset_sim.files import folder_written_whole, write_atomically
from sunset_sim.rules.options import Rules
from sunset_sim.validation import InputError, as_cards, check_folder_path, check_path, counted

__all__ = [
    "STUDY_FILES",
    "UNSETTLED_TEXT",
    "compare_command",
    "joint_edit_lines",
    "outside_text",
    "study_markdown",
    "suggestion_text",
    "unsettled_text",
    "write_study",
]

STUDY_FILES = (
    "values.csv",
    "edits.csv",
    "targets.csv",
    "suggestions.csv",
    "original-cards.toml",
    "suggested-cards.toml",
    "study.md",
)


def _rules_text(settings: dict) -> str:
    """The rule options a study played (``days=4``: said only in its compare line)."""
    rules = settings.get("rules")
    return Rules.from_dict(rules).describe() if rules else "the defaults"


def compare_command(study: Study, cards_file: str, suggested_file: str) -> str:
    """The ``sunset-sim compare`` line that plays the original against the suggested set,
    on deals of another seed than the study's (without one, compare played seed 0: a
    seed-0 study's own deals)."""
    parts = ["sunset-sim", "compare"]
    for name in study.settings["strategies"]:
        parts += ["--strategy", name]
    parts += ["--players", str(study.settings["players"])]
    parts += ["--games", str(study.settings["verify_games"])]
    seed = int(study.settings["seed"])
    parts += ["--seed", str(seed + 1 if seed < 2**64 - 1 else seed - 1)]
    parts += ["--a-cards", cards_file, "--b-cards", suggested_file]
    for key, value in study.settings["rules"].items():
        parts += ["--rule", f"{key}={value}"]
    return shlex.join(parts)


def write_study(
    study: Study,
    out: str | os.PathLike,
    cards: CardSet | str | os.PathLike,
    *,
    named: str | os.PathLike | None = None,
) -> list[str]:
    """values.csv, edits.csv, targets.csv, suggestions.csv, original-cards.toml,
    suggested-cards.toml (the set unchanged when nothing is suggested: the README's
    workflow compares it; it was not written, and that step failed) and study.md in
    ``out``; returns the files written. ``cards``: the set the study was run on (a
    ``CardSet`` or its TOML path; another set is refused, as its edits would be written
    onto the wrong cards). The folder is written whole or not at all (an old study's
    files replaced, the user's own kept). ``named``: the folder the files will end up
    in when ``out`` is a temporary one that becomes it, so the compare line in study.md
    names the files where the user finds them."""
    if not isinstance(study, Study):
        raise InputError(
            f"study: expected a Study (run_study's result), got {type(study).__name__}"
        )
    folder = check_folder_path(out, "out")
    if named is not None:
        named = check_path(named, "named")
    cards = as_cards(cards, "cards")
    recorded = study.settings.get("cards_hash")
    if recorded is not None and cards.content_hash != recorded:
        name = study.settings.get("cards_name")
        # (suggested-cards.toml is the studied file's text with the edits made in it)
        other = repr(cards.name)
        if cards.name == name:  # (a commented copy, or another set of the same name)
            other = "this file of that name: its cards, comments or layout differ"
        raise InputError(
            f"cards: the study was run on card set {name!r} (hash {recorded}), not "
            f"{other} (hash {cards.content_hash}); give the file it was run on"
        )
    with folder_written_whole(folder, owned=lambda name: name in STUDY_FILES) as staging:
        return write_study_into(study, staging, cards, named=named or folder)


def write_study_into(
    study: Study,
    out: str | os.PathLike,
    cards: CardSet,
    *,
    named: str | os.PathLike | None = None,
) -> list[str]:
    """``write_study``'s files into ``out`` as it is (the command line's staging folder,
    swapped in whole), inputs already checked."""
    folder = Path(out)
    shown = Path(named) if named is not None else folder
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (
        ("values.csv", study.values),
        ("edits.csv", study.edits),
        ("targets.csv", study.targets),
        ("suggestions.csv", study.suggestions),
    ):
        write_atomically(folder / name, frame.to_csv(index=False))
        written.append(name)
    cards_file = "original-cards.toml"
    write_atomically(folder / cards_file, cards.source)
    written.append(cards_file)
    if study.suggested_cards is not None:
        write_atomically(
            folder / "suggested-cards.toml",
            suggested_text(
                cards,
                study.suggested_cards,
                nearest_cards(study.suggestions),
                likely_cards(study.suggestions),
            ),
        )
        note = layout_note(cards, study.suggested_cards)
        if note is not None:
            warnings.warn(note, LayoutNotKeptWarning, stacklevel=2)
        written.append("suggested-cards.toml")
        study.compare_command = compare_command(
            study, str(shown / cards_file), str(shown / "suggested-cards.toml")
        )
    else:  # the set unchanged, said in its header: a workflow that reads it goes on
        write_atomically(folder / "suggested-cards.toml", unchanged_text(cards, study.suggested))
        written.append("suggested-cards.toml")
    write_atomically(folder / "study.md", study_markdown(study))
    written.append("study.md")
    return written


SUGGESTED_HEADER = "suggestions of a sunset-sim study applied"  # (in every such header)
UNCHANGED = "unchanged"  # suggested-cards.toml's header where nothing was suggested


class LayoutNotKeptWarning(UserWarning):
    """suggested-cards.toml is the suggested set written out whole, not the user's file
    with the values edited in place."""


def layout_note(cards: CardSet, suggested: CardSet) -> str | None:
    """A line saying that suggested-cards.toml could not keep the user's file (its
    values are not each on a line of their own: an inline table, say) and is the
    suggested set written out whole; None where the file is kept."""
    if edited_text(cards, suggested) != dump_cards(suggested) or cards.source == dump_cards(cards):
        return None
    return (
        f"suggested-cards.toml: the layout of {cards.path} could not be kept (a card written "
        "as an inline table, say): it is the suggested set written out whole, without your "
        "comments"
    )


def suggested_text(
    cards: CardSet, suggested: CardSet, nearest: Sequence[str] = (), likely: Sequence[str] = ()
) -> str:
    """suggested-cards.toml: the user's file with the edits in place (a diff against
    original-cards.toml shows just them), under a two-line header in the file's own line
    endings that names the cards whose edit is a nearest step, not verified inside
    (``nearest``; a tester applied such a file as if every edit were verified) and those
    inside by value whose CI reaches outside (``likely``); a header
    of an earlier study (a study of a suggested set) is replaced, not stacked. Never
    larger than the card loader reads: then without the header, or the edited set written
    plainly (``dump_cards``)."""
    body = _without_study_header(edited_text(cards, suggested))
    newline = "\r\n" if "\r\n" in body else "\n"
    caveats = [
        f"not verified inside their targets (the nearest step): {', '.join(nearest)}"
        if nearest
        else "",
        f"inside by value, their CIs reaching outside (likely, not certain): {', '.join(likely)}"
        if likely
        else "",
    ]
    caveats = [said for said in caveats if said]
    verified = "" if caveats else "verified "
    applied = "; ".join([f"with the {verified}{SUGGESTED_HEADER}", *caveats])
    header = (
        f"# {cards.name} {applied}{newline}"
        f"# (suggestions.csv beside this file lists them).{newline}"
    )
    for text in (header + body, body):
        if _fits(text):
            return text
    plain = dump_cards(suggested)  # (only here: most files fit with their header)
    return header + plain if _fits(header + plain) else plain


def unchanged_text(cards: CardSet, looked: bool) -> str:
    """suggested-cards.toml when no suggestion was verified (or none was looked for): the
    user's file as it is, under a header that says so (an earlier study's header
    replaced)."""
    body = _without_study_header(cards.source)
    newline = "\r\n" if "\r\n" in body else "\n"
    why = "no suggestion was verified" if looked else "suggestions were not looked for"
    header = (
        f"# {cards.name} {UNCHANGED}: {why} by a sunset-sim study{newline}"
        f"# (suggestions.csv beside this file lists any).{newline}"
    )
    return header + body if _fits(header + body) else body


def _without_study_header(text: str) -> str:
    """A card file's text less the two-line header an earlier study wrote on it."""
    lines = text.splitlines(keepends=True)
    first = lines[0] if lines else ""
    if (
        len(lines) >= 2
        and (SUGGESTED_HEADER in first or f" {UNCHANGED}: " in first)
        and "suggestions.csv" in lines[1]
    ):
        return "".join(lines[2:])
    return text


def _fits(text: str) -> bool:
    """Whether the card loader reads a file this size."""
    return len(text.encode("utf-8", "surrogatepass")) <= MAX_FILE_BYTES


def outside_text(row: pd.Series) -> str:
    """One card outside its target, in a line (study.md and the CLI), marked with whether
    the check field (``--check-field``) finds it too, where one was played."""
    d = telling_digits(row["value"], row["target_low"], row["target_high"])
    return plain_zeros(
        f"{row['family']} {row['card']}: {row['metric']} {row['value']:.{d}f} "
        f"({row['value_ci_low']:.2f} to {row['value_ci_high']:.2f}, {_deals(row)}), "
        f"{row['status']} its target "
        f"{row['target_low']:.{d}f} to {row['target_high']:.{d}f}" + _check_mark(row)
    )


def _deals(row: pd.Series) -> str:
    """How many deals a target's value stands on, and which: a card judged on fresh
    deals alone (``measured_on``) showed another value than the study's table, unsaid."""
    fresh = row.get("measured_on") == "fresh"
    return f"n = {int(row['n']):,}" + (" fresh deals" if fresh else "")


def _check_mark(row: pd.Series) -> str:
    if "holds_in_check_field" not in row.index or pd.isna(row["holds_in_check_field"]):
        return ""
    theirs = row.get("check_field_status")
    if not isinstance(theirs, str):  # (a study from before these columns)
        same = bool(row["holds_in_check_field"])
        return "; the check field finds the same" if same else "; the check field does not"
    figures = (
        f"{row['check_field_value']:.2f} ({row['check_field_value_ci_low']:.2f} to "
        f"{row['check_field_value_ci_high']:.2f})"
    )
    if pd.notna(row.get("check_field_target_low", math.nan)):  # (its own band, not the study's)
        figures += (
            f" against its target {row['check_field_target_low']:.2f} to "
            f"{row['check_field_target_high']:.2f}"
        )
    if theirs == row["status"]:
        return f"; the check field finds the same on its deals ({figures})"
    if theirs == "unsettled":
        return f"; the check field cannot tell on its deals: unsettled, {figures}"
    return f"; the check field does not: {theirs} on its deals, {figures}"


UNSETTLED_TEXT = (  # after "Unsettled: " (study.md, the report) or "Unsettled (N): " (the CLI)
    "the value is outside the target with its 95% CI, widened by the SD of the target's "
    "edge (the target is measured too), still reaching in, or, on fresh deals, inside "
    "with it still reaching out (plan cards and commissions the study's deals found "
    "outside); more deals (--games, --verify-games) would tell whether the card is outside"
)


def unsettled_text(row: pd.Series) -> str:
    """One unsettled card, in a line (study.md, the CLI and the report)."""
    if row["family"] == "goal" and row["n"] == 0:
        return (
            f"goal {row['card']}: never kept on the study's deals (n = 0); too few keeps to "
            f"judge (under {MIN_GOAL_KEEPS}): see `sunset-sim cards` for a goal no turn can meet"
        )
    return plain_zeros(
        f"{row['family']} {row['card']}: {row['metric']} {row['value']:.2f} "
        f"({row['value_ci_low']:.2f} to {row['value_ci_high']:.2f}, {_deals(row)}), "
        f"target {row['target_low']:.2f} to {row['target_high']:.2f}"
        + (
            f"; too few keeps to judge (under {MIN_GOAL_KEEPS})"
            if row["family"] == "goal" and row["n"] < MIN_GOAL_KEEPS
            else _edge_noise(row)
        )
    )


def _edge_noise(row: pd.Series) -> str:
    """The SD of the band edge an unsettled value is past, or, inside, of the edge its CI
    widened by that SD reaches (``fresh_deals.settled``; the band is measured too: C04 at
    0.22 below a top of 0.27 was given the bottom's SD)."""
    value, low, high = row["value"], row["target_low"], row["target_high"]
    side = band_side(value, low, high)
    if side:
        edges = ["target_high_sd" if side == "above" else "target_low_sd"]
    else:
        measure = (value, row.get("value_ci_low", value), row.get("value_ci_high", value))
        sds = (row.get("target_low_sd", 0.0), row.get("target_high_sd", 0.0))
        lowest, highest = inside_interval(*measure, *sds)
        edges = [
            name
            for name, reaches in (
                ("target_low_sd", lowest <= low),
                ("target_high_sd", highest >= high),
            )
            if reaches
        ] or ["target_high_sd" if high - value < value - low else "target_low_sd"]
    shown = [row.get(edge, 0.0) for edge in edges]
    shown = [f"{sd:.3f}" for sd in shown if np.isfinite(sd) and sd > 0]
    if not shown:
        return ""
    if len(shown) == 1:
        return f" (that edge's SD {shown[0]})"
    return f" (the edges' SDs {' and '.join(shown)})"


def reaches_outside(row) -> bool:
    """Whether a verified suggestion's after-value CI still reaches outside its target
    (inside by its value: likely, not certain)."""
    return not (
        row["target_low"] <= row["after_ci_low"] <= row["after_ci_high"] <= row["target_high"]
    )


LIKELY = "its CI reaches outside the target: likely, not certain"
NEAREST = "outside the target by its value, inside by its CI: the nearest step, not verified inside"


def suggestion_caveat(row) -> str:
    """A suggestion's caveat, "" for none: the nearest step outside its target by its
    value (``suggestion_notes.near_note``), or inside with a CI reaching outside."""
    inside = row.get("after_inside", True)
    if not pd.isna(inside) and not bool(inside):
        return NEAREST
    return LIKELY if reaches_outside(row) else ""


def pair_caveat(row) -> str:
    """For a plan card named for a pair out of wake-up order with one later card alone
    (``wake_order.lone_pairs``): that the later card may be the one to change instead."""
    late = row.get("or_too_weak", "")
    if not isinstance(late, str) or not late:
        return ""
    return (
        f"or {late} is too weak for its own wake-up time: the two are out of order with "
        "each other alone, and restricted play cannot tell which"
    )


def caveats(row) -> str:
    """A suggestion's caveats in one text, "" for none: ``suggestion_caveat`` and
    ``pair_caveat``."""
    return "; ".join(said for said in (suggestion_caveat(row), pair_caveat(row)) if said)


def suggestion_text(row: pd.Series) -> str:
    """One verified suggestion, in a line (study.md and the CLI), with its target (a
    commission's moves with its fame) and caveat: a tester re-measured three "likely"
    suggestions on new seeds and found them outside."""
    caveat = caveats(row)
    d = telling_digits(row["after"], row["target_low"], row["target_high"])
    return plain_zeros(
        f"{row['card']} {row['field']}: {row['current']} → {row['suggested']}; "
        f"{row['metric']} {row['before']:.2f} → {row['after']:.{d}f} "
        f"(after: {row['after_ci_low']:.2f} to {row['after_ci_high']:.2f}, n = {row['n']} fresh "
        f"deals; target {row['target_low']:.{d}f} to {row['target_high']:.{d}f}"
        + (f": {caveat})" if caveat else ")")
    )


def nearest_cards(suggestions: pd.DataFrame) -> list[str]:
    """The cards whose suggestion is the nearest step, not verified inside its target."""
    if "card" not in suggestions or not len(suggestions):
        return []
    inside = suggestions.get("after_inside", pd.Series(True, index=suggestions.index))
    return list(suggestions["card"][~inside.fillna(True).astype(bool)].unique())


def suggestions_heading(suggestions: pd.DataFrame) -> str:
    """ "Verified suggestions (N cards, M fields)", or "Suggestions (...)" saying how many
    cards are a nearest step, not verified inside (``NEAREST``): a tester read such rows
    under a heading that called them all verified."""
    card = suggestions["card"] if "card" in suggestions else pd.Series([], dtype=object)
    cards = card.nunique()
    counts = f"{counted(cards, 'card')}, {counted(len(card), 'field')}"
    nearest = len(nearest_cards(suggestions))
    likely = len(likely_cards(suggestions))
    if not nearest and not likely:
        return f"Verified suggestions ({counts})"
    parts = [f"{cards - nearest - likely} verified inside their targets"]
    if likely:  # (a tester's C01 at 0.321 under a top of 0.324, CI to 0.45, counted so)
        parts.append(f"{likely} inside by value, the CI reaching outside: likely, not certain")
    if nearest:
        parts.append(f"{nearest} the nearest step, not verified inside")
    return f"Suggestions ({counts}; {', '.join(parts)})"


def likely_cards(suggestions: pd.DataFrame) -> list[str]:
    """The cards whose suggestion is inside its target by its value, its after-value's CI
    reaching outside (``LIKELY``): not counted as verified inside, where a tester's such
    edit measured above its target on 8,000 new deals."""
    needed = ("after_ci_low", "after_ci_high", "target_low", "target_high")
    if (
        "card" not in suggestions
        or not len(suggestions)
        or any(column not in suggestions for column in needed)
    ):
        return []
    nearest = set(nearest_cards(suggestions))
    reach = suggestions.apply(reaches_outside, axis=1)
    return [c for c in suggestions["card"][reach].unique() if c not in nearest]


def _edits_lines(edits: pd.DataFrame) -> list[str]:
    """How many rows of edits.csv exclude 0, against how many would by chance: a tester
    read C10 2 -> 3 at +1.50 points (0.19 to 2.81) for balanced as an effect, where C10
    2 -> 1 gave +1.40 too and compare on 2,000 other deals found -0.29 (-0.73 to +0.15);
    6 of that study's 60 rows excluded 0, about 3 by chance alone."""
    if edits.empty:
        return []
    apart = int(((edits["diff_ci_low"] > 0) | (edits["diff_ci_high"] < 0)).sum())
    return [
        "",
        "## Edits (edits.csv)",
        "",
        f"{len(edits):,} differences measured (each one-step edit's value and each "
        f"strategy's win share); {apart:,} of their 95% CIs exclude 0, where about "
        f"{len(edits) / 20:,.1f} would by chance alone with no edit changing anything. "
        "Each CI holds for its own row, not for the table: read a row as a lead to check "
        "with `sunset-sim compare` on other deals (another --seed), not as a finding.",
    ]


def joint_edit_lines(suggestions: pd.DataFrame) -> list[str]:
    """A line for each card whose verified edit changes several fields: its rows are one
    edit, each showing the whole edit's effect, so they are applied together."""
    if "card" not in suggestions:
        return []
    counts = suggestions["card"].value_counts(sort=False)
    return [
        f"{card}: its {count} rows are one edit (each shows the effect of all of them): "
        "apply them together"
        for card, count in counts.items()
        if count > 1
    ]


def study_markdown(study: Study) -> str:
    """A short, readable summary of the study (the report embeds the same tables)."""
    s = study.settings
    check = s.get("check_field") or []
    outside = study.outside()
    lines = [
        "# Designer study",
        "",
        md_escape(
            f"{s['games']} deals x {s['tables']} table rotation(s) per arm, {s['players']} "
            f"players, field: {', '.join(s['strategies'])}; cards {s['cards']} "
            f"({s['cards_name']}); rules {_rules_text(s)}; seed {s['seed']}. Values are "
            "paired differences on the same deals with 95% CIs (points of win share: 1 "
            "point = 0.01). Results are between bots."
            + (
                f" Check field: {', '.join(check)} (each card outside its target is marked "
                "with what that field finds on its own "
                f"{s.get('check_games') or s['games']} deals)."
                if check
                else ""
            )
        ),
        "",
        "## Targets",
        "",
        *[f"- {md_escape(line)}" for line in study.target_text()],
        "",
        f"## Outside their targets ({len(outside)})",
        "",
    ]
    if outside.empty:
        lines.append("No card is outside its target.")
    lines += [f"- {md_escape(outside_text(row))}" for _, row in outside.iterrows()]
    unsettled = study.unsettled()
    if not unsettled.empty:
        lines += ["", f"## Unsettled ({len(unsettled)})", "", f"Unsettled: {UNSETTLED_TEXT}:", ""]
        lines += [f"- {md_escape(unsettled_text(row))}" for _, row in unsettled.iterrows()]
    lines += ["", f"## {suggestions_heading(study.suggestions)}", ""]
    if not study.suggested:
        lines.append("Not looked for (the study ran without suggestions: `--no-suggest`).")
    elif study.suggestions.empty:
        lines.append("None.")
    lines += [f"- {md_escape(suggestion_text(row))}" for _, row in study.suggestions.iterrows()]
    lines += [f"- {md_escape(line)}" for line in joint_edit_lines(study.suggestions)]
    if study.compare_command:
        lines += [
            "",
            "Play the original against the suggested set on deals the study did not play "
            "(each strategy's win share and fame; the cards' own values: `sunset-sim study "
            "--cards` on suggested-cards.toml):",
            "",
            f"    {study.compare_command}",
        ]
    if study.notes:
        lines += ["", "## Notes", "", *[f"- {md_escape(note)}" for note in study.notes]]
    lines += _edits_lines(study.edits)
    lines += ["", "## Values (restricted play, all seats)", ""]
    overall = study.values[study.values["strategy"] == "all"]
    lines.append("| family | card | value (points) | 95% CI | per fame | use rate | n |")
    lines.append("|---|---|---|---|---|---|---|")
    for _, row in overall.iterrows():
        per_fame = f"{row['value_per_fame']:.2f}" if np.isfinite(row["value_per_fame"]) else ""
        lines.append(
            f"| {row['family']} | {md_cell(row['card'])} | {row['value']:.2f} | "
            f"{row['value_ci_low']:.2f} to {row['value_ci_high']:.2f} | {per_fame} | "
            f"{row['use_rate']:.2f} | {row['n']} |"
        )
    return "\n".join(lines) + "\n"
