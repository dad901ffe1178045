"""What-if analysis: compare two variants of the game, or sweep one setting over values.

``compare`` plays the same strategies on two variants (card set and/or rule options),
A and B, on the same seeds and game indices (common random numbers), and reports every
key measure for A, for B and their difference B - A with a paired 95% CI and p-value.
``sweep`` plays one strategy parameter or one rule option at each of a list of values,
again on the same seeds for every value. Both return tidy DataFrames.

Seating: each deal (game index g under the seed) is played at every rotation of the
table (``analysis.tournament.seatings``), so every strategy sits in every seat on the
same deals and seat effects do not leak into strategy results. The unit of every
interval is the deal: a strategy's value in deal g is its mean over all its seats in all
rotations of deal g, so values from different deals are independent.

Common random numbers: a deal depends only on (seed, g) and the card ids in their order
(``CardSet.deal_key``: the engines shuffle card indices). Rule options (``days``,
``tie_break``) and card edits that keep the ids and deck sizes (a fame, wake-up time,
hike, paint or directions changed: ``cards.edit``) keep the deals identical, so A and B
differ only by the change; a set with other cards shuffles other cards, so its deal g is
another deal and only the seeds are shared (the pairing then gains little, but stays
valid).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from sunset_sim import enums, validation
from sunset_sim.analysis.stats import (
    MIN_VERDICT_DEALS,
    Z95,
    balance,
    rate_difference_bounds,
    rate_floor_bounds,
    seat_gaps,
    t_mean_ci,
)
from sunset_sim.analysis.tournament import RESULTS_NOTE, check_distinct, seatings
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.enums import END_COMMISSION_SHORTAGE
from sunset_sim.rules.options import Rules
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.run.progress import ProgressOption, combine, progress_bar
from sunset_sim.runner import DEFAULT_CHUNK, iter_seatings
from sunset_sim.strategy import Player, make_player

__all__ = [
    "RESULTS_NOTE",
    "compare",
    "describe_variant",
    "paired_diff",
    "resolve_rules",
]

# what compare says when A and B are one variant (no difference given, or the same one)
SAME_VARIANT = (
    "A and B are the same variant (same card set and rules): an A/A check, where every "
    "difference is 0"
)


class SameVariantWarning(UserWarning):
    """compare was given a B that is the same as A: every difference is 0 (an A/A check)."""


DECKS = ("landscapes", "commissions", "goals", "plans")  # a CardSet's decks, dealt by place


def same_cards(set_a: CardSet, set_b: CardSet) -> bool:
    """Whether two card sets play alike: the same cards in the same order, whatever
    their files' comments, layout or name (``content_hash`` covers the file's text, so a
    copy with a comment added is another set in a record, but the same variant here)."""
    return set_a.features == set_b.features and all(
        getattr(set_a, deck) == getattr(set_b, deck) for deck in DECKS
    )


def check_two_variants(
    given: bool, b: str = "cards_b or rules_b", a: str = "cards_a or rules_a"
) -> None:
    """compare needs a difference between A and B: with none of the variant arguments
    (``given`` False) there is only one variant to play. ``b``/``a`` name the arguments
    as the caller knows them (``--b-cards or --b-rule`` on the command line)."""
    if not given:
        raise validation.InputError(
            f"compare: only one variant; give B's difference with {b} (and A's with {a})"
        )


RulesLike = Rules | Mapping | str | Sequence[str] | None
CardsLike = CardSet | str | os.PathLike | None
StrategyLike = str | Player

PER_STRATEGY = {
    "win_share": None,  # computed from R_WON / R_WINNERS
    "mean_fame": enums.R_FAME,
    "fame_commissions": enums.R_FAME_COMMISSIONS,
    "fame_goals": enums.R_FAME_GOALS,
    "fame_paintings": enums.R_FAME_PAINTINGS,
}
FAME_PARTS = ("fame_commissions", "fame_goals", "fame_paintings")
GAME_METRICS = ("tie_rate", "early_end_rate", "days_played")
SHARE_METRICS = ("win_share", "balance", "tie_rate", "early_end_rate")  # each in 0 .. 1

COMPARE_COLUMNS = [
    "section",
    "item",
    "metric",
    "n",
    "a",
    "b",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_value",
    "significant",
]


# --- inputs -------------------------------------------------------------------------


def resolve_rules(rules: RulesLike, base: Rules | None = None, name: str = "rules") -> Rules:
    """Rules from a Rules object (used as is), or from changes applied to ``base``: a
    mapping ``{"days": 4}``, one ``"key=value"`` text or a list of them (as ``--rule``).
    A bad one is an InputError naming ``name`` (``rules_b``, ``--b-rule``)."""
    return validation.as_rules(rules, name, base or Rules())


def _cards(cards: CardsLike, name: str = "cards") -> CardSet:
    return validation.as_cards(cards, name)


def _player(strategy: StrategyLike) -> Player:
    return strategy if isinstance(strategy, Player) else make_player(strategy)


def describe_variant(cards: CardSet, rules: Rules) -> str:
    """One line naming a variant's card set and rule options."""
    where = "packaged card set" if cards.path == "<default>" else f"cards {cards.path}"
    options = ", ".join(f"{k}={v}" for k, v in rules.to_dict().items())
    return f"{where} ({cards.name}); rules {options}"


