"""Seat-rotated tournaments: every strategy in every seat on the same deals.

A deal depends only on (seed, game index) (its own random stream), so playing game g
under every seating compares the strategies on identical cards (common random numbers).
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import enums, validation
from sunset_sim.analysis.stats import (
    MIN_SAMPLES,
    TOO_FEW,
    ci_columns,
    cluster_mean_ci,
    cluster_rate_ci,
)
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.rules.options import Rules
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.run.progress import ProgressOption, combine, progress_bar
from sunset_sim.runner import DEFAULT_CHUNK, iter_seatings
from sunset_sim.strategy import Player
from sunset_sim.validation import TournamentSeatWarning as TournamentSeatWarning

RESULTS_NOTE = "results between bots: they describe these strategies, not human play"


def seatings(entrants: Sequence[Player], players: int) -> list[list[Player]]:
    """The tables to play: each rotation of each group of ``players`` entrants.

    With fewer entrants than seats they are repeated round the table; with more, every
    combination of ``players`` entrants is played. Identical tables are played once. (A
    field's entrants are distinct, ``check_distinct``; a sweep rotates a table that
    repeats an opponent.) Fewer entrants than seats: a ``TournamentSeatWarning`` says who
    sits twice."""
    validation.warn_repeated(entrants, players)
    if len(entrants) <= players:
        groups = [[entrants[seat % len(entrants)] for seat in range(players)]]
    else:
        groups = [list(group) for group in itertools.combinations(entrants, players)]
    tables: list[list[Player]] = []
    seen: set[tuple[str, ...]] = set()
    for group in groups:
        for shift in range(players):
            table = group[shift:] + group[:shift]
            key = tuple(p.name for p in table)
            if key not in seen:
                seen.add(key)
                tables.append(table)
    return tables


def check_distinct(entrants: Sequence[Player], name: str = "strategies") -> None:
    """A field's entrants, each listed once: one listed twice was a second entrant playing
    itself, which changed its standings without a word (greedy's win share against random
    alone fell from 1.0 to 0.75)."""
    repeated = [label for label, count in Counter(p.name for p in entrants).items() if count > 1]
    if repeated:
        raise validation.InputError(
            f"{name}: {repeated[0]} is given twice; list each entrant once (with fewer "
            "entrants than seats they are repeated round the table)"
        )
    # the same strategy with the same values, spelled two ways (balanced:paint=0.30 and
    # balanced:paint=0.3; greedy and greedy:lateness=0.3, its default), plays alike: said
    # in a note, as it may be meant (an A/A pair, a check of the tournament itself)
    first: dict[tuple, str] = {}
    for player in entrants:
        key = (player.spec.name, tuple(float(v) for v in player.params))  # (-0.0 == 0.0)
        if key in first:
            warnings.warn(
                f"note: {first[key]} and {player.name} are one strategy with the same "
                "parameter values: they play alike (an A/A pair; give other values to "
                "compare settings)",
                validation.SameEntrantWarning,
                stacklevel=3,
            )
        first.setdefault(key, player.name)


class _DealSums:
    """A measure's sum and count per deal, for an interval over deals: a deal is played at
    every seating, on the same cards, so its games are not independent (mean fame's
    interval, taken over games, was a fifth too narrow: its spread over 20 seeds 1.28
    times the stated). Deals share a slot modulo ``DEAL_SLOTS`` (whole deals in each, so
    the slots are independent clusters too) to bound the memory."""

    def __init__(self, games: int, most_slots: int | None = None) -> None:
        slots = max(1, min(games, most_slots or DEAL_SLOTS))
        self.games = 0  # values added (games), whatever their weight
        self.totals = np.zeros(slots)
        self.counts = np.zeros(slots)

    def add(self, first_game: int, values: np.ndarray, weight: float = 1.0) -> None:
        """Deal ``first_game + i``'s ``values[i]``, counted ``weight`` times (a sum of
        ``weight`` values)."""
        slots = len(self.totals)
        at, done = first_game % slots, 0
        while done < len(values):
            take = min(len(values) - done, slots - at)
            self.totals[at : at + take] += values[done : done + take]
            self.counts[at : at + take] += weight
            done, at = done + take, 0
        self.games += len(values)

    def add_deals(self, deals: np.ndarray, values: np.ndarray) -> None:
        """Deal ``deals[i]``'s ``values[i]``, the deals in any order (a subset of a batch:
        its games where the strategy had a given day-1 turn position)."""
        at = deals % len(self.totals)
        self.totals += np.bincount(at, weights=values, minlength=len(self.totals))
        self.counts += np.bincount(at, minlength=len(self.totals))
        self.games += len(values)

    def row(self, prefix: str) -> dict:
        return ci_columns(prefix, *cluster_mean_ci(self.totals, self.counts))

    def rate_row(self, prefix: str) -> dict:
        """Wilson's interval at the effective number of trials (the values are sums of
        ``weight`` values in [0, 1])."""
        return ci_columns(prefix, *cluster_rate_ci(self.totals, self.counts, most=self.games))


DEAL_SLOTS = 1 << 20  # _DealSums' per-deal slots: 16 MiB a strategy at most
PAIR_SLOTS = 1 << 14  # a pair's (a field of 7 has 42): 256 KiB each


@dataclass
class TournamentResult:
    standings: pd.DataFrame
    head_to_head: pd.DataFrame
    by_seat: pd.DataFrame
    by_turn_position: pd.DataFrame
    games: int
    tables: int
    rating_games: int
    note: str = RESULTS_NOTE


@dataclass
class _Accumulator:
    games: int  # deals (game indices 0 .. games - 1, each played at every seating)
    # Win shares by deal too: with more strategies than seats a strategy plays a deal at
    # several seatings, whose shares go together (the deal's cards suit it or not). Taken
    # over games as independent, 5 strategies on 3 seats stated 0.72 to 0.98 of the spread
    # seen over 40 seeds (a tester's check)
    share: dict = field(default_factory=dict)  # label -> _DealSums of win share
    fame: dict = field(default_factory=dict)  # label -> _DealSums of fame
    seat: dict = field(default_factory=dict)  # (label, seat) -> _DealSums of win share
    position: dict = field(default_factory=dict)  # (label, day-1 position) -> _DealSums
    # (a, b) -> _DealSums of a's score against b, over its seat pairs in a game (more
    # than one where a strategy repeats round the table), by deal: each seat pair was
    # counted as a game of its own (n four times the games played) and the interval
    # taken over independent games, about a tenth too narrow
    pair: dict = field(default_factory=dict)

    def add(self, batch: BatchArrays, labels: list[str]) -> None:
        fame = batch.seat[:, :, enums.R_FAME]
        share = batch.seat[:, :, enums.R_WON] / batch.seat[:, :, enums.R_WINNERS]
        first_position = batch.position[:, :, 0]
        deals = np.arange(batch.first_game, batch.first_game + len(share))
        for seat, label in enumerate(labels):
            if label not in self.fame:
                self.share[label] = _DealSums(self.games, PAIR_SLOTS)
                self.fame[label] = _DealSums(self.games)
            self.share[label].add(batch.first_game, share[:, seat])
            self.fame[label].add(batch.first_game, fame[:, seat].astype(np.float64))
            if (label, seat) not in self.seat:
                self.seat[label, seat] = _DealSums(self.games, PAIR_SLOTS)
            self.seat[label, seat].add(batch.first_game, share[:, seat])
            for position in np.unique(first_position[:, seat]):
                mask = first_position[:, seat] == position
                key = (label, int(position))
                if key not in self.position:
                    self.position[key] = _DealSums(self.games, PAIR_SLOTS)
                self.position[key].add_deals(deals[mask], share[mask, seat])
        scores: dict[tuple[str, str], list[np.ndarray]] = {}
        for a, b in itertools.permutations(range(len(labels)), 2):
            if labels[a] == labels[b]:
                continue
            score = (fame[:, a] > fame[:, b]) + 0.5 * (fame[:, a] == fame[:, b])
            scores.setdefault((labels[a], labels[b]), []).append(score)
        for key, pair_scores in scores.items():
            if key not in self.pair:
                self.pair[key] = _DealSums(self.games, PAIR_SLOTS)
            self.pair[key].add(batch.first_game, np.sum(pair_scores, axis=0), len(pair_scores))


def _ratings(batches: list[tuple[BatchArrays, list[str]]], labels: list[str]) -> pd.DataFrame:
    """openskill Plackett-Luce ratings from the games' finishing orders (ties share a rank).
    The updates are sequential, so the games are rated in one order whatever the order
    the strategies were given in, deal by deal and within a deal by the seating's labels
    (a tournament of the same tables gave commission-hunter 21.5 to 23.6 over the six
    orders of three names). Deal by deal: every seating of one deal before the next;
    every game of one seating before the next gave two copies of greedy 22.6 and 27.4 (the
    seating rated last weighed most), each winning half the games. A strategy in several
    seats of a game moves by the mean of its seats' updates (its last seat's alone was
    kept). The batches are merged lazily: a list of every game rated held a tuple each."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in sorted(labels)}

    def games_of(batch: BatchArrays, seat_labels: list[str]):
        fame = batch.seat[:, :, enums.R_FAME]
        for offset in range(fame.shape[0]):
            yield batch.first_game + offset, seat_labels, fame[offset]

    ordered = heapq.merge(
        *(games_of(batch, seat_labels) for batch, seat_labels in batches),
        key=lambda game: (game[0], game[1]),
    )
    for _, seat_labels, row in ordered:
        ranks = [1 + int((row > value).sum()) for value in row]
        # a rating object of its own per seat: openskill updates them in place, and one
        # object in two teams (a strategy in two seats) was updated twice over
        teams = [
            [model.rating(mu=ratings[label].mu, sigma=ratings[label].sigma, name=label)]
            for label in seat_labels
        ]
        updated = model.rate(teams, ranks=ranks)
        moved: dict[str, list] = {}
        for label, team in zip(seat_labels, updated, strict=True):
            moved.setdefault(label, []).append(team[0])
        for label, seats in moved.items():
            if len(seats) == 1:
                ratings[label] = seats[0]
                continue
            before = ratings[label]
            ratings[label] = model.rating(
                mu=before.mu + sum(r.mu - before.mu for r in seats) / len(seats),
                sigma=sum(r.sigma for r in seats) / len(seats),
                name=label,
            )
    return pd.DataFrame(
        [
            {"strategy": label, "rating_mu": r.mu, "rating_sigma": r.sigma, "rating": r.ordinal()}
            for label, r in ratings.items()
        ]
    )


