"""sunset-sim: Monte Carlo strategy analysis for the board game Sunset over Water.

The Python API mirrors the CLI, with DataFrames in and out (for notebooks):

- ``simulate(games, players, strategies, seed, cards, rules)``: a batch on the fast
  engine, one row per game and seat (``sunset-sim simulate``).
- ``tournament(strategies, players, games, ...)``: every strategy in every seat on the
  same deals; ``.standings``, ``.head_to_head``, ``.by_seat`` ... (``sunset-sim tournament``).
- ``compare(strategies, ..., cards_a=, cards_b=, rules_a=, rules_b=)``: two variants on the
  same seeds; one row per measure with A, B, diff = B - A, paired 95% CI, p-value and
  ``significant`` (``sunset-sim compare``).
- ``sweep(param="balanced:deny=0,0.5,1")`` or ``sweep(rule="days=4,5,6")``: one setting
  over values on the same seeds, win share and mean fame with 95% CIs per value
  (``sunset-sim sweep``); ``plot_sweep(frame, "sweep.png")`` draws it.
- ``build_report(frame, cards)``, ``write_report(report, out_dir)``, ``read_results(path)``:
  the balance report of a results table (``sunset-sim report``).
- ``tune(strategy, opponents, ...)``: tune a strategy's parameters (``sunset-sim tune``).
- ``run_study(strategies, ...)``, ``write_study(study, folder, cards)``: the designer
  study, card values and verified rebalance suggestions (``sunset-sim study``).
- ``play_reference(cards, seats, seed)``: one game on the readable engine, with its record.
- ``load_cards(path)``, ``Rules(tie_break=, days=)``: card sets and rule options.
- ``InputError``: every bad input (a ``ValueError``, one line), with the CLI's limits;
  ``TournamentSeatWarning`` (fewer strategies than seats, from every function that seats
  them), ``SameEntrantWarning`` (two entrants that play alike) and ``SameVariantWarning``
  (compare's A and B alike), to filter or catch them.

Strategies are given as text (``"greedy:lateness=1"``) or ``strategy.Player`` objects;
cards as a ``CardSet``, a TOML path or None (the packaged set); rules as a ``Rules``
record or a dict such as ``{"days": 4}``. Everything is imported on first use.
"""

from __future__ import annotations

import sys as _sys
from importlib.machinery import ModuleSpec as _ModuleSpec
from importlib.util import spec_from_file_location as _spec_from_file_location
from pathlib import Path as _Path
from typing import TYPE_CHECKING

__version__ = "0.1.0"


class _SourceTreeStrategies:
    """``sunset_sim.strategies`` in a source tree: the top-level ``strategies/`` folder
    beside this package (the project's layout). A wheel installs that folder inside the
    package, and an editable install maps it (pyproject.toml), so this finder is only
    asked when neither did, e.g. with PYTHONPATH pointing at a checkout or its copy."""

    name = __name__ + ".strategies"
    folder = _Path(__file__).resolve().parent.parent / "strategies"

    @classmethod
    def find_spec(cls, fullname, path=None, target=None) -> _ModuleSpec | None:
        if fullname != cls.name or (_Path(__file__).parent / "strategies").is_dir():
            return None
        init = cls.folder / "__init__.py"
        if not init.is_file():
            return None
        return _spec_from_file_location(
            fullname, init, submodule_search_locations=[str(cls.folder)]
        )


if not any(getattr(f, "name", None) == _SourceTreeStrategies.name for f in _sys.meta_path):
    _sys.meta_path.insert(0, _SourceTreeStrategies)

# Each public name and the module it lives in. They are imported on first use (PEP 562
# ``__getattr__`` below), so ``import sunset_sim`` stays light (no numba, no pandas);
# the ``TYPE_CHECKING`` imports make the same names visible to IDEs and type checkers.
_EXPORTS = {
    "simulate": "sunset_sim.runner",
    "play_reference": "sunset_sim.play",
    "load_cards": "sunset_sim.cards.loader",
    "Rules": "sunset_sim.rules.options",
    "InputError": "sunset_sim.validation",
    "tournament": "sunset_sim.analysis.tournament",
    "SameEntrantWarning": "sunset_sim.validation",
    "TournamentSeatWarning": "sunset_sim.validation",
    "compare": "sunset_sim.analysis.whatif",
    "SameVariantWarning": "sunset_sim.analysis.whatif",
    "sweep": "sunset_sim.analysis.sweep",
    "plot_sweep": "sunset_sim.analysis.sweep",
    "build_report": "sunset_sim.analysis.report",
    "write_report": "sunset_sim.analysis.report",
    "read_results": "sunset_sim.analysis.report",
    "tune": "sunset_sim.analysis.tune",
    "run_study": "sunset_sim.analysis.study",
    "write_study": "sunset_sim.analysis.study_files",
}

if TYPE_CHECKING:
    from sunset_sim.analysis.report import build_report, read_results, write_report
    from sunset_sim.analysis.study import run_study
    from sunset_sim.analysis.study_files import write_study
    from sunset_sim.analysis.sweep import plot_sweep, sweep
    from sunset_sim.analysis.tournament import tournament
    from sunset_sim.analysis.tune import tune
    from sunset_sim.analysis.whatif import SameVariantWarning, compare
    from sunset_sim.cards.loader import load_cards
    from sunset_sim.play import play_reference
    from sunset_sim.rules.options import Rules
    from sunset_sim.runner import simulate
    from sunset_sim.validation import InputError, SameEntrantWarning, TournamentSeatWarning

__all__ = [
    "InputError",
    "Rules",
    "SameEntrantWarning",
    "SameVariantWarning",
    "TournamentSeatWarning",
    "__version__",
    "build_report",
    "compare",
    "load_cards",
    "play_reference",
    "plot_sweep",
    "read_results",
    "run_study",
    "simulate",
    "sweep",
    "tournament",
    "tune",
    "write_report",
    "write_study",
]


def __getattr__(name: str):
    """Import on first use, so that ``import sunset_sim`` stays light (no numba compile)."""
    if name in _EXPORTS:
        import importlib

        module_name = _EXPORTS[name]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            raise AttributeError(
                f"sunset_sim.{name} is not available: module {module_name} is missing"
            ) from None
        return getattr(module, name)
    raise AttributeError(f"module 'sunset_sim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
