"""No command writes over a file it reads, even with --force: a params file of a
--strategy / --opponent / STRATEGY (``NAME:params=FILE``), or a results or card file
lying in a report's --out under a name the report writes. A hostile tester saw `tune
--opponent balanced:params=t.json --force` replace t.json (the default --out) and record
the new file as the opponent it had played."""

from __future__ import annotations

import shutil

import pytest
from conftest import cli

from sunset_sim.strategy import packaged_params, registry


@pytest.fixture
def params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "balanced-tuned.json"
    shutil.copy(packaged_params(registry()["balanced"])["tuned"], path)
    return path


def _refused(result, message: str) -> None:
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stderr.strip().splitlines() == [message]


def test_tune_does_not_write_over_an_opponents_params_file(params):
    before = params.read_bytes()
    result = cli(
        "tune", "balanced", "--opponent", "balanced:params=balanced-tuned.json", "--games", 4,
        "--generations", 1, "--population", 3, "--validation-games", 4, "--jobs", 1, "-q",
        "--force",
    )  # fmt: skip
    _refused(
        result, "error: balanced-tuned.json: is the --opponent balanced:params=balanced-tuned.json "
        "file too; write to another name",
    )  # fmt: skip
    assert params.read_bytes() == before


@pytest.mark.parametrize("name", ["p.csv", "p.csv.json"])
def test_simulate_does_not_write_over_a_params_file_nor_with_its_sidecar(params, name):
    params.rename(name)
    result = cli(
        "simulate", "-n", 10, "--jobs", 1, "-q", "--strategy", f"balanced:params={name}",
        "-o", "p.csv", "--force",
    )  # fmt: skip
    _refused(
        result, f"error: {name}: is the --strategy balanced:params={name} file too; write to "
        "another name",
    )  # fmt: skip


def test_a_report_does_not_write_over_its_results_or_cards_in_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("simulate", "-n", 20, "--jobs", 1, "-q", "-o", "r.parquet").exit_code == 0
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy("r.parquet", out / "seats.png")
    result = cli("report", out / "seats.png", "-o", out, "-q", "--force")
    _refused(
        result, f"error: --out {out}: would replace {out / 'seats.png'} (RESULTS), one of the "
        "names the command writes there; move it or write to another folder",
    )  # fmt: skip
    shutil.copy(packaged_cards(), out / "tables")
    result = cli("report", "r.parquet", "--cards", out / "tables", "-o", out, "-q", "--force")
    assert result.exit_code == 2 and "(--cards)" in result.stderr
    assert (out / "tables").is_file()
    # a file of the user's own beside it is no input of this name: the report is written
    shutil.copy("r.parquet", out / "mine.parquet")
    assert cli("report", out / "mine.parquet", "-o", out, "-q", "--force").exit_code == 0


def packaged_cards():
    from pathlib import Path

    import sunset_sim.cards

    return Path(sunset_sim.cards.__file__).parent / "default.toml"
