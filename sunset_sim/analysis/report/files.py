"""Reading result files (only the columns the report needs) and writing the report's
files (Markdown, PNG plots, HTML with the plots embedded)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from sunset_sim.analysis.report.data import check_columns, wanted_columns
from sunset_sim.analysis.report.model import Report, ReportInputError
from sunset_sim.analysis.report.render import render_all, render_html, render_markdown
from sunset_sim.files import signals_held, write_atomically
from sunset_sim.provenance import check_rows_match, sidecar_path
from sunset_sim.result_rows import check_rows
from sunset_sim.validation import (
    InputError,
    check_callback,
    check_folder_path,
    first_line,
)


def write_report(
    report: Report, out_dir: str | Path, on_step: Callable[[str], None] | None = None
) -> list[Path]:
    """Write ``report.md``, the PNG plots, ``report.html`` (images embedded) and every
    table whole as ``tables/NAME.csv`` into ``out_dir`` (created if needed); returns the
    paths written: report.md, report.html, then the plots and the tables. Every file is
    made in a temporary folder first and moved in only once all are there: a write that
    fails (a full disk) leaves the folder as it was (it once left an old report.html
    beside new plots); other files in it (a study's, the user's own) stay."""
    check_callback(on_step, "on_step")  # not after half the files are written
    if not isinstance(report, Report):
        raise InputError(
            f"report: expected a Report (build_report's result), got {type(report).__name__}"
        )
    out = check_folder_path(out_dir, "out_dir")
    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))  # (the same filesystem)
    try:
        written = write_report_into(report, staging, on_step)
        with signals_held():  # (the moves: renames, all or none of them)
            for path in written:
                target = out / path.relative_to(staging)
                target.parent.mkdir(exist_ok=True)
                os.replace(path, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if made:
            shutil.rmtree(out, ignore_errors=True)  # (only this call's staging was in it)
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return [out / path.relative_to(staging) for path in written]


SHORT_LABELS = "short-labels.csv"  # (tables/: each short label and the strategy it names)


def write_report_into(
    report: Report, folder: Path, on_step: Callable[[str], None] | None = None
) -> list[Path]:
    """``write_report``'s files into ``folder`` as it is (the command line's staging
    folder, swapped in whole with the study's files)."""
    return _write_all(report, folder, [], on_step)


def _write_all(report: Report, out: Path, written: list[Path], on_step) -> list[Path]:
    images: dict[str, str] = {}
    payloads: dict[str, bytes] = {}
    for name, png in render_all(report, on_step=on_step).items():
        path = out / f"{name}.png"
        write_atomically(path, png)
        written.append(path)
        images[name] = path.name
        payloads[name] = png
    folder = out / "tables"  # every table whole, for spreadsheets and scripts
    folder.mkdir(exist_ok=True)
    for name, table in report.tables.items():
        path = folder / f"{name}.csv"
        write_atomically(path, table.to_csv(index=False).encode("utf-8"))
        written.append(path)
    aliases = report.meta.get("aliases") or {}
    if aliases:  # the tables show balanced*: what it stands for, beside them (not only on the page)
        path = folder / SHORT_LABELS
        frame = pd.DataFrame({"short_label": list(aliases.values()), "strategy": list(aliases)})
        write_atomically(path, frame.to_csv(index=False).encode("utf-8"))
        written.append(path)
    markdown = out / "report.md"
    write_atomically(markdown, render_markdown(report, images).encode("utf-8"))
    written.append(markdown)
    page = out / "report.html"
    write_atomically(page, render_html(report, payloads).encode("utf-8"))
    written.append(page)
    return [markdown, page, *written[:-2]]


def read_results(path: str | Path) -> tuple[pd.DataFrame, dict | None]:
    """Only the report's columns of a result file (Parquet or CSV) or dataset folder, and
    ``commissions_won``, which ``build_report`` checks against the commission masks.

    Returns ``(frame, run)``: ``run`` is how the rows were made, as recorded with them
    (``sunset_sim.provenance``: a dataset folder's manifest, a Parquet file's schema
    metadata or a CSV's ``FILE.csv.json`` sidecar): seed, games, players, strategies,
    rules and the card set (name, hash and, from this version on, its text; see
    ``provenance.cards_from_run``). None for files written before provenance was kept.
    ``frame.attrs["provenance"]`` holds it too, so ``build_report(frame)`` reports with
    the card set the games were played with. ReportInputError for anything unreadable,
    and for rows or a record that are not as sunset-sim writes them
    (``result_rows.check_rows``; ``provenance.check_run``, which ``read_manifest`` applies to a
    dataset folder's manifest): one line naming the row and column or the field."""
    if not isinstance(path, str | os.PathLike):
        raise ReportInputError(
            f"path: expected a results file or dataset folder path, got {type(path).__name__}"
        )
    if os.fspath(path) == "":  # Path("") is the current folder
        raise ReportInputError("path: empty path")
    frame, run = _read_results(Path(path))
    try:  # once here, for every format: later steps can trust the rows
        check_rows(frame, str(path), run.get("players") if run else None)
        check_rows_match(frame, run, _record_name(Path(path)))
    except (InputError, ValueError) as error:
        raise ReportInputError(str(error)) from None
    if "won" in frame:
        del frame["won"]  # read for its check only (in place: no copy of the rows)
    frame.attrs["provenance"] = run  # build_report(frame) then uses the recorded card set
    return frame, run


