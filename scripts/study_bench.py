"""Benchmark: the full designer study of the packaged card set, timed.

Restricted play for every plan card, commission and feature type and fame +-1 for every
commission, with four heuristic strategies at 4 players (every strategy in every seat),
then the suggestion search and its verification on fresh deals. Prints the wall time of
each run (the kernel is compiled and cached by a short warm-up first, so the figures are
warm-cache figures), the widest 95% CI half-width among the headline values (the
restricted-play values, in win-share points) and the suggestions.

    python scripts/study_bench.py                       # 4,000 deals, one run
    python scripts/study_bench.py --games 4000 --repeats 3 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

FIELD = ("balanced", "commission-hunter", "goal-chaser", "greedy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="deals per arm")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--strategy", action="append", default=None, help="field (repeatable)")
    parser.add_argument("--no-suggest", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    field = tuple(args.strategy or FIELD)

    from sunset_sim.analysis.study import run_study

    started = time.perf_counter()
    run_study(field, args.players, 50, families=("plan",), edits=(), suggest=False)
    warmup = time.perf_counter() - started
    print(f"warm-up (compile or load the field's kernel): {warmup:.1f} s", flush=True)
    times, widths = [], []
    study = None
    for repeat in range(args.repeats):
        started = time.perf_counter()
        study = run_study(
            field,
            args.players,
            args.games,
            seed=repeat,
            families=("plan", "commission", "feature"),
            edits=("commission-fame",),
            suggest=not args.no_suggest,
        )
        elapsed = time.perf_counter() - started
        overall = study.values[study.values["strategy"] == "all"]
        width = float(((overall["value_ci_high"] - overall["value_ci_low"]) / 2).max())
        times.append(elapsed)
        widths.append(width)
        print(
            f"run {repeat + 1}: {elapsed:.1f} s; widest value CI +-{width:.2f} points; "
            f"{len(overall)} values, {study.edits['card'].nunique()} commissions edited, "
            f"{len(study.suggestions)} suggestion(s)",
            flush=True,
        )
    assert study is not None
    print(f"median {statistics.median(times):.1f} s over {len(times)} run(s)")
    for _, row in study.suggestions.iterrows():
        print(
            f"  suggestion {row['card']} {row['field']} {row['current']} -> {row['suggested']}: "
            f"{row['before']:.2f} -> {row['after']:.2f} ({row['after_ci_low']:.2f} to {row['after_ci_high']:.2f})"
        )
    for note in study.notes:
        print(f"  note: {note}")
    if args.json:
        print(
            json.dumps(
                {
                    "field": field,
                    "games": args.games,
                    "players": args.players,
                    "seconds": times,
                    "median_seconds": statistics.median(times),
                    "widest_ci_half_width_points": widths,
                }
            )
        )


if __name__ == "__main__":
    main()
