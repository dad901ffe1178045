"""``sunset-sim tune`` and analysis/tune.py: the cross-entropy search on its own, paired
seat-rotated evaluation, the params file, determinism and one-line CLI errors.

Game runs are tiny (a few deals, 2 generations, population 4) and use a 2-player table of
balanced against greedy, so the file stays fast with a warm numba cache."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import cli, fails, ok

from sunset_sim import validation
from sunset_sim.analysis import tune as tune_module
from sunset_sim.analysis.tune import CrossEntropy, TuneError, maximise, tune, write_params
from sunset_sim.strategy import make_player, registry

SMALL = dict(games=3, players=2, generations=2, population=4, validation_games=6)
CLI_SMALL = ["--games", "3", "--players", "2", "--generations", "2", "--population", "4"]
CLI_SMALL += ["--validation-games", "6", "--opponent", "greedy"]


# ---------------------------------------------------------------- the search on its own


def test_cem_converges_on_a_synthetic_objective():
    target = np.array([0.5, 2.5, 1.0, 0.1, 2.9, 1.7])

    def objective(x):
        return -((x - target) ** 2).sum(axis=1)

    search = CrossEntropy(np.ones(6), np.zeros(6), np.full(6, 3.0), min_std=0.01)
    start = np.abs(search.mean - target).max()
    found = maximise(objective, search, generations=40, population=20, seed=2)
    assert np.abs(found - target).max() < 0.1 < start


def test_cem_converges_under_noise():
    target = np.array([0.2, 1.8])
    rng = np.random.default_rng(5)

    def objective(x):
        return -((x - target) ** 2).sum(axis=1) + 0.05 * rng.standard_normal(len(x))

    search = CrossEntropy([1.0, 1.0], [0.0, 0.0], [2.0, 2.0])
    found = maximise(objective, search, generations=40, population=16, seed=1)
    assert np.abs(found - target).max() < 0.25


def test_cem_moves_toward_the_elite_and_stays_in_the_box():
    search = CrossEntropy([1.0, 1.0], [0.0, 0.0], [2.0, 2.0], elite=0.5, smoothing=1.0)
    candidates = search.ask(np.random.default_rng(0), 8)
    assert candidates.shape == (8, 2)
    assert np.array_equal(candidates[0], [1.0, 1.0])  # row 0 is the current mean
    assert candidates.min() >= 0.0 and candidates.max() <= 2.0
    scores = candidates[:, 0]  # prefer a large first coordinate
    elite = search.tell(candidates, scores)
    assert sorted(elite) == sorted(np.argsort(-scores)[:4])
    assert search.mean[0] == pytest.approx(candidates[elite, 0].mean())
    assert search.mean[0] > 1.0
    assert np.all(search.std >= search.min_std)


def test_cem_clips_samples_to_the_ranges():
    search = CrossEntropy([0.0, 3.0], [0.0, 0.0], [1.0, 3.0], std=[5.0, 5.0])
    candidates = search.ask(np.random.default_rng(1), 50)
    assert candidates[:, 0].min() >= 0.0 and candidates[:, 0].max() <= 1.0
    assert np.all(candidates[:, 1] <= 3.0)


# ---------------------------------------------------------------- the games


@pytest.fixture(scope="module")
def result():
    return tune("balanced", ["greedy"], seed=4, **SMALL)


def test_tune_result_is_in_range_and_validated(result):
    spec = registry()["balanced"]
    assert set(result.best) == {p.name for p in spec.parameters}
    for p in spec.parameters:
        assert p.low <= result.best[p.name] <= p.high
        assert result.default[p.name] == p.default
    assert list(result.history["generation"]) == [1, 2]
    assert list(result.history["first_game"]) == [0, 3]  # each generation on new deals
    assert list(result.validation["params"]) == ["tuned", "default"]
    assert set(result.validation["games"]) == {6 * 2}
    for row in result.validation.to_dict("records"):
        assert row["win_share_ci_low"] <= row["win_share"] <= row["win_share_ci_high"]
    d = result.difference
    tuned, default = result.validation["win_share"]
    assert d["diff"] == pytest.approx(tuned - default)
    assert d["diff_ci_low"] <= d["diff"] <= d["diff_ci_high"]


def test_tune_is_deterministic_for_a_seed(result):
    again = tune("balanced", ["greedy"], seed=4, jobs=1, **SMALL)
    assert again.best == result.best
    assert again.history.equals(result.history)
    assert again.validation.equals(result.validation)
    other = tune("balanced", ["greedy"], seed=5, **SMALL)
    assert other.best != result.best


def test_params_file_loads_with_make_player(result, tmp_path):
    path = write_params(result, tmp_path / "tuned.json")
    data = json.loads(path.read_text())
    assert data["name"] == "balanced"
    assert data["tuning"]["opponents"] == ["greedy"]
    assert data["tuning"]["seed"] == 4
    assert set(data["tuning"]["validation"]) >= {"tuned", "default", "difference"}
    player = make_player(f"balanced:params={path}")
    spec = player.spec
    assert list(player.params) == [result.best[p.name] for p in spec.parameters]
    assert [p.name for p in tmp_path.iterdir()] == ["tuned.json"]  # no temporary left


def test_paired_seats_and_no_recompile_per_candidate():
    """Every candidate sits in every seat on the same deals, and all candidates share the
    one compiled engine and adapters: the parameters are data, not code."""
    from sunset_sim.engine import decisions, kernel
    from sunset_sim.runner import resolve

    spec = registry()["balanced"]
    cards, field, rules = resolve(3, ["greedy"], None, None)
    evaluator = tune_module._Evaluator(spec, field, 4, 9, cards, rules, None, 1000, None)
    seats = [seat for seat, table in evaluator.tables_for(make_player("balanced"))]
    assert sorted(seats) == [0, 1, 2, 3]
    for seat, table in evaluator.tables_for(make_player("balanced")):
        assert table[seat].spec is spec
        assert [p.name for p in table].count("greedy") == 3
    default = spec.param_vector()
    vectors = np.vstack([default, default + 0.1, default])
    shares = evaluator.shares(vectors, 0, 4)
    assert shares.shape == (3, 4, 4)
    assert np.array_equal(shares[0], shares[2])  # same vector, same deals: same games
    adapters = len(decisions._ADAPTERS)
    signatures = len(kernel.play_games.signatures)
    candidates = np.vstack([default + 0.05 * k for k in range(4)])
    evaluator.shares(candidates, 4, 2)
    assert len(decisions._ADAPTERS) == adapters
    assert len(kernel.play_games.signatures) == signatures == 1
    adapter = decisions.adapter_for(spec.decide)
    assert len(adapter.signatures) == 1


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"strategy": "nosuch"}, "unknown strategy 'nosuch'"),
        ({"strategy": "random"}, "has no parameters"),
        ({"opponents": ["nosuch"]}, "unknown strategy 'nosuch'"),
        ({"opponents": ["greedy"] * 4}, "do not fit"),
        ({"games": 0}, "games"),
        ({"population": 1}, "population"),
        ({"elite": 1.0}, "elite"),
        ({"elite": 0.05}, "keeps no candidate"),
        ({"players": 5}, "players"),
    ],
)
def test_tune_rejects_bad_arguments(kwargs, needle):
    arguments = {"strategy": "balanced", "opponents": ["greedy"], **SMALL, **kwargs}
    with pytest.raises(TuneError, match=needle):
        tune(**arguments)


# ---------------------------------------------------------------- the command


def test_cli_writes_a_params_file(tmp_path):
    out = tmp_path / "b.json"
    result = cli("tune", "balanced", *CLI_SMALL, "--seed", "4", "--out", out, "--quiet")
    assert result.exit_code == 0, (result.output, result.exception)
    assert "generation" not in result.stdout  # --quiet: no per-generation lines
    assert "balanced tuned" in result.stdout and "balanced default" in result.stdout
    assert "95% CI" in result.stdout
    data = json.loads(out.read_text())
    player = make_player(f"balanced:params={out}")
    assert list(player.params) == [data["params"][p.name] for p in player.spec.parameters]
    loud = cli("tune", "balanced", *CLI_SMALL, "--seed", "4", "--out", out, "--force")
    assert loud.exit_code == 0, (loud.output, loud.exception)
    assert "generation 1/2: objective mean" in loud.stderr  # status lines: stderr
    assert "generation 2/2" in loud.stderr and "generation" not in loud.stdout
    assert json.loads(out.read_text())["params"] == data["params"]  # same seed, same values


def test_cli_format_json_and_csv_print_only_the_table(tmp_path):
    out = tmp_path / "b.json"
    run = ["tune", "balanced", *CLI_SMALL, "--seed", "4", "--out", out, "--quiet"]
    payload = json.loads(ok(cli(*run, "--format", "json")))
    rows = payload["validation"]
    assert [row["strategy"] for row in rows] == ["balanced tuned", "balanced default"]
    assert payload["difference"]["diff_ci_low"] <= payload["difference"]["diff"]
    csv = cli(*run, "--force", "--format", "csv")
    lines = ok(csv).splitlines()
    assert lines[0].startswith("strategy,") and len(lines) == 3
    assert "params written to" in csv.stderr  # the other lines go to stderr
    table = cli(*run, "--force")
    assert "balanced tuned" in ok(table) and "params written to" in table.stderr
    assert cli(*run, "--force", "--format", "xml").exit_code == 2  # click's choice check


def test_cli_default_out_and_refuses_to_overwrite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "balanced-tuned.json").write_text("{}")
    result = cli("tune", "balanced", *CLI_SMALL, "--quiet")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: balanced-tuned.json: already exists (use --force to overwrite)"
    ]
    assert (tmp_path / "balanced-tuned.json").read_text() == "{}"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["nosuch"], "error: STRATEGY: unknown strategy 'nosuch'"),
        (["random"], "STRATEGY: strategy random has no parameters to tune"),
        (["balanced:deny=9"], "outside"),
        (["balanced", "--opponent", "nosuch"], "--opponent: unknown strategy"),
        (["balanced", "--games", "0"], "--games"),
        (["balanced", "--games", "abc"], "--games: 'abc' is not a whole number"),
        (["balanced", "--generations", "-1"], "--generations"),
        (["balanced", "--population", "1"], "--population"),
        (["balanced", "--elite", "1.5"], "--elite"),
        (["balanced", "--elite", "nan"], "--elite"),
        (["balanced", "--players", "5"], "--players: 5 is outside 2 to 4"),
        (["balanced", "--seed", "-1"], "--seed"),
        (["balanced", "--jobs", "x"], "--jobs"),
        (["balanced", "--rule", "days=0"], "--rule"),
        (["balanced", "--out", "/nonexistent-dir/x.json"], "does not exist"),
        (["balanced", "--out", "run,1.json"], "has a ',', which --strategy balanced:params"),
        (["balanced"] + ["--opponent", "greedy"] * 4, "do not fit"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    fails(cli("tune", *args, "--quiet"), needle)
    assert list(tmp_path.iterdir()) == []


def test_cli_help():
    result = cli("tune", "--help")
    assert result.exit_code == 0
    for option in ("--opponent", "--games", "--generations", "--population", "--elite"):
        assert option in result.stdout
    assert "tune" in cli("--help").stdout


def test_a_whole_number_parameter_is_tuned_and_written_whole(tmp_path, monkeypatch):
    """A count (Parameter.integer) is searched over whole numbers and written whole, so
    the params file loads: make_player refuses a fraction of one (it was cut off where
    the strategy read it, silently)."""
    import dataclasses

    from sunset_sim import strategy as strategy_module
    from sunset_sim.strategy import Parameter, StrategyError

    balanced = registry()["balanced"]
    count = Parameter("count", 2.0, 1.0, 5.0, "a count balanced never reads", integer=True)
    spec = dataclasses.replace(
        balanced, name="balanced-count", parameters=(*balanced.parameters, count)
    )
    monkeypatch.setitem(strategy_module._REGISTRY, spec.name, spec)
    with pytest.raises(StrategyError, match="count=2.5 is not a whole number"):
        make_player("balanced-count:count=2.5")
    assert make_player("balanced-count:count=3").params[-1] == 3.0
    seen = []
    original = tune_module.CrossEntropy.ask

    def ask(self, rng, population):
        candidates = original(self, rng, population)
        seen.append(candidates)  # the array tune goes on to round and play
        return candidates

    monkeypatch.setattr(tune_module.CrossEntropy, "ask", ask)
    result = tune(spec.name, ["greedy"], seed=4, **{**SMALL, "generations": 1})
    assert seen and all((c[:, -1] == np.round(c[:, -1])).all() for c in seen)
    assert result.best["count"] == round(result.best["count"])
    path = write_params(result, tmp_path / "tuned.json")
    assert make_player(f"balanced-count:params={path}").params[-1] == result.best["count"]


def test_params_the_defaults_beat_are_not_advised(tmp_path, monkeypatch):
    """Validation said "default beats tuned", and the next line still said "params written
    to FILE; seat with --strategy greedy:params=FILE" (fresh deals agreed: the file was
    worse). The file is written as asked, and the line now says to keep the defaults."""

    real = tune_module.tune

    def worse(*args, **kwargs):
        result = real(*args, **kwargs)
        result.validation_games = 2000  # (a settled verdict: the defaults win)
        result.difference = {"diff": -0.01, "diff_ci_low": -0.018, "diff_ci_high": -0.002}
        return result

    monkeypatch.setattr(tune_module, "tune", worse)
    out = tmp_path / "worse.json"
    result = cli("tune", "balanced", *CLI_SMALL, "--seed", "4", "--out", out, "--quiet")
    ok(result)
    assert out.is_file() and "default beats tuned" in result.stdout + result.stderr
    assert "seat with --strategy" not in result.stderr
    assert f"params written to {out}, but the defaults beat them" in result.stderr


def test_one_validation_deal_gives_no_interval(tmp_path):
    """--validation-games 1: "(95% CI +0.0000 to +0.0000)" for one deal's difference; now no
    interval (and null in the params file, which is strict JSON: no NaN)."""
    out = tmp_path / "one.json"
    run = ["tune", "balanced", "--games", "3", "--players", "2", "--generations", "2"]
    result = cli(*run, "--population", "4", "--validation-games", "1", "--out", out, "-q")
    assert "(no CI from one deal)" in ok(result) + result.stderr
    difference = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(name))
    assert difference["tuning"]["validation"]["difference"]["diff_ci_low"] is None


def test_a_search_larger_than_free_memory_is_refused_before_its_games(monkeypatch, tmp_path):
    """10**10 validation deals were refused ("Unable to allocate 596 GiB") only after
    every generation had been played and printed."""
    played = []
    monkeypatch.setattr(validation, "free_memory", lambda: 10**9)  # bytes
    arguments = {"strategy": "balanced", "opponents": ["greedy"], **SMALL}
    with pytest.raises(TuneError, match="^validation_games: not enough memory"):
        tune(**{**arguments, "validation_games": 10**8}, on_games=played.append)
    with pytest.raises(TuneError, match="^games: not enough memory"):
        tune(**{**arguments, "games": 10**8}, on_games=played.append)
    assert played == []
    # the command line names its options (a tester's: "error: validation_games: ...")
    monkeypatch.chdir(tmp_path)
    tail = ["--opponent", "greedy", "--generations", "1", "--population", "3", "-o", "t.json"]
    for option in ("--validation-games", "--games"):
        result = cli("tune", "balanced", option, str(10**8), *tail)
        fails(result, f"error: {option}: not enough memory for this run")


def test_opponents_may_be_any_iterable():
    """An iterator or a generator of opponents, as simulate and tournament take: tune
    raised "object of type 'generator' has no len()" after its games."""
    arguments = {"strategy": "balanced", **SMALL, "generations": 1, "validation_games": 2}
    tuned = tune(opponents=(name for name in ["greedy"]), **arguments)
    assert tuned.opponents == ["greedy"]
    three = tune(opponents=iter(["greedy", "random"]), **{**arguments, "players": 3})
    assert three.opponents == ["greedy", "random"]


def test_the_validation_difference_takes_students_t_over_its_deals(result, monkeypatch):
    """As compare's paired differences: the normal's interval ran hot on few deals, and
    tune's "beats" verdict rests on this one from 20 deals on."""
    from sunset_sim.analysis import stats
    from sunset_sim.analysis.stats import Z95, t_critical

    monkeypatch.setattr(stats, "t_critical", lambda df, confidence: Z95)  # the normal's
    normal = tune("balanced", ["greedy"], seed=4, **SMALL).difference
    deals = result.validation_games
    half = (result.difference["diff_ci_high"] - result.difference["diff_ci_low"]) / 2
    normal_half = (normal["diff_ci_high"] - normal["diff_ci_low"]) / 2
    assert half == pytest.approx(normal_half * t_critical(deals - 1) / Z95, rel=1e-9)
    assert result.difference["diff"] == normal["diff"]


