"""docs/rules.md defines every rule ID the repository cites, and no document points outside.

Pure text checks: no project import, nothing compiled.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
RULE_ID = re.compile(r"R-[A-Z]+-[0-9]+")
# A definition: the ID as a bold lead (``- **R-HIKE-4** ...``) or inside a heading line.
DEFINITION = re.compile(r"^\s*(?:[-*]\s+)?\*\*(R-[A-Z]+-[0-9]+)\*\*", re.MULTILINE)
HEADING = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
OUTSIDE_REFERENCE = re.compile(r"\.\./shared/|shared/RULES\.md")


def _files(patterns: list[str]) -> list[Path]:
    found: set[Path] = set()
    for pattern in patterns:
        found.update(path for path in ROOT.glob(pattern) if path.is_file())
    return sorted(found)


def _cited_files() -> list[Path]:
    patterns = ["README.md"]
    for folder in ("sunset_sim", "strategies", "tests", "scripts", "docs"):
        patterns += [f"{folder}/**/*.py", f"{folder}/**/*.md"]
    return [path for path in _files(patterns) if path != RULES_DOC]


def _defined_ids(text: str) -> list[str]:
    defined = DEFINITION.findall(text)
    for heading in HEADING.findall(text):
        defined += RULE_ID.findall(heading)
    return defined


def test_scan_sees_the_sources() -> None:
    # Guard against a scan that silently finds nothing (e.g. after a move of the folders).
    names = {path.relative_to(ROOT).as_posix() for path in _cited_files()}
    assert "README.md" in names
    assert "tests/test_rules.py" in names
    assert any(name.startswith("sunset_sim/") for name in names)


def test_every_cited_rule_id_is_defined_in_docs_rules_md() -> None:
    assert RULES_DOC.is_file(), "docs/rules.md is missing"
    defined = _defined_ids(RULES_DOC.read_text(encoding="utf-8"))
    duplicates = sorted({rule for rule in defined if defined.count(rule) > 1})
    assert not duplicates, f"rule IDs defined more than once in docs/rules.md: {duplicates}"

    cited: dict[str, list[str]] = {}
    for path in _cited_files():
        for rule in set(RULE_ID.findall(path.read_text(encoding="utf-8", errors="replace"))):
            cited.setdefault(rule, []).append(path.relative_to(ROOT).as_posix())
    assert len(cited) >= 30, f"only {len(cited)} rule IDs cited; is the scan broken?"

    missing = {rule: sorted(paths) for rule, paths in sorted(cited.items()) if rule not in defined}
    assert not missing, "rule IDs cited but not defined in docs/rules.md: " + "; ".join(
        f"{rule} (in {', '.join(paths[:3])})" for rule, paths in missing.items()
    )


def test_no_document_points_outside_the_repository() -> None:
    paths = _files(["README.md", "docs/*.md", "sunset_sim/**/*.py", "strategies/*.py"])
    offenders = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE_REFERENCE.search(line):
                offenders.append(f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}")
    assert not offenders, "references outside the repository (use docs/rules.md):\n" + "\n".join(
        offenders
    )


def test_every_cited_rule_group_is_named_in_docs_rules_md() -> None:
    # A group's name alone ("R-SET", "R-HIKE") is cited too: docs/rules.md names each one,
    # and each named group has rules defined under it
    text = RULES_DOC.read_text(encoding="utf-8")
    defined_groups = {rule.rsplit("-", 1)[0] for rule in _defined_ids(text)}
    named = set(re.findall(r"\*\*(R-[A-Z]+)\*\*", text))
    cited: dict[str, str] = {}
    for path in _cited_files():
        for group in re.findall(r"\bR-[A-Z]+\b(?!-[0-9])", path.read_text(encoding="utf-8")):
            cited.setdefault(group, path.relative_to(ROOT).as_posix())
    assert "R-SET" in cited, "no group name cited; is the scan broken?"
    unnamed = sorted(group for group in cited if group not in named)
    assert not unnamed, "rule groups cited but not named in docs/rules.md: " + ", ".join(
        f"{group} (in {cited[group]})" for group in unnamed
    )
    assert named <= defined_groups, f"groups named without rules: {named - defined_groups}"
