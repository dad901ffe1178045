"""The rule options (docs/rules.md, marked OPTION) in one record."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from sunset_sim.enums import TIE_BREAK_NAMES
from sunset_sim.validation import InputError


class RuleOptionError(InputError):
    """A rule option that does not exist or has a bad value."""


def _shown(value) -> str:
    """A bad option value as a record (JSON) or the command line wrote it: null and
    true, not Python's None and True."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else repr(value)


@dataclass(frozen=True)
class Rules:
    """R-ORD-2 ``tie_break``: random | seat | lowest-fame; ``days``: game length (6)."""

    tie_break: str = "random"
    days: int = 6

    def __post_init__(self) -> None:
        if self.tie_break not in TIE_BREAK_NAMES:
            shown = _shown(self.tie_break)
            raise RuleOptionError(f"tie_break: {shown} is not one of {', '.join(TIE_BREAK_NAMES)}")
        days = self.days
        # any whole number (numpy's too: np.arange(3, 7) as sweep values), never a bool
        if isinstance(days, numbers.Integral) and not isinstance(days, bool):
            days = int(days)
        if type(days) is not int or not 1 <= days <= 12:
            raise RuleOptionError(f"days: {_shown(self.days)} is not a whole number from 1 to 12")
        object.__setattr__(self, "days", days)  # plain values: records and JSON
        object.__setattr__(self, "tie_break", str(self.tie_break))

    @property
    def tie_break_code(self) -> int:
        return TIE_BREAK_NAMES.index(self.tie_break)

    def to_dict(self) -> dict:
        """The options as plain data (JSON-ready: manifests, provenance, records)."""
        return asdict(self)

    def describe(self) -> str:
        """``tie_break=random, days=6``: how a report's or a study's header names them."""
        return ", ".join(f"{key}={value}" for key, value in self.to_dict().items())

    @classmethod
    def from_dict(cls, data: dict) -> Rules:
        """Rules from ``{"days": 4, ...}``; an unknown key, or anything but a mapping, is
        a RuleOptionError (one line)."""
        if not isinstance(data, Mapping):
            raise RuleOptionError(
                f"expected a mapping of rule options such as {{'days': 4}}, "
                f"got {type(data).__name__}"
            )
        known = {f.name for f in fields(cls)}
        unknown = sorted((key for key in data if key not in known), key=str)
        if unknown:
            raise RuleOptionError(
                f"unknown rule option {unknown[0]!r:.40} (known: {', '.join(sorted(known))})"
            )
        return cls(**data)

    @classmethod
    def parse(cls, assignments: list[str] | tuple[str, ...]) -> Rules:
        """Rules from ``key=value`` strings as the CLI's ``--rule`` takes them. A key given
        twice is refused: which value was meant is ambiguous, not "the last one wins"."""
        return cls.from_dict(cls._assigned(assignments))

    @classmethod
    def named(cls, assignments: list[str] | tuple[str, ...]) -> frozenset[str]:
        """The options that ``key=value`` strings name (``tie-break=seat`` names
        ``tie_break``): a results file's rules are checked against those alone."""
        return frozenset(cls._assigned(assignments))

    @staticmethod
    def _assigned(assignments) -> dict:
        if isinstance(assignments, str):  # one assignment, not its letters
            assignments = [assignments]
        try:
            assignments = list(assignments)
        except TypeError:
            raise RuleOptionError(
                f"rules: expected key=value texts, got {type(assignments).__name__}"
            ) from None
        values: dict = {}
        for text in assignments:
            if not isinstance(text, str):
                raise RuleOptionError(f"rules: {text!r} is not a key=value text"[:120])
            key, sep, value = text.partition("=")
            key = key.strip().replace("-", "_")
            if not sep:
                raise RuleOptionError(f"{text!r} is not of the form key=value")
            if key in values:
                raise RuleOptionError(f"rule option {key[:40]!r} is given more than once")
            digits = value.strip()
            number = digits[1:] if digits[:1] in ("+", "-") else digits  # (a sign, as README)
            # (leading zeros are no size: days=0000000006 is 6, as --players 0000000002 is 2)
            whole = number.isascii() and number.isdigit() and len(number.lstrip("0")) < 10
            values[key] = int(digits) if key == "days" and whole else digits
        return values
