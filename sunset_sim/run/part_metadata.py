"""What a dataset's part file carries besides its rows, in its Parquet metadata: its
chunk's summary and the identity of the run that played it (``dataset.run_identity``).

The manifest lists each chunk with its file's SHA-256, so a part file cannot change
unseen; these copies make the manifest's own entries checkable against the parts:
a manifest whose summaries were edited printed made-up figures for a finished run, and
one whose run (seed, rules) was edited let ``--resume`` add another run's games to the
chunks kept, as one run. Part files written before a key was kept have none: the
manifest's entry is taken.
"""

from __future__ import annotations

import json
from pathlib import Path

from sunset_sim.results import Summary

PART_SUMMARY_KEY = b"sunset_sim_summary"  # a part file's own copy of its chunk's summary
PART_RUN_KEY = b"sunset_sim_run"  # the identity of the run that played it


def part_metadata(summary: Summary, identity: dict) -> dict[bytes, bytes]:
    """The metadata a new part file carries."""
    return {PART_SUMMARY_KEY: _summary_json(summary), PART_RUN_KEY: _run_json(identity)}


def _summary_json(summary: Summary) -> bytes:
    return json.dumps(summary.to_dict(), sort_keys=True).encode("utf-8")


def _run_json(identity: dict) -> bytes:
    return json.dumps(identity, sort_keys=True).encode("utf-8")


def stored_metadata(path: Path) -> dict[bytes, bytes] | None:
    """A part file's Parquet metadata (None: its footer is unreadable); read once for both
    checks below."""
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).metadata or {}
    except Exception:  # (pyarrow's errors on a damaged footer: not a whole chunk)
        return None


def summary_matches_part(entry: dict, stored: dict[bytes, bytes] | None) -> bool:
    """Whether the manifest's summary of a chunk is the one written into its part file
    (``stored``: its metadata)."""
    if stored is None:
        return False
    summary = stored.get(PART_SUMMARY_KEY)
    return summary is None or summary == _summary_json(Summary.from_dict(entry["summary"]))


def part_run(stored: dict[bytes, bytes] | None) -> dict | None:
    """The identity of the run that played a part file (``stored``: its metadata); None
    where it is not recorded (a part written before it was, or unreadable: its digest
    decides); ``{}`` where the record is there but damaged (not a JSON object)."""
    run = (stored or {}).get(PART_RUN_KEY)
    if run is None:
        return None
    try:
        found = json.loads(run)
    except ValueError:
        return {}
    return found if isinstance(found, dict) and found else {}
