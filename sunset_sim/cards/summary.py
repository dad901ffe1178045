"""A readable summary of a card set, so a designer can see what a file contains.

Used by the command line (``cards`` summary) and by reports: counts, the landscape
feature balance, every commission against the difficulty model, goals and plan cards.
"""

from __future__ import annotations

import pandas as pd

from sunset_sim.cards.difficulty import FAME_PER_BIT, commission_difficulty, model_fame
from sunset_sim.cards.fields import format_frame
from sunset_sim.cards.loader import DEFAULT_FILE, DEFAULT_PATH_LABEL
from sunset_sim.cards.model import CardSet
from sunset_sim.enums import (
    DIRCLASS_NAMES,
    DIRECTION_CLASS,
    GOAL_HOLDS,
    GOAL_KIND_NAMES,
    GOAL_KINDS_WITH_COUNT,
    GOAL_MOVED,
    GOAL_PAINTED,
    GOAL_SOLD,
    GOAL_STEPS,
    GRID_SIZE,
    N_DIRECTIONS,
)


def commission_table(cards: CardSet) -> pd.DataFrame:
    """One row per commission: frames, printed fame, model difficulty and model fame."""
    rows = []
    for card in cards.commissions:
        bits = commission_difficulty(card, cards.landscapes) if cards.landscapes else float("nan")
        model = model_fame(card, cards.landscapes) if cards.landscapes else None
        rows.append(
            {
                "id": card.id,
                "frames": " | ".join(format_frame(f, cards.features) for f in card.frames),
                "n_frames": len(card.frames),
                "fame": card.fame,
                "difficulty_bits": bits,
                "model_fame": model,
                "matches_model": model == card.fame,
            }
        )
    columns = ["id", "frames", "n_frames", "fame", "difficulty_bits", "model_fame"]
    return pd.DataFrame(rows, columns=[*columns, "matches_model"])


def summary_tables(cards: CardSet) -> dict[str, pd.DataFrame]:
    """The summary's tables (``cards --format csv|json``): one row per landscape,
    commission, goal and plan card."""
    landscapes = pd.DataFrame(
        [
            {
                "id": land.id,
                "icons": land.icons,
                **dict(zip(cards.features, land.features, strict=True)),
            }
            for land in cards.landscapes
        ],
        columns=["id", "icons", *cards.features],
    )
    goals = pd.DataFrame(
        [
            {
                "id": goal.id,
                "fame": goal.fame,
                "kind": GOAL_KIND_NAMES[goal.kind],
                "param": goal_param_text(goal.kind, goal.param),
            }
            for goal in cards.goals
        ],
        columns=["id", "fame", "kind", "param"],
    )
    plans = pd.DataFrame(
        [
            {
                "id": plan.id,
                "wake": plan.wake_label,
                "directions": plan.directions,
                "hike": plan.hike,
                "paint": plan.paint,
            }
            for plan in cards.plans
        ],
        columns=["id", "wake", "directions", "hike", "paint"],
    )
    return {
        "commissions": commission_table(cards),
        "landscapes": landscapes,
        "goals": goals,
        "plans": plans,
    }


def goal_param_text(kind: int, param: int) -> str:
    """The goal's parameter as a TOML user would write it ('' when the kind has none)."""
    if kind == GOAL_MOVED:
        return f"direction={DIRCLASS_NAMES[param]}"
    if kind in GOAL_KINDS_WITH_COUNT:
        return f"n={param}"
    return ""


def goals_never_met(cards: CardSet, days: int) -> list[str]:
    """Why each daily goal no turn can meet with this set's plan cards (R-GOAL-3): the
    loader refuses a commission no landscape can complete, and a goal asking for 6 steps
    of hikes that reach 4 at most was taken in silence (a note: a set may mean it)."""
    if not cards.plans:
        return []
    longest = min(max(plan.hike for plan in cards.plans), GRID_SIZE - 1)  # R-HIKE-3
    # a turn paints at most its plan's paint number of its path's cells (R-PAINT-1)
    painted_by = sorted(
        (min(plan.paint, 1 + min(plan.hike, GRID_SIZE - 1)) for plan in cards.plans), reverse=True
    )
    most_painted = painted_by[0]
    # a kept plan card leaves its deck (R-PLAN-1): the days' turns paint at most the
    # days' best cards once each (a tester's G6 "holds 9" at 3 days: 3 + 3 + 2 = 8 at
    # most, where days x the most painted said 9)
    most_held = sum(painted_by[:days])
    classes = {
        DIRECTION_CLASS[d]
        for plan in cards.plans
        for d in range(N_DIRECTIONS)
        if plan.direction_mask >> d & 1
    }
    found = []
    for goal in cards.goals:
        what = f"{GOAL_KIND_NAMES[goal.kind]} {goal_param_text(goal.kind, goal.param)}"
        if goal.kind == GOAL_STEPS and goal.param > longest:
            why = f"no hike is longer than {longest} steps"
        elif goal.kind == GOAL_PAINTED and goal.param > most_painted:
            why = f"no turn paints more than {most_painted} cards"
        elif goal.kind == GOAL_HOLDS and goal.param > most_held:
            why = (
                f"no player holds more than {most_held} paintings in {days} days (each plan "
                "card kept once)"
            )
        elif goal.kind == GOAL_SOLD and goal.param > len(cards.commissions):
            why = f"the set has {len(cards.commissions)} commissions"
        elif goal.kind == GOAL_MOVED and goal.param not in classes:
            why = f"no plan card hikes {DIRCLASS_NAMES[goal.param]}ly"
        else:
            continue
        found.append(f"{goal.id} ({what}) can never be met: {why}")
    return found


