"""The package's matplotlib ``Figure``: one that Jupyter shows inline by itself.

A plain ``matplotlib.figure.Figure`` made without pyplot (so that the caller's backend
and open figures are never touched) shows as text in a notebook until pyplot has been
imported there, since it is pyplot's inline backend that registers the display hook.
``NotebookFigure`` adds ``_repr_png_``; where the hook is registered it handles the
figure itself (the same picture, once). It lives at module level so figures pickle.
"""

from __future__ import annotations

from sunset_sim.analysis.report.plotting import _matplotlib_cache, _png

_matplotlib_cache()  # before matplotlib is first imported

from matplotlib.figure import Figure  # noqa: E402


class NotebookFigure(Figure):
    """A ``Figure`` with a PNG representation for Jupyter."""

    def _repr_png_(self) -> bytes:
        return _png(self)


__all__ = ["NotebookFigure"]
