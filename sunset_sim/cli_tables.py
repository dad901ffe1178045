"""How every ``sunset-sim`` command prints its tables: the ``--format`` and ``--table``
options and one way to print text, CSV or JSON (``simulate``'s summary without pandas)."""

from __future__ import annotations

import csv
import functools
import io
import math
import numbers
import re
from collections.abc import Callable, Sequence

import click

from sunset_sim.cli_common import CliError

__all__ = [
    "format_option",
    "one_table_format_option",
    "table_option",
    "print_tables",
    "print_table",
    "records_text",
    "records_csv",
    "frame_rows",
    "records_json",
    "json_ready",
]


def _format_choice(help_text: str):
    return click.option(
        "--format",
        "table_format",
        type=click.Choice(["table", "csv", "json"]),
        default="table",
        show_default=True,
        help=help_text,
    )


def format_option(function):
    """``--format`` of a command that prints several tables (``--table`` picks one)."""
    return _format_choice(
        "table (aligned text for people), csv (exactly one table on stdout: the main one, or "
        "the one --table names) or json (one object holding every table, each a list of "
        "rows). Status lines always go to stderr."
    )(function)


def one_table_format_option(table: str):
    """``--format`` of a command that prints one table, described by ``table``."""
    return _format_choice(
        f"How {table} is printed on stdout: table (aligned text for people), csv (its "
        "header and rows) or json (one object: the run's figures and the table as a list of "
        "rows). Status lines always go to stderr."
    )


def table_option(names: Sequence[str]):
    """``--table NAME``: which of a command's several tables to print (csv prints one)."""

    def decorate(function):
        return click.option(
            "--table",
            "table_name",
            type=click.Choice(list(names)),
            default=None,
            help=f"Print only this table (default: all; --format csv prints {names[0]!r}, "
            "one table per stream).",
        )(function)

    return decorate


def print_tables(
    tables: Sequence[tuple[str, str, object]],
    table_format: str,
    table_name: str | None = None,
    meta: dict | None = None,
    float_format: str = "{:.3f}",
) -> None:
    """Print several (name, title, DataFrame) tables the one way every command does.

    table: each under its title; csv: exactly ONE table (``table_name``, else the first),
    so the stream is one header and its rows; json: ONE object, ``meta`` plus
    ``{name: [rows...]}`` for each table (or only ``table_name``)."""
    chosen = [t for t in tables if table_name is None or t[0] == table_name]
    if not chosen:
        names = ", ".join(t[0] for t in tables)
        raise CliError(f"--table: {table_name!r} is not among this run's tables ({names})")
    if table_format == "csv":
        print_table(chosen[0][2], "csv")
    elif table_format == "json":
        import json

        payload = json_ready(dict(meta or {}))
        for name, _, frame in chosen:
            payload[name] = frame_rows(frame)
        click.echo(json.dumps(payload, indent=1, allow_nan=False))
    else:
        for _, title, frame in chosen:
            if title:
                click.echo(f"\n{title}")
            print_table(frame, "table", float_format)


def print_table(frame, table_format: str, float_format: str = "{:.3f}") -> None:
    """Print a DataFrame as an aligned table, CSV or JSON records."""
    if table_format == "csv":
        click.echo(frame.to_csv(index=False), nl=False)
    elif table_format == "json":
        import json

        click.echo(json.dumps(frame_rows(frame), indent=1, allow_nan=False))
    elif len(frame) == 0:  # (pandas would print "Empty DataFrame", its columns, "Index: []")
        click.echo("  ".join(str(column) for column in frame.columns))
        click.echo("(none)")
    else:
        formatters = {
            c: column_format(str(c), float_format)
            for c in frame.columns
            if frame[c].dtype.kind == "f"
        }
        click.echo(frame.to_string(index=False, formatters=formatters))


