"""``build_report``: every section's tables from the result rows (sections whose columns
are missing are skipped with a note), the findings across them, and the report's
sections in order."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from sunset_sim import validation
from sunset_sim.analysis.report.data import (
    OPTIONAL_COLUMNS,
    OPTIONAL_USE,
    _match,
    _prepare,
    check_columns,
    rank_big_groups,
)
from sunset_sim.analysis.report.findings import _findings, findings_section
from sunset_sim.analysis.report.model import (
    MIN_GROUP,
    MIN_SAMPLES,
    Report,
    ReportInputError,
    Section,
)
from sunset_sim.analysis.report.render import draw_early
from sunset_sim.analysis.report.sections import SECTIONS
from sunset_sim.analysis.report.sections.card_values import (
    study_findings,
    study_section,
    study_tables,
)
from sunset_sim.cards.model import CardSet
from sunset_sim.result_rows import check_rows
from sunset_sim.rules.options import Rules


def _played_cards(
    frame: pd.DataFrame, cards: CardSet | str | os.PathLike | None, source: str
) -> CardSet:
    """The card set the rows were played with (``build_report``'s docstring); ``cards``
    may be a path, loaded as every API function loads one (``validation.as_cards``)."""
    from sunset_sim.provenance import played_cards

    run = frame.attrs.get("provenance")
    try:
        given = validation.as_cards(cards) if cards is not None else None
        return played_cards(run if isinstance(run, dict) else None, given, source or "results")
    except validation.InputError as error:
        raise ReportInputError(str(error)) from None


def check_min_samples(min_samples: object, name: str = "min_samples") -> int:
    """The smallest group that is ranked or reported: a whole number of at least 1 (the
    command line's --min-samples holds to the same)."""
    try:
        return validation.check_whole(min_samples, name, 1)
    except validation.InputError as error:
        raise ReportInputError(str(error)) from None


def _checked_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows held to what sunset-sim writes (``result_rows.check_rows``, as
    ``read_results`` holds a file's), on a shallow copy: the caller's frame is left as it
    was. A frame made or edited in Python (a negative fame, a seat past the table, a game
    without all its seats) is refused in one line, not reported. About 0.1 s per 400,000
    rows."""
    run = frame.attrs.get("provenance")
    players = run.get("players") if isinstance(run, dict) else None
    try:
        return check_rows(frame.copy(deep=False), "results", players)
    except validation.InputError as error:
        raise ReportInputError(str(error)) from None


def build_report(
    frame: pd.DataFrame,
    cards: CardSet | str | os.PathLike | None = None,
    min_samples: int = MIN_SAMPLES,
    max_findings: int = 18,
    title: str = "Sunset over Water balance report",
    source: str = "",
    on_step: Callable[[str], None] | None = None,
    study=None,
    min_group: int = MIN_GROUP,
) -> Report:
    """Every table of the report from the result rows and the card set they used.

    Sections whose columns are missing are skipped with a note (``Report.notes``).
    ``study`` (``analysis.study.Study``): its card values, targets and verified
    suggestions become the report's "Card values and rebalance suggestions" section, the
    plan section's measured trade-off, and findings. It may also be a callable that
    returns the study: it is called once the rows' sections are done, so a study still
    playing in another thread (``sunset-sim report --games``) overlaps them.
    ``min_group``: an effect whose smaller group is smaller is shown in its table but
    never ranked or listed as a finding.

    ``cards`` None: the card set recorded with the rows (``read_results`` keeps it in
    ``frame.attrs["provenance"]``), else the packaged set; a ``cards`` (a ``CardSet`` or
    a TOML path) that differs from the recorded one is refused (ReportInputError, one line
    naming both). Rows that are not a results table (not a DataFrame, missing columns, no
    rows, one seat a game, values no game has: ``result_rows.check_rows``, as
    ``read_results`` holds a file) are a ReportInputError too, naming what is wrong."""
    if not isinstance(frame, pd.DataFrame):
        raise ReportInputError(
            f"frame: expected a DataFrame of results (one row per game and seat, as "
            f"simulate() or read_results() give), got {type(frame).__name__}"
        )
    check_columns(list(frame.columns))
    frame = _checked_rows(frame)
    min_samples = check_min_samples(min_samples)
    min_group = check_min_samples(min_group, "min_group")
    try:
        max_findings = validation.check_whole(max_findings, "max_findings", 0)
    except validation.InputError as error:
        raise ReportInputError(str(error)) from None
    validation.check_callback(on_step, "on_step")
    try:
        title = validation.check_title(title)
    except validation.InputError as error:
        raise ReportInputError(str(error)) from None
    _check_study(study)
    cards = _played_cards(frame, cards, source)
    frame, aliases = short_labels(frame)
    data = _prepare(frame, cards)
    tables: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    if "provenance" in frame.attrs and frame.attrs["provenance"] is None:  # read_results'
        notes.append(
            "the results carry no run record (a CSV without its .csv.json sidecar, a file "
            "written by another tool): the games asked for, the rules and the card set "
            "could not be checked against it, and a run stopped early (an interrupted "
            "--out - stream) reads as complete"
        )
    columns = set(data.frame.columns)

    def step(name: str, needs: Sequence[str], function) -> bool:
        missing = [c for c in needs if not (c in columns or any(_match(c, x) for x in columns))]
        if missing:
            notes.append(f"{name}: skipped, the results have no {missing[0]} column")
            return False
        if on_step is not None:
            on_step(name)
        tables.update(function(data, min_samples))
        return True

    for spec in SECTIONS:
        step(spec.name, spec.needs, spec.compute)
    rank_big_groups(tables, min_group)
    for name in OPTIONAL_COLUMNS:
        if name not in columns:
            notes.append(f"the results have no {name} column: left out, {OPTIONAL_USE[name]}")
    for spec in SECTIONS:
        if spec.notes is not None:
            notes += spec.notes(tables)
    confounded = data.seats_fixed()
    if confounded:
        notes.append(
            "each seat held one strategy in every game, so seat differences (and Balance) mix "
            "seat advantage with strategy strength; rotate seats (sunset-sim tournament) "
            "or seat one strategy everywhere to measure seat fairness"
        )
    drawn = {}
    if callable(study):  # the rows' sections are done: draw their plots, then wait for it
        drawn = draw_early(tables, on_step)
        study = study()
    if study is not None:  # (before the findings: a measured value replaces associations)
        tables.update(study_tables(study))
    findings = _findings(
        tables, max_findings, confounded=confounded, min_samples=min_samples, min_group=min_group
    )
    if study is not None:
        findings = study_findings(study) + findings
    meta = {
        "title": title,
        "source": source,
        "rules": _played_rules(frame),
        "games": data.games,
        "players": data.players,
        "rows": len(data.frame),
        "strategies": list(data.strategies),  # in order of first appearance
        "cards": f"{cards.name} ({cards.content_hash[:12]})",
        "min_samples": min_samples,
        "min_group": min_group,
        "aliases": aliases,
        "seats_confounded": confounded,
        "mixed_field": len(data.strategies) > 1,
    }
    report = Report(tables, findings, [], meta, notes, drawn)
    report.sections = _sections(report)
    if study is not None:
        report.sections.insert(1, study_section(study))
    return report


def _played_rules(frame: pd.DataFrame) -> str:
    """``rules tie_break=..., days=...`` from the rows' run record (``simulate()`` and
    ``read_results`` keep it in ``frame.attrs["provenance"]``), "" without one: a report
    built in Python of 4-day games read as the 6-day game (the command line's source
    line named them)."""
    run = frame.attrs.get("provenance")
    rules = run.get("rules") if isinstance(run, dict) else None
    if not isinstance(rules, dict):
        return ""
    try:
        return "rules " + Rules.from_dict(rules).describe()
    except (ValueError, TypeError):  # (read_results checked it; another tool's record)
        return ""


def _check_study(study: object) -> None:
    """``study``: None, a Study (run_study) or a callable that returns one."""
    from sunset_sim.analysis.study import Study

    if study is None or callable(study) or isinstance(study, Study):
        return
    raise ReportInputError(
        f"study: expected a Study (run_study), a callable returning one, or None, got "
        f"{type(study).__name__}"
    )


LONG_LABEL = 20  # characters: a longer strategy label gets a short alias in the report


def short_labels(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """Long strategy labels (``balanced:params=strategies/params/balanced-tuned.json``)
    replaced by short aliases (``balanced*``, ``balanced*2``) so that tables and plot
    legends stay readable; the header lists each alias with its full label."""
    column = frame["strategy"]
    categorical = isinstance(column.dtype, pd.CategoricalDtype)
    codes, names = None, []
    if categorical:
        labels = list(column.cat.categories)
    else:  # the distinct labels first (str() of millions of rows took seconds)
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        names = [str(value) for value in uniques]
        labels = list(dict.fromkeys(names))
    taken = {str(label) for label in labels if len(str(label)) <= LONG_LABEL}
    aliases: dict[str, str] = {}
    for label in map(str, labels):
        if len(label) <= LONG_LABEL:
            continue
        base = label.split(":")[0][: LONG_LABEL - 3] + "*"
        alias, number = base, 2
        while alias in taken:
            alias, number = f"{base}{number}", number + 1
        taken.add(alias)
        aliases[label] = alias
    if not aliases:
        return frame, {}
    if categorical:
        renamed = column.cat.rename_categories(lambda c: aliases.get(str(c), c))
    else:
        shown = np.array([aliases.get(name, name) for name in names], dtype=object)
        renamed = pd.Series(shown[codes], index=column.index, name=column.name)
    return frame.assign(strategy=renamed), aliases


def _sections(report: Report) -> list[Section]:
    """The findings, then each heading of the registry (in order of first use) with the
    blocks of every section under it, then the other sections' pointers to it."""
    t = report.tables
    sections: dict[str, Section] = {}
    for spec in SECTIONS:
        key, title = spec.heading
        if key not in sections:
            sections[key] = Section(key, title)
        spec.fill(sections[key], report)
    for spec in SECTIONS:
        if spec.see_also is not None:
            key, table, text = spec.see_also
            if table in t:
                sections[key].blocks.append(("text", text))
    return [findings_section(report), *sections.values()]
