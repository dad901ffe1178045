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
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import enums, validation
from sunset_sim.analysis.paired_values import (
    POINTS,
    VALUE_COLUMNS,
    _per_deal,
    paired_value,
    value_rows,
)
from sunset_sim.analysis.restrictions import (
    FAMILIES,
    Restriction,
    ban_array,
    restrictions_for,
)
from sunset_sim.analysis.tournament import check_distinct, seatings
from sunset_sim.cards.edit import fame_changes
from sunset_sim.cards.model import CardSet
from sunset_sim.rules.options import Rules
from sunset_sim.rules.setup import commission_order
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.runner import DEFAULT_CHUNK, iter_seatings
from sunset_sim.strategy import Player

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


Progress = Callable[[int], None]


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


# --- restricted play ------------------------------------------------------------------


def restricted_play(
    strategies: Sequence[str | Player] = ("greedy",),
    players: int = 4,
    games: int = 5000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
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
    ``backend``/``scheduler``: where the chunks are played, as ``simulate`` takes them.
    Inputs are held to the command line's limits (``InputError``, one line naming the
    argument)."""
    players = validation.check_players(players)
    games = validation.check_games(games)
    seed = validation.check_seed(seed)
    first_game = validation.check_seed(first_game, "first_game")
    jobs = validation.check_jobs(jobs)
    rules = validation.as_rules(rules)
    card_set = validation.as_cards(cards, players=players, days=rules.days)
    entrants = validation.check_strategies(strategies)
    check_distinct(entrants)
    tables = seatings(entrants, players)
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
