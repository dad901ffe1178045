"""Shared fixtures and builders for the rules tests, and the CLI test helpers.

``make_state`` deals a game from explicit deck orders (identity orders by default, so
wilderness cell c holds landscape index c); tests then edit ``state.grid``, positions,
plans and holdings directly. ``ScriptedDecider`` plays scripted choices and falls back
to simple legal defaults, so a test can drive ``take_turn`` or a whole ``play_game``.
``cli`` runs ``sunset-sim`` in-process (stderr apart from stdout); ``ok`` and ``fails``
check its result.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sunset_sim.cards.loader import default_cards_text, load_cards, parse_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.cards.tables import CardTables, build_tables
from sunset_sim.cli import main
from sunset_sim.enums import DECIDE_PAINT, DIRECTION_NAMES
from sunset_sim.rules import plan as plan_rules
from sunset_sim.rules.options import Rules
from sunset_sim.rules.setup import SetupOrders, new_game
from sunset_sim.rules.state import GameState

_DEFAULT_CARDS = load_cards()
_DEFAULT_TABLES = build_tables(_DEFAULT_CARDS)

try:  # click < 8.2 mixes stderr into stdout unless told not to
    RUNNER = CliRunner(mix_stderr=False)
except TypeError:
    RUNNER = CliRunner()


def _compile_everything() -> float:
    from sunset_sim.engine.compiling import prepare
    from sunset_sim.strategy import registry

    return prepare(registry().values(), announce=True)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``-n``, the default in pyproject.toml) the controller compiles
    the engine and the built-ins into the disk cache before the workers start, so that
    the workers load them instead of each compiling the same code at once."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        seconds = _compile_everything()
        if seconds > 5:
            print(f"(compiled the engine and the built-in strategies in {seconds:.0f} s)")


@pytest.fixture(scope="session", autouse=True)
def compiled_engine() -> None:
    """The engine and every built-in strategy compiled (or loaded) before any test, as
    ``sunset-sim warmup`` does: tests then never meet a first-run compile notice, and a
    cold cache is paid once, here (or by the xdist controller), with its duration printed."""
    seconds = _compile_everything()
    if seconds > 5:
        print(f"\n(compiled the engine and the built-in strategies in {seconds:.0f} s)")


@pytest.fixture(autouse=True)
def no_signal_left_noted():
    """No test leaves a noted signal behind: the next test's writes on the same worker
    would raise KeyboardInterrupt, which ends the worker (a CI run lost one so)."""
    from sunset_sim import files

    yield
    left = list(files.SIGNALS_SEEN)
    files.SIGNALS_SEEN.clear()
    assert not left, f"signals left noted after the test: {left}"


@pytest.fixture(scope="session")
def cards() -> CardSet:
    return _DEFAULT_CARDS


@pytest.fixture(scope="session")
def tables() -> CardTables:
    return _DEFAULT_TABLES


@pytest.fixture(scope="session")
def frame():
    """A real batch of games, for the report tests (test_report.py, test_report_cli.py)."""
    import sunset_sim

    strategies = ["greedy", "early-bird", "late-riser", "random"]
    return sunset_sim.simulate(games=300, players=4, strategies=strategies, seed=3, jobs=1)


@pytest.fixture(scope="module")
def cards_module():
    import sunset_sim

    return sunset_sim.load_cards()


@pytest.fixture(scope="module")
def report(frame, cards_module):
    """``frame``'s report at min_samples 30 (test_report.py, test_report_effects.py)."""
    from sunset_sim.analysis.report import build_report

    return build_report(frame, cards_module, min_samples=30)


@pytest.fixture(scope="session")
def pool() -> list:
    """Reference games with the state before every turn captured: the record-tampering
    tests search it for a turn that allows each edit (tests/records_tools.py)."""
    from records_tools import capture_pool

    return capture_pool()


@pytest.fixture(scope="session")
def base(pool):
    """2 players, seed 1, greedy: the example of docs/record-format.md."""
    return pool[0]


def direction(name: str) -> int:
    return DIRECTION_NAMES.index(name)


def cell(row: int, col: int) -> int:
    return row * 5 + col


def index_of(cards_: tuple, card_id: str) -> int:
    for i, card in enumerate(cards_):
        if card.id == card_id:
            return i
    raise KeyError(card_id)


def land(cards_: CardSet, card_id: str) -> int:
    return index_of(cards_.landscapes, card_id)


def comm(cards_: CardSet, card_id: str) -> int:
    return index_of(cards_.commissions, card_id)


def goal(cards_: CardSet, card_id: str) -> int:
    return index_of(cards_.goals, card_id)


def plan_card(cards_: CardSet, card_id: str) -> int:
    return index_of(cards_.plans, card_id)