# --- playing: per-deal values -------------------------------------------------------


@dataclass
class _Deals:
    """Per-deal values over every rotation of the table: sums, divided at the end."""

    games: int
    players: int
    sums: dict = field(default_factory=dict)  # (label, metric) -> (games,) float64
    seats: dict = field(default_factory=dict)  # label -> seats per deal over all tables
    seat_share: np.ndarray | None = None  # (games, players) win share summed over tables
    game: dict = field(default_factory=dict)  # metric -> (games,) summed over tables
    tables: int = 0

    def __post_init__(self) -> None:
        self.seat_share = np.zeros((self.games, self.players))
        self.game = {metric: np.zeros(self.games) for metric in GAME_METRICS}

    def start_table(self, labels: list[str]) -> None:
        self.tables += 1
        for label in labels:
            self.seats[label] = self.seats.get(label, 0) + 1
            for metric in PER_STRATEGY:
                self.sums.setdefault((label, metric), np.zeros(self.games))

    def add(self, batch: BatchArrays, labels: list[str], first_game: int) -> None:
        rows = slice(batch.first_game - first_game, batch.first_game - first_game + len(batch.game))
        seat = batch.seat.astype(np.float64)
        share = seat[:, :, enums.R_WON] / seat[:, :, enums.R_WINNERS]
        for index, label in enumerate(labels):
            for metric, column in PER_STRATEGY.items():
                values = share[:, index] if column is None else seat[:, index, column]
                self.sums[(label, metric)][rows] += values
        self.seat_share[rows] += share
        self.game["tie_rate"][rows] += batch.seat[:, 0, enums.R_WINNERS] > 1
        reasons = batch.game[:, enums.G_END_REASON]
        self.game["early_end_rate"][rows] += reasons == END_COMMISSION_SHORTAGE
        self.game["days_played"][rows] += batch.game[:, enums.G_DAYS]

    def strategy(self, label: str, metric: str) -> np.ndarray:
        return self.sums[(label, metric)] / self.seats[label]

    def seat_shares(self) -> np.ndarray:
        return self.seat_share / self.tables

    def game_values(self, metric: str) -> np.ndarray:
        return self.game[metric] / self.tables

    @property
    def labels(self) -> list[str]:
        return list(self.seats)


def _check_memory(
    games: int, players: int, labels: int, held: int = 2, what: str = "the two variants'"
) -> None:
    """Refuse, before any game, a run whose per-deal sums (``held`` ``_Deals`` at once:
    compare's two variants, sweep's one value) need more memory than this machine has
    free: B's were taken only after A's games, so 60 million deals of four strategies
    played A for an hour, then asked for 13 GB more."""
    need = held * games * 8 * (players + len(GAME_METRICS) + len(PER_STRATEGY) * labels)
    free = validation.free_memory()
    if free is not None and need > free:
        raise validation.InputError(
            f"games: not enough memory for this run: {games:,} deals need about "
            f"{need / 2**30:.1f} GiB for {what} per-deal sums, more than the "
            f"{free / 2**30:.1f} GiB free here; use fewer --games"
        )


def _play(
    tables: list[list[Player]],
    players: int,
    games: int,
    seed: int,
    cards: CardSet,
    rules: Rules,
    jobs: int | None,
    chunk_size: int,
    on_chunk: Callable[[int], None] | None,
    first_game: int = 0,
    backend: BackendOption = "local",
) -> _Deals:
    deals = _Deals(games, players)
    for table in tables:
        deals.start_table([p.name for p in table])
    for _, batch, seat_labels in iter_seatings(
        games,
        players,
        tables,
        seed,
        cards,
        rules,
        jobs,
        chunk_size,
        first_game,
        field=[player for seating in tables for player in seating],
        progress=on_chunk,
        backend=backend,
    ):
        deals.add(batch, seat_labels, first_game)
    return deals


