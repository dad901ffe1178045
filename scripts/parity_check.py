"""Trace parity between the reference engine and the numba kernel, over many games.

    python scripts/parity_check.py --games 100000 [--players 2 3 4] [--jobs N] [--seed S]

Every game is played twice, by ``play_reference`` and by the kernel's ``trace_game``,
and the kernel's trace (every decision and chance outcome), decoded with
``trace_to_record``, must equal ``comparable(reference.record)``. The games are spread
evenly over every combination of player count, tie-break option and table line-up (each
registered strategy alone, and every rotation of a table mixing all of them).

The work goes to joblib worker processes in a few large chunks (each worker loads the
numba cache once). A progress line goes to stderr; the summary line (counts and the
first mismatch, with everything needed to reproduce it) goes to stdout. Exit status 1
on any mismatch or engine error.

``tests/test_parity.py`` imports this file for ``first_difference`` and ``lineups``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

TIE_BREAKS = ("random", "seat", "lowest-fame")
DETAIL_WIDTH = 160  # characters of each side of a differing value in messages


# ---- comparing records ---------------------------------------------------------------


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= DETAIL_WIDTH else text[: DETAIL_WIDTH - 3] + "..."


def _label(parent: object, key: object, container: object) -> str:
    """A readable path step: days by day number, turns by position and seat."""
    if parent == "days" and isinstance(container, list) and isinstance(container[key], dict):
        return f"day {container[key].get('day', key + 1)}"
    if parent == "turns" and isinstance(container, list) and isinstance(container[key], dict):
        return f"turn {key + 1} (seat {container[key].get('seat', '?')})"
    if parent == "plans" and isinstance(container, list) and isinstance(container[key], dict):
        return f"plans of seat {key}"
    if isinstance(key, int):
        return f"[{key}]"
    return str(key)


def first_difference(kernel: object, reference: object) -> str | None:
    """None if equal, else where the first difference is (day / turn / key) and both values.

    Dict keys are compared in the reference's order (then keys only the kernel has),
    lists element by element, so "first" follows the order of play.
    """

    def walk(a: object, b: object, path: list[str], parent: object) -> str | None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in list(b) + [k for k in a if k not in b]:
                here = path + [str(key)]
                if key not in a:
                    return f"{' / '.join(here)}: missing in kernel; reference={_short(b[key])}"
                if key not in b:
                    return f"{' / '.join(here)}: missing in reference; kernel={_short(a[key])}"
                found = walk(a[key], b[key], here, key)
                if found:
                    return found
            return None
        if isinstance(a, list) and isinstance(b, list):
            for i in range(min(len(a), len(b))):
                label = _label(parent, i, b)
                # "day 3" / "turn 2 (seat 1)" stand in for the list's own key
                here = path + [label] if label.startswith("[") else path[:-1] + [label]
                found = walk(a[i], b[i], here, None)
                if found:
                    return found
            if len(a) != len(b):
                where = " / ".join(path) or "record"
                longer, name = (a, "kernel") if len(a) > len(b) else (b, "reference")
                extra = longer[min(len(a), len(b))]
                return (
                    f"{where}: kernel has {len(a)} entries, reference {len(b)}; "
                    f"first extra ({name}): {_short(extra)}"
                )
            return None
        if a != b or type(a) is not type(b) and not (_number(a) and _number(b)):
            where = " / ".join(path) or "record"
            return f"{where}: kernel={_short(a)} reference={_short(b)}"
        return None

    return walk(kernel, reference, [], None)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# ---- which games ---------------------------------------------------------------------


def lineups(names: list[str] | tuple[str, ...]) -> list[tuple[str, ...]]:
    """Each strategy alone at a table, then every rotation of a table mixing them all."""
    names = list(names)
    tables = [(name,) for name in names]
    if len(names) > 1:
        tables += [tuple(names[i:] + names[:i]) for i in range(len(names))]
    return tables


@dataclass(frozen=True)
class Config:
    players: int
    tie_break: str
    lineup: tuple[str, ...]
    days: int

    def describe(self) -> str:
        return (
            f"players={self.players} strategies={','.join(self.lineup)} (seated in turn) "
            f"tie_break={self.tie_break} days={self.days}"
        )


@dataclass
class Tally:
    games: int = 0
    mismatches: int = 0
    errors: int = 0
    first: tuple | None = None  # (config number, game index, message)
    ends: Counter = field(default_factory=Counter)
    reshuffled: int = 0
    by_players: Counter = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.mismatches += other.mismatches
        self.errors += other.errors
        if other.first and (self.first is None or other.first[:2] < self.first[:2]):
            self.first = other.first
        self.ends.update(other.ends)
        self.reshuffled += other.reshuffled
        self.by_players.update(other.by_players)


def plan_chunks(
    configs: list[Config], games: int, first_game: int, n_chunks: int
) -> list[list[tuple[int, int, int]]]:
    """Games spread evenly over the configs, cut into about n_chunks chunks of
    (config number, first game, number of games) slices."""
    per, extra = divmod(games, len(configs))
    slices = [
        (number, first_game, per + (1 if number < extra else 0)) for number in range(len(configs))
    ]
    size = max(1, -(-games // max(1, n_chunks)))
    chunks: list[list[tuple[int, int, int]]] = [[]]
    room = size
    for number, start, count in slices:
        while count > 0:
            take = min(count, room)
            chunks[-1].append((number, start, take))
            start, count, room = start + take, count - take, room - take
            if room == 0:
                chunks.append([])
                room = size
    return [chunk for chunk in chunks if chunk]


# ---- one chunk, in a worker ----------------------------------------------------------


def check_chunk(
    configs: list[Config], chunk: list[tuple[int, int, int]], seed: int, cards_path: str | None
) -> Tally:
    from sunset_sim.cards import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import trace_game
    from sunset_sim.engine.trace import comparable, trace_to_record
    from sunset_sim.play import play_reference
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import seat_players

    cards = load_cards(cards_path)
    tables = build_tables(cards)
    tally = Tally()
    for number, start, count in chunk:
        config = configs[number]
        players = seat_players(list(config.lineup), config.players)
        rules = Rules(tie_break=config.tie_break, days=config.days)
        for game in range(start, start + count):
            tally.games += 1
            tally.by_players[config.players] += 1
            try:
                reference = play_reference(cards, players, seed, game, rules, tables)
                trace, _ = trace_game(tables, players, rules, seed, game)
                kernel = trace_to_record(trace, cards, config.players, config.days)
                message = first_difference(kernel, comparable(reference.record))
                tally.ends[reference.record["end"]["reason"]] += 1
                if any(day.get("reshuffles") for day in reference.record["days"]):
                    tally.reshuffled += 1
            except Exception as error:  # an engine error is a parity failure too
                tally.errors += 1
                message = f"error: {type(error).__name__}: {error}"
            if message is not None:
                tally.mismatches += 1
                if tally.first is None or (number, game) < tally.first[:2]:
                    tally.first = (number, game, message)
    return tally


# ---- command line ----------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in all (default 10000)")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[2, 3, 4], help="player counts (default 2 3 4)"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)"
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--first-game", type=int, default=0, help="first game index (default 0)")
    parser.add_argument(
        "--strategies",
        nargs="+",
        default=None,
        help="strategy names (default: every registered strategy)",
    )
    parser.add_argument(
        "--tie-break",
        nargs="+",
        choices=TIE_BREAKS,
        default=list(TIE_BREAKS),
        help="tie-break options (default: all three)",
    )
    parser.add_argument("--days", type=int, default=6, help="game length rule option (6)")
    parser.add_argument("--cards", default=None, help="card-set TOML file (default: built-in)")
    parser.add_argument(
        "--chunks-per-job", type=int, default=4, help="chunks per worker (default 4)"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    from joblib import Parallel, delayed

    from sunset_sim.strategy import registry

    args = parse_args(argv)
    names = args.strategies or list(registry())
    configs = [
        Config(players, tie_break, lineup, args.days)
        for players in args.players
        for tie_break in args.tie_break
        for lineup in lineups(names)
    ]
    chunks = plan_chunks(configs, args.games, args.first_game, args.jobs * args.chunks_per_job)
    total = Tally()
    started = time.perf_counter()
    tty = sys.stderr.isatty()
    results = Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
        delayed(check_chunk)(configs, chunk, args.seed, args.cards) for chunk in chunks
    )
    for tally in results:
        total.add(tally)
        seconds = time.perf_counter() - started
        line = (
            f"parity: {total.games}/{args.games} games, {total.mismatches} mismatches, "
            f"{seconds:.1f} s, {total.games / max(seconds, 1e-9):.0f} games/s"
        )
        print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
    if tty:
        print(file=sys.stderr)
    seconds = time.perf_counter() - started
    players = ", ".join(f"{p}P {total.by_players[p]}" for p in sorted(total.by_players))
    ends = ", ".join(f"{reason} {count}" for reason, count in sorted(total.ends.items()))
    print(
        f"parity_check: {total.games} games ({players}; {len(configs)} configs: "
        f"tie-breaks {'/'.join(args.tie_break)}, line-ups "
        f"{' | '.join('+'.join(lineup) for lineup in lineups(names))}); "
        f"{total.mismatches} mismatches ({total.errors} engine errors); ends: {ends}; "
        f"{total.reshuffled} games reshuffled; seed {args.seed}; "
        f"{seconds:.1f} s with {args.jobs} jobs"
    )
    if total.first is None:
        print("first mismatch: none")
        return 0
    number, game, message = total.first
    print(
        f"first mismatch: seed={args.seed} game_index={game} {configs[number].describe()} "
        f"cards={args.cards or 'default'}: {message}"
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
