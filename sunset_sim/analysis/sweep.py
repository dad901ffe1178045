"""Sweeps: one strategy parameter or one rule option played at each of a list of values,
on the same seeds for every value (common random numbers, as ``whatif.compare``), and
the plot of a sweep. Returns a tidy DataFrame; its seating and units are
``whatif``'s (module docstring there).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from sunset_sim import validation
from sunset_sim.analysis.stats import (
    balance_ci,
    ci_columns,
    deal_rate_ci,
    t_mean_ci,
)
from sunset_sim.analysis.tournament import check_distinct, seatings
from sunset_sim.analysis.whatif import (
    GAME_METRICS,
    CardsLike,
    RulesLike,
    StrategyLike,
    _check_memory,
    _check_sizes,
    _Deals,
    _play,
    _player,
    describe_variant,
    resolve_rules,
)
from sunset_sim.rules.options import RuleOptionError, Rules
from sunset_sim.run.backends import BackendOption, using_backend
from sunset_sim.run.progress import ProgressOption, combine, progress_bar
from sunset_sim.runner import DEFAULT_CHUNK
from sunset_sim.strategy import Player, StrategyError, make_player, registry

__all__ = [
    "parse_param_sweep",
    "parse_rule_sweep",
    "plot_sweep",
    "sweep",
    "sweep_games",
    "sweep_tables",
]

# --- sweep --------------------------------------------------------------------------


def parse_param_sweep(
    text: str, values: Sequence[float] | None = None
) -> tuple[str, str, list[float]]:
    """``"NAME:KEY=V1,V2,..."`` (or ``"NAME:KEY"`` with ``values``) as (name, key, values),
    each value checked against the parameter's range. Raises StrategyError (one line)."""
    if not isinstance(text, str):
        raise StrategyError(
            f"param: {validation.short_number(repr(text))} is not a text NAME:KEY=V1,V2,..."
        )
    target, sep, listed = text.partition("=")
    name, colon, key = target.partition(":")
    name, key = name.strip(), key.strip()
    if not colon or not key:
        raise StrategyError(f"{text!r} is not of the form NAME:KEY=V1,V2,...")
    specs = registry()
    if name not in specs:
        raise StrategyError(f"unknown strategy {name!r} (known: {', '.join(specs)})")
    spec = specs[name]
    known = [p.name for p in spec.parameters]
    if key not in known:
        raise StrategyError(
            f"strategy {name}: unknown parameter {key!r} (known: {', '.join(known) or 'none'})"
        )
    if values is None:
        if not sep:
            raise StrategyError(f"{text!r}: no values (NAME:KEY=V1,V2,...)")
        numbers: list[float] = []
        for item in listed.split(","):
            try:
                numbers.append(validation.number_text(item))
            except ValueError:
                raise StrategyError(
                    f"strategy {name}: {key}={item.strip()!r} is not a number"
                ) from None
    else:
        if sep:
            raise StrategyError(f"{text!r}: give the values either after '=' or as values")
        numbers = [_swept_number(name, key, v) for v in _listed(values, StrategyError)]
    _check_values(numbers, f"{name}:{key}")
    for number in numbers:
        spec.param_vector({key: number})  # the range check, as StrategyError
    return name, key, numbers


