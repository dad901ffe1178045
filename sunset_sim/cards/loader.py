"""Read and validate a card-set TOML file into a ``CardSet`` (the format: the packaged
``default.toml``, whose header explains it; the components: docs/rules.md).

A user's file is validated completely before any game runs: every problem found is
collected and reported together, one line each, in the form
``FILE: <card id or section>: <field>: <what is wrong>``, so a designer can fix a whole
file in one pass instead of one error per run. This module reads the file and the set as
a whole (its shape, the sections, ids across cards, whether every frame can be matched);
each card's fields, the frame notation and the limits are read in ``fields.py``.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tomllib
import unicodedata
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from sunset_sim.cards.fields import (
    MAX_CARDS,
    MAX_FILE_BYTES,
    MAX_NESTING,
    MIN_LANDSCAPES,
    SECTION_KEYS,
    Checker,
    card_tables,
    card_where,
    parse_commission,
    parse_goal,
    parse_landscape,
    parse_plan,
    parse_set,
    quoted,
)
from sunset_sim.cards.model import CardSet, Commission, Goal, Landscape, PlanCard
from sunset_sim.cards.tables import frame_matches
from sunset_sim.enums import MIN_PLAYERS
from sunset_sim.validation import InputError, first_line

DEFAULT_FILE = "default.toml"
DEFAULT_PATH_LABEL = "<default>"
DEFAULT_DAYS = 6

CARD_SECTIONS = ("landscape", "commission", "goal", "plan")


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
    """First 16 hex digits of the SHA-256 of the text: identifies a card set in records.
    Windows line endings count as Unix ones: a file re-saved with CRLF is the same set to
    --resume and replay, as it is to compare (its text, suggested cards' too, keeps them)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def _frames_short(matched) -> tuple[int, int] | None:
    """Hall's condition on a commission's frames (``matched``: landscapes x frames, each
    frame fit by some card): (cards, frames) for a set of frames fewer distinct cards
    fit than it has frames (three frames only two cards of the set fit), else None."""
    n_frames = matched.shape[1]
    for mask in range(1, 1 << n_frames):
        chosen = [frame for frame in range(n_frames) if (mask >> frame) & 1]
        fitting = int(matched[:, chosen].any(axis=1).sum())
        if 0 < fitting < len(chosen):
            return fitting, len(chosen)
    return None


def parse_cards(text: str, path: str = "<string>") -> CardSet:
    """Validate a whole card-set TOML text and build the ``CardSet``.

    Raises ``CardSetError`` listing every problem; ``path`` names the file in those
    lines and is stored as ``CardSet.path``.
    """
    chk = Checker(str(path))
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark, as some editors save
    problem = _shape_problem(text)
    if problem is not None:
        raise CardSetError([f"{path}: file: {problem}"])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardSetError([f"{path}: file: toml: {exc}"]) from None
    except (RecursionError, ValueError) as exc:  # deep nesting, or an over-long integer
        raise CardSetError([f"{path}: file: toml: {_toml_limit(text, exc)}"]) from None

    for key, value in data.items():
        if key not in SECTION_KEYS:
            chk.add(
                "file",
                key,
                f"unknown key (sections: [set], {', '.join(f'[[{s}]]' for s in CARD_SECTIONS)})",
            )
        elif key in CARD_SECTIONS and isinstance(value, dict):
            chk.add(key, f"[{key}]", f"write [[{key}]] (an array of tables), not [{key}]")

    name, features = parse_set(chk, data)

    seen: dict[str, tuple[str, str]] = {}  # normalised id -> (where first used, its id)

    def locate(table: dict[str, Any], section: str, index: int) -> str:
        """Name the card for problem lines and report a duplicate id.

        A card whose id is already taken is named "ID (section[index])" so that its other
        problems cannot be confused with those of the first card of that id.
        """
        where = card_where(table, section, index)
        if where != table.get("id"):
            return where  # no usable id
        # (ids equal once Unicode-normalised print alike: "café" typed two ways is one id)
        key = unicodedata.normalize("NFC", where)
        if key in seen:
            first, first_id = seen[key]
            how = "" if first_id == where else ", the same text in another Unicode form"
            where = f"{where} ({section}[{index}])"
            chk.add(where, "id", f"duplicate id (also used by {first}{how})")
        else:
            seen[key] = (f"{section}[{index}]", where)
        return where

    for section in CARD_SECTIONS:
        count = len(data.get(section, [])) if isinstance(data.get(section), list) else 0
        if count > MAX_CARDS:
            raise CardSetError(
                [f"{path}: {section}: [[{section}]]: {count} cards, at most {MAX_CARDS}"]
            )

    landscapes: list[Landscape] = []
    landscape_tables = card_tables(chk, data, "landscape")
    for i, table in enumerate(landscape_tables):
        where = locate(table, "landscape", i)
        card = parse_landscape(chk, table, where, features)
        if card is not None:
            landscapes.append(card)
    landscapes_complete = features is not None and len(landscapes) == len(landscape_tables)
    land_features = [land.features for land in landscapes]

    commissions: list[Commission] = []
    commission_tables = card_tables(chk, data, "commission")
    for i, table in enumerate(commission_tables):
        where = locate(table, "commission", i)
        card, frames = parse_commission(chk, table, where, features)
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
                        f"no landscape in the set can match {quoted(frame_text)}",
                    )
            short = _frames_short(matched) if matched.any(axis=0).all() else None
            if short is not None:  # each frame fits some card, but not all at once
                fitting, n_frames = short
                chk.add(
                    where,
                    "frames",
                    f"only {fitting} landscape(s) in the set can fill {n_frames} of its frames "
                    "(one painting a frame, R-SELL-2): it can never be completed",
                )

    goals: list[Goal] = []
    goal_tables = card_tables(chk, data, "goal")
    for i, table in enumerate(goal_tables):
        where = locate(table, "goal", i)
        goal = parse_goal(chk, table, where)
        if goal is not None:
            goals.append(goal)

    plans: list[PlanCard] = []
    plan_tables = card_tables(chk, data, "plan")
    for i, table in enumerate(plan_tables):
        where = locate(table, "plan", i)
        plan = parse_plan(chk, table, where)
        if plan is not None:
            plans.append(plan)

    if chk.problems:
        # and too few cards for any game, as `cards` reports of a set that parses: every
        # problem is listed, not the count only once the cards are mended
        too_few = count_problems(
            path, len(landscape_tables), len(commission_tables), len(plan_tables),
            MIN_PLAYERS, DEFAULT_DAYS,
        )  # fmt: skip
        raise CardSetError(chk.problems + too_few)
    assert name is not None and features is not None
    card_set = CardSet(
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
    object.__setattr__(card_set, SOURCE_CHECKED, True)  # (edit.matching_source)
    return card_set


# Set on a CardSet whose cards are those its source text gives: every one the loader
# made. Not a field: dataclasses.replace makes a new set without it.
SOURCE_CHECKED = "_source_checked"


def _toml_limit(text: str, error: Exception) -> str:
    """A limit of Python's that tomllib ran into, in the tool's words: a whole number
    too long for int() (Python's advice named sys.set_int_max_str_digits), by its line."""
    limit = sys.get_int_max_str_digits()
    long_number = re.search(f"[0-9_]{{{limit + 1},}}", text) if limit else None
    if isinstance(error, ValueError) and long_number is not None:
        line = text.count("\n", 0, long_number.start()) + 1
        return f"line {line}: a number of more than {limit:,} digits"
    return first_line(error)


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
    if not isinstance(path, str | os.PathLike):
        raise CardSetError(
            [f"card-set path: expected a file path or None, got {type(path).__name__}"]
        )
    label = os.fspath(path)
    if not label:  # (Path("") is the working directory)
        raise CardSetError(["card-set path: empty, give a card-set file (or None: the default)"])
    text_like = isinstance(label, str) and "\n" in label and "=" in label
    if isinstance(label, str) and (len(label) > 4096 or text_like and not os.path.lexists(label)):
        # the set's text given as its path: the error held all 8,627 characters of it
        raise CardSetError(
            [
                f"card-set path: expected a file path, got text of {len(label):,} characters "
                "(for a set's TOML text, use parse_cards)"
            ]
        )
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
    variant is fine for 2 players whatever it holds. Both engines and ``replay`` hold a
    game to it: the reference engine had set up a row of 3 commissions for 4 players
    (R-SET-2 lays out players + 1 and a preview) and ended the game after day 1, where
    the command line refused the set.
    """
    if players < 1:
        raise ValueError(f"players must be at least 1, got {players}")
    if days < 1:
        raise ValueError(f"days must be at least 1, got {days}")
    return count_problems(
        cards.path, len(cards.landscapes), len(cards.commissions), len(cards.plans), players, days
    )


def count_problems(
    path: str | Path,
    n_landscapes: int,
    n_commissions: int,
    n_plans: int,
    players: int,
    days: int,
) -> list[str]:
    """check_playable's counts: too few landscapes, commissions or plan cards."""
    problems: list[str] = []

    def need(field: str, have: int, want: int, why: str) -> None:
        if have < want:
            problems.append(
                f"{path}: set: {field}: {have} cards, a game needs at least {want} ({why})"
            )

    need("landscapes", n_landscapes, MIN_LANDSCAPES, "to deal the 5x5 wilderness")
    need(
        "commissions",
        n_commissions,
        players + 2,
        f"a row of players+1 and a preview for {players} players",
    )
    if days > DEFAULT_DAYS and DEFAULT_DAYS + 2 <= n_plans < days + 2:
        # the days option, not the set, is what asks for more: say so
        problems.append(
            f"rule days={days}: {path} has {n_plans} plan cards, enough for at most "
            f"{n_plans - 2} days (R-PLAN-3: a plan deck of days+2)"
        )
    else:
        need("plans", n_plans, days + 2, f"a plan deck of days+2 for {days} days")
    return problems
