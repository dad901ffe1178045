"""Write a ``CardSet`` back to TOML and make one-number edits to it.

Card-design studies ask "what if C07 gave one more fame?". ``edit_card`` answers with a
new, loader-validated ``CardSet`` whose cards keep their ids and order, so a seeded deal
is identical and only the edited number can explain a difference in results.
``dump_cards`` exists so that every edited set is real TOML text the loader accepted:
it carries its own ``content_hash`` and ``source`` into game records like any file.
"""

from __future__ import annotations

import dataclasses
import numbers
import re
from collections.abc import Iterable

import numpy as np

from sunset_sim.cards.fields import MAX_FAME, MAX_HIKE, MAX_PAINT, format_frame
from sunset_sim.cards.loader import SOURCE_CHECKED, CardSetError, parse_cards
from sunset_sim.cards.model import CardSet, Commission, Goal, Landscape, PlanCard
from sunset_sim.enums import (
    DIRCLASS_NAMES,
    DIRECTION_SETS,
    GOAL_KIND_NAMES,
    GOAL_KINDS_WITH_COUNT,
    GOAL_MOVED,
)

__all__ = [
    "DIRECTIONS_DOWN",
    "DIRECTIONS_UP",
    "FIELDS",
    "RANGES",
    "CardEditError",
    "card_kind",
    "card_value",
    "deal_key",
    "dump_cards",
    "edit_card",
    "edited_text",
    "fame_changes",
]

FIELDS = ("fame", "wake", "hike", "paint", "directions")

# Which card kinds each field applies to.
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "fame": ("commission", "goal"),
    "wake": ("plan",),
    "hike": ("plan",),
    "paint": ("plan",),
    "directions": ("plan",),
}

WAKE_STEP = 15  # minutes per step of "wake"

# Accepted (low, high) per numeric field: the loader's own stated ranges.
RANGES: dict[str, tuple[int, int]] = {
    "fame": (0, MAX_FAME),
    "hike": (1, MAX_HIKE),
    "paint": (1, MAX_PAINT),
    "wake": (0, 23 * 60 + 59),  # loader: "H:MM" with H < 24, MM < 60
}

# The direction ladder: one step up moves to the smallest loader direction set that
# strictly contains the current one; one step down to a strictly contained one.
#   horizontal (2) -> orthogonal (4) -> all (8)
#   vertical   (2) -> orthogonal (4) -> all (8)
#   diagonal   (4) -------------------> all (8)
# Down is the main line: all -> orthogonal -> horizontal; diagonal, horizontal and
# vertical have nothing below them.
DIRECTIONS_UP: dict[str, str] = {
    "horizontal": "orthogonal",
    "vertical": "orthogonal",
    "orthogonal": "all",
    "diagonal": "all",
}
DIRECTIONS_DOWN: dict[str, str] = {
    "all": "orthogonal",
    "orthogonal": "horizontal",
}


class CardEditError(ValueError):
    """An edit that cannot be made; the message is one line: ``CARD: FIELD: problem``."""


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n"}
    escapes |= {"\f": "\\f", "\r": "\\r"}
    out: list[str] = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(_toml_string(item) for item in items) + "]"


def _wake_text(minutes: int) -> str:
    """ "H:MM" as the card file writes it (a sign only for an out-of-range edit message)."""
    sign = "-" if minutes < 0 else ""
    return f"{sign}{abs(minutes) // 60}:{abs(minutes) % 60:02d}"


def _landscape_lines(card: Landscape, features: tuple[str, ...]) -> list[str]:
    names = [
        name for name, count in zip(features, card.features, strict=True) for _ in range(count)
    ]
    return ["[[landscape]]", f"id = {_toml_string(card.id)}", f"features = {_toml_list(names)}"]


def _commission_lines(card: Commission, features: tuple[str, ...]) -> list[str]:
    frames = [format_frame(frame, features) for frame in card.frames]
    return [
        "[[commission]]",
        f"id = {_toml_string(card.id)}",
        f"fame = {card.fame}",
        f"frames = {_toml_list(frames)}",
    ]


