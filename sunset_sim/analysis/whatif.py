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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import enums, validation
from sunset_sim.analysis.stats import (
    Z95,
    balance,
    balance_ci,
    ci_columns,
    mean_ci,
    proportion_ci,
    z_test_p,
)
from sunset_sim.analysis.tournament import RESULTS_NOTE, seatings
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.batch import BatchArrays
from sunset_sim.enums import END_COMMISSION_SHORTAGE
from sunset_sim.rules.options import RuleOptionError, Rules
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.run.progress import ProgressOption, combine, progress_bar
from sunset_sim.runner import DEFAULT_CHUNK, iter_seatings
from sunset_sim.strategy import Player, StrategyError, make_player, registry

__all__ = [
    "RESULTS_NOTE",
    "compare",
    "describe_variant",
    "paired_diff",
    "parse_param_sweep",
    "parse_rule_sweep",
    "plot_sweep",
    "resolve_rules",
    "sweep",
]

# what compare says when A and B are one variant (no difference given, or the same one)
SAME_VARIANT = (
    "A and B are the same variant (same card set and rules): an A/A check, where every "
    "difference is 0"
)


class SameVariantWarning(UserWarning):
    """compare was given a B that is the same as A: every difference is 0 (an A/A check)."""


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
) -> None:
    """The CLI's limits and the API's other options (validation.py): an InputError (a
    ValueError) in one line, before anything is played."""
    validation.check_players(players)
    validation.check_games(games)
    validation.check_seed(seed)
    validation.check_jobs(jobs)
    validation.check_chunk_size(chunk_size)
    validation.check_callback(on_chunk, "on_chunk")
    validation.check_progress(progress)


# --- statistics that stats.py does not have -----------------------------------------


