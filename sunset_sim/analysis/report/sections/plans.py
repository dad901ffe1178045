"""Early rise vs paint power: per plan card its pick rate, the turn position, paintings
and fame it gave that day, and the win share of the seats that chose it against those
that did not (within each strategy and raw)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.paired_values import wake_halves
from sunset_sim.analysis.report.data import (
    _ci_columns,
    _Data,
    _days,
    _effect_columns,
    _group_sums,
    _mark,
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
from sunset_sim.analysis.report.plotting import (
    GREY,
    MANY_POINTS,
    _colours,
    _figure,
    _labelled_points,
    _png,
)
from sunset_sim.analysis.stats import ends_text
from sunset_sim.cards.model import CardSet
from sunset_sim.enums import DIRECTION_SETS


def _plan_codes(column: pd.Series, cards: CardSet, name: str) -> np.ndarray:
    """Plan card index per row (-1 where none): from card ids, indices or strings."""
    ids = [p.id for p in cards.plans]
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = [str(c) for c in column.cat.categories]
        unknown = [c for c in categories if c not in ids]
        if unknown:
            raise ReportInputError(
                f"column {name!r}: plan card {unknown[0]!r} is not in the card set "
                f"{cards.name!r} (pass the card set the games were played with: --cards FILE)"
            )
        lookup = np.array([ids.index(c) for c in categories] + [-1], dtype=np.int16)
        codes = column.cat.codes.to_numpy().astype(np.int64)
        return lookup[np.where(codes < 0, len(categories), codes)]
    if column.dtype.kind in "iu":
        codes = column.to_numpy().astype(np.int16)
        if codes.max(initial=-1) >= len(ids):
            raise ReportInputError(
                f"column {name!r}: plan index {int(codes.max())} but the card set has "
                f"{len(ids)} plan cards"
            )
        return np.where(codes < 0, -1, codes).astype(np.int16)
    text = column.astype("string").fillna("")
    lookup = {card_id: i for i, card_id in enumerate(ids)}
    values = text.map(lambda v: lookup.get(v, -2 if v else -1)).to_numpy().astype(np.int16)
    if (values == -2).any():
        row = int(np.flatnonzero(values == -2)[0])
        raise ReportInputError(
            f"row {row + 1}, column {name!r}: plan card {text.iloc[row]!r} is not in the card "
            f"set {cards.name!r} (pass the card set the games were played with: --cards FILE)"
        )
    return values


def plan_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame, cards = data.frame, data.cards
    plan_days = _days(frame, "plan_day")
    n_plans = len(cards.plans)
    rows_n = len(frame)
    # which plan cards each seat-game chose: a bit per card, 64 to a word (a set may hold
    # more than 64 plan cards)
    chosen_words = np.zeros((rows_n, max(1, -(-n_plans // 64))), dtype=np.uint64)
    row_index = np.arange(rows_n)
    picks = np.zeros(n_plans)
    sums = {key: np.zeros((3, n_plans)) for key in ("turn", "painted", "gained")}
    seen = dict.fromkeys(sums, False)
    previous_fame = np.zeros(rows_n, dtype=np.float64)
    day_rows = []
    for day in plan_days:  # accumulated day by day: memory stays at a few columns
        codes = _plan_codes(frame[f"plan_day{day}"], cards, f"plan_day{day}")
        played = (codes >= 0) & (data.days_played >= day)
        codes = np.where(played, codes, -1)
        day_rows += _day_rows(data, codes, day, cards, min_samples)
        chosen = codes.clip(0).astype(np.uint64)
        chosen_words[row_index, chosen // np.uint64(64)] |= np.where(
            played, np.left_shift(np.uint64(1), chosen % np.uint64(64)), np.uint64(0)
        )
        picks += np.bincount(codes[codes >= 0], minlength=n_plans)[:n_plans]
        columns = {"turn": f"turn_day{day}", "painted": f"painted_day{day}"}
        values = {k: frame[c].to_numpy() for k, c in columns.items() if c in frame}
        fame_column = f"fame_day{day}"
        if fame_column in frame:
            now = frame[fame_column].to_numpy().astype(np.float64)
            values["gained"] = now - previous_fame
            previous_fame = np.where(now >= 0, now, previous_fame)
        for key, value in values.items():
            seen[key] = True
            sums[key] += np.array(_group_sums(codes, value, n_plans))
    seat_days = int(picks.sum())
    last = data.players - 1  # the last turn position
    turn_n, turn_s, turn_q = sums["turn"] if seen["turn"] else np.full((3, n_plans), np.nan)
    paint_n, paint_s, paint_q = (
        sums["painted"] if seen["painted"] else np.full((3, n_plans), np.nan)
    )
    gain_n, gain_s, gain_q = sums["gained"] if seen["gained"] else np.full((3, n_plans), np.nan)
    # win share of seat-games that chose the card (at most once a game) vs those that did
    # not: raw, and within each strategy (pooled over strategies)
    split = bit_sums(chosen_words, _moments(data.win), n_plans, data.strategy, data.k)
    not_split = data.strategy_sums(data.win).ravel()[None, :] - split
    sums = _pool(split, 3)
    total = np.array([rows_n, data.win.sum(), (data.win**2).sum()])
    effect = _within(split, not_split, min_n=min_samples)
    rows = []
    for i, card in enumerate(cards.plans):
        pick = stats.proportion_ci(picks[i], seat_days)
        win = stats.rate_ci_sums(*sums[i])
        other = total - sums[i]
        diff = stats.diff_ci_sums(*sums[i], *other, rate=True)
        rows.append(
            {
                "plan": card.id,
                "wake": card.wake_label,
                "wake_minutes": card.wake,
                "directions": card.directions,
                "hike": card.hike,
                "paint": card.paint,
                "n": int(picks[i]),
                **_ci_columns("pick_rate", *pick),
                **_ci_columns(  # (0 .. players - 1: a 7-game report had -0.08 to 0.25)
                    "turn_position",
                    *_bounded(stats.mean_ci_sums(turn_n[i], turn_s[i], turn_q[i]), last),
                ),
                **_ci_columns(  # (no day paints more than the card allows: P1's went to 1.00008)
                    "cards_painted",
                    *_bounded(stats.mean_ci_sums(paint_n[i], paint_s[i], paint_q[i]), card.paint),
                ),
                **_ci_columns("fame_gained", *stats.mean_ci_sums(gain_n[i], gain_s[i], gain_q[i])),
                **_ci_columns("win_when_chosen", *win),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *diff[:3]),
                "win_diff_p": diff[3],
                "n_not_chosen": int(other[0]),
            }
        )
    table = pd.DataFrame(rows)
    if np.all(np.isnan(table["cards_painted"])):
        table = table.drop(columns=[c for c in table if c.startswith("cards_painted")])
    if np.all(np.isnan(table["fame_gained"])):
        table = table.drop(columns=[c for c in table if c.startswith("fame_gained")])
    by_day = pd.DataFrame(day_rows)
    # (and n_smaller, as _mark adds: P8 in a field that keeps it whenever it can had an
    # empty effect and no note, P5 beside it one)
    groups = ["n", "n_not_chosen"]
    tables = {"plan_cards": _mark(table, groups, min_samples, "win_effect")}
    if len(by_day):
        tables["plan_by_day"] = _mark(by_day, groups, min_samples, None)
    return tables


def _day_rows(data: _Data, codes: np.ndarray, day: int, cards: CardSet, min_samples: int) -> list:
    """Per plan card on one day: pick rate, and the win share of the seats that kept it
    that day against the seats that kept another card that day, within each strategy (so
    neither the strategy nor the day confounds it: P1 is mostly a late leftover)."""
    n_plans, k = len(cards.plans), data.k
    played = codes >= 0
    cell = np.where(played, codes * k + data.strategy, -1)
    chosen = np.column_stack(_group_sums(cell, data.win, n_plans * k)).reshape(n_plans, k, 3)
    everyone = np.column_stack(_group_sums(np.where(played, data.strategy, -1), data.win, k))
    others = everyone[None, :, :] - chosen
    effect = _within(chosen.reshape(n_plans, -1), others.reshape(n_plans, -1), min_n=min_samples)
    total = int(played.sum())
    rows = []
    for i, card in enumerate(cards.plans):
        n = int(chosen[i, :, 0].sum())
        rows.append(
            {
                "day": day,
                "plan": card.id,
                "n": n,
                **_ci_columns("pick_rate", *stats.proportion_ci(n, total)),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_not_chosen": total - n,
            }
        )
    return rows


def column_notes(tables: Tables) -> list[str]:
    """The plan card columns that older results cannot fill."""
    notes = []
    for name in ("plan_cards",):
        if name in tables:
            for column in ("cards_painted", "fame_gained"):
                if column not in tables[name]:
                    source_column = "painted_day*" if column == "cards_painted" else "fame_day*"
                    notes.append(
                        f"plan cards: {column.replace('_', ' ')} not shown, the results have "
                        f"no {source_column} column"
                    )
    return notes


def _bounded(ci: tuple, most: float) -> tuple:
    """A mean's (value, low, high) with its interval kept within 0 .. ``most``."""
    value, low, high = ci[:3]
    return (value, max(low, 0.0), min(high, most), *ci[3:])


