"""How a result file was made, stored with it, so that a file alone is enough to report on.

A results file written by ``simulate --out`` carries its provenance: the card set (name,
content hash and its whole TOML text inline), the rules, the strategies, seed, games,
players, chunk size, engine hash and the package version, as a dataset folder's
``_manifest.json`` records its run (``run.dataset.run_identity``).

- Parquet: the JSON object below under the schema metadata key ``sunset_sim``
  (``pyarrow.parquet.read_schema(FILE).metadata[b"sunset_sim"]``). A frame of the Python
  API saved with pandas (``simulate(...).to_parquet(FILE)``) carries it too, as pandas
  writes ``frame.attrs`` (``attrs["provenance"]`` under the key ``PANDAS_ATTRS``).
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

from sunset_sim.files import JSONTextError, parse_json

if TYPE_CHECKING:
    from sunset_sim.cards.model import CardSet
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import Player

FORMAT = "sunset-sim results"
VERSION = 1
METADATA_KEY = b"sunset_sim"
PANDAS_ATTRS_KEY = b"PANDAS_ATTRS"  # where pandas keeps frame.attrs in a Parquet file
SIDECAR_SUFFIX = ".json"  # FILE.csv -> FILE.csv.json
# what every run record holds (run.dataset.run_identity), from the first version on
REQUIRED = ("seed", "games", "players", "strategies", "cards", "rules")

__all__ = [
    "FORMAT",
    "METADATA_KEY",
    "cards_from_run",
    "check_rows_match",
    "check_run",
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


def _from_pandas_attrs(raw: bytes | None) -> str | None:
    """The provenance in pandas' record of ``frame.attrs`` (``DataFrame.to_parquet``), as
    JSON text, or None where there is none (attrs that are not JSON are pandas' own
    business: no provenance)."""
    if raw is None:
        return None
    try:
        attrs = json.loads(raw)
    except ValueError:
        return None
    run = attrs.get("provenance") if isinstance(attrs, dict) else None
    if not isinstance(run, dict) or run.get("format") != FORMAT:
        return None  # (a user's own attrs["provenance"], not a record of this tool's)
    return json.dumps(run)


def read_provenance(path: str | Path, parquet_metadata: dict | None = None) -> dict | None:
    """A results file's provenance, or None for a file without one (older versions).

    ``parquet_metadata``: the schema metadata if the caller has already opened the file.
    A provenance that is present but unreadable is a ValueError of one line."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        sidecar = sidecar_path(path)
        if not sidecar.exists() and not sidecar.is_symlink():
            return None
        if not sidecar.is_file():  # a folder or a broken link: not "no provenance"
            raise ValueError(f"{sidecar}: cannot be read (not a file, or a broken link)")
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
        text = None if raw is None else raw.decode("utf-8", errors="replace")
        if text is None:
            text = _from_pandas_attrs(parquet_metadata.get(PANDAS_ATTRS_KEY))
        if text is None:
            return None
        where = path
    try:
        data = parse_json(text)
    except JSONTextError as error:  # syntax, nesting, a number of over 4,300 digits
        raise ValueError(f"{where}: provenance: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: provenance is not a {FORMAT} record")
    version = data.get("version", VERSION)  # (true == 1 and 1.0 == 1 in Python: not here)
    if type(version) is not int or version != VERSION:
        from sunset_sim.records.log import printable

        shown = printable(f'"{version}"', 40) if isinstance(version, str) else _kind(version)
        raise ValueError(
            f"{where}: provenance version {shown}; this sunset-sim reads version {VERSION}"
        )
    return check_run(data, where)