def _check_sizes(
    players: int,
    games: int,
    seed: int = 0,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: object = None,
    progress: object = False,
) -> tuple[int, int, int, int | None, int]:
    """The CLI's limits and the API's other options (validation.py): an InputError (a
    ValueError) in one line, before anything is played. Returns players, games, seed,
    jobs and chunk size as Python ints (a numpy seed plays as the same int would)."""
    validation.check_callback(on_chunk, "on_chunk")
    validation.check_progress(progress)
    checked = (
        validation.check_players(players),
        validation.check_games(games),
        validation.check_seed(seed),
        validation.check_jobs(jobs),
        validation.check_chunk_size(chunk_size),
    )
    validation.check_chunk_plan(checked[1], checked[4])  # (before any array of the deals)
    return checked


# --- statistics that stats.py does not have -----------------------------------------


def paired_diff(a_values, b_values, z: float = Z95) -> tuple[float, float, float, float]:
    """Paired difference of means, B - A, deal by deal: ``(diff, lo, hi, p_value)``.

    The CI and the two-sided p-value are Student's t's for the mean of the per-deal
    differences, n - 1 degrees of freedom (common random numbers make these much
    narrower than an unpaired interval); p is 1 when every difference is zero. (With the
    normal's, an A/A comparison marked a seat's win share significant in 9.2% of 600
    seeds at 20 deals, against 5% meant: deals' values are coarse, 0, 1/2 or 1.)"""
    a = np.asarray(a_values, dtype=np.float64).ravel()
    b = np.asarray(b_values, dtype=np.float64).ravel()
    return t_mean_ci(b - a, z)


def paired_balance_diff(
    shares_a: np.ndarray, shares_b: np.ndarray, draws: int = 4000, seed: int = 0
) -> tuple[float, float, float, float]:
    """Balance(B) - Balance(A) from per-deal seat win shares ``(games, seats)`` of both
    variants: ``(diff, lo, hi, p_value)``.

    Balance(B) - Balance(A) is A's range of seat rates less B's; each range lies within
    ``stats.seat_gaps``' bounds (Tukey's simultaneous intervals for every pair of seats)
    at confidence 1 - alpha / 2, so the difference lies between A's smallest less B's
    largest and A's largest less B's smallest with at least 1 - alpha (Bonferroni; the
    pairing of the deals is not used, so it errs wide). The p-value is the smallest
    alpha whose interval leaves out 0, and at least 1 / ``draws`` (the resolution of the
    critical values). The reflected bootstrap of max - min it replaced
    covered the difference only 81% of the time where one variant was fair and the other
    nearly so (max - min is not smooth where the seats are equal)."""
    a = np.asarray(shares_a, dtype=np.float64)
    b = np.asarray(shares_b, dtype=np.float64)
    value_a, gaps_a, n = seat_gaps(a, draws, seed)
    value_b, gaps_b, _ = seat_gaps(b, draws, seed + 1)
    value = value_b - value_a
    if a.shape == b.shape and np.array_equal(a, b):  # identical variants: nothing differs
        return 0.0, 0.0, 0.0, 1.0
    if gaps_a is None or gaps_b is None:
        return value, math.nan, math.nan, math.nan

    def interval(alpha: float) -> tuple[float, float]:
        narrow_a, wide_a = gaps_a(1 - alpha / 2)
        narrow_b, wide_b = gaps_b(1 - alpha / 2)
        return narrow_a - wide_b, wide_a - narrow_b

    lo, hi = interval(1 - math.erf(Z95 / math.sqrt(2)))
    # the critical values come from ``draws`` draws: past 1 - 1 / draws their quantile
    # stops growing, and the search ran down to its last step (every small p read
    # exactly 2**-40, 9.1e-13, beside a CI of half-width 0.06): p is at least that
    low_alpha, high_alpha = 1.0 / draws, 1.0  # the interval narrows as alpha grows
    if interval(high_alpha)[0] <= 0.0 <= interval(high_alpha)[1]:
        return value, lo, hi, 1.0
    if not interval(low_alpha)[0] <= 0.0 <= interval(low_alpha)[1]:
        return value, lo, hi, low_alpha
    for _ in range(40):
        middle = (low_alpha + high_alpha) / 2
        inside = interval(middle)
        if inside[0] <= 0.0 <= inside[1]:
            low_alpha = middle
        else:
            high_alpha = middle
    return value, lo, hi, high_alpha


