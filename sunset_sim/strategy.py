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

import importlib
import pkgutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


class StrategyError(ValueError):
    """An unknown strategy or a bad parameter."""


@dataclass(frozen=True)
class Parameter:
    name: str
    default: float
    low: float
    high: float
    help: str = ""


@dataclass(frozen=True)
class StrategySpec:
    name: str
    description: str
    decide: Callable
    parameters: tuple[Parameter, ...] = ()

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
            value = float(overrides.get(p.name, p.default))
            if not p.low <= value <= p.high:
                raise StrategyError(
                    f"strategy {self.name}: {p.name}={value} is outside {p.low}..{p.high}"
                )
            values.append(value)
        return np.array(values, dtype=np.float64)


@dataclass(frozen=True)
class Player:
    """A strategy with its parameter values: what sits in a seat."""

    spec: StrategySpec
    params: np.ndarray = field(compare=False)
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.spec.name


_REGISTRY: dict[str, StrategySpec] = {}


def register(spec: StrategySpec) -> StrategySpec:
    _REGISTRY[spec.name] = spec
    return spec


def registry() -> dict[str, StrategySpec]:
    """Every known strategy: the modules of ``strategies/`` and the entry-point plug-ins."""
    if not _REGISTRY:
        import strategies

        for module in pkgutil.iter_modules(strategies.__path__):
            spec = getattr(importlib.import_module(f"strategies.{module.name}"), "STRATEGY", None)
            if isinstance(spec, StrategySpec):
                register(spec)
        from importlib.metadata import entry_points

        for entry in entry_points(group="sunset_sim.strategies"):
            try:
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


def make_player(text: str) -> Player:
    """A player from ``NAME`` or ``NAME:key=value,key=value`` (the CLI's --strategy)."""
    name, _, arguments = text.partition(":")
    specs = registry()
    if name not in specs:
        raise StrategyError(f"unknown strategy {name!r} (known: {', '.join(specs)})")
    overrides: dict[str, float] = {}
    for item in filter(None, (a.strip() for a in arguments.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise StrategyError(f"strategy {name}: {item!r} is not of the form key=value")
        try:
            overrides[key.strip()] = float(value)
        except ValueError:
            raise StrategyError(
                f"strategy {name}: {key.strip()}={value!r} is not a number"
            ) from None
    spec = specs[name]
    return Player(spec, spec.param_vector(overrides), label=text)


def seat_players(names: list[str] | tuple[str, ...], n_players: int) -> list[Player]:
    """One player per seat: the names in turn, repeated round the table (default greedy)."""
    names = list(names) or ["greedy"]
    return [make_player(names[seat % len(names)]) for seat in range(n_players)]
