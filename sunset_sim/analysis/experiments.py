"""Paired experiments: what a card is worth, and what a card edit does, on the same deals.

Associations ("win share when chosen vs not chosen") cannot value a card every strategy
always takes, and rest on small self-selected groups. An experiment changes one thing
and plays the same deals again (common random numbers), so the paired difference
measures what the change did:

- **restricted play** (Jaffe et al., "Evaluating competitive game balance with
  restricted play"): one seat may never keep plan card X when it has another choice,
  never paint landscape X or a landscape showing feature type F, never sell to
  commission X. The *value* of X is what losing access costs that seat: its win share
  (in points, 1 point = 0.01) and mean fame unrestricted minus restricted. The ban is
  data given to the kernel (``engine/kernel.py``: a per-seat mask), so no experiment
  recompiles anything. In deal g the restricted seat is ``g % players``, and every
  rotation of the table plays deal g, so every strategy is restricted in every seat.
  A deal where the restriction cannot change anything is not played again: where the
  baseline never offered the restricted seat a sale to the commission (engine output
  ``C_OFFERED``; 86% of the deals for each in the example report's field), the
  restricted game is exactly the baseline's (``FieldRun.may_differ``). The commission
  arms of a study are played together, in layers of one mask per deal
  (``play_commission_arms``), not one engine call per arm and table.
- **card edits**: commission or goal fame, plan wake-up/hike/paint/directions moved by
  a step (``cards.edit``). Card ids and deck sizes stay, so the deal stays identical
  (it depends only on the seed and the card order). A set whose commission fame was
  edited is played only on the deals where an edited commission turned up (row or
  preview) when no strategy at the tables reads unseen commissions
  (``Lab._fame_edit_deals``); the other deals' games are the unedited set's, to the bit.

The unit of every interval is the deal: a deal's value is its mean over the rotations
of the table, so values from different deals are independent; ``n`` is the number of
deals and ``games`` the number of games behind each arm.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import enums
from sunset_sim.analysis.stats import Z95
from sunset_sim.analysis.tournament import seatings
from sunset_sim.cards.edit import fame_changes
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.engine.restricted import BAN_ANY
from sunset_sim.rules.options import Rules
from sunset_sim.rules.setup import commission_order
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.runner import DEFAULT_CHUNK, iter_seatings
from sunset_sim.strategy import Player, make_player
from sunset_sim.validation import InputError

__all__ = [
    "FAMILIES",
    "FieldRun",
    "Lab",
    "Restriction",
    "ban_array",
    "paired_value",
    "play_field",
    "restricted_play",
    "restrictions_for",
    "turned_up",
    "values_frame",
]

FAMILIES = ("plan", "commission", "feature", "landscape")
POINTS = 100.0  # win share in points: 1 point = 0.01

Progress = Callable[[int], None]


@dataclass(frozen=True)
class Restriction:
    """What one seat may not take: a plan card, commission or landscape id, or a
    feature type name (family ``feature``: no landscape showing it)."""

    family: str
    card: str

    @property
    def label(self) -> str:
        return f"{self.family} {self.card}"


def restrictions_for(cards: CardSet, families: Sequence[str] = FAMILIES) -> list[Restriction]:
    """One restriction per card (or feature type) of each family, in card-file order."""
    ids = {
        "plan": [p.id for p in cards.plans],
        "commission": [c.id for c in cards.commissions],
        "feature": list(cards.features),
        "landscape": [land.id for land in cards.landscapes],
    }
    unknown = [f for f in families if f not in ids]
    if unknown:
        raise InputError(f"family: {unknown[0]!r} is not one of {', '.join(FAMILIES)}")
    return [Restriction(family, card) for family in families for card in ids[family]]


def ban_columns(cards: CardSet, restriction: Restriction) -> list[int]:
    """The columns of a kernel ``banned`` row (engine/restricted.py, ban_offsets) this restriction sets."""
    n_plan, n_land = len(cards.plans), len(cards.landscapes)
    plan_column, land_column, comm_column = 1, 1 + n_plan, 1 + n_plan + n_land
    family, card = restriction.family, restriction.card
    if family == "plan":
        indices = [i for i, p in enumerate(cards.plans) if p.id == card]
        columns = [plan_column + i for i in indices]
    elif family == "commission":
        indices = [i for i, c in enumerate(cards.commissions) if c.id == card]
        columns = [comm_column + i for i in indices]
    elif family == "landscape":
        indices = [i for i, land in enumerate(cards.landscapes) if land.id == card]
        columns = [land_column + i for i in indices]
    elif family == "feature":
        if card not in cards.features:
            raise InputError(f"feature: {card!r} is not a feature type of {cards.name}")
        f = cards.features.index(card)
        columns = [land_column + i for i, land in enumerate(cards.landscapes) if land.features[f]]
    else:
        raise InputError(f"family: {family!r} is not one of {', '.join(FAMILIES)}")
    if not columns:
        raise InputError(f"{family}: no card {card!r} in {cards.name}")
    return columns


def ban_array(cards: CardSet, players: int, restriction: Restriction | None) -> np.ndarray | None:
    """The kernel's ``banned`` array for one restriction: in game g, seat ``g % players``
    is restricted (one mask per seat, the kernel picks ``g % players``)."""
    if restriction is None:
        return None
    width = 1 + len(cards.plans) + len(cards.landscapes) + len(cards.commissions)
    banned = np.zeros((players, players, width), dtype=np.uint8)
    columns = ban_columns(cards, restriction)
    for seat in range(players):
        banned[seat, seat, BAN_ANY] = 1
        banned[seat, seat, columns] = 1
    return banned


# --- playing a field ------------------------------------------------------------------

# The raw arrays a baseline keeps to count card use (FieldRun.raw).
KEPT = ("plan", "commission", "painted", "position", "goal_flags", "goal")


@dataclass
class FieldRun:
    """Every seat's win share and fame in deals first_game .. first_game + games - 1 at
    every rotation of the table, and (``keep``) the raw arrays to count card use."""

    first_game: int
    players: int
    labels: list[list[str]]  # per table, the strategy label of each seat
    share: np.ndarray  # float64 (tables, games, players)
    fame: np.ndarray  # float64 (tables, games, players)
    raw: list[dict] = field(default_factory=list)  # per table: the KEPT arrays
    # with the KEPT arrays: (tables, games, commissions) int8, the seats (bit s: seat s)
    # the game offered a sale to the commission (enums.C_OFFERED)
    offered: np.ndarray | None = None
    # with the KEPT arrays: (tables, games, commissions) bool, the game turned it up (in
    # the row or as the preview, at any time: a superset of what any decision saw)
    seen: np.ndarray | None = None

    @property
    def games(self) -> int:
        return self.share.shape[1]

    def restricted_seat(self) -> np.ndarray:
        """Per deal, the seat restricted in it (ban_array)."""
        return (self.first_game + np.arange(self.games)) % self.players

    def seat_values(self, values: np.ndarray) -> np.ndarray:
        """(tables, games) values of each deal's restricted seat."""
        return values[:, np.arange(self.games), self.restricted_seat()]

    def strategy_mask(self, label: str) -> np.ndarray:
        """(tables, games): the restricted seat plays ``label`` there."""
        seated = np.array([[seat == label for seat in table] for table in self.labels])
        # (tables, players) -> (tables, games), laid out row by row as before: the sums
        # over tables (_per_deal) then add in the same order, to the bit
        return np.ascontiguousarray(seated[:, self.restricted_seat()])

    def may_differ(self, cards: CardSet, restriction: Restriction) -> np.ndarray | None:
        """(tables, games) bool: the deals whose game under ``restriction`` may differ
        from this unrestricted run's; None when any may (no way to tell).

        A restriction only removes options (engine/restricted.py: the options left keep
        their order), so until the restricted seat is offered a banned one the game
        goes exactly as without it. So where this game never offered the restricted seat
        a sale to the commission (C_OFFERED), the restricted game is this game, to the
        bit. (A deal not played here reads -1, every seat: it may differ.)"""
        if restriction.family != "commission" or self.offered is None:
            return None
        indices = [i for i, c in enumerate(cards.commissions) if c.id == restriction.card]
        seats = self.offered[:, :, indices].astype(np.int64)
        return ((seats >> self.restricted_seat()[None, :, None]) & 1).any(axis=2)


