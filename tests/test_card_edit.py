"""Card-set writing and one-number edits (sunset_sim.cards.edit): the dumped TOML reads
back to equal records, an edit moves exactly one value, and the deal key ignores numbers."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import small_cards_toml

from sunset_sim.analysis.study_files import layout_note
from sunset_sim.cards import CardSet, load_cards, parse_cards
from sunset_sim.cards.edit import (
    DIRECTIONS_DOWN,
    DIRECTIONS_UP,
    FIELDS,
    CardEditError,
    card_kind,
    card_value,
    deal_key,
    dump_cards,
    edit_card,
    edited_text,
)
from sunset_sim.enums import DIRECTION_SETS

DECKS = ("landscapes", "commissions", "goals", "plans")


@pytest.fixture(scope="module")
def cards() -> CardSet:
    return load_cards()


def assert_same_cards(a: CardSet, b: CardSet) -> None:
    assert a.name == b.name
    assert a.features == b.features
    for deck in DECKS:
        assert getattr(a, deck) == getattr(b, deck), deck


def every_token_set_text() -> str:
    """A small set whose frames use named features, repeats, '?', '?...' and both."""
    lands = "\n".join(
        f'[[landscape]]\nid = "L{i:02d}"\nfeatures = {feats}\n'
        for i, feats in enumerate(
            [
                '["a"]',
                '["b"]',
                '["a", "a"]',
                '["a", "b", "c"]',
                '["c", "c", "c"]',
                '["b", "c"]',
            ]
        )
    )
    return f"""
[set]
name = "tokens \\"quoted\\" \\\\ back"
features = ["a", "b", "c"]

{lands}
[[commission]]
id = "C1"
fame = 0
frames = ["a"]

[[commission]]
id = "C2"
fame = 3
frames = ["a a", "?", "c ?..."]

[[commission]]
id = "C3"
fame = 7
frames = ["a ? ?", "? ?...", "b c ?..."]

[[goal]]
id = "G1"
fame = 2
kind = "moved"
direction = "diagonal"

[[goal]]
id = "G2"
fame = 1
kind = "holds"
n = 4

[[goal]]
id = "G3"
fame = 0
kind = "edge"

[[plan]]
id = "P1"
wake = 05:00:00
directions = "vertical"
hike = 1
paint = 1