def tournament(
    strategies: Sequence[str | Player],
    players: int = 4,
    games: int = 10_000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    rating_games: int = 20_000,
    on_chunk: Callable[[int], None] | None = None,
    progress: ProgressOption = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> TournamentResult:
    """Play games 0..games-1 at every seating; tables per strategy with 95% CIs.

    Entrants are distinguished by their text (``greedy:lateness=0.5`` is its own entrant).
    Ratings use the first ``rating_games`` games of each seating (openskill updates are
    sequential and slow). ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr);
    ``on_chunk(games)`` is told of games played. Inputs are held to the CLI's limits (``InputError``); ``rules``
    may be a ``Rules`` record or a dict such as ``{"days": 4}``. With fewer strategies
    than seats they are repeated round the table, which a ``TournamentSeatWarning`` says
    (the repeated ones have a larger n); two entrants that are one strategy with the same
    values get a ``SameEntrantWarning`` (they play alike)."""
    players = validation.check_players(players)
    games = validation.check_games(games)
    seed = validation.check_seed(seed)
    jobs = validation.check_jobs(jobs)
    chunk_size = validation.check_chunk_size(chunk_size)
    validation.check_chunk_plan(games, chunk_size)  # (before any array of the deals)
    validation.check_callback(on_chunk, "on_chunk")
    validation.check_progress(progress)
    # a numpy integer counts as its int, as every other count does
    rating_games = validation.check_whole(rating_games, "rating_games", low=0)
    entrants = validation.check_strategies(strategies)
    check_distinct(entrants)
    labels = list(dict.fromkeys(p.name for p in entrants))
    if len(labels) < 2:
        raise validation.InputError(
            "strategies: a tournament needs at least two different strategies"
        )
    rules = validation.as_rules(rules)
    cards = validation.as_cards(cards, players=players, days=rules.days)
    accumulator = _Accumulator(games)
    rated: list[tuple[BatchArrays, list[str]]] = []
    tables = seatings(entrants, players)
    with (
        using_backend(backend, jobs, scheduler) as runner,
        progress_bar(progress, games * len(tables)) as on_games,
    ):
        for _, batch, seat_labels in iter_seatings(
            games,
            players,
            tables,
            seed,
            cards,
            rules,
            jobs,
            chunk_size,
            field=entrants,
            progress=combine(on_chunk, on_games),
            backend=runner,
        ):
            accumulator.add(batch, seat_labels)
            kept = max(0, min(len(batch.game), rating_games - batch.first_game))
            if kept:
                rated.append((batch.rows(0, kept), seat_labels))
    standings = pd.DataFrame(
        [
            {
                "strategy": label,
                "n": accumulator.share[label].games,
                **accumulator.share[label].rate_row("win_share"),
                **accumulator.fame[label].row("mean_fame"),
            }
            for label in labels
        ]
    )
    standings = standings.merge(_ratings(rated, labels), on="strategy")
    if not rated:  # rating_games=0: no rating, not the prior (25, 8.33, 0) as if rated
        standings[["rating_mu", "rating_sigma", "rating"]] = math.nan
    standings = standings.sort_values("win_share", ascending=False, ignore_index=True)
    head = pd.DataFrame(
        [
            {"strategy": a, "opponent": b, "n": s.games, **s.rate_row("score")}
            for (a, b), s in sorted(accumulator.pair.items())
        ]
    )
    by_seat = pd.DataFrame(
        [
            {"strategy": label, "seat": seat, "n": s.games, **s.rate_row("win_share")}
            for (label, seat), s in sorted(accumulator.seat.items())
        ]
    )
    by_position = pd.DataFrame(
        [
            {
                "strategy": label,
                "day1_turn_position": pos,
                "n": s.games,
                **s.rate_row("win_share"),
            }
            for (label, pos), s in sorted(accumulator.position.items())
        ]
    )
    # as the report marks its groups: a day-1 turn position a strategy rarely got (5 of
    # 900 games) showed "0.000 (0.000 to 0.434)" with nothing to say it rests on little
    for table in (by_seat, by_position):
        if len(table):
            table["note"] = np.where(table["n"] < MIN_SAMPLES, TOO_FEW, "")
    return TournamentResult(
        standings, head, by_seat, by_position, games, len(tables), min(games, rating_games)
    )
