"""Card sets: the reconstructed default set against the public facts (docs/rules.md,
Components), the loader's validation of user files, the difficulty model, and frame
matching (R-SELL-3)."""

from __future__ import annotations

import importlib.util
import math
import re
import tomllib
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sunset_sim.cards import (
    CardSet,
    CardSetError,
    Frame,
    check_playable,
    commission_difficulty,
    format_frame,
    format_summary,
    frame_probability,
    load_cards,
    model_fame,
    parse_cards,
)
from sunset_sim.cards.difficulty import FAME_PER_BIT
from sunset_sim.cards.loader import parse_frame
from sunset_sim.cards.summary import commission_table
from sunset_sim.enums import (
    DIRCLASS_HORIZONTAL,
    DIRECTION_SETS,
    GOAL_KIND_NAMES,
    GOAL_MOVED,
    MAX_FEATURES,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TOML = REPO / "sunset_sim" / "cards" / "default.toml"
PROBLEM_LINE = re.compile(r"^(?P<file>[^:]+): (?P<where>[^:]+): (?P<field>[^:]+): (?P<what>.+)$")


@pytest.fixture(scope="module")
def cards() -> CardSet:
    return load_cards()


# ---------------------------------------------------------------- default set: landscapes


def test_R_COMP_1_sixty_landscapes(cards: CardSet) -> None:
    assert len(cards.landscapes) == 60


def test_R_COMP_1_five_feature_types_including_known_three(cards: CardSet) -> None:
    assert len(cards.features) == 5
    assert {"mountain", "flower", "waterfall"} <= set(cards.features)


def test_R_COMP_1_each_landscape_shows_one_to_three_icons(cards: CardSet) -> None:
    for land in cards.landscapes:
        assert len(land.features) == 5
        assert all(count >= 0 for count in land.features)
        assert 1 <= land.icons <= 3, land.id


def test_CARDS_feature_types_about_equally_common(cards: CardSet) -> None:
    totals = [sum(land.features[f] for land in cards.landscapes) for f in range(5)]
    assert max(totals) - min(totals) <= 2, totals
    assert all(total > 0 for total in totals)


def test_CARDS_a_few_landscapes_repeat_an_icon(cards: CardSet) -> None:
    repeated = [land for land in cards.landscapes if max(land.features) > 1]
    assert 3 <= len(repeated) <= 15
    # multiset matching matters: some frame asks for a repeated feature and can be met
    assert any(max(f.required) > 1 for c in cards.commissions for f in c.frames)


def test_CARDS_landscape_ids_unique_across_all_cards(cards: CardSet) -> None:
    ids = [c.id for c in (*cards.landscapes, *cards.commissions, *cards.goals, *cards.plans)]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- default set: commissions


def test_R_COMP_2_thirty_commissions_of_one_to_three_frames(cards: CardSet) -> None:
    assert len(cards.commissions) == 30
    assert all(1 <= len(c.frames) <= 3 for c in cards.commissions)
    assert {len(c.frames) for c in cards.commissions} == {1, 2, 3}


def test_CARDS_commission_frame_mix(cards: CardSet) -> None:
    frames = [f for c in cards.commissions for f in c.frames]
    exact = [f for f in frames if f.wild == 0 and not f.open]
    wild = [f for f in frames if f.wild > 0]
    open_ = [f for f in frames if f.open]
    assert len(exact) >= 5 and len(wild) >= 5 and len(open_) >= 5
    # the engine enumerates painting assignments: every frame names at least one feature
    assert all(sum(f.required) >= 1 for f in frames)


def test_R_SELL_3_every_default_frame_can_be_matched(cards: CardSet) -> None:
    for c in cards.commissions:
        for frame in c.frames:
            assert frame_probability(frame, cards.landscapes) > 0, c.id


def test_CARDS_commission_fame_follows_difficulty_model(cards: CardSet) -> None:
    wrong = [
        (c.id, c.fame, model_fame(c, cards.landscapes))
        for c in cards.commissions
        if c.fame != model_fame(c, cards.landscapes)
    ]
    assert wrong == []


def test_CARDS_model_fames_span_one_to_eight(cards: CardSet) -> None:
    fames = Counter(c.fame for c in cards.commissions)
    assert min(fames) == 1 and max(fames) == 8
    assert len(fames) >= 7


def test_CARDS_difficulty_model_is_sum_of_bits(cards: CardSet) -> None:
    c = cards.commissions[0]
    bits = commission_difficulty(c, cards.landscapes)
    expected = sum(-math.log2(frame_probability(f, cards.landscapes)) for f in c.frames)
    assert bits == pytest.approx(expected)
    assert model_fame(c, cards.landscapes) == max(1, min(9, math.floor(FAME_PER_BIT * bits + 0.5)))


def test_CARDS_difficulty_model_worked_example(cards: CardSet) -> None:
    # "mountain ?..." matches the 22 of 60 landscapes that show a mountain: 1.45 bits, fame 1
    frame, _ = parse_frame("mountain ?...", cards.features)
    assert frame is not None
    assert frame_probability(frame, cards.landscapes) == pytest.approx(22 / 60)


# ---------------------------------------------------------------- default set: goals


def test_R_COMP_3_seven_goals_each_two_fame(cards: CardSet) -> None:
    assert len(cards.goals) == 7
    assert all(g.fame == 2 for g in cards.goals)


def test_CARDS_goal_kinds_all_different_and_moved_horizontal(cards: CardSet) -> None:
    kinds = [g.kind for g in cards.goals]
    assert len(set(kinds)) == 7
    assert set(kinds) == set(range(len(GOAL_KIND_NAMES)))
    assert any(g.kind == GOAL_MOVED and g.param == DIRCLASS_HORIZONTAL for g in cards.goals)


def test_R_GOAL_3_count_goals_have_sensible_n(cards: CardSet) -> None:
    for g in cards.goals:
        if GOAL_KIND_NAMES[g.kind] in ("painted", "sold", "holds", "steps"):
            assert 1 <= g.param <= 6, g
        elif g.kind != GOAL_MOVED:
            assert g.param == 0


# ---------------------------------------------------------------- default set: plan cards


def test_R_COMP_4_eight_plan_cards_wake_five_to_six_forty_five(cards: CardSet) -> None:
    assert len(cards.plans) == 8
    assert sorted(p.wake for p in cards.plans) == list(range(5 * 60, 7 * 60, 15))
    assert [p.wake_label for p in sorted(cards.plans, key=lambda p: p.wake)][:4] == [
        "5:00",
        "5:15",
        "5:30",
        "5:45",
    ]


def test_CARDS_plan_ranges_and_direction_sets(cards: CardSet) -> None:
    for p in cards.plans:
        assert 1 <= p.hike <= 4
        assert 1 <= p.paint <= 3
        assert p.directions in DIRECTION_SETS
        assert p.direction_mask == DIRECTION_SETS[p.directions]


def test_CARDS_plan_trade_off_earlier_is_weaker(cards: CardSet) -> None:
    plans = sorted(cards.plans, key=lambda p: p.wake)
    hikes = [p.hike for p in plans]
    paints = [p.paint for p in plans]
    assert hikes == sorted(hikes) and paints == sorted(paints)
    assert plans[0].hike + plans[0].paint < plans[-1].hike + plans[-1].paint
    assert len({p.directions for p in plans}) >= 4


# ---------------------------------------------------------------- default set: the file


def test_CARDS_default_file_says_it_is_a_reconstruction() -> None:
    head = DEFAULT_TOML.read_text(encoding="utf-8")[:1500]
    assert "RECONSTRUCT" in head.upper()
    assert "not the printed" in head.lower()


def test_default_set_identity(cards: CardSet) -> None:
    text = DEFAULT_TOML.read_bytes().decode("utf-8")
    assert cards.path == "<default>"
    assert cards.source == text
    assert re.fullmatch(r"[0-9a-f]{16}", cards.content_hash)
    again = load_cards(DEFAULT_TOML)
    assert again.content_hash == cards.content_hash
    assert again.path == str(DEFAULT_TOML)
    assert parse_cards(cards.source).content_hash == cards.content_hash
    assert load_cards(str(DEFAULT_TOML)).commissions == cards.commissions


def test_default_set_playable_for_two_to_four_players(cards: CardSet) -> None:
    for players in (2, 3, 4):
        assert check_playable(cards, players) == []


def test_default_file_matches_generator() -> None:
    script = REPO / "scripts" / "make_default_cards.py"
    if not script.exists():
        pytest.skip("generator not shipped")
    spec = importlib.util.spec_from_file_location("make_default_cards", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.build() == DEFAULT_TOML.read_text(encoding="utf-8")


def test_summary_lists_everything(cards: CardSet) -> None:
    text = format_summary(cards)
    assert cards.name in text and cards.content_hash in text and "<default>" in text
    for c in (*cards.commissions, *cards.goals, *cards.plans):
        assert c.id in text
    assert "mountain mountain ?..." in text
    assert "6:45" in text and "differs from the model" not in text
    table = commission_table(cards)
    assert list(table["id"]) == [c.id for c in cards.commissions]
    assert table["matches_model"].all()


# ---------------------------------------------------------------- user files: validation

BASE = """\
[set]
name = "tiny"
features = ["mountain", "flower", "waterfall"]

[[landscape]]
id = "L01"
features = ["mountain"]

[[landscape]]
id = "L02"
features = ["mountain", "flower"]

[[landscape]]
id = "L03"
features = ["waterfall", "flower", "flower"]

[[commission]]
id = "C01"
fame = 3
frames = ["mountain ?..."]

[[commission]]
id = "C02"
fame = 1
frames = ["flower ?", "waterfall ?..."]

[[goal]]
id = "G1"
fame = 2
kind = "moved"
direction = "horizontal"

[[goal]]
id = "G2"
fame = 2
kind = "painted"
n = 3

[[plan]]
id = "P1"
wake = "5:00"
directions = "horizontal"
hike = 1
paint = 1
"""


def write(tmp_path: Path, text: str, name: str = "my.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edited(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def problems_of(tmp_path: Path, text: str) -> list[str]:
    path = write(tmp_path, text)
    with pytest.raises(CardSetError) as info:
        load_cards(path)
    err = info.value
    more = len(err.problems) - 1  # one line (an InputError): the first problem, and a count
    assert str(err) == err.problems[0] + (f" (and {more} more in .problems)" if more else "")
    for line in err.problems:
        assert line.startswith(f"{path}: "), line
    return err.problems


def test_counts_other_than_standard_are_allowed(tmp_path: Path) -> None:
    cards = load_cards(write(tmp_path, BASE))
    assert (len(cards.landscapes), len(cards.commissions), len(cards.goals)) == (3, 2, 2)
    assert cards.features == ("mountain", "flower", "waterfall")
    assert cards.landscapes[2].features == (0, 2, 1)
    assert cards.commissions[1].frames == (Frame((0, 1, 0), 1, False), Frame((0, 0, 1), 0, True))
    assert cards.goals[1].param == 3
    assert cards.plans[0].wake == 300 and cards.plans[0].direction_mask == 0b01000100


BAD_CASES = [
    # (case id, old, new, where, field, words in the message)
    (
        "unknown-feature-landscape",
        '["mountain", "flower"]',
        '["mountain", "lake"]',
        "L02",
        "features[1]",
        "unknown feature 'lake'",
    ),
    (
        "landscape-no-icons",
        'features = ["mountain"]\n',
        "features = []\n",
        "L01",
        "features",
        "1 to 3 icons",
    ),
    (
        "landscape-four-icons",
        'features = ["mountain"]\n',
        'features = ["mountain", "flower", "flower", "waterfall"]\n',
        "L01",
        "features",
        "got 4",
    ),
    (
        "landscape-features-not-list",
        'features = ["mountain"]\n',
        'features = "mountain"\n',
        "L01",
        "features",
        "must be a list",
    ),
    (
        "landscape-missing-features",
        'id = "L01"\nfeatures = ["mountain"]\n',
        'id = "L01"\n',
        "L01",
        "features",
        "missing",
    ),
    (
        "landscape-unknown-key",
        'id = "L01"\n',
        'id = "L01"\ncolour = "red"\n',
        "L01",
        "colour",
        "unknown key",
    ),
    ("landscape-missing-id", 'id = "L01"\n', "", "landscape[0]", "id", "missing"),
    ("id-wrong-type", 'id = "L01"\n', "id = 1\n", "landscape[0]", "id", "must be a string"),
    (
        "duplicate-id-across-kinds",
        'id = "C02"\n',
        'id = "L03"\n',
        "L03 (commission[1])",
        "id",
        "duplicate id (also used by landscape[2])",
    ),
    (
        "duplicate-id-same-kind",
        'id = "P1"\n',
        'id = "G2"\n',
        "G2 (plan[0])",
        "id",
        "duplicate id (also used by goal[1])",
    ),
    ("negative-fame", "fame = 3\n", "fame = -1\n", "C01", "fame", "must not be negative"),
    ("float-fame", "fame = 3\n", "fame = 2.5\n", "C01", "fame", "must be an integer"),
    ("string-fame", "fame = 3\n", 'fame = "3"\n', "C01", "fame", "must be an integer"),
    ("bool-fame", "fame = 3\n", "fame = true\n", "C01", "fame", "must be an integer"),
    ("missing-fame", "fame = 3\n", "", "C01", "fame", "missing"),
    ("no-frames", 'frames = ["mountain ?..."]', "frames = []", "C01", "frames", "1 to 3 frames"),
    (
        "four-frames",
        'frames = ["mountain ?..."]',
        'frames = ["mountain ?...", "flower ?...", "mountain", "flower ?"]',
        "C01",
        "frames",
        "got 4",
    ),
    ("missing-frames", 'frames = ["mountain ?..."]\n', "", "C01", "frames", "missing"),
    (
        "frame-not-string",
        'frames = ["mountain ?..."]',
        'frames = ["mountain ?...", 3]',
        "C01",
        "frames[1]",
        "must be a string",
    ),
    (
        "frame-unknown-feature",
        '"waterfall ?..."]',
        '"lake ?..."]',
        "C02",
        "frames[1]",
        "unknown feature 'lake'",
    ),
    (
        "frame-bad-token",
        '"waterfall ?..."]',
        '"waterfall ??"]',
        "C02",
        "frames[1]",
        "bad token '??'",
    ),
    (
        "frame-bad-token-star",
        '"waterfall ?..."]',
        '"waterfall *"]',
        "C02",
        "frames[1]",
        "bad token",
    ),
    (
        "frame-two-open-marks",
        '"waterfall ?..."]',
        '"waterfall ?... ?..."]',
        "C02",
        "frames[1]",
        "at most once",
    ),
    ("frame-empty", '"waterfall ?..."]', '"  "]', "C02", "frames[1]", "empty frame"),
    (
        "frame-never-matched",
        '"waterfall ?..."]',
        '"mountain mountain"]',
        "C02",
        "frames[1]",
        "no landscape in the set can match 'mountain mountain'",
    ),
    (
        "frame-never-matched-wild",
        '["mountain ?..."]',
        '["mountain ? ? ?"]',
        "C01",
        "frames[0]",
        "no landscape",
    ),
    (
        "commission-unknown-key",
        "fame = 3\n",
        "fame = 3\nreward = 2\n",
        "C01",
        "reward",
        "unknown key",
    ),
    ("goal-unknown-kind", 'kind = "painted"', 'kind = "danced"', "G2", "kind", "unknown goal kind"),
    ("goal-missing-kind", 'kind = "painted"\n', "", "G2", "kind", "missing"),
    ("goal-missing-n", "n = 3\n", "", "G2", "n", "missing"),
    ("goal-zero-n", "n = 3\n", "n = 0\n", "G2", "n", "at least 1"),
    ("goal-float-n", "n = 3\n", "n = 1.5\n", "G2", "n", "must be an integer"),
    (
        "goal-moved-missing-direction",
        'direction = "horizontal"\n',
        "",
        "G1",
        "direction",
        "missing",
    ),
    (
        "goal-moved-bad-direction",
        'direction = "horizontal"',
        'direction = "up"',
        "G1",
        "direction",
        "unknown direction class 'up'",
    ),
    ("goal-edge-with-n", 'kind = "painted"', 'kind = "edge"', "G2", "n", "takes no parameter"),
    (
        "goal-n-on-moved",
        'direction = "horizontal"\n',
        'direction = "horizontal"\nn = 2\n',
        "G1",
        "n",
        "not used by kind 'moved'",
    ),
    ("goal-negative-fame", 'id = "G1"\nfame = 2', 'id = "G1"\nfame = -2', "G1", "fame", "negative"),
    ("plan-bad-wake", 'wake = "5:00"', 'wake = "5.00"', "P1", "wake", "H:MM"),
    ("plan-wake-out-of-range", 'wake = "5:00"', 'wake = "5:60"', "P1", "wake", "H:MM"),
    ("plan-wake-number", 'wake = "5:00"', "wake = 500", "P1", "wake", "H:MM"),
    ("plan-missing-wake", 'wake = "5:00"\n', "", "P1", "wake", "missing"),
    (
        "plan-unknown-directions",
        'directions = "horizontal"',
        'directions = "sideways"',
        "P1",
        "directions",
        "unknown direction set 'sideways'",
    ),
    ("plan-hike-zero", "hike = 1", "hike = 0", "P1", "hike", "1 to 4"),
    ("plan-hike-five", "hike = 1", "hike = 5", "P1", "hike", "1 to 4"),
    ("plan-paint-zero", "paint = 1", "paint = 0", "P1", "paint", "at least 1"),
    ("plan-paint-missing", "paint = 1\n", "", "P1", "paint", "missing"),
    (
        "set-missing-features",
        'features = ["mountain", "flower", "waterfall"]\n',
        "",
        "set",
        "features",
        "missing",
    ),
    (
        "set-empty-features",
        '["mountain", "flower", "waterfall"]',
        "[]",
        "set",
        "features",
        "1 to 8",
    ),
    (
        "set-duplicate-feature",
        '["mountain", "flower", "waterfall"]',
        '["mountain", "flower", "mountain"]',
        "set",
        "features",
        "more than once",
    ),
    (
        "set-bad-feature-name",
        '["mountain", "flower", "waterfall"]',
        '["mountain", "flower", "water fall"]',
        "set",
        "features[2]",
        "bad feature name",
    ),
    ("set-missing-name", 'name = "tiny"\n', "", "set", "name", "missing"),
    (
        "set-unknown-key",
        'name = "tiny"\n',
        'name = "tiny"\nedition = 2\n',
        "set",
        "edition",
        "unknown key",
    ),
    (
        "missing-set",
        '[set]\nname = "tiny"\nfeatures = ["mountain", "flower", "waterfall"]\n',
        "",
        "set",
        "[set]",
        "missing [set] table",
    ),
    ("section-not-array", "[[plan]]", "[plan]", "plan", "[plan]", "[[plan]]"),
    ("unknown-section", "[[plan]]", "[[plans]]", "file", "plans", "unknown key"),
]


@pytest.mark.parametrize(
    ("old", "new", "where", "field", "words"),
    [case[1:] for case in BAD_CASES],
    ids=[case[0] for case in BAD_CASES],
)
def test_loader_reports_file_card_and_field(
    tmp_path: Path, old: str, new: str, where: str, field: str, words: str
) -> None:
    problems = problems_of(tmp_path, edited(old, new))
    hits = [
        line
        for line in problems
        if line.startswith(f"{tmp_path / 'my.toml'}: {where}: {field}: ") and words in line
    ]
    assert hits, problems
    for line in problems:
        assert PROBLEM_LINE.match(line), line


def test_loader_too_many_features(tmp_path: Path) -> None:
    names = [f"f{i}" for i in range(MAX_FEATURES + 1)]
    text = edited('["mountain", "flower", "waterfall"]', str(names).replace("'", '"'))
    problems = problems_of(tmp_path, text)
    assert any(": set: features: must name 1 to 8 features, got 9" in p for p in problems)


def test_loader_malformed_toml_gives_one_problem_with_line(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, edited("hike = 1", "hike = = 1"))
    assert len(problems) == 1
    assert problems[0].startswith(f"{tmp_path / 'my.toml'}: file: toml: ")
    assert "line" in problems[0]


def test_loader_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(CardSetError) as info:
        load_cards(path)
    assert info.value.problems == [f"{path}: file not found"]


def test_loader_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(BASE.replace("tiny", "t\xefny").encode("latin-1"))
    with pytest.raises(CardSetError) as info:
        load_cards(path)
    assert "not UTF-8" in str(info.value)


def test_loader_reports_every_problem_together(tmp_path: Path) -> None:
    text = BASE
    for old, new in [
        ('["mountain", "flower"]', '["mountain", "lake"]'),  # L02 unknown feature
        ("fame = 3\n", "fame = -1\n"),  # C01 negative fame
        ('"waterfall ?..."]', '"waterfall ?... ?..."]'),  # C02 two open marks
        ('kind = "painted"', 'kind = "danced"'),  # G2 unknown kind
        ('wake = "5:00"', 'wake = "five"'),  # P1 bad wake
        ("hike = 1", "hike = 9"),  # P1 hike range
        ('id = "C02"', 'id = "L01"'),  # duplicate id
    ]:
        assert old in text
        text = text.replace(old, new, 1)
    problems = problems_of(tmp_path, text)
    expected = [
        ("L02", "features[1]"),
        ("C01", "fame"),
        ("L01 (commission[1])", "frames[1]"),
        ("L01 (commission[1])", "id"),
        ("G2", "kind"),
        ("P1", "wake"),
        ("P1", "hike"),
    ]
    for where, field in expected:
        assert any(f": {where}: {field}: " in line for line in problems), (where, field, problems)
    assert len(problems) >= len(expected)


def test_loader_no_match_check_skipped_when_deck_broken(tmp_path: Path) -> None:
    # a broken landscape must not make every frame look unmatchable
    problems = problems_of(tmp_path, edited('["mountain"]', '["lake"]'))
    assert not any("no landscape" in p for p in problems), problems


def test_loader_allows_repeated_wake_times(tmp_path: Path) -> None:
    extra = '\n[[plan]]\nid = "P2"\nwake = "5:00"\ndirections = "all"\nhike = 4\npaint = 5\n'
    cards = load_cards(write(tmp_path, BASE + extra))
    assert [p.wake for p in cards.plans] == [300, 300]


def test_loader_accepts_toml_local_time_for_wake(tmp_path: Path) -> None:
    cards = load_cards(write(tmp_path, edited('wake = "5:00"', "wake = 06:45:00")))
    assert cards.plans[0].wake == 6 * 60 + 45


def test_loader_goal_without_param_kinds(tmp_path: Path) -> None:
    text = edited('kind = "painted"\nn = 3', 'kind = "all_features"')
    cards = load_cards(write(tmp_path, text))
    assert cards.goals[1].param == 0


def test_parse_cards_from_string_names_it(tmp_path: Path) -> None:
    with pytest.raises(CardSetError) as info:
        parse_cards(edited("hike = 1", "hike = 0"))
    assert info.value.problems[0].startswith("<string>: P1: hike: ")
    cards = parse_cards(BASE, "inline.toml")
    assert cards.path == "inline.toml" and cards.source == BASE


# ---------------------------------------------------------------- check_playable


def test_check_playable_small_but_valid_set(tmp_path: Path) -> None:
    cards = load_cards(write(tmp_path, BASE))
    problems = check_playable(cards, players=2)
    path = str(tmp_path / "my.toml")
    assert any(p.startswith(f"{path}: set: landscapes: 3 cards") and "25" in p for p in problems)
    assert any(p.startswith(f"{path}: set: commissions: 2 cards") and "4" in p for p in problems)
    assert any(p.startswith(f"{path}: set: plans: 1 cards") and "8" in p for p in problems)
    assert all(PROBLEM_LINE.match(p) for p in problems)


def test_check_playable_thresholds(cards: CardSet) -> None:
    short = replace(cards, landscapes=cards.landscapes[:24])
    assert [p for p in check_playable(short, 2) if ": landscapes: " in p]
    assert check_playable(replace(cards, landscapes=cards.landscapes[:25]), 2) == []
    few = replace(cards, commissions=cards.commissions[:5])
    assert check_playable(few, 3) == []
    assert [p for p in check_playable(few, 4) if ": commissions: " in p]
    plans = replace(cards, plans=cards.plans[:7])
    assert [p for p in check_playable(plans, 2) if ": plans: " in p]
    assert check_playable(plans, 2, days=5) == []
    assert check_playable(replace(cards, goals=()), 4) == []


# ---------------------------------------------------------------- R-SELL-3 frame matching


def brute_force_matches(frame: Frame, painting: tuple[int, ...]) -> bool:
    """Try every way to give each icon of the painting a slot: one of the frame's
    required features of its own type, one of its '?' slots, or the '?...' overflow.
    The painting matches iff some assignment fills every required and '?' slot."""
    icons = [f for f, count in enumerate(painting) for _ in range(count)]

    def place(i: int, need: tuple[int, ...], wild_left: int) -> bool:
        if i == len(icons):
            return not any(need) and wild_left == 0
        f = icons[i]
        if need[f] > 0:
            after = need[:f] + (need[f] - 1,) + need[f + 1 :]
            if place(i + 1, after, wild_left):
                return True
        if wild_left > 0 and place(i + 1, need, wild_left - 1):
            return True
        return frame.open and place(i + 1, need, wild_left)

    return place(0, frame.required, frame.wild)


@st.composite
def frame_and_painting(draw: st.DrawFn) -> tuple[Frame, tuple[int, ...]]:
    n = draw(st.integers(1, 5))
    required = tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    frame = Frame(required, draw(st.integers(0, 3)), draw(st.booleans()))
    painting = tuple(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return frame, painting


@settings(max_examples=500, deadline=None)
@given(frame_and_painting())
def test_R_SELL_3_frame_matches_agrees_with_brute_force(
    case: tuple[Frame, tuple[int, ...]],
) -> None:
    frame, painting = case
    assert frame.matches(painting) == brute_force_matches(frame, painting)


@pytest.mark.parametrize(
    ("text", "painting", "expected"),
    [
        ("mountain mountain", (2, 0, 0), True),
        ("mountain mountain", (1, 1, 0), False),
        ("mountain ?", (1, 1, 0), True),
        ("mountain ?", (1, 0, 0), False),  # ? is exactly one more feature
        ("mountain ?", (1, 1, 1), False),
        ("mountain ?...", (1, 0, 0), True),  # ?... allows none
        ("mountain ?...", (1, 2, 0), True),
        ("mountain ? ?...", (1, 0, 0), False),
        ("? flower", (0, 1, 1), True),
    ],
)
def test_R_SELL_3_examples(text: str, painting: tuple[int, ...], expected: bool) -> None:
    frame, errors = parse_frame(text, ("mountain", "flower", "waterfall"))
    assert frame is not None, errors
    assert frame.matches(painting) is expected


@given(
    st.lists(st.sampled_from(["mountain", "flower", "waterfall", "?"]), max_size=4),
    st.booleans(),
)
def test_format_frame_round_trips(tokens: list[str], open_: bool) -> None:
    features = ("mountain", "flower", "waterfall")
    text = " ".join(tokens + (["?..."] if open_ else []))
    frame, errors = parse_frame(text, features)
    if not text.strip():
        assert frame is None and errors
        return
    assert frame is not None
    assert parse_frame(format_frame(frame, features), features)[0] == frame


def test_default_toml_is_plain_tomllib() -> None:
    data = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    assert set(data) == {"set", "landscape", "commission", "goal", "plan"}