def test_tuned_minus_default_with_no_difference_on_any_deal_is_not_zero_wide():
    """A tester's: greedy tuned from lateness 0.1 and goal 0.5 won every validation deal
    against random, as the defaults did: "+0.0000 (95% CI +0.0000 to +0.0000)", though the
    two vectors play otherwise. 50 deals with no difference bound it as compare's rates
    are (stats.rate_floor_bounds: Wilson's bound for 0 of 50)."""
    result = tune(
        "greedy:lateness=0.1,goal=0.5", opponents=["random"], games=10, players=2,
        generations=1, population=3, validation_games=50, jobs=1,
    )  # fmt: skip
    assert result.best != result.default
    shares = result.validation.set_index("params")["win_share"]
    z2 = 1.959963984540054**2
    assert (shares == 1.0).all()  # (as the tester saw: every deal won by both)
    assert result.difference["diff"] == 0.0
    assert result.difference["diff_ci_high"] == pytest.approx(z2 / (50 + z2))
    assert result.difference["diff_ci_low"] == pytest.approx(-z2 / (50 + z2))


def test_ctrl_c_after_some_generations_says_where_the_search_stood(tmp_path, monkeypatch):
    """A tester's: Ctrl-C after 19 of 30 generations said only "nothing written to t.json",
    and every generation's progress was lost. The last line now gives the search mean
    after the last finished generation, as the STRATEGY text a new search starts from."""
    real_tune = tune_module.tune
    seen = []

    def stopped_after_two(*args, on_generation=None, **kwargs):
        def told(row):
            seen.append(row)
            on_generation(row)
            if row["generation"] == 2:
                raise KeyboardInterrupt

        return real_tune(*args, on_generation=told, **kwargs)

    monkeypatch.setattr(tune_module, "tune", stopped_after_two)
    out = tmp_path / "t.json"
    result = cli("tune", "greedy-painter", "--games", "4", "--generations", "5",
                 "--population", "3", "--players", "2", "--jobs", "1", "--out", out)  # fmt: skip
    assert result.exit_code == 130, (result.output, result.exception)
    assert not out.exists()
    last = result.stderr.splitlines()[-1]
    values = ",".join(f"{name}={round(seen[-1][name], 4):g}" for name in ("lateness", "sell"))
    assert last == (
        f"interrupted; nothing written to {out}; stopped after generation 2 of 5, whose "
        f"search mean was {values}: to search on from there, sunset-sim tune "
        f"greedy-painter:{values} (and your other options)"
    )
    # after the last generation, while validating: said so (a tester's read "stopped
    # after generation 15 of 15 ... to search on from there")
    from sunset_sim.cli_tune import _continue_line

    last = _continue_line(tune_module.tunable_spec("greedy-painter").spec, seen[-1], 2, "x")
    assert f"x; stopped while validating the search's final mean, {values}: to search" in last
    # the line's STRATEGY is one tune takes, and starts its search there
    player = tune_module.tunable_spec(f"greedy-painter:{values}")
    assert list(player.params) == [round(seen[-1][name], 4) for name in ("lateness", "sell")]