def _listed(values: object, error: type[Exception]) -> list:
    """``values`` as a list: a string is refused (``values="12"`` swept 1 and 2)."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        shown = validation.short_number(repr(values))
        raise error(f"values: expected a list of values, e.g. [0, 0.5, 1]; got {shown}")
    return list(values)


def _swept_number(name: str, key: str, value: object) -> float:
    """One of ``values`` for a parameter sweep as a float (a StrategyError if it is none;
    the range check follows in ``parse_param_sweep``)."""
    if isinstance(value, bool):  # (float(True) is 1.0: a flag is not a number here)
        raise StrategyError(f"values: strategy {name}: {key}={value} is not a number")
    try:
        return validation.number_text(value) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        shown = validation.short_number(repr(value))
        raise StrategyError(f"values: strategy {name}: {key}={shown} is not a number") from None


def parse_rule_sweep(text: str, values: Sequence | None = None) -> tuple[str, list]:
    """``"KEY=V1,V2,..."`` (or ``"KEY"`` with ``values``) as (key, values), each value a
    valid rule option. Raises RuleOptionError (one line)."""
    if not isinstance(text, str):
        raise RuleOptionError(
            f"rule: {validation.short_number(repr(text))} is not a text KEY=V1,V2,..."
        )
    key, sep, listed = text.partition("=")
    key = key.strip().replace("-", "_")
    known = sorted(Rules().to_dict())
    if key not in known:
        raise RuleOptionError(f"unknown rule option {key!r} (known: {', '.join(known)})")
    if values is None:
        if not sep:
            raise RuleOptionError(f"{text!r}: no values (KEY=V1,V2,...)")
        items = [item.strip() for item in listed.split(",")]
        parsed = [Rules.parse([f"{key}={item}"]).to_dict()[key] for item in items]
    else:
        if sep:
            raise RuleOptionError(f"{text!r}: give the values either after '=' or as values")
        values = _listed(values, RuleOptionError)
        parsed = [Rules.from_dict({key: value}).to_dict()[key] for value in values]
    _check_values(parsed, key, RuleOptionError)
    return key, parsed


def _check_values(values: list, what: str, error: type[Exception] = StrategyError) -> None:
    if not values:
        raise error(f"{what}: no values to sweep")
    seen = set()
    for value in values:
        if value in seen:
            raise error(f"{what}: value {value} is given twice")
        seen.add(value)


def _swept_player(name: str, key: str, value: float, others: set[str]) -> Player:
    text = f"{value:g}" if float(f"{value:g}") == value else repr(float(value))
    player = make_player(f"{name}:{key}={text}")
    if player.name in others:
        player = Player(player.spec, player.params, label=f"{player.name} (swept)")
    return player


def sweep_tables(
    strategies: Sequence[StrategyLike],
    players: int,
    param: tuple[str, str, float] | None = None,
) -> list[list[Player]]:
    """The tables one value of a sweep plays (every rotation; see the module docstring).

    A parameter sweep seats the swept strategy in one seat and ``strategies`` (default
    greedy) in the others, in turn, or, with more of them than the other seats, each
    group of players - 1 of them in turn (as a rule sweep or a tournament plays a larger
    field: every opponent is played, none left out); a rule sweep seats ``strategies``
    round the table."""
    entrants = [_player(s) for s in strategies] or [make_player("greedy")]
    if param is None:
        return seatings(entrants, players)
    name, key, value = param
    swept = _swept_player(name, key, value, {p.name for p in entrants})
    if len(entrants) <= players - 1:
        validation.warn_repeated(entrants, players - 1, " beside the swept one")
        table = [swept] + [entrants[seat % len(entrants)] for seat in range(players - 1)]
        return seatings(table, players)
    tables = []
    for group in itertools.combinations(entrants, players - 1):
        tables += seatings([swept, *group], players)
    return tables


def _rule_keys_given(rules: RulesLike) -> set[str]:
    """The rule options ``rules`` sets: a mapping's keys, a text's or list's, and those a
    Rules object holds at other than their default (a base rule the sweep would drop
    without a word: ``rules={"days": 3}`` beside ``rule="days=4,5"``)."""
    if rules is None:
        return set()
    if isinstance(rules, Rules):
        default = Rules().to_dict()
        return {key for key, value in rules.to_dict().items() if value != default.get(key)}
    if isinstance(rules, Mapping):
        return {str(key).strip().replace("-", "_") for key in rules}
    return set(Rules.named(rules))  # (texts: read by resolve_rules already)


def sweep(
    param: str | None = None,
    values: Sequence | None = None,
    rule: str | None = None,
    strategies: Sequence[StrategyLike] = ("greedy",),
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    cards: CardsLike = None,
    rules: RulesLike = None,
    jobs: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    progress: ProgressOption = False,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Play one setting at each of a list of values, on the same seeds for every value.

    Give exactly one of ``param`` (a strategy parameter: ``"balanced:deny=0,0.5,1,2"`` or
    ``param="balanced:deny", values=[0, 0.5, 1, 2]``) or ``rule`` (a rule option:
    ``"days=4,5,6"`` or ``rule="tie_break", values=["seat", "random"]``).

    Parameter sweep: the swept strategy sits in one seat, ``strategies`` (default greedy)
    in the others, every rotation played; one row per value for the swept strategy.
    Rule sweep: ``strategies`` round the table, every rotation; one row per value and
    strategy. Columns: ``swept``, ``value``, ``strategy``, ``n`` (deals), ``win_share``,
    ``win_share_ci_low``, ``win_share_ci_high`` (Wilson, at the deals' effective number
    of games: ``stats.deal_rate_ci``), ``mean_fame``, ``mean_fame_ci_low``,
    ``mean_fame_ci_high``,
    ``balance``, ``balance_ci_low``, ``balance_ci_high`` (seat Balance, 1 - the largest
    gap between seats' win rates), ``tie_rate``, ``early_end_rate``, ``days_played``.
    ``progress=True`` shows a ``tqdm.auto`` bar (Jupyter or stderr). ``backend``/
    ``scheduler``: where the chunks are played, as ``simulate`` takes them; same rows."""
    if (param is None) == (rule is None):
        raise validation.InputError(
            "param or rule: give exactly one (param: a strategy parameter "
            "'NAME:KEY=V1,V2,...'; rule: a rule option 'KEY=V1,V2,...')"
        )
    players, games, seed, jobs, chunk_size = _check_sizes(
        players, games, seed, jobs, chunk_size, on_chunk, progress
    )
    card_set = validation.as_cards(cards)
    base_rules = resolve_rules(rules)
    entrants = validation.check_strategies(strategies)
    check_distinct(entrants)
    rows = []
    if param is not None:
        name, key, numbers = parse_param_sweep(param, values)
        total = sweep_games(entrants, players, games, (name, key, numbers))
    else:
        key, options = parse_rule_sweep(rule, values)
        if key in _rule_keys_given(rules):  # (as the command line's --rule)
            raise validation.InputError(f"rules: {key} is the option swept by rule")
        total = sweep_games(entrants, players, games, rule_values=len(options))
    # (a value's sums at a time; a sweep too big had played on for hours toward the kill)
    swept = (name, key, numbers[0]) if param is not None else None
    labels = len({p.name for table in sweep_tables(entrants, players, swept) for p in table})
    _check_memory(games, players, labels, held=1, what="each value's")
    with (
        using_backend(backend, jobs, scheduler) as runner,
        progress_bar(progress, total) as on_games,
    ):
        told = combine(on_chunk, on_games)

        def play(tables: list[list[Player]], variant: Rules) -> _Deals:
            return _play(
                tables, players, games, seed, card_set, variant, jobs, chunk_size, told, 0,
                runner,
            )  # fmt: skip

        if param is not None:
            for number in numbers:
                tables = sweep_tables(entrants, players, (name, key, number))
                # a value at which the swept strategy plays as an opponent does: a note
                # (balanced:deny=0 beside balanced), as a tournament's field gets
                check_distinct([tables[0][0], *entrants])
                deals = play(tables, base_rules)
                rows.append(_sweep_row(f"{name}:{key}", number, tables[0][0].name, deals))
        else:
            tables = sweep_tables(entrants, players)
            for option in options:
                deals = play(tables, Rules.from_dict({**base_rules.to_dict(), key: option}))
                for label in deals.labels:
                    rows.append(_sweep_row(key, option, label, deals))
    frame = pd.DataFrame(rows)
    frame.attrs.update(
        kind="param" if param is not None else "rule",
        swept=frame["swept"].iloc[0],
        games=games,
        players=players,
        cards=describe_variant(card_set, base_rules),
    )
    return frame


