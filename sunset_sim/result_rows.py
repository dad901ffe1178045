"""What a results table's rows must hold: its per-day and per-word columns by what they
hold (the one place for their names), and ``check_rows``, which a report and a dataset
folder apply to every file before reading it, so that a damaged or edited file is one
line naming the file, the row and the column, never a wrong report."""

from __future__ import annotations

import decimal
import math
import re
from typing import TYPE_CHECKING

import numpy as np

from sunset_sim.enums import END_REASON_NAMES, MAX_PLAYERS, MIN_PLAYERS
from sunset_sim.lazy import LazyModule
from sunset_sim.results import SEAT_COLUMNS
from sunset_sim.validation import InputError, short_number

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use (lazy.py)
    pd = LazyModule("pandas")

# The per-day and per-word columns ``frame_columns`` writes, by what they hold: the one
# place for their names (``check_rows`` checks them, the report reads them).
PLAN_PATTERN = r"plan_day\d+"  # the plan card kept that day: a label, missing after an early end
DAY_VALUE_PATTERNS = (  # whole numbers, -1 on days not played
    r"turn_day\d+",
    r"fame_day\d+",
    r"painted_day\d+",
    r"goal_day\d+",
    r"goal_card_day\d+",
)
WORD_PATTERNS = (  # uint64 bitmask words
    r"commissions_day\d+_\d+",
    r"painted_\d+",
    r"available_\d+",
    r"commissions_shown_\d+",
)
DAY_PATTERNS = (PLAN_PATTERN, *DAY_VALUE_PATTERNS, *WORD_PATTERNS)


def any_of(patterns: tuple[str, ...]) -> re.Pattern:
    """One regex matching any of ``patterns`` (use with ``fullmatch``)."""
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


# What a results file's rows must hold (``check_rows``): the columns ``frame_columns``
# writes, each with its range.
_WORD_COLUMN = any_of(WORD_PATTERNS)
_DAY_COLUMN = any_of(DAY_VALUE_PATTERNS)
_TEXT_COLUMN = any_of(("strategy", "end_reason", PLAN_PATTERN))
_SMALL = 2**15 - 1  # the int16 columns' largest value


def text_columns(names: list[str]) -> list[str]:
    """The label columns among ``names`` (strategy, end reason, each day's plan card):
    read back from CSV as the text written, a plan card "NA" or "01" included."""
    return [name for name in names if _TEXT_COLUMN.fullmatch(name)]


_WON = {1: True, 0: False, "True": True, "False": False, "true": True, "false": False}
_WON.update({"1": True, "0": False})  # True and False are the keys 1 and 0


def check_rows(frame: pd.DataFrame, where: str, players: int | None = None) -> pd.DataFrame:
    """``frame`` if its rows are a results table as ``frame_columns`` writes it, with its
    whole-number columns made integers; else an InputError of one line naming ``where``,
    the row (counted from 1, the header not counted), the column and the allowed values.

    Checked: every number column whole and within its range (seat 0 to players - 1,
    fame and counts >= 0, win_share 0 to 1, won true/false or 0/1), nothing empty but a
    plan after an early end, strategy labels printable, and every game having exactly
    one row per seat, its winners sharing the win. ``players``: as recorded with the
    rows; None (older files) takes it from the largest seat."""
    if players is None and "seat" in frame:
        seats = _whole(frame, "seat", where, 0, MAX_PLAYERS - 1, "a game has at most 4 seats")
        players = int(seats.max()) + 1 if len(seats) else MIN_PLAYERS
        if players < MIN_PLAYERS:
            raise InputError(
                f"{where}: column 'seat': only seat 0 appears; a game has {MIN_PLAYERS} to "
                f"{MAX_PLAYERS} players"
            )
    players = players or MAX_PLAYERS
    # the days the file has columns for (plan_day1 .. plan_dayD): none played more
    days = {int(re.sub(r"\D", "", n)) for n in frame.columns if re.fullmatch(PLAN_PATTERN, n)}
    most_days = max(days, default=_SMALL)
    for name in list(frame.columns):
        if _TEXT_COLUMN.fullmatch(name):
            _check_text(frame, name, where)
        elif name == "won":
            _check_won(frame, where)
        elif name == "win_share":
            _check_share(frame, where)
        elif name == "seat":
            _whole(frame, name, where, 0, players - 1, f"a {players}-player file")
        elif name == "n_winners":
            _whole(frame, name, where, 1, players, f"a {players}-player file")
        elif name == "game":
            _whole(frame, name, where, 0, 2**63 - 1)
        elif _WORD_COLUMN.fullmatch(name):  # bitmasks: uint64 as the engine writes them
            frame[name] = _whole(frame, name, where, 0, 2**64 - 1).astype(np.uint64)
        elif re.fullmatch(r"turn_day\d+", name):  # a turn position, first 0
            _whole(frame, name, where, -1, players - 1, "-1 on days not played")
        elif _DAY_COLUMN.fullmatch(name):
            _whole(frame, name, where, -1, _SMALL, "-1 on days not played")
        elif name == "days_played":
            _whole(frame, name, where, 1, most_days, f"the file has {most_days} days")
        elif name in SEAT_COLUMNS:
            _whole(frame, name, where, 0, _SMALL)
    if {"game", "seat"} <= set(frame.columns):
        _check_games(frame, where, players)
    return frame


