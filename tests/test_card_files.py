"""Card files of users: the loader accepts any counts that make a playable set and
refuses a bad file with one line per problem naming the file, card and field; and
check_playable's thresholds."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from sunset_sim.cards import (
    CardSet,
    CardSetError,
    Frame,
    check_playable,
    load_cards,
    parse_cards,
)
from sunset_sim.enums import (
    MAX_FEATURES,
)

PROBLEM_LINE = re.compile(r"^(?P<file>[^:]+): (?P<where>[^:]+): (?P<field>[^:]+): (?P<what>.+)$")


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
    (  # "L02 " beside "L01" and the rest: two cards that print alike
        "landscape-id-ending-in-a-space",
        'id = "L02"',
        'id = "L02 "',
        "landscape[1]",
        "id",
        "begins or ends with a space",
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
    (  # each frame fits the one such card, both never at once (one painting a frame)
        "frames-never-filled-together",
        '["mountain ?..."]',
        '["mountain flower", "mountain ?"]',
        "C01",
        "frames",
        "only 1 landscape(s) in the set can fill 2 of its frames",
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
    # other scripts' digits were read as 5:00 (Python's regex digit class and int() take them)
    ("plan-wake-fullwidth", 'wake = "5:00"', 'wake = "５:００"', "P1", "wake", "H:MM"),
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
    (  # TOML's "\n" escape: a name ending in a newline broke the report's tables
        "set-feature-name-ending-in-a-newline",
        '["mountain", "flower", "waterfall"]',
        '["mountain", "flower", "waterfall\\n"]',
        "set",
        "features[2]",
        "bad feature name",
    ),
    (  # a feature is a column of the results and the report: no name of any length
        "set-feature-name-too-long",
        '["mountain", "flower", "waterfall"]',
        '["mountain", "flower", "' + "w" * 33 + '"]',
        "set",
        "features[2]",
        "at most 32 characters, got 33",
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


def test_a_frame_no_card_fits_is_said_once(tmp_path: Path) -> None:
    """Not also as "only N landscapes can fill its frames": that follows from it."""
    problems = problems_of(tmp_path, edited('"waterfall ?..."]', '"mountain mountain"]'))
    assert any("no landscape in the set can match" in line for line in problems)
    assert not any("can never be completed" in line for line in problems)


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


def test_ids_equal_in_another_unicode_form_are_one_id(tmp_path: Path) -> None:
    """ "Café" with its accent as one character and as e + a combining accent print alike
    (in tables, records, reports and --edit): they were two cards' ids; now a duplicate."""
    text = BASE.replace('id = "C01"', 'id = "Caf\u00e9"', 1).replace(
        'id = "C02"', 'id = "Cafe\u0301"', 1
    )
    problems = problems_of(tmp_path, text)
    assert problems[0] == (
        f"{tmp_path / 'my.toml'}: Cafe\u0301 (commission[1]): id: duplicate id (also used by "
        "commission[0], the same text in another Unicode form)"
    )


def test_loader_given_the_sets_text_as_its_path_says_so_in_one_short_line() -> None:
    """load_cards(text) raised an error of 8,627 characters over 511 lines (the whole text
    as the file name, then "File name too long")."""
    from sunset_sim.cards.loader import default_cards_text

    with pytest.raises(CardSetError) as raised:
        load_cards(default_cards_text())
    (line,) = str(raised.value).splitlines()
    assert line.startswith("card-set path: expected a file path, got text of ") and len(line) < 140


def test_an_array_or_table_in_the_wrong_place_is_shown_as_the_file_has_it(tmp_path) -> None:
    """[[set]] read "got array [{'name': 'sunset-default-reconstruct... (1 characters)":
    Python's repr, and a count of one item called characters."""
    found = problems_of(tmp_path, BASE.replace("[set]", "[[set]]", 1))
    line = next(line for line in found if "[set]: must be a table" in line)
    assert 'got array [{"name": "' in line and line.endswith("(1 item)")
    assert "'name'" not in line and "characters" not in line


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


def test_loader_lists_too_few_cards_with_the_other_problems(tmp_path: Path) -> None:
    """A set with a broken card and too few cards for any game lists both: `cards`
    promises every problem, and the count was found only once the cards were mended."""
    problems = problems_of(tmp_path, edited("fame = 3\n", "fame = -1\n"))
    assert any(": C01: fame: " in line for line in problems), problems
    too_few = [line for line in problems if ": set: landscapes: 3 cards" in line]
    assert len(too_few) == 1 and "at least 25" in too_few[0], problems
    assert problems.index(too_few[0]) > 0  # the cards' own problems first


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