def plan_value_table(tables: Tables) -> pd.DataFrame:
    """The study's plan-card values beside each card's wake-up time and power."""
    cards = tables["plan_cards"].set_index("plan")
    values = tables["study_plan"].set_index("card")
    rows = []
    for plan in cards.index:
        if plan not in values.index:
            continue
        card, value = cards.loc[plan], values.loc[plan]
        rows.append(
            {
                "plan": plan,
                "wake": card["wake"],
                "wake_minutes": card["wake_minutes"],
                "directions": card["directions"],
                "hike": card["hike"],
                "paint": card["paint"],
                "value": value["value"],
                "value_ci_low": value["value_ci_low"],
                "value_ci_high": value["value_ci_high"],
                "fame_cost": value["fame_cost"],
                "fame_cost_ci_low": value["fame_cost_ci_low"],
                "fame_cost_ci_high": value["fame_cost_ci_high"],
                "n": int(value["n"]),
            }
        )
    return pd.DataFrame(rows)


def _paired_tradeoff(tables: Tables, early: list, late: list) -> tuple[float, float] | None:
    """The study's own late-less-early difference and its CI's half-width, taken deal by
    deal (study.plan_tradeoff), when it compared these very halves; else None (the
    cards' own intervals are combined then, as if independent: somewhat narrow)."""
    if "study_tradeoff" not in tables or tables["study_tradeoff"].empty:
        return None
    row = tables["study_tradeoff"].iloc[0]
    if json.loads(row["early"]) != [str(p) for p in early] or json.loads(row["late"]) != [
        str(p) for p in late
    ]:
        return None
    return float(row["diff"]), float(row["diff_ci_high"] - row["diff"])


