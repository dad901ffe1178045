"""Many calls in one process (a notebook, a test worker): a call's result does not depend
on what ran before it. A hostile tester found a card set changed with
``dataclasses.replace`` played on the original's cached tables (or the original on its),
and a command line's --strategy-path still in effect for the next command."""

from __future__ import annotations

import dataclasses
import os
import sys

import pytest
from conftest import cli, ok

import sunset_sim
from sunset_sim import strategy as strategy_module
from sunset_sim.strategy_path import STRATEGY_PATH_VARIABLE
from sunset_sim.validation import InputError

SMALL = {"games": 40, "players": 2, "strategies": ["greedy"], "seed": 3, "jobs": 1}


def _richer(cards, more: int):
    """The set with every commission's fame raised by ``more``, by dataclasses.replace
    (its source and content_hash still the original's)."""
    commissions = tuple(dataclasses.replace(c, fame=c.fame + more) for c in cards.commissions)
    return dataclasses.replace(cards, commissions=commissions)


def test_a_replaced_card_set_plays_its_own_cards_whatever_ran_before():
    cards = sunset_sim.load_cards()
    rich = _richer(cards, 10)
    default_first = sunset_sim.simulate(cards=None, **SMALL).fame.mean()
    rich_after = sunset_sim.simulate(cards=rich, **SMALL).fame.mean()
    default_after = sunset_sim.simulate(cards=cards, **SMALL).fame.mean()
    assert default_after == default_first
    assert rich_after > default_first + 5  # (the same game before: the default's tables)
    # the engines agree on it, game for game (the reference engine reads the cards)
    from sunset_sim.strategy import seat_players

    fast = sunset_sim.simulate(cards=rich, **{**SMALL, "games": 1}).fame.tolist()
    slow = sunset_sim.play_reference(rich, seat_players(["greedy"], 2), seed=3).fame
    assert sorted(fast) == sorted(slow)


def test_a_replaced_card_set_is_recorded_as_its_own():
    from sunset_sim.cards import parse_cards
    from sunset_sim.cards.edit import matching_source

    cards = sunset_sim.load_cards()
    assert matching_source(cards) is cards  # (the loader's: nothing to do)
    rich = matching_source(_richer(cards, 1))
    assert rich.content_hash != cards.content_hash
    assert rich.commissions == _richer(cards, 1).commissions
    assert parse_cards(rich.source).commissions == rich.commissions
    assert rich.path == "<edited in Python>"
    same = matching_source(dataclasses.replace(cards))  # (the same cards: kept as they are)
    assert same.content_hash == cards.content_hash


def test_a_replaced_card_set_that_breaks_a_rule_is_refused_in_one_line():
    too_rich = _richer(sunset_sim.load_cards(), 200)
    with pytest.raises(InputError) as caught:
        sunset_sim.simulate(cards=too_rich, **SMALL)
    message = str(caught.value)
    assert message.startswith("cards: ") and "fame" in message and "\n" not in message


PLUGIN = """\
from sunset_sim.strategies.{module} import STRATEGY as _BASE
from sunset_sim.strategy import StrategySpec

STRATEGY = StrategySpec(
    name="scoped-plug", description="{says}", decide=_BASE.decide, parameters=_BASE.parameters
)
"""


@pytest.fixture
def two_folders(tmp_path):
    """Two strategy folders, each with a strategy named scoped-plug: random's and greedy's."""
    folders = []
    for label, module in (("a", "uniform_random"), ("b", "greedy")):
        folder = tmp_path / label
        folder.mkdir()
        name = f"scoped_plug_{label}_{os.getpid()}"
        (folder / f"{name}.py").write_text(PLUGIN.format(module=module, says=f"folder {label}"))
        folders.append(folder)
    yield folders
    strategy_module.forget_registry()


def test_a_commands_strategy_path_is_that_commands(two_folders):
    first, second = two_folders
    before = os.environ.get(STRATEGY_PATH_VARIABLE)
    path_before = list(sys.path)
    listed = ok(cli("--strategy-path", first, "strategies"))
    assert "folder a" in listed
    assert os.environ.get(STRATEGY_PATH_VARIABLE) == before
    assert sys.path == path_before
    assert "scoped-plug" not in strategy_module.registry()  # nor does the API know it
    result = cli("--strategy-path", second, "strategies")
    listed = ok(result)
    assert "folder b" in listed and "folder a" not in listed
    assert "taken" not in result.stderr
