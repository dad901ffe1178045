"""Read and validate a card-set TOML file into a ``CardSet`` (the format: the packaged
``default.toml``, whose header explains it; the components: docs/rules.md).

A user's file is validated completely before any game runs: every problem found is
collected and reported together, one line each, in the form
``FILE: <card id or section>: <field>: <what is wrong>``, so a designer can fix a whole
file in one pass instead of one error per run.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import tomllib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from sunset_sim.cards.model import CardSet, Commission, Frame, Goal, Landscape, PlanCard
from sunset_sim.cards.tables import frame_matches
from sunset_sim.enums import (
    DIRCLASS_NAMES,
    DIRECTION_SETS,
    GOAL_KIND_NAMES,
    GOAL_KINDS_WITH_COUNT,
    GOAL_MOVED,
    MAX_FEATURES,
    MAX_FRAMES,
)
from sunset_sim.validation import InputError, first_line, one_line

DEFAULT_FILE = "default.toml"
DEFAULT_PATH_LABEL = "<default>"

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
MAX_NAME_CHARS = 400  # the set's name: printed in summaries and report titles
WILD_TOKEN = "?"
OPEN_TOKEN = "?..."
MIN_LANDSCAPES = 25  # R-SET-1: the 5x5 wilderness is dealt at setup
DEFAULT_DAYS = 6

SECTION_KEYS = {
    "set": {"name", "features"},
    "landscape": {"id", "features"},
    "commission": {"id", "fame", "frames"},
    "goal": {"id", "fame", "kind", "direction", "n"},
    "plan": {"id", "wake", "directions", "hike", "paint"},
}
CARD_SECTIONS = ("landscape", "commission", "goal", "plan")
_FEATURE_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_WAKE = re.compile(r"^(\d{1,2}):(\d{2})$")


class CardSetError(InputError):
    """A card-set file is unusable; ``problems`` lists every problem found. A bad input
    like any other (an ``InputError``), so its message is one line: the first problem and
    how many more there are (``sunset-sim cards --cards FILE`` prints them all)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: list[str] = list(problems)
        super().__init__(self._line())

    def _line(self) -> str:
        if not self.problems:
            return "unusable card set"
        more = len(self.problems) - 1
        return self.problems[0] + (f" (and {more} more in .problems)" if more > 0 else "")

    def __str__(self) -> str:
        return self._line()


def content_hash(text: str) -> str:
    """First 16 hex digits of the SHA-256 of the text: identifies a card set in records."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


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
        elif _FEATURE_NAME.match(token):
            errors.append(f"unknown feature {_quoted(token)}")
        else:
            errors.append(f"bad token {_quoted(token)} (expected a feature name, '?' or '?...')")
    if opens > 1:
        errors.append(f"'?...' appears {opens} times (at most once per frame)")
    if errors:
        return None, errors
    return Frame(required=tuple(required), wild=wild, open=opens == 1), []


class _Checker:
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
    return f"{kind} {_quoted(value, 40)}"


def _quoted(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, with its length when cut: a
    frame of 100,000 characters stays a short problem line."""
    size = f"{len(value)} characters" if isinstance(value, str | list | dict) else ""
    return one_line(repr(value), limit, keep=limit - 3, size=size)


def _parse_set(chk: _Checker, data: dict[str, Any]) -> tuple[str | None, tuple[str, ...] | None]:
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
        if not _FEATURE_NAME.match(feature):
            chk.add(
                "set",
                f"features[{i}]",
                f"bad feature name {_quoted(feature)} (lower-case letters, digits, '_' or '-')",
            )
            ok = False
    duplicates = sorted({f for f in raw if raw.count(f) > 1})
    for feature in duplicates:
        chk.add("set", "features", f"feature {_quoted(feature)} listed more than once")
        ok = False
    return name, (tuple(raw) if ok else None)


