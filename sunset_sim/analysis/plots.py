"""The balance report's plots: each a pure function of the report's tables, drawn with
matplotlib's Agg backend (no display needed) and returned as PNG bytes.

Every plot states its n and draws 95% CIs as error bars; groups marked "too few samples"
are drawn grey.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd

GREY = "#aaaaaa"
DPI = 100


def _figure(width: float = 8, height: float = 4.5, ncols: int = 1):
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI)
    axes = figure.subplots(1, ncols, squeeze=False)[0]
    return figure, axes


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _errors(table: pd.DataFrame, column: str, scale: float = 1.0) -> np.ndarray:
    value = table[column].to_numpy(dtype=float)
    lo = table[f"{column}_lo"].to_numpy(dtype=float)
    hi = table[f"{column}_hi"].to_numpy(dtype=float)
    return np.clip(np.nan_to_num(np.vstack([value - lo, hi - value]) * scale), 0.0, None)


def _colours(table: pd.DataFrame, colour: str = "C0") -> list[str]:
    notes = table["note"] if "note" in table else pd.Series([""] * len(table))
    return [GREY if note else colour for note in notes]


def _labelled_points(
    axis,
    table: pd.DataFrame,
    column: str,
    label: str,
    x: np.ndarray,
    colours: list[str],
    capsize: int,
    fontsize: int,
    offset: int,
) -> None:
    """One point per row at (x, ``column``) with its 95% CI error bar, and the row's
    ``label`` written beside it, ``offset`` points up and right."""
    errors = _errors(table, column)
    for i in range(len(table)):
        axis.errorbar(
            x[i],
            table[column].iloc[i],
            yerr=errors[:, i : i + 1],
            fmt="o",
            color=colours[i],
            capsize=capsize,
        )
        axis.annotate(
            table[label].iloc[i],
            (x[i], table[column].iloc[i]),
            fontsize=fontsize,
            xytext=(offset, offset),
            textcoords="offset points",
        )


def fame_distribution(tables) -> bytes:
    counts = tables["fame_distribution"]
    figure, (axis,) = _figure()
    for i, (label, group) in enumerate(counts.groupby("strategy", sort=False, observed=True)):
        n = int(group["count"].sum())
        axis.step(
            group["fame"], group["share"], where="mid", color=f"C{i}", label=f"{label} (n = {n:,})"
        )
    axis.set_xlabel("final fame")
    axis.set_ylabel("share of seats")
    axis.set_title("Score distribution per strategy")
    axis.legend(fontsize="small")
    return _png(figure)


def fame_sources(tables) -> bytes:
    table = tables["fame_sources"]
    strategies = list(dict.fromkeys(table["strategy"]))
    figure, (axis,) = _figure()
    bottom = np.zeros(len(strategies))
    for i, (source, group) in enumerate(table.groupby("source", sort=False)):
        group = group.set_index("strategy").loc[strategies].reset_index()
        values = group["fame"].to_numpy(dtype=float)
        axis.bar(
            strategies,
            values,
            bottom=bottom,
            color=f"C{i}",
            label=source,
            yerr=_errors(group, "fame"),
            capsize=3,
        )
        bottom += values
    n = int(table.groupby("strategy")["n"].first().min())
    axis.set_ylabel("mean fame per seat (95% CI)")
    axis.set_title(f"Where fame comes from (n >= {n:,} seats per strategy)")
    axis.legend(fontsize="small")
    axis.tick_params(axis="x", labelrotation=20)
    return _png(figure)


def plan_tradeoff(tables) -> bytes:
    table = tables["plan_cards"]
    panels = [
        c
        for c in ("turn_position", "cards_painted", "fame_gained", "win_when_chosen", "win_effect")
        if c in table and np.isfinite(table[c].to_numpy(dtype=float)).any()
    ]
    labels = {
        "turn_position": "turn position that day (0 = first)",
        "cards_painted": "cards painted that day",
        "fame_gained": "fame gained that day",
        "win_when_chosen": "win share when chosen",
        "win_effect": "win share: chosen - not, within strategy",
    }
    figure, axes = _figure(3.2 * len(panels), 4, ncols=len(panels))
    x = table["wake_minutes"].to_numpy(dtype=float)
    ticks = table["wake"].tolist()
    colours = _colours(table)
    for axis, column in zip(axes, panels, strict=True):
        _labelled_points(axis, table, column, "plan", x, colours, capsize=3, fontsize=7, offset=3)
        axis.set_xticks(x, ticks, rotation=60, fontsize=7)
        axis.set_xlabel("wake-up time")
        axis.set_title(labels[column], fontsize=9)
    n = int(table["n"].sum())
    figure.suptitle(f"Early rise vs paint power (95% CIs; n = {n:,} plan choices)", fontsize=10)
    return _png(figure)


def landscape_value(tables) -> bytes:
    table = tables["landscapes"]
    # the within-strategy effect when there is one (older tables: the raw difference)
    column = (
        "win_effect"
        if np.isfinite(table.get("win_effect", pd.Series([np.nan]))).any()
        else "win_diff"
    )
    table = table.sort_values(column, na_position="first")
    figure, (axis,) = _figure(8, max(4, 0.16 * len(table) + 1))
    y = np.arange(len(table))
    colours = _colours(table)
    errors = _errors(table, column, 100)
    for i in range(len(table)):
        axis.errorbar(
            100 * table[column].iloc[i],
            y[i],
            xerr=errors[:, i : i + 1],
            fmt="o",
            color=colours[i],
            markersize=3,
            capsize=2,
        )
    if column == "win_effect":
        axis.plot(100 * table["win_diff"], y, "x", color="C1", markersize=3, label="raw")
        axis.legend(fontsize=7, loc="lower right")
    axis.set_yticks(
        y, [f"{c} {f}" for c, f in zip(table["card"], table["features"], strict=True)], fontsize=6
    )
    axis.axvline(0, color="black", linewidth=0.8)
    within = ", within strategy" if column == "win_effect" else ""
    axis.set_xlabel(
        f"points of win share: painted minus available and passed over{within} (95% CI)"
    )
    n = int(table["n"].sum())
    axis.set_title(f"Landscape value (n = {n:,} paintings; grey: too few samples)", fontsize=10)
    return _png(figure)


def commission_pricing(tables) -> bytes:
    table = tables["commissions"]
    figure, axes = _figure(11, 4.5, ncols=2)
    shown = "games shown" if "n_shown" in table else "games"
    for axis, column, label in (
        (axes[0], "completion_rate", f"completion rate (share of {shown})"),
        (axes[1], "completer_win", "completer's win share"),
    ):
        colours = []
        for note, flag in zip(
            table["note"], table.get("price_flag", [""] * len(table)), strict=True
        ):
            colours.append(
                GREY if note else {"under-priced": "C2", "over-priced": "C3"}.get(flag, "C0")
            )
        x = table["fame_per_painting"].to_numpy(dtype=float)
        _labelled_points(
            axis, table, column, "commission", x, colours, capsize=2, fontsize=6, offset=2
        )
        finite = np.isfinite(table[column].to_numpy(dtype=float)) & (table["note"] == "").to_numpy()
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


def seats(tables) -> bytes:
    table = tables["seats"]
    positions = tables.get("turn_positions")
    ncols = 2 if positions is not None else 1
    figure, axes = _figure(10 if ncols == 2 else 6, 4, ncols=ncols)
    players = len(table)
    axes[0].bar(
        table["seat"].astype(str),
        100 * table["win_share"],
        yerr=_errors(table, "win_share", 100),
        color=_colours(table),
        capsize=4,
    )
    axes[0].axhline(100 / players, color="black", linewidth=0.8, linestyle="--")
    balance = tables["balance"].iloc[0]
    axes[0].set_title(
        f"Win share by seat (n = {int(table['n'].iloc[0]):,} games)\nBalance {balance['balance']:.3f} "
        f"(95% CI {balance['balance_lo']:.3f} to {balance['balance_hi']:.3f})",
        fontsize=9,
    )
    axes[0].set_xlabel("seat")
    axes[0].set_ylabel("win share, % (95% CI)")
    if positions is not None:
        for i, day in enumerate(["1", "all"]):
            group = positions[positions["day"] == day]
            offset = (i - 0.5) * 0.35
            axes[1].bar(
                group["position"] + offset,
                100 * group["win_share"],
                width=0.35,
                yerr=_errors(group, "win_share", 100),
                capsize=3,
                label="day 1" if day == "1" else "all days (seat-days)",
                color=f"C{i}",
            )
        axes[1].axhline(100 / players, color="black", linewidth=0.8, linestyle="--")
        axes[1].set_xticks(range(players))
        axes[1].set_xlabel("turn position (0 = first)")
        axes[1].set_title("Win share by turn position", fontsize=9)
        axes[1].legend(fontsize="small")
    return _png(figure)


def margins(tables) -> bytes:
    table = tables["margins"]
    figure, (axis,) = _figure(7, 4)
    axis.bar(table["margin"], 100 * table["share"], color="C0")
    n = int(table["games"].sum())
    axis.set_xlabel("winner's fame minus runner-up's (0 = tie)")
    axis.set_ylabel("% of games")
    axis.set_title(f"Score margins (n = {n:,} games)")
    return _png(figure)


def lead_by_day(tables) -> bytes:
    table = tables["lead_by_day"]
    figure, (axis,) = _figure(7, 4)
    for i, (column, label) in enumerate(
        (
            ("lead_change", "sole leader changed"),
            ("leader_wins", "day's leader wins"),
            ("sole_leader", "a sole leader"),
        )
    ):
        axis.errorbar(
            table["day"] + (i - 1) * 0.06,
            100 * table[column],
            yerr=_errors(table, column, 100),
            fmt="o-",
            capsize=3,
            label=label,
            color=f"C{i}",
        )
    axis.set_xlabel("day")
    axis.set_ylabel("% of games (95% CI)")
    axis.set_title(f"Lead by day (n = {int(table['n'].iloc[0]):,} games)")
    axis.legend(fontsize="small")
    return _png(figure)


PLOTS: dict[str, tuple[tuple[str, ...], Callable]] = {
    "fame_distribution": (("fame_distribution",), fame_distribution),
    "fame_sources": (("fame_sources",), fame_sources),
    "plan_tradeoff": (("plan_cards",), plan_tradeoff),
    "landscape_value": (("landscapes",), landscape_value),
    "commission_pricing": (("commissions",), commission_pricing),
    "seats": (("seats", "balance"), seats),
    "margins": (("margins",), margins),
    "lead_by_day": (("lead_by_day",), lead_by_day),
}


def render_all(report, on_step: Callable[[str], None] | None = None) -> dict[str, bytes]:
    """PNG bytes of every plot whose tables the report has, by name."""
    images = {}
    for name, (needs, function) in PLOTS.items():
        if all(table in report.tables for table in needs):
            if on_step is not None:
                on_step(f"plot {name}")
            images[name] = function(report.tables)
    return images
