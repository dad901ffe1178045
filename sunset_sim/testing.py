"""Conformance checks for a strategy: ``check_strategy`` (a list of problems) and
``assert_strategy`` (raises with them).

    from sunset_sim.testing import check_strategy
    problems = check_strategy("edge-lover")          # [] means it passed

It plays ``games`` games (player counts taken in turn from ``players``; every other game
the strategy holds every seat, otherwise it alternates with ``random``) and checks:

(a) **Legal moves only.** Every game is played on the reference engine, which checks
    each decision against the rules and stops if ``decide`` returns an index that is not
    on the list. The games where the strategy holds every seat are then played on the fast
    engine (one kernel compile per strategy version), whose decoded trace must equal the
    reference record decision by decision (as tests/test_parity.py does): the same
    function must make the same choices in both engines. *Proves* legality and parity for
    the games played; *cannot* prove them for positions those games never reached.

(b) **Deterministic for a seed.** Each game is played twice on the reference engine (and
    the fast-engine games twice); the records must be equal. *Cannot* catch a dependence
    that happens to repeat (a clock read that rounds to the same value).

(c) **No peeking, no tampering.** The observation holds only what the player may know,
    so a strategy can learn hidden information only from outside its arguments. The
    check requires ``decide`` to be a numba (nopython) function, which can read nothing
    but its arguments and compile-time constants (a plain Python function could walk the
    call stack to the game state), and flags ``with numba.objmode()`` blocks. Every call
    is wrapped: ``obs``, ``options``, ``params`` and ``tables`` are compared with copies
    taken before the call (in the fast engine ``obs`` *is* the live game state), and the
    same decision is asked again on fresh copies with the same ``rng`` state; the answer
    must not change (no state of its own: global counters, ``np.random``, caches). It also
    asks again with the unused option rows after ``n_options`` filled with leftovers, as
    the fast engine's buffer has them: the answer must not change (``n_options``, not
    ``options.shape[0]``). *Cannot* prove that nothing hidden is read: the observation
    holds only what the rules let the player see, so there is nothing to find. Nor can it
    see writes through memory outside the arrays (numba does not check bounds).

(d) **Randomness only from ``rng``.** The repeated call above starts from a copy of the
    ``rng`` state: it must give the same answer *and* move the counter by the same number
    of draws, and the key (``rng[0]``) must never change. *Cannot* tell a legitimate
    random draw from another; only that all of them come from the stream.

(e) **Unseen commissions, when the spec says they are not read.** With
    ``reads_unseen_commissions=False`` (studies then skip replaying deals), each game the
    strategy plays at every seat is played again on the fast engine with the fame of
    every commission that game never turned up (row or preview) moved by one: the trace
    must be the same. *Cannot* prove it for the commissions those games turned up.

The checks stop a game at its first error. The fast engine runs only when the reference
engine found no problem: in the kernel a write or an index off the list would corrupt
the live game state (numba does not check bounds), and a strategy that already failed
is not worth the kernel's compile time.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Sequence

import numba
import numpy as np

from sunset_sim import observation, validation
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables, build_tables
from sunset_sim.engine.trace import comparable, trace_to_record
from sunset_sim.enums import DECIDE_HIKE, DECIDE_PAINT, DECIDE_PLAN, DECIDE_SALE
from sunset_sim.play import play_reference
from sunset_sim.rules.options import Rules
from sunset_sim.strategy import Player, StrategyError, StrategySpec, make_player, registry
from sunset_sim.validation import one_line

KIND_NAMES = {DECIDE_PLAN: "plan", DECIDE_HIKE: "hike", DECIDE_PAINT: "paint", DECIDE_SALE: "sale"}
OPPONENT = "random"


class StrategyCheckError(AssertionError):
    """A strategy failed ``check_strategy``; the message lists every problem."""

    def __init__(self, name: str, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"strategy {name} failed {len(problems)} check(s):\n{lines}")


def assert_strategy(
    strategy: str | StrategySpec | Player,
    games: int = 12,
    players: Sequence[int] = (2, 3, 4),
    seed: int = 0,
    cards: CardSet | None = None,
    rules: Rules | None = None,
) -> None:
    """``check_strategy``, raising StrategyCheckError if it finds any problem."""
    player = _player(strategy)
    problems = check_strategy(player, games, players, seed, cards, rules)
    if problems:
        raise StrategyCheckError(player.name, problems)


def check_strategy(
    strategy: str | StrategySpec | Player,
    games: int = 12,
    players: Sequence[int] = (2, 3, 4),
    seed: int = 0,
    cards: CardSet | None = None,
    rules: Rules | None = None,
) -> list[str]:
    """The problems found (one line each); an empty list means every check passed.

    ``strategy`` is a registered name (``NAME:key=value`` and ``NAME:params=FILE`` work as
    on the command line), a StrategySpec (default parameters) or a Player. Bad arguments
    (``seed=-1``, ``players=()``; ``players=3`` is ``(3,)``) are an InputError up front,
    not findings against the strategy."""
    games, players, seed = _checked_sizes(games, players, seed)
    try:
        player = _player(strategy)
    except StrategyError as error:
        return [str(error)]
    cards = validation.as_cards(cards)
    tables = build_tables(cards)
    rules = validation.as_rules(rules)
    report = _Report()
    compiled = numba.config.DISABLE_JIT or isinstance(
        player.spec.decide, numba.core.dispatcher.Dispatcher
    )
    if not compiled:
        report.add(
            "compiled",
            "decide is not a numba function (decorate it with sunset_sim.engine.jit.jit): it "
            "cannot run in the fast engine, and plain Python could read the game state from "
            "the call stack; the fast-engine checks were skipped",
        )
    opponent = registry().get(OPPONENT)
    probe = _Probe(player, report)
    watched = Player(dataclasses.replace(player.spec, decide=probe), player.params, player.label)
    fast_games: list[tuple[int, list[Player], dict]] = []  # (game, seats, reference record)
    for game in range(games):
        n_players = players[game % len(players)]
        mixed = game % 2 == 1 and opponent is not None and opponent.name != player.spec.name
        if mixed:
            other = Player(opponent, opponent.param_vector())
            seats = [player if (s + game // 2) % 2 == 0 else other for s in range(n_players)]
        else:
            seats = [player] * n_players
        where = f"game {game} ({n_players} players{', with random' if mixed else ''})"
        probe.where = where
        watched_seats = [watched if seat is player else seat for seat in seats]
        try:
            first = play_reference(cards, watched_seats, seed, game, rules, tables)
        except Exception as error:  # noqa: BLE001 - every failure is a finding
            report.add("reference", f"{where}: the reference engine stopped: {_one_line(error)}")
            continue
        try:
            second = play_reference(cards, seats, seed, game, rules, tables)
        except Exception as error:  # noqa: BLE001
            report.add("repeat", f"{where}: the second play stopped: {_one_line(error)}")
            continue
        record = comparable(first.record)
        difference = _first_difference(comparable(second.record), record, names=("second", "first"))
        if difference is not None:
            report.add(
                "deterministic",
                f"{where}: not deterministic: two plays with seed {seed} differ at {difference}",
            )
        elif not mixed:
            fast_games.append((game, seats, record))
    _objmode_check(player.spec, report)

    if not compiled:
        return report.lines()
    if any(kind != "objmode" for kind in report.first):
        report.add("fast-skipped", "the fast engine was not run: fix the problems above first")
        return report.lines()
    played = _fast_engine_checks(fast_games, cards, tables, rules, seed, report)
    if not player.spec.reads_unseen_commissions and not report.first:
        _unseen_commission_checks(played, cards, rules, seed, report)
    return report.lines()


def _fast_engine_checks(fast_games, cards, tables, rules, seed, report) -> list[tuple]:
    """(a) and (b) on the fast engine; returns each game played as (game, seats, trace,
    outputs) for check (e)."""
    from sunset_sim.engine.batch import trace_game

    played = []
    for game, seats, reference in fast_games:
        where = f"game {game} ({len(seats)} players)"
        try:
            trace, out = trace_game(tables, seats, rules, seed, game)
            again, _ = trace_game(tables, seats, rules, seed, game)
        except Exception as error:  # noqa: BLE001
            report.add("fast", f"{where}: the fast engine stopped: {_one_line(error)}")
            continue
        played.append((game, seats, trace, out))
        if not np.array_equal(trace, again):
            report.add("fast-deterministic", f"{where}: two fast-engine plays differ")
        try:
            fast = trace_to_record(trace, cards, len(seats), rules.days)
        except Exception as error:  # noqa: BLE001
            report.add("parity", f"{where}: the fast engine's trace cannot be read: {error}")
            continue
        difference = _first_difference(fast, reference, names=("fast", "reference"))
        if difference is not None:
            report.add(
                "parity",
                f"{where}: the fast engine plays another game than the reference engine, "
                f"first at {difference}",
            )
    return played


def _unseen_commission_checks(played, cards, rules, seed, report) -> None:
    from sunset_sim.analysis.experiments import turned_up
    from sunset_sim.engine.batch import trace_game
    from sunset_sim.enums import C_SHOWN

    for game, seats, trace, out in played:
        entered = out.commission[None, :, :, C_SHOWN] >= 1
        unseen = set(np.flatnonzero(~turned_up(entered, cards, seed, game)[0, 0]).tolist())
        commissions = tuple(
            dataclasses.replace(card, fame=card.fame + 1) if index in unseen else card
            for index, card in enumerate(cards.commissions)
        )
        edited = build_tables(dataclasses.replace(cards, commissions=commissions))
        again, _ = trace_game(edited, seats, rules, seed, game)
        if not np.array_equal(trace, again):
            report.add(
                "unseen-commissions",
                f"game {game} ({len(seats)} players): the spec says "
                f"reads_unseen_commissions=False, but moving the fame of the {len(unseen)} "
                "commissions the game never turned up changed the game",
            )


class _Report:
    """Problems by kind: the first occurrence in full, then how many more there were."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        self.count: dict[str, int] = {}

    def add(self, kind: str, message: str) -> None:
        self.first.setdefault(kind, message)
        self.count[kind] = self.count.get(kind, 0) + 1

    def lines(self) -> list[str]:
        out = []
        for kind, message in self.first.items():
            more = self.count[kind] - 1
            out.append(message + (f" (and {more} more like it)" if more else ""))
        return out