def paired_diff(a_values, b_values, z: float = Z95) -> tuple[float, float, float, float]:
    """Paired difference of means, B - A, deal by deal: ``(diff, lo, hi, p_value)``.

    The CI is the normal-approximation CI of the mean of the per-deal differences (common
    random numbers make these much narrower than an unpaired interval); the p-value is
    the two-sided z-test (``stats.z_test_p``): 1 when every difference is zero."""
    a = np.asarray(a_values, dtype=np.float64).ravel()
    b = np.asarray(b_values, dtype=np.float64).ravel()
    differences = b - a
    diff, lo, hi, n = mean_ci(differences, z)
    se = float(differences.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return diff, lo, hi, float(z_test_p(diff, se))


def paired_balance_diff(
    shares_a: np.ndarray, shares_b: np.ndarray, draws: int = 4000, seed: int = 0
) -> tuple[float, float, float, float]:
    """Balance(B) - Balance(A) from per-deal seat win shares ``(games, seats)`` of both
    variants: ``(diff, lo, hi, p_value)``.

    As ``stats.balance_ci``: a parametric bootstrap of the seat means, here of A's and
    B's together (their joint covariance keeps the pairing), a basic (reverse-percentile)
    interval, and a z-test p-value with the bootstrap standard error."""
    a = np.asarray(shares_a, dtype=np.float64)
    b = np.asarray(shares_b, dtype=np.float64)
    joint = np.hstack([a, b])
    n, seats = a.shape
    means = joint.mean(axis=0)
    value = balance(means[seats:]) - balance(means[:seats])
    if n < 2:
        return value, math.nan, math.nan, math.nan
    cov = np.atleast_2d(np.cov(joint, rowvar=False)) / n
    eigenvalues, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
    sample = means + np.random.default_rng(seed).standard_normal((draws, len(means))) @ root.T

    def balances(block: np.ndarray) -> np.ndarray:
        return 1.0 - (block.max(axis=1) - block.min(axis=1))

    values = balances(sample[:, seats:]) - balances(sample[:, :seats])
    tail = (1 - math.erf(Z95 / math.sqrt(2))) / 2
    q_lo, q_hi = np.quantile(values, [tail, 1 - tail])
    lo, hi = 2 * value - q_hi, 2 * value - q_lo
    se = float(values.std(ddof=1))
    if se < 1e-12:  # identical variants: every draw gives the same difference
        se = 0.0
        if abs(value) < 1e-12:
            value = lo = hi = 0.0
    return value, float(lo), float(hi), float(z_test_p(value, se))


# --- compare ------------------------------------------------------------------------


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
    same order, so every deal is identical: ``CardSet.deal_key``), ``games``, ``tables``.
    ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr); ``on_chunk(games)``
    is told of games played. ``backend``/``scheduler``: where the chunks are played, as
    ``simulate`` takes them ("local", "dask", a ``distributed.Client``); same results.
    """
    _check_sizes(players, games, seed, jobs, chunk_size, on_chunk, progress)
    alpha = validation.check_fraction(alpha, "alpha")
    check_two_variants(any(v is not None for v in (cards_a, cards_b, rules_a, rules_b)))
    base_cards = _cards(cards)
    base_rules = resolve_rules(rules)
    set_a = _cards(cards_a, "cards_a") if cards_a is not None else base_cards
    set_b = _cards(cards_b, "cards_b") if cards_b is not None else base_cards
    variant_a = resolve_rules(rules_a, base_rules, "rules_a")
    variant_b = resolve_rules(rules_b, base_rules, "rules_b")
    entrants = validation.check_strategies(strategies or ("greedy",))
    if variant_a == variant_b and set_a.content_hash == set_b.content_hash:
        warnings.warn(SAME_VARIANT, SameVariantWarning, stacklevel=2)
    tables = seatings(entrants, players)
    with (
        using_backend(backend, jobs, scheduler) as runner,
        progress_bar(progress, 2 * games * len(tables)) as on_games,
    ):
        told = combine(on_chunk, on_games)
        played = [
            _play(tables, players, games, seed, set_, rules_, jobs, chunk_size, told, 0, runner)
            for set_, rules_ in ((set_a, variant_a), (set_b, variant_b))
        ]
    frame = compare_deals(*played, alpha=alpha)
    frame.attrs.update(
        a=describe_variant(set_a, variant_a),
        b=describe_variant(set_b, variant_b),
        same_deals=set_a.deal_key == set_b.deal_key,
        games=games,
        tables=len(tables),
        players=players,
        alpha=alpha,
    )
    return frame


def compare_deals(a: _Deals, b: _Deals, alpha: float = 0.05) -> pd.DataFrame:
    rows = []

    def row(section: str, item: str, metric: str, values_a, values_b) -> None:
        diff, lo, hi, p = paired_diff(values_a, values_b)
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
    frame["significant"] = (frame["p_value"] < alpha) & (frame["diff"].abs() > 1e-12)
    return frame


# --- sweep --------------------------------------------------------------------------


def parse_param_sweep(
    text: str, values: Sequence[float] | None = None
) -> tuple[str, str, list[float]]:
    """``"NAME:KEY=V1,V2,..."`` (or ``"NAME:KEY"`` with ``values``) as (name, key, values),
    each value checked against the parameter's range. Raises StrategyError (one line)."""
    if not isinstance(text, str):
        raise StrategyError(
            f"param: {validation.short_number(repr(text))} is not a text NAME:KEY=V1,V2,..."
        )
    target, sep, listed = text.partition("=")
    name, colon, key = target.partition(":")
    name, key = name.strip(), key.strip()
    if not colon or not key:
        raise StrategyError(f"{text!r} is not of the form NAME:KEY=V1,V2,...")
    specs = registry()
    if name not in specs:
        raise StrategyError(f"unknown strategy {name!r} (known: {', '.join(specs)})")
    spec = specs[name]
    known = [p.name for p in spec.parameters]
    if key not in known:
        raise StrategyError(
            f"strategy {name}: unknown parameter {key!r} (known: {', '.join(known) or 'none'})"
        )
    if values is None:
        if not sep:
            raise StrategyError(f"{text!r}: no values (NAME:KEY=V1,V2,...)")
        numbers: list[float] = []
        for item in listed.split(","):
            try:
                numbers.append(float(item))
            except ValueError:
                raise StrategyError(
                    f"strategy {name}: {key}={item.strip()!r} is not a number"
                ) from None
    else:
        if sep:
            raise StrategyError(f"{text!r}: give the values either after '=' or as values")
        numbers = [_swept_number(name, key, v) for v in values]
    _check_values(numbers, f"{name}:{key}")
    for number in numbers:
        spec.param_vector({key: number})  # the range check, as StrategyError
    return name, key, numbers