def identity_orders(cards_: CardSet, n_players: int) -> SetupOrders:
    return SetupOrders(
        landscapes=list(range(len(cards_.landscapes))),
        commissions=list(range(len(cards_.commissions))),
        goals=list(range(len(cards_.goals))),
        plans=[list(range(len(cards_.plans))) for _ in range(n_players)],
    )


def make_state(
    cards_: CardSet | None = None,
    n_players: int = 2,
    rules: Rules | None = None,
    landscapes: list[int] | None = None,
    commissions: list[int] | None = None,
    goals: list[int] | None = None,
    plans: list[list[int]] | None = None,
    day: int = 1,
) -> GameState:
    """A freshly dealt game (R-SET) from explicit orders; identity order where not given."""
    cards_ = cards_ or _DEFAULT_CARDS
    tables_ = _DEFAULT_TABLES if cards_ is _DEFAULT_CARDS else build_tables(cards_)
    orders = identity_orders(cards_, n_players)
    if landscapes is not None:
        orders.landscapes = landscapes
    if commissions is not None:
        orders.commissions = commissions
    if goals is not None:
        orders.goals = goals
    if plans is not None:
        orders.plans = plans
    state = new_game(cards_, tables_, rules or Rules(), n_players, orders)
    state.day = day
    return state


def set_plan(state: GameState, seat: int, plan_id: str) -> None:
    """Give ``seat`` today's plan card by id (as if kept in R-PLAN-1)."""
    state.players[seat].plan = plan_card(state.cards, plan_id)


def spread_out(state: GameState, positions: list[int]) -> None:
    for seat, position in enumerate(positions):
        state.players[seat].position = position


class ScriptedDecider:
    """A Decider whose choices come from per-seat queues, else from simple defaults.

    Queues: ``plans`` (plan ids), ``hikes`` ((direction name or None, steps)),
    ``paints`` (lists of cells), ``sales`` (per turn: a list of (commission, paintings));
    a queue entry may also be a callable ``(state, seat, options) -> choice``.
    Defaults: keep the first plan card; the first legal hike; paint nothing; no sale;
    ``turn_order`` by seat among ties; a reshuffle keeps the discard order.
    """

    def __init__(
        self,
        plans: dict[int, list] | None = None,
        hikes: dict[int, list] | None = None,
        paints: dict[int, list] | None = None,
        sales: dict[int, list] | None = None,
        orders: SetupOrders | None = None,
        permutation: list[int] | None = None,
        reshuffle: Callable[[GameState, list[int]], list[int]] | None = None,
        paint_default: str = "none",
    ) -> None:
        self.plans = {s: list(q) for s, q in (plans or {}).items()}
        self.hikes = {s: list(q) for s, q in (hikes or {}).items()}
        self.paints = {s: list(q) for s, q in (paints or {}).items()}
        self.sales = {s: list(q) for s, q in (sales or {}).items()}
        self.orders = orders
        self.permutation = permutation
        self._reshuffle = reshuffle
        self.paint_default = paint_default
        self._pending_sales: dict[int, list] = {}
        self.log: list[tuple] = []

    @staticmethod
    def _pop(queue: dict[int, list], seat: int):
        items = queue.get(seat)
        return items.pop(0) if items else None

    def setup_orders(self, cards_: CardSet, n_players: int) -> SetupOrders:
        return self.orders or identity_orders(cards_, n_players)

    def keep_plan(self, state: GameState, seat: int, hand: list[int]) -> int:
        self.log.append(("plan", seat, list(hand)))
        choice = self._pop(self.plans, seat)
        if callable(choice):
            return choice(state, seat, hand)
        return hand[0] if choice is None else plan_card(state.cards, choice)

    def turn_order(self, state: GameState) -> list[int]:
        permutation = self.permutation or list(range(state.n_players))
        return plan_rules.turn_order(state, permutation)

    def hike(self, state, seat, options):
        self.log.append(("hike", seat, list(options)))
        choice = self._pop(self.hikes, seat)
        if callable(choice):
            return choice(state, seat, options)
        if choice is None:
            return options[0]
        name, steps = choice
        return (-1 if name is None else direction(name), steps)

    def paint(self, state, seat, options):
        self.log.append(("paint", seat, [list(o) for o in options]))
        choice = self._pop(self.paints, seat)
        if callable(choice):
            return choice(state, seat, options)
        if choice is None:
            return max(options, key=len) if self.paint_default == "most" else []
        return list(choice)

    def sale(self, state, seat, options):
        if seat not in self._pending_sales:
            script = self._pop(self.sales, seat)
            self._pending_sales[seat] = list(script) if script is not None else []
        pending = self._pending_sales[seat]
        if not pending:
            del self._pending_sales[seat]
            return None
        choice = pending.pop(0)
        if callable(choice):
            choice = choice(state, seat, options)
        if choice is None:
            del self._pending_sales[seat]
        return choice

    def reshuffle(self, state: GameState, discard: list[int]) -> list[int]:
        self.log.append(("reshuffle", list(discard)))
        if self._reshuffle is not None:
            return self._reshuffle(state, discard)
        return list(discard)