def tradeoff_conclusion(tables: Tables) -> str:
    """One plain sentence on early rise vs paint power, computed from the figures: the
    measured values (restricted play) of the earlier and the later half of the plan cards
    when a study was run, else nothing (the associations alone do not settle it)."""
    if "study_plan" not in tables or "plan_cards" not in tables:
        return ""
    table = plan_value_table(tables)
    halves = wake_halves(list(table.index), lambda row: table.at[row, "wake_minutes"])
    if halves is None:
        return ""
    early, late = table.loc[halves[0]], table.loc[halves[1]]
    half = len(early)
    se = (table["value_ci_high"] - table["value_ci_low"]) / (2 * stats.Z95)

    def mean_se(part: pd.DataFrame) -> tuple[float, float]:
        return float(part["value"].mean()), float(np.sqrt((se[part.index] ** 2).sum()) / len(part))

    early_mean, early_se = mean_se(early)
    late_mean, late_se = mean_se(late)
    diff = late_mean - early_mean
    half_width = stats.Z95 * float(np.hypot(early_se, late_se))
    paired = _paired_tradeoff(tables, list(early["plan"]), list(late["plan"]))
    if paired is not None:  # the study's, deal by deal (the values are correlated)
        diff, half_width = paired
    names = lambda part: ", ".join(part["plan"])  # noqa: E731 (by wake-up time, any ids)
    wakes = lambda part: f"{part['wake'].iloc[0]} to {part['wake'].iloc[-1]}"  # noqa: E731
    detail = (
        f"the {half} latest plan cards ({names(late)}, waking {wakes(late)}, paint "
        f"{late['paint'].min()}-{late['paint'].max()}) are worth {late_mean:.1f} points of win "
        f"share to keep on average, the {half} earliest ({names(early)}, {wakes(early)}, paint "
        f"{early['paint'].min()}-{early['paint'].max()}) {early_mean:.1f} points: a difference "
        f"of {diff:+.1f} points (95% CI "
        f"{ends_text(diff - half_width, diff + half_width, 1, sign='+')}; "
        "restricted play on the same deals, between bots)."
    )
    # what the later half has more of (the cards' power: paint, hike, directions), on
    # average; a conclusion names no more than that as the reason
    directions = lambda part: part["directions"].map(  # noqa: E731 (a set's directions)
        lambda name: bin(DIRECTION_SETS.get(name, 0)).count("1")
    )
    aspects = {
        "paint": (float(late["paint"].mean()), float(early["paint"].mean())),
        "hike": (float(late["hike"].mean()), float(early["hike"].mean())),
        "directions": (float(directions(late).mean()), float(directions(early).mean())),
    }
    more = [name for name, (later, earlier) in aspects.items() if later > earlier]
    less = [name for name, (later, earlier) in aspects.items() if later < earlier]
    if not more and less:  # the earlier cards are the more powerful: wake-up and power
        return _earlier_power_conclusion(diff, half_width, less, detail)
    if not more:  # the halves differ in wake-up time, not in power
        said = (
            "the later plan cards paint, hike and turn no more than the earlier ones (paint "
            f"{aspects['paint'][0]:.2f} against {aspects['paint'][1]:.2f} on average)"
        )
        return _verdict(
            diff, half_width,
            f"Conclusion: rising later beats early rise by {diff:.1f} points; {said}: {detail}",
            f"Conclusion: early rise beats rising later by {-diff:.1f} points; {said}: {detail}",
            f"Conclusion: neither early nor late rise is worth more here; {said}: {detail}",
        )  # fmt: skip
    # "paint power" where the later cards paint more; where they only hike further or
    # turn more ways, those are named instead
    power = "paint power" if "paint" in more else f"the later cards' power in {_joined(more)}"
    if more != ["paint"] or less:  # which parts of the power differ is said, not assumed
        also = f" and the earlier ones more {_joined(less)}" if less else ""
        detail += (
            f" The later cards have more {_joined(more)}{also} on average: the difference "
            "is theirs together, with the later wake-up (the value table shows each card's)."
        )
    return _verdict(
        diff, half_width,
        f"Conclusion: {power} beats early rise by {diff:.1f} points: {detail}",
        f"Conclusion: early rise beats {power} by {-diff:.1f} points: {detail}",
        f"Conclusion: neither early rise nor {power} is worth more here: {detail}",
    )  # fmt: skip


