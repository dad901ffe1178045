"""Playing one game on the reference engine with strategies and seeded random streams."""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence

import numba
import numpy as np

from sunset_sim import validation
from sunset_sim.cards.loader import check_playable
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables, build_tables
from sunset_sim.engine.compiling import not_compilable
from sunset_sim.engine.rng import new_strategy_stream
from sunset_sim.enums import (
    DECIDE_HIKE,
    DECIDE_PAINT,
    DECIDE_PLAN,
    DECIDE_SALE,
    STREAM_CHANCE,
    STREAM_SETUP,
)
from sunset_sim.observation import observe, option_rows
from sunset_sim.rng import Stream
from sunset_sim.rules import plan
from sunset_sim.rules.game import GameResult, play_game
from sunset_sim.rules.options import Rules
from sunset_sim.rules.setup import SetupOrders, shuffled_orders
from sunset_sim.rules.state import GameState
from sunset_sim.strategy import IllegalChoiceError, Player, StrategyRaisedError


class StrategyDecider:
    """Choices from each seat's strategy, chance from the game's counter-based streams.

    ``banned``: restricted play as the kernel plays it (engine/kernel.py): this game's
    row ``banned[game_index % len(banned)]`` says per seat which plan cards, landscapes
    and commissions the seat may not take; the strategy sees only the options left, in
    their canonical order (a plan card only when another choice is left).

    ``offered[c]``: the seats (bit s: seat s) whose sale options listed commission c,
    before any ban (absent: none): the fast engine's ``C_OFFERED`` output, for parity."""

    def __init__(
        self,
        players: list[Player],
        tables: CardTables,
        seed: int,
        game_index: int,
        banned: np.ndarray | None = None,
    ):
        self.players = players
        # one writable copy per seat and game, as the fast engine's batch has (a Player's
        # own vector is read-only, and numba would compile decide again for one)
        self.params = [player.params.copy() for player in players]
        # the strategies' own copy, as the docs say: a decide that wrote to the tables it
        # was handed changed the game played and scored (the fast engine's are read-only)
        self.tables = tables and CardTables(*(np.array(array, copy=True) for array in tables))
        self.bans = _seat_bans(banned, game_index, len(players), tables)
        self.setup = Stream(seed, game_index, STREAM_SETUP)
        self.chance = Stream(seed, game_index, STREAM_CHANCE)
        self.streams = [new_strategy_stream(seed, game_index, s) for s in range(len(players))]
        self.offered: dict[int, int] = {}  # commission index -> seats (bits); absent: none

    def _ask(self, kind: int, state: GameState, seat: int, rows: list, hand=None) -> int:
        if len(rows) == 1:  # a forced choice is not put to the strategy (as in the kernel)
            return 0
        obs = observe(state, seat, hand)
        options = option_rows(rows)
        player = self.players[seat]
        try:
            answer = player.spec.decide(
                kind, obs, options, len(rows), self.params[seat], self.streams[seat], self.tables
            )
        except numba.core.errors.NumbaError as error:  # decide compiled here, for this call
            failure = not_compilable(player.spec, error)
            if failure is error:  # not a plug-in: a bug of this project, whole
                raise
            raise failure from None
        except Exception as error:  # a bug in that strategy: named in one line
            raise StrategyRaisedError.of(player.name, player.spec.decide, error) from error
        if isinstance(answer, bool) or not isinstance(answer, numbers.Integral):
            raise IllegalChoiceError.of(player.name, player.spec.decide, answer, len(rows))
        if not 0 <= answer < len(rows):  # as the fast engine says it
            raise IllegalChoiceError.of(player.name, player.spec.decide, int(answer), len(rows))
        return int(answer)

    def setup_orders(self, cards: CardSet, n_players: int) -> SetupOrders:
        return shuffled_orders(cards, n_players, self.setup)

    def keep_plan(self, state: GameState, seat: int, hand: list[int]) -> int:
        plans = self.bans[seat][0]
        allowed = [card for card in hand if card not in plans] or hand
        shown = allowed + [card for card in hand if card not in allowed]
        return allowed[self._ask(DECIDE_PLAN, state, seat, [(card,) for card in allowed], shown)]

    def turn_order(self, state: GameState) -> list[int]:
        """R-ORD-2: one random seat permutation a day, drawn under every tie-break (by seat
        it decides nothing), so that the game's later draws (the landscape reshuffles,
        R-CLEAN-2) are those of the same deal under any tie-break: ``tie_break=seat`` drew
        none, and a paired comparison counted reshuffle noise as its effect."""
        permutation = list(range(state.n_players))
        self.chance.shuffle(permutation)
        return plan.turn_order(state, permutation)

    def hike(self, state: GameState, seat: int, options: list[tuple[int, int]]) -> tuple[int, int]:
        from sunset_sim.rules.hike import hike_path

        start = state.players[seat].position
        rows = [(d, s, hike_path(start, d, s)[-1]) for d, s in options]
        return options[self._ask(DECIDE_HIKE, state, seat, rows)]

    def paint(self, state: GameState, seat: int, options: list[list[int]]) -> list[int]:
        lands = self.bans[seat][1]
        if lands:
            options = [cells for cells in options if not any(state.grid[c] in lands for c in cells)]
        return options[self._ask(DECIDE_PAINT, state, seat, options)]

    def sale(self, state: GameState, seat: int, options: list[tuple[int, list[int]]]):
        for commission, _ in options:
            self.offered[commission] = self.offered.get(commission, 0) | 1 << seat
        commissions = self.bans[seat][2]
        if commissions:
            options = [option for option in options if option[0] not in commissions]
        rows = [(-1,)] + [(commission, *paintings) for commission, paintings in options]
        index = self._ask(DECIDE_SALE, state, seat, rows)
        return None if index == 0 else options[index - 1]

    def reshuffle(self, state: GameState, discard: list[int]) -> list[int]:
        self.chance.shuffle(discard)
        return discard