def play_field(
    tables: Sequence[Sequence[Player]],
    games: int,
    seed: int,
    cards: CardSet,
    rules: Rules,
    first_game: int = 0,
    banned: np.ndarray | None = None,
    jobs: int | None = None,
    keep: bool = False,
    progress: Progress | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    backend: BackendOption = "local",
    only: np.ndarray | None = None,
    known: FieldRun | None = None,
) -> FieldRun:
    """Play deals first_game .. first_game + games - 1 at every table (rotation), on
    ``backend`` (``runner.iter_seatings``: the tables side by side on a cluster).

    ``only`` (tables, games) bool with ``known``: play just those deals; the others'
    share and fame (and with ``keep`` their kept arrays) are ``known``'s (a run whose
    games there are these games)."""
    players = len(tables[0])
    entrants = [player for table in tables for player in table]
    share = np.zeros((len(tables), games, players))
    fame = np.zeros((len(tables), games, players))
    kept = [{name: [] for name in KEPT} for _ in tables]  # per table: the KEPT arrays
    offered = [[] for _ in tables]
    entered = [[] for _ in tables]  # the commission joined the row at some time
    for t, batch, _ in iter_seatings(
        games,
        players,
        [list(table) for table in tables],
        seed,
        cards,
        rules,
        jobs,
        chunk_size,
        first_game,
        field=entrants,
        banned=banned,
        progress=progress,
        backend=backend,
        only=None if only is None else list(only),
    ):
        rows = slice(batch.first_game - first_game, batch.first_game - first_game + len(batch.game))
        seat = batch.seat
        with np.errstate(invalid="ignore"):  # rows left out (only) have no winners yet
            share[t, rows] = seat[:, :, enums.R_WON] / seat[:, :, enums.R_WINNERS]
        fame[t, rows] = seat[:, :, enums.R_FAME]
        if keep:
            kept[t]["plan"].append(batch.plan)
            kept[t]["commission"].append(batch.commission[:, :, enums.C_SEAT])
            kept[t]["painted"].append(batch.painted)
            kept[t]["position"].append(batch.position)
            kept[t]["goal_flags"].append(batch.day[:, :, :, enums.D_GOAL])
            kept[t]["goal"].append(batch.goal)
            offered[t].append(batch.commission[:, :, enums.C_OFFERED])
            entered[t].append(batch.commission[:, :, enums.C_SHOWN] >= 1)
    skipped = None if only is None else ~np.asarray(only, dtype=bool)
    if skipped is not None:  # the deals left out are the known run's games
        share[skipped] = known.share[skipped]
        fame[skipped] = known.fame[skipped]
    labels = [[player.name for player in table] for table in tables]
    if not keep:
        return FieldRun(first_game, players, labels, share, fame)
    raw = [{name: np.concatenate(parts) for name, parts in arrays.items()} for arrays in kept]
    seats_offered = np.stack([np.concatenate(parts) for parts in offered])
    seen = turned_up(
        np.stack([np.concatenate(parts) for parts in entered]), cards, seed, first_game
    )
    if skipped is not None:
        for t, arrays in enumerate(raw):
            for name, values in arrays.items():
                values[skipped[t]] = known.raw[t][name][skipped[t]]
        seats_offered[skipped] = known.offered[skipped]
        seen[skipped] = known.seen[skipped]
    return FieldRun(first_game, players, labels, share, fame, raw, seats_offered, seen)