def _verdict(diff: float, half_width: float, later: str, earlier: str, neither: str) -> str:
    """The sentence the interval supports: the later half worth more, the earlier, or
    neither."""
    if diff - half_width > 0:
        return later
    return earlier if diff + half_width < 0 else neither


def _earlier_power_conclusion(diff: float, half_width: float, less: list[str], detail: str) -> str:
    """The conclusion where the earlier cards have more power (wake-up times reversed,
    say): "early rise beats rising later" named the wake-up time alone as the cause
    where the earlier cards also painted twice as many."""
    power = f"the earlier cards' power in {_joined(less)}"
    detail += (
        f" The earlier cards have more {_joined(less)} on average: the difference is theirs "
        "together, with the earlier wake-up (the value table shows each card's)."
    )
    return _verdict(
        diff, half_width,
        f"Conclusion: rising later beats {power} by {diff:.1f} points: {detail}",
        f"Conclusion: early rise with {power} beats rising later by {-diff:.1f} points: {detail}",
        f"Conclusion: neither early rise with {power} nor rising later is worth more here: "
        f"{detail}",
    )  # fmt: skip


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


NO_STUDY_NOTE = (
    "No study ran for this report, so it does not answer whether rising early beats paint "
    "power: the tables below are associations in these games (who chose a card, and how "
    "they did), not what a card is worth. The study measures each plan card's value by "
    "restricted play and answers it: add --study-games N (with a results file, --strategy "
    "naming the field that played it), or play the games with the report (--games)."
)


