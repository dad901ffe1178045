"""Tuning a parametric strategy: the cross-entropy method on paired, seat-rotated games.

The search (``CrossEntropy``) keeps a Gaussian per parameter, a mean and a spread, inside
the parameter's ``low..high`` range. Each generation it draws a population of parameter
vectors (the first is the current mean; the others are samples clipped to the ranges),
scores them, and moves the mean and spread toward the elite (the best ``elite`` fraction),
smoothed: ``new = smoothing * elite statistic + (1 - smoothing) * old``. The spread never
falls below ``min_std`` of a range, so the search keeps exploring a little. The result is
the final mean: averaging over the elites makes it much less noisy than the single best
score of a generation, which is flattered by luck (the winner's curse).

The score of a candidate (``tune``) is its mean win share (ties split 1/k) against a field
of opponents, on the fast engine. The games are paired: within a generation every
candidate plays the same deals (the same seed and game indices, so the same cards and the
same chance and strategy streams per seat), and each deal is played once with the
candidate in every seat, the table rotated as in a tournament (``analysis.tournament``),
so seat and turn-order effects cancel. Each generation takes the next block of deals, so
the search does not fit one sample of deals.

After the last generation the tuned vector and the strategy's defaults are validated on a
separate block of deals (game indices from ``VALIDATION_FIRST_GAME``, never used in the
search), with 95% confidence intervals over deals and the paired difference.

A candidate is only a different float parameter vector: the engine and the strategies'
adapters (``engine/compiling.py``) are compiled, or loaded from the cache, once and reused
for every candidate.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sunset_sim import enums
from sunset_sim import validation as checks
from sunset_sim.analysis.stats import (
    MIN_VERDICT_DEALS,
    ci_columns,
    deal_rate_ci,
    rate_floor_bounds,
    t_mean_ci,
)
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import build_tables
from sunset_sim.files import write_atomically
from sunset_sim.rules.options import Rules
from sunset_sim.run import RunError, chunk_ranges
from sunset_sim.run.backends import (
    BackendOption,
    DaskBackend,
    LocalBackend,
    Seating,
    open_backend,
    using_backend,
)
from sunset_sim.run.progress import ProgressOption, combine, progress_bar
from sunset_sim.runner import DEFAULT_CHUNK
from sunset_sim.strategy import Player, StrategyError, StrategySpec, make_player
from sunset_sim.validation import InputError

VALIDATION_FIRST_GAME = 1 << 40  # validation deals: far from any search block
OBJECTIVE = (
    "mean win share (ties split 1/k) of the candidate, each deal played with it in every "
    "seat against the field; every candidate of a generation on the same deals"
)
RESULTS_NOTE = "results between bots: they describe these strategies, not human play"


class TuneError(InputError):
    """A tuning run that cannot go ahead (bad strategy, field or numbers), in one line."""


MAX_SEARCH = 10_000  # generations and population: the stated range's top


def least_population(elite: float) -> int:
    """The smallest population whose elite share keeps a candidate: ``round(elite * p)``
    (Python rounds 0.5 to 0, so elite 0.25 needs 3, not 2); ``MAX_SEARCH + 1`` if none
    up to ``MAX_SEARCH`` does."""
    ratio = 0.5 / elite
    least = max(2, math.floor(ratio) + 1) if ratio < MAX_SEARCH else MAX_SEARCH + 1
    while least <= MAX_SEARCH and round(elite * least) < 1:  # float edges of 0.5 / elite
        least += 1
    return least


def check_search(
    generations: object, population: object, elite: object, prefix: str = ""
) -> tuple[int, int, float]:
    """The search's sizes, held to one set of limits for the API and the command line
    (``prefix="--"`` names the options): 1 to ``MAX_SEARCH`` generations, 2 to
    ``MAX_SEARCH`` candidates, an elite share between 0 and 1 that keeps at least one."""
    try:
        generations = checks.check_whole(generations, f"{prefix}generations", 1, MAX_SEARCH)
        population = checks.check_whole(population, f"{prefix}population", 2, MAX_SEARCH)
        elite = checks.check_fraction(elite, f"{prefix}elite")
    except InputError as error:
        raise TuneError(str(error)) from None
    if round(elite * population) < 1:
        least = least_population(elite)
        hint = (
            f"use a population of at least {least}"
            if least <= MAX_SEARCH
            else f"no population up to {MAX_SEARCH:,} does; raise {prefix}elite"
        )
        raise TuneError(
            f"{prefix}elite: {elite:g} of {prefix}population {population} keeps no "
            f"candidate ({hint})"
        )
    return generations, population, elite


# ---------------------------------------------------------------------------- the search


class CrossEntropy:
    """The cross-entropy method over a box: a diagonal Gaussian, clipped to [low, high].

    ``ask`` gives a population (row 0 is the current mean, the rest samples clipped to the
    box); ``tell`` moves the mean and spread toward the best ``elite`` fraction of it. It
    knows nothing of games, so it can be tested on any objective (``maximise``)."""

    def __init__(
        self,
        mean: Sequence[float],
        low: Sequence[float],
        high: Sequence[float],
        std: Sequence[float] | None = None,
        elite: float = 0.25,
        smoothing: float = 0.7,
        min_std: float = 0.05,
        initial_std: float = 0.25,
    ) -> None:
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        if self.low.shape != self.high.shape or np.any(self.high < self.low):
            raise ValueError("low and high must have one entry per parameter, low <= high")
        if not 0.0 < elite < 1.0:
            raise ValueError(f"elite fraction {elite} is not between 0 and 1")
        if not 0.0 < smoothing <= 1.0:
            raise ValueError(f"smoothing {smoothing} is not in (0, 1]")
        width = self.high - self.low
        self.mean = np.clip(np.asarray(mean, dtype=np.float64), self.low, self.high)
        self.std = (
            np.asarray(std, dtype=np.float64) if std is not None else initial_std * width
        ).copy()
        self.min_std = min_std * width
        self.std = np.maximum(self.std, self.min_std)
        self.elite = elite
        self.smoothing = smoothing

    def n_elite(self, population: int) -> int:
        return max(1, min(population, round(self.elite * population)))

    def ask(self, rng: np.random.Generator, population: int) -> np.ndarray:
        """``population`` candidates [population, d]: the mean, then clipped samples."""
        if population < 2:
            raise ValueError("a population needs at least two candidates")
        draws = rng.standard_normal((population - 1, self.mean.size))
        samples = np.clip(self.mean + draws * self.std, self.low, self.high)
        return np.vstack([self.mean[None, :], samples])

    def tell(self, candidates: np.ndarray, scores: Sequence[float]) -> np.ndarray:
        """Update from the scored candidates (higher is better); the elite's row indices."""
        scores = np.asarray(scores, dtype=np.float64)
        order = np.argsort(-scores, kind="stable")  # ties: the earlier candidate first
        elite = order[: self.n_elite(len(scores))]
        chosen = candidates[elite]
        a = self.smoothing
        self.mean = np.clip(a * chosen.mean(axis=0) + (1 - a) * self.mean, self.low, self.high)
        self.std = np.maximum(a * chosen.std(axis=0) + (1 - a) * self.std, self.min_std)
        return elite