def _row_error(where: str, frame: pd.DataFrame, mask: np.ndarray, name: str, problem: str):
    row = int(np.flatnonzero(mask)[0])
    cell = frame[name].iloc[row]
    if _missing(cell):
        shown = "an empty (or NaN) cell"
    elif isinstance(cell, str):
        shown = repr(cell) if len(cell) <= 40 else f"{cell[:24]!r}... ({len(cell)} characters)"
    else:
        shown = short_number(cell.item() if isinstance(cell, np.generic) else cell)
    return InputError(f"{where}: row {row + 1}, column {name!r}: {shown} {problem}")


def _missing(cell: object) -> bool:
    return cell is None or cell is pd.NA or (isinstance(cell, float) and math.isnan(cell))


def _whole(
    frame: pd.DataFrame, name: str, where: str, low: int, high: int, note: str = ""
) -> np.ndarray:
    """The column as whole numbers within low..high (written back as integers)."""
    column = frame[name]
    allowed = f"a whole number from {low} to {high}" + (f" ({note})" if note else "")
    dtype = column.dtype
    if pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        values = column.to_numpy()
        if len(values) and (int(values.min()) < low or int(values.max()) > high):
            limits = np.iinfo(values.dtype)  # bounds past the dtype's cannot be crossed
            bad = np.zeros(len(values), dtype=bool)
            if low > limits.min:
                bad |= values < low
            if high < limits.max:
                bad |= values > high
            raise _row_error(where, frame, bad, name, f"is not {allowed}")
        return values
    if pd.api.types.is_float_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        numbers = column.to_numpy(dtype=np.float64, na_value=np.nan)
        texts = None
    else:  # text cells (a word that is not a number, a mix of numbers and words)
        texts = column.astype(object).to_numpy()
        numbers = pd.to_numeric(column.astype(object), errors="coerce").to_numpy(np.float64)
        if pd.api.types.is_bool_dtype(dtype):
            numbers = np.full(len(column), np.nan)
    with np.errstate(invalid="ignore"):
        bad = (
            ~np.isfinite(numbers)
            | (numbers != np.floor(numbers))
            | (numbers < low)
            | (numbers > high)
        )
    if bad.any():
        raise _row_error(where, frame, bad, name, f"is not {allowed}")
    if texts is not None and high >= 2**53:  # exact values, not float's nearest
        try:  # digits only, the usual text: numpy parses them exactly
            values = texts.astype(str).astype(np.uint64)
        except (ValueError, OverflowError):  # "12.0", "1.2e1": one cell at a time
            exact = [_exact_whole(text) for text in texts]
            wrong = np.array([value is None or not low <= value <= high for value in exact])
            if wrong.any():
                raise _row_error(where, frame, wrong, name, f"is not {allowed}") from None
            values = np.array(exact, dtype=np.uint64)
        if (values > np.uint64(high)).any():  # (the check above compared floats)
            raise _row_error(where, frame, values > np.uint64(high), name, f"is not {allowed}")
    elif high >= 2**53 and len(numbers) and np.abs(numbers).max() >= 2**53:
        # a float column (a CSV cell written "5.0") holds such a number only to the nearest
        # representable one: its bits could not be trusted
        raise _row_error(
            where, frame, np.abs(numbers) >= 2**53, name,
            "is read as a decimal number, inexact past 2**53: write the column's numbers "
            "without a decimal point",
        )  # fmt: skip
    else:
        values = numbers.astype(np.int64)
    frame[name] = values
    return values