def turned_up(entered: np.ndarray, cards: CardSet, seed: int, first_game: int) -> np.ndarray:
    """(tables, games, commissions): ``entered`` (joined the row at some time) or the
    preview when the game ended. The row takes the commission deck in order (R-SET-2,
    R-CLEAN-4), so the commissions that joined it are the deck's first m and the preview
    is the deck's card m (``rules.setup.commission_order``)."""
    n_comm = entered.shape[2]
    decks = _commission_decks(len(cards.landscapes), n_comm, seed, first_game, entered.shape[1])
    seen = entered.copy()
    joined = entered.sum(axis=2)  # (tables, games)
    table, deal = np.nonzero(joined < n_comm)
    seen[table, deal, decks[deal, joined[table, deal]]] = True
    return seen


@functools.lru_cache(maxsize=8)
def _commission_decks(n_land: int, n_comm: int, seed: int, first_game: int, games: int):
    """(games, commissions) int64: each deal's commission deck (it depends on the deck
    sizes only), once per lab rather than once per card set played."""
    decks = [commission_order(n_land, n_comm, seed, first_game + g) for g in range(games)]
    return np.array(decks, dtype=np.int64).reshape(games, n_comm)


def play_commission_arms(
    tables: Sequence[Sequence[Player]],
    seed: int,
    cards: CardSet,
    rules: Rules,
    base: FieldRun,
    restrictions: Sequence[Restriction],
    jobs: int | None = None,
    backend: BackendOption = "local",
) -> dict[Restriction, FieldRun]:
    """The runs of several restrictions whose deals ``base.may_differ`` tells, each the
    run ``play_field(..., banned=ban_array(...), only=may_differ, known=base)`` gives,
    from a few engine calls per table instead of one per arm (each call costs about
    30 us: a new workspace, cold caches).

    The kernel restricts game g by ``banned[g % len(banned)]``: with one mask per deal,
    each deal can be restricted its own way. So deal g's arms are put in layers (its
    first arm in layer 0, its second in layer 1, ...), and each layer is one run over
    the deals: game g with the mask its arm in that layer gives seat ``g % players``
    (the row ``ban_array`` gives that seat), the same game as in that arm's own run.
    Deals with fewer arms are left out of the later layers (``only``)."""
    players, games, first = base.players, base.games, base.first_game
    may = np.stack([base.may_differ(cards, r) for r in restrictions], axis=2)  # (T, G, R)
    arms = np.cumsum(may, axis=2) - 1  # per (table, deal, arm): its layer where it plays
    masks = np.stack([ban_array(cards, players, r) for r in restrictions])  # (R, P, P, W)
    share = {r: base.share.copy() for r in restrictions}
    fame = {r: base.fame.copy() for r in restrictions}
    deals = np.arange(games)
    slot = (first + deals) % games  # the banned row game first + g reads
    seat = (first + deals) % players  # its restricted seat (ban_array)
    entrants = [player for table in tables for player in table]
    for layer in range(int(may.sum(axis=2).max(initial=0))):
        # per (table, deal): the arm played in this layer, -1 where none is left
        which = np.where(may & (arms == layer), np.arange(len(restrictions)), -1).max(axis=2)
        bans = []
        for t in range(len(tables)):
            banned = np.zeros((games, *masks.shape[2:]), dtype=np.uint8)
            played = which[t] >= 0
            banned[slot[played]] = masks[which[t, played], seat[played]]
            bans.append(banned)
        for t, batch, _ in iter_seatings(
            games, players, [list(table) for table in tables], seed, cards, rules, jobs,
            DEFAULT_CHUNK, first, field=entrants, backend=backend, only=list(which >= 0),
            bans=bans,
        ):  # fmt: skip
            rows = np.arange(batch.first_game - first, batch.first_game - first + len(batch.game))
            for index in np.unique(which[t, rows]):
                if index < 0:
                    continue
                chosen = rows[which[t, rows] == index]
                result = batch.seat[chosen - rows[0]]
                share[restrictions[index]][t, chosen] = (
                    result[:, :, enums.R_WON] / result[:, :, enums.R_WINNERS]
                )
                fame[restrictions[index]][t, chosen] = result[:, :, enums.R_FAME]
    labels = [[player.name for player in table] for table in tables]
    return {r: FieldRun(first, players, labels, share[r], fame[r]) for r in restrictions}


