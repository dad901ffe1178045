"""One validation layer for the command line and the Python API.

Every limit on an input (players, games, seeds, jobs, chunk sizes, strategies, rules,
card sets) is stated once here, so ``sunset_sim.simulate(players=7)`` and ``sunset-sim
simulate --players 7`` refuse the same thing with the same one-line message: an
``InputError`` (a ``ValueError``) in Python, exit code 2 on the command line. The
``name`` argument is how the caller names the input: ``"players"`` in the API,
``"--players"`` on the command line.
"""

from __future__ import annotations

import functools
import math
import numbers
import os
import re
import warnings
from collections.abc import Mapping, MappingView, Sequence, Set
from pathlib import Path
from typing import TYPE_CHECKING

from sunset_sim.enums import MAX_PLAYERS, MIN_PLAYERS

if TYPE_CHECKING:
    from sunset_sim.cards.model import CardSet
    from sunset_sim.rules.options import Rules
    from sunset_sim.strategy import Player

__all__ = [
    "MAX_GAMES",
    "MAX_PLAYERS",
    "MAX_SEED",
    "MIN_PLAYERS",
    "InputError",
    "as_cards",
    "as_rules",
    "check_chunk_size",
    "check_fraction",
    "check_games",
    "check_jobs",
    "check_names",
    "check_callback",
    "check_non_negative",
    "check_progress",
    "check_players",
    "check_seed",
    "check_strategies",
    "check_whole",
    "label_problem",
    "one_line",
    "short_number",
]

MAX_SEED = 2**64 - 1  # seeds are 64-bit: a larger one would wrap onto a smaller seed's games
MAX_GAMES = 10**10  # more than anyone plays (46 hours at 60,000 games/s), and the plan fits


class InputError(ValueError):
    """A bad input, described in one line naming the input and the problem.

    The CLI prints it as ``error: MESSAGE`` with exit code 2; in Python it is a
    ``ValueError``, so existing ``except ValueError`` code keeps working."""


# The longest error line shown: a value of 100,000 characters (a card's frame, a
# strategy text) is cut in the middle, so that the line's start and end stay readable.
MAX_LINE = 2000


def one_line(
    text: str, limit: int | None = MAX_LINE, keep: int | None = None, size: str = ""
) -> str:
    """``text`` fit for one line of a message or terminal, the one helper for it: control
    characters (a newline, an escape sequence, a right-to-left override in a file name)
    shown escaped as Python writes them (``\\n``, ``\\x1b``); a text longer than
    ``limit`` (None: no limit) cut to its first ``keep`` characters and ``...`` (then
    `` (SIZE)`` with a ``size``, what the whole was: ``12 digits``), or with no ``keep``
    in the middle, so that a whole line's start and end stay readable."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if limit is None or len(text) <= limit:
        return text
    if keep is not None:
        return f"{text[:keep]}..." + (f" ({size})" if size else "")
    half = limit // 2
    return f"{text[:half]} ... ({len(text) - 2 * half} characters left out) ... {text[-half:]}"


def first_line(error: BaseException) -> str:
    """An error's message for one line of ours: its first line (a library's message may
    run to several), or its kind where it has none."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def counted(number: int, noun: str) -> str:
    """ "1 game", "2 games", "1,000,020 games": a count with its noun (one place for the
    plural; "1 games" was written in the report's header, source and Balance caveat)."""
    return f"{number:,} {noun}{'s' * (number != 1)}"


def short_number(value: object) -> str:
    """A value in a message, cut short if it is a huge number (one line, always)."""
    text = str(value)
    return one_line(text, 24, keep=8, size=f"{len(text)} digits")


# a number as people write one here: ASCII digits, an optional sign, point and exponent
# (and inf or nan, refused later with their own words)
_DECIMAL = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
    re.IGNORECASE,
)
_WHOLE = re.compile(r"[+-]?[0-9]+")


def number_text(text: str, whole: bool = False) -> float | int:
    """``float(text)`` (``int(text)`` if ``whole``) of a number written in ASCII: Python's
    own also read "0_1" as 1 and other scripts' digits ("１", "٣"), which a user never
    meant as that number (``balanced:paint=0_1`` played paint 1, labelled paint=0_1).
    ValueError otherwise, as float() and int() raise."""
    stripped = text.strip()
    if not (_WHOLE if whole else _DECIMAL).fullmatch(stripped):
        raise ValueError(f"not a number: {text!r}")
    return int(stripped) if whole else float(stripped)