def _exact_whole(text: object) -> int | None:
    """The whole number a cell's text writes ("12", "12.0", "1.2e1"), exactly; None if it
    writes none."""
    try:
        number = decimal.Decimal(str(text).strip())
    except decimal.InvalidOperation:
        return None
    return int(number) if number.is_finite() and number == number.to_integral_value() else None


def _check_share(frame: pd.DataFrame, where: str) -> None:
    column = frame["win_share"]
    if pd.api.types.is_bool_dtype(column.dtype):
        numbers = np.full(len(column), np.nan)
    elif pd.api.types.is_numeric_dtype(column.dtype):
        numbers = column.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        numbers = pd.to_numeric(column.astype(object), errors="coerce").to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~((numbers >= 0) & (numbers <= 1))  # NaN fails both
    if bad.any():
        raise _row_error(where, frame, bad, "win_share", "is not a number from 0 to 1")
    frame["win_share"] = numbers


def _check_won(frame: pd.DataFrame, where: str) -> None:
    column = frame["won"]
    if pd.api.types.is_bool_dtype(column.dtype) and not column.isna().any():
        return
    won = [
        _WON.get(value) if isinstance(value, str | int | np.integer) else None
        for value in column.astype(object).to_numpy()
    ]
    bad = np.array([value is None for value in won], dtype=bool)
    if bad.any():
        raise _row_error(where, frame, bad, "won", "is not True/False or 1/0")
    frame["won"] = np.array(won, dtype=bool)


def _check_text(frame: pd.DataFrame, name: str, where: str) -> None:
    """Labels as text: printable (a terminal escape in a label would reach the report
    and the terminal), present but for a plan after an early end, end reasons known."""
    column = frame[name]
    if isinstance(column.dtype, pd.CategoricalDtype):
        labels = list(column.cat.categories)
        missing = column.cat.codes.to_numpy() < 0
    else:
        labels = list(column.unique())  # Arrow-backed text: no Python object per row
        missing = column.isna().to_numpy()
    if missing.any() and not name.startswith("plan_day"):
        raise _row_error(where, frame, missing, name, "where a label belongs")
    for label in labels:
        if _missing(label):
            continue
        if not isinstance(label, str | int) or isinstance(label, bool):
            problem = "is not a label"
        elif name == "end_reason" and label not in END_REASON_NAMES:
            problem = f"is not one of {', '.join(END_REASON_NAMES)}"
        elif isinstance(label, str) and not (label.strip() and label.isprintable()):
            problem = "is not a label (empty, or holding control characters)"
        else:
            continue
        raise _row_error(where, frame, (column == label).to_numpy(dtype=bool), name, problem)


def whole_games(frame: pd.DataFrame, where: str, players: int) -> np.ndarray:
    """The row order that puts each game's seats together (``np.arange`` when the rows
    are as written), if every game has exactly one row per seat 0 to players - 1; else an
    InputError of one line naming ``where``, the row and the game. The one check of whole
    games: results reading (``check_rows``) and the report's own frames use it."""
    games = frame["game"].to_numpy()
    seat = frame["seat"].to_numpy()
    if (
        len(games)
        and np.issubdtype(games.dtype, np.number)  # a frame's own game labels: sorted below
        and (np.diff(games) >= 0).all()
        and (np.diff(seat)[np.diff(games) == 0] > 0).all()
    ):
        order = np.arange(len(games))  # as written: in game and seat order (no sort)
    else:
        order = np.lexsort((seat, games))
    first, counts = np.unique(games[order], return_index=True, return_counts=True)[1:]
    short = counts != players
    if short.any():
        row = order[first[np.flatnonzero(short)[0]]]
        game = _game(games[row])
        raise InputError(
            f"{where}: row {row + 1}: game {game} has {counts[short][0]} rows; every game "
            f"of a {players}-player file has one row per seat 0 to {players - 1}"
        )
    seats = seat[order].reshape(-1, players)
    twice = (seats != np.arange(players)).any(axis=1)
    if twice.any():
        row = order[np.flatnonzero(twice)[0] * players]
        raise InputError(
            f"{where}: row {row + 1}: game {_game(games[row])} does not have one row for "
            f"each seat 0 to {players - 1}"
        )
    return order


def _game(value: object) -> object:
    """A game's number as a message names it (an int, not numpy's ``np.int64(5)``)."""
    return int(value) if isinstance(value, int | np.integer) else value


