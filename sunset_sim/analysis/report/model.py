"""The report's objects (Report, Section, Finding), its shared constants, and what a
section module hands the rest of the report (``SectionSpec``, finding candidates).

Kept apart from the sections so that every section, the findings selection and the
rendering can import them without importing each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from sunset_sim.analysis.stats import MIN_SAMPLES as MIN_SAMPLES  # (defined there: tournament)
from sunset_sim.analysis.stats import TOO_FEW as TOO_FEW
from sunset_sim.validation import InputError

if TYPE_CHECKING:
    from sunset_sim.analysis.report.data import _Data

MIN_GROUP = 1000  # an effect whose smaller group is smaller than this is never a finding
RESULTS_NOTE = (
    "These are results between bots: they describe how these strategies play against "
    "each other, not how people play."
)
WITHIN_NOTE = (
    "Because in a mixed field a raw difference mostly measures which strategies make a "
    "choice, the effect compares seats of the same strategy (chosen vs not chosen by that "
    "strategy) and pools these differences weighted by n (Mantel-Haenszel weights "
    "n1*n0/(n1+n0), 95% CI from the pooled variance; n_effect counts the chosen side in "
    "strategies that made both choices), with the raw difference kept beside it."
)
WITHIN = "within the same strategy"


class ReportInputError(InputError):
    """The rows cannot be reported on (missing columns, inconsistent with the card set)."""


@dataclass
class Finding:
    """One effect: ``effect`` and its CI in the unit named by ``unit``; ``n`` its sample."""

    text: str
    kind: str
    effect: float
    lo: float
    hi: float
    n: int
    p_value: float


@dataclass
class Section:
    key: str
    title: str
    blocks: list[tuple] = field(
        default_factory=list
    )  # ("text", str) | ("table", name) | ("plot", name, title)
    skipped: str | None = None


@dataclass
class Report:
    tables: dict[str, pd.DataFrame]
    findings: list[Finding]
    sections: list[Section]
    meta: dict
    notes: list[str] = field(default_factory=list)
    # plots drawn before the report was complete (render.draw_early): name -> (PNG, tables)
    drawn: dict[str, tuple[bytes, Tables]] = field(default_factory=dict)

    def headline(self) -> pd.DataFrame:
        """Win share and mean fame per strategy with 95% CIs (the table a CLI prints)."""
        columns = ["strategy", "n", "win_share", "win_share_ci_low", "win_share_ci_high"]
        columns += ["mean_fame", "mean_fame_ci_low", "mean_fame_ci_high", "note"]
        return self.tables["strategies"][columns]


# (label, table name, effect, lo, hi, n, p-value, unit text): one effect that may be listed
# label, table, effect, lo, hi, n, p-value, unit text, size of the smaller group (or None)
Candidate = tuple[str, str, float, float, float, int, float, str, int | None]
Tables = dict[str, pd.DataFrame]
PlotFunction = Callable[[Tables], bytes]


@dataclass(frozen=True)
class SectionSpec:
    """One section of the report, as its module declares it (``sections.SECTIONS``).

    ``compute`` runs when the results have every column pattern in ``needs`` (``*`` is a
    number; otherwise a note says which is missing); ``fill`` adds its blocks to the
    report section ``heading`` (key, title), which sections may share. ``plots`` draws
    PNGs from the tables (name -> (tables needed, function)); ``kinds`` maps each table
    whose rows may become findings to its kind, in listing order; ``candidates(tables,
    confounded, min_samples)`` gives those effects for the Bonferroni selection and
    ``flagged(tables, per_kind_limit)`` findings listed as they are after it. ``notes``
    explains what the tables leave out; ``see_also`` (heading key, table, text) adds the
    text at the end of another heading when the table is there."""

    name: str
    needs: tuple[str, ...]
    heading: tuple[str, str]
    compute: Callable[[_Data, int], Tables]
    fill: Callable[[Section, Report], None]
    plots: dict[str, tuple[tuple[str, ...], PlotFunction]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    candidates: Callable[[Tables, bool, int], list[Candidate]] | None = None
    flagged: Callable[[Tables, int], list[Finding]] | None = None
    notes: Callable[[Tables], list[str]] | None = None
    see_also: tuple[str, str, str] | None = None


def effect_candidates(
    tables: Tables,
    table_name: str,
    label_fn: Callable,
    effect: str,
    unit_text: str,
    n_column: str = "n",
    raw: str | None = None,
    *,
    min_samples: int,
    per: str | None = None,
) -> list[Candidate]:
    """The rows of ``tables[table_name]`` with enough samples and a finite ``effect`` (and
    its ``_ci_low``/``_ci_high``/``_p`` columns), as finding candidates; ``raw`` names the raw
    difference quoted beside a within-strategy effect. ``per`` names a column the effect is
    divided by (``fame``: an effect that follows from a card's fame is given per fame point,
    so that an 8-fame card is not a finding merely for giving 8 fame). The last item of a
    candidate is the size of the smaller group (``n_smaller``) where the table has it."""
    candidates: list[Candidate] = []
    table = tables.get(table_name)
    if table is None or effect not in table:
        return candidates
    for _, row in table.iterrows():
        if row.get("note", "") or not np.isfinite(row[effect]):
            continue
        if int(row[n_column]) < min_samples:
            continue
        scale = 1.0
        if per is not None:
            if not row[per] or not np.isfinite(row[per]) or row[per] <= 0:
                continue
            scale = 1.0 / float(row[per])
        unit = unit_text
        if raw is not None and np.isfinite(row[raw]):
            unit += f" (raw difference {_points(row[raw] * scale)})"
        smaller = (
            int(row["n_smaller"]) if "n_smaller" in row and pd.notna(row["n_smaller"]) else None
        )
        candidates.append(
            (
                label_fn(row),
                table_name,
                float(row[effect]) * scale,
                float(row[f"{effect}_ci_low"]) * scale,
                float(row[f"{effect}_ci_high"]) * scale,
                int(row[n_column]),
                float(row[f"{effect}_p"]),
                unit,
                smaller,
            )
        )
    return candidates


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"
