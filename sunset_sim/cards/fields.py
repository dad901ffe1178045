"""How each field of a card-set file is read and checked: the limits on numbers, names
and sizes, the frame notation (``parse_frame``/``format_frame``), and one parser per
card kind. Every problem becomes one line ``FILE: <card id or section>: <field>: <what is
wrong>`` in the ``Checker``; ``loader.parse_cards`` runs these over a whole file."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Sequence
from typing import Any

from sunset_sim.cards.model import Commission, Frame, Goal, Landscape, PlanCard
from sunset_sim.enums import (
    DIRCLASS_NAMES,
    DIRECTION_SETS,
    GOAL_KIND_NAMES,
    GOAL_KINDS_WITH_COUNT,
    GOAL_MOVED,
    MAX_FEATURES,
    MAX_FRAMES,
)
from sunset_sim.validation import one_line

MAX_LANDSCAPE_ICONS = 3  # R-COMP-1: 1 to 3 icons per landscape
MAX_HIKE = 4  # the plan cards' hike maximum is 1 to 4 (docs/rules.md, Components)
# Stated ranges for the other numbers (the printed cards paint 1 to 3;
# a custom set may go up to a whole row of the grid). Every sum the engines keep stays far
# inside int32 with these: 100 commissions x 99 fame is under 10,000.
MAX_FAME = 99  # commission and goal fame: 0 to 99
MAX_PAINT = 5  # plan paint: 1 to 5 (a straight hike path covers at most 5 cells)
MAX_GOAL_COUNT = 99  # a goal's n: 1 to 99
MAX_CARDS = 1000  # cards per section
MAX_FILE_BYTES = 1 << 20  # a card-set file: 1 MiB (the packaged one is about 10 KiB)
MAX_NESTING = 32  # arrays, inline tables and dotted-key parts, at most this deep
MAX_ID_CHARS = 64  # a card id: printed in tables, logs, records and reports
MAX_FEATURE_CHARS = 32  # a feature name: a column of the results and the report
MAX_NAME_CHARS = 400  # the set's name: printed in summaries and report titles
WILD_TOKEN = "?"
OPEN_TOKEN = "?..."
MIN_LANDSCAPES = 25  # R-SET-1: the 5x5 wilderness is dealt at setup
SECTION_KEYS = {
    "set": {"name", "features"},
    "landscape": {"id", "features"},
    "commission": {"id", "fame", "frames"},
    "goal": {"id", "fame", "kind", "direction", "n"},
    "plan": {"id", "wake", "directions", "hike", "paint"},
}
_FEATURE_NAME = re.compile(r"[a-z][a-z0-9_-]*")  # fullmatch: "$" lets a final newline by
_WAKE = re.compile(r"^([0-9]{1,2}):([0-9]{2})$")  # ASCII digits ("５:００" is not 5:00)


def format_frame(frame: Frame, features: Sequence[str]) -> str:
    """The canonical TOML spelling of a frame (named features, then ``?``s, then ``?...``)."""
    tokens: list[str] = []
    for name, count in zip(features, frame.required, strict=True):
        tokens.extend([name] * count)
    tokens.extend([WILD_TOKEN] * frame.wild)
    if frame.open:
        tokens.append(OPEN_TOKEN)
    return " ".join(tokens)


def parse_frame(text: str, features: Sequence[str]) -> tuple[Frame | None, list[str]]:
    """Parse one frame string; returns (frame or None, list of problem descriptions)."""
    index = {name: i for i, name in enumerate(features)}
    required = [0] * len(features)
    wild = 0
    opens = 0
    errors: list[str] = []
    tokens = text.split()
    if not tokens:
        return None, ["empty frame (needs at least one feature, '?' or '?...')"]
    for token in tokens:
        if token == WILD_TOKEN:
            wild += 1
        elif token == OPEN_TOKEN:
            opens += 1
        elif token in index:
            required[index[token]] += 1
        elif _FEATURE_NAME.fullmatch(token):
            errors.append(f"unknown feature {quoted(token)}")
        else:
            errors.append(f"bad token {quoted(token)} (expected a feature name, '?' or '?...')")
    if opens > 1:
        errors.append(f"'?...' appears {opens} times (at most once per frame)")
    if errors:
        return None, list(dict.fromkeys(errors))  # "sun sun": one line for the one typo
    return Frame(required=tuple(required), wild=wild, open=opens == 1), []


class Checker:
    """Collects problems while building the card set, so all of them are reported at once."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.problems: list[str] = []

    def add(self, where: str, field: str, what: str) -> None:
        self.problems.append(f"{self.label}: {where}: {field}: {what}")

    def unknown_keys(self, where: str, table: dict[str, Any], allowed: set[str]) -> None:
        for key in table:
            if key not in allowed:
                self.add(where, key, f"unknown key (allowed: {', '.join(sorted(allowed))})")

    def integer(
        self, where: str, table: dict[str, Any], key: str, low: int | None, high: int | None
    ) -> int | None:
        """A required integer field within [low, high] (bounds optional)."""
        if key not in table:
            self.add(where, key, "missing")
            return None
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(where, key, f"must be an integer, got {_show(value)}")
            return None
        shown = value if abs(value) < 10**12 else f"{str(value)[:6]}... ({len(str(value))} digits)"
        if low is not None and value < low:
            if low == 0:
                self.add(where, key, f"must not be negative, got {shown}")
            elif high is not None:
                self.add(where, key, f"must be at least {low} (range {low} to {high}), got {shown}")
            else:
                self.add(where, key, f"must be at least {low}, got {shown}")
            return None
        if high is not None and value > high:
            self.add(where, key, f"must be {low} to {high}, got {shown}")
            return None
        return value

    def string(self, where: str, table: dict[str, Any], key: str) -> str | None:
        if key not in table:
            self.add(where, key, "missing")
            return None
        value = table[key]
        if not isinstance(value, str):
            self.add(where, key, f"must be a string, got {_show(value)}")
            return None
        return value