def _swept_number(name: str, key: str, value: object) -> float:
    """One of ``values`` for a parameter sweep as a float (a StrategyError if it is none;
    the range check follows in ``parse_param_sweep``)."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        shown = validation.short_number(repr(value))
        raise StrategyError(f"values: strategy {name}: {key}={shown} is not a number") from None


def parse_rule_sweep(text: str, values: Sequence | None = None) -> tuple[str, list]:
    """``"KEY=V1,V2,..."`` (or ``"KEY"`` with ``values``) as (key, values), each value a
    valid rule option. Raises RuleOptionError (one line)."""
    if not isinstance(text, str):
        raise RuleOptionError(
            f"rule: {validation.short_number(repr(text))} is not a text KEY=V1,V2,..."
        )
    key, sep, listed = text.partition("=")
    key = key.strip().replace("-", "_")
    known = sorted(Rules().to_dict())
    if key not in known:
        raise RuleOptionError(f"unknown rule option {key!r} (known: {', '.join(known)})")
    if values is None:
        if not sep:
            raise RuleOptionError(f"{text!r}: no values (KEY=V1,V2,...)")
        items = [item.strip() for item in listed.split(",")]
        parsed = [Rules.parse([f"{key}={item}"]).to_dict()[key] for item in items]
    else:
        if sep:
            raise RuleOptionError(f"{text!r}: give the values either after '=' or as values")
        parsed = [Rules.from_dict({key: value}).to_dict()[key] for value in values]
    _check_values(parsed, key, RuleOptionError)
    return key, parsed


def _check_values(values: list, what: str, error: type[Exception] = StrategyError) -> None:
    if not values:
        raise error(f"{what}: no values to sweep")
    seen = set()
    for value in values:
        if value in seen:
            raise error(f"{what}: value {value} is given twice")
        seen.add(value)


def _swept_player(name: str, key: str, value: float, others: set[str]) -> Player:
    text = f"{value:g}" if float(f"{value:g}") == value else repr(float(value))
    player = make_player(f"{name}:{key}={text}")
    if player.name in others:
        player = Player(player.spec, player.params, label=f"{player.name} (swept)")
    return player


def sweep_tables(
    strategies: Sequence[StrategyLike],
    players: int,
    param: tuple[str, str, float] | None = None,
) -> list[list[Player]]:
    """The tables one value of a sweep plays (every rotation; see the module docstring).

    A parameter sweep seats the swept strategy in one seat and ``strategies`` (default
    greedy) in the others, in turn; a rule sweep seats ``strategies`` round the table."""
    entrants = [_player(s) for s in strategies] or [make_player("greedy")]
    if param is None:
        return seatings(entrants, players)
    name, key, value = param
    swept = _swept_player(name, key, value, {p.name for p in entrants})
    table = [swept] + [entrants[seat % len(entrants)] for seat in range(players - 1)]
    return seatings(table, players)


def sweep(
    param: str | None = None,
    values: Sequence | None = None,
    rule: str | None = None,
    strategies: Sequence[StrategyLike] = ("greedy",),
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    cards: CardsLike = None,
    rules: RulesLike = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    progress: ProgressOption = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Play one setting at each of a list of values, on the same seeds for every value.

    Give exactly one of ``param`` (a strategy parameter: ``"balanced:deny=0,0.5,1,2"`` or
    ``param="balanced:deny", values=[0, 0.5, 1, 2]``) or ``rule`` (a rule option:
    ``"days=4,5,6"`` or ``rule="tie_break", values=["seat", "random"]``).

    Parameter sweep: the swept strategy sits in one seat, ``strategies`` (default greedy)
    in the others, every rotation played; one row per value for the swept strategy.
    Rule sweep: ``strategies`` round the table, every rotation; one row per value and
    strategy. Columns: ``swept``, ``value``, ``strategy``, ``n`` (deals), ``win_share``,
    ``win_share_ci_low``, ``win_share_ci_high`` (Wilson), ``mean_fame``,
    ``mean_fame_ci_low``, ``mean_fame_ci_high``,
    ``balance``, ``balance_ci_low``, ``balance_ci_high`` (seat Balance, 1 - the largest
    gap between seats' win rates), ``tie_rate``, ``early_end_rate``, ``days_played``.
    ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr). ``backend``/
    ``scheduler``: where the chunks are played, as ``simulate`` takes them; same rows."""
    if (param is None) == (rule is None):
        raise validation.InputError(
            "param or rule: give exactly one (param: a strategy parameter "
            "'NAME:KEY=V1,V2,...'; rule: a rule option 'KEY=V1,V2,...')"
        )
    _check_sizes(players, games, seed, jobs, chunk_size, on_chunk, progress)
    card_set = _cards(cards)
    base_rules = resolve_rules(rules)
    entrants = validation.check_strategies(strategies or ("greedy",))
    rows = []
    if param is not None:
        total = sweep_games(entrants, players, games, parse_param_sweep(param, values))
    else:
        total = sweep_games(
            entrants, players, games, rule_values=len(parse_rule_sweep(rule, values)[1])
        )
    with (
        using_backend(backend, jobs, scheduler) as runner,
        progress_bar(progress, total) as on_games,
    ):
        told = combine(on_chunk, on_games)
        if param is not None:
            name, key, numbers = parse_param_sweep(param, values)
            swept_name = f"{name}:{key}"
            for number in numbers:
                tables = sweep_tables(entrants, players, (name, key, number))
                deals = _play(
                    tables,
                    players,
                    games,
                    seed,
                    card_set,
                    base_rules,
                    jobs,
                    chunk_size,
                    told,
                    0,
                    runner,
                )
                label = tables[0][0].name
                rows.append(_sweep_row(swept_name, number, label, deals))
        else:
            key, options = parse_rule_sweep(rule, values)
            tables = sweep_tables(entrants, players)
            for option in options:
                variant = Rules.from_dict({**base_rules.to_dict(), key: option})
                deals = _play(
                    tables,
                    players,
                    games,
                    seed,
                    card_set,
                    variant,
                    jobs,
                    chunk_size,
                    told,
                    0,
                    runner,
                )
                for label in deals.labels:
                    rows.append(_sweep_row(key, option, label, deals))
    frame = pd.DataFrame(rows)
    frame.attrs.update(
        kind="param" if param is not None else "rule",
        swept=frame["swept"].iloc[0],
        games=games,
        players=players,
        cards=describe_variant(card_set, base_rules),
    )
    return frame


