"""Result tables: the kernel's arrays as tidy pandas rows (one per game and seat), and
mergeable per-strategy aggregates for summaries that never hold every row in memory."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim.engine import kernel
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.enums import END_REASON_NAMES

SEAT_COLUMNS = {
    "fame": kernel.R_FAME,
    "fame_commissions": kernel.R_FAME_COMMISSIONS,
    "fame_goals": kernel.R_FAME_GOALS,
    "fame_paintings": kernel.R_FAME_PAINTINGS,
    "commissions_won": kernel.R_COMMISSIONS_WON,
    "goals_won": kernel.R_GOALS_WON,
    "paintings_sold": kernel.R_PAINTINGS_SOLD,
    "cards_painted": kernel.R_CARDS_PAINTED,
    "n_winners": kernel.R_WINNERS,
}
Z95 = 1.959963984540054


def to_frame(
    batch: BatchArrays, labels: list[str], plan_ids: list[str] | None = None
) -> pd.DataFrame:
    """One row per game and seat. ``plan_day{d}`` is the plan card kept on day d (card id
    if ``plan_ids`` is given, else its index; missing after an early end), ``turn_day{d}``
    the turn position it gave (0 = first); ``painted_{w}`` bit i of word w: landscape
    64*w+i was painted by that seat."""
    n_games, n_players, _ = batch.seat.shape
    games = np.repeat(
        np.arange(batch.first_game, batch.first_game + n_games, dtype=np.int64), n_players
    )
    seats = np.tile(np.arange(n_players, dtype=np.int8), n_games)
    flat = batch.seat.reshape(n_games * n_players, -1)
    data: dict[str, np.ndarray | pd.Categorical] = {
        "game": games,
        "seat": seats,
        "strategy": pd.Categorical.from_codes(
            np.tile(np.arange(n_players), n_games), categories=labels
        )
        if len(set(labels)) == len(labels)
        else pd.Categorical([labels[s] for s in seats]),
    }
    for name, column in SEAT_COLUMNS.items():
        data[name] = flat[:, column].astype(np.int16)
    won = flat[:, kernel.R_WON].astype(np.float64)
    data["win_share"] = won / flat[:, kernel.R_WINNERS]
    data["won"] = won.astype(bool)
    reasons = np.repeat(batch.game[:, kernel.G_END_REASON], n_players)
    data["end_reason"] = pd.Categorical.from_codes(reasons, categories=list(END_REASON_NAMES))
    data["days_played"] = np.repeat(batch.game[:, kernel.G_DAYS], n_players).astype(np.int8)
    plans = batch.plan.reshape(n_games * n_players, -1)
    positions = batch.position.reshape(n_games * n_players, -1)
    for day in range(plans.shape[1]):
        if plan_ids is None:
            data[f"plan_day{day + 1}"] = plans[:, day].astype(np.int8)
        else:
            data[f"plan_day{day + 1}"] = pd.Categorical.from_codes(
                plans[:, day], categories=plan_ids
            )
        data[f"turn_day{day + 1}"] = positions[:, day].astype(np.int8)
    painted = batch.painted.reshape(n_games * n_players, -1)
    for word in range(painted.shape[1]):
        data[f"painted_{word}"] = painted[:, word]
    return pd.DataFrame(data)


@dataclass
class Summary:
    """Per-strategy sums (count, win share, fame and their squares): merge chunk by chunk."""

    sums: dict[str, np.ndarray] = field(default_factory=dict)  # label -> [n, Σw, Σw², Σf, Σf²]
    games: int = 0
    tied_games: int = 0
    shortage_games: int = 0

    def add(self, batch: BatchArrays, labels: list[str]) -> None:
        fame = batch.seat[:, :, kernel.R_FAME].astype(np.float64)
        share = batch.seat[:, :, kernel.R_WON] / batch.seat[:, :, kernel.R_WINNERS]
        for seat, label in enumerate(labels):
            row = np.array(
                [
                    len(fame),
                    share[:, seat].sum(),
                    (share[:, seat] ** 2).sum(),
                    fame[:, seat].sum(),
                    (fame[:, seat] ** 2).sum(),
                ]
            )
            self.sums[label] = self.sums.get(label, np.zeros(5)) + row
        self.games += len(fame)
        self.tied_games += int((batch.seat[:, 0, kernel.R_WINNERS] > 1).sum())
        self.shortage_games += int((batch.game[:, kernel.G_END_REASON] == 1).sum())

    def table(self) -> pd.DataFrame:
        """Win share and mean fame per strategy with normal-approximation 95% CIs.

        A strategy in several seats of one game contributes one sample per seat."""
        rows = []
        for label, (n, sw, sw2, sf, sf2) in self.sums.items():
            win, win_half = mean_ci(n, sw, sw2)
            fame, fame_half = mean_ci(n, sf, sf2)
            rows.append(
                {
                    "strategy": label,
                    "n": int(n),
                    "win_share": win,
                    "win_ci_low": win - win_half,
                    "win_ci_high": win + win_half,
                    "mean_fame": fame,
                    "fame_ci_low": fame - fame_half,
                    "fame_ci_high": fame + fame_half,
                }
            )
        return pd.DataFrame(rows).sort_values("win_share", ascending=False, ignore_index=True)


def mean_ci(n: float, total: float, total_squares: float) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval from count, sum, sum of squares."""
    if n == 0:
        return float("nan"), float("nan")
    mean = total / n
    variance = max(total_squares / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, Z95 * (variance / n) ** 0.5
