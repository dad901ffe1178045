"""Daily goals: per goal card how often it was claimed and taken, how often its keeper was
the last player to move, and the keeper's win share against the other seats on the days
it was shown."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.clustered import over_games
from sunset_sim.analysis.report.data import (
    _ci_columns,
    _Data,
    _days,
    _effect_columns,
    _mark,
    _within,
)
from sunset_sim.analysis.report.model import (
    TOO_FEW,
    WITHIN,
    Candidate,
    Report,
    Section,
    SectionSpec,
    Tables,
    effect_candidates,
)
from sunset_sim.engine.jit import jit


def goal_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    days = [d for d in _days(frame, "goal_card_day") if f"goal_day{d}" in frame]
    n_goals = len(cards.goals)
    if n_goals == 0:  # a card set without goals (CARDS.md allows it): no table to show
        return {}
    shown = np.zeros(n_goals)
    claimed = np.zeros(n_goals)
    kept_last = np.zeros(n_goals)  # days kept by the seat that moved last that day
    taken = np.zeros(n_goals)
    keeper = np.zeros((n_goals, data.k, 3))  # seats that kept it, per strategy: n, sum, sq
    seen = np.zeros((n_goals, data.k, 3))  # every seat of a game where it was shown
    played = data.per_game(data.days_played)[:, 0]
    size = n_goals * data.k
    for day in days:
        # per day: shown, claimed, kept by the last mover, taken; seen and keeper flat
        counts = np.zeros((4, n_goals))
        day_seen = np.zeros((size, 3))
        day_keeper = np.zeros((size, 3))
        has_turn = f"turn_day{day}" in frame  # R-GOAL-1: the last to meet it keeps it
        _goal_day_sums(
            _integers(frame[f"goal_card_day{day}"]), _integers(frame[f"goal_day{day}"]),
            _integers(frame[f"turn_day{day}"]) if has_turn else np.zeros(0, np.int64),
            played, data.win, data.strategy, data.players, day, counts, day_seen, day_keeper,
        )  # fmt: skip
        shown += counts[0]
        claimed += counts[1]
        if has_turn:
            kept_last += counts[2]
        else:
            kept_last[:] = np.nan
        taken += counts[3]
        seen += day_seen.reshape(n_goals, data.k, 3)
        keeper += day_keeper.reshape(n_goals, data.k, 3)
    others = seen - keeper
    effect = _within(keeper.reshape(n_goals, -1), others.reshape(n_goals, -1), min_n=min_samples)
    keeper_all, others_all = keeper.sum(axis=1), others.sum(axis=1)
    raw = stats.diff_ci_sums(*keeper_all.T, *others_all.T, rate=True)
    # win share's intervals over games (a game's keeper and the other seats share its win)
    sides = _goal_sides(data, days, n_goals)
    effect = over_games(
        effect, keeper.reshape(n_goals, -1), others.reshape(n_goals, -1), *sides, data,
        min_n=min_samples,
    )  # fmt: skip
    raw = over_games(raw, keeper_all, others_all, *sides, data, stratified=False)
    diff = np.column_stack(raw[:4])
    rows = []
    for g, card in enumerate(cards.goals):
        rows.append(
            {
                "goal": card.id,
                "kind": _goal_text(card),
                "fame": card.fame,
                "n": int(shown[g]),
                **_ci_columns("claim_rate", *stats.proportion_ci(claimed[g], shown[g])),
                **_ci_columns("taken_rate", *stats.proportion_ci(taken[g], shown[g])),
                **_ci_columns("last_mover_rate", *_rate(kept_last[g], claimed[g])),
                "n_kept": int(keeper_all[g, 0]),
                **_ci_columns("keeper_win", *stats.rate_ci_sums(*keeper_all[g])),
                **_effect_columns("keeper_win_effect", [v[g] for v in effect]),
                "n_effect": int(effect[4][g]),
                **_ci_columns("keeper_win_diff", *diff[g, :3]),
                "keeper_win_diff_p": diff[g, 3],
            }
        )
    table = _mark(pd.DataFrame(rows), "n", min_samples, None, within=False)
    # the last-mover rate and the keeper's win rest on the keeps, not the days shown (G3:
    # 0% of 4 keeps beside n = 34 and no note); the keeper's win effect on the keepers
    # within strategies (n_smaller)
    few_keeps = (table["note"] == "") & (table["n_kept"] < min_samples)
    table.loc[few_keeps, "note"] = f"last mover, keeper's win: {TOO_FEW}"
    few_within = (table["note"] == "") & (table["n_smaller"] < min_samples)
    table.loc[few_within, "note"] = f"keeper's win: {TOO_FEW}"
    return {"goals": table}


def _goal_sides(data: _Data, days: list[int], n_goals: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the bitmask words of the goals it kept (side a) and of those it saw kept
    by another seat or by none (side b), as ``_goal_day_sums`` counts them: a goal card
    is shown on one day of a game at most (the goal deck is never reshuffled, R-SET-3)."""
    frame = data.frame
    kept = np.zeros((len(frame), -(-n_goals // 64)), dtype=np.uint64)
    saw = np.zeros_like(kept)
    for day in days:
        card = _integers(frame[f"goal_card_day{day}"]).astype(np.int64)
        shown = (data.days_played >= day) & (card >= 0) & (card < n_goals)
        keeps = (np.maximum(_integers(frame[f"goal_day{day}"]).astype(np.int64), 0) & 4) != 0
        bit = np.uint64(1) << (np.maximum(card, 0) % 64).astype(np.uint64)
        word = np.maximum(card, 0) // 64
        for w in range(kept.shape[1]):
            here = shown & (word == w)
            kept[:, w] |= np.where(here & keeps, bit, np.uint64(0))
            saw[:, w] |= np.where(here & ~keeps, bit, np.uint64(0))
    return kept, saw


def _integers(column: pd.Series) -> np.ndarray:
    """The column's values as a numpy integer array (read as they are when they are one)."""
    values = column.to_numpy()
    return values if values.dtype.kind in "iu" else values.astype(np.int64)


@jit(_nrt=False)
def _goal_day_sums(
    card_column, flag_column, turn_column, played, win, strategy, players, day, counts, seen,
    keeper,
):  # fmt: skip
    """One day's sums over the games that showed a goal card (its index on every seat's
    row, the same within a game): counts[0..3, card] shown, claimed (a seat kept it,
    GOAL_FLAG 4), kept by the seat that moved last (turn position players - 1; only with
    a turn column), taken (GOAL_FLAG 2); seen[card * k + strategy] and keeper[...] the
    win share's [1, w, w^2] over every seat / the keeping seats. One pass in row order,
    so each sum is the per-column ``np.bincount``'s to the bit (a dozen whole-column
    passes per day were 2 s of a 1M-game report's analysis)."""
    n_goals = counts.shape[1]
    k = seen.shape[0] // max(n_goals, 1)
    with_turn = turn_column.shape[0] > 0
    for game in range(played.shape[0]):
        first = game * players
        card = np.int64(card_column[first])
        if played[game] < day or card < 0 or card >= n_goals:
            continue
        claimed = False
        last = False
        taken = False
        for seat in range(players):
            row = first + seat
            flags = max(np.int64(flag_column[row]), 0)
            keeps = (flags & 4) != 0
            claimed |= keeps
            taken |= (flags & 2) != 0
            if with_turn:
                last |= keeps and np.int64(turn_column[row]) == players - 1
            cell = card * k + strategy[row]
            if cell < 0:
                continue
            value = win[row]
            seen[cell, 0] += 1.0
            seen[cell, 1] += value
            seen[cell, 2] += value * value
            if keeps:
                keeper[cell, 0] += 1.0
                keeper[cell, 1] += value
                keeper[cell, 2] += value * value
        counts[0, card] += 1.0
        counts[1, card] += 1.0 if claimed else 0.0
        counts[2, card] += 1.0 if last else 0.0
        counts[3, card] += 1.0 if taken else 0.0


def _rate(k: float, n: float) -> tuple[float, float, float]:
    if not np.isfinite(k) or n <= 0:
        return np.nan, np.nan, np.nan
    return stats.proportion_ci(k, n)


def _goal_text(goal) -> str:
    from sunset_sim.cards.summary import goal_param_text
    from sunset_sim.enums import GOAL_KIND_NAMES

    parameter = goal_param_text(goal.kind, goal.param)
    return GOAL_KIND_NAMES[goal.kind] + (f" {parameter}" if parameter else "")


def fill(s: Section, report: Report) -> None:
    t = report.tables
    if "goals" in t:
        s.blocks += [
            (
                "text",
                "Daily goals, per day shown: claim rate (someone kept it), taken rate (the "
                "keeper took it from an earlier holder; under R-GOAL-1 that is every day on "
                "which two or more met it), last-mover rate (of the days it was kept, the share "
                "kept by the player who moved last that day), the keeper's win share and its "
                "difference from the other seats on those days (keeper_win_effect within each "
                "strategy, keeper_win_diff raw; seat-days, so a goal shown on several days of "
                "a game counts each day).",
            ),
            ("table", "goals"),
        ]


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    return effect_candidates(
        tables,
        "goals",
        lambda r: f"goal {r.goal} ({r.kind})",
        "keeper_win_effect",
        f"points of win share per fame point for the seat that keeps it vs the other seats, {WITHIN}",
        "n_effect",
        "keeper_win_diff",
        min_samples=min_samples,
        per="fame",
    )


SECTION = SectionSpec(
    name="daily goals",
    needs=("goal_card_day*", "goal_day*"),
    heading=("card-value", "Card value"),
    compute=goal_tables,
    fill=fill,
    kinds={"goals": "goal"},
    candidates=finding_candidates,
)
