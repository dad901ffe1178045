"""Invariant checks (engine/invariants.py): they catch a broken state and hold in real games."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sunset_sim import enums
from sunset_sim.cards import load_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.cli import main
from sunset_sim.engine.batch import run_games
from sunset_sim.engine.invariants import (
    V_ARTIST_OFF_GRID,
    V_ARTISTS_SHARE,
    V_COMMISSION_PLACES,
    V_FAME_RECOUNT,
    V_GOAL_PLACES,
    V_LANDSCAPE_PLACES,
    V_PLAN_DECK,
    check_day,
)
from sunset_sim.enums import PLACE_PREVIEW, PLACE_TABLE
from sunset_sim.observation import (
    OBS_COMM_PLACE,
    OBS_FAME,
    OBS_GOAL,
    OBS_GOAL_PLACE,
    OBS_GRID,
    OBS_LAND_PLACE,
    OBS_POS,
    OBS_PREVIEW,
    OBS_ROW,
    OBS_ROW_LEN,
    empty_observation,
)
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import seat_players

CARDS = load_cards()
TABLES = build_tables(CARDS)
PLAYERS = 3


def consistent_state() -> dict:
    """Day 1, just dealt and nobody moved apart: every card in exactly one place."""
    n_land, n_comm, n_goal = len(CARDS.landscapes), len(CARDS.commissions), len(CARDS.goals)
    obs = empty_observation(n_land, n_comm, n_goal)
    for cell in range(25):
        obs[OBS_GRID + cell] = cell
        obs[obs[OBS_LAND_PLACE] + cell] = PLACE_TABLE
    for slot in range(PLAYERS + 1):
        obs[OBS_ROW + slot] = slot
        obs[obs[OBS_COMM_PLACE] + slot] = PLACE_TABLE
    obs[OBS_ROW_LEN] = PLAYERS + 1
    obs[OBS_PREVIEW] = PLAYERS + 1
    obs[obs[OBS_COMM_PLACE] + PLAYERS + 1] = PLACE_PREVIEW
    obs[OBS_GOAL] = 0
    obs[obs[OBS_GOAL_PLACE]] = PLACE_TABLE
    for seat in range(PLAYERS):
        obs[OBS_POS + seat] = seat  # three different cells
        obs[OBS_FAME + seat] = 0
    return {
        "obs": obs,
        "day": 1,
        "land_deck": np.arange(n_land, dtype=np.int32),
        "land_head": 25,
        "discard": np.zeros(n_land, dtype=np.int32),
        "n_discard": 0,
        "comm_deck": np.arange(n_comm, dtype=np.int32),
        "comm_head": PLAYERS + 2,
        "goal_deck": np.arange(n_goal, dtype=np.int32),
        "goal_head": 1,
        "hands": np.full((PLAYERS, 64), -1, dtype=np.int32),
        "n_hand": np.zeros(PLAYERS, dtype=np.int64),
        "plan_count": np.full(PLAYERS, len(CARDS.plans) - 1, dtype=np.int64),
        "forced": np.zeros(PLAYERS, dtype=np.int32),
    }


def check(state: dict) -> int:
    return check_day(
        state["obs"], TABLES, PLAYERS, state["day"], state["land_deck"], state["land_head"],
        state["discard"], state["n_discard"], state["comm_deck"], state["comm_head"],
        state["goal_deck"], state["goal_head"], state["hands"], state["n_hand"],
        state["plan_count"], state["forced"],
    )  # fmt: skip


def test_a_consistent_state_passes():
    assert check(consistent_state()) == 0


def break_landscape(state):
    state["discard"][0] = 0  # card 0 is also in the wilderness
    state["n_discard"] = 1


def break_commission(state):
    state["obs"][state["obs"][OBS_COMM_PLACE] + 0] = 1  # in the row and won by seat 1


def break_goal(state):
    state["obs"][OBS_GOAL] = -1  # goal 0 left the deck but is nowhere
    state["obs"][state["obs"][OBS_GOAL_PLACE]] = -1


def break_artist(state):
    state["obs"][OBS_POS + 1] = 25


def break_sharing(state):
    state["obs"][OBS_POS + 1] = 0


def break_fame(state):
    state["obs"][OBS_FAME + 0] = 3


def break_plan_deck(state):
    state["plan_count"][0] += 1


@pytest.mark.parametrize(
    ("breaker", "bit"),
    [
        (break_landscape, V_LANDSCAPE_PLACES),
        (break_commission, V_COMMISSION_PLACES),
        (break_goal, V_GOAL_PLACES),
        (break_artist, V_ARTIST_OFF_GRID),
        (break_sharing, V_ARTISTS_SHARE),
        (break_fame, V_FAME_RECOUNT),
        (break_plan_deck, V_PLAN_DECK),
    ],
)
def test_each_broken_invariant_is_caught(breaker, bit):
    state = consistent_state()
    breaker(state)
    assert check(state) & bit


def test_sharing_a_cell_after_a_forced_stay_is_allowed():
    state = consistent_state()
    break_sharing(state)
    state["forced"][1] = 1  # R-HIKE-5: no legal hike, stayed put
    assert check(state) == 0


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("tie_break", ["random", "seat", "lowest-fame"])
def test_real_games_keep_every_invariant(players, tie_break):
    for lineup in (["greedy"], ["random"], ["greedy", "random"]):
        batch = run_games(
            TABLES, seat_players(lineup, players), Rules(tie_break=tie_break), 4, 0, 300, True
        )
        assert (batch.game[:, enums.G_VIOLATIONS] == 0).all()


def test_unchecked_games_report_no_violations_column_noise():
    batch = run_games(TABLES, seat_players(["greedy"], 3), Rules(), 1, 0, 50)
    assert (batch.game[:, enums.G_VIOLATIONS] == 0).all()


def test_simulate_check_invariants_flag():
    result = CliRunner().invoke(
        main, ["simulate", "--games", "300", "--check-invariants", "--quiet", "--players", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "invariants: checked in all 300 games, 0 violations" in result.stderr
    assert "invariants" not in result.stdout


def test_a_resumed_run_counts_only_the_games_it_checked(tmp_path):
    """--resume --check-invariants said "checked in all 400000 games" when the earlier
    run's 220,000 kept games had been played without the checks."""
    run = ["simulate", "--games", "60", "--chunk-size", "20", "--quiet", "--players", "2"]
    folder = tmp_path / "ds"
    assert CliRunner().invoke(main, [*run, "--out", f"{folder}/"]).exit_code == 0
    manifest = folder / "_manifest.json"
    record = json.loads(manifest.read_text())
    record["chunks"] = record["chunks"][:1]  # as if stopped after the first chunk
    record["complete"] = False
    manifest.write_text(json.dumps(record))
    result = CliRunner().invoke(main, [*run, "--out", folder, "--resume", "--check-invariants"])
    assert result.exit_code == 0, result.output
    assert (
        "invariants: checked in the 40 games played now (not the 20 kept by --resume), 0 violations"
    ) in result.stderr


@pytest.mark.parametrize("output", [("--format", "json"), ("--format", "csv"), ("--out", "-")])
def test_the_invariants_verdict_leaves_stdout_to_the_data(output):
    """stdout holds only what was asked for: it parses as it did without the check."""
    import io
    import json

    import pandas as pd

    args = ["simulate", "--games", "200", "--players", "2", "--check-invariants", "--quiet"]
    result = CliRunner().invoke(main, [*args, *output])
    assert result.exit_code == 0, result.output
    assert "0 violations" in result.stderr
    if output[1] == "json":
        assert json.loads(result.stdout)["games"] == 200
    else:
        frame = pd.read_csv(io.StringIO(result.stdout))
        assert len(frame) == (400 if output[0] == "--out" else 1)  # rows, or a strategy
