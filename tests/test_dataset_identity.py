"""Each part file of a dataset folder records the run that played it (its Parquet
metadata, ``run/part_metadata.py``): a manifest whose run was edited, or a part whose
record is damaged, is refused in one line by ``--resume`` and by every reader."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import cli, fails
from test_resume import RUN, reference, started  # noqa: F401 (fixtures)

from sunset_sim.run.dataset import MANIFEST, part_name


@pytest.mark.parametrize(
    ("edit", "extra", "needle"),
    [
        ({"seed": 6}, ["--seed", "6"], "the seed differs (part 5, run 6)"),
        ({"rules": {"tie_break": "seat", "days": 6}}, ["--rule", "tie_break=seat"], "the rules"),
    ],
    ids=["seed", "rules"],
)
def test_an_edited_run_in_the_manifest_mixes_no_runs(started, edit, extra, needle):  # noqa: F811
    """The manifest's run (seed 5 -> 6, or its rules) edited in an interrupted folder, and
    --resume given the edited run: it added games of seed 6 to the chunks of seed 5, and
    the report read them as one run (exit 0). Each part file records the run that played
    it: --resume and the report refuse the mix in one line."""
    manifest = json.loads((started / MANIFEST).read_text())
    manifest["run"].update(edit)
    (started / MANIFEST).write_text(json.dumps(manifest))
    run = RUN[:]
    if extra[0] == "--seed":  # (in place of RUN's: an option given twice is refused)
        run[run.index("--seed") + 1] = extra[1]
        extra = []
    result = cli(*run, *extra, "--out", started, "--resume")
    fails(result, f"{part_name(0)}: played by another run than the manifest's", needle)
    manifest["complete"] = True  # (and a report of it, as if the run had been finished)
    manifest["chunks"] = manifest["chunks"][:1]
    manifest["run"]["games"] = 25
    (started / MANIFEST).write_text(json.dumps(manifest))
    for name in os.listdir(started):
        if name.startswith("part-") and name != part_name(0):
            (started / name).unlink()
    fails(cli("report", started, "--out", started.parent / "rep"), "played by another run")


@pytest.mark.parametrize("stored", [b"[]", b"5", b"null", b"{bad"])
def test_a_damaged_record_of_the_run_in_a_part_file_is_one_line(reference, tmp_path, stored):  # noqa: F811
    """A part file's record of its run that is not a JSON object (its digest updated in the
    manifest) gave AttributeError tracebacks in the report and --resume; unparsable, it
    read "the seed differs (part null, ...)"."""
    import pyarrow.parquet as pq

    from sunset_sim.files import file_digest

    folder = tmp_path / "damaged"
    shutil.copytree(reference[0], folder)
    path = folder / part_name(0)
    table = pq.read_table(path)
    metadata = {**table.schema.metadata, b"sunset_sim_run": stored}
    pq.write_table(table.replace_schema_metadata(metadata), path, compression="zstd")
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["chunks"][0].update(bytes=path.stat().st_size, sha256=file_digest(path))
    (folder / MANIFEST).write_text(json.dumps(manifest))
    needle = f"{part_name(0)}: its record of the run that played it is damaged"
    fails(cli("report", folder, "--out", tmp_path / "rep"), needle)
    fails(cli(*RUN, "--out", folder, "--resume"), needle)
