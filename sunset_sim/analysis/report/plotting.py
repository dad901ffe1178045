"""The balance report's plots: each a pure function of the report's tables, drawn with
matplotlib's Agg backend (no display needed) and returned as PNG bytes. The plots
themselves live with their sections; these are the helpers they share.

Every plot states its n and draws 95% CIs as error bars; groups marked "too few samples"
are drawn grey.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd

GREY = "#aaaaaa"
DPI = 100


def _figure(
    width: float = 8, height: float = 4.5, ncols: int = 1, nrows: int = 1, layout: str | None = None
):
    """A figure of its own (no pyplot: the caller's matplotlib backend and open figures are
    never touched, so a notebook keeps working) and its axes, flattened."""
    figure = _figure_class()(figsize=(width, height), dpi=DPI, layout=layout)
    axes = figure.subplots(nrows, ncols, squeeze=False).ravel()
    return figure, axes


def _figure_class():
    """``figure.NotebookFigure``: shown inline in Jupyter without pyplot."""
    from sunset_sim.analysis.report.figure import NotebookFigure

    return NotebookFigure


def plain_text():
    """Labels drawn as given: a ``$`` in a card id or strategy label is a dollar sign, not
    the start of matplotlib mathtext (which fails on text that is not a formula)."""
    _matplotlib_cache()
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    if figure.get_layout_engine() is None:
        figure.tight_layout()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _matplotlib_cache() -> None:
    """matplotlib's font cache in the tool's own cache folder, not under $HOME, unless the
    user chose one (MPLCONFIGDIR); only before matplotlib is first imported. Where that
    folder cannot be made (no HOME, an unwritable one), a temporary folder of this run's:
    matplotlib's own fallback printed two lines of warnings on every plot."""
    import atexit
    import shutil
    import sys
    import tempfile

    from sunset_sim.engine.jit import cache_home

    if "matplotlib" in sys.modules or os.environ.get("MPLCONFIGDIR"):
        return
    home = cache_home()
    try:
        if home is None:
            raise OSError("no cache folder")
        folder = str(home / "sunset-sim" / "matplotlib")
        os.makedirs(folder, exist_ok=True)
        if not os.access(folder, os.W_OK):
            raise OSError(f"{folder} is not writable")
    except OSError:
        folder = tempfile.mkdtemp(prefix="sunset-sim-matplotlib-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = folder


def _errors(table: pd.DataFrame, column: str, scale: float = 1.0) -> np.ndarray:
    value = table[column].to_numpy(dtype=float)
    lo = table[f"{column}_ci_low"].to_numpy(dtype=float)
    hi = table[f"{column}_ci_high"].to_numpy(dtype=float)
    return np.clip(np.nan_to_num(np.vstack([value - lo, hi - value]) * scale), 0.0, None)


def _colours(table: pd.DataFrame, colour: str = "C0") -> list[str]:
    notes = table["note"] if "note" in table else pd.Series([""] * len(table))
    return [GREY if note else colour for note in notes]


def plot_label(text: object, width: int = 12) -> str:
    """A card id cut to ``width`` characters for a plot, its start and end kept around an
    ellipsis (tables keep the whole id): ids such as "landscape_01_long_identifier" ran
    over each other and past the axes, and pushed a title out of its figure."""
    text = str(text)
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return f"{text[:head]}…{text[len(text) - (width - 1 - head) :]}"


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
            plot_label(table[label].iloc[i]),
            (x[i], table[column].iloc[i]),
            fontsize=fontsize,
            xytext=(offset, offset),
            textcoords="offset points",
        )