def maximise(
    objective: Callable[[np.ndarray], np.ndarray],
    search: CrossEntropy,
    generations: int,
    population: int,
    seed: int = 0,
) -> np.ndarray:
    """Run ``search`` on ``objective`` (candidates [n, d] -> scores [n]); the final mean."""
    rng = np.random.default_rng(seed)
    for _ in range(generations):
        candidates = search.ask(rng, population)
        search.tell(candidates, objective(candidates))
    return search.mean.copy()


# ---------------------------------------------------------------------------- the games


@dataclass
class TuneResult:
    """What a tuning run found, and how it held up on fresh deals."""

    strategy: str
    opponents: list[str]
    players: int
    games: int  # deals per candidate per generation (each played at every seat)
    generations: int
    population: int
    elite: float
    seed: int
    best: dict[str, float]  # the tuned parameters (the search's final mean)
    default: dict[str, float]
    history: pd.DataFrame  # one row per generation
    validation: pd.DataFrame  # tuned and default: win share with 95% CI, on fresh deals
    difference: dict[str, float]  # tuned minus default, paired by deal: diff, diff_ci_low/high
    validation_games: int  # deals (each played at every seat)
    validation_first_game: int = VALIDATION_FIRST_GAME
    cards: str = "<default>"
    rules: dict = field(default_factory=dict)
    start: dict[str, float] = field(default_factory=dict)  # where the search began
    note: str = RESULTS_NOTE

    @property
    def significant(self) -> bool:
        """Whether the tuned vector beats the defaults: the paired 95% CI is above 0, on
        at least ``MIN_VERDICT_DEALS`` deals."""
        return self.settled and bool(self.difference["diff_ci_low"] > 0.0)

    @property
    def settled(self) -> bool:
        """Whether the validation had deals enough for a verdict either way."""
        return self.validation_games >= MIN_VERDICT_DEALS

    def to_json(self) -> dict:
        """The params file: what ``make_player("NAME:params=FILE")`` reads, with the run's
        settings and validation figures under ``"tuning"`` (ignored when loading)."""
        validation = {
            row["params"]: {
                k: _plain(row[k])
                for k in ("games", "win_share", "win_share_ci_low", "win_share_ci_high")
            }
            for row in self.validation.to_dict("records")
        }
        return {
            "name": self.strategy,
            "params": dict(self.best),
            "tuning": {
                "tool": "sunset-sim tune",
                "method": "cross-entropy method",
                "objective": OBJECTIVE,
                "opponents": list(self.opponents),
                "players": self.players,
                "games": self.games,
                "generations": self.generations,
                "population": self.population,
                "elite": self.elite,
                "seed": self.seed,
                "cards": self.cards,
                "rules": dict(self.rules),
                "default_params": dict(self.default),
                "start_params": dict(self.start or self.default),
                "history": [
                    {k: _plain(row[k]) for k in ("generation", "mean_objective", "best_objective")}
                    for row in self.history.to_dict("records")
                ],
                "validation": {
                    "deals": self.validation_games,
                    "first_game": self.validation_first_game,
                    **validation,
                    "difference": {k: _plain(v) for k, v in self.difference.items()},
                    "significant": self.significant,
                },
                "note": self.note,
            },
        }