def _show(value: Any) -> str:
    """Name a wrong-typed TOML value briefly, for a problem line."""
    kind = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array"}.get(
        type(value), "table" if isinstance(value, dict) else type(value).__name__
    )
    return f"{kind} {quoted(value, 40)}"


def quoted(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, with its length when cut: a
    frame of 100,000 characters stays a short problem line."""
    if isinstance(value, bool):  # as the file has it, not Python's True
        return "true" if value else "false"
    if not isinstance(value, list | dict):
        size = f"{len(value)} characters" if isinstance(value, str) else ""
        return one_line(repr(value), limit, keep=limit - 3, size=size)
    # an array or table as JSON writes it (a TOML reader knows ["a", 1] and {"k": "v"}),
    # and its size in items: "[{'name': ... (1 characters)" counted a table's one item
    text = json.dumps(value, ensure_ascii=False, default=str)
    size = f"{len(value)} item{'s' * (len(value) != 1)}"
    return one_line(text, limit, keep=limit - 3, size=size)


def parse_set(chk: Checker, data: dict[str, Any]) -> tuple[str | None, tuple[str, ...] | None]:
    if "set" not in data:
        chk.add("set", "[set]", "missing [set] table")
        return None, None
    table = data["set"]
    if not isinstance(table, dict):
        chk.add("set", "[set]", f"must be a table, got {_show(table)}")
        return None, None
    chk.unknown_keys("set", table, SECTION_KEYS["set"])
    name = chk.string("set", table, "name")
    if name is not None and not name.strip():
        chk.add("set", "name", "must not be empty")
        name = None
    problem = None if name is None else _text_problem(name, MAX_NAME_CHARS)
    if problem is not None:
        chk.add("set", "name", problem)
        name = None
    if "features" not in table:
        chk.add("set", "features", "missing (a list of 1 to 8 feature names)")
        return name, None
    raw = table["features"]
    if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
        chk.add("set", "features", f"must be a list of strings, got {_show(raw)}")
        return name, None
    ok = True
    if not 1 <= len(raw) <= MAX_FEATURES:
        chk.add("set", "features", f"must name 1 to {MAX_FEATURES} features, got {len(raw)}")
        ok = False
    for i, feature in enumerate(raw):
        if len(feature) > MAX_FEATURE_CHARS:  # (a column name in tables and reports)
            chk.add(
                "set",
                f"features[{i}]",
                f"feature name must be at most {MAX_FEATURE_CHARS} characters, got {len(feature)}",
            )
            ok = False
        elif not _FEATURE_NAME.fullmatch(feature):
            chk.add(
                "set",
                f"features[{i}]",
                f"bad feature name {quoted(feature)} (lower-case letters, digits, '_' or '-')",
            )
            ok = False
    duplicates = sorted({f for f in raw if raw.count(f) > 1})
    for feature in duplicates:
        chk.add("set", "features", f"feature {quoted(feature)} listed more than once")
        ok = False
    return name, (tuple(raw) if ok else None)


def card_tables(chk: Checker, data: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The ``[[section]]`` array of tables, or [] after reporting why not."""
    raw = data.get(section, [])
    if isinstance(raw, dict):
        return []  # [section] written for [[section]]: reported with the top-level keys
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        chk.add(section, f"[[{section}]]", f"must be an array of tables, got {_show(raw)}")
        return []
    return raw


def card_where(table: dict[str, Any], section: str, index: int) -> str:
    """How a problem line names a card: its id if it has a usable one, else section[index]."""
    card_id = table.get("id")
    if (
        isinstance(card_id, str)
        and card_id.strip() == card_id != ""
        and _text_problem(card_id, MAX_ID_CHARS) is None
    ):
        return card_id
    return f"{section}[{index}]"


def _text_problem(text: str, limit: int) -> str | None:
    """Why a name or id cannot be printed safely (None if it can): ids and names reach the
    terminal, CSV tables and reports, so no control characters (terminal escapes, NUL,
    line breaks) and a stated length."""
    if len(text) > limit:
        return f"must be at most {limit} characters, got {len(text)}"
    bad = next((c for c in text if not c.isprintable()), None)
    if bad is not None:
        return f"must not contain control or other unprintable characters, got {ascii(bad)}"
    return None


def _count_vector(
    chk: Checker, where: str, field: str, names: Any, features: tuple[str, ...] | None
) -> tuple[int, ...] | None:
    """Turn a list of feature names into a count vector (None after reporting problems)."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        chk.add(where, field, f"must be a list of feature names, got {_show(names)}")
        return None
    ok = True
    if not 1 <= len(names) <= MAX_LANDSCAPE_ICONS:
        chk.add(where, field, f"must show 1 to {MAX_LANDSCAPE_ICONS} icons, got {len(names)}")
        ok = False
    if features is None:
        return None
    counts = [0] * len(features)
    for i, name in enumerate(names):
        if name in features:
            counts[features.index(name)] += 1
        else:
            chk.add(where, f"{field}[{i}]", f"unknown feature {quoted(name)}")
            ok = False
    return tuple(counts) if ok else None


def parse_landscape(
    chk: Checker, table: dict[str, Any], where: str, features: tuple[str, ...] | None
) -> Landscape | None:
    chk.unknown_keys(where, table, SECTION_KEYS["landscape"])
    card_id = _card_id(chk, table, where)
    if "features" not in table:
        chk.add(where, "features", "missing")
        return None
    counts = _count_vector(chk, where, "features", table["features"], features)
    if card_id is None or counts is None:
        return None
    return Landscape(id=card_id, features=counts)


def _card_id(chk: Checker, table: dict[str, Any], where: str) -> str | None:
    card_id = chk.string(where, table, "id")
    if card_id is not None and not card_id.strip():
        chk.add(where, "id", "must not be empty")
        return None
    if card_id is not None and card_id != card_id.strip():
        # "L01 " beside "L01" would be two cards that print alike
        chk.add(where, "id", f"{quoted(card_id)} begins or ends with a space")
        return None
    problem = None if card_id is None else _text_problem(card_id, MAX_ID_CHARS)
    if problem is not None:
        chk.add(where, "id", problem)
        return None
    return card_id


def parse_commission(
    chk: Checker, table: dict[str, Any], where: str, features: tuple[str, ...] | None
) -> tuple[Commission | None, list[tuple[int, str, Frame]]]:
    """A commission, plus its parsed frames (index, text, frame) for the match check."""
    chk.unknown_keys(where, table, SECTION_KEYS["commission"])
    card_id = _card_id(chk, table, where)
    fame = chk.integer(where, table, "fame", 0, MAX_FAME)
    if "frames" not in table:
        chk.add(where, "frames", "missing")
        return None, []
    raw = table["frames"]
    if not isinstance(raw, list):
        chk.add(where, "frames", f"must be a list of frame strings, got {_show(raw)}")
        return None, []
    ok = True
    if not 1 <= len(raw) <= MAX_FRAMES:
        chk.add(where, "frames", f"must have 1 to {MAX_FRAMES} frames, got {len(raw)}")
        ok = False
    frames: list[tuple[int, str, Frame]] = []
    for i, text in enumerate(raw):
        field = f"frames[{i}]"
        if not isinstance(text, str):
            chk.add(where, field, f"must be a string, got {_show(text)}")
            ok = False
            continue
        if features is None:
            ok = False
            continue
        frame, errors = parse_frame(text, features)
        for error in errors:
            chk.add(where, field, error)
        if frame is None:
            ok = False
        else:
            frames.append((i, text, frame))
    if card_id is None or fame is None or not ok:
        return None, frames
    return Commission(id=card_id, fame=fame, frames=tuple(f for _, _, f in frames)), frames


def parse_goal(chk: Checker, table: dict[str, Any], where: str) -> Goal | None:
    chk.unknown_keys(where, table, SECTION_KEYS["goal"])
    card_id = _card_id(chk, table, where)
    fame = chk.integer(where, table, "fame", 0, MAX_FAME)
    kind_name = chk.string(where, table, "kind")
    if kind_name is None:
        return None
    if kind_name not in GOAL_KIND_NAMES:
        chk.add(
            where,
            "kind",
            f"unknown goal kind {quoted(kind_name)} (one of {', '.join(GOAL_KIND_NAMES)})",
        )
        return None
    kind = GOAL_KIND_NAMES.index(kind_name)
    param: int | None = 0
    if kind == GOAL_MOVED:
        if "n" in table:
            chk.add(where, "n", f"not used by kind {quoted(kind_name)} (it takes 'direction')")
        direction = chk.string(where, table, "direction")
        if direction is None:
            param = None
        elif direction not in DIRCLASS_NAMES:
            chk.add(
                where,
                "direction",
                f"unknown direction class {quoted(direction)} (one of {', '.join(DIRCLASS_NAMES)})",
            )
            param = None
        else:
            param = DIRCLASS_NAMES.index(direction)
    else:
        if "direction" in table:
            chk.add(where, "direction", f"only used by kind 'moved', not {quoted(kind_name)}")
        if kind in GOAL_KINDS_WITH_COUNT:
            param = chk.integer(where, table, "n", 1, MAX_GOAL_COUNT)
        elif "n" in table:
            chk.add(where, "n", f"kind {quoted(kind_name)} takes no parameter")
    if card_id is None or fame is None or param is None:
        return None
    return Goal(id=card_id, fame=fame, kind=kind, param=param)


def _parse_wake(chk: Checker, table: dict[str, Any], where: str) -> int | None:
    """Wake-up time as minutes after midnight, from "H:MM" (or a TOML local time)."""
    if "wake" not in table:
        chk.add(where, "wake", "missing")
        return None
    value = table["wake"]
    if isinstance(value, datetime.time):
        if value.second or value.microsecond or value.tzinfo is not None:
            chk.add(where, "wake", f"must be a whole minute, got {value.isoformat()}")
            return None
        return value.hour * 60 + value.minute
    if isinstance(value, str):
        match = _WAKE.match(value.strip())
        if match:
            hours, minutes = int(match.group(1)), int(match.group(2))
            if hours < 24 and minutes < 60:
                return hours * 60 + minutes
    chk.add(where, "wake", f'must be a time "H:MM" such as "5:15", got {_show(value)}')
    return None


def parse_plan(chk: Checker, table: dict[str, Any], where: str) -> PlanCard | None:
    chk.unknown_keys(where, table, SECTION_KEYS["plan"])
    card_id = _card_id(chk, table, where)
    wake = _parse_wake(chk, table, where)
    directions = chk.string(where, table, "directions")
    if directions is not None and directions not in DIRECTION_SETS:
        chk.add(
            where,
            "directions",
            f"unknown direction set {quoted(directions)} (one of {', '.join(DIRECTION_SETS)})",
        )
        directions = None
    hike = chk.integer(where, table, "hike", 1, MAX_HIKE)
    paint = chk.integer(where, table, "paint", 1, MAX_PAINT)
    if None in (card_id, wake, directions, hike, paint):
        return None
    assert card_id is not None and wake is not None and directions is not None
    assert hike is not None and paint is not None
    return PlanCard(
        id=card_id,
        wake=wake,
        directions=directions,
        direction_mask=DIRECTION_SETS[directions],
        hike=hike,
        paint=paint,
    )
