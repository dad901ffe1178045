"""What a wheel holds: every package folder listed in pyproject.toml (the list is kept by
hand because the built-in strategies install from another folder) and the strategies
under ``sunset_sim.strategies``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed():
    listed = set(CONFIG["tool"]["setuptools"]["packages"])
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "sunset_sim").rglob("__init__.py")
    }
    found.add("sunset_sim.strategies")  # the top-level strategies/ folder
    found.add("sunset_sim.strategies.params")  # its data folder (listed: setuptools warned)
    assert listed == found
    assert CONFIG["tool"]["setuptools"]["package-dir"] == {"sunset_sim.strategies": "strategies"}


def test_the_built_ins_import_under_the_package_namespace():
    import sunset_sim.strategies as builtin

    assert Path(builtin.__file__).resolve() == ROOT / "strategies" / "__init__.py"
    from sunset_sim.strategy import registry

    assert registry()["greedy"].decide.py_func.__module__ == "sunset_sim.strategies.greedy"


# ---- what an installed wheel holds ---------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel ``pip wheel .`` builds (about 20 s: pip sets up its build environment)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(out), "--no-deps", "-q"],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (path,) = out.glob("sunset_sim-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_ships_everything_the_tool_refers_to(wheel):
    names = set(wheel.namelist())
    for needed in (
        "sunset_sim/py.typed",  # type checkers read the package's hints
        "sunset_sim/cards/default.toml",
        "sunset_sim/strategies/params/balanced-tuned.json",  # --strategy balanced:params=tuned
        "sunset_sim/validation.py",
        "sunset_sim/provenance.py",
    ):
        assert needed in names, needed
    for path in (ROOT / "strategies" / "params").glob("*.json"):
        assert f"sunset_sim/strategies/params/{path.name}" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_the_wheel_metadata(wheel):
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = wheel.read(name).decode("utf-8")
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    # the main job installs without the test tools (README: pip install -e .)
    plain = [
        line
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert plain and not any(tool in line for line in plain for tool in ("pytest", "ruff", "dask"))


def test_the_packaged_tuned_parameters_are_addressable_by_name():
    from sunset_sim.strategy import make_player

    tuned = json.loads((ROOT / "strategies/params/balanced-tuned.json").read_text("utf-8"))
    player = make_player("balanced:params=tuned")
    values = dict(zip([p.name for p in player.spec.parameters], player.params, strict=True))
    assert values == pytest.approx(tuned["params"])
    with pytest.raises(ValueError, match="packaged for balanced: tuned"):
        make_player("balanced:params=nosuch")


def test_a_file_named_tuned_does_not_shadow_the_packaged_set(tmp_path, monkeypatch):
    """A file ``tuned`` in the current folder was read for ``params=tuned`` under the same
    label, changing the README's commands without a word; the file is ``./tuned``."""
    from sunset_sim.strategy import make_player

    packaged = make_player("balanced:params=tuned").params
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tuned").write_text('{"name": "balanced", "params": {"deny": 3}}', "utf-8")
    assert list(make_player("balanced:params=tuned").params) == list(packaged)
    assert make_player("balanced:params=./tuned").params[-1] == 3.0
    (tmp_path / "mine").write_text('{"params": {"deny": 2}}', "utf-8")  # no such packaged set
    assert make_player("balanced:params=mine").params[-1] == 2.0


def test_the_exports_are_visible_to_type_checkers():
    """``__all__`` is a literal list and every name in it is imported under TYPE_CHECKING
    (IDEs see them), while ``import sunset_sim`` imports neither numba nor pandas."""
    source = (ROOT / "sunset_sim" / "__init__.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    exported = checked = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            exported = ast.literal_eval(node.value)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            checked = {a.asname or a.name for n in node.body for a in n.names}
    assert exported and checked is not None
    assert set(exported) - {"__version__"} == checked
    import sunset_sim

    for name in exported:
        assert getattr(sunset_sim, name) is not None
    probe = "import sys, sunset_sim; print('numba' in sys.modules or 'pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr
