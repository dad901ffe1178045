"""Landscape value: per landscape card and per feature type, the win share of the seats
that painted it against those that had it available and passed it over (within each
strategy and raw), and the difference in fame."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.checks import _words
from sunset_sim.analysis.report.clustered import over_games
from sunset_sim.analysis.report.data import (
    _ci_columns,
    _Data,
    _effect_columns,
    _mark,
    _mask_words,
    _moments,
    _pool,
    _within,
    bit_sums,
)
from sunset_sim.analysis.report.model import (
    WITHIN,
    WITHIN_NOTE,
    Candidate,
    Report,
    ReportInputError,
    Section,
    SectionSpec,
    Tables,
    effect_candidates,
)
from sunset_sim.analysis.report.plotting import _colours, _errors, _figure, _png, plot_labels


def landscape_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    painted = _words(frame, "painted_")
    available = _words(frame, "available_")
    n_cards = len(cards.landscapes)
    if painted.shape[1] * 64 < n_cards:
        raise ReportInputError(
            f"columns 'painted_*': {painted.shape[1] * 64} bits for {n_cards} landscapes "
            "(pass the card set the games were played with: --cards FILE)"
        )
    passed = available & ~painted
    values = np.column_stack([_moments(data.win), data.fame, data.fame**2])
    took_split = bit_sums(painted, values, n_cards, data.strategy, data.k)
    left_split = bit_sums(passed, values, n_cards, data.strategy, data.k)
    took, left = _pool(took_split, 5), _pool(left_split, 5)
    effect = _within(took_split, left_split, 5, min_n=min_samples)
    # win share's intervals over games (a game's painters and passers share its win)
    effect = over_games(
        effect, took_split, left_split, painted, passed, data, m=5, min_n=min_samples
    )
    raw = stats.diff_ci_sums(*took[:, :3].T, *left[:, :3].T, rate=True)
    raw = over_games(raw, took, left, painted, passed, data, stratified=False, m=5)
    fame_raw = fame_over_games(took, left, painted, passed, data)
    rows = []
    for i, card in enumerate(cards.landscapes):
        win = [v[i] for v in raw]
        fame = [v[i] for v in fame_raw]
        rows.append(
            {
                "card": card.id,
                "features": _feature_text(card.features, cards.features),
                "icons": card.icons,
                "n": int(took[i, 0]),
                "n_passed": int(left[i, 0]),
                **_ci_columns(
                    "paint_rate", *stats.proportion_ci(took[i, 0], took[i, 0] + left[i, 0])
                ),
                **_ci_columns("win_painted", *stats.rate_ci_sums(*took[i, :3])),
                **_ci_columns("win_passed", *stats.rate_ci_sums(*left[i, :3])),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *win[:3]),
                "win_diff_p": win[3],
                **_ci_columns("fame_diff", *fame[:3]),
            }
        )
    tables = {"landscapes": _mark(pd.DataFrame(rows), ["n", "n_passed"], min_samples, "win_effect")}
    # per feature type: painted at least one card showing it vs had one available, took none
    n_words = painted.shape[1]
    feature_took = np.zeros(len(frame), dtype=np.uint64)
    feature_left = np.zeros(len(frame), dtype=np.uint64)
    for f in range(len(cards.features)):
        mask = _mask_words([i for i, c in enumerate(cards.landscapes) if c.features[f]], n_words)
        has = ((painted & mask) != 0).any(axis=1)
        could = ((passed & mask) != 0).any(axis=1) & ~has
        bit = np.uint64(1) << np.uint64(f)
        feature_took |= np.where(has, bit, np.uint64(0))
        feature_left |= np.where(could, bit, np.uint64(0))
    n_features = len(cards.features)
    took_split = bit_sums(feature_took, values, n_features, data.strategy, data.k)
    left_split = bit_sums(feature_left, values, n_features, data.strategy, data.k)
    took_f, left_f = _pool(took_split, 5), _pool(left_split, 5)
    effect = _within(took_split, left_split, 5, min_n=min_samples)
    sides = (feature_took[:, None], feature_left[:, None])
    effect = over_games(effect, took_split, left_split, *sides, data, m=5, min_n=min_samples)
    raw = stats.diff_ci_sums(*took_f[:, :3].T, *left_f[:, :3].T, rate=True)
    raw = over_games(raw, took_f, left_f, *sides, data, stratified=False, m=5)
    fame_raw = fame_over_games(took_f, left_f, *sides, data)
    icon_matrix = np.array([c.features for c in cards.landscapes], dtype=np.float64)
    icons_painted = took[:, 0] @ icon_matrix / len(frame)
    rows = []
    for f, name in enumerate(cards.features):
        win = [v[f] for v in raw]
        fame = [v[f] for v in fame_raw]
        rows.append(
            {
                "feature": name,
                "n": int(took_f[f, 0]),
                "n_passed": int(left_f[f, 0]),
                "icons_painted_per_seat": icons_painted[f],
                **_ci_columns("win_painted", *stats.rate_ci_sums(*took_f[f, :3])),
                **_ci_columns("win_passed", *stats.rate_ci_sums(*left_f[f, :3])),
                **_effect_columns("win_effect", [v[f] for v in effect]),
                "n_effect": int(effect[4][f]),
                **_ci_columns("win_diff", *win[:3]),
                "win_diff_p": win[3],
                **_ci_columns("fame_diff", *fame[:3]),
            }
        )
    tables["features"] = _mark(pd.DataFrame(rows), ["n", "n_passed"], min_samples, "win_effect")
    return tables


def fame_over_games(took, left, in_took, in_left, data) -> tuple:
    """Fame of the rows that took the card (feature) less the rows that passed it, with
    the interval over games as the win share's: a game's seats share its deal (it was
    taken over rows, about 5% too narrow). ``took``/``left``: n, win share's two sums,
    fame's two sums per item."""
    fame_columns = [0, 3, 4]
    raw = stats.diff_ci_sums(*took[:, fame_columns].T, *left[:, fame_columns].T)
    return over_games(
        raw, took[:, fame_columns], left[:, fame_columns], in_took, in_left, data,
        stratified=False, values=data.fame,
    )  # fmt: skip


def _feature_text(counts: Sequence[int], names: Sequence[str]) -> str:
    return " ".join(name for name, count in zip(names, counts, strict=True) for _ in range(count))


def fill(s: Section, report: Report) -> None:
    t = report.tables
    if "landscapes" in t:
        s.blocks += [
            (
                "text",
                "Landscapes: win share of seats that painted the card vs seats in games where "
                "it was on the grid and they passed it over, within each strategy (win_effect) "
                "and raw (win_diff), and the raw difference in fame (fame_diff). These are "
                "associations, not causes: strong seats paint more. " + WITHIN_NOTE,
            ),
            ("table", "landscapes"),
            ("plot", "landscape_value", "Landscape value"),
            ("text", "Feature types (painted at least one card showing it vs passed over all):"),
            ("table", "features"),
        ]


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    unit = f"points of win share when painted vs available and passed over, {WITHIN}"
    return effect_candidates(
        tables,
        "landscapes",
        lambda r: f"landscape {r.card} ({r.features})",
        "win_effect",
        unit,
        "n_effect",
        "win_diff",
        min_samples=min_samples,
    ) + effect_candidates(
        tables,
        "features",
        lambda r: f"feature {r.feature}",
        "win_effect",
        unit,
        "n_effect",
        "win_diff",
        min_samples=min_samples,
    )


def landscape_value(tables) -> bytes:
    table = tables["landscapes"]
    # the within-strategy effect when there is one (older tables: the raw difference)
    column = (
        "win_effect"
        if np.isfinite(table.get("win_effect", pd.Series([np.nan]))).any()
        else "win_diff"
    )
    table = table.sort_values(column, na_position="first")
    figure, (axis,) = _figure(8, max(4, 0.16 * len(table) + 1))
    y = np.arange(len(table))
    colours = _colours(table)
    errors = _errors(table, column, 100)
    for i in range(len(table)):
        axis.errorbar(
            100 * table[column].iloc[i],
            y[i],
            xerr=errors[:, i : i + 1],
            fmt="o",
            color=colours[i],
            markersize=3,
            capsize=2,
        )
    if column == "win_effect":
        axis.plot(100 * table["win_diff"], y, "x", color="C1", markersize=3, label="raw")
        axis.legend(fontsize=7, loc="lower right")
    axis.set_yticks(
        y,
        [f"{c} {f}" for c, f in zip(plot_labels(table["card"]), table["features"], strict=True)],
        fontsize=6,
    )
    axis.axvline(0, color="black", linewidth=0.8)
    within = ", within strategy" if column == "win_effect" else ""
    axis.set_xlabel(
        f"points of win share: painted minus available and passed over{within} (95% CI)"
    )
    n = int(table["n"].sum())
    # n counts (seat, card) pairs: a seat that painted a card (at least once in the game)
    axis.set_title(
        f"Landscape value (n = {n:,} seat-games that painted the card; grey: too few samples)",
        fontsize=10,
    )
    return _png(figure)


SECTION = SectionSpec(
    name="landscape cards",
    needs=("painted_*", "available_*"),
    heading=("card-value", "Card value"),
    compute=landscape_tables,
    fill=fill,
    plots={"landscape_value": (("landscapes",), landscape_value)},
    kinds={"landscapes": "landscape/feature", "features": "landscape/feature"},
    candidates=finding_candidates,
)
