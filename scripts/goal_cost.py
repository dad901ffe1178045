"""Which daily goal makes a strategy slow: games/s per core of each strategy alone at the
table, on card sets whose goals are all of one kind.

Each variant is the card set (default: the shipped one) with every goal replaced by a copy
of its first goal of one kind, so that every day of every game has that kind of goal; the
landscapes, commissions and plan cards are unchanged. Runs alternate between variants
and strategies (CPU time, one thread), and each ratio to greedy is the median of the
per-round ratios, so a slow spell of this shared machine hits every column alike.

    python scripts/goal_cost.py --strategies goal-chaser,commission-hunter --games 5000

For where the time goes inside one variant, give its file to profile_engine.py: the
variants are written with --write DIR.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path


def variants(path: str | None) -> dict[str, str]:
    """The card set's TOML text, then one text per goal kind it has ("all <kind>")."""
    from sunset_sim.cards.edit import dump_cards
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.enums import GOAL_KIND_NAMES

    cards = load_cards(path)
    texts = {"as shipped" if path is None else Path(path).name: dump_cards(cards)}
    for goal in cards.goals:
        name = GOAL_KIND_NAMES[goal.kind]
        if f"all {name}" not in texts:
            copies = tuple(replace(goal, id=f"{goal.id}-{n + 1}") for n in range(len(cards.goals)))
            texts[f"all {name}"] = dump_cards(replace(cards, goals=copies))
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--strategies", default="goal-chaser,commission-hunter,balanced",
                        help="comma list; greedy is always included, for the ratios")  # fmt: skip
    parser.add_argument("--cards", default=None, help="card-set file (default: the shipped set)")
    parser.add_argument("--games", type=int, default=5000, help="games per timed run")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per figure")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", type=Path, default=None, help="also write the variants here")
    parser.add_argument("--strategy-path", action="append", default=[],
                        help="a folder of strategy modules (as sunset-sim --strategy-path)")  # fmt: skip
    args = parser.parse_args(argv)

    from sunset_sim.cards.loader import parse_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import numba_threads
    from sunset_sim.strategy import add_strategy_path, registry, seat_players

    for folder in args.strategy_path:
        add_strategy_path(folder)

    names = ["greedy"] + [n for n in args.strategies.split(",") if n and n != "greedy"]
    unknown = [n for n in names if n not in registry()]
    if unknown:
        print(f"goal_cost.py: --strategies: unknown strategy {unknown[0]!r}", file=sys.stderr)
        return 2
    texts = variants(args.cards)
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for label, text in texts.items():
            (args.write / (label.replace(" ", "-") + ".toml")).write_text(text)
    tables = {label: build_tables(parse_cards(text, label)) for label, text in texts.items()}
    rules = Rules()
    rates: dict[tuple[str, str], list[float]] = {}
    with numba_threads(1):
        for name in names:  # compiles if the cache is cold
            run_games(
                tables[next(iter(tables))], seat_players([name], args.players), rules, 0, 0, 20
            )
        for round_ in range(args.rounds):
            print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
            for label, table in tables.items():
                for name in names:
                    seats = seat_players([name], args.players)
                    start = time.process_time()
                    run_games(table, seats, rules, args.seed, 0, args.games)
                    rate = args.games / (time.process_time() - start)
                    rates.setdefault((label, name), []).append(rate)

    width = max(len(label) for label in texts)
    print(f"{'goals':{width}}  " + "  ".join(f"{n:>22}" for n in names))
    for label in texts:
        cells = []
        for name in names:
            rate = statistics.median(rates[label, name])
            ratios = [
                r / g for r, g in zip(rates[label, name], rates[label, "greedy"], strict=True)
            ]
            ratio = "" if name == "greedy" else f" ({statistics.median(ratios):.2f}x)"
            cells.append(f"{rate:>14,.0f}{ratio:>8}")
        print(f"{label:{width}}  " + "  ".join(cells))
    print(f"games/s per core, medians of {args.rounds} runs of {args.games:,} games; "
          "(ratio to greedy: median of the per-round ratios)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