def fill(s: Section, report: Report) -> None:
    t = report.tables
    if "plan_cards" in t:
        s.blocks.append(
            (
                "text",
                "Per plan card: pick rate among all plan choices (seat-days), the turn "
                "position it gave (0 = first), cards painted and fame gained that day, win "
                "share of the seats that chose it in the game, and the difference from those "
                "that did not: win_effect within each strategy (the effect), win_diff raw. "
                + WITHIN_NOTE,
            )
        )
        conclusion = tradeoff_conclusion(t)
        if conclusion:
            s.blocks.insert(0, ("text", conclusion))
        elif "study_plan" not in t:  # (a report from saved results, or --study-games 0)
            s.blocks.insert(0, ("text", NO_STUDY_NOTE))
        if "study_plan" in t:
            t["plan_value"] = plan_value_table(t)
            s.blocks += [
                (
                    "text",
                    "What each plan card is worth, measured (restricted play: one seat may "
                    "never keep the card when it has another choice, on the same deals): win "
                    "share in points (1 point = 0.01) and fame the seat loses without it, with "
                    "95% CIs and n deals, beside the card's wake-up time and power.",
                ),
                ("table", "plan_value"),
                ("plot", "plan_value", "Wake-up time against power, with each card's value"),
            ]
        s.blocks += [("table", "plan_cards"), ("plot", "plan_tradeoff", "The trade-off")]
        if "plan_by_day" in t:
            s.blocks += [
                (
                    "text",
                    "Per plan card and day: pick rate among that day's choices, and win_effect: "
                    "the seats that kept it that day against the seats that kept another card "
                    "that day, within each strategy (so neither the strategy nor the day "
                    "confounds it); n_smaller is the smaller group it rests on.",
                ),
                ("table", "plan_by_day"),
            ]
        strategies = t["strategies"]
        extremes = strategies[
            strategies["strategy"].str.split(":").str[0].isin(["early-bird", "late-riser"])
        ]
        if len(extremes):
            t["plan_extremes"] = extremes[
                ["strategy", "n", "win_share", "win_share_ci_low", "win_share_ci_high"]
                + ["vs_field", "vs_field_ci_low", "vs_field_ci_high", "vs_field_p", "note"]
            ].reset_index(drop=True)
            played = set(extremes["strategy"].str.split(":").str[0])
            named = [
                words
                for name, words in (
                    ("early-bird", '"Always earliest" (early-bird)'),
                    ("late-riser", '"always most powerful" (late-riser)'),
                )
                if name in played
            ]
            text = " and ".join(named)
            first = next(i for i, letter in enumerate(text) if letter.isalpha())
            s.blocks += [
                (
                    "text",
                    f"{text[:first]}{text[first].upper()}{text[first + 1 :]} against the field:",
                ),
                ("table", "plan_extremes"),
            ]
        else:
            s.blocks.append(
                (
                    "text",
                    "Neither early-bird (always earliest) nor late-riser (always most "
                    "powerful) played in these games; add them with --strategy to compare.",
                )
            )
    else:
        s.skipped = "no plan columns"


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    """With/without associations, only where no study measured the cards' values: a card
    chosen in the games its holder was losing anyway showed "-3.0 points when chosen"
    beside a measured value of +0.8 (its findings are the study's, study_findings)."""
    if "study_plan" in tables:
        return []
    return effect_candidates(
        tables,
        "plan_cards",
        lambda r: f"plan card {r.plan} ({r.wake})",
        "win_effect",
        f"points of win share when chosen vs not chosen, {WITHIN} (an association, not "
        "what the card is worth: a study measures that)",
        "n_effect",
        "win_diff",
        min_samples=min_samples,
    )


