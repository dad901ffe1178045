"""The report's HTML in a real browser (scripts/check_report_html.py, headless Chromium
from Debian's packages): a table of contents, no table wider than its box, no plot wider
than the page or shrunk below 75% of its drawn width. Skipped where no Chromium is
installed (``apt-get install chromium``); the script is the same check by hand."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import sunset_sim
from sunset_sim.analysis.report import build_report, write_report

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_report_html.py"


def load_script():
    spec = importlib.util.spec_from_file_location("check_report_html", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_report_html"] = module
    spec.loader.exec_module(module)
    return module


check = load_script()


def test_problems_are_found_in_measurements():
    """The judging part, without a browser: each kind of problem is reported."""
    good = {"viewport": 1280, "scroll_width": 1280, "toc": 5, "tables": [], "images": []}
    assert check.problems(good, 0.75) == []
    wide = {
        **good,
        "scroll_width": 1500,
        "toc": 0,
        "tables": [{"index": 0, "box": 1100, "right": 1200, "table": 1400, "columns": 23}],
        "images": [{"index": 0, "alt": "plot", "shown": 500, "right": 600, "natural": 1600}],
    }
    found = check.problems(wide, 0.75)
    assert len(found) == 4
    assert any("table of contents" in line for line in found)
    assert any("1400 px wide" in line for line in found)
    assert any("labels too small" in line for line in found)


@pytest.mark.skipif(check.browser() is None, reason="no Chromium (apt-get install chromium)")
def test_report_html_reads_well_in_chromium(tmp_path):
    frame = sunset_sim.simulate(
        games=400, players=4, strategies=["greedy", "random"], seed=5, jobs=1
    )
    frame["strategy"] = (
        frame["strategy"].astype(str).replace({"greedy": "greedy:lateness=0.5,lookahead_bias=0"})
    )
    write_report(build_report(frame, sunset_sim.load_cards()), tmp_path)
    figures = check.measure(tmp_path / "report.html", 1280)
    assert check.problems(figures, 0.75) == []
    assert figures["toc"] >= 5 and len(figures["tables"]) >= 10 and len(figures["images"]) >= 5


def test_long_labels_break_and_long_ids_are_cut_in_plots():
    """A strategy label of 110 characters with no space made the page 1,508 px wide in a
    1,280 px window (the header and the short-label legend); card ids such as
    "landscape_01_long_identifier_01" ran over each other and pushed a plot's title out."""
    from sunset_sim.analysis.report.plotting import plot_labels
    from sunset_sim.analysis.report.render import _CSS

    assert "p,li,h1,h2,h3,figcaption{overflow-wrap:anywhere}" in _CSS
    assert plot_labels(["C07", "twelve_chars"]) == ["C07", "twelve_chars"]
    # each still told apart (cut at both ends alike, every one read "lands…tifier")
    ids = [f"landscape_{i:02d}_long_identifier" for i in (1, 2, 10)]
    assert plot_labels(ids) == ["…ape_01_lon…", "…ape_02_lon…", "…ape_10_lon…"]
    ids = [f"landscape_{i:02d}_long_identifier_{i:02d}" for i in (1, 60)]
    assert plot_labels(ids) == ["…01_lo…er_01", "…60_lo…er_60"]
    assert plot_labels(["C01", "commission_very_long_name"]) == ["C01", "commi…g_name"]
    labels = plot_labels(["x" * 40 + "a", "x" * 40 + "b", "y" * 30])
    assert len(set(labels)) == 3 and all(len(label) <= 13 for label in labels)


def test_a_report_of_several_counts_says_so_in_its_header():
    """ "3,000 games, 4 players" headed a report of 2, 3 and 4 players."""
    from types import SimpleNamespace

    from sunset_sim.analysis.report.render import _header_lines

    meta = {"games": 3000, "players": 4, "rows": 12000, "strategies": ["greedy"],
            "cards": "default", "source": "", "player_counts": [2, 3, 4]}  # fmt: skip
    first = _header_lines(SimpleNamespace(meta=meta))[0]
    assert first.startswith(
        "2, 3, 4 players (side by side in their section; the other sections: 3,000 games, "
        "4 players (12,000 seat rows)); strategies: greedy"
    )
    meta["player_counts"] = [4]
    assert _header_lines(SimpleNamespace(meta=meta))[0].startswith("3,000 games, 4 players (12")


def test_characters_the_plot_font_lacks_are_said_once(monkeypatch):
    """A tester's card ids in Japanese drew as boxes, with a matplotlib warning for each
    character and plot ("Glyph 26085 (CJK UNIFIED IDEOGRAPH-65E5) missing from font(s)
    DejaVu Sans"): now one line a process naming them; other warnings pass through."""
    import warnings

    from matplotlib.figure import Figure

    from sunset_sim.analysis.report import plotting

    monkeypatch.setattr(plotting, "_GLYPHS_SAID", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # (two plots)
            figure = Figure()
            figure.add_subplot().set_title("L05-日本")
            plotting._png(figure)
        with plotting.glyphs_said_once():
            warnings.warn("another warning", UserWarning, stacklevel=1)
    texts = [str(w.message) for w in caught]
    assert [t for t in texts if "Glyph" in t] == []
    said = [t for t in texts if t.startswith("plots: the font")]
    assert len(said) == 1 and "'日本'" in said[0] and "drawn as boxes" in said[0], texts
    assert "another warning" in texts
