"""Findings: the strongest effects across every section, selected together (one
Bonferroni correction over all candidates, every kind's best first, at most a few per
kind), and the report section that lists them."""

from __future__ import annotations

import math

import pandas as pd

from sunset_sim.analysis.report.data import _bonferroni_z
from sunset_sim.analysis.report.model import (
    MIN_GROUP,
    MIN_SAMPLES,
    RESULTS_NOTE,
    TOO_FEW,
    WITHIN_NOTE,
    Candidate,
    Finding,
    Report,
    Section,
    _points,
)
from sunset_sim.analysis.report.sections import SECTIONS
from sunset_sim.analysis.stats import ends_text

# The kinds of finding, in the order they are listed; each gets up to ``per_kind_limit``.
FINDING_KINDS = {table: kind for spec in SECTIONS for table, kind in spec.kinds.items()}


def _findings(
    tables: dict[str, pd.DataFrame],
    limit: int,
    per_kind_limit: int = 3,
    confounded: bool = False,
    min_samples: int = MIN_SAMPLES,
    min_group: int = MIN_GROUP,
) -> list[Finding]:
    """The strongest effects: significant after a Bonferroni correction over every
    candidate, groups with enough samples only, and never an effect whose smaller group
    (with vs without) has fewer than ``min_group`` observations: such an effect stays in
    its table but is not listed. Effects that a strategy's choices could confound are the
    within-strategy (stratified) ones. Every kind gets its strongest effect listed before
    any kind gets a second, and no kind more than ``per_kind_limit``; within a kind the
    larger effects come first."""
    candidates: list[Candidate] = []
    for spec in SECTIONS:
        if spec.candidates is not None:
            candidates += spec.candidates(tables, confounded, min_samples)
    candidates = [c for c in candidates if c[8] is None or c[8] >= min_group]
    findings = []
    if candidates:
        threshold = _bonferroni_z(len(candidates))
        p_limit = math.erfc(threshold / math.sqrt(2))
        kept = [c for c in candidates if c[6] <= p_limit]
        kept.sort(key=lambda c: -abs(c[2]))
        order = list(dict.fromkeys(FINDING_KINDS.values()))
        by_kind: dict[str, list] = {kind: [] for kind in order}
        for candidate in kept:
            by_kind[FINDING_KINDS[candidate[1]]].append(candidate)
        chosen: dict[str, list] = {kind: [] for kind in order}
        count = 0
        for rank in range(per_kind_limit):  # round by round: every kind's best first
            for kind in order:
                if rank < len(by_kind[kind]) and count < limit:
                    chosen[kind].append(by_kind[kind][rank])
                    count += 1
        for kind in order:
            for label, name, effect, lo, hi, n, p, unit, smaller in chosen[kind]:
                text = (
                    f"{label}: {_points(effect)} {unit}, 95% CI {ends_text(lo, hi, 1, 100)}, "
                    f"n = {n:,}"
                    + (
                        f", smaller group n = {smaller:,} (within strategies)"
                        if smaller is not None
                        else ""
                    )
                )
                findings.append(Finding(text, name, effect, lo, hi, n, p))
    for spec in SECTIONS:
        if spec.flagged is not None:
            findings += spec.flagged(tables, per_kind_limit)
    return findings


def findings_section(report: Report) -> Section:
    """The findings, first in the report, with how they were chosen."""
    meta = report.meta
    s = Section("findings", "Findings")
    if report.findings:
        s.blocks.append(("list", [f.text for f in report.findings]))
    else:
        s.blocks.append(("text", "No effect is significant at these sample sizes."))
    s.blocks.append(
        (
            "text",
            f"Effects are listed when significant at the 5% level after a Bonferroni "
            f"correction over every candidate effect (a commission's price flag, over the "
            f"commissions alone), the strongest of each kind first (at most "
            f"three per kind); groups with fewer than {meta['min_samples']} "
            f'samples are marked "{TOO_FEW}" and never ranked or listed, and an effect whose '
            f"smaller group (with vs without, within each strategy and summed over them) has "
            f"fewer than {meta.get('min_group', MIN_GROUP):,} observations is shown in its "
            "table (n_smaller) but never listed here. Effects that "
            "follow from a card's fame (completing a commission, keeping a goal) are given per "
            "fame point. " + (WITHIN_NOTE + " " if meta.get("mixed_field") else "") + RESULTS_NOTE,
        )
    )
    return s
