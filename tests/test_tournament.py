"""Seat-rotated tournaments (sunset_sim.analysis.tournament) and the CLI command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sunset_sim.analysis import stats
from sunset_sim.analysis.stats import ci_columns
from sunset_sim.analysis.tournament import _DealSums, seatings, tournament
from sunset_sim.cli import main
from sunset_sim.results import Summary
from sunset_sim.strategy import make_player
from sunset_sim.validation import InputError, SameEntrantWarning


def names(tables):
    return [[p.name for p in table] for table in tables]


def test_every_entrant_sits_in_every_seat():
    entrants = [make_player(n) for n in ("greedy", "random", "greedy:lateness=1", "greedy:goal=2")]
    tables = names(seatings(entrants, 4))
    assert len(tables) == 4
    for seat in range(4):
        assert sorted(t[seat] for t in tables) == sorted(p.name for p in entrants)


def test_more_entrants_than_seats_plays_every_combination():
    entrants = [make_player(n) for n in ("greedy", "random", "greedy:lateness=1")]
    tables = names(seatings(entrants, 2))
    assert len(tables) == 6  # 3 pairs x 2 rotations
    assert ["random", "greedy"] in tables and ["greedy", "random"] in tables


def test_identical_tables_are_played_once():
    entrants = [make_player(n) for n in ("greedy", "random")]
    assert names(seatings(entrants, 4)) == [
        ["greedy", "random", "greedy", "random"],
        ["random", "greedy", "random", "greedy"],
    ]


@pytest.mark.parametrize("command", ["tournament", "report", "compare", "study", "sweep"])
def test_an_entrant_listed_twice_is_refused(command, tmp_path):
    """A field's entrant given twice was a second entrant playing itself: greedy's win
    share against random alone fell from 1.0 to 0.75 without a word."""
    with pytest.raises(InputError, match="strategies: greedy is given twice"):
        tournament(["greedy", "random", "greedy"], players=2, games=10)
    # a sweep rotates a table that repeats an opponent: seatings itself takes repeats
    table = [make_player(n) for n in ("greedy", "random", "random")]
    assert len(seatings(table, 3)) == 3
    arguments = [command, "--strategy", "greedy", "--strategy", "random", "--strategy"]
    arguments += ["greedy", "--players", "2", "--games", "10", "--quiet"]
    if command in ("report", "study"):
        arguments += ["--out", str(tmp_path / "out")]
    if command == "compare":
        arguments += ["--b-rule", "days=5"]
    if command == "sweep":
        arguments += ["--rule-values", "days=5,6"]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: --strategy: greedy is given twice; list each entrant once (with fewer "
        "entrants than seats they are repeated round the table)"
    )


def test_same_strategy_under_two_labels_scores_exactly_even():
    """Paired deals: two copies of one strategy, rotated through the same seats on the
    same deals, must have identical win shares and fame (no seat or deal luck left). The
    pair is told in a note (``SameEntrantWarning``): spelled two ways by a slip
    (balanced:paint=0.30 and balanced:paint=0.3) it played itself without a word."""
    with pytest.warns(SameEntrantWarning, match="greedy and greedy:lateness=0.3 are one"):
        result = tournament(
            ["greedy", "greedy:lateness=0.3"], players=4, games=300, seed=5, rating_games=50
        )
    standings = result.standings.set_index("strategy")
    assert standings.loc["greedy", "win_share"] == pytest.approx(
        standings.loc["greedy:lateness=0.3", "win_share"], abs=1e-12
    )
    assert standings.loc["greedy", "mean_fame"] == pytest.approx(
        standings.loc["greedy:lateness=0.3", "mean_fame"], abs=1e-12
    )
    head = result.head_to_head.set_index(["strategy", "opponent"])
    assert head.loc[("greedy", "greedy:lateness=0.3"), "score"] == pytest.approx(0.5, abs=1e-12)
    # ratings are sequential: rated seating by seating, the one rated last came out about
    # two sigma ahead (22.6 and 27.4 on 50 deals at 2 players); deal by deal, close
    with pytest.warns(SameEntrantWarning):
        two = tournament(["greedy", "greedy:lateness=0.3"], 2, games=50, rating_games=50)
    mu = two.standings.set_index("strategy")["rating_mu"]
    sigma = two.standings["rating_sigma"].max()
    assert abs(mu["greedy"] - mu["greedy:lateness=0.3"]) < 0.25 * sigma


def test_one_strategy_spelled_two_ways_gets_a_note_on_the_command_line():
    result = CliRunner().invoke(
        main,
        ["tournament", "--strategy", "balanced:paint=0.30", "--strategy", "balanced:paint=-0",
         "--strategy", "balanced:paint=0.3", "--strategy", "balanced:paint=0", "-p", "2",
         "-n", "4", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: balanced:paint=0.30 and balanced:paint=0.3 are one strategy with the same "
        "parameter values: they play alike (an A/A pair; give other values to compare "
        "settings)",
        "note: balanced:paint=-0 and balanced:paint=0 are one strategy with the same "
        "parameter values: they play alike (an A/A pair; give other values to compare "
        "settings)",
    ]


def test_win_shares_and_head_to_head_are_consistent():
    result = tournament(["greedy", "random"], players=2, games=400, seed=1, rating_games=100)
    standings = result.standings.set_index("strategy")
    # every game's shares sum to one, and both play every deal in both seats
    assert standings["win_share"].sum() == pytest.approx(1.0, abs=1e-12)
    assert (standings["n"] == 800).all()
    head = result.head_to_head.set_index(["strategy", "opponent"])
    assert head.loc[("greedy", "random"), "score"] + head.loc[("random", "greedy"), "score"] == (
        pytest.approx(1.0, abs=1e-12)
    )
    assert standings.loc["greedy", "win_share"] > standings.loc["random", "win_share"]
    assert standings.loc["greedy", "rating"] > standings.loc["random", "rating"]
    seats = result.by_seat
    assert set(seats["seat"]) == {0, 1} and (seats["n"] == 400).all()
    positions = result.by_turn_position
    assert positions.groupby("strategy")["n"].sum().tolist() == [800, 800]
    for frame in (result.standings, result.head_to_head, result.by_seat):
        assert (
            frame.filter(like="ci_low").to_numpy() <= frame.filter(like="ci_high").to_numpy()
        ).all()


def test_head_to_head_counts_games_and_takes_its_interval_over_deals():
    """Two strategies at four seats meet in four seat pairs a game: each pair was counted
    as a game (n 4x the games played) and the interval taken over independent games,
    about a tenth too narrow. Recomputed here from the games themselves: a game's score
    is the mean of its pairs' scores, its deal's games one cluster."""
    from sunset_sim.runner import simulate

    games, seed = 300, 9
    result = tournament(["balanced", "greedy"], players=4, games=games, seed=seed, rating_games=1)
    head = result.head_to_head.set_index(["strategy", "opponent"]).loc[("balanced", "greedy")]
    assert head["n"] == 2 * games  # 300 deals at 2 seatings
    per_deal = np.zeros(games)
    for table in (["balanced", "greedy"] * 2, ["greedy", "balanced"] * 2):
        frame = simulate(games, 4, table, seed=seed).sort_values(["game", "seat"])
        fame = frame["fame"].to_numpy().reshape(games, 4)
        mine = [s for s in range(4) if table[s] == "balanced"]
        theirs = [s for s in range(4) if table[s] == "greedy"]
        scores = [
            (fame[:, a] > fame[:, b]) + 0.5 * (fame[:, a] == fame[:, b])
            for a in mine
            for b in theirs
        ]
        per_deal += np.mean(scores, axis=0) / 2
    assert head["score"] == pytest.approx(per_deal.mean(), abs=1e-12)
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(games)
    stated = (head["score_ci_high"] - head["score_ci_low"]) / 2
    assert stated == pytest.approx(half, rel=0.05)


def test_tournament_command_prints_every_table_and_json():
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "tournament",
            "--strategy",
            "greedy",
            "--strategy",
            "random",
            "--players",
            "3",
            "--games",
            "200",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    for title in ("Standings", "Head to head", "by seat", "turn position", "between bots"):
        assert title in result.output
    # n counts games here, deals in sweep and compare: each title says which
    assert "Standings (n: games the strategy played, once per seat it holds)" in result.output
    assert "Win share by seat (n: games)" in result.output
    as_json = runner.invoke(
        main,
        [
            "tournament",
            "--strategy",
            "greedy",
            "--strategy",
            "random",
            "--games",
            "100",
            "--quiet",
            "--format",
            "json",
        ],
    )
    payload = json.loads(as_json.stdout)  # the note on 2 strategies for 4 seats is on stderr
    assert {row["strategy"] for row in payload["standings"]} == {"greedy", "random"}


@pytest.mark.parametrize(
    "arguments",
    [
        ["--strategy", "greedy"],
        ["--strategy", "greedy", "--strategy", "nosuch"],
        ["--strategy", "greedy", "--strategy", "random", "--games", "0"],
        ["--strategy", "greedy", "--strategy", "random", "--players", "5"],
    ],
)
def test_tournament_bad_arguments_are_one_line_exit_2(arguments):
    result = CliRunner().invoke(main, ["tournament", *arguments, "--quiet"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_win_shares_take_their_intervals_over_deals():
    """With more strategies than seats a strategy plays each deal at several seatings,
    whose shares go together: over games as independent, 5 strategies on 3 seats stated
    0.72 to 0.98 of the spread seen over 40 seeds. Recomputed here from the games: each
    deal's games one cluster (Wilson at the effective number of games)."""
    from sunset_sim.runner import simulate

    games, seed, players = 100, 19, 3
    field = ["greedy", "late-riser", "greedy-painter", "early-bird", "balanced"]
    result = tournament(field, players=players, games=games, seed=seed, rating_games=1)
    totals = {name: np.zeros(games) for name in field}
    counts = {name: np.zeros(games) for name in field}
    seat_totals = {(name, seat): np.zeros(games) for name in field for seat in range(players)}
    for table in names(seatings([make_player(n) for n in field], players)):
        frame = simulate(games, players, table, seed=seed).sort_values(["game", "seat"])
        share = (frame["won"] / frame["n_winners"]).to_numpy().reshape(games, players)
        for seat, name in enumerate(table):
            totals[name] += share[:, seat]
            counts[name] += 1
            seat_totals[name, seat] += share[:, seat]
    standings = result.standings.set_index("strategy")
    by_seat = result.by_seat.set_index(["strategy", "seat"])
    for name in field:
        expected = ci_columns("win_share", *stats.cluster_rate_ci(totals[name], counts[name]))
        row = standings.loc[name]
        assert row["n"] == counts[name].sum()
        for column, value in expected.items():
            assert row[column] == pytest.approx(value, abs=1e-12)
        per_seat = counts[name] / players  # (each seat equally often)
        for seat in range(players):
            expected = stats.cluster_rate_ci(seat_totals[name, seat], per_seat)
            row = by_seat.loc[(name, seat)]
            got = (row["win_share"], row["win_share_ci_low"], row["win_share_ci_high"])
            assert got == pytest.approx(expected, abs=1e-12)