# --- compare ------------------------------------------------------------------------


def renamed_cards(set_a: CardSet, set_b: CardSet) -> list[tuple[str, str]]:
    """(A's id, B's id) at each deck position where they differ, when every deck has the
    same size in both: the engines shuffle positions, so deal g still puts B's card where
    it puts A's (a renamed or replaced card: paired as an edit is). Empty otherwise, and
    empty where B holds one of A's cards at another place (``reordered``): deal g then
    deals that card elsewhere, another deal, not an edit of the same one."""
    pairs = []
    for deck in DECKS:
        cards_a, cards_b = getattr(set_a, deck), getattr(set_b, deck)
        if len(cards_a) != len(cards_b):
            return []
        pairs += [(a.id, b.id) for a, b in zip(cards_a, cards_b, strict=True) if a.id != b.id]
    return [] if reordered(set_a, set_b) else pairs


def reordered(set_a: CardSet, set_b: CardSet) -> bool:
    """Whether one of A's cards, id and numbers alike, stands at another place of its
    deck in B where A has another card (two ids swapped over cards that stay put, or
    over two cards alike but for their ids, is a renaming: the deals are the same)."""
    for deck in DECKS:
        cards_a = getattr(set_a, deck)
        places_a = {card: place for place, card in enumerate(cards_a)}
        for place, card in enumerate(getattr(set_b, deck)):
            moved = places_a.get(card, place) != place
            if moved and place < len(cards_a) and not _alike(card, cards_a[place]):
                return True
    return False


def _alike(card_a, card_b) -> bool:
    """Two cards alike but for their ids (a deal of either plays the same)."""
    return replace(card_a, id="") == replace(card_b, id="")