def check_rows_match(frame, run: dict | None, where: str | Path) -> None:
    """The rows are the games their record says: ``games`` of them, none played past the
    rules' ``days`` (a record edited apart from its rows would report one run's rows as
    another's); else a ValueError of one line naming ``where`` and the field."""
    if not run or "seat" not in frame or not len(frame):
        return
    players = int(frame["seat"].max()) + 1  # whole games: check_rows
    games = run.get("games")
    if type(games) is int and len(frame) != games * players:
        raise ValueError(
            f"{where}: games: the record says {games} games, the rows hold {len(frame) // players}"
        )
    _check_seat_labels(frame, run.get("strategies"), players, where)
    days = (run.get("rules") or {}).get("days")
    if type(days) is int and "days_played" in frame and int(frame["days_played"].max()) > days:
        raise ValueError(
            f"{where}: rules.days: the record says {days} days, a game in the rows played "
            f"{int(frame['days_played'].max())}"
        )
    if type(days) is int and {"days_played", "end_reason"} <= set(frame.columns):
        # a game that was not cut short by a commission shortage plays every day (R-END-1)
        short = (frame["end_reason"] == "days").to_numpy() & (frame["days_played"] != days)
        if short.any():
            played = int(frame["days_played"].to_numpy()[short.argmax()])
            raise ValueError(
                f"{where}: rules.days: the record says {days} days, a game in the rows ended "
                f"after its last day with {played}"
            )


def _check_seat_labels(frame, strategies, players: int, where: str | Path) -> None:
    """Every row's strategy is the one its record seats there (a record's ``strategies``
    are the seats in order: the rows of a run never move a strategy between seats)."""
    import numpy as np

    entries = strategies if isinstance(strategies, list) else []
    labels = [entry.get("label") if isinstance(entry, dict) else None for entry in entries]
    if "strategy" not in frame or len(labels) != players:
        return
    if not all(isinstance(label, str) for label in labels):
        return
    column = frame["strategy"]
    seats = frame["seat"].to_numpy()
    if column.dtype == "category":  # compared by category code, not by string
        categories = list(column.cat.categories)
        wanted = np.array([categories.index(x) if x in categories else -2 for x in labels])
        wrong = column.cat.codes.to_numpy() != wanted[seats]
    else:
        wrong = column.to_numpy(dtype=object) != np.array(labels, dtype=object)[seats]
    if wrong.any():
        row = int(np.argmax(wrong))
        seat = int(seats[row])
        game = f"game {frame['game'].iloc[row]}, " if "game" in frame else ""
        raise ValueError(
            f"{where}: strategies: the record seats {labels[seat]!r} at seat {seat}, the rows "
            f"have {str(column.iloc[row])!r} there ({game}row {row + 1})"  # (from 1, as elsewhere)
        )


def check_run(run: dict, where: str | Path) -> dict:
    """``run`` if the fields that readers use have their recorded types (a sidecar,
    metadata or manifest edited by hand would otherwise fail deep in the report); else a
    ValueError of one line naming ``where`` and the field. Every record has had each of
    ``REQUIRED`` since records began: one without is refused (the report would label the
    rows with defaults)."""
    from sunset_sim.enums import MAX_PLAYERS, MIN_PLAYERS
    from sunset_sim.rules.options import RuleOptionError, Rules

    for key in REQUIRED:
        if key not in run:
            raise ValueError(f"{where}: {key}: missing from the record of the run")

    cards = run.get("cards")
    if cards is not None and not isinstance(cards, dict):
        raise ValueError(
            f"{where}: cards: expected an object (name, hash, text), got {_kind(cards)}"
        )
    for key in ("name", "hash", "path", "text"):
        value = (cards or {}).get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{where}: cards.{key}: expected a string, got {_kind(value)}")
    for key, low in (("seed", 0), ("games", 0), ("chunk_size", 1), ("players", MIN_PLAYERS)):
        value = run.get(key)
        if value is None:
            continue
        if type(value) is not int or value < low or (key == "players" and value > MAX_PLAYERS):
            bound = f"{low} to {MAX_PLAYERS}" if key == "players" else f"{low} or more"
            raise ValueError(f"{where}: {key}: expected a whole number {bound}, got {_kind(value)}")
    strategies = run.get("strategies")
    if strategies is not None and not (
        isinstance(strategies, list) and all(isinstance(s, dict) for s in strategies)
    ):
        raise ValueError(f"{where}: strategies: expected an array of objects")
    if run.get("rules") is not None:
        try:
            Rules.from_dict(run["rules"])
        except RuleOptionError as error:
            raise ValueError(f"{where}: rules: {error}") from None
    return run


def _kind(value: object) -> str:
    """A JSON value in a message: its kind, and the value itself when short."""
    from sunset_sim.validation import short_number

    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, int | float):
        return short_number(value)
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


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
