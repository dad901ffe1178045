"""How a result file was made, stored with it, so that a file alone is enough to report on.

A results file written by ``simulate --out`` carries its provenance: the card set (name,
content hash and its whole TOML text inline), the rules, the strategies, seed, games,
players, chunk size, engine hash and the package version, as a dataset folder's
``_manifest.json`` records its run (``run.dataset.run_identity``).

- Parquet: the JSON object below under the schema metadata key ``sunset_sim``
  (``pyarrow.parquet.read_schema(FILE).metadata[b"sunset_sim"]``).
- CSV: a sidecar file beside it, ``FILE.csv.json``, holding the same JSON object (CSV has
  no place for metadata). A CSV moved without its sidecar reads as an old file.
- Dataset folder: ``_manifest.json`` (its ``run``), with the card set's text under
  ``cards_text``.

``report FILE`` and ``read_results`` use the card set a file was played with; a
``--cards`` that disagrees is refused, naming both. Files without provenance (older
versions) read as before: the packaged card set or ``--cards``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sunset_sim.cards.model import CardSet
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import Player

FORMAT = "sunset-sim results"
VERSION = 1
METADATA_KEY = b"sunset_sim"
SIDECAR_SUFFIX = ".json"  # FILE.csv -> FILE.csv.json

__all__ = [
    "FORMAT",
    "METADATA_KEY",
    "cards_from_run",
    "played_cards",
    "provenance",
    "read_provenance",
    "sidecar_path",
]


def provenance(
    games: int,
    seats: Sequence[Player],
    seed: int,
    cards: CardSet,
    rules: Rules,
    chunk_size: int,
) -> dict:
    """The run's identity (as a dataset manifest holds it) plus the card set's text and
    the package version: everything needed to read, report on or replay the file."""
    from sunset_sim import __version__
    from sunset_sim.run.dataset import run_identity

    run = run_identity(games, seats, seed, cards, rules, chunk_size)
    run["cards"] = {**run["cards"], "path": cards.path, "text": cards.source}
    return {"format": FORMAT, "version": VERSION, "written_by": f"sunset-sim {__version__}", **run}


def sidecar_path(path: str | Path) -> Path:
    """Where a CSV results file's provenance lives: ``FILE.csv.json``."""
    path = Path(path)
    return path.with_name(path.name + SIDECAR_SUFFIX)


def read_provenance(path: str | Path, parquet_metadata: dict | None = None) -> dict | None:
    """A results file's provenance, or None for a file without one (older versions).

    ``parquet_metadata``: the schema metadata if the caller has already opened the file.
    A provenance that is present but unreadable is a ValueError of one line."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        sidecar = sidecar_path(path)
        if not sidecar.is_file():
            return None
        try:
            text = sidecar.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{sidecar}: cannot be read ({error})") from None
        where = sidecar
    else:
        if parquet_metadata is None:
            import pyarrow.parquet as pq

            parquet_metadata = pq.read_schema(path).metadata or {}
        raw = parquet_metadata.get(METADATA_KEY)
        if raw is None:
            return None
        text = raw.decode("utf-8", errors="replace")
        where = path
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{where}: provenance is not valid JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: provenance is not a {FORMAT} record")
    return data


def cards_from_run(run: dict | None, where: str) -> CardSet | None:
    """The card set recorded inline in a run's provenance (None if it has no text).

    The text must still hash to the recorded hash: a hand-edited record is refused."""
    if not run:
        return None
    recorded = run.get("cards")
    if not isinstance(recorded, dict) or not isinstance(recorded.get("text"), str):
        return None
    from sunset_sim.cards.loader import CardSetError, parse_cards

    try:
        cards = parse_cards(recorded["text"], str(recorded.get("path") or "<recorded>"))
    except CardSetError as error:
        raise ValueError(
            f"{where}: the recorded card set is invalid ({error.problems[0]})"
        ) from None
    if recorded.get("hash") and cards.content_hash != recorded["hash"]:
        raise ValueError(f"{where}: the recorded card set's text does not match its hash")
    return cards


def played_cards(run: dict | None, given: CardSet | None, where: str) -> CardSet:
    """The card set a file's games were played with: the one recorded with them; a
    ``given`` set that differs is refused (an InputError naming both). Files without a
    recorded text (older versions, or a manifest from before) use ``given`` or the
    packaged set, still checked against a recorded hash."""
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.validation import InputError

    try:
        recorded_set = cards_from_run(run, where)
    except ValueError as error:
        raise InputError(str(error)) from None
    recorded = ((run or {}).get("cards") or {}).get("hash")
    cards = given if given is not None else recorded_set or load_cards(None)
    if recorded and recorded != cards.content_hash:
        hint = (
            "leave out --cards (in Python: cards=None) to use it"
            if recorded_set is not None
            else "pass that card set with --cards FILE"
        )
        played_from = run["cards"].get("path")
        played_from = f"from {played_from}, " if played_from else ""
        raise InputError(
            f"{where}: the games used card set {run['cards'].get('name')!r} ({played_from}hash "
            f"{recorded[:12]}), not {cards.name!r} (from {cards.path}, hash "
            f"{cards.content_hash[:12]}); {hint}"
        )
    return cards