def _plain(value):
    if isinstance(value, np.integer | int):
        return int(value)
    number = float(value)
    return round(number, 6) if math.isfinite(number) else None  # (JSON has no NaN)


def tunable_spec(strategy: str | Player) -> Player:
    """The player to tune: ``NAME`` or ``NAME:k=v,...`` (its values are the start)."""
    if not isinstance(strategy, str | Player):
        kind = type(strategy).__name__
        raise TuneError(f"strategy: expected a strategy name or a Player, got {kind}")
    try:
        player = strategy if isinstance(strategy, Player) else make_player(strategy)
    except StrategyError as error:
        raise TuneError(str(error)) from None
    if not player.spec.parameters:
        raise TuneError(f"strategy {player.spec.name} has no parameters to tune")
    return player


class _Evaluator:
    """Plays candidates against the field: win shares [candidates, seats, deals]."""

    def __init__(
        self,
        spec: StrategySpec,
        field: list[Player],
        players: int,
        seed: int,
        cards: CardSet,
        rules: Rules,
        jobs: int | None,
        chunk_size: int,
        on_games: Callable[[int], None] | None,
        backend: LocalBackend | DaskBackend | None = None,
    ) -> None:
        self.spec = spec
        self.field = field
        self.players = players
        self.seed = seed
        self.cards = cards
        self.tables = build_tables(cards)
        self.rules = rules
        self.backend = backend if backend is not None else LocalBackend(jobs)
        self.chunk_size = chunk_size
        self.on_games = on_games

    def tables_for(self, candidate: Player) -> list[tuple[int, list[Player]]]:
        """(candidate's seat, seating) for each rotation of [candidate, field...]."""
        group = [candidate, *self.field]
        out = []
        for shift in range(self.players):
            out.append(((-shift) % self.players, group[shift:] + group[:shift]))
        return out

    def shares(self, vectors: np.ndarray, first_game: int, games: int) -> np.ndarray:
        """[candidate, seat, deal] win shares: every candidate at every seating, handed to
        the backend together (a cluster plays the candidates side by side)."""
        result = np.empty((len(vectors), self.players, games), dtype=np.float64)
        ranges = chunk_ranges(games, self.chunk_size, first_game)
        places = []  # (candidate number, its seat) of each seating
        seatings = []
        for number, vector in enumerate(vectors):
            candidate = Player(self.spec, np.asarray(vector, dtype=np.float64), "candidate")
            for seat, seating in self.tables_for(candidate):
                places.append((number, seat))
                seatings.append(Seating(self.tables, seating, self.rules, self.seed, ranges))
        done = [0] * len(seatings)
        for index, batch in self.backend.play_seatings(seatings, self.on_games):
            number, seat = places[index]
            won = batch.seat[:, seat, enums.R_WON].astype(np.float64)
            share = won / batch.seat[:, seat, enums.R_WINNERS]
            result[number, seat, done[index] : done[index] + len(share)] = share
            done[index] += len(share)
        return result