[[plan]]
id = "P2"
wake = "23:45"
directions = "all"
hike = 4
paint = 3
"""


# ---------------------------------------------------------------- dump_cards round trip


def test_round_trip_packaged_set(cards: CardSet) -> None:
    text = dump_cards(cards)
    again = parse_cards(text, "<dumped>")
    assert_same_cards(again, cards)
    assert dump_cards(again) == text  # the dump is a fixed point


def test_round_trip_every_frame_token_and_goal_notation() -> None:
    original = parse_cards(every_token_set_text(), "<tokens>")
    assert original.name == 'tokens "quoted" \\ back'
    again = parse_cards(dump_cards(original))
    assert_same_cards(again, original)


def test_round_trip_file(tmp_path, cards: CardSet) -> None:
    file = tmp_path / "cards.toml"
    file.write_text(dump_cards(cards), encoding="utf-8")
    assert_same_cards(load_cards(file), cards)


def test_round_trip_unsafe_strings(cards: CardSet) -> None:
    # quotes, a backslash, a comment sign and brackets: printable, but TOML must escape or
    # quote them (control characters are refused in ids and names: tests/test_hostile.py)
    odd = "a \"b\" \\c #d [e] 'f' \u00e9"
    renamed = dataclasses.replace(
        cards,
        name=odd,
        landscapes=(dataclasses.replace(cards.landscapes[0], id=odd), *cards.landscapes[1:]),
    )
    again = parse_cards(dump_cards(renamed))
    assert_same_cards(again, renamed)


def test_round_trip_edited_set(cards: CardSet) -> None:
    edited = edit_card(edit_card(cards, "C09", "fame", 2), "P3", "directions", 1)
    assert_same_cards(parse_cards(dump_cards(edited)), edited)


# ---------------------------------------------------------------- edit_card


def _examples(cards: CardSet) -> list[tuple[str, str]]:
    """(card id, field) pairs with room to move one step both ways."""
    return [
        (cards.commissions[4].id, "fame"),
        (cards.goals[0].id, "fame"),
        (cards.plans[3].id, "wake"),
        ("P3", "hike"),
        ("P4", "paint"),
        ("P4", "directions"),  # orthogonal: up to all, down to horizontal
    ]


@pytest.mark.parametrize("steps", [1, -1])
@pytest.mark.parametrize("index", range(6))
def test_edit_changes_exactly_one_value(cards: CardSet, index: int, steps: int) -> None:
    card_id, field = _examples(cards)[index]
    assert field in FIELDS
    edited = edit_card(cards, card_id, field, steps)
    kind = card_kind(cards, card_id)
    before = card_value(cards, card_id, field)
    after = card_value(edited, card_id, field)
    assert after != before
    assert edited.name == cards.name and edited.features == cards.features
    for deck in DECKS:
        old, new = getattr(cards, deck), getattr(edited, deck)
        assert [c.id for c in old] == [c.id for c in new]
        for a, b in zip(old, new, strict=True):
            if a.id != card_id:
                assert a == b
                continue
            assert deck == f"{kind}s"
            changed = {
                f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)
            }
            allowed = {"directions", "direction_mask"} if field == "directions" else {field}
            assert changed == allowed


def test_edit_step_sizes(cards: CardSet) -> None:
    assert card_value(cards, "P4", "wake") == "5:45"
    assert card_value(edit_card(cards, "P4", "wake", 1), "P4", "wake") == "6:00"
    assert card_value(edit_card(cards, "P4", "wake", -3), "P4", "wake") == "5:00"
    fame = cards.commissions[0].fame
    assert edit_card(cards, cards.commissions[0].id, "fame", 3).commissions[0].fame == fame + 3
    assert card_value(cards, "P4", "directions") == "orthogonal"
    assert card_value(edit_card(cards, "P4", "directions", 1), "P4", "directions") == "all"
    down = edit_card(cards, "P4", "directions", -1)
    assert down.plans[3].directions == "horizontal"
    assert down.plans[3].direction_mask == DIRECTION_SETS["horizontal"]
    assert card_value(edit_card(cards, "P1", "directions", 2), "P1", "directions") == "all"


def test_edit_result_is_loader_built(cards: CardSet) -> None:
    card_id = cards.commissions[6].id
    edited = edit_card(cards, card_id, "fame", 1)
    assert edited.content_hash != cards.content_hash
    assert edited.path == f"<edited: {card_id} fame +1>"
    reparsed = parse_cards(edited.source, edited.path)
    assert reparsed == edited
    twice = edit_card(edited, "P2", "wake", -1)
    assert twice.path == f"<edited: {card_id} fame +1, P2 wake -1>"
    assert twice.content_hash != edited.content_hash


def test_direction_ladder_moves_to_strict_supersets_and_subsets() -> None:
    for low, high in DIRECTIONS_UP.items():
        assert DIRECTION_SETS[low] & ~DIRECTION_SETS[high] == 0 and low != high
    for high, low in DIRECTIONS_DOWN.items():
        assert DIRECTION_SETS[low] & ~DIRECTION_SETS[high] == 0 and low != high
    assert set(DIRECTIONS_UP) | set(DIRECTIONS_DOWN) == set(DIRECTION_SETS)


@pytest.mark.parametrize(
    ("card_id", "field", "steps", "words"),
    [
        ("NOPE", "fame", 1, "no card"),
        ("L01", "fame", 1, "landscape"),
        ("P1", "fame", 1, "plan"),
        ("G1", "hike", 1, "goal"),
        ("C03", "wake", 1, "commission"),
        ("P1", "colour", 1, "unknown field"),
        ("C01", "fame", -2, "outside 0 to 99"),
        ("G1", "fame", 98, "outside 0 to 99"),
        ("P1", "hike", -1, "outside 1 to 4"),
        ("P1", "hike", 4, "outside 1 to 4"),
        ("P1", "paint", -1, "outside 1 to 5"),
        ("P1", "paint", 5, "outside 1 to 5"),
        ("P1", "wake", -21, "gives -0:15, outside 0:00 to 23:59"),
        ("P1", "wake", 100, "outside 0:00 to 23:59"),
        ("P1", "directions", -1, "no fewer directions"),
        ("P3", "directions", -1, "no fewer directions"),
        ("P5", "directions", 1, "no more directions"),
        ("P4", "directions", 2, "no more directions"),
    ],
)
def test_impossible_edits_raise(
    cards: CardSet, card_id: str, field: str, steps: int, words: str
) -> None:
    with pytest.raises(CardEditError) as info:
        edit_card(cards, card_id, field, steps)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "\n" not in message
    assert message.startswith(f"{card_id}: {field}: ")
    assert words in message


def test_edit_takes_numpy_steps_and_refuses_what_is_no_card_set(cards: CardSet) -> None:
    """A tester's: steps np.int64(1) was refused ("steps must be an integer"), where every
    other call takes numpy integers; cards None or a path raised an AttributeError."""
    import numpy as np

    assert edit_card(cards, "C01", "fame", np.int64(1)) == edit_card(cards, "C01", "fame", 1)
    for bad, shown in ((None, "NoneType"), ("cards.toml", "str")):
        with pytest.raises(CardEditError, match=f"^C01: fame: cards must be a CardSet .*{shown}$"):
            edit_card(bad, "C01", "fame", 1)
    for steps in (True, np.bool_(True), 1.0):
        with pytest.raises(CardEditError, match="steps must be an integer"):
            edit_card(cards, "C01", "fame", steps)


def test_card_value_and_kind(cards: CardSet) -> None:
    assert card_kind(cards, "L01") == "landscape"
    assert card_kind(cards, "C03") == "commission"
    assert card_kind(cards, "G1") == "goal"
    assert card_kind(cards, "P1") == "plan"
    assert card_value(cards, "P3", "wake") == "5:30"
    assert card_value(cards, "P4", "directions") == "orthogonal"
    assert card_value(cards, "G1", "fame") == "2"
    assert card_value(cards, "P1", "hike") == "1"
    with pytest.raises(CardEditError, match="^L01: hike: "):
        card_value(cards, "L01", "hike")
    with pytest.raises(CardEditError, match="^X9: card: no card"):
        card_kind(cards, "X9")


# ---------------------------------------------------------------- deal_key


def test_deal_key_ignores_numbers_but_not_order_or_count(cards: CardSet) -> None:
    key = deal_key(cards)
    assert key == cards.deal_key and len(key) == 16
    for card_id, field in _examples(cards):
        assert edit_card(cards, card_id, field, 1).deal_key == key
    lands = list(cards.landscapes)
    lands[0], lands[1] = lands[1], lands[0]
    assert dataclasses.replace(cards, landscapes=tuple(lands)).deal_key != key
    assert dataclasses.replace(cards, plans=cards.plans[:-1]).deal_key != key
    assert dataclasses.replace(cards, goals=cards.goals[1:]).deal_key != key


def test_edited_text_keeps_the_users_file_but_the_edits(cards: CardSet) -> None:
    """A study's suggested-cards.toml is the user's own file with the suggested values in
    place (comments, order and layout kept), so a diff against original-cards.toml shows
    only the edits; it reads back as the edited set."""
    edited = edit_card(edit_card(cards, "C02", "fame", 2), "P3", "wake", 1)
    edited = edit_card(edited, "P3", "directions", 1)
    text = edited_text(cards, edited)
    assert_same_cards(parse_cards(text, "suggested"), edited)
    before, after = cards.source.splitlines(), text.splitlines()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [
        ("fame = 1  # 2.45 bits", "fame = 3  # 2.45 bits"),
        ('wake = "5:30"', 'wake = "5:45"'),
        ('directions = "diagonal"', 'directions = "all"'),
    ]
    assert edited_text(cards, cards) == cards.source  # nothing edited: the file itself


def test_edited_text_falls_back_to_the_dump_for_layouts_it_does_not_edit() -> None:
    """Commissions written as one inline array have no line of their own for a fame: the
    whole set is dumped instead, which still reads back as the edited set."""
    source = small_cards_toml(n_commissions=6)
    tables = [f'[[commission]]\nid = "C{i:02d}"\nfame = 5\nframes = ["?..."]\n' for i in range(6)]
    entries = [f'{{id = "C{i:02d}", fame = 5, frames = ["?..."]}}' for i in range(6)]
    inline = f"commission = [{', '.join(entries)}]\n" + source
    for table in tables:
        assert table in source
        inline = inline.replace(table, "")
    for text in (source, inline):
        base = parse_cards(text, "mine.toml")
        edited = edit_card(base, "C00", "fame", -2)
        written = edited_text(base, edited)
        assert_same_cards(parse_cards(written, "suggested"), edited)
        if text is inline:
            assert written == dump_cards(edited)
            # and a study says so (it was silent): study_files.layout_note, a warning
            assert "could not be kept" in layout_note(base, edited)
        else:
            assert written == text.replace('id = "C00"\nfame = 5', 'id = "C00"\nfame = 3')
            assert layout_note(base, edited) is None


@pytest.mark.parametrize(
    "old, new",
    [
        ('id = "C00"\nfame = 5\n', 'fame = 5\nid = "C00"\n'),  # the field before the id
        ('id = "C00"\nfame = 5\n', '"id" = "C00"\n"fame" = 5\n'),  # quoted keys
        ('id = "C00"\nfame = 5\n', "id = 'C00'\n'fame' = 5\n"),
        ('[[commission]]\nid = "C00"', '[["commission"]]\nid = "C00"'),  # a quoted table
        ("[[commission]]\n", "[[commission]]  # a line separator \u2028 in a comment\n"),
    ],
    ids=["fame-before-id", "double-quoted-keys", "single-quoted-keys", "quoted-table", "u2028"],
)
def test_edited_text_keeps_other_valid_layouts_in_place(old: str, new: str) -> None:
    """TOML that lists a card's fame before its id, or quotes its keys or table name, was
    written out whole, every comment lost, with no word; now the value is changed in
    place. (A U+2028 in a comment: lines are split at "\n" only, as TOML does, not where
    str.splitlines would.)"""
    source = small_cards_toml(n_commissions=6)
    assert old in source
    text = source.replace(old, new, 1)
    base = parse_cards(text, "mine.toml")
    edited = edit_card(base, "C00", "fame", -2)
    written = edited_text(base, edited)
    assert_same_cards(parse_cards(written, "suggested"), edited)
    assert written != dump_cards(edited)
    changed = [(a, b) for a, b in zip(text.split("\n"), written.split("\n"), strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].endswith("= 3"), changed


def test_a_study_that_suggests_nothing_writes_the_set_unchanged(tmp_path, cards: CardSet) -> None:
    """The README's workflow compares original-cards.toml with suggested-cards.toml: with
    no verified suggestion the file was not written and that step failed ("file not
    found"). It is the user's file unchanged, under a header saying so, which a later
    study of it replaces rather than stacks."""
    from sunset_sim.analysis.study import run_study
    from sunset_sim.analysis.study_files import suggested_text, write_study

    study = run_study(["greedy", "random"], 2, 20, families=("plan",), edits=(), suggest=False)
    assert study.suggested_cards is None
    written = write_study(study, tmp_path, cards)
    assert "suggested-cards.toml" in written
    text = (tmp_path / "suggested-cards.toml").read_text()
    assert text.splitlines()[0].endswith("unchanged: suggestions were not looked for by a "
                                         "sunset-sim study")  # fmt: skip
    assert (
        text.endswith(cards.source) and len(text.splitlines()) == len(cards.source.splitlines()) + 2
    )
    again = parse_cards(text, "again")
    assert_same_cards(again, cards)
    assert "sunset-sim compare" not in (tmp_path / "study.md").read_text()
    # a study of that file: one header, the newest
    edited = edit_card(again, "C02", "fame", 2)
    assert suggested_text(again, edited).count("sunset-sim study") == 1