def _whole(name: str, value: object) -> int:
    """``value`` as an int: ints and numpy integers pass, bools and floats do not (a
    float count is almost always a mistake, e.g. ``games=1e6``, and would be silently cut)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name}: {short_number(repr(value))} is not a whole number")
    return int(value)


def check_players(players: object, name: str = "players") -> int:
    """Players per game: the rules are written for 2 to 4 painters."""
    number = _whole(name, players)
    if not MIN_PLAYERS <= number <= MAX_PLAYERS:
        raise InputError(
            f"{name}: {short_number(number)} is outside {MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    return number


def check_games(games: object, name: str = "games") -> int:
    """A number of games (or deals): at least one, at most ``MAX_GAMES``."""
    number = _whole(name, games)
    if number < 1:
        raise InputError(f"{name}: {short_number(number)} is not a positive number of games")
    if number > MAX_GAMES:
        raise InputError(f"{name}: {short_number(number)} is more than the limit of {MAX_GAMES:,}")
    return number


def check_deals(deals: object, name: str = "games") -> int:
    """A number of deals that paired values are measured on: at least 2, as one deal
    gives no CI (a study of 1 deal pooled NaN intervals and called cards unsettled)."""
    deals = check_games(deals, name)
    if deals < 2:
        raise InputError(f"{name}: 1 deal gives no confidence interval; give at least 2")
    return deals


def check_seed(seed: object, name: str = "seed") -> int:
    """A root seed: 0 to 2**64 - 1 (a larger one would wrap onto another seed's games)."""
    number = _whole(name, seed)
    if number < 0:
        raise InputError(f"{name}: must not be negative, got {short_number(number)}")
    if number > MAX_SEED:
        raise InputError(f"{name}: {short_number(number)} is outside 0 to 2**64 - 1")
    return number


def check_jobs(jobs: object, name: str = "jobs") -> int | None:
    """Worker threads: None or 0 for all cores, else a positive number."""
    if jobs is None:
        return None
    number = _whole(name, jobs)
    if number < 0:
        raise InputError(f"{name}: {short_number(number)} is negative")
    return number or None


MAX_CHUNK = 1_000_000  # games per chunk: a chunk's rows are held in memory (~1 GB here)


def check_chunk_size(chunk_size: object, name: str = "chunk_size") -> int:
    """Games per chunk: memory stays flat; results do not depend on it. At most
    ``MAX_CHUNK``: a chunk of 10**10 games grew by 11 MB/s until memory ran out."""
    number = _whole(name, chunk_size)
    if number < 1:
        raise InputError(f"{name}: {short_number(number)} is not positive")
    if number > MAX_CHUNK:
        raise InputError(
            f"{name}: {short_number(number)} is more than the limit of {MAX_CHUNK:,} "
            "(a chunk's rows are held in memory)"
        )
    return number


def check_flag(value: object, name: str) -> bool:
    """True or False (numpy's too), never a text or a number: resume="no" resumed."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise InputError(f"{name}: expected True or False, got {short_number(repr(value))}")


MAX_CHUNKS = 100_000  # chunks a run plans: each is a range held, a file and a manifest entry


def check_chunk_plan(games: int, chunk_size: int, name: str = "chunk_size") -> None:
    """At most ``MAX_CHUNKS`` chunks: a tester's 10**10 games in chunks of 1 grew to 3.7 GB
    before its first chunk (the plan alone), and a dataset folder rewrites its manifest
    after every chunk (4,000 chunks of 1 game took 259 s; one chunk, 1.35 s)."""
    chunks = -(-games // chunk_size)
    if chunks > MAX_CHUNKS:
        least = -(-games // MAX_CHUNKS)
        raise InputError(
            f"{name}: {games:,} games in chunks of {chunk_size:,} are {chunks:,} chunks, more "
            f"than the limit of {MAX_CHUNKS:,}; give {least:,} or more, or at most "
            f"{MAX_CHUNKS * chunk_size:,} games"
        )


def check_whole(value: object, name: str, low: int = 1, high: int | None = None) -> int:
    """A whole number from ``low`` (to ``high``): a count such as a tuner's population."""
    number = _whole(name, value)
    if number < low:
        raise InputError(f"{name}: {short_number(number)} is less than {low}")
    if high is not None and number > high:
        raise InputError(f"{name}: {short_number(number)} is more than the limit of {high:,}")
    return number


def _real(name: str, value: object) -> float:
    """``value`` as a finite float: ints, floats and numpy numbers pass; bools, texts, NaN
    and infinities do not (``0.5 < nan`` is False, so NaN would slip past a range check
    written the other way round)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}: {short_number(repr(value))} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"{name}: {number} is not a finite number")
    return number


def check_fraction(value: object, name: str, one: bool = False) -> float:
    """A share or a level strictly between 0 and 1 (a significance level, an elite share);
    ``one``: 1 itself is allowed too (a smoothing weight)."""
    number = _real(name, value)
    if not (0.0 < number <= 1.0 if one else 0.0 < number < 1.0):
        span = "above 0 and at most 1" if one else "between 0 and 1"
        raise InputError(f"{name}: {number:g} is not a fraction {span}")
    return number


def check_non_negative(value: object, name: str) -> float:
    """A finite number of at least 0 (a spread, a share of a range)."""
    number = _real(name, value)
    if number < 0:
        raise InputError(f"{name}: {number:g} is negative")
    return number


def check_title(title: object, name: str = "title") -> str:
    """A report's title as one printable line (a newline split the Markdown heading);
    the command line and ``build_report`` take the same."""
    if not isinstance(title, str):
        raise InputError(f"{name}: expected a text, got {type(title).__name__}")
    title = " ".join(title.split())
    if not title:
        raise InputError(f"{name}: empty")
    if not title.isprintable():
        raise InputError(f"{name}: {ascii(title)[:60]} holds control characters")
    return title


def check_folder_path(path: object, name: str) -> Path:
    """A folder to write into, given to the Python API: a path (not empty) that is not a
    file already there."""
    folder = Path(check_path(path, name))
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{name}: {folder} is a file, not a folder")
    return folder


def check_progress(progress: object, name: str = "progress") -> object:
    """An API's ``progress=``: True (a bar), False or None (none) or a callable told the
    games played. Checked with the other arguments, so ``progress="yes"`` is refused
    before any game is played, not when the bar would open."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise InputError(
        f"{name}: {short_number(repr(progress))} is not True, False, None or a callable"
    )