def _sweep_row(swept: str, value, label: str, deals: _Deals) -> dict:
    shares = deals.strategy(label, "win_share")
    n = int(np.asarray(shares).size)
    win = proportion_ci(float(np.sum(shares)), n)  # Wilson: not zero-width at 0 or 1
    fame, fame_lo, fame_hi, _ = mean_ci(deals.strategy(label, "mean_fame"))
    fair, fair_lo, fair_hi, _ = balance_ci(deals.seat_shares())
    return {
        "swept": swept,
        "value": value,
        "strategy": label,
        "n": n,
        **ci_columns("win_share", *win),
        **ci_columns("mean_fame", fame, fame_lo, fame_hi),
        "balance": fair,
        "balance_ci_low": fair_lo,
        "balance_ci_high": fair_hi,
        **{metric: float(deals.game_values(metric).mean()) for metric in GAME_METRICS},
    }


def sweep_games(
    strategies: Sequence[StrategyLike],
    players: int,
    games: int,
    param: tuple[str, str, list[float]] | None = None,
    rule_values: int = 0,
) -> int:
    """How many games a sweep plays (for a progress bar): ``param`` as parse_param_sweep
    returns it, or the number of rule values."""
    if param is not None:
        name, key, numbers = param
        tables = sweep_tables(strategies, players, (name, key, numbers[0]))
        return games * len(numbers) * len(tables)
    return games * rule_values * len(sweep_tables(strategies, players))


# --- plot ---------------------------------------------------------------------------


def plot_sweep(frame: pd.DataFrame, path: str | os.PathLike | None = None):
    """Plot a sweep's effect with 95% CI error bars: win share and mean fame against the
    value per strategy, and seat Balance for a rule sweep. Returns the matplotlib
    ``Figure`` (shown inline in a notebook); with ``path`` it is also written there, whole
    or not at all. The figure is made without pyplot, so the caller's backend and open
    figures are left as they were."""
    from sunset_sim.analysis.report.plotting import plain_text

    _check_sweep_frame(frame)
    with plain_text():
        return _plot_sweep(frame, path)