def records_text(rows: Sequence[dict], float_format: str = "{:.3f}") -> str:
    """Rows of text, whole numbers and floats (the same keys in each) as pandas'
    ``to_string(index=False, float_format=_small)`` prints their DataFrame (a test holds
    the two to the same text): each column right-justified to its widest cell, a column
    of numbers at least one wider than its name. Made without pandas, so that
    ``simulate`` starts without importing it."""
    if not rows:
        return ""
    columns = []
    for name in rows[0]:
        values = [row[name] for row in rows]
        if all(isinstance(v, numbers.Integral) for v in values):
            cells, width = [str(v) for v in values], len(name) + 1
        elif all(isinstance(v, numbers.Real) for v in values):
            shown = column_format(name, float_format)
            cells = ["NaN" if math.isnan(v) else shown(v) for v in values]
            width = len(name) + 1
        else:
            cells, width = [str(v) for v in values], len(name)
        width = max(width, *(len(cell) for cell in cells))
        columns.append([name.rjust(width), *(cell.rjust(width) for cell in cells)])
    return "\n".join(" ".join(line) for line in zip(*columns, strict=True))


def records_csv(rows: Sequence[dict]) -> str:
    """Rows as pandas' ``to_csv(index=False)`` writes them (a header, floats as repr, NaN
    as an empty cell, minimal quoting, newline-ended lines), without pandas."""
    if not rows:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(rows[0]))
    for row in rows:
        writer.writerow(["" if isinstance(v, float) and math.isnan(v) else v for v in row.values()])
    return out.getvalue()


def records_json(rows: Sequence[dict]) -> list[dict]:
    """Rows as ``frame_rows`` gives them (floats whole, NaN as None), without pandas."""
    return [json_ready(dict(row)) for row in rows]


def frame_rows(frame) -> list[dict]:
    """A frame's rows for JSON: every float as it is (pandas' ``to_json`` keeps 10
    decimals, so a p-value of 2.6e-12 read 0.0, the "zero standard error" value, while
    1.4e-219 stayed), NaN and missing values as None."""
    return [json_ready(row) for row in frame.to_dict(orient="records")]


def json_ready(value):
    """``value`` with every NaN or infinite float as None (null): strict JSON, which
    ``json.loads`` elsewhere (jq, JavaScript) accepts; NumPy scalars as Python numbers."""
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(item) for item in value]
    if type(value).__name__ in ("NAType", "NaTType"):  # (pandas' missing values)
        return None
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def column_format(name: str, float_format: str = "{:.3f}") -> Callable[[float], str]:
    """How a float column prints: ``_small``, but an interval's ends rounded outward
    (``*_ci_low`` down, ``*_ci_high`` up), so that the interval printed holds the one
    computed: 0 wins in 3,000 games read "0.000 (0.000 to 0.001)" for an upper end of
    0.00128, and 3,000 wins "(0.999 to 1.000)" for a lower end of 0.99872. An end too
    small for the format keeps two significant digits, rounded outward too (9.603e-05 up
    to 9.7e-05)."""
    from sunset_sim.analysis.stats import outward as rounded_outward

    digits = re.fullmatch(r"\{:\.(\d+)f\}", float_format)
    side = 1 if name.endswith("_ci_high") else -1 if name.endswith("_ci_low") else 0
    if not side or digits is None:
        return functools.partial(_small, float_format=float_format)
    decimals = int(digits.group(1))

    def outward(value: float) -> str:
        if not math.isfinite(value) or value == 0:
            return _small(value, float_format)
        places = decimals
        if abs(value) * 10**decimals < 0.5:  # too small for the format: two significant digits
            places = 1 - math.floor(math.log10(abs(value)))
        rounded = rounded_outward(value, places, side)
        return float_format.format(rounded) if places == decimals else f"{rounded:.2g}"

    return outward


def _small(value: float, float_format: str = "{:.3f}") -> str:
    """``float_format``, but a nonzero value it would print as zero in two significant
    digits: a Wilson bound of 0.00038 stays visible ("0.000 (0.000 to 0.00038)")."""
    text = float_format.format(value)
    if value and math.isfinite(value) and float(text) == 0:
        return f"{value:.2g}"
    return text