class _Probe:
    """Stands in for a strategy's decide in the reference engine and checks every call."""

    def __init__(self, player: Player, report: _Report) -> None:
        self.decide = player.spec.decide
        self.report = report
        self.where = ""
        self.leftovers: np.ndarray | None = None

    def __call__(self, kind, obs, options, n_options, params, rng, tables):
        context = (
            f"{self.where}, day {obs[observation.OBS_DAY]}, a {KIND_NAMES.get(kind, kind)} decision"
        )
        saved = {"obs": obs.copy(), "options": options.copy(), "params": params.copy()}
        saved_tables = [field.copy() for field in tables]
        rng_before = rng.copy()
        choice = self.decide(kind, obs, options, n_options, params, rng, tables)
        rng_after = rng.copy()

        for name, array in (("obs", obs), ("options", options), ("params", params)):
            if not np.array_equal(array, saved[name]):
                at = _first_change(saved[name], array)
                label = f"obs[{at}] ({_obs_name(at)})" if name == "obs" else f"{name}[{at}]"
                self.report.add(f"writes:{name}", f"{context}: decide wrote to {label}")
                np.copyto(array, saved[name])
        for name, array, before in zip(CardTables._fields, tables, saved_tables, strict=True):
            if not np.array_equal(array, before):
                self.report.add(
                    f"writes:tables.{name}", f"{context}: decide wrote to tables.{name}"
                )
                np.copyto(array, before)  # tables are shared by the whole game: repair them
        if rng_after[0] != rng_before[0]:
            self.report.add("rng:key", f"{context}: decide changed its rng key (rng[0])")
        elif rng_after[1] < rng_before[1]:
            self.report.add("rng:back", f"{context}: decide moved its rng counter backwards")
        if isinstance(choice, bool | np.bool_) or not isinstance(choice, int | np.integer):
            self.report.add(
                "type",
                f"{context}: decide returned {choice!r} ({type(choice).__name__}), not an int",
            )
            return choice
        if not 0 <= choice < n_options:
            return choice  # the reference engine stops the game with its own message

        # (c)/(d): the same question again, on fresh copies, from the same rng state
        again, again_rng = self._again(kind, saved, n_options, tables, rng_before)
        if again != choice:
            self._impure(context, choice, again)
        elif not np.array_equal(again_rng, rng_after):
            self.report.add(
                "rng:draws",
                f"{context}: the same decision asked twice moved the rng counter by "
                f"{int(rng_after[1] - rng_before[1])}, then {int(again_rng[1] - rng_before[1])}",
            )
        elif "pure" not in self.report.first:  # rows after n_options: leftovers, as in the kernel
            padded = self._padded(saved["options"], n_options)
            third, third_rng = self._again(kind, saved, n_options, tables, rng_before, padded)
            if third != choice or not np.array_equal(third_rng, rng_after):
                # blame the rows only if a plain repeat still agrees (np.random may not)
                fourth, fourth_rng = self._again(kind, saved, n_options, tables, rng_before)
                if fourth != choice or not np.array_equal(fourth_rng, rng_after):
                    self._impure(context, choice, fourth)
                else:
                    self.report.add(
                        "rows",
                        f"{context}: decide reads option rows past n_options (it chose "
                        f"{choice} with no rows after them, {third} with leftover rows there, "
                        "as the fast engine's buffer has): use n_options, not options.shape[0]",
                    )
        for array, before in zip(tables, saved_tables, strict=True):
            np.copyto(array, before)  # in case a repeated call wrote to them
        self.leftovers = saved["options"][:n_options].copy()
        return choice

    def _again(self, kind, saved, n_options, tables, rng_before, options=None):
        """The same call on fresh copies of the saved inputs: (choice, rng after it)."""
        rng = rng_before.copy()
        options = saved["options"].copy() if options is None else options
        obs, params = saved["obs"].copy(), saved["params"].copy()
        return self.decide(kind, obs, options, n_options, params, rng, tables), rng

    def _impure(self, context: str, choice, again) -> None:
        self.report.add(
            "pure",
            f"{context}: the same decision asked twice (identical obs, options, params and "
            f"rng state) gave option {choice}, then {again}: decide keeps state of its own or "
            "draws randomness outside rng (a global counter, np.random, time)",
        )

    def _padded(self, options: np.ndarray, n_options: int) -> np.ndarray:
        """The options with rows after n_options holding an earlier decision's rows."""
        source = self.leftovers if self.leftovers is not None else options[:n_options][::-1]
        extra = max(8, n_options)
        padding = np.resize(source, (extra, options.shape[1])).astype(options.dtype)
        return np.ascontiguousarray(np.concatenate([options[:n_options], padding]))


