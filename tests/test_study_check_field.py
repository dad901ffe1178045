"""The check field (``--check-field``): the values measured again with a second field,
and each card outside its target marked with what that field finds on its deals."""

from __future__ import annotations

import pandas as pd
from test_study import DEFAULT, FIELD, PLAYERS, mistaken_cards

from sunset_sim.analysis.study import run_study
from sunset_sim.analysis.study_files import write_study


def test_check_field_marks_findings(tmp_path):
    study = run_study(
        FIELD, PLAYERS, 400, 0, mistaken_cards(), families=("plan",), edits=(),
        suggest=False, check_field=["greedy"], check_games=400,
    )  # fmt: skip
    column = study.targets["holds_in_check_field"]
    assert column.dtype == bool or set(column) <= {True, False}
    assert column.all()  # the same field on the same deals finds the same


def test_an_identical_check_field_agrees_on_cards_measured_again(tmp_path):
    """The audit: with the study's own field as the check field, every commission the
    study measured again on fresh deals was marked False (its status there against the
    check field's on the study's deals alone). Like is compared with like now, and
    study.md marks each card outside with it."""
    study = run_study(
        ["greedy"], 4, 200, 0, families=("commission",), edits=(), suggest=False,
        check_field=["greedy"],
    )  # fmt: skip
    targets = study.targets
    assert (targets["measured_on"] == "fresh").any()  # some were measured on fresh deals
    # on the study's own deals the same field finds the same; a card measured again is
    # marked by its status after the fresh deals, as the text and the status column say
    again = targets["measured_on"] == "fresh"
    assert targets.loc[~again, "holds_in_check_field"].all(), targets[["card", "status", "n"]]
    same = targets["check_field_status"] == targets["status"]
    assert (targets["holds_in_check_field"] == same).all()
    write_study(study, tmp_path, DEFAULT)
    text = (tmp_path / "study.md").read_text()
    assert "Check field: greedy" in text
    if not study.outside().empty:
        assert "; the check field " in text
    for column in ("check_field_status", "check_field_value", "check_field_value_ci_low"):
        assert column in targets
    assert {"check_field_target_low", "check_field_target_high"} <= set(targets)


def test_the_check_fields_mark_says_what_that_field_found():
    """C09 "below its target; the check field finds the same" where the check field had
    found it unsettled (its mark compared the study's status before the fresh deals, and
    that field's figures were written nowhere): the mark now names that field's status
    and figures wherever they are not the finding's."""
    from sunset_sim.analysis.study_files import outside_text

    row = pd.Series(
        {"family": "commission", "card": "C09", "metric": "value per fame", "value": -0.14,
         "value_ci_low": -0.29, "value_ci_high": 0.01, "status": "below", "target_low": 0.05,
         "target_high": 0.4, "holds_in_check_field": True, "check_field_status": "unsettled",
         "check_field_value": -0.1, "check_field_value_ci_low": -0.32,
         "check_field_value_ci_high": 0.12, "n": 600, "measured_on": "fresh"}
    )  # fmt: skip
    line = outside_text(row)
    # judged on fresh deals alone, it says so (its value differs from the Values table's)
    assert "(-0.29 to 0.01, n = 600 fresh deals), below its target" in line
    assert "n = 600), below" in outside_text(row.replace({"fresh": "study"}))
    assert line.endswith(
        "; the check field cannot tell on its deals: unsettled, -0.10 (-0.32 to 0.12)"
    )
    assert "finds the same" not in line
    line = outside_text(row.replace({"unsettled": "below"}))
    assert line.endswith("; the check field finds the same on its deals (-0.10 (-0.32 to 0.12))")
    line = outside_text(row.replace({"unsettled": "inside"}))
    assert line.endswith("; the check field does not: inside on its deals, -0.10 (-0.32 to 0.12)")
    # with its own target: "inside on its deals, 0.03" beside the study's 0.07 to 0.44
    # read as a contradiction (the check field's band was its own, written nowhere)
    own = pd.concat(
        [row, pd.Series({"check_field_target_low": -0.2, "check_field_target_high": 0.3})]
    )
    line = outside_text(own.replace({"unsettled": "inside"}))
    assert line.endswith(
        "; the check field does not: inside on its deals, -0.10 (-0.32 to 0.12) against its "
        "target -0.20 to 0.30"
    )
