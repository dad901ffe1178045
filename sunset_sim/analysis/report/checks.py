"""What a game can produce, checked in the results a report reads (beyond the column
ranges of ``result_rows.check_rows``, which knows no card set): an edited file with
impossible values was reported as if played. Each check here held on every game of
2-4 players, days 3 and 6, the default set and small sets ending early (2026-12-06)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from sunset_sim.analysis.report.model import ReportInputError
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.jit import jit
from sunset_sim.enums import END_REASON_NAMES, GOAL_FLAG_KEPT, GOAL_FLAG_MET, GOAL_FLAG_TOOK
from sunset_sim.strategy_tools import lowest_bit


def _word_columns(frame: pd.DataFrame, prefix: str) -> list[str]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    found = sorted(
        (int(m.group(1)), c) for c in frame.columns if (m := pattern.fullmatch(c)) is not None
    )
    return [c for _, c in found]


def _words(frame: pd.DataFrame, prefix: str) -> np.ndarray | None:
    columns = _word_columns(frame, prefix)
    if not columns:
        return None
    return np.column_stack([frame[c].to_numpy().astype(np.uint64) for c in columns])


def _days_of(frame: pd.DataFrame, prefix: str) -> list[int]:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)_\d+")
    return sorted({int(m.group(1)) for c in frame.columns if (m := pattern.fullmatch(c))})


def _fail(frame: pd.DataFrame, bad: np.ndarray, column: str, problem: str) -> ReportInputError:
    """The first bad row, by game and seat; ``bad`` (rows, words): the column's word named."""
    if bad.ndim == 2:
        word = int(np.flatnonzero(bad.any(axis=0))[0])
        column, bad = f"{column}_{word}", bad[:, word]
    row = int(np.flatnonzero(bad)[0])
    return ReportInputError(
        f"results: game {frame['game'].iloc[row]}, seat {frame['seat'].iloc[row]}, "
        f"column {column!r}: {problem}"
    )


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits per row of uint64 words (numpy >= 1.26 has no bitwise_count)."""
    total = np.zeros(words.shape[0], dtype=np.int64)
    for column in words.T:
        x = column - ((column >> np.uint64(1)) & np.uint64(0x5555555555555555))
        x = (x & np.uint64(0x3333333333333333)) + (
            (x >> np.uint64(2)) & np.uint64(0x3333333333333333)
        )
        x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        total += ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)
    return total


def check_card_words(frame: pd.DataFrame, cards: CardSet, players: int) -> None:
    """The bitmask columns hold what a game can: no bit past the card set's cards; a
    commission completed once in a game (on one day, by one seat), only when shown, and as
    many as ``commissions_won`` says; a landscape painted only when available. Else one
    ReportInputError naming the game, seat and column (``frame`` sorted by game and
    seat). An edited file with every commission completed every day was reported as a
    2,400% shown rate and 100% completion."""

    def fail(bad: np.ndarray, column: str, problem: str) -> ReportInputError:
        return _fail(frame, bad, column, problem)

    counts = {"commissions_": len(cards.commissions), "": len(cards.landscapes)}
    for prefix in ("commissions_day", "commissions_shown_", "painted_", "available_"):
        n_cards = counts["commissions_" if prefix.startswith("comm") else ""]
        for column in [c for c in frame.columns if re.fullmatch(rf"{prefix}(\d+_)?\d+", c)]:
            word = int(column.rsplit("_", 1)[1])
            values = frame[column].to_numpy().astype(np.uint64)
            spare = max(0, min(64, 64 * (word + 1) - n_cards))  # bits past the last card
            if spare:
                high = ~np.uint64(0) << np.uint64(64 - spare)
                bad = (values & high) != 0
                if bad.any():
                    raise fail(bad, column, f"a bit past the card set's {n_cards} cards")
    painted = _words(frame, "painted_")
    days = _days_of(frame, "commissions_day")
    if not days:
        _check_painted_count(frame, painted)
        return
    completed = None
    for day in days:
        words = _words(frame, f"commissions_day{day}_")
        if completed is not None and completed.shape == words.shape:
            twice = (completed & words) != 0
            if twice.any():
                raise fail(twice, f"commissions_day{day}", "a commission completed twice")
            completed |= words
        else:
            completed = words
    by_game = completed.reshape(-1, players, completed.shape[1])
    seen = np.zeros_like(by_game[:, 0])
    for seat in range(players):
        taken = np.repeat(((seen & by_game[:, seat]) != 0).any(axis=1), players)
        if taken.any():
            bad = taken & (frame["seat"].to_numpy() == seat)
            raise fail(bad, "commissions_day*", "a commission another seat completed")
        seen |= by_game[:, seat]
    shown = _words(frame, "commissions_shown_")
    if shown is not None and shown.shape == completed.shape:
        bad = (completed & ~shown) != 0
        if bad.any():
            raise fail(bad, "commissions_shown", "a commission completed but not shown")
    if "commissions_won" in frame:
        bad = _popcount(completed) != frame["commissions_won"].to_numpy()
        if bad.any():
            raise fail(bad, "commissions_won", "not the number of commissions completed")
    fame = np.zeros(len(frame), dtype=np.int64)
    frames = np.zeros(len(frame), dtype=np.int64)  # R-SELL-2: one painting a frame
    for index, commission in enumerate(cards.commissions):
        bit = (completed[:, index // 64] >> np.uint64(index % 64)) & np.uint64(1)
        fame += bit.astype(np.int64) * commission.fame
        frames += bit.astype(np.int64) * len(commission.frames)
    if "paintings_sold" in frame:
        bad = frames != frame["paintings_sold"].to_numpy()
        if bad.any():
            raise fail(
                bad, "paintings_sold", f"not the frames of the commissions completed in card "
                f"set {cards.name!r} (one painting a frame)",
            )  # fmt: skip
    if "fame_commissions" in frame:  # (another card set's games: their fame differs)
        bad = fame != frame["fame_commissions"].to_numpy()
        if bad.any():
            raise fail(
                bad, "fame_commissions", f"not the fame of the commissions completed in "
                f"card set {cards.name!r}: pass the card set the games were played with "
                "(--cards FILE)",
            )  # fmt: skip
    available = _words(frame, "available_")
    if painted is not None and available is not None and painted.shape == available.shape:
        bad = (painted & ~available) != 0
        if bad.any():
            raise fail(bad, "painted", "a landscape painted but not available")
    _check_painted_count(frame, painted)


def _check_painted_count(frame: pd.DataFrame, painted: np.ndarray | None) -> None:
    """A seat's painted landscapes are no more than its cards painted (fewer where a card
    came back from the discard pile and was painted again), and one at least if it
    painted any: a zeroed painted_0 showed every landscape painted 0 times."""
    if painted is None or "cards_painted" not in frame:
        return
    held, count = _popcount(painted), frame["cards_painted"].to_numpy().astype(np.int64)
    bad = (held > count) | ((held == 0) & (count > 0))
    if bad.any():
        columns = _word_columns(frame, "painted_")
        where = columns[0] if len(columns) == 1 else "painted_*"
        raise _fail(frame, bad, where, "not the landscapes of the cards_painted it counts")


def check_card_days(frame: pd.DataFrame, cards: CardSet, players: int) -> None:
    """The day columns hold what a game can: -1 exactly on the days not played; goal flags
    among GOAL_FLAG_*, kept by one seat a day and counted in ``goals_won``; no more cards
    painted a day than a plan card paints, and the days' sum ``cards_painted``; the goal
    shown a card of the set, the same on every seat; the fame after the last day played
    the final ``fame``; the game ending on its last day exactly when its reason is "days"
    (``frame`` sorted by game and seat). Each column is checked only where present."""

    def fail(bad: np.ndarray, column: str, problem: str) -> ReportInputError:
        return _fail(frame, bad, column, problem)

    days = sorted({int(m.group(2)) for c in frame.columns if (m := re.fullmatch(_DAY_COLUMNS, c))})
    _check_whole_days(frame)
    if "days_played" not in frame or not days:
        return
    played_through = frame["days_played"].to_numpy()
    most_paint = max((plan.paint for plan in cards.plans), default=0)
    painted_sum = np.zeros(len(frame), dtype=np.int64)
    kept_sum = np.zeros(len(frame), dtype=np.int64)
    goal_fame = np.array([goal.fame for goal in cards.goals] + [0], dtype=np.int64)
    kept_fame = np.zeros(len(frame), dtype=np.int64)  # (the last entry: no goal shown)
    final_fame = np.full(len(frame), -1, dtype=np.int64)
    shown_before: list[np.ndarray] = []  # the goal cards of the days before (int32)
    for day in days:
        played = played_through >= day
        for name in ("fame_day", "painted_day", "goal_day"):
            if f"{name}{day}" in frame:
                values = frame[f"{name}{day}"].to_numpy().astype(np.int64)
                bad = (values == -1) == played
                if bad.any():
                    raise fail(
                        bad, f"{name}{day}", f"-1 is for a day not played (days_played "
                        f"{played_through[np.flatnonzero(bad)[0]]}), and only then",
                    )  # fmt: skip
        if f"plan_day{day}" in frame:  # a plan card kept on every day played, and only then
            bad = frame[f"plan_day{day}"].isna().to_numpy() == played
            if bad.any():
                raise fail(
                    bad, f"plan_day{day}", "empty exactly on a day not played (days_played "
                    f"{played_through[np.flatnonzero(bad)[0]]})",
                )  # fmt: skip
        if f"fame_day{day}" in frame:
            final_fame = np.where(
                played_through == day, frame[f"fame_day{day}"].to_numpy(), final_fame
            )
        if f"painted_day{day}" in frame:
            painted = frame[f"painted_day{day}"].to_numpy().astype(np.int64)
            bad = painted > most_paint
            if bad.any():
                raise fail(bad, f"painted_day{day}", f"no plan card paints more than {most_paint}")
            painted_sum += np.maximum(painted, 0)
        kept = None  # this day's keepers, when its goal flags are there
        if f"goal_day{day}" in frame:
            flags = np.maximum(frame[f"goal_day{day}"].to_numpy().astype(np.int64), 0)
            bad = (flags & ~(GOAL_FLAG_MET | GOAL_FLAG_TOOK | GOAL_FLAG_KEPT)) != 0
            if bad.any():
                raise fail(bad, f"goal_day{day}", "a bit that is no goal flag (1, 2 or 4)")
            kept = (flags & GOAL_FLAG_KEPT) != 0
            twice = np.repeat(kept.reshape(-1, players).sum(axis=1) > 1, players) & kept
            if twice.any():
                raise fail(twice, f"goal_day{day}", "a day's goal kept by two seats")
            kept_sum += kept
        if f"goal_card_day{day}" in frame:
            shown = frame[f"goal_card_day{day}"].to_numpy().astype(np.int64)
            bad = (shown < -1) | (shown >= len(cards.goals))
            by_game = shown.reshape(-1, players)
            bad |= np.repeat((by_game != by_game[:, :1]).any(axis=1), players)
            if bad.any():
                raise fail(
                    bad, f"goal_card_day{day}",
                    f"not one goal card of the set's {len(cards.goals)} (or -1) for the game",
                )  # fmt: skip
            if kept is not None:
                kept_fame += kept * goal_fame[shown]
            # the goal deck is never reshuffled (R-SET-3): no card on two days of a game
            # (the goals table counts a card once a game; a moved one shifted two counts)
            again = np.zeros(len(frame), dtype=bool)
            for earlier in shown_before:
                again |= shown == earlier
            again &= shown >= 0
            if again.any():
                raise fail(
                    again, f"goal_card_day{day}", "a goal card shown on an earlier day of the "
                    "game too (the goal deck is never reshuffled, R-SET-3)",
                )  # fmt: skip
            shown_before.append(shown.astype(np.int32))
    other_set = f"in card set {cards.name!r}: pass the card set the games were played with"
    sums = (
        ("cards_painted", painted_sum, ("painted_day",), "not what the painted_day* columns give"),
        ("goals_won", kept_sum, ("goal_day",), "not what the goal_day* columns give"),
        ("fame", final_fame, ("fame_day",), "not what the fame_day* columns give"),
        (
            "fame_goals", kept_fame, ("goal_day", "goal_card_day"),
            f"not the fame of the goals kept {other_set} (--cards FILE)",
        ),
    )  # fmt: skip
    for column, expected, sources, problem in sums:
        if column in frame and all(f"{s}{day}" in frame for s in sources for day in days):
            bad = frame[column].to_numpy() != expected
            if bad.any():
                raise fail(bad, column, problem)
    plan_days = [day for day in days if f"plan_day{day}" in frame]
    if "end_reason" in frame and plan_days:
        last = (played_through == max(plan_days)) == (
            frame["end_reason"].astype(str).to_numpy() == END_REASON_NAMES[0]
        )
        if not last.all():
            raise fail(
                ~last, "end_reason", f"{END_REASON_NAMES[0]!r} exactly when the game played "
                f"its last day ({max(plan_days)})",
            )  # fmt: skip


def _plan_codes(column: pd.Series, ids: list[str]) -> np.ndarray:
    """Each row's plan card as its index in ``ids``; -1 for an empty day or a card not of
    the set (another check names that one). A categorical column by its categories (a
    million games' rows as objects took a second a day)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        lookup = pd.Index(ids).get_indexer(column.cat.categories.astype(object))
        raw = column.cat.codes.to_numpy().astype(np.int64)
        return np.where(raw >= 0, lookup[np.maximum(raw, 0)], -1).astype(np.int64)
    return pd.Index(ids).get_indexer(column.astype(object)).astype(np.int64)


def check_plans_and_turns(frame: pd.DataFrame, cards: CardSet, players: int) -> None:
    """Each seat keeps a plan card once (R-PLAN-1/3: a kept card leaves the deck), and a
    day's turns follow wake-up times (R-ORD-1: an earlier riser acts first; ties go by
    R-ORD-2). A row with a card kept twice, or a 6:45 riser acting before a 6:30 one,
    changed the plan and turn tables with exit 0 (``frame`` sorted by game and seat)."""
    days = sorted(
        int(c[len("plan_day") :]) for c in frame.columns if re.fullmatch(r"plan_day\d+", c)
    )
    ids = [plan.id for plan in cards.plans]
    wake = np.array([plan.wake for plan in cards.plans] + [np.nan], dtype=np.float64)
    kept: list[np.ndarray] = []  # each day's card codes (-1: none, or not of the set)
    for day in days:
        codes = _plan_codes(frame[f"plan_day{day}"], ids)
        for previous in kept:
            bad = (codes >= 0) & (codes == previous)
            if bad.any():
                raise _fail(frame, bad, f"plan_day{day}", "a plan card this seat kept on an "
                            "earlier day (a kept card leaves the deck, R-PLAN-1)")  # fmt: skip
        kept.append(codes)
        if f"turn_day{day}" not in frame:
            continue
        times = wake[codes]  # (code -1: the NaN at the end, never before or after)
        turns = frame[f"turn_day{day}"].to_numpy().astype(np.float64)
        times, turns = times.reshape(-1, players), turns.reshape(-1, players)
        before = (times[:, :, None] < times[:, None, :]) & (turns[:, :, None] > turns[:, None, :])
        bad = (before.any(axis=2) | before.any(axis=1)).ravel()
        if bad.any():
            raise _fail(frame, bad, f"turn_day{day}", "a seat acting before one that woke "
                        "earlier (turns go by wake-up time, R-ORD-1)")  # fmt: skip


# the per-day columns check_card_days reads
_DAY_COLUMNS = r"(fame_day|painted_day|goal_day|goal_card_day|plan_day)(\d+)"
# every per-day column (a commissions_day word's day is its first number)
_ANY_DAY_COLUMN = r"(fame_day|painted_day|goal_day|goal_card_day|plan_day|turn_day)(\d+)"


def _check_whole_days(frame: pd.DataFrame) -> None:
    """A kind of per-day column is there for every day 1 .. the last, or not at all: one
    day's column dropped (an edited or cut file) changed the tables without a word."""
    found: dict[str, set[int]] = {}
    for column in frame.columns:
        if m := re.fullmatch(_ANY_DAY_COLUMN, column):
            found.setdefault(m.group(1), set()).add(int(m.group(2)))
    commission_days = _days_of(frame, "commissions_day")
    if commission_days:
        found["commissions_day"] = set(commission_days)
    if not found:
        return
    every = range(1, max(max(days) for days in found.values()) + 1)
    for name, days in sorted(found.items()):
        missing = [day for day in every if day not in days]
        if missing:
            column = f"{name}{missing[0]}" + ("_*" if name == "commissions_day" else "")
            raise ReportInputError(
                f"results: column {column!r} missing ({name}* has days "
                f"{', '.join(map(str, sorted(days)))} of 1 to {every[-1]}: a cut or edited "
                "file)"
            )


@jit(_nrt=False)
def _add_weighted_bits(words, weights, out):
    """out[row] += the weights of the bits set in the row's words (bit i of word w is
    item 64 w + i; items past ``weights`` count 0): one pass over the rows, where a
    numpy pass per item took 1.7 s of a 1,000,000-game report's checks."""
    for row in range(words.shape[0]):
        total = 0
        for word in range(words.shape[1]):
            bits = words[row, word]
            while bits:
                index = 64 * word + lowest_bit(bits)
                bits &= bits - np.uint64(1)
                if index < weights.shape[0]:
                    total += weights[index]
        out[row] += total


def check_day_fame(frame: pd.DataFrame, cards: CardSet) -> None:
    """Each day's fame (``fame_day{d}``, R-END-2 at the end of its hike phase) lies
    between the fame of the commissions completed and the goals kept by then and that
    plus half the icons of every landscape the seat painted in the game (its unsold
    paintings are some of those, each held once at a time). Only the last day's was
    checked (against ``fame``): a fame of 30,000 on day 3 moved plan cards' "fame gained"
    by tens of points in a report that ended 0."""
    days = [day for day in _days_of(frame, "commissions_day") if f"fame_day{day}" in frame]
    painted = _words(frame, "painted_")
    needed = [f"{name}{day}" for name in ("goal_day", "goal_card_day") for day in days]
    if not days or painted is None or not all(c in frame for c in needed):
        return
    icons = np.zeros(len(frame), dtype=np.int64)
    _add_weighted_bits(painted, np.array([land.icons for land in cards.landscapes]), icons)
    goal_fame = np.array([goal.fame for goal in cards.goals] + [0], dtype=np.int64)
    commission_fame = np.array([c.fame for c in cards.commissions], dtype=np.int64)
    earned = np.zeros(len(frame), dtype=np.int64)  # commissions and goals, through the day
    for day in days:
        _add_weighted_bits(_words(frame, f"commissions_day{day}_"), commission_fame, earned)
        kept = (np.maximum(frame[f"goal_day{day}"].to_numpy(), 0) & GOAL_FLAG_KEPT) != 0
        earned += kept * goal_fame[frame[f"goal_card_day{day}"].to_numpy().astype(np.int64)]
        fame = frame[f"fame_day{day}"].to_numpy().astype(np.int64)
        bad = (fame != -1) & ((fame < earned) | (fame > earned + icons // 2))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise _fail(
                frame, bad, f"fame_day{day}", f"{fame[row]} is not a fame the seat can have "
                f"then: {earned[row]} from its commissions and goals by that day, plus at most "
                f"{icons[row] // 2} from its unsold paintings",
            )  # fmt: skip