def _goal_lines(card: Goal) -> list[str]:
    lines = [
        "[[goal]]",
        f"id = {_toml_string(card.id)}",
        f"fame = {card.fame}",
        f"kind = {_toml_string(GOAL_KIND_NAMES[card.kind])}",
    ]
    if card.kind == GOAL_MOVED:
        lines.append(f"direction = {_toml_string(DIRCLASS_NAMES[card.param])}")
    elif card.kind in GOAL_KINDS_WITH_COUNT:
        lines.append(f"n = {card.param}")
    elif card.param != 0:
        raise CardEditError(
            f"{card.id}: param: kind {GOAL_KIND_NAMES[card.kind]!r} takes no parameter, "
            f"got {card.param}"
        )
    return lines


def _plan_lines(card: PlanCard) -> list[str]:
    return [
        "[[plan]]",
        f"id = {_toml_string(card.id)}",
        f"wake = {_toml_string(_wake_text(card.wake))}",
        f"directions = {_toml_string(card.directions)}",
        f"hike = {card.hike}",
        f"paint = {card.paint}",
    ]


def dump_cards(cards: CardSet) -> str:
    """The card set as TOML text in default.toml's notation; ``parse_cards`` reads it back.

    Comments of the original file are not kept (the records hold only the values).
    """
    blocks: list[list[str]] = [
        [
            "# Card set written by sunset_sim.cards.edit.dump_cards",
            "[set]",
            f"name = {_toml_string(cards.name)}",
            f"features = {_toml_list(cards.features)}",
        ]
    ]
    blocks += [_landscape_lines(card, cards.features) for card in cards.landscapes]
    blocks += [_commission_lines(card, cards.features) for card in cards.commissions]
    blocks += [_goal_lines(card) for card in cards.goals]
    blocks += [_plan_lines(card) for card in cards.plans]
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"


def card_kind(cards: CardSet, card_id: str) -> str:
    """ "landscape", "commission", "goal" or "plan": which deck holds ``card_id``."""
    return _kind(cards, card_id, "card")


def _kind(cards: CardSet, card_id: str, field: str) -> str:
    for kind, deck in (
        ("landscape", cards.landscapes),
        ("commission", cards.commissions),
        ("goal", cards.goals),
        ("plan", cards.plans),
    ):
        if any(card.id == card_id for card in deck):
            return kind
    raise CardEditError(f"{card_id}: {field}: no card with this id in set {cards.name!r}")


def _find(cards: CardSet, card_id: str, field: str) -> tuple[str, int]:
    """(deck name, index) of the card, after checking ``field`` applies to it."""
    if field not in FIELDS:
        raise CardEditError(f"{card_id}: {field}: unknown field (one of {', '.join(FIELDS)})")
    kind = _kind(cards, card_id, field)
    if kind not in FIELD_KINDS[field]:
        raise CardEditError(
            f"{card_id}: {field}: not a field of a {kind} card "
            f"(applies to {' and '.join(FIELD_KINDS[field])} cards)"
        )
    return kind, next(i for i, card in enumerate(_deck(cards, kind)) if card.id == card_id)


def _deck(
    cards: CardSet, kind: str
) -> tuple[Commission, ...] | tuple[Goal, ...] | tuple[PlanCard, ...]:
    return {"commission": cards.commissions, "goal": cards.goals, "plan": cards.plans}[kind]


def card_value(cards: CardSet, card_id: str, field: str) -> str:
    """The card's current ``field`` as the card file writes it: "5:30", "orthogonal", "3"."""
    kind, index = _find(cards, card_id, field)
    card = _deck(cards, kind)[index]
    if isinstance(card, PlanCard) and field == "wake":
        return _wake_text(card.wake)
    return str(getattr(card, field))


def _step_directions(card_id: str, current: str, steps: int) -> str:
    ladder = DIRECTIONS_UP if steps > 0 else DIRECTIONS_DOWN
    value = current
    for _ in range(abs(steps)):
        if value not in ladder:
            more = "more" if steps > 0 else "fewer"
            raise CardEditError(
                f"{card_id}: directions: no {more} directions than {value!r} on the ladder "
                f"(from {current!r} by {steps:+d})"
            )
        value = ladder[value]
    return value