def _check_memory(players: int, games: int, population: int, validation_games: int) -> None:
    """Refuse, before any game, a search whose win-share arrays ([candidate, seat, deal],
    ``_Evaluator.shares``) need more memory than is free: 10**10 validation deals were
    refused only after every generation had been played."""
    need = 8 * players * max(population * games, 2 * validation_games)
    free = checks.free_memory()
    if free is not None and need > free:
        which = "validation_games" if 2 * validation_games > population * games else "games"
        raise TuneError(
            f"{which}: not enough memory for this run: its win shares need about "
            f"{need / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB free here"
        )


def _row(label: str, shares: np.ndarray) -> dict:
    """Win share of one parameter vector [seats, deals]: CI over deals (a deal's seats
    share its cards, so the deal is the independent unit)."""
    per_deal = shares.mean(axis=0)
    return {
        "params": label,
        "games": int(shares.size),
        "deals": int(per_deal.size),
        # Wilson (a rate: not zero-width at 0 or 1) at the deals' effective games
        **ci_columns("win_share", *deal_rate_ci(per_deal, shares.shape[0])),
    }


def total_games(
    players: int, games: int, generations: int, population: int, validation_games: int
) -> int:
    """Games a ``tune`` run plays (for a progress bar)."""
    return players * (generations * population * games + 2 * validation_games)


