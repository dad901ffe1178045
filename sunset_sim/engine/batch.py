"""Python side of the fast engine: arrays in, arrays out, for a range of game indices.

Each game's randomness depends only on (seed, game index), so any split of a batch
into chunks or jobs gives the same games.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields

import numba
import numpy as np

from sunset_sim import enums
from sunset_sim.cards.tables import CardTables
from sunset_sim.engine import ask, compiling, decisions, kernel, restricted
from sunset_sim.engine.compiling import lineup
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import (
    IllegalChoiceError,
    Player,
    StrategyFault,
    StrategyRaisedError,
    StrategySpec,
    plugin_file,
)


@dataclass
class BatchArrays:
    """The raw results of games first_game .. first_game + n - 1."""

    first_game: int
    seat: np.ndarray  # int32 [n, P, enums.SEAT_COLUMNS]
    game: np.ndarray  # int32 [n, enums.GAME_COLUMNS]
    plan: np.ndarray  # int32 [n, P, days]: plan card index kept each day, -1 if not played
    position: np.ndarray  # int32 [n, P, days]: turn position each day, -1 if not played
    painted: np.ndarray  # uint64 [n, P, words]: bitmask over landscape indices
    day: np.ndarray  # int32 [n, P, days, enums.DAY_COLUMNS]: fame, cards painted, goal flags
    # int8 [n, commissions, 4]: completing seat, day, day first shown, seats offered it (bits)
    commission: np.ndarray
    goal: np.ndarray  # int16 [n, days]: goal card index shown each day, -1 if none
    available: np.ndarray  # uint64 [n, words]: landscapes on the grid at any time

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array field by name, each with one row per game."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "first_game"}

    def records(self) -> dict[str, np.ndarray]:
        """The record outputs with named fields (enums.SEAT_FIELDS ...): the same bytes as
        ``seat``, ``game``, ``day`` and ``commission``, viewed as numpy records."""
        views = {
            "seat": (self.seat, enums.SEAT_FIELDS, "int32"),
            "game": (self.game, enums.GAME_FIELDS, "int32"),
            "day": (self.day, enums.DAY_FIELDS, "int32"),
            "commission": (self.commission, enums.COMMISSION_FIELDS, "int8"),
        }
        return {
            name: np.ascontiguousarray(array).view(enums.record_dtype(fields, base))[..., 0]
            for name, (array, fields, base) in views.items()
        }

    def rows(self, start: int, stop: int) -> BatchArrays:
        """Games first_game + start .. first_game + stop - 1."""
        return BatchArrays(
            self.first_game + start,
            **{name: array[start:stop] for name, array in self.arrays().items()},
        )


def kernel_arguments(
    players: list[Player], field: Sequence[Player] = ()
) -> tuple[np.ndarray | list, np.ndarray, np.ndarray]:
    """The engine's ``strategy_functions`` (decisions.py), the seats' ids in it and a
    [P, width] float parameter matrix.

    ``field``: every strategy of a tournament, so that all their adapters are compiled
    (or loaded) before the first game rather than one table at a time."""
    table = lineup(player.spec for player in [*field, *players])
    compiling.prepare(table)  # compiles what is missing first, and says so
    functions = decisions.strategy_functions(spec.decide for spec in table)
    names = [spec.name for spec in table]
    ids = [names.index(player.spec.name) for player in players]
    width = max([1] + [len(p.params) for p in players])
    params = np.zeros((len(players), width), dtype=np.float64)
    for seat, player in enumerate(players):
        params[seat, : len(player.params)] = player.params
    return functions, np.array(ids, dtype=np.int64), params


@dataclass(frozen=True)
class _SeenTables:
    """Card tables that passed ``check_tables``, with their bytes and a copy of each
    array as first seen: what ``_check_unwritten`` holds a block of games to."""

    tables: CardTables
    data: bytes
    copies: tuple[np.ndarray, ...]


_SEEN: list[_SeenTables] = []  # the last 8 tables seen, held alive so an id is never another's


def _seen(tables: CardTables) -> _SeenTables | None:
    return next((seen for seen in _SEEN if seen.tables is tables), None)


def _remember(tables: CardTables) -> _SeenTables:
    seen = _seen(tables)
    if seen is None:
        copies = tuple(np.array(array, copy=True) for array in tables)
        seen = _SeenTables(tables, _tables_bytes(tables), copies)
        _SEEN.insert(0, seen)
        del _SEEN[8:]
    return seen


def check_tables(tables: CardTables) -> CardTables:
    """The card tables, if their array types are the ones the engine was compiled for.

    A study calls the engine thousands of times with the same tables, and typing them
    takes about 0.1 ms: the last few that passed are not typed again. Fewer plan cards
    than a hand (R-PLAN-1) are refused: the kernel wraps round a plan deck by one
    subtraction (``plan.ring_index``), which needs at least that many."""
    if tables.plan_wake.shape[0] < enums.PLAN_HAND:
        raise ValueError(
            f"card tables hold {tables.plan_wake.shape[0]} plan cards; a hand is "
            f"{enums.PLAN_HAND} (R-PLAN-1)"
        )
    if numba.config.DISABLE_JIT or _seen(tables) is not None:
        return tables
    expected = decisions.context_type().types[-1]
    if numba.typeof(tables) != expected:
        raise ValueError(f"card tables typed {numba.typeof(tables)}, the engine needs {expected}")
    _remember(tables)
    return tables


def allocate(
    n_games: int, n_players: int, days: int, tables: CardTables, first_game: int
) -> BatchArrays:
    words = (tables.land_icons.shape[0] + 63) // 64
    n_commissions = tables.comm_fame.shape[0]
    return BatchArrays(
        first_game=first_game,
        seat=np.zeros((n_games, n_players, enums.SEAT_COLUMNS), dtype=np.int32),
        game=np.zeros((n_games, enums.GAME_COLUMNS), dtype=np.int32),
        plan=np.full((n_games, n_players, days), -1, dtype=np.int32),
        position=np.full((n_games, n_players, days), -1, dtype=np.int32),
        painted=np.zeros((n_games, n_players, words), dtype=np.uint64),
        day=np.full((n_games, n_players, days, enums.DAY_COLUMNS), -1, dtype=np.int32),
        commission=np.full((n_games, n_commissions, enums.COMMISSION_COLUMNS), -1, dtype=np.int8),
        goal=np.full((n_games, days), -1, dtype=np.int16),
        available=np.zeros((n_games, words), dtype=np.uint64),
    )


def no_bans(n_players: int) -> np.ndarray:
    """A ``banned`` array that restricts nobody (kernel.py, restricted play)."""
    return np.zeros((1, n_players, 1), dtype=np.uint8)


def check_seats(players: Sequence[Player]) -> int:
    """How many seats, refused outside 2 to 4 (R-COMP-5): the kernel's arrays have room
    for four artists, and a fifth would write past them."""
    if not enums.MIN_PLAYERS <= len(players) <= enums.MAX_PLAYERS:
        raise ValueError(
            f"players: {len(players)} seats is outside {enums.MIN_PLAYERS} to {enums.MAX_PLAYERS}"
        )
    return len(players)


def check_bans(banned: np.ndarray | None, n_players: int, tables: CardTables) -> np.ndarray:
    """``banned`` as the kernel takes it: uint8 ``[masks, players, columns]`` with room for
    every card index (see ``restricted.ban_offsets``), or no restriction when None."""
    if banned is None:
        return no_bans(n_players)
    banned = np.ascontiguousarray(banned, dtype=np.uint8)
    width = 1 + tables.plan_wake.shape[0] + tables.land_icons.shape[0] + tables.comm_fame.shape[0]
    if banned.ndim != 3 or banned.shape[0] < 1 or banned.shape[1] != n_players:
        raise ValueError(f"banned: shape {banned.shape} is not (masks, {n_players}, columns)")
    if banned[:, :, restricted.BAN_ANY].any() and banned.shape[2] != width:
        raise ValueError(f"banned: {banned.shape[2]} columns where this card set needs {width}")
    return banned


_POOLS: dict[tuple[str, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def thread_pool(threads: int, purpose: str = "blocks") -> ThreadPoolExecutor:
    """One thread pool per purpose and thread count, kept for the process (batches come
    often). Pools of different purposes never share threads, so a task of one may wait
    on tasks of another (a seating thread on its batches) without a deadlock."""
    with _POOLS_LOCK:
        pool = _POOLS.get((purpose, threads))
        if pool is None:
            pool = ThreadPoolExecutor(threads, thread_name_prefix=f"sunset-sim-{purpose}")
            _POOLS[purpose, threads] = pool
        return pool


def prepare_batch(
    tables: CardTables,
    players: list[Player],
    rules: Rules,
    first_game: int,
    n_games: int,
    field: Sequence[Player] = (),
    banned: np.ndarray | None = None,
) -> tuple[tuple, BatchArrays]:
    """``play_block``'s arguments (the seats' strategies and the checked bans) and the
    output arrays of ``n_games`` games from ``first_game``."""
    banned = check_bans(banned, check_seats(players), check_tables(tables))
    arguments = (*kernel_arguments(players, field), banned)
    return arguments, allocate(n_games, len(players), rules.days, tables, first_game)


def play_block(
    tables: CardTables,
    players: list[Player],
    rules: Rules,
    seed: int,
    arguments: tuple,
    out: BatchArrays,
    rows: np.ndarray,
    trace: np.ndarray,
    check: bool,
) -> None:
    """The given rows of ``out`` (row g: game out.first_game + g), one thread;
    ``arguments`` from ``kernel_arguments`` plus the bans (``run.subset`` plays the chosen
    games of a chunk with it)."""
    functions, ids, params, banned = arguments
    functions = decisions.with_fault_slot(functions)  # this call's own: threads share arguments
    pristine = _remember(tables)
    try:
        kernel.play_games(
            np.uint64(seed),
            np.int64(out.first_game),
            np.ascontiguousarray(rows, dtype=np.int64),
            np.int64(len(players)),
            functions,
            ids,
            params,
            banned,
            tables,
            np.int64(rules.tie_break_code),
            np.int64(rules.days),
            out.seat,
            out.game,
            out.plan,
            out.position,
            out.painted,
            out.day,
            out.commission,
            out.goal,
            out.available,
            trace,
            np.int64(1 if check else 0),
        )
    except Exception as error:
        faulted = decisions.faulted_strategy(functions)
        if faulted != decisions.NO_FAULT:  # raised inside that strategy's call, not the engine
            spec = next(p.spec for p, i in zip(players, ids, strict=True) if i == faulted)
            raise strategy_failure(spec, error) from error
        if not isinstance(error, ValueError) or error.args[:1] != (ask.OFF_THE_LIST,):
            raise
        if len(error.args) != 4:  # ask.decide's (message, strategy id, choice, options)
            raise
        strategy_id, choice, n_options = (int(value) for value in error.args[1:])
        spec = next(p.spec for p, i in zip(players, ids, strict=True) if i == strategy_id)
        raise IllegalChoiceError.of(spec.name, spec.decide, choice, n_options) from None
    _check_unwritten(tables, pristine, players)


def _tables_bytes(tables: CardTables) -> bytes:
    return b"".join(np.ascontiguousarray(array).tobytes() for array in tables)


def _check_unwritten(tables: CardTables, pristine: _SeenTables, players: list[Player]) -> None:
    """The card tables as they were before the block (10 KB, compared in microseconds). A
    strategy sees them read-only, but numba lets a write through ``.flat`` (or past an
    array's end) by: a plug-in that set every commission's fame to 50 through
    ``tables.comm_fame.flat`` gave greedy 202.7 mean fame with --check-invariants silent,
    and the changed tables stayed cached for the process's later runs. Now they are put
    back and the run stops, naming the table's plug-ins (a built-in writes nothing)."""
    if _tables_bytes(tables) == pristine.data:
        return
    copies = pristine.copies
    changed = [
        name
        for name, array, copy in zip(tables._fields, tables, copies, strict=True)
        if not np.array_equal(array, copy)
    ]
    for array, copy in zip(tables, copies, strict=True):
        np.copyto(array, copy)
    suspects = sorted({p.spec.name for p in players if plugin_file(p.spec) is not None})
    who = f"strategy {' or '.join(suspects)}" if suspects else "a strategy at the table"
    raise StrategyFault(
        f"{who} wrote to the card tables (tables.{', tables.'.join(changed)}), which every "
        "seat plays and scores by; the games played are void and the tables were put back"
    )


def strategy_failure(spec: StrategySpec, error: Exception) -> StrategyFault:
    """The one-line error for an exception raised in ``spec``'s call: an answer that is no
    option index (``decisions.option_index``) or whatever its ``decide`` raised."""
    if isinstance(error, TypeError) and error.args == (decisions.RETURNED_NONE,):
        return IllegalChoiceError.of(spec.name, spec.decide, None)
    if isinstance(error, TypeError) and error.args[:1] == (decisions.NOT_AN_INDEX,):
        answer = error.args[1] if len(error.args) > 1 else "?"
        return IllegalChoiceError.of(spec.name, spec.decide, answer)
    return StrategyRaisedError.of(spec.name, spec.decide, error)


def run_games(
    tables: CardTables,
    players: list[Player],
    rules: Rules,
    seed: int,
    first_game: int,
    n_games: int,
    check_invariants: bool = False,
    field: Sequence[Player] = (),
    banned: np.ndarray | None = None,
) -> BatchArrays:
    """Play a contiguous range of games with the numba kernel, on as many threads as
    ``numba.get_num_threads()`` (``numba.set_num_threads`` sets it, as ``--jobs`` does).

    With ``check_invariants``, ``game[:, enums.G_VIOLATIONS]`` holds each game's bitmask
    of failed invariants (engine/invariants.py); it is 0 otherwise. ``banned``: restricted
    play (kernel.py): game g uses ``banned[g % len(banned)]``, one row per seat."""
    arguments, out = prepare_batch(tables, players, rules, first_game, n_games, field, banned)
    threads = 1 if numba.config.DISABLE_JIT else max(1, numba.get_num_threads())
    # Blocks of games, one workspace each: four per thread evens out a large batch; a
    # small one (a study plays thousands of 200-game batches) gets one per thread, as
    # each call into the engine costs about 0.1 ms of Python with the GIL held.
    n_blocks = max(1, min(n_games, (4 if n_games >= 2000 * threads else 1) * threads))
    blocks = [(b * n_games // n_blocks, (b + 1) * n_games // n_blocks) for b in range(n_blocks)]
    no_trace = np.zeros(1, dtype=np.int32)

    def play(block: tuple[int, int]) -> None:
        rows = np.arange(*block, dtype=np.int64)
        play_block(tables, players, rules, seed, arguments, out, rows, no_trace, check_invariants)

    if threads == 1 or n_blocks == 1:
        for block in blocks:
            play(block)
    else:  # play_games releases the GIL: the blocks run on `threads` cores at once
        list(thread_pool(threads).map(play, blocks))
    return out


def trace_game(
    tables: CardTables,
    players: list[Player],
    rules: Rules,
    seed: int,
    game_index: int,
    field: Sequence[Player] = (),
    banned: np.ndarray | None = None,
) -> tuple[np.ndarray, BatchArrays]:
    """One game with its full trace (every decision and chance outcome), for parity checks;
    the invariants are checked too."""
    arguments, out = prepare_batch(tables, players, rules, game_index, 1, field, banned)
    trace = np.zeros(1 << 16, dtype=np.int32)
    trace[0] = 1
    play_block(tables, players, rules, seed, arguments, out, np.zeros(1, np.int64), trace, True)
    return trace[1 : trace[0]].copy(), out