def _edited_path(cards: CardSet, what: str) -> str:
    """``<edited: C07 fame +1>``; a further edit of an edited set appends to the list."""
    if cards.path.startswith("<edited: ") and cards.path.endswith(">"):
        return f"{cards.path[:-1]}, {what}>"
    return f"<edited: {what}>"


def matching_source(cards: CardSet) -> CardSet:
    """``cards`` if its cards are those its source text gives, else the same cards read
    back from their dump (the loader's checks, their own ``source`` and ``content_hash``).
    A set made with ``dataclasses.replace`` kept the original's source and hash: it was
    played on the original's cached tables (or the original on its), and recorded as the
    original. Raises ``CardSetError`` where the changed cards break the loader's rules."""
    if getattr(cards, SOURCE_CHECKED, False):
        return cards
    try:
        given = parse_cards(cards.source, cards.path)
    except (CardSetError, TypeError, AttributeError):  # (a source that is not the cards')
        given = None
    if given is not None and _cards_of(given) == _cards_of(cards):
        object.__setattr__(cards, SOURCE_CHECKED, True)
        return cards
    path = cards.path if str(cards.path).startswith("<edited") else "<edited in Python>"
    return parse_cards(dump_cards(cards), path)


def _cards_of(cards: CardSet) -> tuple:
    return (
        cards.name,
        cards.features,
        cards.landscapes,
        cards.commissions,
        cards.goals,
        cards.plans,
    )


def edit_card(cards: CardSet, card_id: str, field: str, steps: int) -> CardSet:
    """The same set with one number of one card moved by ``steps`` (negative = down).

    Fields: "fame" (commissions and goals, 1 fame a step), "wake" (plans, 15 minutes a
    step, positive = later), "hike" and "paint" (plans, 1 a step), "directions" (plans,
    along the ladder horizontal/vertical -> orthogonal -> all, diagonal -> all; positive =
    more directions; down goes all -> orthogonal -> horizontal). Ranges: the loader's
    (fame 0..99, hike 1..4, paint 1..5, wake 0:00..23:59).

    Ids and order never change, so a seeded deal stays identical (``deal_key``). The
    result is the dumped, edited TOML re-read by ``parse_cards``: it has the loader's
    checks, ``content_hash`` and ``source``, and ``path`` "<edited: C07 fame +1>"
    (edits of an edited set are appended: "<edited: C07 fame +1, P3 wake -2>").
    Raises ``CardEditError`` (a ``ValueError``) naming card, field and problem.
    """
    if not isinstance(cards, CardSet):  # (None or a path: an AttributeError inside)
        raise CardEditError(
            f"{card_id}: {field}: cards must be a CardSet (load_cards(path)), got "
            f"{type(cards).__name__}"
        )
    if isinstance(steps, bool | np.bool_) or not isinstance(steps, numbers.Integral):
        raise CardEditError(f"{card_id}: {field}: steps must be an integer, got {steps!r}")
    steps = int(steps)  # (a numpy integer, as every other call takes)
    kind, index = _find(cards, card_id, field)
    card = _deck(cards, kind)[index]
    changes: dict[str, object]
    if isinstance(card, PlanCard) and field == "directions":
        shown_new = _step_directions(card_id, card.directions, steps)
        changes = {"directions": shown_new, "direction_mask": DIRECTION_SETS[shown_new]}
    else:
        old = getattr(card, field)
        new_value = old + steps * (WAKE_STEP if field == "wake" else 1)
        low, high = RANGES[field]
        if not low <= new_value <= high:
            show = _wake_text if field == "wake" else str
            raise CardEditError(
                f"{card_id}: {field}: {show(old)} {steps:+d} step(s) gives {show(new_value)}, "
                f"outside {show(low)} to {show(high)}"
            )
        changes = {field: new_value}
        shown_new = _wake_text(new_value) if field == "wake" else str(new_value)
    deck = list(_deck(cards, kind))
    deck[index] = dataclasses.replace(card, **changes)  # type: ignore[arg-type]
    edited = dataclasses.replace(cards, **{f"{kind}s": tuple(deck)})
    path = _edited_path(cards, f"{card_id} {field} {steps:+d}")
    result = parse_cards(dump_cards(edited), path)
    assert card_value(result, card_id, field) == shown_new
    return result


