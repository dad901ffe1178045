"""Fairness and game shape: win share by seat and turn position (Balance), how strategies
fared per seat, ties, margins, end reasons and how often the lead changes day by day."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sunset_sim.analysis import stats
from sunset_sim.analysis.report.clustered import over_games, side_words
from sunset_sim.analysis.report.data import (
    _ci_columns,
    _Data,
    _days,
    _effect_columns,
    _group_sums,
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
from sunset_sim.analysis.report.plotting import GREY, _colours, _errors, _figure, _png
from sunset_sim.analysis.stats import ends_text
from sunset_sim.validation import counted


def fairness_tables(data: _Data, min_samples: int) -> dict[str, pd.DataFrame]:
    frame = data.frame
    seat = frame["seat"].to_numpy().astype(np.int64)
    n, s, q = _group_sums(seat, data.win, data.players)
    _, fs, fq = _group_sums(seat, data.fame, data.players)
    total = np.array([n.sum(), s.sum(), q.sum()])
    # within strategy: seat i vs the other seats held by the same strategy (NaN when each
    # seat always held one strategy: there is nothing to compare within a strategy)
    cell = _cell_sums(seat, data.players, data)
    rest = (cell.sum(axis=0) - cell).reshape(data.players, -1)
    effect = _within(cell.reshape(data.players, -1), rest, min_n=min_samples)
    sides = side_words(seat, data.players)  # intervals over games: clustered.py
    effect = over_games(
        effect, cell.reshape(data.players, -1), rest, *sides, data, min_n=min_samples
    )
    seat_sums = np.column_stack([n, s, q])
    raw = stats.diff_ci_sums(*seat_sums.T, *(total - seat_sums).T, rate=True)
    raw = over_games(raw, seat_sums, total - seat_sums, *sides, data, stratified=False)
    rows = []
    for i in range(data.players):
        diff = [v[i] for v in raw]
        rows.append(
            {
                "seat": i,
                "n": int(n[i]),
                **_ci_columns("win_share", *stats.rate_ci_sums(n[i], s[i], q[i])),
                **_ci_columns("mean_fame", *stats.mean_ci_sums(n[i], fs[i], fq[i])),
                **_effect_columns("win_effect", [v[i] for v in effect]),
                "n_effect": int(effect[4][i]),
                **_ci_columns("win_diff", *diff[:3]),
                "win_diff_p": diff[3],
            }
        )
    tables = {"seats": _mark(pd.DataFrame(rows), "n", min_samples, "win_share")}
    if any(len(np.unique(data.strategy[seat == i])) > 1 for i in range(data.players)):
        rows = []  # strategies rotated through the seats: each strategy's win share per seat
        for code, label in enumerate(data.strategies):
            for i in range(data.players):
                sn, ss, sq = cell[i, code]
                rows.append(
                    {
                        "strategy": label,
                        "seat": i,
                        "n": int(sn),
                        **_ci_columns("win_share", *stats.rate_ci_sums(sn, ss, sq)),
                    }
                )
        tables["strategy_seats"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
    value, lo, hi, games = stats.balance_ci(data.per_game(data.win))
    caveats = []
    if data.seats_fixed():
        caveats.append("each seat held one strategy: seat and strategy are mixed")
    if games < min_samples:  # (as every other figure: "Balance 0.500"; with the seat caveat
        # too, which had replaced it: a 1-game report's Balance 0.00 carried no mark)
        caveats.append(f"too few samples ({counted(games, 'game')}, fewer than {min_samples:,})")
    caveat = "; ".join(caveats)
    tables["balance"] = pd.DataFrame(
        [
            {
                "measure": "balance",
                "n": games,
                "balance": value,
                "balance_ci_low": lo,
                "balance_ci_high": hi,
                "caveat": caveat,
            }
        ]
    )
    turn_days = _days(frame, "turn_day")
    if turn_days:
        rows = []
        all_sums = np.zeros((data.players, 3))
        for day in turn_days:
            position = frame[f"turn_day{day}"].to_numpy().astype(np.int64)
            position = np.where(data.days_played >= day, position, -1)
            position = np.where(position < data.players, position, -1)
            pn, ps, pq = _group_sums(position, data.win, data.players)
            all_sums += np.column_stack([pn, ps, pq])
            for p in range(data.players):
                rows.append(_position_row(str(day), p, pn[p], ps[p], pq[p], n.sum(), s.sum()))
        for p in range(data.players):
            rows.append(_position_row("all", p, *all_sums[p], None, None))
        tables["turn_positions"] = _mark(pd.DataFrame(rows), "n", min_samples, None)
        # day-1 turn position (one per seat-game: independent samples) vs the others,
        # raw and within strategy
        first = turn_days[0]
        position = frame[f"turn_day{first}"].to_numpy().astype(np.int64)
        position = np.where((data.days_played >= first) & (position < data.players), position, -1)
        cell = _cell_sums(position, data.players, data)
        rest = cell.sum(axis=0) - cell
        effect = _within(
            cell.reshape(data.players, -1), rest.reshape(data.players, -1), min_n=min_samples
        )
        sides = side_words(position, data.players)
        effect = over_games(
            effect, cell.reshape(data.players, -1), rest.reshape(data.players, -1), *sides,
            data, min_n=min_samples,
        )  # fmt: skip
        pooled, pooled_rest = cell.sum(axis=1), rest.sum(axis=1)
        raw = stats.diff_ci_sums(*pooled.T, *pooled_rest.T, rate=True)
        raw = over_games(raw, pooled, pooled_rest, *sides, data, stratified=False)
        rows = []
        for p in range(data.players):
            diff = [v[p] for v in raw]
            rows.append(
                {
                    "day": first,
                    "position": p,
                    "n": int(pooled[p, 0]),
                    **_ci_columns("win_share", *stats.rate_ci_sums(*pooled[p])),
                    **_effect_columns("win_effect", [v[p] for v in effect]),
                    "n_effect": int(effect[4][p]),
                    **_ci_columns("win_diff", *diff[:3]),
                    "win_diff_p": diff[3],
                }
            )
        tables["first_turn"] = _mark(pd.DataFrame(rows), "n", min_samples, "win_effect")
    # game shape: ties, end reasons, margins, lead changes
    winners = data.per_game(frame["n_winners"].to_numpy())[:, 0]
    shape = []
    tie = stats.proportion_ci((winners > 1).sum(), data.games)
    shape.append({"measure": "tied games, % (more than one winner)", "n": data.games, **_pct(tie)})
    fame = data.per_game(data.fame)
    ordered = np.sort(fame, axis=1)
    margin = ordered[:, -1] - ordered[:, -2]
    mean = stats.mean_ci(margin)
    shape.append(
        {"measure": "score margin (winner - runner-up)", "n": data.games, **_vci(mean[:3])}
    )
    close = stats.proportion_ci((margin <= 2).sum(), data.games)
    shape.append({"measure": "close games, % (margin 0 to 2)", "n": data.games, **_pct(close)})
    if "days_played" in frame:
        played = data.per_game(data.days_played)[:, 0]
        shape.append({"measure": "days played", "n": data.games, **_vci(stats.mean_ci(played)[:3])})
    bins = np.bincount(margin.astype(np.int64))
    nz = np.nonzero(bins)[0]
    tables["margins"] = pd.DataFrame(
        {"margin": nz, "games": bins[nz], "share": bins[nz] / data.games}
    )
    if "end_reason" in frame:
        # one row per game (the same on each seat's row) before the strings are made
        values, counts = _value_counts(frame["end_reason"].iloc[:: data.players])
        rows = []
        for value, count in zip(values, counts, strict=True):
            rows.append(
                {
                    "end_reason": value,
                    "n": data.games,
                    "games": int(count),
                    **_ci_columns("share", *stats.proportion_ci(count, data.games)),
                }
            )
        tables["end_reasons"] = pd.DataFrame(rows)
    fame_days = [d for d in _days(frame, "fame_day")]
    if fame_days:
        lead, changes = _lead_table(data, fame_days)
        # a lead change needs a sole leader the day before: none on the first day, which
        # is not a small sample (the lead change is just undefined there)
        lead = _mark(lead, ["n"], min_samples, None)
        # a day every game had ended before (commission shortages): nothing was sampled
        lead.loc[lead["n"] == 0, "note"] = "no game went on to this day"
        first = (lead["n_comparable"] == 0) & (lead["note"] == "")
        lead.loc[first, "note"] = "no earlier leader"
        final = (lead["n_ongoing"] == 0) & (lead["note"] == "")
        lead.loc[final, "note"] = "last day: its leader is the winner"
        small = (lead["n_comparable"] > 0) & (lead["n_comparable"] < min_samples)
        lead.loc[small & (lead["note"] == ""), "note"] = f"lead change: {TOO_FEW}"
        # the leader's win share rests on the games still going after that day (a 3-day
        # game ended early: 90% on 20 games was shown unmarked)
        few = (lead["n_ongoing"] > 0) & (lead["n_ongoing"] < min_samples)
        lead.loc[few & (lead["note"] == ""), "note"] = f"leader wins: {TOO_FEW}"
        tables["lead_by_day"] = lead
        shape.append(
            {
                "measure": "lead changes per game",
                "n": data.games,
                **_vci(stats.mean_ci(changes)[:3]),
            }
        )
    tables["game_shape"] = pd.DataFrame(shape)
    return tables


def _value_counts(column: pd.Series) -> tuple[list[str], list[int]]:
    """``np.unique(column.astype(str), return_counts=True)``; a categorical column (the
    report's own games) counted by its codes, not sorted as a million strings."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        values, counts = np.unique(column.astype(str).to_numpy(), return_counts=True)
        return [str(v) for v in values], [int(c) for c in counts]
    names = [str(c) for c in column.cat.categories] + [str(np.nan)]  # code -1: missing
    codes = column.cat.codes.to_numpy().astype(np.int64)
    per_code = np.bincount(np.where(codes >= 0, codes, len(names) - 1), minlength=len(names))
    found: dict[str, int] = {}
    for name, count in zip(names, per_code, strict=True):
        if count:
            found[name] = found.get(name, 0) + int(count)
    return sorted(found), [found[name] for name in sorted(found)]


def _cell_sums(codes: np.ndarray, n_codes: int, data: _Data) -> np.ndarray:
    """(n_codes, k, 3): n, sum and sum of squares of win share per (code, strategy); rows
    with a negative code are left out."""
    cell = np.where(codes >= 0, codes * data.k + data.strategy, -1)
    sums = _group_sums(cell, data.win, n_codes * data.k)
    return np.stack(sums, axis=-1).reshape(n_codes, data.k, 3)


def _pct(triple) -> dict:
    return _vci([100 * v for v in triple])


def _vci(triple) -> dict:
    return {"value": triple[0], "value_ci_low": triple[1], "value_ci_high": triple[2]}


def _position_row(day, position, n, s, q, _total_n, _total_s) -> dict:
    return {
        "day": day,
        "position": position,
        "n": int(n),
        **_ci_columns("win_share", *stats.rate_ci_sums(n, s, q)),
    }


def _lead_table(data: _Data, fame_days: list[int]) -> tuple[pd.DataFrame, np.ndarray]:
    """Per day: how often the sole leader changed from the last sole leader, how often the
    day's leaders include a final winner; and each game's number of lead changes."""
    won = data.per_game(data.win) > 0
    played = data.per_game(data.days_played)[:, 0]
    last = np.full(data.games, -1)
    changes = np.zeros(data.games)
    rows = []
    for day in fame_days:
        fame = data.per_game(data.frame[f"fame_day{day}"].to_numpy().astype(np.int64))
        alive = (played >= day) & (fame >= 0).all(axis=1)
        top = fame.max(axis=1, keepdims=True)
        leaders = fame == top
        sole = leaders.sum(axis=1) == 1
        leader = np.where(sole, leaders.argmax(axis=1), -1)
        changed = alive & sole & (last >= 0) & (leader != last)
        comparable = alive & sole & (last >= 0)
        changes += changed
        # a game's leader on its last day is its winner by definition: leader_wins counts
        # only the games that still had days to play
        ongoing = alive & (played > day)
        holds = ongoing & (leaders & won).any(axis=1)
        k = int(alive.sum())
        rows.append(
            {
                "day": day,
                "n": k,
                **_ci_columns("sole_leader", *stats.proportion_ci((alive & sole).sum(), k)),
                **_ci_columns(
                    "lead_change", *stats.proportion_ci(changed.sum(), int(comparable.sum()))
                ),
                "n_comparable": int(comparable.sum()),
                "n_ongoing": int(ongoing.sum()),
                **_ci_columns("leader_wins", *stats.proportion_ci(holds.sum(), int(ongoing.sum()))),
            }
        )
        last = np.where(alive & sole, leader, last)
    return pd.DataFrame(rows), changes


def column_notes(tables: Tables) -> list[str]:
    """Lead changes need the fame_day* columns."""
    notes = []
    if "lead_by_day" not in tables:
        notes.append("lead changes: skipped, the results have no fame_day* column")
    return notes


def fill(s: Section, report: Report) -> None:
    t = report.tables
    meta = report.meta
    if meta.get("seats_confounded"):
        s.blocks.append(
            (
                "text",
                "Caution: each seat held the same strategy in every game, so these seat "
                "differences mix seat advantage with strategy strength.",
            )
        )
    s.blocks += [
        (
            "text",
            "Win share by seat; win_effect compares a seat with the other seats held by the "
            "same strategy (empty when every seat always held one strategy).",
        ),
        ("table", "seats"),
        (
            "text",
            "Balance = 1 - the largest gap between seats' win rates (1 is perfectly fair); "
            "its 95% CI from simultaneous intervals for every pair of seats' difference "
            "(it covers a fair game's 1 at least 95% of the time).",
        ),
        ("table", "balance"),
        ("plot", "seats", "Win share by seat and turn position"),
    ]
    if "turn_positions" in t:
        s.blocks += [
            (
                "text",
                "Win share by turn position (0 = first to act), per day and over all days "
                '("all" counts seat-days, so its CI is optimistic).',
            ),
            ("table", "turn_positions"),
        ]
    if "first_turn" in t:
        s.blocks += [
            (
                "text",
                "Day-1 turn position against the other positions (one sample per seat and "
                "game): win_effect within each strategy, win_diff raw. The position follows "
                "from the plan card chosen, so this overlaps the plan card effects.",
            ),
            ("table", "first_turn"),
        ]
    if "strategy_seats" in t:
        s.blocks += [
            (
                "text",
                "The strategies rotated through the seats; each strategy's win share per seat "
                "(the strategy rows above pool over seats):",
            ),
            ("table", "strategy_seats"),
        ]
    s.blocks += [("table", "game_shape")]
    if "end_reasons" in t:
        s.blocks += [("table", "end_reasons")]
    s.blocks += [("plot", "margins", "Score margins")]
    if "lead_by_day" in t:
        s.blocks += [
            (
                "text",
                "Lead by day: games with a sole leader after the day, lead changes (sole leader "
                "differs from the previous sole leader) and how often the day's leaders "
                "include a final winner.",
            ),
            ("table", "lead_by_day"),
            ("plot", "lead_by_day", "Lead by day"),
        ]


def finding_candidates(tables: Tables, confounded: bool, min_samples: int) -> list[Candidate]:
    """Seats only when strategies rotated through them (otherwise a seat's effect is its
    strategy's); turn positions always (they follow from the plan card chosen)."""
    candidates = []
    if not confounded:
        candidates += effect_candidates(
            tables,
            "seats",
            lambda r: f"seat {r.seat}",
            "win_effect",
            f"points of win share against the other seats, {WITHIN}",
            "n_effect",
            "win_diff",
            min_samples=min_samples,
        )
    candidates += effect_candidates(
        tables,
        "first_turn",
        lambda r: f"turn position {r.position} on day {r.day}",
        "win_effect",
        f"points of win share against the other turn positions, {WITHIN}",
        "n_effect",
        "win_diff",
        min_samples=min_samples,
    )
    return candidates


def seats(tables) -> bytes:
    table = tables["seats"]
    positions = tables.get("turn_positions")
    ncols = 2 if positions is not None else 1
    figure, axes = _figure(10 if ncols == 2 else 6, 4, ncols=ncols)
    players = len(table)
    axes[0].bar(
        table["seat"].astype(str),
        100 * table["win_share"],
        yerr=_errors(table, "win_share", 100),
        color=_colours(table),
        capsize=4,
    )
    axes[0].axhline(100 / players, color="black", linewidth=0.8, linestyle="--")
    balance = tables["balance"].iloc[0]
    measure = (
        f"Balance {balance['balance']:.3f} (95% CI "
        f"{ends_text(balance['balance_ci_low'], balance['balance_ci_high'], 3)})"
    )
    if balance.get("caveat", ""):  # not a seat measure when each seat kept one strategy
        measure = f"no seat Balance: {balance['caveat']}"
    axes[0].set_title(
        f"Win share by seat (n = {int(table['n'].iloc[0]):,} games)\n{measure}", fontsize=9
    )
    axes[0].set_xlabel("seat")
    axes[0].set_ylabel("win share, % (95% CI)")
    if positions is not None:
        for i, day in enumerate(["1", "all"]):
            group = positions[positions["day"] == day]
            offset = (i - 0.5) * 0.35
            axes[1].bar(
                group["position"] + offset,
                100 * group["win_share"],
                width=0.35,
                yerr=_errors(group, "win_share", 100),
                capsize=3,
                label="day 1" if day == "1" else "all days (seat-days)",
                color=f"C{i}",
            )
        axes[1].axhline(100 / players, color="black", linewidth=0.8, linestyle="--")
        axes[1].set_xticks(range(players))
        axes[1].set_xlabel("turn position (0 = first)")
        axes[1].set_title("Win share by turn position", fontsize=9)
        axes[1].legend(fontsize="small")
    return _png(figure)


def margins(tables) -> bytes:
    table = tables["margins"]
    figure, (axis,) = _figure(7, 4)
    axis.bar(table["margin"], 100 * table["share"], color="C0")
    n = int(table["games"].sum())
    axis.set_xlabel("winner's fame minus runner-up's (0 = tie)")
    axis.set_ylabel("% of games")
    axis.set_title(f"Score margins (n = {n:,} games)")
    return _png(figure)


def _lead_small(table: pd.DataFrame, column: str) -> np.ndarray:
    """Where a lead_by_day measure rests on fewer games than the report's minimum (the
    day's games; for a lead change those with a leader the day before, for the leader's
    win those still going)."""
    least = table.attrs.get("min_samples", 0)
    rests_on = {"lead_change": "n_comparable", "leader_wins": "n_ongoing"}.get(column, "n")
    n = table[rests_on].to_numpy()
    return ((n > 0) & (n < least)) | (table["n"].to_numpy() < least)


def lead_by_day(tables) -> bytes:
    table = tables["lead_by_day"]
    figure, (axis,) = _figure(7, 4)
    for i, (column, label) in enumerate(
        (
            ("lead_change", "sole leader changed"),
            ("leader_wins", "a day's leaders include a winner"),
            ("sole_leader", "a sole leader"),
        )
    ):
        axis.errorbar(
            table["day"] + (i - 1) * 0.06,
            100 * table[column],
            yerr=_errors(table, column, 100),
            fmt="o-",
            capsize=3,
            label=label,
            color=f"C{i}",
        )
        # each measure's own small samples in grey, as the table's notes (a day's leader
        # on 8 games still going was drawn as the rest)
        small = _lead_small(table, column)
        if small.any():
            x = (table["day"] + (i - 1) * 0.06).to_numpy()[small]
            axis.plot(x, 100 * table[column].to_numpy()[small], "o", color=GREY, zorder=3)
    axis.set_xlabel("day")
    axis.set_ylabel("% of games (95% CI)")
    axis.set_title(f"Lead by day (n = {int(table['n'].iloc[0]):,} games; grey: too few samples)")
    axis.legend(fontsize="small")
    return _png(figure)


SECTION = SectionSpec(
    name="fairness and game shape",
    needs=(),
    heading=("fairness", "Fairness and game shape"),
    compute=fairness_tables,
    fill=fill,
    plots={
        "seats": (("seats", "balance"), seats),
        "margins": (("margins",), margins),
        "lead_by_day": (("lead_by_day",), lead_by_day),
    },
    kinds={"seats": "seat/turn position", "first_turn": "seat/turn position"},
    candidates=finding_candidates,
    notes=column_notes,
)
