"""Card sets: the reconstructed default set against the public facts (docs/rules.md,
Components), the difficulty model, and frame matching (R-SELL-3). The loader's validation
of user files: test_card_files.py."""

from __future__ import annotations

import importlib.util
import math
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sunset_sim.cards import (
    CardSet,
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
from sunset_sim.cards.fields import parse_frame
from sunset_sim.cards.summary import commission_table
from sunset_sim.enums import (
    DIRCLASS_HORIZONTAL,
    DIRECTION_SETS,
    GOAL_KIND_NAMES,
    GOAL_MOVED,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TOML = REPO / "sunset_sim" / "cards" / "default.toml"


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


def test_a_set_saved_with_windows_line_endings_has_the_same_hash(cards: CardSet, tmp_path):
    """--resume and replay compare the hash: a CRLF copy of the file was refused as
    another set. Its text keeps the CRLF (suggested cards write the file's endings)."""
    crlf = tmp_path / "crlf.toml"
    crlf.write_bytes(cards.source.replace("\n", "\r\n").encode())
    loaded = load_cards(crlf)
    assert loaded.content_hash == cards.content_hash
    assert "\r\n" in loaded.source
    edited = parse_cards(cards.source.replace("fame = 5", "fame = 4", 1))
    assert edited.content_hash != cards.content_hash


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
    assert cards.name in text and cards.content_hash in text
    assert "<default> (the packaged sunset_sim/cards/default.toml" in text
    for c in (*cards.commissions, *cards.goals, *cards.plans):
        assert c.id in text
    assert "mountain mountain ?..." in text
    assert "6:45" in text and "differs from the model" not in text
    table = commission_table(cards)
    assert list(table["id"]) == [c.id for c in cards.commissions]
    assert table["matches_model"].all()


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


def test_a_frame_names_each_unknown_feature_once() -> None:
    """ "sun sun" is one typo: one line, not one per token."""
    frame, errors = parse_frame("sun sun lake", ("mountain", "flower"))
    assert frame is None
    assert errors == ["unknown feature 'sun'", "unknown feature 'lake'"]


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


def test_the_summary_columns_hold_long_card_ids(tmp_path) -> None:
    """A commission or plan id longer than five characters pushed its row's columns
    right of the header's."""
    from sunset_sim.cards.loader import default_cards_text, load_cards
    from sunset_sim.cards.summary import format_summary

    path = tmp_path / "long.toml"
    text = default_cards_text().replace('id = "C01"', 'id = "commission-one"')
    path.write_text(text.replace('id = "P1"', 'id = "early-plan"'), encoding="utf-8")
    lines = format_summary(load_cards(path)).splitlines()
    frames_head = next(line for line in lines if "frames" in line)
    commission = next(line for line in lines if line.startswith("  commission-one "))
    assert commission.index("mountain") == frames_head.index("frames")
    wake_head = next(line for line in lines if "directions" in line and "wake" in line)
    plan = next(line for line in lines if line.startswith("  early-plan "))
    assert plan.index("5:00") == wake_head.index("wake")  # both right-aligned, 5 wide