def tune(
    strategy: str | Player,
    opponents: Sequence[str | Player] = ("greedy",),
    games: int = 100,
    players: int = 4,
    generations: int = 10,
    population: int = 12,
    elite: float = 0.25,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
    jobs: int | None = None,
    validation_games: int = 2_000,
    smoothing: float = 0.7,
    initial_std: float = 0.25,
    min_std: float = 0.05,
    chunk_size: int = DEFAULT_CHUNK,
    on_games: Callable[[int], None] | None = None,
    on_generation: Callable[[dict], None] | None = None,
    progress: ProgressOption = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> TuneResult:
    """Tune ``strategy``'s parameters against ``opponents`` with the cross-entropy method.

    ``games`` deals per candidate and generation, each played with the candidate in every
    one of the ``players`` seats (so ``players * games`` games); the other seats take the
    opponents in turn, repeated round the table (at most ``players - 1`` of them). The
    search starts at the strategy's values (its defaults, or ``NAME:k=v`` overrides) with
    a spread of ``initial_std`` of each range. Generation g plays deals
    ``g * games .. (g + 1) * games - 1`` under ``seed``; the validation plays
    ``validation_games`` deals from ``VALIDATION_FIRST_GAME`` for the tuned vector and the
    defaults. ``on_games(n)`` is told of games played; ``on_generation(row)`` gets each
    row of the history. ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr).
    ``backend``/``scheduler``: where the chunks are played, as ``simulate`` takes them
    ("local", "dask", a ``distributed.Client``); the candidates are played one after
    another, each one's chunks in parallel there.
    The result depends only on the arguments (not on ``jobs`` or the backend).
    Bad settings are a TuneError (an InputError) in one line, with the command line's
    limits (``check_search``: 1 to 10,000 generations, 2 to 10,000 candidates, of
    which the elite share keeps at least one: 3 or more at the default 0.25); the
    spreads ``initial_std`` and ``min_std`` are finite and not negative."""
    player = tunable_spec(strategy)
    spec = player.spec
    generations, population, elite = check_search(generations, population, elite)
    try:  # the shared limits (validation.py), raised as this module's TuneError
        games = checks.check_games(games)
        validation_games = checks.check_games(validation_games, "validation_games")
        smoothing = checks.check_fraction(smoothing, "smoothing", one=True)
        initial_std = checks.check_non_negative(initial_std, "initial_std")
        min_std = checks.check_non_negative(min_std, "min_std")
        seed = checks.check_seed(seed)
        players = checks.check_players(players)
        jobs = checks.check_jobs(jobs)
        chunk_size = checks.check_chunk_size(chunk_size)
        checks.check_chunk_plan(max(games, validation_games), chunk_size)
        checks.check_callback(on_games, "on_games")
        checks.check_callback(on_generation, "on_generation")
        checks.check_progress(progress)
        if not isinstance(backend, LocalBackend | DaskBackend):  # (one already open: fine)
            open_backend(backend, jobs, scheduler)  # named now, not after the compile
        if opponents is None:
            raise InputError("opponent: give at least one strategy (the default: greedy)")
        # ordered, at least one (as simulate and tournament: not greedy in its place)
        chosen = checks.check_strategies(opponents, "opponent")
        if len(chosen) > players - 1:
            raise TuneError(
                f"{len(chosen)} opponents do not fit round a table of {players} "
                f"(at most {players - 1} besides the tuned strategy)"
            )
        rules = checks.as_rules(rules)
        card_set = checks.as_cards(cards, players=players, days=rules.days)
        field_players = [chosen[seat % len(chosen)] for seat in range(players - 1)]
        _check_memory(players, games, population, validation_games)
    except TuneError:
        raise
    except (InputError, RunError) as error:
        raise TuneError(str(error)) from None
    from sunset_sim.engine.compiling import prepare

    try:  # the engine and adapters (compiled once, or loaded from the cache), before any game
        prepare([spec, *(p.spec for p in field_players)])
    except StrategyError as error:
        raise TuneError(str(error)) from None

    names = [p.name for p in spec.parameters]
    low = np.array([p.low for p in spec.parameters])
    high = np.array([p.high for p in spec.parameters])
    default = spec.param_vector()
    whole = np.array([p.integer for p in spec.parameters], dtype=bool)
    try:
        search = CrossEntropy(
            player.params,
            low,
            high,
            elite=elite,
            smoothing=smoothing,
            min_std=min_std,
            initial_std=initial_std,
        )
    except ValueError as error:
        raise TuneError(str(error)) from None
    total = total_games(players, games, generations, population, validation_games)
    with using_backend(backend, jobs, scheduler) as runner, progress_bar(progress, total) as told:
        evaluator = _Evaluator(
            spec,
            field_players,
            players,
            seed,
            card_set,
            rules,
            jobs,
            chunk_size,
            combine(on_games, told),
            runner,
        )
        rng = np.random.default_rng([seed, 0x7475_6E65])  # the search's own stream ("tune")
        history = []
        for generation in range(generations):
            candidates = search.ask(rng, population)
            candidates[:, whole] = np.round(candidates[:, whole])  # counts: whole numbers
            first_game = generation * games
            scores = evaluator.shares(candidates, first_game, games).mean(axis=(1, 2))
            elite_rows = search.tell(candidates, scores)
            row = {
                "generation": generation + 1,
                "first_game": first_game,
                "mean_candidate": float(scores[0]),  # the search's mean before this update
                "mean_objective": float(scores.mean()),
                "best_objective": float(scores.max()),
                "elite_objective": float(scores[elite_rows].mean()),
            }
            row.update({name: float(v) for name, v in zip(names, search.mean, strict=True)})
            row.update({f"{name}_std": float(v) for name, v in zip(names, search.std, strict=True)})
            history.append(row)
            if on_generation is not None:
                on_generation(row)

        # the file holds rounded values; validate exactly those
        tuned = np.clip(np.round(search.mean, 4), low, high)
        tuned[whole] = np.round(tuned[whole])
        shares = evaluator.shares(
            np.vstack([tuned, default]), VALIDATION_FIRST_GAME, validation_games
        )
    validation = pd.DataFrame([_row("tuned", shares[0]), _row("default", shares[1])])
    per_deal = (shares[0] - shares[1]).mean(axis=0)
    # (one deal: no spread, a NaN interval; it read +0.0000 to +0.0000). Student's t over
    # the deals, as compare's paired differences: the normal's ran hot on few
    mean, low, high, _ = t_mean_ci(per_deal)
    if not np.array_equal(tuned, default):  # (other play; every deal's difference 0: bounded)
        low, high = rate_floor_bounds(shares[0].mean(axis=0), shares[1].mean(axis=0), low, high)
    return TuneResult(
        strategy=spec.name,
        opponents=[p.name for p in field_players[: len(chosen)]],
        players=players,
        games=games,
        generations=generations,
        population=population,
        elite=elite,
        seed=seed,
        best={name: float(v) for name, v in zip(names, tuned, strict=True)},
        default={name: float(v) for name, v in zip(names, default, strict=True)},
        history=pd.DataFrame(history),
        validation=validation,
        difference={"diff": mean, "diff_ci_low": low, "diff_ci_high": high},
        validation_games=validation_games,
        cards=card_set.path,
        rules=rules.to_dict(),
        start={name: float(v) for name, v in zip(names, player.params, strict=True)},
    )


def write_params(result: TuneResult, path: str | os.PathLike) -> Path:
    """Write the params file (``TuneResult.to_json``) atomically: a temporary file beside
    ``path``, renamed when complete."""
    path = Path(path)
    text = json.dumps(result.to_json(), indent=1) + "\n"
    write_atomically(path, text)
    return path