def _objmode_check(spec: StrategySpec, report: _Report) -> None:
    overloads = getattr(spec.decide, "overloads", {})
    for result in overloads.values():
        if getattr(result, "lifted", ()):
            report.add(
                "objmode",
                "decide has object-mode code (numba.objmode or a lifted loop): code there "
                "can read anything, so the no-peeking check proves nothing about it",
            )
            return


def _checked_sizes(games: object, players: object, seed: object) -> tuple[int, list[int], int]:
    """The arguments as ``InputError``s up front (not findings against the strategy): one
    player count may be given as a number, ``players=3`` for ``(3,)``."""
    games = validation.check_games(games)
    seed = validation.check_seed(seed)
    if isinstance(players, numbers.Integral) and not isinstance(players, bool):
        players = (players,)
    if not isinstance(players, Sequence) or isinstance(players, str):
        shown = type(players).__name__
        raise validation.InputError(f"players: expected player counts such as (2, 3), got {shown}")
    if not players:
        raise validation.InputError("players: give at least one player count")
    return games, [validation.check_players(n) for n in players], seed


def _player(strategy: str | StrategySpec | Player) -> Player:
    if not isinstance(strategy, str | StrategySpec | Player):
        raise validation.InputError(
            f"strategy: expected a strategy name, a StrategySpec or a Player, "
            f"got {type(strategy).__name__}"
        )
    if isinstance(strategy, Player):
        return strategy
    if isinstance(strategy, StrategySpec):
        return Player(strategy, strategy.param_vector())
    return make_player(strategy)


