"""Where the fast engine's time goes, per compiled function, with perf.

numba's machine code has no symbols perf can see. This script compiles the engine and
the strategies in a fresh, temporary cache (so that their object code is at hand), plays
games, and writes each compiled library's object file and load address; ``report`` then
maps perf's samples to the functions of those objects (the engine is one function,
``play_games``, with every phase inlined; strategies' ``choose_*`` helpers and a few
small engine helpers stay separate functions).

    perf record -F 4000 -o perf.data python scripts/profile_engine.py run greedy 100000 prof/
    python scripts/profile_engine.py report perf.data prof/
    python scripts/profile_engine.py hot perf.data prof/ choose_plan    # within one function
    python scripts/profile_engine.py masked prof/    # masked loads and gathers, per function

``run`` takes a card-set file as a fifth argument (default: the shipped set), to profile a
strategy on one kind of goal or commission.

``run`` compiles first (a minute or more: those samples fall outside the game code and
are reported apart). Shares are of all samples; "outside" is Python, numpy and the
compiler. ``hot`` ranks the 64-byte blocks of one compiled function (of those whose
label contains the given text, the one with the most samples) by their samples and
prints each hot block's instructions (objdump; the addresses are offsets in the object
file): the compiled code has no line numbers, so this is how the time inside a function
this size is told apart. A sample lands a few instructions after the one that waited.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(strategy: str, games: int, out: Path, cards: str | None = None) -> int:
    """Compile in a fresh cache, play ``games`` games of ``strategy`` alone on one thread,
    and write the compiled objects and their addresses to ``out``."""
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="sunset-profile-")
    os.environ["SUNSET_SIM_COMPILE_JOBS"] = "1"  # compile here: the objects stay in memory
    from numba.core.dispatcher import Dispatcher

    from sunset_sim.cards.loader import load_cards
    from sunset_sim.cards.tables import build_tables
    from sunset_sim.engine import decisions, kernel
    from sunset_sim.engine.batch import run_games
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import numba_threads
    from sunset_sim.strategy import seat_players

    tables = build_tables(load_cards(cards))
    players = seat_players(strategy.split(","), 4)
    with numba_threads(1):
        run_games(tables, players, Rules(), 0, 0, 10)  # compiles
        start = time.perf_counter()
        for first in range(0, games, 20000):
            run_games(tables, players, Rules(), 0, first, min(20000, games - first))
        seconds = time.perf_counter() - start
    print(f"{games:,} games in {seconds:.2f} s: {games / seconds:,.0f} games/s", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    libraries = []
    # Every function compiled here: a call between compiled functions may run the
    # callee's own library rather than the copy linked into the caller.
    dispatchers = [("play_games", kernel.play_games)]
    dispatchers += [(d.py_func.__name__, d) for _, d in decisions._ADAPTERS.values()]
    known = {id(d) for _, d in dispatchers}
    dispatchers += [
        (f"{d.py_func.__module__}.{d.py_func.__name__}", d)
        for d in gc.get_objects()
        if isinstance(d, Dispatcher) and id(d) not in known
    ]
    for number, (label, dispatcher) in enumerate(dispatchers):
        # one file per overload: a function compiled for two signatures (a constant
        # argument makes a second one) must not overwrite its first object file
        for version, result in enumerate(dispatcher.overloads.values()):
            try:
                code = result.library._get_compiled_object()
            except RuntimeError:  # loaded from numba's own cache: not compiled here
                continue
            suffix = f".{version}" if version else ""
            path = out / f"{number:03d}-{label}{suffix}.o"
            path.write_bytes(code)
            symbol = result.fndesc.llvm_func_name
            address = result.library.get_pointer_to_function(symbol)
            libraries.append(
                {"label": label, "path": str(path), "symbol": symbol, "address": address}
            )
    (out / "libraries.json").write_text(json.dumps(libraries, indent=1))
    return 0


def _functions(path: str) -> list[tuple[int, int, str]]:
    """(offset, size, name) of every function in an object file."""
    listing = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout
    found = []
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[3] == "FUNC":
            found.append((int(parts[1], 16), int(parts[2]), parts[7]))
    return found


def _short(name: str) -> str:
    """A mangled numba name (_ZN<len><word>...) as its last two words: module.function."""
    position = name.find("_ZN")
    if position < 0:
        return name[:60]
    position += 3
    words = []
    while position < len(name) and name[position].isdigit():
        digits = re.match(r"\d+", name[position:]).group()
        position += len(digits)
        words.append(name[position : position + int(digits)])
        position += int(digits)
    return ".".join(words[-2:]) if words else name[:60]


def _samples(data: str) -> collections.Counter:
    """perf's samples: how many at each instruction address."""
    script = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True
    ).stdout
    return collections.Counter(int(word, 16) for word in script.split())


