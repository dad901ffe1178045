"""The API in a notebook, executed headless (nbclient + ipykernel): a batch with a progress
bar, a sweep plot shown inline, and the notebook's matplotlib backend unchanged after."""

from __future__ import annotations

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    "import matplotlib\nbefore = matplotlib.get_backend()\nimport sunset_sim",
    "frame = sunset_sim.simulate(games=60, players=2, strategies=['greedy', 'random'],"
    " progress=True)\nlen(frame)",
    "sweep = sunset_sim.sweep(param='greedy:lateness=0,1', strategies=['random'], games=4,"
    " progress=True)\nfigure = sunset_sim.plot_sweep(sweep)\nfigure",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2], [3, 4])\nplt.show()",
    "assert matplotlib.get_backend() == before, (before, matplotlib.get_backend())\n"
    "print('backend kept:', before)",
]


def test_notebook_runs_with_progress_and_plots(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()  # raises CellExecutionError if any cell fails
    outputs = [cell.get("outputs", []) for cell in notebook.cells]
    assert any(o.get("data", {}).get("text/plain") == "120" for o in outputs[1])
    progress = "".join(o.get("text", "") for o in outputs[1] if o.get("name") == "stderr")
    widget = any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs[1]
    )
    assert widget or "100%" in progress  # a widget, or the text bar without ipywidgets
    # without ipywidgets, the text bar alone: tqdm.auto's failed widget had also printed
    # "IProgress not found. Please update jupyter and ipywidgets."
    assert "IProgress" not in progress
    assert any("image/png" in o.get("data", {}) for o in outputs[2])  # the figure, inline
    assert any("image/png" in o.get("data", {}) for o in outputs[3])  # pyplot still shows
    assert "backend kept" in "".join(o.get("text", "") for o in outputs[4])