def test_deal_sums_take_deals_in_any_order():
    """``add_deals`` (a subset of a batch: one day-1 turn position's games) sums as
    ``add`` does, slots modulo its length included."""
    in_order, scattered = _DealSums(games=5), _DealSums(games=5)
    for sums in (in_order, scattered):
        sums.totals, sums.counts = np.zeros(2), np.zeros(2)
    in_order.add(1, np.array([1.0, 2.0, 3.0]))
    scattered.add_deals(np.array([3, 1, 2]), np.array([3.0, 1.0, 2.0]))
    assert scattered.totals.tolist() == in_order.totals.tolist() == [2.0, 4.0]
    assert scattered.counts.tolist() == in_order.counts.tolist() == [1.0, 2.0]
    assert scattered.games == in_order.games == 3


def test_mean_fame_interval_is_over_deals_and_never_goes_below_zero():
    """A deal is played at every seating: mean fame's interval is taken over deals (over
    games it was a fifth too narrow), and fame being never negative (R-END-2), a small,
    skewed sample's interval, which would reach below 0, is cut at 0."""
    sums = _DealSums(games=4)
    sums.add(0, np.array([0.0, 0.0, 0.0, 10.0]))
    row = sums.row("mean_fame")
    assert row["mean_fame"] == pytest.approx(2.5)
    assert row["mean_fame_ci_low"] == 0.0
    assert row["mean_fame_ci_high"] > 2.5 + 4.0  # the upper end as the normal interval has it
    # two seatings of the same 3 deals: 3 clusters of 2 games, not 6 games
    paired = _DealSums(games=3)
    for values in ([10.0, 20.0, 30.0], [12.0, 22.0, 32.0]):
        paired.add(0, np.array(values))
    mean, low, high = stats.cluster_mean_ci([22.0, 42.0, 62.0], [2, 2, 2])
    assert paired.row("x") == {"x": mean, "x_ci_low": low, "x_ci_high": high}
    assert mean == pytest.approx(21.0)
    games_apart = stats.mean_ci([10.0, 20.0, 30.0, 12.0, 22.0, 32.0])
    assert high - low > games_apart[2] - games_apart[1]  # wider than six independent games
    # Student's t over the 3 deals (2 degrees of freedom), not the normal's 1.96: a
    # tester's tournament mean fame covered 84.6% of the time on 4 deals
    _, variance, _, _ = stats._ratio_estimate([22.0, 42.0, 62.0], [2, 2, 2])
    assert high - mean == pytest.approx(stats.t_critical(2) * variance**0.5)
    assert stats.t_critical(2) == pytest.approx(4.3027, abs=1e-4)
    wrapped = _DealSums(games=5)  # deals share slots modulo its length
    wrapped.totals, wrapped.counts = np.zeros(2), np.zeros(2)
    wrapped.add(1, np.array([1.0, 2.0, 3.0]))
    assert wrapped.totals.tolist() == [2.0, 4.0] and wrapped.counts.tolist() == [1.0, 2.0]


