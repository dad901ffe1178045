"""The section registry: every section of the balance report, in report order.

A section module declares one ``SectionSpec`` (its computation, report blocks, plots and
finding candidates); adding a section is adding its module's spec to ``SECTIONS``.
Sections with the same heading share one report section, in this order."""

from __future__ import annotations

from sunset_sim.analysis.report.model import SectionSpec
from sunset_sim.analysis.report.sections import (
    commissions,
    fairness,
    goals,
    landscapes,
    plans,
    who_wins,
)

SECTIONS: list[SectionSpec] = [
    who_wins.SECTION,
    plans.SECTION,
    landscapes.SECTION,
    commissions.SECTION,
    goals.SECTION,
    fairness.SECTION,
]
