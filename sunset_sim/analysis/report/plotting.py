"""The balance report's plots: each a pure function of the report's tables, drawn with
matplotlib's Agg backend (no display needed) and returned as PNG bytes. The plots
themselves live with their sections; these are the helpers they share.

Every plot states its n and draws 95% CIs as error bars; groups marked "too few samples"
are drawn grey.
"""

from __future__ import annotations

import io

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
