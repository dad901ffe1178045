"""Several player counts in one report (``report --players 2,3,4``): the key tables of each
count side by side. Not in the section registry: it reads whole reports, one per count,
not result rows; the rest of the combined report is the largest count's."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sunset_sim.analysis.report.findings import findings_section
from sunset_sim.analysis.report.model import Report, Section

# (table, key column, measures, what the measures rest on): the columns put side by side,
# with their CIs, each count's sample size (its column, or the smaller group's) and notes
# (a figure left out as too few samples says why in each count's own column)
SIDE_BY_SIDE = (
    ("strategies", "strategy", ("win_share", "vs_field"), ("n", "note")),
    ("plan_cards", "plan", ("pick_rate", "win_effect"), ("n_smaller", "note")),
    ("study_plan", "card", ("value",), ("n", "note")),
    ("study_commission", "card", ("value_per_fame",), ("n", "note")),
)


def side_by_side(reports: dict[int, Report]) -> dict[str, pd.DataFrame]:
    """One table per key table: a row per item, ``MEASURE_Np`` (with ``_ci_low``/``_ci_high``) per
    player count; and the seat Balance of every count."""
    tables: dict[str, pd.DataFrame] = {}
    for name, key, measures, rests_on in SIDE_BY_SIDE:
        parts = []
        for players, report in reports.items():
            table = report.tables.get(name)
            if table is None or key not in table:
                continue
            columns = {}
            for measure in measures:
                for suffix in ("", "_ci_low", "_ci_high"):
                    if f"{measure}{suffix}" in table:
                        columns[f"{measure}{suffix}"] = f"{measure}_{players}p{suffix}"
            for column in rests_on:
                if column in table:
                    columns[column] = f"{column}_{players}p"
            parts.append(table.set_index(key)[list(columns)].rename(columns=columns))
        if parts:
            merged = pd.concat(parts, axis=1).reset_index()
            for column in merged.columns:  # (an item missing at one count: still whole)
                if column.startswith("n_"):
                    merged[column] = merged[column].astype("Int64")
            tables[f"players_{name}"] = merged
    rows = []
    for players, report in reports.items():
        balance = report.tables.get("balance")
        if balance is not None:
            row = balance.iloc[0]
            rows.append(
                {
                    "players": players,
                    "games": int(report.meta["games"]),
                    "balance": row["balance"],
                    "balance_ci_low": row["balance_ci_low"],
                    "balance_ci_high": row["balance_ci_high"],
                    "caveat": row.get("caveat", ""),
                }
            )
    if rows:
        tables["players_balance"] = pd.DataFrame(rows)
    return tables


def player_counts_section(
    reports: dict[int, Report],
    tables: dict[str, pd.DataFrame],
    study_folders: dict[int, str] | None = None,
) -> Section:
    counts = ", ".join(str(p) for p in reports)
    shown = max(reports)
    s = Section("player-counts", f"Player counts side by side ({counts})")
    text = (
        f"The same field at {counts} players, each count its own games (and study, where "
        f"one was run); columns end in the player count. The other sections show the "
        f"{shown}-player games."
    )
    for players, folder in sorted((study_folders or {}).items()):
        text += (
            f" The {players}-player study's files (values, targets and verified suggestions: "
            f"suggestions.csv, suggested-cards.toml, study.md) are in {folder}."
        )
    s.blocks.append(("text", text))
    titles = {
        "players_balance": "Seat Balance (1 - the largest gap between seats' win rates):",
        "players_strategies": "Win share and vs_field per strategy:",
        "players_plan_cards": "Plan cards: pick rate and win_effect (within strategy):",
        "players_study_plan": "Plan cards: restricted-play value (points):",
        "players_study_commission": "Commissions: restricted-play value per fame point:",
    }
    for name, title in titles.items():
        if name in tables:
            s.blocks += [("text", title), ("table", name)]
    return s


def combine(reports: dict[int, Report], study_folders: dict[int, str] | None = None) -> Report:
    """The largest count's report with the side-by-side section after the findings;
    ``study_folders``: where the other counts' study files were written, to say so."""
    shown = max(reports)
    base = reports[shown]
    tables = side_by_side(reports)
    base.tables.update(tables)
    # each finding names its player count, and the other counts' studies' cards outside
    # their targets are findings too (they were in their study.md alone, and the findings
    # of the largest count read as the whole report's)
    base.findings = [replace(f, text=f"{shown} players: {f.text}") for f in base.findings] + [
        replace(f, text=f"{players} players: {f.text}")
        for players in sorted(reports, reverse=True)
        if players != shown
        for f in reports[players].findings
        if f.kind == "card value"
    ]
    assert base.sections[0].key == "findings"
    base.sections[0] = findings_section(base)
    base.sections.insert(1, player_counts_section(reports, tables, study_folders))
    base.meta["player_counts"] = list(reports)
    # every count's source (the header gave the largest count's alone, for all of them)
    sources = {players: reports[players].meta.get("source") for players in sorted(reports)}
    if all(sources.values()):
        base.meta["source"] = "; ".join(f"{p} players: {text}" for p, text in sources.items())
    return base
