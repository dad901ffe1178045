"""Parity: the numba kernel plays exactly the reference engine's games.

For the same (seed, game index, strategies, cards, rules) both engines must make the same
decisions and chance draws (the kernel's decoded trace equals the reference record) and
report the same results (fame and its parts, winners, end, plans, turn positions,
painted cards, commissions, goals, paintings sold). The kernel's batch runner must not
depend on chunking or threads, and the kernel must behave the same as plain Python
(``NUMBA_DISABLE_JIT=1``), which is how coverage sees it.

Games are spread over 2-4 players, all three tie-breaks and every registered strategy
(each alone at a table and in mixed tables), on the default cards and on small custom
sets that force commission shortages (R-CLEAN-5) and landscape reshuffles (R-CLEAN-2).
``scripts/parity_check.py`` runs the same check over as many games as wanted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numba
import numpy as np
import pytest

from sunset_sim import enums
from sunset_sim.cards import load_cards, parse_cards
from sunset_sim.cards.tables import build_tables
from sunset_sim.engine import restricted
from sunset_sim.engine.batch import BatchArrays, run_games, trace_game
from sunset_sim.engine.trace import comparable, trace_to_record
from sunset_sim.enums import (
    END_COMMISSION_SHORTAGE,
    END_SIX_DAYS,
    GOAL_FLAG_KEPT,
    GOAL_FLAG_MET,
    GOAL_FLAG_TOOK,
    N_CELLS,
)
from sunset_sim.play import StrategyDecider, play_reference
from sunset_sim.rules.game import play_game
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import make_player, registry, seat_players

ROOT = Path(__file__).resolve().parents[1]


def _load_parity_script():
    spec = importlib.util.spec_from_file_location(
        "parity_check", ROOT / "scripts" / "parity_check.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["parity_check"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


parity_check = _load_parity_script()
first_difference = parity_check.first_difference

TIE_BREAKS = ("random", "seat", "lowest-fame")
PLAYER_COUNTS = (2, 3, 4)
STRATEGIES = tuple(registry())
LINEUPS = tuple(parity_check.lineups(STRATEGIES))  # alone, then mixed rotations
# The whole registry as the field (every adapter compiled up front); test_determinism
# checks that the field's other strategies never change a seat's games.
FIELD = tuple(make_player(name) for name in STRATEGIES)
DEFAULT_GAMES = 1080  # spread over every (players, tie-break, line-up) config

DEFAULT_CARDS = load_cards()
DEFAULT_TABLES = build_tables(DEFAULT_CARDS)


# ---- a small custom card set, written inline --------------------------------------------

FEATURES = ("mountain", "flower", "waterfall", "tree", "sun")
SMALL_FRAMES = (
    '["?..."]',
    '["mountain ?..."]',
    '["flower ?", "?..."]',
    '["tree ?...", "sun ?..."]',
    '["waterfall ?..."]',
    '["? ?..."]',
)
SMALL_GOALS = (
    'kind = "moved"\ndirection = "horizontal"',
    'kind = "painted"\nn = 2',
    'kind = "sold"\nn = 1',
    'kind = "all_features"',
    'kind = "edge"',
    'kind = "holds"\nn = 3',
    'kind = "steps"\nn = 2',
)
SMALL_PLANS = (  # wake, directions, hike, paint
    ("5:00", "horizontal", 1, 1),
    ("5:10", "vertical", 2, 1),
    ("5:20", "diagonal", 2, 2),
    ("5:30", "orthogonal", 3, 2),
    ("5:40", "all", 2, 2),
    ("5:50", "orthogonal", 4, 3),
    ("6:00", "diagonal", 3, 3),
    ("6:10", "all", 4, 3),
)


def small_set_toml(n_landscapes: int, n_commissions: int) -> str:
    """A card set with few landscapes (25 are dealt, so the deck runs dry and the discard
    pile is reshuffled, R-CLEAN-2) and, for small counts, too few commissions to refill
    the row (R-CLEAN-5). Easy frames, so that paintings are sold and discarded."""
    parts = [
        f'[set]\nname = "parity-{n_landscapes}-{n_commissions}"\n'
        f"features = {json.dumps(list(FEATURES))}\n"
    ]
    for i in range(n_landscapes):
        icons = [FEATURES[(2 * i + 3 * k) % 5] for k in range(1 + (7 * i) % 3)]
        parts.append(f'[[landscape]]\nid = "L{i:02d}"\nfeatures = {json.dumps(icons)}\n')
    for i in range(n_commissions):
        frames = SMALL_FRAMES[i % len(SMALL_FRAMES)]
        parts.append(f'[[commission]]\nid = "C{i:02d}"\nfame = {1 + i % 4}\nframes = {frames}\n')
    for i, body in enumerate(SMALL_GOALS):
        parts.append(f'[[goal]]\nid = "G{i + 1}"\nfame = {1 + i % 3}\n{body}\n')
    for i, (wake, directions, hike, paint) in enumerate(SMALL_PLANS):
        parts.append(
            f'[[plan]]\nid = "P{i + 1}"\nwake = "{wake}"\ndirections = "{directions}"\n'
            f"hike = {hike}\npaint = {paint}\n"
        )
    return "\n".join(parts)


def small_sets(n_players: int) -> list[tuple[int, int]]:
    """(landscapes, commissions): players+2 .. players+4 commissions end games early;
    24 commissions let games run the full six days through repeated reshuffles."""
    return [(25, n_players + 2), (27, n_players + 3), (30, n_players + 4), (30, 24)]


# ---- checking one game ---------------------------------------------------------------


def describe(seed, game, n_players, lineup, rules, cards_name="default") -> str:
    return (
        f"seed={seed} game_index={game} players={n_players} "
        f"strategies={','.join(lineup)} tie_break={rules.tie_break} days={rules.days} "
        f"cards={cards_name}"
    )


def report_outputs(record: dict, cards, n_players: int, days: int, offered: list[int]):
    """The kernel's report outputs as the reference record gives them: per seat and day
    (fame after the day, cards painted, GOAL_FLAG_* bits), per commission (seat, day,
    day shown, and the seats offered it: the reference decider's ``offered``), per day
    the goal card; -1 where nothing happened."""
    comm_index = {card.id: i for i, card in enumerate(cards.commissions)}
    goal_index = {card.id: i for i, card in enumerate(cards.goals)}
    per_day = [[[-1] * enums.DAY_COLUMNS for _ in range(days)] for _ in range(n_players)]
    commissions = [[-1, -1, -1, seats] for seats in offered]
    shown = commissions_shown(record, comm_index, n_players, days)
    goal_cards = [-1] * days
    for d, day in enumerate(record["days"]):
        goal_cards[d] = goal_index[day["goal"]] if day.get("goal") else -1
        for seat in range(n_players):
            per_day[seat][d] = [day["fame"][seat], 0, 0]
        someone_held = False
        for turn in day["turns"]:
            row = per_day[turn["seat"]][d]
            row[enums.D_PAINTED] = len(turn["painted"])
            for sale in turn["sales"]:
                commissions[comm_index[sale["commission"]]][:2] = [turn["seat"], d + 1]
            if turn.get("goal"):
                row[enums.D_GOAL] |= GOAL_FLAG_MET | (GOAL_FLAG_TOOK if someone_held else 0)
                someone_held = True
        if day.get("goal_holder") is not None:
            per_day[day["goal_holder"]][d][enums.D_GOAL] |= GOAL_FLAG_KEPT
    for index, day in shown.items():
        commissions[index][enums.C_SHOWN] = day
    return per_day, commissions, goal_cards


def commissions_shown(record: dict, comm_index: dict, n_players: int, days: int) -> dict:
    """The day each commission entered the row, replaying R-SET-2 and R-CLEAN-4/5 over
    the record's commission deck and sales (a clean-up before a shortage end counts)."""
    deck = [comm_index[card] for card in record["setup"]["commissions"]]
    shown: dict[int, int] = {}
    head = row_len = 0
    while head < len(deck) and row_len < n_players + 1:
        shown[deck[head]] = 1
        head, row_len = head + 1, row_len + 1
    preview = None
    if head < len(deck):
        preview, head = deck[head], head + 1
    for d, day in enumerate(record["days"]):
        row_len -= sum(len(turn["sales"]) for turn in day["turns"])
        if d + 1 == days:
            break
        if preview is not None:
            shown[preview], row_len, preview = d + 2, row_len + 1, None
        while row_len < n_players + 1 and head < len(deck):
            shown[deck[head]] = d + 2
            head, row_len = head + 1, row_len + 1
        if row_len < n_players + 1:
            break
        if head < len(deck):
            preview, head = deck[head], head + 1
    return shown


def reference_game(cards, players, seed, game, rules, tables, banned=None):
    """``play_reference``'s game with its decider's ``offered`` (the seats offered each
    commission, which the record does not keep): (result, offered)."""
    decider = StrategyDecider(players, tables, seed, game, banned)
    meta = {"seed": seed, "game_index": game, "strategies": [p.name for p in players]}
    result = play_game(cards, rules, len(players), decider, tables, meta)
    return result, [decider.offered.get(c, 0) for c in range(len(cards.commissions))]


def result_differences(
    result, out: BatchArrays, cards, n_players: int, days: int, offered: list[int]
) -> list[str]:
    """Where the kernel's result arrays (row 0 of ``out``) disagree with a reference game
    (``offered``: from ``reference_game``)."""
    record = result.record
    land_index = {card.id: i for i, card in enumerate(cards.landscapes)}
    seat_rows = out.seat[0]
    words = out.painted.shape[2]
    plan = np.full((n_players, days), -1, dtype=np.int32)
    position = np.full((n_players, days), -1, dtype=np.int32)
    painted = np.zeros((n_players, words), dtype=np.uint64)
    n_painted = [0] * n_players
    n_sold = [0] * n_players
    for d, day in enumerate(record["days"]):
        for turn_position, seat in enumerate(day["order"]):
            position[seat, d] = turn_position
        for turn in day["turns"]:
            seat = turn["seat"]
            for item in turn["painted"]:
                card = land_index[item["card"]]
                painted[seat, card // 64] |= np.uint64(1) << np.uint64(card % 64)
                n_painted[seat] += 1
            for sale in turn["sales"]:
                n_sold[seat] += len(sale["paintings"])
    players = result.state.players
    for seat, player in enumerate(players):
        plan[seat, : len(player.plans_played)] = player.plans_played
    report_days, commissions, goal_cards = report_outputs(record, cards, n_players, days, offered)

    def column(index: int) -> list[int]:
        return [int(v) for v in seat_rows[:, index]]

    checks = [
        ("fame", column(enums.R_FAME), list(result.fame)),
        (
            "fame parts (commissions, goals, paintings)",
            [
                [int(v) for v in row]
                for row in seat_rows[
                    :, [enums.R_FAME_COMMISSIONS, enums.R_FAME_GOALS, enums.R_FAME_PAINTINGS]
                ]
            ],
            [list(parts) for parts in result.fame_parts],
        ),
        ("win flags", column(enums.R_WON), [int(s in result.winners) for s in range(n_players)]),
        ("number of winners", column(enums.R_WINNERS), [len(result.winners)] * n_players),
        ("end reason", int(out.game[0, enums.G_END_REASON]), result.end_reason),
        ("days played", int(out.game[0, enums.G_DAYS]), result.days_played),
        ("plan kept each day", out.plan[0].tolist(), plan.tolist()),
        ("turn position each day", out.position[0].tolist(), position.tolist()),
        ("painted bitmask", out.painted[0].tolist(), painted.tolist()),
        ("cards painted", column(enums.R_CARDS_PAINTED), n_painted),
        (
            "commissions won",
            column(enums.R_COMMISSIONS_WON),
            [len(p.commissions) for p in players],
        ),
        ("goals won", column(enums.R_GOALS_WON), [len(p.goals) for p in players]),
        ("paintings sold", column(enums.R_PAINTINGS_SOLD), n_sold),
        ("fame, cards painted and goal flags each day", out.day[0].tolist(), report_days),
        ("commission completed by (seat, day)", out.commission[0].tolist(), commissions),
        ("goal card each day", out.goal[0].tolist(), goal_cards),
        (
            "painted cards were on the grid",
            [
                int(p & ~a)
                for row in out.painted[0]
                for p, a in zip(row, out.available[0], strict=True)
            ],
            [0] * n_players * words,
        ),
        (
            "at least the first deal was on the grid",
            sum(bin(int(word)).count("1") for word in out.available[0])
            >= min(N_CELLS, len(cards.landscapes)),
            True,
        ),
    ]
    return [
        f"{name}: kernel={fast} reference={slow}" for name, fast, slow in checks if fast != slow
    ]


def check_game(
    cards, tables, lineup, n_players, rules, seed, game, cards_name="default", banned=None
):
    """Both engines play one game; assert the traces and the results agree."""
    players = seat_players(list(lineup), n_players)
    reference, offered = reference_game(cards, players, seed, game, rules, tables, banned)
    trace, out = trace_game(tables, players, rules, seed, game, field=FIELD, banned=banned)
    fast = trace_to_record(trace, cards, n_players, rules.days)
    where = describe(seed, game, n_players, lineup, rules, cards_name)
    difference = first_difference(fast, comparable(reference.record))
    assert difference is None, f"trace parity: {where}: first difference at {difference}"
    problems = result_differences(reference, out, cards, n_players, rules.days, offered)
    assert not problems, f"result arrays: {where}: " + "; ".join(problems)
    return reference


# ---- trace and result parity on the default cards ---------------------------------------

CONFIGS = [
    (n_players, tie_break, lineup)
    for n_players in PLAYER_COUNTS
    for tie_break in TIE_BREAKS
    for lineup in LINEUPS
]
GAMES_PER_CONFIG = -(-DEFAULT_GAMES // len(CONFIGS))


@pytest.mark.parametrize(
    ("n_players", "tie_break", "lineup"),
    CONFIGS,
    ids=[f"{p}p-{tb}-{'+'.join(lineup)}" for p, tb, lineup in CONFIGS],
)
def test_default_cards_parity(n_players, tie_break, lineup):
    seed = 1000 + CONFIGS.index((n_players, tie_break, lineup))
    rules = Rules(tie_break=tie_break)
    for game in range(GAMES_PER_CONFIG):
        check_game(DEFAULT_CARDS, DEFAULT_TABLES, lineup, n_players, rules, seed, game)


def test_parity_covers_enough_games():
    assert len(CONFIGS) * GAMES_PER_CONFIG >= 1000
    assert {name for lineup in LINEUPS for name in lineup} == set(STRATEGIES)
    mixed = [lineup for lineup in LINEUPS if len(lineup) > 1]
    assert len(STRATEGIES) == 1 or all(len(lineup) == len(STRATEGIES) for lineup in mixed)


@pytest.mark.parametrize("days", [1, 4])
def test_parity_other_game_lengths(days):
    for game in range(20):
        n_players = PLAYER_COUNTS[game % len(PLAYER_COUNTS)]
        rules = Rules(tie_break=TIE_BREAKS[game % len(TIE_BREAKS)], days=days)
        lineup = LINEUPS[game % len(LINEUPS)]
        result = check_game(DEFAULT_CARDS, DEFAULT_TABLES, lineup, n_players, rules, 77, game)
        assert result.days_played == days


# ---- a small custom card set: shortage ends and reshuffles ---------------------------------


@pytest.mark.parametrize("n_players", PLAYER_COUNTS)
def test_small_card_set_parity(n_players):
    ends: Counter = Counter()
    reshuffled = 0
    for n_landscapes, n_commissions in small_sets(n_players):
        cards = parse_cards(small_set_toml(n_landscapes, n_commissions), "<parity-small>")
        tables = build_tables(cards)
        name = f"small({n_landscapes} landscapes, {n_commissions} commissions)"
        for number, lineup in enumerate(LINEUPS):
            for game in range(6):
                rules = Rules(tie_break=TIE_BREAKS[(number + game) % len(TIE_BREAKS)])
                result = check_game(
                    cards, tables, lineup, n_players, rules, 500 + n_commissions, game, name
                )
                ends[result.end_reason] += 1
                if any(day.get("reshuffles") for day in result.record["days"]):
                    reshuffled += 1
    # the paths this card set exists for must really have been taken
    assert ends[END_COMMISSION_SHORTAGE] > 0, f"no game ended by R-CLEAN-5: {ends}"
    assert ends[END_SIX_DAYS] > 0, f"no game lasted all days: {ends}"
    assert reshuffled > 0, "no game reshuffled the landscape discard pile (R-CLEAN-2)"


# ---- the batch runner: chunks, threads, repeat runs ----------------------------------------


def assert_same_batch(a: BatchArrays, b: BatchArrays, what: str) -> None:
    assert a.first_game == b.first_game, what
    for name, x in a.arrays().items():
        y = getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{what}: {name} shape/dtype"
        if not np.array_equal(x, y):
            game = int(np.argwhere(x != y)[0][0])
            pytest.fail(f"{what}: {name} differs first at game {a.first_game + game}")


def concatenate(first: BatchArrays, second: BatchArrays) -> BatchArrays:
    return BatchArrays(
        first_game=first.first_game,
        **{
            name: np.concatenate([array, getattr(second, name)])
            for name, array in first.arrays().items()
        },
    )


@pytest.mark.parametrize(
    ("n_players", "tie_break", "lineup"),
    [(3, "random", LINEUPS[-1]), (4, "lowest-fame", LINEUPS[0]), (2, "seat", LINEUPS[-1])],
    ids=lambda value: "+".join(value) if isinstance(value, tuple) else str(value),
)
def test_run_games_independent_of_chunks_and_threads(n_players, tie_break, lineup):
    players = seat_players(list(lineup), n_players)
    rules = Rules(tie_break=tie_break)
    seed, first, n, split = 4242, 300, 150, 61
    whole = run_games(DEFAULT_TABLES, players, rules, seed, first, n, field=FIELD)
    head = run_games(DEFAULT_TABLES, players, rules, seed, first, split, field=FIELD)
    tail = run_games(DEFAULT_TABLES, players, rules, seed, first + split, n - split, field=FIELD)
    assert_same_batch(whole, concatenate(head, tail), "one call vs two chunks")
    assert_same_batch(
        whole,
        run_games(DEFAULT_TABLES, players, rules, seed, first, n, field=FIELD),
        "same seed twice",
    )
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run_games(DEFAULT_TABLES, players, rules, seed, first, n, field=FIELD)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = run_games(DEFAULT_TABLES, players, rules, seed, first, n, field=FIELD)
    finally:
        numba.set_num_threads(saved)
    assert_same_batch(one, two, "1 thread vs 2 threads")
    assert_same_batch(whole, one, "default threads vs 1 thread")
    other = run_games(DEFAULT_TABLES, players, rules, seed + 1, first, n, field=FIELD)
    assert not np.array_equal(whole.seat, other.seat), "another seed gave the same games"


@pytest.mark.parametrize("n_players", PLAYER_COUNTS)
def test_run_games_rows_equal_traced_games(n_players):
    """The parallel, untraced batch path plays the same games as ``trace_game``
    (greedy alone, random alone and one mixed table: enough for the batch path, and
    quick; every line-up's games are traced in test_default_cards_parity)."""
    quick = (("greedy",), ("random",), LINEUPS[-1]) if len(LINEUPS) > 2 else LINEUPS
    for number, lineup in enumerate(quick):
        players = seat_players(list(lineup), n_players)
        rules = Rules(tie_break=TIE_BREAKS[number % len(TIE_BREAKS)])
        batch = run_games(DEFAULT_TABLES, players, rules, 99, 10, 12, field=FIELD)
        for g in range(12):
            _, out = trace_game(DEFAULT_TABLES, players, rules, 99, 10 + g, field=FIELD)
            for name, array in batch.arrays().items():
                assert np.array_equal(array[g], getattr(out, name)[0]), (
                    f"run_games row vs trace_game: {name}, game {10 + g}, {n_players} players, "
                    f"{'+'.join(lineup)}, tie_break={rules.tie_break}"
                )


# ---- the kernel as plain Python (NUMBA_DISABLE_JIT=1) ---------------------------------------

PURE_PYTHON_SCRIPT = textwrap.dedent(
    """
    import json, sys, warnings
    import numba
    assert numba.config.DISABLE_JIT, "NUMBA_DISABLE_JIT is not in effect"
    from sunset_sim.cards import load_cards, parse_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine import kernel
    from sunset_sim.engine.batch import run_games, trace_game
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import seat_players
    assert not isinstance(kernel.play_game, numba.core.dispatcher.Dispatcher)

    cases = json.loads(sys.argv[1])
    out = {"cases": [], "warnings": []}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for case in cases:
            cards = parse_cards(case["toml"]) if case["toml"] else load_cards()
            tables = build_tables(cards)
            players = seat_players(case["lineup"], case["players"])
            rules = Rules(tie_break=case["tie_break"])
            trace, one = trace_game(tables, players, rules, case["seed"], case["game"])
            batch = run_games(tables, players, rules, case["seed"], case["game"], 2)
            out["cases"].append({
                "trace": trace.tolist(),
                "one": {k: getattr(one, k).tolist() for k in ("seat", "game", "plan",
                        "position", "painted")},
                "batch": {k: getattr(batch, k).tolist() for k in ("seat", "game", "plan",
                          "position", "painted")},
            })
    out["warnings"] = sorted({f"{w.category.__name__}: {w.message} ({w.filename.split('/')[-1]}:"
                              f"{w.lineno})" for w in caught})
    print(json.dumps(out))
    """
)


def pure_python_cases() -> list[dict]:
    small = small_set_toml(25, 5)
    cases = []
    for i, n_players in enumerate((2, 3, 4, 3, 2, 4)):
        cases.append(
            {
                "players": n_players,
                "lineup": list(LINEUPS[i % len(LINEUPS)]),
                "tie_break": TIE_BREAKS[i % len(TIE_BREAKS)],
                "seed": 31 + i,
                "game": 7 * i,
                "toml": small if i >= 4 else "",
            }
        )
    return cases


@pytest.fixture(scope="module")
def pure_python_run():
    cases = pure_python_cases()
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", PURE_PYTHON_SCRIPT, json.dumps(cases)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,  # generous: a loaded machine is slow, and a hang still ends
    )
    assert done.returncode == 0, f"pure-Python kernel run failed:\n{done.stderr[-4000:]}"
    return cases, json.loads(done.stdout)


def test_kernel_pure_python_equals_jit(pure_python_run):
    cases, result = pure_python_run
    for case, got in zip(cases, result["cases"], strict=True):
        cards = parse_cards(case["toml"]) if case["toml"] else DEFAULT_CARDS
        tables = build_tables(cards)
        players = seat_players(case["lineup"], case["players"])
        rules = Rules(tie_break=case["tie_break"])
        trace, one = trace_game(tables, players, rules, case["seed"], case["game"])
        batch = run_games(tables, players, rules, case["seed"], case["game"], 2)
        what = {k: v for k, v in case.items() if k != "toml"} | {"small_cards": bool(case["toml"])}
        assert got["trace"] == trace.tolist(), f"trace differs without JIT: {what}"
        for name in ("seat", "game", "plan", "position", "painted"):
            assert got["one"][name] == getattr(one, name).tolist(), f"{name} (trace_game): {what}"
            assert got["batch"][name] == getattr(batch, name).tolist(), (
                f"{name} (run_games): {what}"
            )


def test_kernel_pure_python_runs_without_warnings(pure_python_run):
    _, result = pure_python_run
    assert result["warnings"] == []


# ---- the parity_check script ----------------------------------------------------------------


def test_parity_check_cli_passes(capsys):
    status = parity_check.main(["--games", "30", "--jobs", "1", "--players", "2", "4"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "parity_check: 30 games" in out and " 0 mismatches" in out
    assert "first mismatch: none" in out


def test_parity_check_cli_reports_first_mismatch(monkeypatch, capsys):
    import sunset_sim.engine.trace as trace_module

    real = trace_module.trace_to_record

    def corrupted(trace, cards, n_players, days):
        record = real(trace, cards, n_players, days)
        if len(record["days"]) >= 2:
            turn = record["days"][1]["turns"][1]
            turn["goal"] = not turn["goal"]
        return record

    monkeypatch.setattr(trace_module, "trace_to_record", corrupted)
    status = parity_check.main(["--games", "6", "--jobs", "1", "--players", "3", "--seed", "5"])
    out = capsys.readouterr().out
    assert status == 1
    assert "6 mismatches" in out
    assert "first mismatch: seed=5 game_index=0 players=3" in out
    assert "day 2 / turn 2 (seat " in out and "/ goal: kernel=" in out


def test_first_difference_names_day_turn_and_key():
    players = seat_players(list(LINEUPS[-1]), 3)
    record = comparable(play_reference(DEFAULT_CARDS, players, 3, 1, Rules()).record)
    assert first_difference(record, json.loads(json.dumps(record))) is None
    changed = json.loads(json.dumps(record))
    turn = changed["days"][2]["turns"][1]
    turn["hike"]["steps"] += 1
    message = first_difference(changed, record)
    assert message.startswith(f"day 3 / turn 2 (seat {turn['seat']}) / hike / steps: kernel=")
    shorter = json.loads(json.dumps(record))
    shorter["days"].pop()
    assert first_difference(shorter, record).startswith("days: kernel has 5 entries")


# ---- restricted play (analysis/experiments.py): both engines hide the same options ------


def random_bans(rng, cards, n_players, masks=3):
    """A ``banned`` array: in each mask some seats restricted from random plan cards,
    landscapes and commissions (several at once, so that whole hands can be banned)."""
    n_plan, n_land, n_comm = len(cards.plans), len(cards.landscapes), len(cards.commissions)
    banned = np.zeros((masks, n_players, 1 + n_plan + n_land + n_comm), dtype=np.uint8)
    for mask in range(masks):
        for seat in range(n_players):
            if rng.random() < 0.3:
                continue
            banned[mask, seat, restricted.BAN_ANY] = 1
            banned[mask, seat, 1 + rng.choice(n_plan, rng.integers(1, 4), replace=False)] = 1
            lands = rng.choice(n_land, rng.integers(0, 25), replace=False)
            banned[mask, seat, 1 + n_plan + lands] = 1
            comms = rng.choice(n_comm, rng.integers(0, 15), replace=False)
            banned[mask, seat, 1 + n_plan + n_land + comms] = 1
    return banned


RESTRICTED_CONFIGS = [(n, lineup) for n in PLAYER_COUNTS for lineup in LINEUPS[-2:]]


@pytest.mark.parametrize(("n_players", "lineup"), RESTRICTED_CONFIGS)
def test_restricted_play_parity(n_players, lineup):
    """With plan cards, landscapes and commissions banned per seat, the kernel and the
    reference engine still play the same games (the strategy sees the same options)."""
    rng = np.random.default_rng(7 + n_players)
    banned = random_bans(rng, DEFAULT_CARDS, n_players)
    for game in range(12):
        check_game(
            DEFAULT_CARDS, DEFAULT_TABLES, lineup, n_players, Rules(), 31, game, banned=banned
        )


def test_restricted_seat_never_takes_what_is_banned():
    """The restricted seat never keeps the banned plan card (when it had another
    choice), never paints a banned landscape and never sells to a banned commission,
    while the other seats still do; an unrestricted mask plays the usual games."""
    n_players, games = 3, 600
    players = seat_players(["greedy"], n_players)
    n_plan, n_land = len(DEFAULT_CARDS.plans), len(DEFAULT_CARDS.landscapes)
    banned = np.zeros((n_players, n_players, 1 + n_plan + n_land + 30), dtype=np.uint8)
    plan, lands, comms = 7, np.arange(0, n_land, 2), np.arange(0, 30, 3)
    for seat in range(n_players):
        banned[seat, seat, restricted.BAN_ANY] = 1
        banned[seat, seat, 1 + plan] = 1
        banned[seat, seat, 1 + n_plan + lands] = 1
        banned[seat, seat, 1 + n_plan + n_land + comms] = 1
    out = run_games(DEFAULT_TABLES, players, Rules(), 3, 0, games, field=FIELD, banned=banned)
    rows = np.arange(games)
    seat = rows % n_players
    assert not (out.plan[rows, seat] == plan).any()
    assert (out.plan == plan).sum() > games  # the others keep it
    land_bits = np.zeros(out.painted.shape[2], dtype=np.uint64)
    for land in lands:
        land_bits[land // 64] |= np.uint64(1) << np.uint64(land % 64)
    assert not (out.painted[rows, seat] & land_bits).any()
    assert (out.painted & land_bits).any()
    completer = out.commission[:, comms, enums.C_SEAT]
    assert not (completer == seat[:, None]).any()
    assert (completer >= 0).any()
    free = run_games(DEFAULT_TABLES, players, Rules(), 3, 0, games, field=FIELD)
    unbanned = run_games(
        DEFAULT_TABLES, players, Rules(), 3, 0, games, field=FIELD, banned=banned * 0
    )
    for name, array in free.arrays().items():
        assert np.array_equal(array, unbanned.arrays()[name]), name
