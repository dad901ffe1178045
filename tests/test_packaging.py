"""What a wheel holds: every package folder listed in pyproject.toml (the list is kept by
hand because the built-in strategies install from another folder) and the strategies
under ``sunset_sim.strategies``."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed():
    listed = set(CONFIG["tool"]["setuptools"]["packages"])
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "sunset_sim").rglob("__init__.py")
    }
    found.add("sunset_sim.strategies")  # the top-level strategies/ folder
    assert listed == found
    assert CONFIG["tool"]["setuptools"]["package-dir"] == {"sunset_sim.strategies": "strategies"}


def test_the_built_ins_import_under_the_package_namespace():
    import sunset_sim.strategies as builtin

    assert Path(builtin.__file__).resolve() == ROOT / "strategies" / "__init__.py"
    from sunset_sim.strategy import registry

    assert registry()["greedy"].decide.py_func.__module__ == "sunset_sim.strategies.greedy"