def _sweep_row(swept: str, value, label: str, deals: _Deals) -> dict:
    shares = deals.strategy(label, "win_share")
    n = int(np.asarray(shares).size)
    # Wilson (not zero-width at 0 or 1) at the deals' effective number of games
    win = deal_rate_ci(shares, deals.seats[label])
    # Student's t over the deals: the normal's covered 85.8% on 4 deals
    fame, fame_lo, fame_hi, _ = t_mean_ci(deals.strategy(label, "mean_fame"))
    fair, fair_lo, fair_hi, _ = balance_ci(deals.seat_shares())
    return {
        "swept": swept,
        "value": value,
        "strategy": label,
        "n": n,
        **ci_columns("win_share", *win),
        **ci_columns("mean_fame", fame, fame_lo, fame_hi),
        "balance": fair,
        "balance_ci_low": fair_lo,
        "balance_ci_high": fair_hi,
        **{metric: float(deals.game_values(metric).mean()) for metric in GAME_METRICS},
    }


def sweep_games(
    strategies: Sequence[StrategyLike],
    players: int,
    games: int,
    param: tuple[str, str, list[float]] | None = None,
    rule_values: int = 0,
) -> int:
    """How many games a sweep plays (for a progress bar): ``param`` as parse_param_sweep
    returns it, or the number of rule values."""
    if param is not None:
        name, key, numbers = param
        tables = sweep_tables(strategies, players, (name, key, numbers[0]))
        return games * len(numbers) * len(tables)
    return games * rule_values * len(sweep_tables(strategies, players))


