"""Daily goals: per goal card how often it was claimed and taken, how often its keeper was
the last player to move, and the keeper's win share against the other seats on the days
it was shown."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.data import (
    _ci_columns,
    _Data,
    _days,
    _effect_columns,
    _mark,
    _moments,
    _within,
)
from sunset_sim.analysis.report.model import (
    WITHIN,
    Candidate,
    Report,
    Section,
    SectionSpec,
    Tables,
    effect_candidates,
)


def goal_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    days = [d for d in _days(frame, "goal_card_day") if f"goal_day{d}" in frame]
    n_goals = len(cards.goals)
    shown = np.zeros(n_goals)
    claimed = np.zeros(n_goals)
    kept_last = np.zeros(n_goals)  # days kept by the seat that moved last that day
    taken = np.zeros(n_goals)
    keeper = np.zeros((n_goals, data.k, 3))  # seats that kept it, per strategy: n, sum, sq
    seen = np.zeros((n_goals, data.k, 3))  # every seat of a game where it was shown
    played = data.per_game(data.days_played)[:, 0]
    win = data.per_game(data.win)
    strategy = data.per_game(data.strategy)
    for day in days:
        # the same on each seat's row of a game: one row per game read
        card = frame[f"goal_card_day{day}"].to_numpy()[:: data.players].astype(np.int64)
        card = np.where((played >= day) & (card >= 0) & (card < n_goals), card, -1)
        flags = data.per_game(frame[f"goal_day{day}"].to_numpy().astype(np.int64))
        flags = np.where(flags >= 0, flags, 0)
        valid = card >= 0
        c = card[valid]
        shown += np.bincount(c, minlength=n_goals)[:n_goals]
        f = flags[valid]
        claimed += np.bincount(c, weights=((f & 4) != 0).any(axis=1), minlength=n_goals)[:n_goals]
        if f"turn_day{day}" in frame:  # R-GOAL-1: the last to meet it keeps it
            turn = data.per_game(frame[f"turn_day{day}"].to_numpy().astype(np.int64))[valid]
            last = ((f & 4) != 0) & (turn == data.players - 1)
            kept_last += np.bincount(c, weights=last.any(axis=1), minlength=n_goals)[:n_goals]
        else:
            kept_last[:] = np.nan
        taken += np.bincount(c, weights=((f & 2) != 0).any(axis=1), minlength=n_goals)[:n_goals]
        keeps = ((f & 4) != 0).ravel()
        # one code per (goal card, strategy) for each seat of the games that showed it
        cell = (np.repeat(c, data.players) * data.k + strategy[valid].ravel()).astype(np.int64)
        seat_moments = _moments(win[valid].ravel())
        size = n_goals * data.k
        for j in range(3):
            weights = seat_moments[:, j]
            seen[..., j] += np.bincount(cell, weights=weights, minlength=size)[:size].reshape(
                n_goals, data.k
            )
            keeper[..., j] += np.bincount(cell[keeps], weights=weights[keeps], minlength=size)[
                :size
            ].reshape(n_goals, data.k)
    others = seen - keeper
    effect = _within(keeper.reshape(n_goals, -1), others.reshape(n_goals, -1), min_n=min_samples)
    keeper_all, others_all = keeper.sum(axis=1), others.sum(axis=1)
    diff = np.column_stack(stats.diff_ci_sums(*keeper_all.T, *others_all.T))
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
    return {"goals": _mark(pd.DataFrame(rows), "n", min_samples, None)}


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
