"""The command line's output files and folders: what may be written where (never over
an input, an existing file only with --force, in a folder that exists and can be
written), held against a second run writing the same output, and never replacing what
appeared meanwhile. Split from ``cli_common``; it imports no command module."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import click

from sunset_sim import files
from sunset_sim.cli_common import CliError, check_path_text, on_interrupt
from sunset_sim.files import NO_CLOBBER


def check_replaceable(path: Path, force: bool) -> None:
    """An output file may be written: nothing there, or with --force a regular file (a
    dangling link is there too: refused without --force, as a file would be)."""
    if os.path.lexists(path) and not force:
        raise CliError(f"{path}: already exists (use --force to overwrite)")
    if path.exists() and not path.is_file():  # --record /dev/null --force replaced the device
        raise CliError(f"{path}: exists and is not a regular file; choose another name")


def check_output(
    path: Path, force: bool, inputs: dict[str, Path | None] | None = None, option: str = "--out"
) -> None:
    """Refuse to overwrite without --force, or ever to overwrite one of the command's
    ``inputs`` (option: path; ``play --cards m.toml --record m.toml --force`` replaced the
    card set with the record), and fail early if the folder cannot be written.
    ``option``: the one that names ``path``, for the messages."""
    check_not_input(path, inputs)
    check_replaceable(path, force)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CliError(f"{path}: folder {folder} {_not_a_folder(folder)}")
    if not os.access(folder, os.W_OK):
        raise CliError(f"{path}: folder {folder} is not writable")
    hold_output_lock(path, option)
    if not force:
        keep_what_appears(path)
    on_interrupt(f"{path} left as it was" if path.exists() else f"nothing written to {path}")


def _not_a_folder(folder: Path) -> str:
    """Why an output's folder is none: "does not exist", or what is there instead."""
    return "is a file, not a folder" if os.path.lexists(folder) else "does not exist"


def check_not_input(path: Path, inputs: dict[str, Path | None] | None) -> None:
    """``path``, to be written, is none of the command's ``inputs`` (option: path)."""
    for option, given in (inputs or {}).items():
        if given is not None and path.exists() and given.exists() and path.samefile(given):
            raise CliError(f"{path}: is the {option} file too; write to another name")


def params_inputs(texts: Iterable[str], option: str = "--strategy") -> dict[str, Path | None]:
    """The params files strategy texts read (``NAME:params=FILE``), by option and text:
    inputs no output may replace (``tune --opponent balanced:params=t.json`` wrote its
    --out over t.json, and its record then named the new file as the opponent played)."""
    found: dict[str, Path | None] = {}
    for text in texts:
        for item in text.partition(":")[2].split(","):
            key, _, value = item.partition("=")
            if key.strip() == "params" and value.strip():
                found[f"{option} {text}"] = Path(value.strip())
    return found


def check_inputs_kept(out_dir: Path, inputs: dict[str, Path | None], replaced) -> None:
    """No input lies in an entry of ``out_dir`` that the command replaces (``replaced``:
    an entry's name -> whether it does): `report seats.png -o . --force` wrote its plot
    over the results it read."""
    if not out_dir.is_dir():
        return
    where = out_dir.resolve()
    for option, given in inputs.items():
        if given is None or not given.exists():
            continue
        path = given.resolve()
        if where in path.parents and replaced(path.relative_to(where).parts[0]):
            raise CliError(
                f"--out {out_dir}: would replace {given} ({option}), one of the names the "
                "command writes there; move it or write to another folder"
            )


def check_companion(path: Path, force: bool, inputs: dict[str, Path | None] | None = None) -> None:
    """A file written beside an output (a CSV's sidecar): replaced only with --force, a
    file made there while the games play included, and never one of ``inputs``."""
    check_not_input(path, inputs)
    check_replaceable(path, force)
    if not force:
        keep_what_appears(path)


def keep_what_appears(path: Path) -> None:
    """An output with nothing in the way at the start (no --force): what another process
    puts there while the games play is not replaced (files.NO_CLOBBER), for this command
    only (in-process runs follow)."""
    # the path as given and where a link leads (a folder output is written there)
    targets = {os.path.abspath(path), os.path.realpath(path)}
    NO_CLOBBER.update(targets)
    context = click.get_current_context(silent=True)
    if context is not None:
        context.call_on_close(lambda: NO_CLOBBER.difference_update(targets))


def hold_output_lock(path: Path, option: str = "--out") -> None:
    """Hold ``.NAME.writing`` beside an output file or folder until the command ends, so a
    second run writing the same output fails at its start, in one line, instead of both
    reporting success over a mix of their files (flock: released if the process dies)."""
    context = click.get_current_context(silent=True)
    target = Path(os.path.abspath(path))
    if context is None or not target.name or not target.parent.is_dir():
        return
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one writer per output is up to the user
        return
    lock_path = target.with_name(f".{target.name}.writing")
    try:
        handle = files.open_lock(lock_path)  # held until the command ends
    except OSError as error:  # a folder that cannot be written (even by root: /proc):
        # said now, not after the games (every output is written beside such a file)
        raise CliError(
            f"{path}: cannot write in folder {target.parent} ({lock_path.name}): "
            f"{error.strerror or error}"
        ) from None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise CliError(
            f"{path}: another sunset-sim run is writing this output now; wait for it or "
            f"choose another {option}"
        ) from None

    def release() -> None:
        lock_path.unlink(missing_ok=True)
        handle.close()

    context.call_on_close(release)
    files.at_forced_exit(lambda: lock_path.unlink(missing_ok=True))


def check_out_folder(out_dir: Path, force: bool) -> None:
    """An output folder: a folder (or nothing yet, made in a folder that exists, as every
    output file's folder must), empty unless --force, writable."""
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise CliError(f"--out {out_dir}: exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise CliError(f"--out {out_dir}: folder is not empty (use --force to overwrite)")
    parent = out_dir if out_dir.is_dir() else out_dir.parent
    if not parent.is_dir():
        raise CliError(f"--out {out_dir}: folder {parent} {_not_a_folder(parent)}")
    if not os.access(parent, os.W_OK):
        raise CliError(f"--out {out_dir}: folder {parent} is not writable")
    hold_output_lock(out_dir)
    if not force:
        keep_what_appears(out_dir)
    on_interrupt(
        f"{out_dir} left as it was" if out_dir.exists() else f"nothing written to {out_dir}"
    )


def output_kind(text: str | None) -> tuple[Path | None, bool]:
    """``simulate --out``: (path, is a dataset folder). FILE.parquet / FILE.csv is one file;
    a name without a suffix, or ending in a slash, is a Parquet dataset folder."""
    if text is None:
        return None, False
    check_path_text("--out", text)
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.suffix == "":
        return path, True
    if path.suffix.lower() not in (".parquet", ".csv"):
        raise CliError(
            f"{path}: the output must end in .parquet or .csv (one file), or be a folder "
            "name without a suffix or ending in / (a dataset folder)"
        )
    return path, False