# --- plot ---------------------------------------------------------------------------


def plot_sweep(frame: pd.DataFrame, path: str | os.PathLike | None = None):
    """Plot a sweep's effect with 95% CI error bars: win share and mean fame against the
    value per strategy, and seat Balance for a rule sweep. Returns the matplotlib
    ``Figure`` (shown inline in a notebook); with ``path`` it is also written there, whole
    or not at all. The figure is made without pyplot, so the caller's backend and open
    figures are left as they were."""
    from sunset_sim.analysis.report.plotting import plain_text

    _check_sweep_frame(frame)
    if path is not None:
        _check_plot_path(path)
    with plain_text():
        return _plot_sweep(frame, path)


PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _check_plot_path(path: object) -> None:
    """Where ``plot_sweep`` may write, checked before it draws: a file name ending in
    one of PLOT_SUFFIXES (none: PNG) in a folder that exists."""
    target = Path(validation.check_path(path, "path"))
    if target.suffix and target.suffix.lower() not in PLOT_SUFFIXES:
        raise validation.InputError(f"path: {target} must end in .png, .svg or .pdf")
    if target.is_dir():
        raise validation.InputError(f"path: {target} is a folder, not a file")
    if not target.parent.is_dir():
        raise validation.InputError(f"path: {target.parent} is not a folder that exists")


SWEEP_PLOTTED = tuple(
    ["swept", "value", "strategy", "n"]
    + [f"{m}{end}" for m in ("win_share", "mean_fame") for end in ("", "_ci_low", "_ci_high")]
)
BALANCE_PLOTTED = ("balance", "balance_ci_low", "balance_ci_high")  # a rule sweep's third panel