# --- paired values --------------------------------------------------------------------


def _mean_ci(
    values: np.ndarray, z: float = Z95, bound: float | None = None, games: int = 0
) -> tuple[float, float, float]:
    """Mean and normal 95% CI of per-deal values. With ``bound`` (no game moves the
    mean by more than ``bound`` / ``games``: a seat's win share moves by at most 1 in a
    game) and every value the same, the CI is not zero-width: a restriction that changed
    no game's outcome in a few games has not shown that it never would. The half-width
    is then ``bound`` times the Wilson upper limit of the share of games it changes
    (none of ``games`` seen: z^2 / (games + z^2); about 3.7 points of win share on 100
    games, 0.01 points on the 28,000 of 200 deals x 140 rotations)."""
    values = values[np.isfinite(values)]
    n = values.size
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = z * float(values.std(ddof=1)) / math.sqrt(n)
    if bound is not None and float(values.max()) == float(values.min()):
        half = max(half, bound * z * z / (max(games, n) + z * z))
    return mean, mean - half, mean + half


def _per_deal(values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """(tables, games) -> per-deal mean over the tables selected by ``mask``."""
    if mask is None:
        return values.mean(axis=0)
    counts = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, (values * mask).sum(axis=0) / counts, np.nan)


def paired_value(
    base: FieldRun, restricted: FieldRun, label: str | None = None, used: bool = True
) -> dict[str, float]:
    """What the restriction cost its seat, base minus restricted, per deal: win share in
    points and fame, each with its 95% CI; ``label`` limits it to one strategy's seats.
    ``used``: the seat used the card in some base game. A card nobody used is worth
    exactly nothing in these games (the restricted games are the base games), and its
    CI stays 0 to 0; one that was used but changed no game's outcome gets ``_mean_ci``'s
    bound (used in 7% of 50 deals, no outcome changed: not shown to be worth 0)."""
    mask = None if label is None else base.strategy_mask(label)
    share = _per_deal(base.seat_values(base.share) - restricted.seat_values(restricted.share), mask)
    fame = _per_deal(base.seat_values(base.fame) - restricted.seat_values(restricted.fame), mask)
    games = int(base.share.shape[0] * base.games if mask is None else mask.sum())
    value, lo, hi = _mean_ci(share * POINTS, bound=POINTS if used else None, games=games)
    fame_cost, fame_lo, fame_hi = _mean_ci(fame)
    n = int(np.isfinite(share).sum())
    return {
        "value": value,
        "value_ci_low": lo,
        "value_ci_high": hi,
        "fame_cost": fame_cost,
        "fame_cost_ci_low": fame_lo,
        "fame_cost_ci_high": fame_hi,
        "n": n,
        "games": games,
    }