def _card_tables(chk: _Checker, data: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The ``[[section]]`` array of tables, or [] after reporting why not."""
    raw = data.get(section, [])
    if isinstance(raw, dict):
        return []  # [section] written for [[section]]: reported with the top-level keys
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        chk.add(section, f"[[{section}]]", f"must be an array of tables, got {_show(raw)}")
        return []
    return raw


def _card_where(table: dict[str, Any], section: str, index: int) -> str:
    """How a problem line names a card: its id if it has a usable one, else section[index]."""
    card_id = table.get("id")
    if (
        isinstance(card_id, str)
        and card_id.strip()
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
    chk: _Checker, where: str, field: str, names: Any, features: tuple[str, ...] | None
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
            chk.add(where, f"{field}[{i}]", f"unknown feature {_quoted(name)}")
            ok = False
    return tuple(counts) if ok else None


def _parse_landscape(
    chk: _Checker, table: dict[str, Any], where: str, features: tuple[str, ...] | None
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


def _card_id(chk: _Checker, table: dict[str, Any], where: str) -> str | None:
    card_id = chk.string(where, table, "id")
    if card_id is not None and not card_id.strip():
        chk.add(where, "id", "must not be empty")
        return None
    problem = None if card_id is None else _text_problem(card_id, MAX_ID_CHARS)
    if problem is not None:
        chk.add(where, "id", problem)
        return None
    return card_id


def _parse_commission(
    chk: _Checker, table: dict[str, Any], where: str, features: tuple[str, ...] | None
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


def _parse_goal(chk: _Checker, table: dict[str, Any], where: str) -> Goal | None:
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
            f"unknown goal kind {_quoted(kind_name)} (one of {', '.join(GOAL_KIND_NAMES)})",
        )
        return None
    kind = GOAL_KIND_NAMES.index(kind_name)
    param: int | None = 0
    if kind == GOAL_MOVED:
        if "n" in table:
            chk.add(where, "n", f"not used by kind {_quoted(kind_name)} (it takes 'direction')")
        direction = chk.string(where, table, "direction")
        if direction is None:
            param = None
        elif direction not in DIRCLASS_NAMES:
            chk.add(
                where,
                "direction",
                f"unknown direction class {_quoted(direction)} (one of {', '.join(DIRCLASS_NAMES)})",
            )
            param = None
        else:
            param = DIRCLASS_NAMES.index(direction)
    else:
        if "direction" in table:
            chk.add(where, "direction", f"only used by kind 'moved', not {_quoted(kind_name)}")
        if kind in GOAL_KINDS_WITH_COUNT:
            param = chk.integer(where, table, "n", 1, MAX_GOAL_COUNT)
        elif "n" in table:
            chk.add(where, "n", f"kind {_quoted(kind_name)} takes no parameter")
    if card_id is None or fame is None or param is None:
        return None
    return Goal(id=card_id, fame=fame, kind=kind, param=param)


def _parse_wake(chk: _Checker, table: dict[str, Any], where: str) -> int | None:
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


def _parse_plan(chk: _Checker, table: dict[str, Any], where: str) -> PlanCard | None:
    chk.unknown_keys(where, table, SECTION_KEYS["plan"])
    card_id = _card_id(chk, table, where)
    wake = _parse_wake(chk, table, where)
    directions = chk.string(where, table, "directions")
    if directions is not None and directions not in DIRECTION_SETS:
        chk.add(
            where,
            "directions",
            f"unknown direction set {_quoted(directions)} (one of {', '.join(DIRECTION_SETS)})",
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


def parse_cards(text: str, path: str = "<string>") -> CardSet:
    """Validate a whole card-set TOML text and build the ``CardSet``.

    Raises ``CardSetError`` listing every problem; ``path`` names the file in those
    lines and is stored as ``CardSet.path``.
    """
    chk = _Checker(str(path))
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark, as some editors save
    problem = _shape_problem(text)
    if problem is not None:
        raise CardSetError([f"{path}: file: {problem}"])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardSetError([f"{path}: file: toml: {exc}"]) from None
    except (RecursionError, ValueError) as exc:  # deep nesting, or an over-long integer
        raise CardSetError([f"{path}: file: toml: {first_line(exc)}"]) from None

    for key, value in data.items():
        if key not in SECTION_KEYS:
            chk.add(
                "file",
                key,
                f"unknown key (sections: [set], {', '.join(f'[[{s}]]' for s in CARD_SECTIONS)})",
            )
        elif key in CARD_SECTIONS and isinstance(value, dict):
            chk.add(key, f"[{key}]", f"write [[{key}]] (an array of tables), not [{key}]")

    name, features = _parse_set(chk, data)

    seen: dict[str, str] = {}  # id -> where first used

    def locate(table: dict[str, Any], section: str, index: int) -> str:
        """Name the card for problem lines and report a duplicate id.

        A card whose id is already taken is named "ID (section[index])" so that its other
        problems cannot be confused with those of the first card of that id.
        """
        where = _card_where(table, section, index)
        if where != table.get("id"):
            return where  # no usable id
        if where in seen:
            where = f"{where} ({section}[{index}])"
            chk.add(where, "id", f"duplicate id (also used by {seen[table['id']]})")
        else:
            seen[where] = f"{section}[{index}]"
        return where

    for section in CARD_SECTIONS:
        count = len(data.get(section, [])) if isinstance(data.get(section), list) else 0
        if count > MAX_CARDS:
            raise CardSetError(
                [f"{path}: {section}: [[{section}]]: {count} cards, at most {MAX_CARDS}"]
            )

    landscapes: list[Landscape] = []
    landscape_tables = _card_tables(chk, data, "landscape")
    for i, table in enumerate(landscape_tables):
        where = locate(table, "landscape", i)
        card = _parse_landscape(chk, table, where, features)
        if card is not None:
            landscapes.append(card)
    landscapes_complete = features is not None and len(landscapes) == len(landscape_tables)
    land_features = [land.features for land in landscapes]

    commissions: list[Commission] = []
    commission_tables = _card_tables(chk, data, "commission")
    for i, table in enumerate(commission_tables):
        where = locate(table, "commission", i)
        card, frames = _parse_commission(chk, table, where, features)
        if card is not None:
            commissions.append(card)
        # Only judge "no landscape matches" against a deck that parsed completely.
        if landscapes_complete and frames:
            matched = frame_matches(land_features, [frame for _, _, frame in frames])
            for (index, frame_text, _), can_match in zip(frames, matched.any(axis=0), strict=True):
                if not can_match:
                    chk.add(
                        where,
                        f"frames[{index}]",
                        f"no landscape in the set can match {_quoted(frame_text)}",
                    )

    goals: list[Goal] = []
    goal_tables = _card_tables(chk, data, "goal")
    for i, table in enumerate(goal_tables):
        where = locate(table, "goal", i)
        goal = _parse_goal(chk, table, where)
        if goal is not None:
            goals.append(goal)

    plans: list[PlanCard] = []
    plan_tables = _card_tables(chk, data, "plan")
    for i, table in enumerate(plan_tables):
        where = locate(table, "plan", i)
        plan = _parse_plan(chk, table, where)
        if plan is not None:
            plans.append(plan)

    if chk.problems:
        raise CardSetError(chk.problems)
    assert name is not None and features is not None
    return CardSet(
        name=name,
        features=features,
        landscapes=tuple(landscapes),
        commissions=tuple(commissions),
        goals=tuple(goals),
        plans=tuple(plans),
        content_hash=content_hash(text),
        source=text,
        path=str(path),
    )


def _shape_problem(text: str) -> str | None:
    """A size or nesting problem that would make the TOML parser slow or crash, checked
    before parsing: more than MAX_FILE_BYTES, arrays or inline tables nested deeper than
    MAX_NESTING, or a key of more than MAX_NESTING dotted parts (the parse is quadratic
    in them). Strings are skipped, so their contents never count."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES // 1024} KiB (a card set is a few KiB)"
    depth = 0
    dots = 0
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else char
            end = i + len(quote)
            while end < n:
                if quote[0] == '"' and text[end] == "\\":
                    end += 2
                    continue
                if text.startswith(quote, end):
                    break
                if len(quote) == 1 and text[end] == "\n":
                    break
                end += 1
            i = end + len(quote)
            continue
        if char == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return f"nested more than {MAX_NESTING} levels deep"
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char == ".":
            dots += 1
            if dots > MAX_NESTING:
                return f"a key of more than {MAX_NESTING} dotted parts"
        elif char in "=\n,":
            dots = 0
        i += 1
    return None


def default_cards_text() -> str:
    """The packaged reconstructed default card set, as TOML text."""
    return resources.files("sunset_sim.cards").joinpath(DEFAULT_FILE).read_text(encoding="utf-8")


def load_cards(path: str | os.PathLike[str] | None = None) -> CardSet:
    """Load and validate a card-set file; ``None`` loads the packaged default set."""
    if path is None:
        raw = resources.files("sunset_sim.cards").joinpath(DEFAULT_FILE).read_bytes()
        return parse_cards(raw.decode("utf-8"), DEFAULT_PATH_LABEL)
    label = os.fspath(path)
    file = Path(label)
    try:
        if file.exists() and not file.is_dir() and not file.is_file():
            raise CardSetError([f"{label}: not a regular file (a device, pipe or socket)"])
        with open(file, "rb") as stream:  # at most the limit: never an endless read
            raw = stream.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise CardSetError([f"{label}: file: larger than {MAX_FILE_BYTES // 1024} KiB"])
    except FileNotFoundError:
        raise CardSetError([f"{label}: file not found"]) from None
    except IsADirectoryError:
        raise CardSetError([f"{label}: is a directory, not a card-set file"]) from None
    except OSError as exc:
        raise CardSetError([f"{label}: cannot read: {exc.strerror or exc}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardSetError([f"{label}: file: encoding: not UTF-8 text ({exc.reason})"]) from None
    return parse_cards(text, label)


def check_playable(cards: CardSet, players: int, days: int = DEFAULT_DAYS) -> list[str]:
    """Problems that stop a game of ``players`` over ``days`` being set up (empty if none).

    Separate from parsing because it depends on the game, not the file: a 40-commission
    variant is fine for 2 players whatever it holds.
    """
    if players < 1:
        raise ValueError(f"players must be at least 1, got {players}")
    if days < 1:
        raise ValueError(f"days must be at least 1, got {days}")
    problems: list[str] = []

    def need(field: str, have: int, want: int, why: str) -> None:
        if have < want:
            problems.append(
                f"{cards.path}: set: {field}: {have} cards, a game needs at least {want} ({why})"
            )

    need("landscapes", len(cards.landscapes), MIN_LANDSCAPES, "to deal the 5x5 wilderness")
    need(
        "commissions",
        len(cards.commissions),
        players + 2,
        f"a row of players+1 and a preview for {players} players",
    )
    n_plans = len(cards.plans)
    if days > DEFAULT_DAYS and DEFAULT_DAYS + 2 <= n_plans < days + 2:
        # the days option, not the set, is what asks for more: say so
        problems.append(
            f"rule days={days}: {cards.path} has {n_plans} plan cards, enough for at most "
            f"{n_plans - 2} days (R-PLAN-3: a plan deck of days+2)"
        )
    else:
        need("plans", n_plans, days + 2, f"a plan deck of days+2 for {days} days")
    return problems
