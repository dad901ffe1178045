"""Commissions: how often each was shown and completed, when, the completer's win share
against the seats that saw it and did not complete it, and its pricing against the
completion rate the other commissions' fame per painting predicts (over- and under-priced
flags, in the study's sense: a commission's fame too high or too low for what it asks)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.checks import _days_of, _words
from sunset_sim.analysis.report.clustered import over_games
from sunset_sim.analysis.report.data import (
    _bonferroni_z,
    _ci_columns,
    _Data,
    _effect_columns,
    _mark,
    _moments,
    _pool,
    _within,
    bit_sums,
)
from sunset_sim.analysis.report.model import (
    TOO_FEW,
    WITHIN,
    Candidate,
    Finding,
    Report,
    Section,
    SectionSpec,
    Tables,
    _points,
    effect_candidates,
)
from sunset_sim.analysis.report.plotting import GREY, _figure, _labelled_points, _png
from sunset_sim.analysis.stats import ends_text


def commission_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    """Per commission: how often it was shown and completed, when, and the completer's
    win share against seats that saw it and did not complete it (raw and within strategy).

    With ``commissions_shown_*`` (the commissions in the row on a day played) the
    completion rate is completed / shown; older results fall back to completed / games."""
    frame, cards = data.frame, data.cards
    n_comm = len(cards.commissions)
    days = _days_of(frame, "commissions_day")
    day_counts = np.zeros((n_comm, len(days)))
    completed = None
    for j, day in enumerate(days):
        words = _words(frame, f"commissions_day{day}_")
        completed = words if completed is None else completed | words
        day_counts[:, j] = bit_sums(words, np.ones(len(frame)), n_comm)[:, 0]
    shown = _words(frame, "commissions_shown_")
    if shown is not None and shown.shape[1] != completed.shape[1]:
        shown = None  # a different layout: not comparable bit for bit
    # the seats compared with the completers: those that saw it (or, without the shown
    # column, every other seat) and did not complete it
    other = (shown if shown is not None else ~np.zeros_like(completed)) & ~completed
    moments = _moments(data.win)
    win_split = bit_sums(completed, moments, n_comm, data.strategy, data.k)
    other_split = bit_sums(other, moments, n_comm, data.strategy, data.k)
    win, rest = _pool(win_split, 3), _pool(other_split, 3)
    effect = _within(win_split, other_split, min_n=min_samples)
    # win share's intervals over games (a game's completer and the others share its win)
    effect = over_games(effect, win_split, other_split, completed, other, data, min_n=min_samples)
    raw = stats.diff_ci_sums(*win[:, :3].T, *rest[:, :3].T, rate=True)
    raw = over_games(raw, win, rest, completed, other, data, stratified=False)
    if shown is not None:
        first_seat = shown[:: data.players]  # the same on each seat's row of a game
        shown_games = bit_sums(first_seat, np.ones(len(first_seat)), n_comm)[:, 0]
    day_values = np.array(days, dtype=np.float64)
    rows = []
    for i, card in enumerate(cards.commissions):
        k = day_counts[i].sum()
        day = stats.mean_ci_sums(k, day_counts[i] @ day_values, day_counts[i] @ day_values**2)
        completer = stats.rate_ci_sums(*win[i])
        diff = [v[i] for v in raw]
        row = {
            "commission": card.id,
            "fame": card.fame,
            "paintings": len(card.frames),
            "fame_per_painting": card.fame / len(card.frames),
            "n": int(k),
            "games": data.games,
        }
        if shown is not None:
            n_shown = max(shown_games[i], k)  # completed implies shown
            row["n_shown"] = int(n_shown)
            row.update(_ci_columns("shown_rate", *stats.proportion_ci(n_shown, data.games)))
            row.update(_ci_columns("completion_rate", *stats.proportion_ci(k, n_shown)))
        else:
            row.update(_ci_columns("completion_rate", *stats.proportion_ci(k, data.games)))
        row.update(
            {
                **_ci_columns("day_completed", *day),
                **_ci_columns("completer_win", *completer),
                **_effect_columns("completer_win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("completer_win_diff", *diff[:3]),
                "completer_win_diff_p": diff[3],
            }
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    table = _mark(table, "n", min_samples, "completer_win_effect")
    _pricing(table, min_samples)
    return {"commissions": table}


def _pricing(table: pd.DataFrame, min_samples: int) -> None:
    """Over/under-priced: each commission's completion rate and completer win share
    against a straight-line fit on fame per painting over the other commissions.

    A positive completion residual means it is completed more often than that line
    predicts at its fame per painting: easy fame, so its fame is high for what it asks
    (over-priced, as the study says of a commission whose fame is too high; the flags
    read the other way round before, against the study's); negative, under-priced. Flagged
    when the residual's z (sampling error of the rate and of the fit) exceeds 1.96 after a
    Bonferroni correction over the commissions. A completion rate rests on the games the
    commission was shown in, not on its completions: one shown in thousands of games and
    never completed is the clearest under-pricing there is (it was left out as "too few
    samples", which counts completions, for the completer's win share)."""
    x = table["fame_per_painting"].to_numpy(dtype=np.float64)
    measured = _rate_measured(table, min_samples)
    table["rate_note"] = np.where(measured, "", TOO_FEW)
    # the row's note is then the completer's win share's (its completions): a row read
    # "under-priced, too few samples" (C02 never completed in 203 games shown)
    few_wins = (table["note"] == TOO_FEW).to_numpy()  # (not a within-strategy note alone)
    table.loc[few_wins & measured, "note"] = f"completer's win: {TOO_FEW}"
    m = max(int(measured.sum()), 1)
    threshold = abs(stats.Z95) if m == 1 else _bonferroni_z(m)
    for column, residual_name, ok in (
        ("completion_rate", "completion_residual", measured),
        ("completer_win", "win_residual", ~few_wins),
    ):
        y = table[column].to_numpy(dtype=np.float64)
        se = (table[f"{column}_ci_high"] - table[f"{column}_ci_low"]).to_numpy(dtype=np.float64) / (
            2 * stats.Z95
        )
        residual = np.full(len(table), np.nan)
        z = np.full(len(table), np.nan)
        for i in range(len(table)):
            others = ok.copy()
            others[i] = False
            others &= np.isfinite(y)
            if others.sum() < 3 or not np.isfinite(y[i]) or np.ptp(x[others]) == 0:
                continue
            # no residual far outside the others' fame per painting (past half their range
            # beyond either end): C05 at fame 20 (no other near it) was "+108.8 points"
            # over a line extrapolated to a rate of -9%, and at fame 9 "under-priced"
            # against a predicted 106.9%
            reach = 0.5 * np.ptp(x[others])
            if not x[others].min() - reach <= x[i] <= x[others].max() + reach:
                continue
            slope, intercept = np.polyfit(x[others], y[others], 1)
            fitted = slope * x[others] + intercept
            spread = np.sqrt(((y[others] - fitted) ** 2).sum() / max(others.sum() - 2, 1))
            residual[i] = y[i] - min(max(slope * x[i] + intercept, 0.0), 1.0)  # (rates)
            # leave-one-out prediction: the commission's sampling error and the scatter of
            # the others about the line (the line itself is uncertain too)
            z[i] = residual[i] / math.hypot(se[i], spread) if math.hypot(se[i], spread) else 0
        table[residual_name] = residual
        table[f"{residual_name}_z"] = z
    flag = np.full(len(table), "", dtype=object)
    zc = table["completion_residual_z"].to_numpy()
    flag[(zc > threshold) & measured] = "over-priced"
    flag[(zc < -threshold) & measured] = "under-priced"
    table["price_flag"] = flag


def _rate_measured(table: pd.DataFrame, min_samples: int) -> np.ndarray:
    """Whether each completion rate rests on enough games (those it was shown in, or
    every game for older results)."""
    games = table["n_shown"] if "n_shown" in table else table["games"]
    return games.to_numpy() >= min_samples


def column_notes(tables: Tables) -> list[str]:
    """What older results (no commissions_shown_* columns) change in the table."""
    notes = []
    if "commissions" in tables and "n_shown" not in tables["commissions"]:
        notes.append(
            "commissions: the results have no commissions_shown_* column (older results), so "
            "completion rate is completed / all games, not completed / games it was shown in, "
            "and the completer is compared with every other seat"
        )
    return notes


def fill(s: Section, report: Report) -> None:
    t = report.tables
    if "commissions" in t:
        s.blocks += [
            (
                "text",
                (
                    "Commissions: shown rate (share of games it was in the row on a day "
                    "played), completion rate (completed / games it was shown in), "
                    if "n_shown" in t["commissions"]
                    else "Commissions: completion rate over all games (these results do not "
                    "record which commissions were shown), "
                )
                + "mean day completed, the completer's win share and its difference from "
                "seats that saw it and did not complete it (completer_win_effect within each "
                "strategy, completer_win_diff raw), and pricing against a straight line "
                "fitted to the other commissions' completion rates by fame per painting "
                "(completion_residual: positive = completed more often than the line predicts "
                "at its fame per painting: easy fame, flagged over-priced (its fame "
                "high for what it asks) when significant after a Bonferroni correction; "
                "under-priced when negative).",
            ),
            ("table", "commissions"),
            ("plot", "commission_pricing", "Commission pricing"),
        ]


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    return effect_candidates(
        tables,
        "commissions",
        lambda r: f"commission {r.commission} (fame {r.fame})",
        "completer_win_effect",
        "points of win share per fame point for the seat that completes it vs seats that "
        f"did not, {WITHIN}",
        "n_effect",
        "completer_win_diff",
        min_samples=min_samples,
        per="fame",
    )


def price_findings(tables: Tables, per_kind_limit: int) -> list[Finding]:
    """The commissions flagged under- or over-priced, the largest residual first (the
    flags already carry their own Bonferroni correction)."""
    findings = []
    commissions = tables.get("commissions")
    if commissions is not None and "price_flag" in commissions:
        flagged = commissions[commissions["price_flag"] != ""]
        flagged = flagged.reindex(
            flagged["completion_residual_z"].abs().sort_values(ascending=False).index
        )
        shown = "n_shown" in flagged
        for _, row in flagged.head(per_kind_limit).iterrows():
            base = "of the games it was shown in" if shown else "of games"
            n = int(row.n_shown) if shown else int(row.games)
            findings.append(
                Finding(
                    f"commission {row.commission} (fame {row.fame}, {row.fame_per_painting:.1f} "
                    f"per painting) looks {row.price_flag}: completed in "
                    f"{100 * row.completion_rate:.1f}% {base} (95% CI "
                    f"{ends_text(row.completion_rate_ci_low, row.completion_rate_ci_high, 1, 100)}"
                    "), "
                    f"{_points(row.completion_residual)} points against the rate the other "
                    "commissions predict at its fame per painting (a line fitted over them), "
                    f"n = {n:,} games",
                    "commission_price",
                    float(row.completion_residual),
                    math.nan,
                    math.nan,
                    n,
                    math.nan,
                )
            )
    return findings


def commission_pricing(tables) -> bytes:
    table = tables["commissions"]
    figure, axes = _figure(11, 4.5, ncols=2)
    shown = "games shown" if "n_shown" in table else "games"
    rates = ("completion_rate", "completer_win")  # in %, as the table shows them
    table = table.assign(
        **{
            f"{c}{end}": 100 * table[f"{c}{end}"]
            for c in rates
            for end in ("", "_ci_low", "_ci_high")
        }
    )
    for axis, column, label, note_column in (
        (axes[0], "completion_rate", f"completion rate (% of {shown})", "rate_note"),
        (axes[1], "completer_win", "completer's win share (%)", "note"),
    ):
        # grey where the value's own sample is too small: the games shown for the rate
        # (the price flags are set on those), the completions for the win share
        notes = table[note_column] if note_column in table else table["note"]
        small = (notes != "").to_numpy()
        colours = [
            GREY if is_small else {"under-priced": "C2", "over-priced": "C3"}.get(flag, "C0")
            for is_small, flag in zip(
                small, table.get("price_flag", [""] * len(table)), strict=True
            )
        ]
        x = table["fame_per_painting"].to_numpy(dtype=float)
        _labelled_points(
            axis, table, column, "commission", x, colours, capsize=2, fontsize=7, offset=2
        )
        # the line of the commissions not flagged, as each flag is judged against the
        # others' line (a fit over all drew C05 at fame 20 beside a line it pulled to
        # itself, while its table residual was +108.8 points)
        flags = np.asarray(table.get("price_flag", pd.Series("", index=table.index)))
        finite = np.isfinite(table[column].to_numpy(dtype=float)) & ~small & (flags == "")
        if finite.sum() >= 2 and np.ptp(x[finite]) > 0:
            slope, intercept = np.polyfit(x[finite], table[column].to_numpy(dtype=float)[finite], 1)
            grid = np.linspace(x.min(), x.max(), 20)
            axis.plot(grid, slope * grid + intercept, color="black", linewidth=0.8)
        axis.set_xlabel("fame per painting handed in")
        axis.set_ylabel(label)
    figure.suptitle(
        f"Commission pricing (n = {int(table['games'].iloc[0]):,} games; green under-priced, "
        "red over-priced, grey too few samples)",
        fontsize=10,
    )
    return _png(figure)


SECTION = SectionSpec(
    name="commissions",
    needs=("commissions_day*_*",),
    heading=("card-value", "Card value"),
    compute=commission_tables,
    fill=fill,
    plots={"commission_pricing": (("commissions",), commission_pricing)},
    kinds={"commissions": "commission"},
    candidates=finding_candidates,
    flagged=price_findings,
    notes=column_notes,
)
