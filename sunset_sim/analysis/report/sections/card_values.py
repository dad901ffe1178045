"""Card values and rebalance suggestions: the designer study's restricted-play values,
targets and verified suggestions (``analysis.study``), shown when a study was run.

Not in the section registry: its tables come from the study, not from the result rows,
and ``build_report`` places it right after the findings."""

from __future__ import annotations

import json

import pandas as pd

from sunset_sim.analysis.report.model import Finding, Section
from sunset_sim.analysis.stats import ends_text


def study_findings(study) -> list[Finding]:
    """The cards outside their targets, as findings: measured by paired experiments on
    the same deals (restricted play), so they lead the list; each names its suggestion."""
    from sunset_sim.analysis.study_files import (  # (see study_section)
        NEAREST,
        pair_caveat,
        suggestion_caveat,
    )
    from sunset_sim.analysis.targets import telling_digits

    suggested: dict[str, list] = {}  # a card's rows are one edit (one row per field)
    for _, row in study.suggestions.iterrows():
        suggested.setdefault(row["card"], []).append(row)
    findings = []
    for _, row in study.outside().iterrows():
        d = telling_digits(row["value"], row["target_low"], row["target_high"])
        text = (
            f"{row['family']} {row['card']}: {row['metric']} {row['value']:.{d}f} (95% CI "
            f"{ends_text(row['value_ci_low'], row['value_ci_high'], 2)}, n = {int(row['n']):,}), "
            f"{row['status']} its target {row['target_low']:.{d}f} to {row['target_high']:.{d}f}"
        )
        if row["card"] in suggested:
            # every field of the edit: "hike 4 -> 2" alone, of a three-field edit, was
            # read as the whole change
            fields = suggested[row["card"]]
            edit = fields[0]
            changes = ", ".join(f"{f['field']} {f['current']} → {f['suggested']}" for f in fields)
            caveat = suggestion_caveat(edit)
            nearest = caveat == NEAREST  # (not verified inside)
            d = telling_digits(edit["after"], edit["target_low"], edit["target_high"])
            text += (
                f"; {'suggestion, the nearest step' if nearest else 'verified suggestion'}: "
                f"{changes}"
                + (" (together)" if len(fields) > 1 else "")
                + f" ({edit['after']:.{d}f}, 95% CI "
                f"{ends_text(edit['after_ci_low'], edit['after_ci_high'], 2)}, on "
                f"{int(edit['n']):,} fresh deals"
            )
            band = (round(edit["target_low"], 2), round(edit["target_high"], 2))
            if band != (round(row["target_low"], 2), round(row["target_high"], 2)):
                # a commission's band moves with its fame: the after-value is held to the
                # edited card's (0.23 read as outside "0.05 to 0.19", which was the old one's)
                at = ", ".join(f"{f['field']} {f['suggested']}" for f in fields)
                text += (
                    f"; its target at {at}: {edit['target_low']:.{d}f} to "
                    f"{edit['target_high']:.{d}f}"
                )
            # the caveats the card-values section gives, here too (a finding read alone
            # said "verified" where the after-value's CI still reached outside)
            for said in (caveat, pair_caveat(edit)):
                text += f"; {said}" if said else ""
            together = edit.get("inside_with_all_edits")
            if together is not None and not pd.isna(together) and not bool(together):
                text += "; outside its target with all the edits together"
            text += ")"
        findings.append(
            Finding(
                text,
                "card value",
                row["value"],
                row["value_ci_low"],
                row["value_ci_high"],
                int(row["n"]),
                float("nan"),
            )  # fmt: skip
        )
    return findings