def _record_name(path: Path) -> Path:
    """Where a results file's record is: its folder's manifest, its sidecar, or itself."""
    if path.is_dir():
        from sunset_sim.run.dataset import MANIFEST

        return path / MANIFEST
    return sidecar_path(path) if path.suffix.lower() == ".csv" else path


def _read_results(path: Path) -> tuple[pd.DataFrame, dict | None]:
    path = Path(path)
    if not path.exists():
        raise ReportInputError(f"{path}: no such file or folder")
    if path.is_dir():
        from sunset_sim.run import RunError
        from sunset_sim.run.dataset import arrow_to_pandas, part_files

        try:  # the folder's own part files only, each game once
            manifest, files = part_files(path)
        except RunError as error:
            raise ReportInputError(str(error)) from None
        if not files:
            raise ReportInputError(f"{path}: the dataset has no chunks")
        import pyarrow.dataset as ds

        try:
            dataset = ds.dataset(files, format="parquet")
            names = dataset.schema.names
            check_columns(names, str(path))
            frame = arrow_to_pandas(dataset.to_table(columns=_columns(names)))
        except ReportInputError:
            raise
        except Exception as error:  # noqa: BLE001 - any pyarrow failure is a bad input
            raise ReportInputError(f"{path}: unreadable dataset ({first_line(error)})") from None
        run = manifest["run"]  # its fields checked by read_manifest
        text = manifest.get("cards_text")
        if text is not None:
            run = {**run, "cards": {**(run.get("cards") or {}), "text": text}}
        return frame, run
    if path.suffix.lower() == ".csv":
        try:
            check_columns(_csv_header(path), str(path))  # (pandas renames a repeated name)
            names = list(pd.read_csv(path, nrows=0).columns)
            frame = _read_csv(path, _columns(names))
        except (ReportInputError, MemoryError):
            raise
        except UnicodeDecodeError as error:
            raise ReportInputError(
                f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
            ) from None
        except Exception as error:  # noqa: BLE001 - any parser failure is a bad input
            raise ReportInputError(f"{path}: unreadable CSV ({first_line(error)})") from None
        return frame, _provenance(path)
    import pyarrow.parquet as pq

    from sunset_sim.run.dataset import arrow_to_pandas

    try:
        handle = pq.ParquetFile(path)
        names = handle.schema_arrow.names
    except Exception as error:  # noqa: BLE001
        raise ReportInputError(
            f"{path}: not a Parquet results file ({first_line(error)})"
        ) from None
    check_columns(names, str(path))
    try:
        frame = arrow_to_pandas(handle.read(columns=_columns(names)))
    except Exception as error:  # noqa: BLE001
        raise ReportInputError(f"{path}: unreadable ({first_line(error)})") from None
    return frame, _provenance(path, handle.schema_arrow.metadata or {})


# What a number column reads as missing (pandas' own list); a label column reads only ""
# as missing (an early end's plan): pandas' defaults made a plan card "NA" or "null" a
# missing plan, and "01" or "True" a number or a flag, so CSV and Parquet reports differed
NUMBER_MISSING = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


def _csv_header(path: Path) -> list[str]:
    """A CSV's column names as written (its first record; a byte-order mark dropped, as
    pandas drops it)."""
    import csv

    with open(path, newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def _read_csv(path: Path, columns: list[str]) -> pd.DataFrame:
    """The results CSV's ``columns``, its labels as the text written."""
    from sunset_sim.result_rows import text_columns

    labels = text_columns(columns)
    missing = {name: [""] if name in labels else list(NUMBER_MISSING) for name in columns}
    return pd.read_csv(
        path,
        usecols=columns,
        dtype=dict.fromkeys(labels, str),
        keep_default_na=False,
        na_values=missing,
    )


def _columns(names: list[str]) -> list[str]:
    """The report's columns, and ``won``, ``commissions_won``, ``goals_won``,
    ``paintings_sold`` and ``cards_painted`` (not reported, but checked: ``check_rows``,
    ``data.check_card_words``; a file whose paintings_sold was -2 was read as sound)."""
    wanted = wanted_columns(names)
    checked = ("won", "commissions_won", "goals_won", "paintings_sold", "cards_painted")
    return wanted + [n for n in names if n in checked and n not in wanted]


def _provenance(path: Path, metadata: dict | None = None) -> dict | None:
    """A single file's recorded run (``sunset_sim.provenance``), None for older files."""
    from sunset_sim.provenance import read_provenance

    try:
        return read_provenance(path, metadata)
    except ValueError as error:
        raise ReportInputError(str(error)) from None