def compare(
    strategies: Sequence[StrategyLike] = ("greedy",),
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    cards: CardsLike = None,
    rules: RulesLike = None,
    cards_a: CardsLike = None,
    cards_b: CardsLike = None,
    rules_a: RulesLike = None,
    rules_b: RulesLike = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    alpha: float = 0.05,
    on_chunk: Callable[[int], None] | None = None,
    progress: ProgressOption = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Play the same strategies on variant A and variant B on the same seeds; one row per
    measure with A, B, their difference ``diff = b - a``, its paired 95% CI and p-value.

    ``cards``/``rules`` are the base of both variants; ``cards_a``/``cards_b`` replace the
    card set of one variant and ``rules_a``/``rules_b`` change its rule options (a Rules
    object replaces them; ``{"days": 4}``, ``"days=4"`` or ``["days=4", ...]`` change only
    the keys given). Strategies are names (``"greedy:lateness=1"``) or Players; each deal
    is played at every rotation of the table. At least one of ``cards_a``, ``cards_b``,
    ``rules_a``, ``rules_b`` must be given (else there is one variant: an InputError, as
    ``sunset-sim compare`` refuses it); a B that comes out the same as A is played as an
    A/A check (every difference 0) with a ``SameVariantWarning``.

    Columns: ``section`` (strategy | fame parts | seat | game), ``item`` (strategy, seat
    or "all games"), ``metric``, ``n`` (deals), ``a``, ``b``, ``diff``, ``diff_ci_low``,
    ``diff_ci_high``, ``p_value``, ``significant`` (p < ``alpha`` and a nonzero diff).
    Rows: per strategy ``win_share`` and ``mean_fame``; per strategy ``fame_commissions``,
    ``fame_goals``, ``fame_paintings``; per seat ``win_share`` and ``balance`` (1 - the
    largest gap between seats' win rates); ``tie_rate``, ``early_end_rate`` (ended by
    commission shortage), ``days_played``. ``frame.attrs`` holds ``a``, ``b`` (one-line
    descriptions), ``same_deals`` (True when both card sets have the same card ids in the
    same order, so every deal is identical: ``CardSet.deal_key``), ``renamed`` (where the
    decks are the same sizes but ids differ: ``renamed_cards``), ``reordered`` (B holds
    some of A's cards at other places: other deals), ``games``, ``tables``.
    ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr); ``on_chunk(games)``
    is told of games played. ``backend``/``scheduler``: where the chunks are played, as
    ``simulate`` takes them ("local", "dask", a ``distributed.Client``); same results.
    """
    players, games, seed, jobs, chunk_size = _check_sizes(
        players, games, seed, jobs, chunk_size, on_chunk, progress
    )
    alpha = validation.check_fraction(alpha, "alpha")
    check_two_variants(any(v is not None for v in (cards_a, cards_b, rules_a, rules_b)))
    base_cards = _cards(cards)
    base_rules = resolve_rules(rules)
    set_a = _cards(cards_a, "cards_a") if cards_a is not None else base_cards
    set_b = _cards(cards_b, "cards_b") if cards_b is not None else base_cards
    variant_a = resolve_rules(rules_a, base_rules, "rules_a")
    variant_b = resolve_rules(rules_b, base_rules, "rules_b")
    entrants = validation.check_strategies(strategies)
    check_distinct(entrants)
    identical = variant_a == variant_b and same_cards(set_a, set_b)
    if identical:
        warnings.warn(SAME_VARIANT, SameVariantWarning, stacklevel=2)
    tables = seatings(entrants, players)
    _check_memory(games, players, len({p.name for table in tables for p in table}))
    with (
        using_backend(backend, jobs, scheduler) as runner,
        progress_bar(progress, 2 * games * len(tables)) as on_games,
    ):
        told = combine(on_chunk, on_games)
        played = [
            _play(tables, players, games, seed, set_, rules_, jobs, chunk_size, told, 0, runner)
            for set_, rules_ in ((set_a, variant_a), (set_b, variant_b))
        ]
    frame = compare_deals(*played, alpha=alpha, identical=identical)
    frame.attrs.update(
        a=describe_variant(set_a, variant_a),
        b=describe_variant(set_b, variant_b),
        same_deals=set_a.deal_key == set_b.deal_key,
        renamed=renamed_cards(set_a, set_b),
        reordered=reordered(set_a, set_b),
        games=games,
        tables=len(tables),
        players=players,
        alpha=alpha,
    )
    return frame


def compare_deals(
    a: _Deals, b: _Deals, alpha: float = 0.05, identical: bool = False
) -> pd.DataFrame:
    """The compare frame from both variants' per-deal sums; ``identical``: an A/A check
    (the same games: every difference known to be 0, its interval too)."""
    rows = []

    def row(section: str, item: str, metric: str, values_a, values_b) -> None:
        diff, lo, hi, p = paired_diff(values_a, values_b)
        if not identical:  # (a mean's deal moves it by at most its largest value, a point)
            lo, hi = rate_floor_bounds(values_a, values_b, lo, hi, metric not in SHARE_METRICS)
        rows.append(
            [
                section,
                item,
                metric,
                len(values_a),
                float(np.mean(values_a)),
                float(np.mean(values_b)),
            ]
            + [diff, lo, hi, p]
        )

    labels = a.labels
    for label in labels:
        for metric in ("win_share", "mean_fame"):
            row("strategy", label, metric, a.strategy(label, metric), b.strategy(label, metric))
    for label in labels:
        for metric in FAME_PARTS:
            row("fame parts", label, metric, a.strategy(label, metric), b.strategy(label, metric))
    seats_a, seats_b = a.seat_shares(), b.seat_shares()
    for seat in range(seats_a.shape[1]):
        row("seat", f"seat {seat}", "win_share", seats_a[:, seat], seats_b[:, seat])
    diff, lo, hi, p = paired_balance_diff(seats_a, seats_b)
    rows.append(
        ["seat", "all seats", "balance", a.games]
        + [balance(seats_a.mean(axis=0)), balance(seats_b.mean(axis=0)), diff, lo, hi, p]
    )
    for metric in GAME_METRICS:
        row("game", "all games", metric, a.game_values(metric), b.game_values(metric))
    frame = pd.DataFrame([r + [False] for r in rows], columns=COMPARE_COLUMNS)
    # a share's difference (the normal interval of a few deals went past -1 .. 1)
    shares = frame["metric"].isin(SHARE_METRICS).to_numpy()
    low, high = rate_difference_bounds(
        frame["diff_ci_low"].to_numpy(float), frame["diff_ci_high"].to_numpy(float)
    )
    frame["diff_ci_low"] = np.where(shares, low, frame["diff_ci_low"])
    frame["diff_ci_high"] = np.where(shares, high, frame["diff_ci_high"])
    frame["significant"] = (
        (frame["p_value"] < alpha)
        & (frame["diff"].abs() > 1e-12)
        & (frame["n"] >= MIN_VERDICT_DEALS)
    )
    return frame


def __getattr__(name: str):
    """The sweep's names, moved to ``analysis.sweep``, still importable from here."""
    if name in ("parse_param_sweep", "parse_rule_sweep", "plot_sweep", "sweep", "sweep_games"):
        from sunset_sim.analysis import sweep

        return getattr(sweep, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
