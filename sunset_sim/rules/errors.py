"""The one error the reference engine raises for an illegal step."""

from __future__ import annotations


class RuleViolation(Exception):
    """An illegal decision or record entry, naming the rule it breaks."""

    def __init__(self, rule: str, message: str, day: int | None = None, seat: int | None = None):
        self.rule = rule
        self.message = message
        self.day = day
        self.seat = seat
        super().__init__(self.line())

    def line(self) -> str:
        where = []
        if self.day is not None:
            where.append(f"day {self.day}")
        if self.seat is not None:
            where.append(f"player {self.seat}")
        prefix = ", ".join(where)
        return f"{prefix + ': ' if prefix else ''}{self.rule}: {self.message}"
