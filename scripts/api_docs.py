"""Write docs/api.md, the Python API reference, from the docstrings and signatures of
the names ``sunset_sim`` exports (``sunset_sim.__all__``), with inspect only (no new
dependency). ``--check`` exits 1 if docs/api.md is not what this would write (CI:
tests/test_api_docs.py), so the reference cannot drift from the code.

    python scripts/api_docs.py            # rewrite docs/api.md
    python scripts/api_docs.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "api.md"

HEADER = """# Python API reference

Generated from the docstrings by `python scripts/api_docs.py` (do not edit by hand;
`tests/test_api_docs.py` checks that it is up to date). Everything below is importable
from `sunset_sim` (`import sunset_sim; sunset_sim.simulate(...)`); the package imports
each name on first use, so `import sunset_sim` stays fast.

Bad input raises `sunset_sim.InputError` (a `ValueError`) with one line naming the input
and the problem, the same limits and messages as the command line (exit code 2 there).
"""


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def _entry(name: str, obj) -> list[str]:
    kind = "class" if inspect.isclass(obj) else "function"
    lines = [f"## `{name}`", ""]
    if kind == "class":
        bases = [b.__name__ for b in obj.__bases__ if b is not object]
        shown = f"class {name}({', '.join(bases)})" if bases else f"class {name}"
        if not issubclass(obj, BaseException):
            shown = f"class {name}{_signature(obj)}"
        lines += ["```python", shown, "```", ""]
    else:
        lines += ["```python", f"{name}{_signature(obj)}", "```", ""]
    doc = inspect.getdoc(obj) or "(no docstring)"
    lines += [doc, ""]
    module = getattr(obj, "__module__", "")
    if module:
        lines += [f"Defined in `{module}`.", ""]
    if kind == "class" and not issubclass(obj, BaseException):
        for member, value in inspect.getmembers(obj):
            if member.startswith("_") or not (inspect.isfunction(value) or inspect.ismethod(value)):
                continue
            if getattr(value, "__qualname__", "").split(".")[0] != obj.__name__:
                continue
            lines += [f"### `{name}.{member}{_signature(value)}`", ""]
            lines += [inspect.getdoc(value) or "(no docstring)", ""]
    return lines


def render() -> str:
    """The whole reference as Markdown, in the order of ``sunset_sim.__all__``."""
    sys.path.insert(0, str(ROOT))
    import sunset_sim

    names = [n for n in sunset_sim.__all__ if not n.startswith("_")]
    lines = [HEADER, "Contents: " + ", ".join(f"[`{n}`](#{n.lower()})" for n in names), ""]
    for name in names:
        lines += _entry(name, getattr(sunset_sim, name))
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
        if current != text:
            print(f"{OUTPUT}: out of date; run python scripts/api_docs.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
