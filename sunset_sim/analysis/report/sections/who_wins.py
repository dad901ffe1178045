"""Who wins: win share and mean fame per strategy against the field, the score
distribution per strategy, and where the fame comes from (commissions, goals, paintings)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.data import _ci_columns, _Data, _group_sums, _mark
from sunset_sim.analysis.report.model import (
    Candidate,
    Report,
    Section,
    SectionSpec,
    Tables,
    effect_candidates,
)
from sunset_sim.analysis.report.plotting import _errors, _figure, _png


def versus_field(data: _Data) -> np.ndarray:
    """Per row: the seat's win share minus the mean win share of the other seats in the
    same game (what vs_field's text says), so a strategy is compared with its own
    opponents, not with every other seat of the whole run."""
    shares = data.per_game(data.win)
    others = (shares.sum(axis=1, keepdims=True) - shares) / max(data.players - 1, 1)
    return (shares - others).ravel()


def field_interval(diff: tuple, win: tuple, players: int) -> tuple:
    """vs_field's normal interval, widened to hold its win share's Wilson interval
    mapped onto it: a game's shares sum to 1, so a row's vs_field is (p x share - 1) /
    (p - 1). A strategy that never won had the same vs_field in every row and a
    zero-width interval (-33.3 to -33.3 in 2,000 4-player games; its win share 0 to
    0.0019). Kept within what vs_field can take, -1 / (p - 1) to 1 (a tester read
    -100.5 to -95.2 points at 2 players: the normal interval is not bounded)."""
    if players < 2 or not all(np.isfinite(win)):
        return diff
    low, high = ((players * w - 1) / (players - 1) for w in win[1:3])
    floor = -1.0 / (players - 1)
    # (fmin, fmax: one game has no normal interval, only the Wilson one)
    return (
        diff[0],
        max(float(np.fmin(diff[1], low)), floor),
        min(float(np.fmax(diff[2], high)), 1.0),
    )


def interval_p(diff: tuple) -> float:
    """A two-sided p-value that agrees with the 95% CI (below 0.05 exactly when the CI
    leaves out 0): its standard error from the half of the interval that faces 0. The
    interval is lopsided where it holds the Wilson one (``field_interval``), and its
    mean half-width gave p = 0.003 beside a CI of -0.315 to 1.0."""
    toward = diff[0] - diff[1] if diff[0] >= 0 else diff[2] - diff[0]
    se = toward / stats.Z95 if np.isfinite(toward) else math.nan
    return float(stats.z_test_p(diff[0], se))


def strategy_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame = data.frame
    codes, labels, k = data.strategy, data.strategies, data.k
    n, sw, qw = _group_sums(codes, data.win, k)
    _, sf, qf = _group_sums(codes, data.fame, k)
    rows = []
    vs_field = versus_field(data)
    _, sd, qd = _group_sums(codes, vs_field, k)
    for i, label in enumerate(labels):
        win = stats.rate_ci_sums(n[i], sw[i], qw[i])
        fame = stats.mean_ci_sums(n[i], sf[i], qf[i])
        diff = field_interval(stats.mean_ci_sums(n[i], sd[i], qd[i]), win, data.players)
        rows.append(
            {
                "strategy": label,
                "n": int(n[i]),
                **_ci_columns("win_share", *win),
                **_ci_columns("mean_fame", *fame),
                **_ci_columns("vs_field", *diff),
                "vs_field_p": interval_p(diff),
            }
        )
    table = pd.DataFrame(rows)
    table = _mark(table, "n", min_samples, "win_share").sort_values(
        ["rank", "win_share"], ascending=[True, False], na_position="last", ignore_index=True
    )
    tables = {"strategies": table}
    parts = [c for c in ("fame_commissions", "fame_goals", "fame_paintings") if c in frame]
    if parts:
        rows = []
        for column in parts:
            values = frame[column].to_numpy().astype(np.float64)
            gn, gs, gq = _group_sums(codes, values, k)
            for i, label in enumerate(labels):
                mean = stats.mean_ci_sums(gn[i], gs[i], gq[i])
                share = gs[i] / sf[i] if sf[i] else math.nan
                rows.append(
                    {
                        "strategy": label,
                        "source": column.removeprefix("fame_"),
                        "n": int(gn[i]),
                        **_ci_columns("mean_fame", *mean),
                        "share_of_fame": share,
                    }
                )
        tables["fame_sources"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
    fame_int = data.fame.astype(np.int64)
    low = int(fame_int.min())
    counts = []
    for i, label in enumerate(labels):
        bins = np.bincount(fame_int[codes == i] - low)
        nz = np.nonzero(bins)[0]
        counts.append(
            pd.DataFrame(
                {
                    "strategy": label,
                    "fame": nz + low,
                    "count": bins[nz],
                    "share": bins[nz] / max(bins.sum(), 1),
                }
            )
        )
    tables["fame_distribution"] = pd.concat(counts, ignore_index=True)
    return tables


def fill(s: Section, report: Report) -> None:
    t = report.tables
    s.blocks.append(
        (
            "text",
            "Win share counts a k-way tie as 1/k of a win; vs_field is a seat's win share "
            "minus the mean win share of the other seats in the same game (its own "
            "opponents), averaged over the strategy's seats. A strategy in several seats "
            "counts once per seat.",
        )
    )
    s.blocks += [("table", "strategies"), ("plot", "fame_distribution", "Score distributions")]
    if "fame_sources" in t:
        s.blocks += [
            ("text", "Where fame comes from (mean fame per seat and share of all fame):"),
            ("table", "fame_sources"),
            ("plot", "fame_sources", "Where fame comes from"),
        ]


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    # where each seat held one strategy, a strategy's lead is its seat's too (the report
    # withholds Balance then; a finding read alone named goal-chaser's +16.8 from seat 2)
    seats = " (each seat held one strategy: its seat's advantage is in it)" if confounded else ""
    return effect_candidates(
        tables,
        "strategies",
        lambda r: f"strategy {r.strategy}",
        "vs_field",
        "points of win share against the rest of the field" + seats,
        min_samples=min_samples,
    )


def fame_distribution(tables) -> bytes:
    counts = tables["fame_distribution"]
    figure, (axis,) = _figure(10, 4.5)
    for i, (label, group) in enumerate(counts.groupby("strategy", sort=False, observed=True)):
        n = int(group["count"].sum())
        axis.step(
            group["fame"], group["share"], where="mid", color=f"C{i}", label=f"{label} (n = {n:,})"
        )
    axis.set_xlabel("final fame")
    axis.set_ylabel("share of seats")
    axis.set_title("Score distribution per strategy")
    # beside the axes, not over the peaks
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(figure)


def fame_sources(tables) -> bytes:
    table = tables["fame_sources"]
    strategies = list(dict.fromkeys(table["strategy"]))
    figure, (axis,) = _figure()
    bottom = np.zeros(len(strategies))
    for i, (source, group) in enumerate(table.groupby("source", sort=False)):
        group = group.set_index("strategy").loc[strategies].reset_index()
        values = group["mean_fame"].to_numpy(dtype=float)
        axis.bar(
            strategies,
            values,
            bottom=bottom,
            color=f"C{i}",
            label=source,
            yerr=_errors(group, "mean_fame"),
            capsize=3,
        )
        bottom += values
    n = int(table.groupby("strategy")["n"].first().min())
    axis.set_ylabel("mean fame per seat (95% CI)")
    axis.set_title(f"Where fame comes from (n >= {n:,} seats per strategy)")
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    axis.tick_params(axis="x", labelrotation=20)
    return _png(figure)


SECTION = SectionSpec(
    name="who wins",
    needs=(),
    heading=("who-wins", "Who wins"),
    compute=strategy_tables,
    fill=fill,
    plots={
        "fame_distribution": (("fame_distribution",), fame_distribution),
        "fame_sources": (("fame_sources",), fame_sources),
    },
    kinds={"strategies": "strategy"},
    candidates=finding_candidates,
)