def _libraries(folder: Path, wanted: str = "") -> list[tuple[dict, int, list, tuple]]:
    """Every compiled library written by ``run`` whose label contains ``wanted`` (a
    function compiled for two signatures has two): (its entry, the run-time address of
    offset 0 of its object file, the functions in that file, its main function)."""
    found = []
    for library in json.loads((folder / "libraries.json").read_text()):
        if wanted in library["label"]:
            functions = _functions(library["path"])
            main = [f for f in functions if f[2] == library["symbol"]]
            if main:
                found.append((library, library["address"] - main[0][0], functions, main[0]))
    return found


def report(data: str, folder: Path) -> int:
    """Samples per compiled function, as shares of all samples."""
    samples = _samples(data)
    total = sum(samples.values())
    spans = [
        (library["label"], base, functions) for library, base, functions, _ in _libraries(folder)
    ]
    per_function: collections.Counter = collections.Counter()
    for ip, count in samples.items():
        for label, base, functions in spans:
            hit = [f for f in functions if base + f[0] <= ip < base + f[0] + f[1]]
            if hit:
                per_function[(label, _short(hit[0][2]))] += count
                break
        else:
            per_function[("outside", "Python, numpy, compiling")] += count
    outside = per_function.pop(("outside", "Python, numpy, compiling"), 0)
    in_games = total - outside
    print(f"{total:,} samples; {outside / total:.1%} outside the compiled code (Python, numpy,")
    print("compiling); below, shares of the samples in compiled code (the games):")
    for (label, function), count in per_function.most_common(30):
        print(f"{count / in_games:7.1%}  {function}  ({label})")
    return 0


def hot(data: str, folder: Path, wanted: str, blocks: int = 12) -> int:
    """The hottest 64-byte blocks of one function (of the matching ones, the one with the
    most samples), with their instructions."""
    candidates = _libraries(folder, wanted)
    if not candidates:
        print(f"profile_engine.py: no compiled function with {wanted!r} in its label",
              file=sys.stderr)  # fmt: skip
        return 2
    samples = _samples(data)
    best: tuple[int, collections.Counter, dict, int, int] | None = None
    for library, base, _, (start, size, _) in candidates:
        counts: collections.Counter = collections.Counter()
        for ip, count in samples.items():
            if start <= ip - base < start + size:
                counts[(ip - base) // 64 * 64] += count
        if best is None or sum(counts.values()) > best[0]:
            best = (sum(counts.values()), counts, library, start, size)
    assert best is not None
    _, per_block, library, start, size = best
    total = sum(per_block.values())
    print(f"{library['label']} ({library['path']}): {total:,} samples in {size:,} bytes")
    # the whole function at once: a listing started inside an instruction decodes garbage
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--start-address={start}",
         f"--stop-address={start + size}", library["path"]],
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    instructions = collections.defaultdict(list)
    for line in listing.splitlines():
        address = re.match(r"\s+([0-9a-f]+):", line)
        if address:
            text = re.sub(r"<_ZN[^>]*>", "", line).strip()
            instructions[int(address.group(1), 16) // 64 * 64].append(text)
    for block, count in per_block.most_common(blocks):
        print(f"\n{count / total:6.1%}  offset {block:#x}")
        for text in instructions[block]:
            print("   " + text)
    return 0


# masked loads and gathers: what LLVM makes of a vectorized loop with a conditional load
# (``x |= table[i] if test else 0``); slow on AMD EPYC (session 33: about three times a
# plain load and mask)
MASKED = re.compile(r"\s(v?p?maskmov\w*|v?p?gather\w*)\s")


def masked(folder: Path) -> int:
    """The masked loads and gathers in each compiled function written by ``run``."""
    found = 0
    for library, _, _, (start, size, _) in _libraries(folder):
        listing = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", f"--start-address={start}",
             f"--stop-address={start + size}", library["path"]],
            capture_output=True, text=True,
        ).stdout  # fmt: skip
        hits = [line.strip() for line in listing.splitlines() if MASKED.search(line)]
        if hits:
            found += len(hits)
            print(f"{len(hits):4}  {library['label']}")
            for line in hits[:4]:
                print("        " + re.sub(r"<_ZN[^>]*>", "", line))
    print(f"{found} masked loads or gathers in all")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) in (4, 5) and argv[0] == "run":
        return run(argv[1], int(argv[2]), Path(argv[3]), *argv[4:])
    if len(argv) == 3 and argv[0] == "report":
        return report(argv[1], Path(argv[2]))
    if len(argv) == 4 and argv[0] == "hot":
        return hot(argv[1], Path(argv[2]), argv[3])
    if len(argv) == 2 and argv[0] == "masked":
        return masked(Path(argv[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