def test_every_command_cuts_mean_fame_intervals_at_zero():
    """simulate's summary (and the report, through the same ``ci_columns``) once gave
    the interval that tournament cuts at 0 a negative lower end."""
    summary = Summary.from_dict(
        {"sums": {"x": [4, 0, 0, 10, 100]}, "games": 4, "tied_games": 0, "shortage_games": 0}
    )
    row = summary.rows()[0]
    assert row["mean_fame"] == pytest.approx(2.5)
    assert row["mean_fame_ci_low"] == 0.0
    assert row["mean_fame_ci_high"] > 2.5 + 4.0
    cut = ci_columns("mean_fame", np.array([1.0, 2.0]), np.array([-0.5, 1.5]), np.array([2, 3]))
    assert list(cut["mean_fame_ci_low"]) == [0.0, 1.5]
    assert ci_columns("diff", 0.1, -0.2, 0.4)["diff_ci_low"] == -0.2  # a difference may be < 0


def test_ratings_do_not_depend_on_the_order_the_strategies_are_given_in():
    """With 2 players every order plays the same tables; openskill's sequential updates
    went table by table in the order given, so the ratings moved with it."""
    ratings = []
    for order in (["greedy", "random", "early-bird"], ["early-bird", "greedy", "random"]):
        result = tournament(order, players=2, games=60, rating_games=60)
        ratings.append(result.standings.set_index("strategy")["rating"].sort_index())
    assert ratings[0].to_dict() == ratings[1].to_dict()