def _check_sweep_frame(frame: object) -> None:
    """What ``sweep`` returns, or a one-line InputError saying what the frame lacks (a
    KeyError on 'value' said nothing of what was wrong)."""
    if not isinstance(frame, pd.DataFrame):
        raise validation.InputError(
            f"frame: expected the DataFrame that sweep() returns, got {type(frame).__name__}"
        )
    missing = [column for column in SWEEP_PLOTTED if column not in frame.columns]
    if not missing and frame.empty:
        raise validation.InputError("frame: no rows (a sweep result has one per value)")
    if not missing and _rule_sweep(frame):
        missing = [column for column in BALANCE_PLOTTED if column not in frame.columns]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise validation.InputError(
            f"frame: missing column {missing[0]!r}{more}: not a sweep result (plot_sweep "
            "draws the frame that sweep() returns)"
        )


def _rule_sweep(frame: pd.DataFrame) -> bool:
    """A rule sweep (seat Balance too), as ``frame.attrs`` says, else as its ``swept``
    column says (a parameter is named ``strategy:key``)."""
    kind = frame.attrs.get("kind")
    return kind == "rule" if kind else ":" not in str(frame["swept"].iloc[0])


def _plot_sweep(frame: pd.DataFrame, path: str | os.PathLike | None):
    from sunset_sim.analysis.report.plotting import _figure, glyphs_said_once

    values = list(dict.fromkeys(frame["value"]))
    numeric = all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in values
    )
    positions = {v: (float(v) if numeric else i) for i, v in enumerate(values)}
    rule_sweep = _rule_sweep(frame)
    panels = 3 if rule_sweep else 2
    figure, axes = _figure(4.6 * panels, 3.8, ncols=panels, layout="constrained")
    # a parameter sweep is one series (its strategy label names the value)
    strategies = list(dict.fromkeys(frame["strategy"])) if rule_sweep else [None]
    spread = 0.0 if numeric or len(strategies) == 1 else 0.08
    if numeric:  # joined in the order of value, not as given (2, 0, 1 drew a zigzag)
        frame = frame.iloc[np.argsort(frame["value"].to_numpy(dtype=float), kind="stable")]
    for i, label in enumerate(strategies):
        part = frame if label is None else frame[frame["strategy"] == label]
        x = np.array([positions[v] for v in part["value"]]) + spread * (
            i - (len(strategies) - 1) / 2
        )
        for axis, column, low, high in (
            (axes[0], "win_share", "win_share_ci_low", "win_share_ci_high"),
            (axes[1], "mean_fame", "mean_fame_ci_low", "mean_fame_ci_high"),
        ):
            middle = part[column].to_numpy()
            errors = np.vstack([middle - part[low].to_numpy(), part[high].to_numpy() - middle])
            axis.errorbar(x, middle, yerr=errors, marker="o", capsize=4, label=label)
    if rule_sweep:
        games = frame.drop_duplicates("value")
        middle = games["balance"].to_numpy()
        errors = np.vstack(
            [
                middle - games["balance_ci_low"].to_numpy(),
                games["balance_ci_high"].to_numpy() - middle,
            ]
        )
        x = [positions[v] for v in games["value"]]
        axes[2].errorbar(x, middle, yerr=errors, marker="s", capsize=4, color="black")
        axes[2].set_ylabel("seat Balance (1 = fair)")
    swept = frame["swept"].iloc[0]
    titles = ("win share", "mean fame", "seat Balance")
    for axis, title in zip(axes, titles, strict=False):
        axis.set_xlabel(swept)
        axis.set_title(title)
        if not numeric:
            axis.set_xticks(list(positions.values()), [str(v) for v in values])
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("win share (95% CI)")
    axes[1].set_ylabel("mean fame (95% CI)")
    if len(strategies) > 1:
        axes[0].legend(fontsize="small")
    figure.suptitle(f"sweep of {swept}: {frame['n'].iloc[0]} deals per value, same seeds")
    if path is not None:
        import io

        from sunset_sim.files import write_atomically

        buffer = io.BytesIO()
        suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or "png"
        with glyphs_said_once():
            figure.savefig(buffer, format=suffix, dpi=110)
        write_atomically(path, buffer.getvalue())
    return figure
