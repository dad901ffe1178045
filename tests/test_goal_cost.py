"""scripts/goal_cost.py: its card-set variants (every goal of one kind, the rest of the set
unchanged) and a tiny run of its table. No timing thresholds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sunset_sim.cards.loader import load_cards, parse_cards
from sunset_sim.enums import GOAL_KIND_NAMES

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "goal_cost.py"


def _script():
    spec = importlib.util.spec_from_file_location("goal_cost", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_variants_have_one_goal_kind_each_and_nothing_else_changed():
    shipped = load_cards()
    texts = _script().variants(None)
    kinds = {goal.kind for goal in shipped.goals}
    assert list(texts)[0] == "as shipped"
    assert set(texts) == {"as shipped"} | {f"all {GOAL_KIND_NAMES[k]}" for k in kinds}
    for label, text in texts.items():
        cards = parse_cards(text, label)  # a valid card set
        assert len(cards.goals) == len(shipped.goals)
        assert cards.landscapes == shipped.landscapes
        assert cards.commissions == shipped.commissions
        assert cards.plans == shipped.plans
        if label == "as shipped":
            assert cards.goals == shipped.goals
            continue
        kind = GOAL_KIND_NAMES.index(label.removeprefix("all "))
        first = next(goal for goal in shipped.goals if goal.kind == kind)
        assert {(g.kind, g.param, g.fame) for g in cards.goals} == {
            (first.kind, first.param, first.fame)
        }
        assert len({g.id for g in cards.goals}) == len(cards.goals)


def test_table_lists_every_variant_and_strategy(capsys, tmp_path):
    assert (
        _script().main(
            ["--strategies", "random", "--games", "40", "--rounds", "1", "--write", str(tmp_path)]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "greedy" in table and "random" in table
    for kind in ("sold", "edge", "all_features"):
        assert f"all {kind}" in table
    assert (tmp_path / "all-sold.toml").is_file()
    assert _script().main(["--strategies", "no-such-strategy"]) == 2
