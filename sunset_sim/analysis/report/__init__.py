"""The balance report: result rows (one per game and seat) + the card set -> named tables,
findings and a self-contained Markdown/HTML report with plots.

Everything here is vectorised over rows (groupby, bincount, bit matrices times value
columns), so a million 4-player games (4M rows) are summarised in a minute or so. Each
section needs certain columns; a section whose columns are missing (result files from
older versions) is skipped with a note instead of failing.

Every estimate carries n and a 95% CI (``analysis.stats``); groups with fewer than
``min_samples`` observations are marked "too few samples" and never ranked or reported
as findings. The results describe the strategies (bots) that played, not human play.

Layout: ``sections/`` holds one module per section (its tables, report blocks, plots and
finding candidates) and the registry ``SECTIONS``; ``data`` the per-game data and shared
sums; ``findings`` the selection across sections; ``build`` puts the report together;
``render`` draws plots and writes Markdown and HTML; ``files`` reads results and writes
the report's files.
"""

from __future__ import annotations

from sunset_sim.analysis.report.build import build_report
from sunset_sim.analysis.report.data import (
    BASE_COLUMNS,
    DAY_PATTERNS,
    OPTIONAL_COLUMNS,
    bit_sums,
    check_columns,
    wanted_columns,
)
from sunset_sim.analysis.report.files import read_results, write_report
from sunset_sim.analysis.report.findings import FINDING_KINDS, _findings
from sunset_sim.analysis.report.model import (
    MIN_SAMPLES,
    RESULTS_NOTE,
    TOO_FEW,
    WITHIN_NOTE,
    Finding,
    Report,
    ReportInputError,
    Section,
    SectionSpec,
)
from sunset_sim.analysis.report.render import (
    PLOTS,
    display_table,
    render_all,
    render_html,
    render_markdown,
)
from sunset_sim.analysis.report.sections import SECTIONS
from sunset_sim.analysis.report.sections.card_values import study_section, study_tables
from sunset_sim.analysis.report.sections.commissions import commission_tables
from sunset_sim.analysis.report.sections.fairness import fairness_tables
from sunset_sim.analysis.report.sections.goals import goal_tables
from sunset_sim.analysis.report.sections.landscapes import landscape_tables
from sunset_sim.analysis.report.sections.plans import plan_tables
from sunset_sim.analysis.report.sections.who_wins import strategy_tables

__all__ = [
    "BASE_COLUMNS",
    "DAY_PATTERNS",
    "FINDING_KINDS",
    "MIN_SAMPLES",
    "OPTIONAL_COLUMNS",
    "PLOTS",
    "RESULTS_NOTE",
    "SECTIONS",
    "TOO_FEW",
    "WITHIN_NOTE",
    "Finding",
    "Report",
    "ReportInputError",
    "Section",
    "SectionSpec",
    "_findings",
    "bit_sums",
    "build_report",
    "check_columns",
    "commission_tables",
    "display_table",
    "fairness_tables",
    "goal_tables",
    "landscape_tables",
    "plan_tables",
    "read_results",
    "render_all",
    "render_html",
    "render_markdown",
    "strategy_tables",
    "study_section",
    "study_tables",
    "wanted_columns",
    "write_report",
]