def check_path(path: object, name: str) -> str:
    """A path given to the Python API, as its text: ``Path("")`` is ".", the current
    folder, which an empty path must never be read or written as (the CLI refuses it in
    ``cli_common.check_path_text``)."""
    if not isinstance(path, str | os.PathLike):
        raise InputError(f"{name}: expected a path, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or text == "":
        raise InputError(f"{name}: empty path" if text == "" else f"{name}: expected a text path")
    return text


def check_callback(callback: object, name: str) -> object:
    """A hook such as ``on_chunk``: None or a callable (anything else would be silently
    ignored, or fail mid-run when first called)."""
    if callback is None or callable(callback):
        return callback
    raise InputError(f"{name}: {short_number(repr(callback))} is not a callable or None")


def as_rules(
    rules: Rules | Mapping | str | Sequence[str] | None,
    name: str = "rules",
    base: Rules | None = None,
) -> Rules:
    """Rule options as a ``Rules`` record, from a ``Rules``, a dict ``{"days": 4}``, one
    ``"key=value"`` text or a list of them (as ``--rule``), or None (the standard rules).
    The same forms are accepted by every API function. With ``base`` (compare's variants),
    a dict or texts change only the keys they give and None is ``base`` itself; a
    ``Rules`` record always stands as given."""
    from sunset_sim.rules.options import RuleOptionError, Rules

    if rules is None:
        return base if base is not None else Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        rules = [rules]
    changes = None
    try:
        if isinstance(rules, Mapping):
            changes = {str(key).replace("-", "_"): value for key, value in rules.items()}
        elif isinstance(rules, Sequence) and all(isinstance(text, str) for text in rules):
            parsed = Rules.parse(list(rules)).to_dict()
            given = {text.partition("=")[0].strip().replace("-", "_") for text in rules}
            changes = {key: value for key, value in parsed.items() if key in given}
        if changes is not None:
            start = base.to_dict() if base is not None else {}
            return Rules.from_dict({**start, **changes})
    except RuleOptionError as error:  # still a RuleOptionError, now naming the argument
        raise RuleOptionError(f"{name}: {error}") from None
    except TypeError as error:  # e.g. Rules(**{"days": None}) has no such problem, but be safe
        raise InputError(f"{name}: {error}") from None
    raise InputError(
        f"{name}: expected a Rules record, a dict such as {{'days': 4}} or 'key=value' texts, "
        f"got {type(rules).__name__}"
    )


def as_cards(
    cards: CardSet | str | os.PathLike | None,
    name: str = "cards",
    players: int | None = None,
    days: int | None = None,
) -> CardSet:
    """A card set from a ``CardSet``, a TOML path or None (the packaged set); with
    ``players``, also checked to be playable at that count (enough cards for ``days``)."""
    from sunset_sim.cards.edit import matching_source
    from sunset_sim.cards.loader import CardSetError, check_playable, load_cards
    from sunset_sim.cards.model import CardSet

    if isinstance(cards, CardSet):
        try:  # (one changed with dataclasses.replace: its own source and hash)
            card_set = matching_source(cards)
        except CardSetError as error:
            raise InputError(f"{name}: {error.problems[0]}") from None
    elif cards is None or isinstance(cards, str | os.PathLike):
        try:
            card_set = load_cards(cards)
        except CardSetError as error:
            more = len(error.problems) - 1
            hint = f" (and {more} more: run `sunset-sim cards --cards {cards}`)" if more else ""
            raise InputError(error.problems[0] + hint) from None
    else:
        raise InputError(
            f"{name}: expected a CardSet, a TOML file path or None, got {type(cards).__name__}"
        )
    if players is not None:
        from sunset_sim.rules.options import Rules

        problems = check_playable(card_set, players, Rules().days if days is None else days)
        if problems:
            raise InputError(problems[0])
    return card_set


def check_names(
    values: Sequence[str] | str, name: str, known: Sequence[str], allow_empty: bool = False
) -> list[str]:
    """Names from a fixed list (a study's families or edits): each one known, at least
    one unless ``allow_empty``, each once (a name given twice is the same request: its
    arms were played twice). A single text is one name (not its letters)."""
    if isinstance(values, str):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise InputError(f"{name}: expected a list of names, got {type(values).__name__}") from None
    for item in items:
        if not isinstance(item, str) or item not in known:
            shown = short_number(repr(item))
            raise InputError(f"{name}: {shown} is not one of {', '.join(known)}")
    if not items and not allow_empty:
        raise InputError(f"{name}: give at least one of {', '.join(known)}")
    return list(dict.fromkeys(items))


def label_problem(label: object) -> str | None:
    """What keeps ``label`` from naming a player in results and reports, or None: a text,
    printable and not blank (``result_rows`` refuses the same when it reads results back),
    or "" for the strategy's own name. A number there once failed mid-tournament."""
    if not isinstance(label, str):
        return f"must be a text, got {type(label).__name__}"
    if label and not (label.strip() and label.isprintable()):
        return f"{one_line(repr(label), 60, keep=57)} is blank or holds a control character"
    return None


def check_field_fits(n_strategies: int, players: int, name: str = "strategies") -> None:
    """One seat per strategy at most: simulate seats them in order, and the ones past
    the last seat were once dropped without a word."""
    if n_strategies > players:
        raise InputError(
            f"{name}: {n_strategies} strategies for {players} seats; give at most one per "
            "seat (tournament and report rotate a larger field through the seats)"
        )


def check_strategies(
    strategies: Sequence[str | Player] | str, name: str = "strategies"
) -> list[Player]:
    """Strategies as players: each a text (``"greedy:lateness=1"``, ``"balanced:params=tuned"``)
    or a ``Player``; at least one. A single text is one strategy (not its letters). A set
    or dict is refused: the seats follow the order given, and theirs is the hash order."""
    from sunset_sim.strategy import Player, StrategyError, make_player

    if isinstance(strategies, str | Player):
        strategies = [strategies]
    if isinstance(strategies, Set | Mapping | MappingView):  # seats in hash order: by chance
        raise InputError(
            f"{name}: expected an ordered list of strategy names or players, got "
            f"{type(strategies).__name__} (the seats follow the list's order)"
        )
    try:
        items = list(strategies)
    except TypeError:
        raise InputError(
            f"{name}: expected a list of strategy names or players, got {type(strategies).__name__}"
        ) from None
    if not items:
        raise InputError(f"{name}: give at least one strategy")
    players = []
    for item in items:
        if isinstance(item, Player):
            players.append(item)
        elif isinstance(item, str):
            try:
                players.append(make_player(item))
            except StrategyError as error:
                raise InputError(f"{name}: {error}") from None
        else:
            raise InputError(
                f"{name}: {short_number(repr(item))} is not a strategy name or a Player"
            )
    _check_labels(players, name)
    return players


def _check_labels(players: list, name: str) -> None:
    """Every result row and table names a seat's strategy by its label, so two players
    that play differently (another strategy or other parameters) under one label would
    be pooled into one row (the audit: two edge-lover players at 0.198 and 0.032 read as
    one at 0.115)."""
    seen: dict[str, tuple[str, bytes]] = {}
    for player in players:
        plays = (player.spec.name, player.params.tobytes())
        if seen.setdefault(player.name, plays) != plays:
            raise InputError(
                f"{name}: two players are labelled {player.name!r} but play differently "
                "(another strategy or other parameters); give each its own label: "
                "Player(spec, params, label='...')"
            )


class SameEntrantWarning(UserWarning):
    """Two entrants of a field are one strategy with the same parameter values under two
    labels (``balanced:paint=0.30`` and ``balanced:paint=0.3``): they play alike, an A/A
    pair, which may be meant (a check of the tournament itself) or a slip."""


class TournamentSeatWarning(UserWarning):
    """Fewer strategies than seats: some sit in several seats of every table (every
    command that seats a list of strategies says so: tournament, simulate, compare,
    sweep, study, report)."""


def seat_note(entrants: Sequence, players: int, beside: str = "") -> str | None:
    """One line saying who takes two seats when there are fewer strategies than seats
    (they are repeated round the table, so their n is larger), or None; none for one
    strategy alone (self-play says itself). ``beside``: words after "seats" (a sweep's
    other seats)."""
    if len({p.name for p in entrants}) < 2 or len(entrants) >= players:
        return None
    seats: dict[str, int] = {}
    for seat in range(players):
        name = entrants[seat % len(entrants)].name
        seats[name] = seats.get(name, 0) + 1
    extra = [f"{name} ({count} seats)" for name, count in seats.items() if count > 1]
    return (
        f"note: {len(entrants)} strategies for {players} seats{beside}: repeated round the "
        f"table, so {', '.join(extra)} at every table (and a larger n); give {players} "
        "strategies for one seat each"
    )


def warn_repeated(entrants: Sequence, players: int, beside: str = "") -> None:
    """``seat_note`` as a ``TournamentSeatWarning``; the command line prints it once, as a
    line at the end, however often a command seats the same field (cli_notes)."""
    note = seat_note(entrants, players, beside)
    if note is not None:
        warnings.warn(note, TournamentSeatWarning, stacklevel=2)


def memory_as_input_error(function):
    """``function`` with a MemoryError said as an InputError in one line, as the command
    line says it: run_study(games=10**9) raised numpy's "Unable to allocate 59.6 GiB for
    an array ..." with its traceback, where compare, sweep and tune refuse in one line."""

    @functools.wraps(function)
    def checked(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except MemoryError as error:
            raise InputError(f"games: {memory_text(error)}") from None

    return checked


def memory_text(error: MemoryError) -> str:
    """A MemoryError in one line, as the command line and ``memory_as_input_error`` say it."""
    detail = " ".join(str(error).split())[:160] or "out of memory"
    return f"not enough memory for this run ({detail}); use fewer games or deals"


def free_memory() -> int | None:
    """MemAvailable (Linux), None where it cannot be read: a run whose arrays need more is
    refused before its games, not after them."""
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