def use_rate(
    cards: CardSet, base: FieldRun, restriction: Restriction, label: str | None = None
) -> float:
    """How often the restricted seat used the card in the unrestricted games: kept the
    plan card on some day, completed the commission, painted the landscape (or one with
    the feature type); ``label`` limits it to the deals where that seat plays that
    strategy (NaN where none does, or without the raw records)."""
    if not base.raw:
        return math.nan
    seats = base.restricted_seat()
    rows = np.arange(base.games)
    used = []
    for raw in base.raw:
        if restriction.family == "plan":
            index = [p.id for p in cards.plans].index(restriction.card)
            used.append((raw["plan"][rows, seats] == index).any(axis=1))
        elif restriction.family == "commission":
            index = [c.id for c in cards.commissions].index(restriction.card)
            used.append(raw["commission"][rows, index] == seats)
        else:
            n_plan = len(cards.plans)
            columns = [c - 1 - n_plan for c in ban_columns(cards, restriction)]
            painted = raw["painted"][rows, seats]  # (games, words) uint64
            hit = np.zeros(base.games, dtype=bool)
            for land in columns:
                hit |= (painted[:, land // 64] >> np.uint64(land % 64)) & np.uint64(1) > 0
            used.append(hit)
    used_by_deal = np.array(used)  # (tables, games)
    if label is not None:
        used_by_deal = used_by_deal[base.strategy_mask(label)]
    return float(np.mean(used_by_deal)) if used_by_deal.size else math.nan


# --- restricted play ------------------------------------------------------------------


def _cards(cards: CardSet | str | os.PathLike | None) -> CardSet:
    return cards if isinstance(cards, CardSet) else load_cards(cards)


def _players(strategies: Sequence[str | Player]) -> list[Player]:
    entrants = [s if isinstance(s, Player) else make_player(s) for s in strategies]
    if not entrants:
        raise InputError("strategies: give at least one strategy")
    return entrants


def card_fame(cards: CardSet, restriction: Restriction) -> float:
    if restriction.family == "commission":
        return float(next(c.fame for c in cards.commissions if c.id == restriction.card))
    return math.nan


def value_rows(
    cards: CardSet,
    base: FieldRun,
    restricted: FieldRun,
    restriction: Restriction,
    by_strategy: bool = True,
) -> list[dict]:
    """Rows of ``restricted_play``'s frame for one restriction: all seats, then per strategy."""
    common = {
        "family": restriction.family,
        "card": restriction.card,
        "fame": card_fame(cards, restriction),
        "use_rate": use_rate(cards, base, restriction),
    }
    used = not common["use_rate"] == 0.0  # (NaN, not known: taken as used)
    rows = [{**common, "strategy": "all", **paired_value(base, restricted, used=used)}]
    if by_strategy:
        labels = sorted({label for table in base.labels for label in table})
        if len(labels) > 1:
            for label in labels:
                # its own seats' use: a card only one strategy uses is worth exactly
                # nothing to the others (NaN, not known: taken as used)
                rate = use_rate(cards, base, restriction, label)
                value = paired_value(base, restricted, label, not rate == 0.0)
                rows.append({**common, "strategy": label, "use_rate": rate, **value})
    for row in rows:
        # per fame point; a fame-0 commission's whole value counts as its one point, so
        # that one nobody sells for nothing is below the others (it had no value at all,
        # and no target could name it)
        fame = row["fame"]
        for key in ("value", "value_ci_low", "value_ci_high"):
            row[f"{key.replace('value', 'value_per_fame')}"] = (
                row[key] / max(fame, 1.0) if fame >= 0 else math.nan
            )
    return rows


VALUE_COLUMNS = [
    "family",
    "card",
    "strategy",
    "fame",
    "value",
    "value_ci_low",
    "value_ci_high",
    "value_per_fame",
    "value_per_fame_ci_low",
    "value_per_fame_ci_high",
    "fame_cost",
    "fame_cost_ci_low",
    "fame_cost_ci_high",
    "use_rate",
    "n",
    "games",
]


def restricted_play(
    strategies: Sequence[str | Player] = ("greedy",),
    players: int = 4,
    games: int = 5000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    families: Sequence[str] = ("plan", "commission", "feature"),
    restrictions: Sequence[Restriction] | None = None,
    jobs: int | None = None,
    first_game: int = 0,
    progress: Progress | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """The value of every card of ``families`` (or of the ``restrictions`` given): what a
    seat loses when it may not take it, paired on the same deals.

    One row per restriction and strategy ("all" = every seat); ``value`` is the win-share
    cost in points with its 95% CI, ``value_per_fame`` the same per fame point
    (commissions; at fame 0 the whole value), ``fame_cost`` the mean fame lost, ``use_rate`` how often the seat used
    the card when allowed, ``n`` the deals and ``games`` the games per arm.
    ``backend``/``scheduler``: where the chunks are played, as ``simulate`` takes them."""
    card_set = _cards(cards)
    rules = rules or Rules()
    tables = seatings(_players(strategies), players)
    chosen = (
        list(restrictions) if restrictions is not None else restrictions_for(card_set, families)
    )
    with using_backend(backend, jobs, scheduler) as runner:
        lab = Lab(tables, games, seed, rules, first_game, jobs, progress, backend=runner)
        frame = values_frame(lab, card_set, chosen)
    frame.attrs.update(games=games, players=players, seed=seed, tables=len(tables))
    return frame


@dataclass
class Lab:
    """One field on the deals first_game .. first_game + games - 1: plays the baseline and
    the restricted arms of any card set with the same deal, each once (cached by the
    set's content hash), so that a study, its search and its verification share runs."""

    tables: list[list[Player]]
    games: int
    seed: int
    rules: Rules
    first_game: int
    jobs: int | None
    progress: Callable[[int], None] | None
    _runs: dict = field(default_factory=dict)
    backend: BackendOption = "local"  # an open one (run.backends.using_backend), or a name
    _sets: dict = field(default_factory=dict)  # content hash -> the set of its runs

    def base(self, cards: CardSet) -> FieldRun:
        return self._run(cards, None)

    def restricted(self, cards: CardSet, restriction: Restriction) -> FieldRun:
        return self._run(cards, restriction)

    def _run(self, cards: CardSet, restriction: Restriction | None) -> FieldRun:
        """The field on these deals, played once per card set and restriction (None: the
        unrestricted baseline, the only arm whose per-seat details are kept)."""
        key = (cards.content_hash, restriction)
        if key not in self._runs:
            banned = None
            if restriction is not None:
                banned = ban_array(cards, len(self.tables[0]), restriction)
                base = self.base(cards)  # the deals the restriction cannot touch are its
                only = base.may_differ(cards, restriction)
            else:
                only, base = self._fame_edit_deals(cards)
            self._sets[cards.content_hash] = cards
            self._runs[key] = play_field(
                self.tables, self.games, self.seed, cards, self.rules, self.first_game,
                banned, self.jobs, restriction is None, self.progress, backend=self.backend,
                only=only, known=base,
            )  # fmt: skip
        return self._runs[key]

    def _fame_edit_deals(self, cards: CardSet) -> tuple[np.ndarray | None, FieldRun | None]:
        """For a set that differs from one played here only in commission fame: the
        deals where a changed commission turned up, and that set's baseline (whose games
        the other deals are, to the bit, when no strategy at the tables reads unseen
        commissions: ``StrategySpec.reads_unseen_commissions``). (None, None) otherwise."""
        if any(player.spec.reads_unseen_commissions for table in self.tables for player in table):
            return None, None
        for (content_hash, restriction), run in self._runs.items():
            if restriction is None and run.seen is not None:
                changed = fame_changes(self._sets[content_hash], cards)
                if changed:
                    return run.seen[:, :, changed].any(axis=2), run
        return None, None

    def prefetch(self, cards: CardSet, restrictions: Sequence[Restriction]) -> None:
        """Play now, together, the commission arms of ``restrictions`` not played yet
        (``play_commission_arms``: a few engine calls per table instead of one per
        arm); the other arms are played when asked for."""
        base = self.base(cards)
        wanted = [
            r
            for r in dict.fromkeys(restrictions)
            if (cards.content_hash, r) not in self._runs and base.may_differ(cards, r) is not None
        ]
        if len(wanted) < 2:
            return
        runs = play_commission_arms(
            self.tables, self.seed, cards, self.rules, base, wanted, self.jobs, self.backend
        )
        for restriction, run in runs.items():
            self._runs[cards.content_hash, restriction] = run
        if callable(self.progress):  # as many games as the arms one by one tell
            self.progress(len(wanted) * base.games * len(self.tables))

    def value(self, cards: CardSet, restriction: Restriction) -> dict:
        """The all-seats row of restricted_play for this card on these deals."""
        base = self.base(cards)
        return value_rows(cards, base, self.restricted(cards, restriction), restriction, False)[0]

    def cost(self, cards: CardSet, restriction: Restriction) -> np.ndarray:
        """Per-deal win-share cost in points (for paired differences between sets)."""
        base, run = self.base(cards), self.restricted(cards, restriction)
        return _per_deal(base.seat_values(base.share) - run.seat_values(run.share)) * POINTS

    def forget(self, cards: CardSet) -> None:
        """Drop the runs of an edited set once measured (memory stays flat)."""
        for key in [k for k in self._runs if k[0] == cards.content_hash]:
            del self._runs[key]
        self._sets.pop(cards.content_hash, None)


def values_frame(
    lab: Lab, cards: CardSet, restrictions: Sequence[Restriction], by_strategy: bool = True
) -> pd.DataFrame:
    """``restricted_play``'s frame for these restrictions, from the lab's runs."""
    base = lab.base(cards)
    lab.prefetch(cards, restrictions)
    rows = []
    for restriction in restrictions:
        rows.extend(
            value_rows(cards, base, lab.restricted(cards, restriction), restriction, by_strategy)
        )
    return pd.DataFrame(rows, columns=VALUE_COLUMNS)
