"""The balance report's plots: each a pure function of the report's tables, drawn with
matplotlib's Agg backend (no display needed) and returned as PNG bytes. The plots
themselves live with their sections; these are the helpers they share.

Every plot states its n and draws 95% CIs as error bars; groups marked "too few samples"
are drawn grey.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from collections import Counter
from collections.abc import Sequence

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
    with glyphs_said_once():
        if figure.get_layout_engine() is None:
            figure.tight_layout()
        figure.savefig(buffer, format="png")
    return buffer.getvalue()


_GLYPH = re.compile(r"Glyph (\d+) \(.*\) missing from font\(s\) (.*?)\.?$")
_GLYPHS_SAID: list[bool] = []  # (once a process)


@contextlib.contextmanager
def glyphs_said_once():
    """matplotlib's warning for each character its font lacks (a card id in Japanese: four
    "Glyph 26085 (CJK UNIFIED IDEOGRAPH-65E5) missing from font(s) DejaVu Sans" lines,
    again for every plot), said once a process in one line; other warnings pass."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing = []
    for warning in caught:
        found = _GLYPH.match(str(warning.message))
        if found is None:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
        else:
            missing.append(found)
    if missing and not _GLYPHS_SAID:
        _GLYPHS_SAID.append(True)
        shown = "".join(dict.fromkeys(chr(int(m[1])) for m in missing))
        warnings.warn(
            f"plots: the font ({missing[0][2]}) has no {shown!r} and maybe other characters "
            "of some labels: they are drawn as boxes",
            stacklevel=3,
        )


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


def plot_labels(ids: Sequence[object], width: int = 12) -> list[str]:
    """Card ids cut to about ``width`` characters for a plot, each still told apart from
    the others (tables keep the whole ids): ids such as "landscape_01_long_identifier"
    ran over each other and past the axes, and pushed a title out of its figure. What
    all the ids share at their start and end gives way first ("…01_long…"), then the
    middle of what is left; ids still alike are numbered."""
    texts = [str(text) for text in ids]
    if all(len(text) <= width for text in texts):
        return texts
    shortest = min(len(text) for text in texts)
    prefix = os.path.commonprefix(texts)[: max(shortest - 1, 0)]
    suffix = os.path.commonprefix([t[::-1] for t in texts])[::-1]
    suffix = suffix[len(suffix) - min(len(suffix), shortest - len(prefix) - 1) :] if suffix else ""
    labels = [
        text if len(text) <= width else _cut(text, len(prefix), len(suffix), width)
        for text in texts
    ]
    counts = Counter(labels)
    seen: Counter = Counter()
    numbered = []
    for label in labels:
        seen[label] += 1
        numbered.append(f"{label}#{seen[label]}" if counts[label] > 1 else label)
    return numbered


def _cut(text: str, shared_start: int, shared_end: int, width: int) -> str:
    """``text`` in about ``width`` characters: its own part (between what every id
    shares at the start and at the end) whole if it fits, with as much of the shared
    parts beside it as room allows, else that part's start and end around an ellipsis."""
    start, end = shared_start, len(text) - shared_end
    while end - start < width - 2 and (start > 0 or end < len(text)):
        if start > 0:
            start -= 1
        if end < len(text) and end - start < width - 2:
            end += 1
    body = text[start:end]
    room = width - (start > 0) - (end < len(text))
    if len(body) > room:
        head = (room - 1) // 2
        body = f"{body[:head]}…{body[len(body) - (room - 1 - head) :]}"
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")


MANY_POINTS = 60  # rows a labelled plot draws one by one, each named


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
    ``label`` written beside it, ``offset`` points up and right. Past ``MANY_POINTS``
    rows, one error-bar call per colour and no labels (a set of 1,000 plan cards spent
    49 s of a 94 s report here, in a call per point, its labels unreadable)."""
    errors = _errors(table, column)
    if len(table) > MANY_POINTS:
        values = table[column].to_numpy(dtype=float)
        for colour in dict.fromkeys(colours):
            rows = np.array([c == colour for c in colours])
            axis.errorbar(
                x[rows], values[rows], yerr=errors[:, rows], fmt="o", color=colour, capsize=0
            )
        return
    labels = plot_labels(table[label])
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
            labels[i],
            (x[i], table[column].iloc[i]),
            fontsize=fontsize,
            xytext=(offset, offset),
            textcoords="offset points",
        )
