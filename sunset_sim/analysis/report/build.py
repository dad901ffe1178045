"""``build_report``: every section's tables from the result rows (sections whose columns
are missing are skipped with a note), the findings across them, and the report's
sections in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from sunset_sim.analysis.report.data import _match, _prepare
from sunset_sim.analysis.report.findings import _findings, findings_section
from sunset_sim.analysis.report.model import MIN_SAMPLES, Report, Section
from sunset_sim.analysis.report.sections import SECTIONS
from sunset_sim.analysis.report.sections.card_values import study_section, study_tables
from sunset_sim.cards.model import CardSet


def build_report(
    frame: pd.DataFrame,
    cards: CardSet,
    min_samples: int = MIN_SAMPLES,
    max_findings: int = 18,
    title: str = "Sunset over Water balance report",
    source: str = "",
    on_step: Callable[[str], None] | None = None,
    study=None,
) -> Report:
    """Every table of the report from the result rows and the card set they used.

    Sections whose columns are missing are skipped with a note (``Report.notes``).
    ``study`` (``analysis.study.Study``): its card values, targets and verified
    suggestions become the report's "Card values and rebalance suggestions" section."""
    data = _prepare(frame, cards)
    tables: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
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
    for spec in SECTIONS:
        if spec.notes is not None:
            notes += spec.notes(tables)
    seat_strategies = data.frame.groupby("seat", observed=True)["strategy"].nunique()
    confounded = bool(
        (seat_strategies == 1).all() and data.frame["strategy"].astype(str).nunique() > 1
    )
    if confounded:
        notes.append(
            "each seat held one strategy in every game, so seat differences (and Balance) mix "
            "seat advantage with strategy strength; rotate seats (`sunset-sim tournament`) "
            "or seat one strategy everywhere to measure seat fairness"
        )
    findings = _findings(tables, max_findings, confounded=confounded, min_samples=min_samples)
    meta = {
        "title": title,
        "source": source,
        "games": data.games,
        "players": data.players,
        "rows": len(data.frame),
        "strategies": list(dict.fromkeys(data.frame["strategy"].astype(str))),
        "cards": f"{cards.name} ({cards.content_hash[:12]})",
        "min_samples": min_samples,
        "seats_confounded": confounded,
        "mixed_field": len(data.strategies) > 1,
    }
    report = Report(tables, findings, [], meta, notes)
    report.sections = _sections(report)
    if study is not None:
        report.tables.update(study_tables(study))
        report.sections.insert(1, study_section(study))
    return report


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