def test_a_strategy_in_two_seats_moves_by_the_mean_of_its_seats_updates():
    """Its last seat's update alone was kept: a strategy that won in one seat and came
    last in the other was rated as if it had only come last."""
    from types import SimpleNamespace

    from openskill.models import PlackettLuce

    from sunset_sim import enums
    from sunset_sim.analysis.tournament import _ratings

    seat = np.zeros((1, 3, enums.R_FAME + 1))
    seat[0, :, enums.R_FAME] = [30, 20, 10]  # a first, b second, a last
    batch = SimpleNamespace(seat=seat, first_game=0)
    rated = _ratings([(batch, ["a", "b", "a"])], ["a", "b"]).set_index("strategy")
    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(3)]  # (one object each: rate updates in place)
    first, second, last = model.rate(teams, ranks=[1, 2, 3])
    assert rated.loc["a", "rating_mu"] == pytest.approx((first[0].mu + last[0].mu) / 2)
    assert rated.loc["b", "rating_mu"] == pytest.approx(second[0].mu)
    assert rated.loc["a", "rating_sigma"] == pytest.approx((first[0].sigma + last[0].sigma) / 2)


def test_no_rating_games_gives_no_rating():
    """rating_games=0 returned the openskill prior (25, 8.33, 0) for every strategy, as if
    they had been rated and come out equal."""
    import sunset_sim

    result = sunset_sim.tournament(["greedy", "random"], players=2, games=10, rating_games=0)
    standings = result.standings
    assert standings[["rating_mu", "rating_sigma", "rating"]].isna().all().all()
    rated = sunset_sim.tournament(["greedy", "random"], players=2, games=10, rating_games=10)
    assert rated.standings["rating_mu"].notna().all()