_TABLE = re.compile(r"""^\s*\[\[\s*["']?(\w+)["']?\s*\]\]\s*(#.*)?$""")
_HEADER = re.compile(r"^\s*\[")
_ID = re.compile(r"""^\s*(?:id|"id"|'id')\s*=\s*(?:"([^"\\]*)"|'([^']*)')\s*(#.*)?$""")


def _shown(card: Commission | Goal | PlanCard, field: str) -> str:
    """The field's value as TOML, as ``dump_cards`` writes it."""
    if isinstance(card, PlanCard) and field == "wake":
        return _toml_string(_wake_text(card.wake))
    value = getattr(card, field)
    return _toml_string(value) if isinstance(value, str) else str(value)


def edited_text(cards: CardSet, edited: CardSet) -> str:
    """``cards.source`` (the file as the user wrote it) with the fields that ``edited``
    changes rewritten in place: comments, order and layout kept, so a diff of the two
    files shows just the edits. Where the file does not hold each changed field on a line
    of its own in its card's ``[[commission]]``, ``[[goal]]`` or ``[[plan]]`` table (an
    inline table, say), or anything else differs, it is ``dump_cards(edited)``: the
    result is always a file that ``parse_cards`` reads as ``edited``."""
    changes: dict[tuple[str, str], dict[str, str]] = {}
    for kind in ("commission", "goal", "plan"):
        for before, after in zip(_deck(cards, kind), _deck(edited, kind), strict=True):
            for field in FIELDS:
                if kind in FIELD_KINDS[field] and getattr(before, field) != getattr(after, field):
                    changes.setdefault((kind, after.id), {})[field] = _shown(after, field)
    # lines split at "\n" only (TOML's line end; str.splitlines also splits at U+2028 and
    # other separators a comment or string may hold), then each card's table as a whole:
    # its id may come after the field ("fame = 3" before "id = ..."), and keys and the
    # table name may be quoted ("fame" = 3, [["commission"]])
    lines = re.findall(r"[^\n]*\n|[^\n]+$", cards.source)
    starts = [n for n, line in enumerate(lines) if _HEADER.match(line)] + [len(lines)]
    done = 0
    for start, end in zip(starts, starts[1:], strict=False):
        table = _TABLE.match(lines[start])
        ids = [_ID.match(line) for line in lines[start + 1 : end]]
        found = [match for match in ids if match]
        if table is None or len(found) != 1:
            continue
        card_id = found[0].group(1) if found[0].group(1) is not None else found[0].group(2)
        for field, value in changes.get((table.group(1), card_id), {}).items():
            key = rf"""(?:{field}|"{field}"|'{field}')"""
            for number in range(start + 1, end):
                pattern = re.match(
                    rf"^(\s*{key}\s*=\s*)([^#\n]*?)(\s*(#.*)?)(\r?\n)?$", lines[number]
                )
                if pattern:
                    lines[number] = pattern.expand(rf"\g<1>{value}\g<3>") + (pattern.group(5) or "")
                    done += 1
    text = "".join(lines)
    expected = sum(len(fields) for fields in changes.values())
    try:
        same = done == expected and fame_changes(edited, parse_cards(text, edited.path)) == []
    except ValueError:  # (a CardSetError: a layout this reading got wrong)
        same = False
    return text if same else dump_cards(edited)


def deal_key(cards: CardSet) -> str:
    """Hash of what a seeded deal depends on (the ordered card ids); see ``CardSet.deal_key``."""
    return cards.deal_key


def fame_changes(base: CardSet, other: CardSet) -> list[int] | None:
    """The indices of the commissions whose fame is all that tells ``other`` from
    ``base`` (``[]``: equal cards); None when anything else differs (ids, order, frames,
    any other card or the feature types). A study uses it to replay an edited set only
    on the deals where a changed commission turned up."""
    if (base.features, base.landscapes, base.goals, base.plans) != (
        other.features,
        other.landscapes,
        other.goals,
        other.plans,
    ) or len(base.commissions) != len(other.commissions):
        return None
    changed = []
    for index, (mine, theirs) in enumerate(zip(base.commissions, other.commissions, strict=True)):
        if (mine.id, mine.frames) != (theirs.id, theirs.frames):
            return None
        if mine.fame != theirs.fame:
            changed.append(index)
    return changed