SWEEP_PLOTTED = tuple(
    ["swept", "value", "strategy", "n"]
    + [f"{m}{end}" for m in ("win_share", "mean_fame") for end in ("", "_ci_low", "_ci_high")]
)
BALANCE_PLOTTED = ("balance", "balance_ci_low", "balance_ci_high")  # a rule sweep's third panel


def _check_sweep_frame(frame: object) -> None:
    """What ``sweep`` returns, or a one-line InputError saying what the frame lacks (a
    KeyError on 'value' said nothing of what was wrong)."""
    if not isinstance(frame, pd.DataFrame):
        raise validation.InputError(
            f"frame: expected the DataFrame that sweep() returns, got {type(frame).__name__}"
        )
    missing = [column for column in SWEEP_PLOTTED if column not in frame.columns]
    if not missing and frame.empty:
        raise validation.InputError("frame: no rows (a sweep result has one per value)")
    if not missing and _rule_sweep(frame):
        missing = [column for column in BALANCE_PLOTTED if column not in frame.columns]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise validation.InputError(
            f"frame: missing column {missing[0]!r}{more}: not a sweep result (plot_sweep "
            "draws the frame that sweep() returns)"
        )


def _rule_sweep(frame: pd.DataFrame) -> bool:
    """A rule sweep (seat Balance too), as ``frame.attrs`` says, else as its ``swept``
    column says (a parameter is named ``strategy:key``)."""
    kind = frame.attrs.get("kind")
    return kind == "rule" if kind else ":" not in str(frame["swept"].iloc[0])


def _plot_sweep(frame: pd.DataFrame, path: str | os.PathLike | None):
    from sunset_sim.analysis.report.plotting import _figure

    values = list(dict.fromkeys(frame["value"]))
    numeric = all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in values
    )
    positions = {v: (float(v) if numeric else i) for i, v in enumerate(values)}
    rule_sweep = _rule_sweep(frame)
    panels = 3 if rule_sweep else 2
    figure, axes = _figure(4.6 * panels, 3.8, ncols=panels, layout="constrained")
    # a parameter sweep is one series (its strategy label names the value)
    strategies = list(dict.fromkeys(frame["strategy"])) if rule_sweep else [None]
    spread = 0.0 if numeric or len(strategies) == 1 else 0.08
    for i, label in enumerate(strategies):
        part = frame if label is None else frame[frame["strategy"] == label]
        x = np.array([positions[v] for v in part["value"]]) + spread * (
            i - (len(strategies) - 1) / 2
        )
        for axis, column, low, high in (
            (axes[0], "win_share", "win_share_ci_low", "win_share_ci_high"),
            (axes[1], "mean_fame", "mean_fame_ci_low", "mean_fame_ci_high"),
        ):
            middle = part[column].to_numpy()
            errors = np.vstack([middle - part[low].to_numpy(), part[high].to_numpy() - middle])
            axis.errorbar(x, middle, yerr=errors, marker="o", capsize=4, label=label)
    if rule_sweep:
        games = frame.drop_duplicates("value")
        middle = games["balance"].to_numpy()
        errors = np.vstack(
            [
                middle - games["balance_ci_low"].to_numpy(),
                games["balance_ci_high"].to_numpy() - middle,
            ]
        )
        x = [positions[v] for v in games["value"]]
        axes[2].errorbar(x, middle, yerr=errors, marker="s", capsize=4, color="black")
        axes[2].set_ylabel("seat Balance (1 = fair)")
    swept = frame["swept"].iloc[0]
    titles = ("win share", "mean fame", "seat Balance")
    for axis, title in zip(axes, titles, strict=False):
        axis.set_xlabel(swept)
        axis.set_title(title)
        if not numeric:
            axis.set_xticks(list(positions.values()), [str(v) for v in values])
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("win share (95% CI)")
    axes[1].set_ylabel("mean fame (95% CI)")
    if len(strategies) > 1:
        axes[0].legend(fontsize="small")
    figure.suptitle(f"sweep of {swept}: {frame['n'].iloc[0]} deals per value, same seeds")
    if path is not None:
        import io

        from sunset_sim.files import write_atomically

        buffer = io.BytesIO()
        suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or "png"
        figure.savefig(buffer, format=suffix, dpi=110)
        write_atomically(path, buffer.getvalue())
    return figure