def small_cards_toml(
    n_landscapes: int = 25,
    n_commissions: int = 4,
    frame: str = "?...",
    fame: int = 5,
    goals: tuple[str, ...] = ('kind = "painted"\nn = 1',),
) -> str:
    """A tiny custom card set (docs/cards.md: counts other than 60/30/7/8 are allowed)."""
    features = ["mountain", "flower", "waterfall", "tree", "sun"]
    parts = [
        '[set]\nname = "tiny"\nfeatures = ["mountain", "flower", "waterfall", "tree", "sun"]\n'
    ]
    for i in range(n_landscapes):
        icons = [features[(i + k) % 5] for k in range(1 + i % 3)]
        parts.append(f'[[landscape]]\nid = "L{i:02d}"\nfeatures = {icons!r}\n'.replace("'", '"'))
    for i in range(n_commissions):
        parts.append(f'[[commission]]\nid = "C{i:02d}"\nfame = {fame}\nframes = ["{frame}"]\n')
    for i, body in enumerate(goals):
        parts.append(f'[[goal]]\nid = "G{i}"\nfame = 2\n{body}\n')
    for i in range(8):
        wake = f"{5 + (i * 15) // 60}:{(i * 15) % 60:02d}"
        parts.append(
            f'[[plan]]\nid = "P{i + 1}"\nwake = "{wake}"\ndirections = "all"\nhike = 2\npaint = 2\n'
        )
    return "\n".join(parts)


def small_cards(**kwargs) -> CardSet:
    return parse_cards(small_cards_toml(**kwargs), "<tiny>")


def cli(*args):
    """Run ``sunset-sim ARGS`` in-process; the arguments may be paths or numbers."""
    return RUNNER.invoke(main, [str(a) for a in args])


def ok(result) -> str:
    """Exit code 0 and no traceback; the stdout."""
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    assert result.exception is None
    assert "Traceback" not in result.output
    return result.stdout


COMPILING = "sunset-sim: compiling "


def fails(result, *needles: str) -> str:
    """Exit code 2 and exactly one line on stderr (``error: ...``) holding every needle."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    # A first run may say first that it compiles (engine/compiling.py): not an error line.
    lines = [line for line in result.stderr.splitlines() if not line.startswith(COMPILING)]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def console_script() -> list[str]:
    """The installed ``sunset-sim`` script, else ``python -m sunset_sim.cli``."""
    script = Path(sys.executable).with_name("sunset-sim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sunset_sim.cli"]


# --- the command-line tests' shared files (test_cli.py, test_cli_play.py) ---

# Generous: a subprocess may compile kernels on a cold cache on a loaded machine (minutes);
# the timeout is only there so that a hang still ends.
COMPILE_TIMEOUT = 1800


def run_process(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        console_script() + [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def bad_cards(files) -> Path:
    """The default set with two problems: an unknown feature and a negative fame."""
    text = default_cards_text()
    text = text.replace('features = ["mountain"]', 'features = ["mountian"]', 1)
    start = text.index("[[commission]]")
    text = text[:start] + re.sub(r"fame = \d+", "fame = -3", text[start:], count=1)
    path = files / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def record_file(files) -> Path:
    path = files / "seed7.json"
    ok(cli("play", "--players", "3", "--seed", "7", "--record", path))
    return path


def tampered(record_file: Path, tmp_path: Path, change) -> Path:
    record = json.loads(record_file.read_text(encoding="utf-8"))
    change(record)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


DECISION_BENCH = Path(__file__).resolve().parents[1] / "scripts" / "decision_bench.py"


@pytest.fixture(scope="session")
def recorded(tmp_path_factory):
    """The decisions of 4 greedy games: (kind, obs, options) each."""
    recording = tmp_path_factory.mktemp("hikes") / "greedy.npz"
    done = subprocess.run(
        [sys.executable, str(DECISION_BENCH), "record", "greedy", str(recording), "--games", "4"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = np.load(recording)
    ends = np.cumsum(data["n_options"])
    return [
        (
            kind,
            data["obs"][index],
            np.ascontiguousarray(data["options"][ends[index] - count : ends[index]]),
        )
        for index, (kind, count) in enumerate(zip(data["kind"], data["n_options"], strict=True))
    ]


@pytest.fixture(scope="session")
def paints(recorded):
    """The paint decisions: (obs, options)."""
    found = [(obs, options) for kind, obs, options in recorded if kind == DECIDE_PAINT]
    assert len(found) > 50
    return found
