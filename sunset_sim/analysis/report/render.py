"""Rendering: the plots of every section as PNG bytes, the tables as display strings
(value and 95% CI, percentages), and the report as Markdown and as self-contained HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from sunset_sim.analysis.report.model import RESULTS_NOTE, TOO_FEW, PlotFunction, Report
from sunset_sim.analysis.report.sections import SECTIONS
from sunset_sim.analysis.stats import ends_text
from sunset_sim.validation import counted

# every section's plots, in report order: name -> (tables needed, function)
PLOTS: dict[str, tuple[tuple[str, ...], PlotFunction]] = {
    name: plot for spec in SECTIONS for name, plot in spec.plots.items()
}


def render_all(report, on_step: Callable[[str], None] | None = None) -> dict[str, bytes]:
    """PNG bytes of every plot whose tables the report has, by name. A plot drawn early
    (``report.drawn``, from ``draw_early``) is reused where every table it looked at is
    unchanged."""
    from sunset_sim.analysis.report.plotting import plain_text

    images = {}
    with plain_text():
        for name, (needs, function) in PLOTS.items():
            if all(table in report.tables for table in needs):
                early = report.drawn.get(name)
                if early is not None and _unchanged(early[1], report.tables):
                    images[name] = early[0]
                    continue
                if on_step is not None:
                    on_step(f"plot {name}")
                images[name] = function(report.tables)
    return images


def draw_early(
    tables: dict[str, pd.DataFrame], on_step: Callable[[str], None] | None = None
) -> dict[str, tuple[bytes, dict[str, pd.DataFrame | None]]]:
    """The plots whose tables are all here already, drawn now, each with copies of the
    tables it looked at (None: asked for, missing): ``build_report`` draws them while a
    study still plays on its own thread, and ``render_all`` reuses them."""
    from sunset_sim.analysis.report.plotting import plain_text

    drawn = {}
    with plain_text():
        for name, (needs, function) in PLOTS.items():
            if all(table in tables for table in needs):
                if on_step is not None:
                    on_step(f"plot {name} (while the study plays)")
                watched = _Watched(tables)
                png = function(watched)
                if watched.everything:  # it went through every table: drawn again at the end
                    continue
                looked = watched.looked
                drawn[name] = (png, {t: tables[t].copy() if t in tables else None for t in looked})
    return drawn


class _Watched(Mapping):
    """The tables, read-only, noting which ones a plot looks at (read, or asked for and
    missing: ``get`` and ``in`` go through ``__getitem__``); going through them all
    (any iteration) sets ``everything``."""

    def __init__(self, tables: dict) -> None:
        self.tables = tables
        self.looked: set[str] = set()
        self.everything = False

    def __getitem__(self, key):
        self.looked.add(key)
        return self.tables[key]

    def __iter__(self):
        self.everything = True
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)


def _unchanged(copies: dict[str, pd.DataFrame | None], tables: dict[str, pd.DataFrame]) -> bool:
    return all(
        (table not in tables) if copy is None else (table in tables and tables[table].equals(copy))
        for table, copy in copies.items()
    )


# ---------------------------------------------------------------------------------------
# tables


_RATE_WORDS = ("win", "rate", "share", "vs_field", "sole_leader", "lead_change", "leader_wins")


def _is_rate(column: str) -> bool:
    """Whether a column holds a proportion or win share (shown in percent)."""
    if column == "n" or column.startswith("n_") or column.endswith(("_z", "_p")):
        return False
    return any(word in column for word in _RATE_WORDS) or column.endswith("residual")


def _is_difference(column: str) -> bool:
    """Whether a rate column holds a difference of rates (shown in signed points, as the
    findings say them: "+25.2 pt", not "25.2%", which read as a rate)."""
    return _is_rate(column) and (
        "effect" in column
        or "diff" in column
        or column == "vs_field"
        or column.startswith("vs_field_")  # the player-count tables' vs_field_3p, ...
        or column.endswith("residual")
    )


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """Strings for a report: ``x (lo to hi)`` for every column with ``_ci_low``/``_ci_high``
    partners; rates and win shares in percent, their differences in signed points (1 pt =
    0.01); p-values in short scientific form."""
    out = {}
    columns = list(table.columns)
    skip = {c for c in columns if c.endswith(("_ci_low", "_ci_high"))}
    for column in columns:
        if column in skip or column == "wake_minutes":
            continue
        values = table[column]
        if f"{column}_ci_low" in table and f"{column}_ci_high" in table:
            rate = "pt" if _is_difference(column) else _is_rate(column)
            out[column] = [
                _ci_text(v, lo, hi, rate, 3 if column == "balance" else 2)
                for v, lo, hi in zip(
                    values, table[f"{column}_ci_low"], table[f"{column}_ci_high"], strict=True
                )
            ]
        elif column.endswith("_p"):
            out[column] = [_p_text(v) for v in values]
        elif values.dtype.kind == "f":
            rate = "pt" if _is_difference(column) else _is_rate(column) or column == "share_of_fame"
            out[column] = [_number(v, rate) for v in values]
        elif values.dtype.kind in "iu" or str(values.dtype) == "Int64":
            out[column] = ["" if pd.isna(v) else f"{int(v):,}" for v in values]
        else:
            out[column] = ["" if pd.isna(v) else str(v) for v in values]
    return pd.DataFrame(out)


def _number(value, rate: bool | str) -> str:
    """``rate``: True for percent, "pt" for a difference of rates in signed points."""
    if value is None or not np.isfinite(value):
        return ""
    if rate == "pt":
        return f"{100 * value:+.1f} pt"
    return f"{100 * value:.1f}%" if rate else f"{value:.2f}"


def _ci_text(value, lo, hi, rate: bool | str, digits: int = 2) -> str:
    """Balance is shown to 3 decimals: its gaps between seats are often under 0.01."""
    if not np.isfinite(value):
        return ""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return _number(value, rate)
    # (the ends rounded outward, as the command line's tables print them: 0 wins in
    # 3,000 games read "0.0% (0.0 to 0.1)" for an upper end of 0.128%)
    if rate == "pt":
        return f"{100 * value:+.1f} pt ({ends_text(lo, hi, 1, 100, '+')})"
    if rate:
        return f"{100 * value:.1f}% ({ends_text(lo, hi, 1, 100)})"
    return f"{value:.{digits}f} ({ends_text(lo, hi, digits)})"


def _p_text(value) -> str:
    if value is None or not np.isfinite(value):
        return ""
    return "<1e-300" if value < 1e-300 else f"{value:.2g}"


# The columns a page shows of the wide tables (identifiers, the effect and its sample
# sizes); every column of every table is in tables/NAME.csv beside the report.
KEY_COLUMNS = {
    "plan_cards": (
        "plan", "wake", "directions", "hike", "paint", "pick_rate", "turn_position",
        "cards_painted", "fame_gained", "win_effect", "n_smaller", "note",
    ),
    "landscapes": ("card", "features", "n", "paint_rate", "win_effect", "n_smaller", "win_diff", "note"),
    "features": (
        "feature", "n", "icons_painted_per_seat", "win_effect", "n_smaller", "win_diff", "note",
    ),
    "commissions": (
        "commission", "fame", "paintings", "n_shown", "completion_rate", "day_completed",
        "completer_win_effect", "n_smaller", "price_flag", "note",
    ),
    "goals": (
        "goal", "kind", "fame", "n", "claim_rate", "taken_rate", "last_mover_rate", "n_kept",
        "keeper_win_effect", "n_smaller", "note",
    ),
    "seats": ("seat", "n", "win_share", "mean_fame", "win_effect", "n_smaller", "note"),
    "first_turn": ("day", "position", "n", "win_share", "win_effect", "n_smaller", "note"),
    "strategies": ("strategy", "n", "win_share", "mean_fame", "vs_field", "note", "rank"),
}  # fmt: skip


def shown_columns(name: str, table: pd.DataFrame) -> pd.DataFrame:
    """The displayed (merged "x (lo to hi)") columns a page shows of table ``name``."""
    shown = display_table(table)
    keep = KEY_COLUMNS.get(name)
    if keep is None:
        return shown
    return shown[[c for c in keep if c in shown.columns]]


# Markdown's link, image and code-span syntax, shown as typed: a card-set name such as
# "![x](https://tracker/p.png)" must not make a Markdown viewer fetch or link anything.
# Emphasis too ("*", "~" and a "_" that is not inside a word: "win_share" stays as
# typed, as CommonMark never reads an underscore between letters as emphasis).
_MD_SYNTAX = str.maketrans(
    {"\\": "\\\\", "`": "\\`", "[": "\\[", "]": "\\]", "*": "\\*", "~": "\\~"}
)
_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")


def md_escape(text: str) -> str:
    """Text from the data (titles, set names, card ids, labels) safe in Markdown: no raw
    HTML (``<script>``, ``<img onerror>``) and no link, image, code span or emphasis
    reaches a Markdown viewer; the text reads as it does in the HTML page."""
    escaped = html.escape(str(text), quote=False).translate(_MD_SYNTAX)
    return _EDGE_UNDERSCORE.sub(r"\\_", escaped)


def md_cell(value: object) -> str:
    """A Markdown table cell from the data: escaped, its ``|`` kept inside the cell."""
    return md_escape(value).replace("|", "\\|")


def _markdown_table(name: str, table: pd.DataFrame) -> str:
    shown = shown_columns(name, table)
    header = "| " + " | ".join(md_escape(c) for c in shown.columns) + " |"
    rule = "|" + "|".join("---" for _ in shown.columns) + "|"
    lines = [header, rule]
    for row in shown.itertuples(index=False):
        lines.append("| " + " | ".join(md_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _html_table(name: str, table: pd.DataFrame) -> str:
    shown = shown_columns(name, table)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = "".join(f"<td>{html.escape(str(v))}</td>" for v in row)
        # (a note may name the count that is short: "not chosen: too few samples")
        few = any(isinstance(v, str) and TOO_FEW in v for v in row)
        marked = ' class="few"' if few else ""
        body.append(f"<tr{marked}>{cells}</tr>")
    table_html = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="table-box">{table_html}</div>'


def _csv_note(name: str, table: pd.DataFrame) -> str:
    hidden = len(display_table(table).columns) - len(shown_columns(name, table).columns)
    more = f"{hidden} more column{'s' if hidden > 1 else ''} and " if hidden > 0 else ""
    return f"({more}every figure unrounded: tables/{name}.csv)"


# ---------------------------------------------------------------------------------------
# pages


def _header_lines(report: Report) -> list[str]:
    meta = report.meta
    games = (
        f"{counted(meta['games'], 'game')}, {meta['players']} players ({meta['rows']:,} seat rows)"
    )
    counts = meta.get("player_counts") or []
    if len(counts) > 1:  # the sections but one show the largest count's games
        games = (
            f"{', '.join(str(c) for c in counts)} players (side by side in their section; "
            f"the other sections: {games})"
        )
    lines = [
        f"{games}; "
        f"strategies: {', '.join(meta['strategies'])}; cards: {meta['cards']}"
        + (f"; source: {meta['source']}" if meta["source"] else "")
        + (f"; {rules}" if (rules := meta.get("rules")) and rules not in meta["source"] else ""),
        "Every estimate is shown as value (95% CI); n is the sample size. " + RESULTS_NOTE,
    ]
    aliases = meta.get("aliases") or {}
    if aliases:
        lines.append(
            "Short labels: " + "; ".join(f"{alias} = {full}" for full, alias in aliases.items())
        )
    return lines


def _contents(report: Report) -> list[tuple[str, str]]:
    entries = [(section.key, section.title) for section in report.sections]
    if report.notes:
        entries.append(("notes", "Notes"))
    return entries


def render_markdown(report: Report, images: dict[str, str]) -> str:
    lines = [f"# {md_escape(report.meta['title'])}", ""]
    lines += [md_escape(line) + "\n" for line in _header_lines(report)]
    lines += ["Contents:", ""]
    lines += [
        f"{i}. [{md_escape(title)}](#{key})" for i, (key, title) in enumerate(_contents(report), 1)
    ]
    lines.append("")
    for section in report.sections:
        lines += [f'<a id="{section.key}"></a>', "", f"## {md_escape(section.title)}", ""]
        if section.skipped:
            lines += [f"_Skipped: {md_escape(section.skipped)}._", ""]
        for block in section.blocks:
            if block[0] == "text":
                lines += [md_escape(block[1]), ""]
            elif block[0] == "list":
                lines += [f"- {md_escape(item)}" for item in block[1]] + [""]
            elif block[0] == "table" and block[1] in report.tables:
                table = report.tables[block[1]]
                lines += [_markdown_table(block[1], table), "", _csv_note(block[1], table), ""]
            elif block[0] == "plot" and block[1] in images:
                lines += [f"![{md_escape(block[2])}]({images[block[1]]})", ""]
    if report.notes:
        lines += ['<a id="notes"></a>', "", "## Notes", ""]
        lines += [f"- {md_escape(note)}" for note in report.notes] + [""]
    return "\n".join(lines)


_CSS = """
body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
.table-box{max-width:100%;overflow-x:auto;margin:1em 0}
table{border-collapse:collapse;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#eee}td:first-child{text-align:left}
tr.few{color:#999}
figure{margin:1em 0}
img{max-width:100%;height:auto}
nav ol{columns:2}
p.csv{font-size:0.8em;color:#555;margin-top:-0.5em}
p,li,h1,h2,h3,figcaption{overflow-wrap:anywhere}
"""


def render_html(report: Report, images: dict[str, bytes]) -> str:
    import base64

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(report.meta['title'])}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(report.meta['title'])}</h1>",
    ]
    parts += [f"<p>{html.escape(line)}</p>" for line in _header_lines(report)]
    contents = "".join(
        f'<li><a href="#{key}">{html.escape(title)}</a></li>' for key, title in _contents(report)
    )
    parts.append(f"<nav><h2>Contents</h2><ol>{contents}</ol></nav>")
    for section in report.sections:
        parts.append(f'<h2 id="{section.key}">{html.escape(section.title)}</h2>')
        if section.skipped:
            parts.append(f"<p><em>Skipped: {html.escape(section.skipped)}.</em></p>")
        for block in section.blocks:
            if block[0] == "text":
                parts.append(f"<p>{html.escape(block[1])}</p>")
            elif block[0] == "list":
                items = "".join(f"<li>{html.escape(item)}</li>" for item in block[1])
                parts.append(f"<ul>{items}</ul>")
            elif block[0] == "table" and block[1] in report.tables:
                table = report.tables[block[1]]
                parts.append(_html_table(block[1], table))
                note = html.escape(_csv_note(block[1], table))
                parts.append(f'<p class="csv">{note}</p>')
            elif block[0] == "plot" and block[1] in images:
                data = base64.b64encode(images[block[1]]).decode("ascii")
                parts.append(
                    f'<figure><img alt="{html.escape(block[2])}" '
                    f'src="data:image/png;base64,{data}"></figure>'
                )
    if report.notes:
        parts.append('<h2 id="notes">Notes</h2><ul>')
        parts += [f"<li>{html.escape(note)}</li>" for note in report.notes]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)