def study_tables(study) -> dict[str, pd.DataFrame]:
    """The study's frames with the report's ``x``/``x_ci_low``/``x_ci_high`` column names."""
    from sunset_sim.analysis.study_files import caveats  # (see study_section)

    values = study.values[study.values["strategy"] == "all"]
    tables = {}
    for family in ("plan", "commission", "feature", "landscape"):
        part = values[values["family"] == family]
        if part.empty:
            continue
        table = {"card": part["card"].to_numpy()}
        if family == "commission":
            table["fame"] = part["fame"].astype(int).to_numpy()
        table |= {
            "value": part["value"].to_numpy(),
            "value_ci_low": part["value_ci_low"].to_numpy(),
            "value_ci_high": part["value_ci_high"].to_numpy(),
        }
        if family == "commission":
            table |= {
                "value_per_fame": part["value_per_fame"].to_numpy(),
                "value_per_fame_ci_low": part["value_per_fame_ci_low"].to_numpy(),
                "value_per_fame_ci_high": part["value_per_fame_ci_high"].to_numpy(),
            }
        table |= {
            "fame_cost": part["fame_cost"].to_numpy(),
            "fame_cost_ci_low": part["fame_cost_ci_low"].to_numpy(),
            "fame_cost_ci_high": part["fame_cost_ci_high"].to_numpy(),
            "use_rate": part["use_rate"].to_numpy(),
            "n": part["n"].to_numpy(),
        }
        tables[f"study_{family}"] = pd.DataFrame(table)
    if getattr(study, "tradeoff", None):  # the halves' ids as JSON lists (an id may hold ",")
        tables["study_tradeoff"] = pd.DataFrame(
            [{**study.tradeoff, "early": json.dumps(study.tradeoff["early"]),
              "late": json.dumps(study.tradeoff["late"])}]
        )  # fmt: skip
    outside = study.outside()
    tables["study_outside"] = pd.DataFrame(
        {
            "family": outside["family"].to_numpy(),
            "card": outside["card"].to_numpy(),
            "measured": outside["value"].to_numpy(),
            "measured_ci_low": outside["value_ci_low"].to_numpy(),
            "measured_ci_high": outside["value_ci_high"].to_numpy(),
            "target_low": outside["target_low"].to_numpy(),
            "target_high": outside["target_high"].to_numpy(),
            "status": outside["status"].to_numpy(),
            "metric": outside["metric"].to_numpy(),
        }
    )
    found = study.suggestions
    tables["study_suggestions"] = pd.DataFrame(
        {
            "card": found["card"].to_numpy(),
            "field": found["field"].to_numpy(),
            "current": found["current"].to_numpy(),
            "suggested": found["suggested"].to_numpy(),
            "before": found["before"].to_numpy(dtype=float),
            "before_ci_low": found["before_ci_low"].to_numpy(dtype=float),
            "before_ci_high": found["before_ci_high"].to_numpy(dtype=float),
            "after": found["after"].to_numpy(dtype=float),
            "after_ci_low": found["after_ci_low"].to_numpy(dtype=float),
            "after_ci_high": found["after_ci_high"].to_numpy(dtype=float),
            "target_low": found["target_low"].to_numpy(dtype=float),
            "target_high": found["target_high"].to_numpy(dtype=float),
            "n": found["n"].to_numpy(dtype=int),
            "caveat": [caveats(row) for _, row in found.iterrows()],
        }
    )
    return tables


def study_section(study) -> Section:
    """Card values from paired experiments and the verified suggestions (analysis.study)."""
    from sunset_sim.analysis.study_files import suggestions_heading  # (see study_tables)

    settings = study.settings
    tables = study_tables(study)
    s = Section("card-values", "Card values and rebalance suggestions")
    s.blocks.append(
        (
            "text",
            f"Paired experiments on {settings['games']:,} deals x {settings['tables']} "
            f"rotation(s) of the field {', '.join(settings['strategies'])} "
            f"({settings['players']} players): each card's value is what a seat loses when "
            "it may never keep that plan card (when it has another choice), sell to that "
            "commission or paint that feature type, on the same deals (win share in points, "
            "1 point = 0.01; fame), with 95% CIs and n deals. Targets:",
        )
    )
    s.blocks.append(("list", study.target_text()))
    if not study.suggested:
        s.blocks.append(("text", "Verified suggestions: not looked for (--no-suggest)."))
    elif study.suggestions.empty:
        s.blocks.append(("text", "Verified suggestions: none."))
    else:
        s.blocks.append(
            (
                "text",
                f"{suggestions_heading(study.suggestions)}, in suggestions.csv (the edited set "
                "is suggested-cards.toml): the smallest edit that brings each card inside its "
                "target, verified by playing the edited set on fresh deals (before and after "
                "on the same fresh deals, more of them while the after-value's CI holds an "
                "edge of the target).",
            )
        )
        s.blocks.append(("table", "study_suggestions"))
        if study.compare_command:
            s.blocks.append(
                (
                    "text",
                    "Play the original against the suggested set on deals the study did "
                    f"not play: {study.compare_command}",
                )
            )
    if study.notes:
        s.blocks.append(("list", list(study.notes)))
    if len(tables["study_outside"]):
        s.blocks += [("text", "Cards outside their targets:"), ("table", "study_outside")]
    unsettled = study.unsettled()
    if not unsettled.empty:
        # (here, not at the top: study_files imports the report's escaping)
        from sunset_sim.analysis.study_files import UNSETTLED_TEXT, unsettled_text

        s.blocks += [
            ("text", f"Unsettled: {UNSETTLED_TEXT}:"),
            ("list", [unsettled_text(row) for _, row in unsettled.iterrows()]),
        ]
    for family, title in (
        ("plan", "Plan cards"),
        ("commission", "Commissions"),
        ("feature", "Feature types"),
        ("landscape", "Landscapes"),
    ):
        if f"study_{family}" in tables:
            heading = f"{title}: restricted-play value{_measured_again(study, family)}"
            s.blocks += [("text", heading), ("table", f"study_{family}")]
    return s


def _measured_again(study, family: str) -> str:
    """The cards of ``family`` whose target row stands on fresh deals
    (``fresh_deals.refine_targets``), said beside the table of the study's own values, so
    that a card's two figures are not taken for a mistake."""
    games = study.settings["games"]
    targets = study.targets
    fresh = (  # (a study made before measured_on: the rows on more deals than its own)
        targets["measured_on"] == "fresh" if "measured_on" in targets else targets["n"] > games
    )
    rows = targets[(targets["family"] == family) & fresh]
    if rows.empty:
        return ""
    cards = ", ".join(f"{row.card} on {int(row.n):,}" for row in rows.itertuples())
    return (
        f" on the study's {games:,} deals (measured on fresh deals, for the targets and "
        f"findings: {cards} fresh deals)"
    )