def _seat_bans(
    banned: np.ndarray | None, game_index: int, n_players: int, tables: CardTables
) -> list[tuple[set[int], set[int], set[int]]]:
    """Per seat, the banned plan card, landscape and commission indices of this game."""
    empty = [(set(), set(), set()) for _ in range(n_players)]
    if banned is None:
        return empty
    row = np.asarray(banned)[game_index % len(banned)]
    n_plan, n_land = tables.plan_wake.shape[0], tables.land_icons.shape[0]
    n_comm = tables.comm_fame.shape[0]
    bans = []
    for seat in range(n_players):
        if not row[seat, 0]:
            bans.append(empty[seat])
            continue
        columns = row[seat]
        bans.append(
            (
                {i for i in range(n_plan) if columns[1 + i]},
                {i for i in range(n_land) if columns[1 + n_plan + i]},
                {i for i in range(n_comm) if columns[1 + n_plan + n_land + i]},
            )
        )
    return bans


def _checked_tables(tables: object, cards: CardSet) -> CardTables:
    """``tables`` if they are this card set's (``build_tables(cards)``), else InputError:
    another set's tables index past their own cards mid-game."""
    if tables is None:
        return build_tables(cards)
    if not isinstance(tables, CardTables):
        raise validation.InputError(
            f"tables: {type(tables).__name__}, not the CardTables of build_tables(cards)"
        )
    sizes = (
        ("plan cards", tables.plan_wake, cards.plans),
        ("landscapes", tables.land_icons, cards.landscapes),
        ("commissions", tables.comm_fame, cards.commissions),
        ("goals", tables.goal_kind, cards.goals),
    )
    from sunset_sim.engine.batch import check_tables  # (the fast engine: imported late)

    for name, table, cards_of_kind in sizes:
        if np.shape(table)[:1] != (len(cards_of_kind),):
            raise validation.InputError(
                f"tables: {np.shape(table)[0] if np.ndim(table) else 0} {name} where the card "
                f"set has {len(cards_of_kind)}; build them with build_tables(cards)"
            )
    try:
        return check_tables(tables)
    except ValueError as error:
        raise validation.InputError(f"tables: {error}") from None


def _checked_bans(banned: object, n_players: int, tables: CardTables) -> np.ndarray | None:
    """``banned`` as ``engine.batch.run_games`` takes it (0/1 flags, [masks, players,
    columns]), else InputError naming the problem."""
    if banned is None:
        return None
    array = np.asarray(banned)
    if array.dtype.kind not in "biuf":
        raise validation.InputError(
            f"banned: {array.dtype} values; give 0/1 flags (uint8 or bool), "
            "[masks, players, columns]"
        )
    if not np.isin(array, (0, 1)).all():
        raise validation.InputError("banned: values other than 0 and 1; give 0/1 flags")
    from sunset_sim.engine.batch import check_bans  # (the fast engine: imported late)

    try:
        return check_bans(array, n_players, tables)
    except ValueError as error:
        raise validation.InputError(str(error)) from None


def play_reference(
    cards: CardSet | str | os.PathLike | None,
    players: Sequence[Player | str],
    seed: int = 0,
    game_index: int = 0,
    rules: Rules | Mapping | Sequence[str] | None = None,
    tables: CardTables | None = None,
    on_event=None,
    banned: np.ndarray | None = None,
) -> GameResult:
    """One game on the reference engine; ``players`` has one entry per seat (a Player or
    a strategy text). ``banned``: restricted play, as ``engine.batch.run_games`` takes it.
    Inputs are held to the CLI's limits (``InputError``); ``rules`` may be a dict."""
    rules = validation.as_rules(rules)
    players = validation.check_strategies(players, "players")
    validation.check_players(len(players), "players (one per seat)")
    cards = validation.as_cards(cards)
    # enough cards of each kind for this many players and days (R-SET-1, R-SET-2,
    # R-PLAN-3), refused here rather than a RuleViolation mid-set-up
    problems = check_playable(cards, len(players), rules.days)
    if problems:
        raise validation.InputError(problems[0])
    seed = validation.check_seed(seed)  # a numpy seed as an int: the same game as seed=5
    # 0 to 2**64 - 1, as a seed: a larger index wrapped onto game 0's deal
    game_index = validation.check_seed(game_index, "game_index")
    validation.check_callback(on_event, "on_event")
    tables = _checked_tables(tables, cards)
    banned = _checked_bans(banned, len(players), tables)
    decider = StrategyDecider(players, tables, seed, game_index, banned)
    meta = {"seed": seed, "game_index": game_index, "strategies": [p.name for p in players]}
    return play_game(cards, rules, len(players), decider, tables, meta, on_event)


__all__ = ["StrategyDecider", "play_reference"]