def _shown_path(path: str) -> str:
    """The packaged set's label, said in words: where it is and how to use another."""
    if path != DEFAULT_PATH_LABEL:
        return path
    return f"{path} (the packaged sunset_sim/cards/{DEFAULT_FILE}; --cards FILE for another)"


def format_summary(cards: CardSet) -> str:
    """Multi-line text summary of ``cards`` (see module docstring)."""
    lines = [
        f"card set  {cards.name}",
        f"hash      {cards.content_hash}",
        f"path      {_shown_path(cards.path)}",
        f"features  {', '.join(cards.features)}",
        (
            f"cards     {len(cards.landscapes)} landscapes, {len(cards.commissions)} commissions, "
            f"{len(cards.goals)} goals, {len(cards.plans)} plans"
        ),
        "",
        "Landscape icons (over the deck)",
    ]
    totals = [
        sum(land.features[f] for land in cards.landscapes) for f in range(len(cards.features))
    ]
    width = max(len(name) for name in cards.features)
    for name, total in zip(cards.features, totals, strict=True):
        lines.append(f"  {name:<{width}}  {total:3d}")
    by_size: dict[int, int] = {}
    for land in cards.landscapes:
        by_size[land.icons] = by_size.get(land.icons, 0) + 1
    sizes = ", ".join(f"{by_size[k]} with {k}" for k in sorted(by_size))
    repeated = sum(1 for land in cards.landscapes if max(land.features) > 1)
    lines.append(f"  cards by icon count: {sizes}; {repeated} with a repeated icon")

    lines += ["", f"Commissions (model: fame = round({FAME_PER_BIT} x bits), clamped)"]
    table = commission_table(cards)
    if table.empty:
        lines.append("  (none)")
    else:
        frame_w = max(6, int(table["frames"].str.len().max()))
        id_w = max(5, int(table["id"].str.len().max()))  # (long ids pushed the columns)
        lines.append(f"  {'id':<{id_w}} {'frames':<{frame_w}}  fame   bits  model")
        mismatches = 0
        for row in table.itertuples(index=False):
            flag = "" if row.matches_model else "  <-- differs from model"
            mismatches += 0 if row.matches_model else 1
            model = "-" if row.model_fame is None else str(row.model_fame)
            lines.append(
                f"  {row.id:<{id_w}} {row.frames:<{frame_w}}  {row.fame:4d}  "
                f"{row.difficulty_bits:5.2f}  {model:>5}{flag}"
            )
        fames = table["fame"].value_counts().sort_index()
        lines.append("  fame spread: " + ", ".join(f"{k}:{v}" for k, v in fames.items()))
        lines.append(
            "  all fame values follow the model"
            if mismatches == 0
            else f"  {mismatches} fame value(s) differ from the model"
        )

    lines += ["", "Daily goals"]
    if not cards.goals:
        lines.append("  (none)")
    for goal in cards.goals:
        param = goal_param_text(goal.kind, goal.param)
        lines.append(
            f"  {goal.id:<5} fame {goal.fame}  {GOAL_KIND_NAMES[goal.kind]} {param}".rstrip()
        )

    plan_w = max([5] + [len(plan.id) for plan in cards.plans])
    lines += [
        "",
        "Plan cards",
        f"  {'id':<{plan_w}} {'wake':>5}  {'directions':<10}  hike  paint",
    ]
    for plan in cards.plans:
        lines.append(
            f"  {plan.id:<{plan_w}} {plan.wake_label:>5}  {plan.directions:<10}  {plan.hike:4d}  "
            f"{plan.paint:5d}"
        )
    return "\n".join(lines) + "\n"