def test_by_seat_and_by_turn_position_mark_groups_too_small_to_read():
    """A day-1 turn position early-bird got in 5 of 900 games read "0.000 (0.000 to
    0.434)" with nothing to say so; the report marks such groups, and so now does a
    tournament (under stats.MIN_SAMPLES games)."""
    field = ["greedy", "early-bird", "late-riser"]
    result = tournament(field, players=3, games=120, seed=0, rating_games=0)
    for table in (result.by_seat, result.by_turn_position):
        small = table["n"] < stats.MIN_SAMPLES
        assert (table.loc[small, "note"] == stats.TOO_FEW).all()
        assert (table.loc[~small, "note"] == "").all()
    assert (result.by_turn_position["n"] < stats.MIN_SAMPLES).any()  # (the case is met)


def test_a_head_to_head_interval_is_never_narrower_than_over_its_games():
    """Two strategies of two seats each meet in 4 seat pairs a game: a score of 1.00
    from 6 games read (0.86 to 1.00), Wilson at 24 trials; at most the games now count,
    as at 2 players on the same deals."""
    four = tournament(["greedy", "random"], players=4, games=3, seed=0, rating_games=0)
    two = tournament(["greedy", "random"], players=2, games=3, seed=0, rating_games=0)
    for result in (four, two):
        row = result.head_to_head.set_index("strategy").loc["greedy"]
        assert row["n"] == 6 and row["score"] == 1.0
        assert row["score_ci_low"] == pytest.approx(stats.proportion_ci(6, 6)[1])


def test_a_sweep_value_at_which_the_swept_strategy_plays_as_an_opponent_gets_a_note():
    """sweep is one of the README's fields where one strategy spelled two ways is told:
    greedy:lateness at 0.3 (its default) beside greedy played alike without a word."""
    import warnings

    import sunset_sim

    with pytest.warns(SameEntrantWarning, match="greedy:lateness=0.3 and greedy are one"):
        sunset_sim.sweep(param="greedy:lateness", values=[0.3, 1.0], strategies=["greedy"],
                         players=2, games=4)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", SameEntrantWarning)  # no value plays as greedy
        sunset_sim.sweep(param="greedy:lateness", values=[1.0], strategies=["greedy"],
                         players=2, games=4)  # fmt: skip
