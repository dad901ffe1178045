"""docs/api.md, the API reference, is generated from the docstrings (scripts/api_docs.py)
and kept up to date: CI fails here when a public signature or docstring changes without
``python scripts/api_docs.py`` being run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import sunset_sim

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("api_docs", ROOT / "scripts" / "api_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_reference_builds_and_covers_every_export():
    text = _script().render()
    for name in sunset_sim.__all__:
        if not name.startswith("_"):
            assert f"## `{name}`" in text, name
    assert "(no docstring)" not in text


def test_the_api_reference_is_up_to_date():
    assert _script().main(["--check"]) == 0, "docs/api.md is stale: run python scripts/api_docs.py"
