"""Strategies: what one is, the registry, and how the reference engine asks one.

A strategy is one numba-compatible function

    decide(kind, obs, options, n_options, params, rng, tables) -> option index

``kind`` is an ``enums.DECIDE_*`` code, ``obs`` the observation (observation.py),
``options`` the legal choices (one row each), ``params`` a float64 vector, ``rng`` the
player's own strategy stream (draw with ``strategy_tools.rng_below``), ``tables`` the
card tables. It sees nothing else, so the same function runs in both engines. A
decision with a single legal option is never put to a strategy.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import numbers
import os
import pkgutil
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sunset_sim import strategy_path
from sunset_sim.files import JSONTextError, parse_json
from sunset_sim.strategy_path import STRATEGY_PATH_VARIABLE
from sunset_sim.validation import InputError, label_problem, number_text, one_line, short_number


class StrategyError(InputError):
    """An unknown strategy or a bad parameter."""


class StrategyFault(RuntimeError):
    """A strategy failed while it played (a bug in that strategy, not in the input or the
    engine): both engines raise one of these, naming the strategy, in one line."""


class IllegalChoiceError(StrategyFault):
    """A strategy answered a decision with something that is not one of its options (an
    index out of range, None, a float, a string): a bug in that strategy."""

    def __init__(
        self, name: str, choice: object, n_options: int | None = None, file: str | None = None
    ):
        if isinstance(choice, numbers.Integral) and not isinstance(choice, bool):
            answer, kind = f"chose option {choice} of {n_options}", "an"
        elif choice is None:
            answer, kind = "returned None", "an integer"
        else:
            answer = f"returned {type(choice).__name__} {_brief_text(repr(choice))}"
            kind = "an integer"
        where = f" ({file})" if file else ""
        super().__init__(
            f"strategy {name} {answer}: decide must return {kind} index from 0 to "
            f"n_options - 1{where}"
        )
        self.name, self.choice, self.n_options, self.file = name, choice, n_options, file

    @classmethod
    def of(
        cls, name: str, decide: Callable, choice: object, n_options: int | None = None
    ) -> IllegalChoiceError:
        """The error naming ``decide``'s source file, so a plug-in's bug is found at once."""
        return cls(name, choice, n_options, decide_file(decide))

    def __reduce__(self):  # (picklable, for a Dask worker's error)
        return (IllegalChoiceError, (self.name, self.choice, self.n_options, self.file))


class StrategyRaisedError(StrategyFault):
    """A strategy's ``decide`` raised an exception: its name, its file and the exception,
    in one line (the exception itself is the ``__cause__`` where Python has it)."""

    def __init__(self, name: str, error: str, file: str):
        super().__init__(f"strategy {name}'s decide raised {error} ({file})")
        self.name, self.error, self.file = name, error, file

    @classmethod
    def of(cls, name: str, decide: Callable, error: BaseException) -> StrategyRaisedError:
        """The error naming ``decide``'s source file and the exception in one short line;
        where Python ran the code (the reference engine, NUMBA_DISABLE_JIT=1), the file
        and line that raised it, as writing-a-strategy.md promises (a tester's line named
        the file alone)."""
        error_text = f"{type(error).__name__}: {_brief_text(str(error))}"
        return cls(name, error_text, _raised_at(error) or decide_file(decide) or "unknown file")

    def __reduce__(self):  # (picklable, for a Dask worker's error)
        return (StrategyRaisedError, (self.name, self.error, self.file))


def _raised_at(error: BaseException) -> str | None:
    """ "FILE, line N" of the innermost frame of ``error``'s traceback outside numba, numpy
    and this package (the strategy's own code), None if there is none (compiled code)."""
    import os

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    found = None
    frame = error.__traceback__
    while frame is not None:
        file = frame.tb_frame.f_code.co_filename
        library = any(f"{os.sep}{name}{os.sep}" in file for name in ("numba", "numpy"))
        if not library and not os.path.abspath(file).startswith(package):
            found = f"{file}, line {frame.tb_lineno}"
        frame = frame.tb_next
    return found


def decide_file(decide: Callable) -> str | None:
    """The source file of a strategy's ``decide`` (compiled or not), None if it has none."""
    code = getattr(getattr(decide, "py_func", decide), "__code__", None)
    return code.co_filename if code is not None else None


def _brief_text(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut at ``limit`` characters."""
    return one_line(" ".join(text.split()), limit, keep=limit - 3)


@dataclass(frozen=True)
class Parameter:
    """One tunable number of a strategy; ``integer``: a count (samples, candidates), so a
    fraction is refused rather than cut off where the strategy reads it."""

    name: str
    default: float
    low: float
    high: float
    help: str = ""
    integer: bool = False


def parameter_indices(parameters: tuple[Parameter, ...], *names: str) -> tuple[int, ...]:
    """The params-vector index of each parameter, for a strategy's index constants:
    ``LATENESS, GOAL = parameter_indices(PARAMETERS, "lateness", "goal")``. The names must
    be the declaration's, in its order, so the constants cannot drift from it."""
    declared = tuple(p.name for p in parameters)
    if names != declared:
        raise StrategyError(
            f"parameter constants {', '.join(names)} do not match the declared parameters "
            f"{', '.join(declared)}"
        )
    return tuple(range(len(declared)))


# The longest strategy name: it is typed on command lines and printed in every table.
NAME_LIMIT = 64


def _parameter_problem(p: object) -> str | None:
    """What makes a parameter unusable, or None: a name not addressable as ``NAME:key=v``
    (``params`` names a file), a bound or default not finite (NaN passes range checks)."""
    if not isinstance(p, Parameter):
        return f"parameters holds {short_number(repr(p))}, not a Parameter"
    if not isinstance(p.name, str) or not p.name:
        return f"parameter name {short_number(repr(p.name))} is empty or not a text"
    shown = one_line(repr(p.name), 40, keep=37)
    if p.name == "params":
        return "parameter name 'params' is taken: NAME:params=FILE reads a params file"
    if not p.name.isprintable():
        return f"parameter name {shown} holds a control character"
    if any(mark in p.name for mark in "=,:") or any(c.isspace() for c in p.name):
        return f"parameter name {shown} may not hold '=', ',', ':' or spaces"
    for what in ("default", "low", "high"):
        value = getattr(p, what)
        if not isinstance(value, numbers.Real):  # (a bool is 0 or 1, as before)
            return f"parameter {shown}: {what} {short_number(repr(value))} is not a number"
        if not np.isfinite(float(value)):
            return f"parameter {shown}: {what} {value} is not a finite number"
    if not isinstance(p.help, str):  # (printed by `strategies`; a 7 there was taken)
        return f"parameter {shown}: help {short_number(repr(p.help))} is not a text"
    if not isinstance(p.integer, bool | np.bool_):  # ("yes" read as true)
        return f"parameter {shown}: integer {short_number(repr(p.integer))} is not True or False"
    if p.integer and p.default != round(p.default):
        return f"parameter {shown}: default {p.default:g} of a count is not a whole number"
    if p.integer and np.ceil(p.low) > p.high:
        return f"parameter {shown}: the range {p.low:g}..{p.high:g} holds no whole number"
    return None


DECIDE_ARGUMENTS = ("kind", "obs", "options", "n_options", "params", "rng", "tables")


def _arity_problem(decide: Callable) -> str | None:
    """decide must take the engine's seven arguments: one with six gave numba's binding
    error ("Cannot bind 'args=[Var(kind, ...") on the fast engine and "raised TypeError"
    on the reference engine."""
    try:
        signature = inspect.signature(getattr(decide, "py_func", decide))
    except (TypeError, ValueError):  # (no signature to read: left to the engines)
        return None
    try:
        signature.bind(*DECIDE_ARGUMENTS)
    except TypeError:
        listed = ", ".join(signature.parameters)
        return f"decide must take 7 arguments ({', '.join(DECIDE_ARGUMENTS)}); it takes ({listed})"
    return None


@dataclass(frozen=True)
class StrategySpec:
    """A strategy as the tools see it.

    ``reads_unseen_commissions``: False promises that ``decide`` never depends on the
    card data of a commission the game has not yet turned up (in the row or as the
    preview): the fame and frames of cards still in the deck. Studies then replay a set
    whose commission fame was edited only on the deals where that commission turned up
    (the other games are the same to the bit). The default, True, is always safe;
    ``sunset_sim.testing.check_strategy`` tests the promise when it is made."""

    name: str
    description: str
    decide: Callable
    parameters: tuple[Parameter, ...] = ()
    reads_unseen_commissions: bool = True

    def __post_init__(self) -> None:
        """A declaration that could never be seated as written is refused here, in one
        line naming the strategy, not later as if the user had given a bad value."""
        if isinstance(self.parameters, list):  # (a tuple, so that the spec stays hashable)
            object.__setattr__(self, "parameters", tuple(self.parameters))
        problem = self._problem()
        if problem is not None:
            shown = self.name if isinstance(self.name, str) and self.name else repr(self.name)
            shown = shown if len(shown) <= NAME_LIMIT else shown[:NAME_LIMIT] + "..."
            raise StrategyError(
                f"strategy {shown if shown.isprintable() else ascii(shown)}: {problem}"
            )

    def _problem(self) -> str | None:
        """The first thing wrong with this declaration, or None."""
        if not isinstance(self.name, str) or not self.name:
            return "its name is empty (or not a string): it could never be named to seat it"
        if len(self.name) > NAME_LIMIT:
            return f"its name is {len(self.name)} characters long, more than {NAME_LIMIT}"
        if not self.name.isprintable():
            return "its name holds a control character"
        if any(mark in self.name for mark in ":=,") or self.name != self.name.strip():
            return "its name may not hold ':', '=', ',' or surrounding spaces"
        if not callable(self.decide):
            return f"decide must be a function, got {type(self.decide).__name__}"
        arity = _arity_problem(self.decide)
        if arity is not None:
            return arity
        if not isinstance(self.parameters, tuple):
            return f"parameters must be a tuple of Parameter, got {type(self.parameters).__name__}"
        for p in self.parameters:
            problem = _parameter_problem(p)
            if problem is not None:
                return problem
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            twice = next(name for name in names if names.count(name) > 1)
            return f"parameter {twice!r} is declared twice"
        for p in self.parameters:
            if not p.low <= p.high:
                return f"parameter {p.name!r}: low {p.low:g} is above high {p.high:g}"
            if not p.low <= p.default <= p.high:
                return (
                    f"parameter {p.name!r}: default {p.default:g} is outside its range "
                    f"{p.low:g}..{p.high:g}"
                )
        return None

    def param_vector(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        """The parameter vector in declaration order, defaults overridden by name."""
        overrides = dict(overrides or {})
        names = [p.name for p in self.parameters]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            known = ", ".join(names) or "none"
            raise StrategyError(
                f"strategy {self.name}: unknown parameter {unknown[0]!r} (known: {known})"
            )
        values = []
        for p in self.parameters:
            given = overrides.get(p.name, p.default)
            try:
                values.append(float(given))
            except (TypeError, ValueError):
                shown = repr(given)[:40]
                raise StrategyError(
                    f"strategy {self.name}: {p.name}={shown} is not a number"
                ) from None
        for p, value in zip(self.parameters, values, strict=True):
            self.check_value(p, value)
        return np.array(values, dtype=np.float64)

    def check_value(self, p: Parameter, value: float) -> None:
        """One parameter's value within its declared range (and whole for a count): the
        one check for a ``NAME:key=value`` text, a params file and a ``Player``'s vector."""
        if value != value:
            raise StrategyError(f"strategy {self.name}: {p.name}=nan is not a number")
        # the value as given: "{:g}" said deny=3 of 3.0000001 "is outside 0..3"
        shown = f"{value:g}" if float(f"{value:g}") == value else repr(float(value))
        if not p.low <= value <= p.high:
            raise StrategyError(
                f"strategy {self.name}: {p.name}={shown} is outside {p.low:g}..{p.high:g}"
            )
        if p.integer and value != round(value):
            raise StrategyError(
                f"strategy {self.name}: {p.name}={shown} is not a whole number "
                f"({p.low:g}..{p.high:g})"
            )


@dataclass(frozen=True)
class Player:
    """A strategy with its parameter values: what sits in a seat.

    ``params`` is one value per declared parameter, in declaration order (as
    ``spec.param_vector()`` gives it); it is checked here, because the engine reads it
    unchecked: a short vector played as zeros and a NaN as no preference at all. It is
    kept as a read-only float64 copy (a list or an int array is converted), so a value
    written in later cannot skip that check. ``label`` names the player in every table
    (default: the strategy's name): a printable text, refused here rather than when a
    report reads it back."""

    spec: StrategySpec
    params: np.ndarray = field(compare=False)
    label: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.spec, StrategySpec):
            raise StrategyError(
                f"Player: spec must be a StrategySpec, got {type(self.spec).__name__} "
                "(make_player('NAME') seats a strategy by name)"
            )
        spec = self.spec
        if self.label is None:  # (None: no label of its own, as "")
            object.__setattr__(self, "label", "")
        if (problem := label_problem(self.label)) is not None:  # one rule with the results'
            raise StrategyError(f"strategy {spec.name}: label {problem}")
        names = [p.name for p in spec.parameters]
        expected = f"{len(names)} value{'s' * (len(names) != 1)} ({', '.join(names) or 'none'})"
        try:
            params = np.array(self.params, dtype=np.float64)  # a copy: the caller's stays
        except (TypeError, ValueError):
            raise StrategyError(
                f"strategy {spec.name}: params must be numbers, {expected}"
            ) from None
        if params.ndim != 1 or params.size != len(names):
            given = f"{params.size} values" if params.ndim == 1 else f"shape {params.shape}"
            raise StrategyError(
                f"strategy {spec.name}: params has {given}; expected a vector of {expected}"
            )
        for p, value in zip(spec.parameters, params.tolist(), strict=True):
            spec.check_value(p, value)
        params.setflags(write=False)
        object.__setattr__(self, "params", params)

    @property
    def name(self) -> str:
        return self.label or self.spec.name


_REGISTRY: dict[str, StrategySpec] = {}


def forget_registry() -> None:
    """Empty the registry: the next ``registry()`` call builds it again from the folders
    named now (``strategy_path.one_command``)."""
    _REGISTRY.clear()


def register(spec: StrategySpec) -> StrategySpec:
    _REGISTRY[spec.name] = spec
    return spec


OURS = ("sunset_sim", "sunset_sim.strategies")  # this project's strategies' packages


def registry() -> dict[str, StrategySpec]:
    """Every known strategy: the built-ins (``sunset_sim.strategies``, the top-level
    ``strategies/`` folder of the source tree), the modules of the folders in
    ``SUNSET_SIM_STRATEGY_PATH`` (``--strategy-path``) and the entry-point plug-ins.
    A plug-in cannot replace a built-in: a reused name is skipped with a warning."""
    if _REGISTRY and strategy_path.edited():  # (a notebook's plug-in, edited: play the edit)
        _REGISTRY.clear()  # (folder_strategies imports the edited folders' modules again)
    if not _REGISTRY:
        builtin = importlib.import_module("sunset_sim.strategies")
        for module in pkgutil.iter_modules(builtin.__path__):
            imported = importlib.import_module(f"sunset_sim.strategies.{module.name}")
            spec = getattr(imported, "STRATEGY", None)
            if isinstance(spec, StrategySpec):
                register(spec)
        taken_by: dict[str, str] = {}  # a plug-in's name: its module's file
        for folder in strategy_path.folders():
            for spec, source in strategy_path.folder_strategies(folder, StrategySpec):
                if spec.name in _REGISTRY:
                    owner = taken_by.get(spec.name, "a built-in strategy")
                    warnings.warn(
                        f"strategy {spec.name!r} in {source}: the name is taken by {owner}: "
                        "skipped",
                        stacklevel=2,
                    )
                else:
                    register(spec)
                    taken_by[spec.name] = str(source)
        from importlib.metadata import entry_points

        for entry in entry_points(group="sunset_sim.strategies"):
            try:  # (its prints to stderr, as a --strategy-path module's)
                with contextlib.redirect_stdout(sys.stderr):
                    spec = entry.load()
            except Exception as error:  # noqa: BLE001 - a broken plug-in must not break the tool
                warnings.warn(
                    f"strategy plug-in {entry.name!r} failed to load: {error}", stacklevel=2
                )
                continue
            if not isinstance(spec, StrategySpec):
                warnings.warn(
                    f"strategy plug-in {entry.name!r} is not a StrategySpec", stacklevel=2
                )
            elif spec.name in _REGISTRY:
                warnings.warn(
                    f"strategy plug-in {entry.name!r} reuses the name {spec.name!r}", stacklevel=2
                )
            else:
                register(spec)
    return dict(sorted(_REGISTRY.items()))


def add_strategy_path(folder: str | os.PathLike) -> None:
    """Make the strategies in ``folder`` (each module defining ``STRATEGY``) known, here
    and in worker processes started later (it goes into ``SUNSET_SIM_STRATEGY_PATH``).
    An empty path is refused: it would import every module of the current folder."""
    if not isinstance(folder, str | os.PathLike):
        raise StrategyError(f"strategy path: expected a folder, got {type(folder).__name__}")
    if isinstance(folder, str) and not folder.strip():
        raise StrategyError("strategy path '': empty path")
    path = Path(folder).resolve()
    if not path.is_dir():
        raise StrategyError(f"strategy path {folder}: not a folder")
    known = strategy_path.folders()
    if str(path) not in known:
        os.environ[STRATEGY_PATH_VARIABLE] = os.pathsep.join([*known, str(path)])
    _REGISTRY.clear()


def plugin_file(spec: StrategySpec) -> str | None:
    """The source file of ``spec``'s ``decide`` if it is a user's (--strategy-path, entry
    point, own code: a failure to compile is said in one line), else None (a bug: whole)."""
    code = getattr(getattr(spec.decide, "py_func", spec.decide), "__code__", None)
    if code is None:
        return None
    file = Path(code.co_filename).resolve()
    ours = [Path(importlib.import_module(name).__file__).resolve().parent for name in OURS]
    return None if any(file.is_relative_to(folder) for folder in ours) else str(file)


def _helper_note(name: str) -> str:
    """Where a --strategy-path folder has a module of that name that gave no strategy
    (no STRATEGY: taken for a helper), say so, the likely slip when writing a plug-in;
    or the name its STRATEGY has."""
    module = name.replace("-", "_")
    for folder in strategy_path.folders():
        for file in (Path(folder) / f"{module}.py", Path(folder) / module / "__init__.py"):
            if not file.is_file():
                continue
            named = [s.name for s in registry().values() if plugin_file(s) == str(file.resolve())]
            if named:
                return f"; {file} defines the strategy {named[0]!r}"
            return f"; {file} gave no strategy (it defines no STRATEGY, or a warning says why)"
    return ""


def make_player(text: str) -> Player:
    """A player from ``NAME``, ``NAME:key=value,key=value``, ``NAME:params=FILE`` or
    ``NAME:params=SET`` (a packaged set such as ``balanced:params=tuned``) (the CLI's
    --strategy). A params file is JSON, ``{"name": NAME, "params": {"key": value}}``
    (as a tuner writes it); ``key=value`` items override its values, before or after it
    (one written before the file was once overridden by it, while the label still read
    that value)."""
    if not isinstance(text, str):
        raise StrategyError(
            f"strategy: expected a text such as 'greedy', got {type(text).__name__}"
        )
    name, _, arguments = text.partition(":")
    specs = registry()
    if name not in specs:
        raise StrategyError(
            f"unknown strategy {name!r} (known: {', '.join(specs)}){_helper_note(name)}"
        )
    spec = specs[name]
    overrides: dict[str, float] = {}
    from_file: dict[str, float] = {}
    given: set[str] = set()  # a key twice is ambiguous, not "the last one wins"
    items = [a.strip() for a in arguments.split(",")]
    if "" in items and any(items):  # "greedy:lateness=1,": a second entrant in a
        raise StrategyError(  # tournament, labelled apart from greedy:lateness=1
            f"strategy {name}: an empty item in {arguments.strip()!r} (a comma too many)"
        )
    items = [item for item in items if item]  # ("greedy:" and "greedy:," set nothing)
    for at, item in enumerate(items):  # every item's form first: a file name with a comma
        if "=" not in item:  # read as "params 'a' is neither a file nor ..." before
            after = any(i.partition("=")[0].strip() == "params" for i in items[:at])
            hint = " (a comma separates pairs: rename a params file with one)" if after else ""
            raise StrategyError(f"strategy {name}: {item!r} is not of the form key=value{hint}")
    for item in items:
        key, sep, value = item.partition("=")
        if key.strip() in given:
            raise StrategyError(f"strategy {name}: {key.strip()!r} is given more than once")
        given.add(key.strip())
        if key.strip() == "params":
            from_file = load_params_file(spec, params_path(spec, value.strip()))
            continue
        try:
            overrides[key.strip()] = number_text(value)
        except ValueError:
            raise StrategyError(
                f"strategy {name}: {key.strip()}={value!r} is not a number"
            ) from None
    # "greedy:" or "greedy: " sets nothing: it is greedy, labelled so (not "greedy:")
    return Player(
        spec, spec.param_vector({**from_file, **overrides}), label=text if given else name
    )


def packaged_params(spec: StrategySpec) -> dict[str, Path]:
    """The parameter sets shipped with the package for ``spec``, by name: the file
    ``sunset_sim/strategies/params/NAME-SET.json`` is set ``SET`` (``balanced:params=tuned``),
    so a wheel installed anywhere can seat them without a path into a checkout."""
    from importlib.resources import files

    try:
        folder = Path(str(files("sunset_sim.strategies") / "params"))
    except ModuleNotFoundError:
        return {}
    prefix = f"{spec.name}-"
    if not folder.is_dir():
        return {}
    return {
        path.stem.removeprefix(prefix): path
        for path in sorted(folder.glob(f"{prefix}*.json"))
        if path.is_file()
    }


def params_path(spec: StrategySpec, value: str) -> str | Path:
    """``params=VALUE``: the packaged set of that name (``tuned``) where VALUE is a plain
    name (no folder, no .json) that the strategy has one of, else a file path. A file
    named ``tuned`` in the current folder had been read instead of the packaged set the
    README's commands mean, under the same label: such a file is ``./tuned``."""
    plain = value and not any(sep in value for sep in ("/", os.sep)) and "." not in value
    if not plain:
        return value
    found = packaged_params(spec)
    if value in found:
        return found[value]
    if Path(value).exists():
        return value
    known = ", ".join(found) or "none"
    raise StrategyError(
        f"strategy {spec.name}: params {value!r} is neither a file nor a packaged parameter "
        f"set (packaged for {spec.name}: {known})"
    )


def load_params_file(spec: StrategySpec, path: str | os.PathLike) -> dict[str, float]:
    """Parameter values for ``spec`` from a JSON file ``{"name": ..., "params": {...}}``.

    ``name``, if present, must be the strategy's; other top-level keys (a tuner's notes)
    are ignored. Any problem is a StrategyError of one line naming the file."""
    where = f"strategy {spec.name}: params file {os.fspath(path)}"
    if isinstance(path, str) and not path.strip():  # Path("") would be the current folder
        raise StrategyError(f"strategy {spec.name}: params=: empty path")
    file = Path(path)
    if file.exists() and not file.is_dir() and not file.is_file():
        raise StrategyError(f"{where}: not a regular file (a device, pipe or socket)")
    try:
        with open(file, "rb") as stream:  # at most 1 MiB: never an endless read
            raw = stream.read(PARAMS_FILE_BYTES + 1)
        if len(raw) > PARAMS_FILE_BYTES:
            raise StrategyError(f"{where}: larger than {PARAMS_FILE_BYTES // 1024} KiB")
        text = raw.decode("utf-8-sig")  # a BOM (an editor's) read past, as card files
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise StrategyError(f"{where}: cannot be read ({reason})") from None
    try:
        data = parse_json(text)
    except JSONTextError as error:  # syntax, nesting, a number of over 4,300 digits
        raise StrategyError(f"{where}: {error}") from None
    if not isinstance(data, dict):
        raise StrategyError(f'{where}: must hold a JSON object {{"name": ..., "params": {{...}}}}')
    if "name" in data and data["name"] != spec.name:
        raise StrategyError(f"{where}: names strategy {data['name']!r}, not {spec.name!r}")
    if "params" not in data:
        raise StrategyError(f'{where}: has no "params" object')
    params = data["params"]
    if not isinstance(params, dict):
        raise StrategyError(f'{where}: "params" must be an object of name: number')
    values: dict[str, float] = {}
    for key, value in params.items():
        shown = f"{str(key)[:40]}={_brief(value)}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise StrategyError(f"{where}: {shown} is not a number")
        try:
            values[key] = float(value)
        except OverflowError:
            raise StrategyError(f"{where}: {shown} is too large a number") from None
    try:
        spec.param_vector(values)  # unknown names and values out of range
    except StrategyError as error:
        raise StrategyError(
            f"{where}: {str(error).removeprefix(f'strategy {spec.name}: ')}"
        ) from None
    return values


PARAMS_FILE_BYTES = 1 << 20


def _brief(value) -> str:
    """A JSON value named in one short line (never recursing into deep nesting)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**24:
        return short_number(value)
    if isinstance(value, list | dict):
        return "an array" if isinstance(value, list) else "an object"
    return one_line(json.dumps(value), 40, keep=37)


def seat_players(names: list[str] | tuple[str, ...], n_players: int) -> list[Player]:
    """One player per seat: the names in turn, repeated round the table (default greedy)."""
    names = list(names) or ["greedy"]
    return [make_player(names[seat % len(names)]) for seat in range(n_players)]