def _first_change(before: np.ndarray, after: np.ndarray) -> str:
    index = tuple(int(i) for i in np.argwhere(before != after)[0])
    return ", ".join(map(str, index))


def _obs_name(index: str) -> str:
    """The observation field an index falls in (observation.py)."""
    at = int(index)
    names = sorted(
        (value, name)
        for name, value in vars(observation).items()
        if name.startswith("OBS_") and isinstance(value, int) and name != "OBS_CARDS"
    )
    if at >= observation.OBS_CARDS:
        return "the card places"
    best = "header"
    for value, name in names:
        if value <= at and (at >= observation.OBS_ROW or value == at):
            best = name
    return best


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _first_difference(
    a: object, b: object, path: tuple = (), names: tuple[str, str] = ("a", "b")
) -> str | None:
    """Where two records first differ: 'days / day 2 / turns / turn 1 / hike: a=.. b=..'."""
    where = " / ".join(map(str, path)) or "the record"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(b) + [k for k in a if k not in b]:
            if key not in a or key not in b:
                return f"{' / '.join(map(str, path + (key,)))}: in one record only"
            found = _first_difference(a[key], b[key], path + (key,), names)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        label = {"days": "day ", "turns": "turn "}.get(path[-1] if path else "", "")
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            step = f"{label}{index + 1}" if label else index
            found = _first_difference(x, y, path + (step,), names)
            if found:
                return found
        if len(a) != len(b):
            return f"{where}: {names[0]} has {len(a)} entries, {names[1]} {len(b)}"
        return None
    if a != b:
        return f"{where}: {names[0]}={_short(a)} {names[1]}={_short(b)}"
    return None


def _short(value: object) -> str:
    return one_line(repr(value), 80, keep=77)


__all__ = ["check_strategy", "assert_strategy", "StrategyCheckError"]