def wake_ticks(axis, x: np.ndarray, wakes: list[str]) -> None:
    """The wake-up times as x ticks, each once and at most 24 of them (1,000 plan cards
    gave 1,000 tick labels, 15 s of a report to draw)."""
    at = dict(zip(x.tolist(), wakes, strict=True))
    shown = sorted(at)[:: max(1, -(-len(at) // 24))]
    axis.set_xticks(shown, [at[minutes] for minutes in shown], rotation=60, fontsize=7)


def plan_tradeoff(tables) -> bytes:
    table = tables["plan_cards"]
    # win_when_chosen is left out: in a mixed field it mostly says which strategy chose
    # the card; win_effect is the within-strategy comparison
    panels = [
        c
        for c in ("turn_position", "cards_painted", "fame_gained", "win_effect")
        if c in table and np.isfinite(table[c].to_numpy(dtype=float)).any()
    ]
    labels = {
        "turn_position": "turn position that day (0 = first)",
        "cards_painted": "cards painted that day",
        "fame_gained": "fame gained that day",
        "win_when_chosen": "win share when chosen",
        "win_effect": "win share: chosen - not, within strategy (points)",
    }
    # grey where the panel's own sample is too small: win_effect's note (chosen, not
    # chosen, the smaller group); the other panels rest on the times chosen alone (P4 to
    # P8 were grey in every panel where only their effects had too few samples)
    least = table.attrs.get("min_samples", 0)
    chosen_colours = [GREY if n < least else "C0" for n in table["n"]]
    in_points = table.assign(
        **{c: 100 * table[c] for c in ("win_effect", "win_effect_ci_low", "win_effect_ci_high")}
    )  # (points, as the table beside it; it was drawn in fractions)
    ncols = 2 if len(panels) > 1 else 1
    nrows = -(-len(panels) // ncols)
    figure, axes = _figure(4.6 * ncols, 3.6 * nrows, nrows=nrows, ncols=ncols)
    for unused in list(axes)[len(panels) :]:
        unused.set_visible(False)
    x = table["wake_minutes"].to_numpy(dtype=float)
    ticks = table["wake"].tolist()
    for axis, column in zip(axes, panels, strict=False):
        effect = column == "win_effect"
        _labelled_points(
            axis, in_points if effect else table, column, "plan", x,
            _colours(table) if effect else chosen_colours, capsize=3, fontsize=7, offset=3,
        )  # fmt: skip
        wake_ticks(axis, x, ticks)
        axis.set_xlabel("wake-up time")
        axis.set_title(labels[column], fontsize=9)
    n = int(table["n"].sum())
    figure.suptitle(
        f"Early rise vs paint power (95% CIs; n = {n:,} plan choices; grey: too few samples)",
        fontsize=10,
    )
    return _png(figure)


def plan_value(tables) -> bytes:
    """Wake-up time (x) against paint and hike (two panels), each card's point coloured and
    labelled by its measured value (restricted play)."""
    table = tables["plan_value"]
    figure, axes = _figure(9, 4, ncols=2, layout="constrained")
    x = table["wake_minutes"].to_numpy(dtype=float)
    value = table["value"].to_numpy(dtype=float)
    for axis, column in zip(axes, ("paint", "hike"), strict=True):
        points = axis.scatter(
            x, table[column], c=value, cmap="viridis", s=90, edgecolors="black", zorder=3
        )
        for xi, yi, plan, v in zip(x, table[column], table["plan"], value, strict=True):
            if len(table) > MANY_POINTS:  # (unreadable, and a second each: _labelled_points)
                break
            axis.annotate(
                f"{plan} {v:.1f}", (xi, yi), textcoords="offset points", xytext=(0, 8),
                ha="center", fontsize=7,
            )  # fmt: skip
        wake_ticks(axis, x, table["wake"].tolist())
        axis.set_xlabel("wake-up time")
        axis.set_ylabel(f"{column} (cards)" if column == "paint" else "hike (steps)")
        axis.set_ylim(table[column].min() - 0.6, table[column].max() + 0.9)
    colour_bar = figure.colorbar(points, ax=list(axes), shrink=0.85)
    colour_bar.set_label("value: win-share points lost without it", fontsize=8)
    n = int(table["n"].max())
    figure.suptitle(
        f"Early rise vs power, with each plan card's measured value (n = {n:,} deals)", fontsize=10
    )
    return _png(figure)


SECTION = SectionSpec(
    name="plan cards",
    needs=("plan_day*",),
    heading=("plan-cards", "Early rise vs paint power"),
    compute=plan_tables,
    fill=fill,
    plots={
        "plan_tradeoff": (("plan_cards",), plan_tradeoff),
        "plan_value": (("plan_value",), plan_value),
    },
    kinds={"plan_cards": "plan card"},
    candidates=finding_candidates,
    notes=column_notes,
    see_also=("card-value", "plan_cards", "Plan cards: see Early rise vs paint power above."),
)