def _check_games(frame: pd.DataFrame, where: str, players: int) -> None:
    """One row per seat in every game (``whole_games``), and the win shared by its
    winners (``win_share`` 1/n_winners for each of n_winners rows, 0 for the others;
    ``won`` the same rows)."""
    order = whole_games(frame, where, players)
    if "days_played" in frame:  # a game's, the same in each of its rows
        days = frame["days_played"].to_numpy()[order].reshape(-1, players)
        differ = (days != days[:, :1]).any(axis=1)
        if differ.any():
            row = order[np.flatnonzero(differ)[0] * players]
            raise InputError(
                f"{where}: row {row + 1}: game {int(frame['game'].iloc[row])}'s rows "
                "disagree on days_played (a game's, the same for every seat)"
            )
    _check_game_facts(frame, where, players, order)
    if "win_share" not in frame or "n_winners" not in frame:
        return
    games = frame["game"].to_numpy()
    share = frame["win_share"].to_numpy()[order].reshape(-1, players)
    winners = frame["n_winners"].to_numpy()[order].reshape(-1, players)
    wins = share > 0
    right = (
        (winners == winners[:, :1]).all(axis=1)
        & (wins.sum(axis=1) == winners[:, 0])
        & (np.abs(np.where(wins, share - 1 / winners, 0)) < 1e-9).all(axis=1)
    )
    if "won" in frame:
        right &= (frame["won"].to_numpy()[order].reshape(-1, players) == wins).all(axis=1)
    if not right.all():
        row = order[np.flatnonzero(~right)[0] * players]
        raise InputError(
            f"{where}: row {row + 1}: game {int(games[row])}'s win_share, n_winners and "
            "won disagree: each of its n_winners winners has win_share 1/n_winners and "
            "won true, the others 0 and false"
        )
    if "fame" in frame:  # R-END-3: the winners are the players with the most fame
        fame = frame["fame"].to_numpy()[order].reshape(-1, players)
        wrong = ((fame == fame.max(axis=1, keepdims=True)) != wins).any(axis=1)
        if wrong.any():
            row = order[np.flatnonzero(wrong)[0] * players]
            raise InputError(
                f"{where}: row {row + 1}: game {int(games[row])}'s winners (win_share > 0) "
                "are not the seats with the most fame (R-END-3: those share the win)"
            )


def _first_bad_game(where: str, frame, order, players: int, bad: np.ndarray, problem: str):
    row = order[np.flatnonzero(bad)[0] * players]
    return InputError(f"{where}: row {row + 1}: game {_game(frame['game'].iloc[row])}: {problem}")


def _check_game_facts(frame: pd.DataFrame, where: str, players: int, order: np.ndarray):
    """What each game's rows must agree on beyond their cells: fame the sum of its
    parts (R-END-2), one end_reason, and each day's turn order a ranking of the seats
    (-1 for every seat on a day not played)."""
    parts = [f"fame_{part}" for part in ("commissions", "goals", "paintings")]
    if "fame" in frame and all(part in frame for part in parts):
        total = sum(frame[part].to_numpy().astype(np.int64) for part in parts)
        bad = frame["fame"].to_numpy().astype(np.int64)[order] != total[order]
        if bad.any():
            row = order[np.flatnonzero(bad)[0]]
            raise InputError(
                f"{where}: row {row + 1}, column 'fame': {int(frame['fame'].iloc[row])} is "
                f"not fame_commissions + fame_goals + fame_paintings ({int(total[row])})"
            )
    if "end_reason" in frame:
        reason = pd.factorize(frame["end_reason"])[0][order].reshape(-1, players)
        bad = (reason != reason[:, :1]).any(axis=1)
        if bad.any():
            raise _first_bad_game(
                where, frame, order, players, bad,
                "its rows disagree on end_reason (a game's, the same for every seat)",
            )  # fmt: skip
    everyone = (1 << players) - 1
    for name in [n for n in frame.columns if re.fullmatch(r"turn_day\d+", n)]:
        turn = frame[name].to_numpy().astype(np.int64)[order].reshape(-1, players)
        ranked = (np.left_shift(1, np.maximum(turn, 0)) * (turn >= 0)).sum(axis=1) == everyone
        bad = ~(ranked | (turn == -1).all(axis=1))
        if bad.any():
            raise _first_bad_game(
                where, frame, order, players, bad,
                f"column {name!r} does not give each seat its own turn 0 to {players - 1} "
                "(or -1 to every seat on a day not played)",
            )  # fmt: skip
