"""Replaying a game record under the rules: every step is checked, every result recounted.

A record written by hand of a game played at a real table can be checked this way:
the engine re-plays the recorded decisions and chance outcomes, raises at the first
illegal one, and then compares what it derived (goals, fame) with what was recorded.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from sunset_sim.cards.loader import CardSetError, check_playable, load_cards, parse_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.enums import DIRECTION_NAMES, GRID_SIZE
from sunset_sim.files import JSONTextError, parse_json
from sunset_sim.records.format import DEFAULT_CARDS_PATH, RECORD_FORMAT, RECORD_VERSION
from sunset_sim.records.log import printable
from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.game import Decider, GameResult, play_game
from sunset_sim.rules.options import RuleOptionError, Rules
from sunset_sim.rules.setup import SetupOrders
from sunset_sim.rules.state import GameState
from sunset_sim.validation import as_cards, one_line


def _shown(value: Any) -> str:
    """A record's card id as written (L47), anything else as JSON shows it."""
    return printable(value) if isinstance(value, str) else as_json(value)


def as_json(value: Any) -> str:
    """A record's value as JSON shows it ("1" for a string, 1 for a number, null), safe to
    print (control characters as escapes): a message about a wrong type must not read like
    the right value."""
    import json

    if isinstance(value, str):
        return printable(f'"{value}"')
    try:
        return printable(json.dumps(value))
    except (TypeError, ValueError):
        return printable(value)


def is_whole(value: Any) -> bool:
    """A JSON whole number (not true/false, which Python counts as 1 and 0, nor 1.0)."""
    return type(value) is int


def wrong_type(theirs: Any, mine: Any) -> tuple[Any, Any] | None:
    """The first (recorded, rules') pair of values of an entry that differ in JSON type
    only (6.0 or true for 6, 1 for true), or None: Python counts 6.0 == 6 and True == 1,
    so a plain comparison let such entries through in some fields and not in others."""
    if isinstance(mine, list | dict) and type(theirs) is type(mine):
        keys = range(min(len(theirs), len(mine))) if isinstance(mine, list) else mine.keys()
        for key in keys:
            if isinstance(mine, list) or key in theirs:
                found = wrong_type(theirs[key], mine[key])
                if found is not None:
                    return found
        return None
    if isinstance(mine, bool | int | float) and type(theirs) is not type(mine):
        return (theirs, mine) if theirs == mine else None
    return None


def check_type(where: str, theirs: Any, mine: Any) -> None:
    """A RecordError naming ``where`` where ``theirs`` differs from ``mine`` in type only."""
    found = wrong_type(theirs, mine)
    if found is not None:
        expected = "true or false" if isinstance(found[1], bool) else "whole numbers"
        raise RecordError(f"{where}: expected {expected}, got {as_json(found[0])}")


# The fields of a day's and a turn's objects (docs/record-format.md): any other key is
# refused, as a misspelt one would leave out what it holds
DAY_FIELDS = ("day", "goal", "plans", "order", "turns", "goal_holder", "fame", "reshuffles")
TURN_FIELDS = ("seat", "hike", "painted", "sales", "goal")


class RecordError(Exception):
    """A record that cannot be read or that does not describe a legal game: one line."""

    def __init__(self, message: str) -> None:
        # The line can quote a record's own strings: never pass their control characters
        # (terminal escape sequences, line breaks) to the terminal, whichever check fails.
        super().__init__(one_line(message, None))


MAX_RECORD_BYTES = 16 << 20  # a 12-day, 4-player record is under 100 KiB


def load_record(path: str | Path) -> dict:
    """A record file as JSON: a regular file of at most MAX_RECORD_BYTES, read no further
    (a device such as /dev/zero would be read until memory ran out, a pipe could block)."""
    file = Path(path)
    try:
        if file.exists() and not file.is_dir() and not file.is_file():
            raise RecordError("not a regular file (a device, pipe or socket)")
        with open(file, "rb") as stream:
            raw = stream.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise RecordError(f"larger than {MAX_RECORD_BYTES >> 20} MiB: not a game record")
        text = raw.decode("utf-8").removeprefix("\ufeff")  # (a BOM, as card files allow)
    except OSError as error:
        raise RecordError(f"cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise RecordError(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    try:
        record = parse_json(text)
    except JSONTextError as error:  # syntax, nesting, a number of over 4,300 digits
        raise RecordError(str(error)) from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise RecordError("format: not a sunset-sim game record")
    if type(record.get("version")) is not int or record["version"] != RECORD_VERSION:
        raise RecordError(
            f"version: unknown record version {as_json(record.get('version'))} "
            f"(this sunset-sim reads version {RECORD_VERSION})"
        )
    return record


def record_cards(record: dict, cards: CardSet | None = None) -> CardSet:
    """The card set a record was played with: inline text, the one given, or the default."""
    named = record.get("cards", {})
    given_cards = cards is not None
    if not isinstance(named, dict):
        raise RecordError("cards: expected an object with name, hash and path (or inline)")
    for key in ("name", "hash", "path"):
        if key in named and not isinstance(named[key], str):
            raise RecordError(f"cards: {key}: expected a string, got {as_json(named[key])}")
    if "inline" in named:
        if not isinstance(named["inline"], str):
            raise RecordError("cards: inline: expected the card set's TOML text (a string)")
        try:
            inline = parse_cards(named["inline"], "<inline card set>")
        except CardSetError as error:
            raise RecordError(
                f"cards: the inline card set is invalid: {error.problems[0]}"
            ) from None
        if named.get("hash") not in (None, inline.content_hash):
            # (a tester's: an inline text edited after the game read "pass --cards FILE",
            # and --cards is never used where the record carries its set inline)
            raise RecordError(
                f"cards: inline: the card set's text does not match the record's hash "
                f"{printable(named.get('hash'))} (its own is {inline.content_hash}): it was "
                'changed after the game was recorded; restore it, or remove "inline" to '
                "replay on the set given with --cards FILE"
            )
        if cards is not None and cards.content_hash != inline.content_hash:
            warnings.warn(  # (docs/record-format.md, rule 1; it was ignored without a word)
                f"note: the record carries its card set inline ({inline.name}, hash "
                f"{inline.content_hash}); the card set given ({cards.name}) is not used",
                stacklevel=2,
            )
        cards = inline
    elif cards is None:
        # A record never makes the tool open a file: only the packaged set, an inline set
        # or the --cards FILE the user names (docs/record-format.md).
        path = named.get("path", DEFAULT_CARDS_PATH)
        if path != DEFAULT_CARDS_PATH:
            named_file = ascii(path)[:80] if isinstance(path, str) else "a non-string path"
            raise RecordError(
                f"cards: the record names the card-set file {named_file}; a record never makes "
                "sunset-sim open a file, so pass it with --cards FILE"
            )
        cards = load_cards(None)
    unchecked = "hash" not in named and "inline" not in named
    if unchecked and given_cards and named.get("name", cards.name) != cards.name:
        warnings.warn(  # (the user named the set: replayed on it, but not without a word)
            f"note: the record names card set {as_json(named['name'])} and gives no hash; "
            f"it is replayed on the card set given, {as_json(cards.name)}",
            stacklevel=2,
        )
    elif unchecked and named.get("name", cards.name) != cards.name:
        # with no hash, the name is all that says which set: another set's game would be
        # checked against the packaged cards (and could pass)
        raise RecordError(
            f"cards: the record was played with card set {as_json(named['name'])}, not "
            f"{as_json(cards.name)}, and gives no hash; pass --cards FILE"
        )
    if named.get("hash") not in (None, cards.content_hash):
        given = given_cards and "inline" not in named
        raise RecordError(
            f"cards: the record was played with card set {as_json(named.get('name'))} hash "
            f"{printable(named.get('hash'))}, not {as_json(cards.name)} hash {cards.content_hash}; "
            + ("the --cards FILE given is another set" if given else "pass --cards FILE")
        )
    return cards


class RecordDecider(Decider):
    """Takes every choice and chance outcome from a record, translating ids to indices."""

    def __init__(self, record: dict, cards: CardSet) -> None:
        self.record = record
        self.index = {
            "landscape": {c.id: i for i, c in enumerate(cards.landscapes)},
            "commission": {c.id: i for i, c in enumerate(cards.commissions)},
            "goal": {c.id: i for i, c in enumerate(cards.goals)},
            "plan": {c.id: i for i, c in enumerate(cards.plans)},
        }
        self.turn: dict = {}
        self.sale_count = 0
        self.reshuffle_count = 0  # reshuffles used so far on reshuffle_day
        self.reshuffle_day = 0

    def _fail(self, message: str, day: int | None = None, seat: int | None = None) -> RecordError:
        where = ", ".join(
            x for x in (day and f"day {day}", seat is not None and f"player {seat}") if x
        )
        return RecordError(f"{where + ': ' if where else ''}{message}")

    def _only(
        self, entry: dict, fields: tuple[str, ...], what: str, where: str, day=None, seat=None
    ) -> None:
        """Refuse a key the record format does not have in this object: a tester's
        "sale" for "sales" dropped the turn's sale, and the game replayed OK."""
        for key in entry:
            if key not in fields:
                raise self._fail(
                    f"{where}{as_json(key)}: unknown field (a {what} has {', '.join(fields)})",
                    day,
                    seat,
                )

    def _ids(self, kind: str, ids: Any, where: str, day=None, seat=None) -> list[int]:
        if not isinstance(ids, list):
            raise self._fail(f"{where}: expected a list of {kind} ids", day, seat)
        table = self.index[kind]
        for card in ids:
            if not isinstance(card, str) or card not in table:
                raise self._fail(f"{where}: unknown {kind} id {as_json(card)}", day, seat)
        return [table[card] for card in ids]

    def _day(self, state: GameState) -> dict:
        days = self.record.get("days")
        if not isinstance(days, list):
            shown = "null" if days is None else type(days).__name__
            raise RecordError(f"days: expected a list of the days played, not {shown}")
        if len(days) < state.day:
            raise RecordError(
                f"day {state.day}: R-END-1: the record stops after day "
                f"{len(days)}, but the game goes on"
            )
        day = days[state.day - 1]
        if not isinstance(day, dict):
            raise self._fail("expected an object for the day", state.day)
        self._only(day, DAY_FIELDS, "day", "", state.day)
        if "day" in day and not is_whole(day["day"]):
            raise self._fail(f"day: expected a whole number, got {as_json(day['day'])}", state.day)
        if "day" in day and day["day"] != state.day:
            raise self._fail(f"day: the record numbers this day {as_json(day['day'])}", state.day)
        return day

    def setup_orders(self, cards: CardSet, n_players: int) -> SetupOrders:
        setup = self.record.get("setup")
        if not isinstance(setup, dict):
            raise self._fail("setup: missing")
        plans = setup.get("plans")
        if not isinstance(plans, list):
            raise self._fail("setup: plans: expected one plan deck per player")
        return SetupOrders(
            self._ids("landscape", setup.get("landscapes"), "setup: landscapes"),
            self._ids("commission", setup.get("commissions"), "setup: commissions"),
            self._ids("goal", setup.get("goals"), "setup: goals"),
            [self._ids("plan", deck, f"setup: plans[{s}]") for s, deck in enumerate(plans)],
        )

    def keep_plan(self, state: GameState, seat: int, hand: list[int]) -> int:
        try:
            entry = self._day(state)["plans"][seat]
        except (KeyError, IndexError, TypeError):
            raise self._fail("plans: no plan entry for this player", state.day, seat) from None
        if not isinstance(entry, dict):
            raise self._fail(
                f"plans[{seat}]: expected an object (kept, drawn), got {as_json(entry)}", state.day
            )
        self._only(entry, ("drawn", "kept"), "plan entry", f"plans[{seat}]: ", state.day)
        if "drawn" in entry:
            drawn = self._ids("plan", entry["drawn"], "plans: drawn", state.day, seat)
            if drawn != hand:
                raise RuleViolation(
                    "R-PLAN-1",
                    "the drawn cards are not the top three of the plan deck",
                    state.day,
                    seat,
                )
        return self._ids("plan", [entry.get("kept")], "kept", state.day, seat)[0]

    def turn_order(self, state: GameState) -> list[int]:
        order = self._day(state).get("order")
        if not isinstance(order, list) or not all(is_whole(s) for s in order):
            raise self._fail("order: expected a list of seats", state.day)
        return order

    def hike(self, state: GameState, seat: int, options: list[tuple[int, int]]) -> tuple[int, int]:
        turns = self._day(state).get("turns")
        if not isinstance(turns, list):  # (true read "object of type 'bool' has no len()")
            shown = "missing" if turns is None else f"expected a list, got {as_json(turns)}"
            raise self._fail(f"turns: {shown}", state.day)
        position = len(state.turns_done)
        if position >= len(turns) or not isinstance(turns[position], dict):
            raise self._fail("the record has no turn for this player", state.day, seat)
        self.turn = turns[position]
        self._only(self.turn, TURN_FIELDS, "turn", f"turns[{position}]: ", state.day)
        self.sale_count = 0
        if "seat" in self.turn and not is_whole(self.turn["seat"]):
            raise self._fail(
                f"turns[{position}]: seat: expected a whole number, got {as_json(self.turn['seat'])}",
                state.day,
            )
        if "seat" not in self.turn:
            raise self._fail(f"turns[{position}]: seat: missing", state.day)
        if self.turn.get("seat") != seat:
            raise RuleViolation(
                "R-ORD-1",
                f"turn {position + 1} is recorded for player {as_json(self.turn['seat'])}",
                state.day,
                seat,
            )
        hike = self.turn.get("hike")
        hike = {} if hike is None else hike  # missing or null: stay (false, 0, "" are no hike)
        if not isinstance(hike, dict):
            raise self._fail(
                f"hike: expected an object (direction, steps), got {as_json(hike)}", state.day, seat
            )
        self._only(hike, ("direction", "steps"), "hike", "hike: ", state.day, seat)
        name = hike.get("direction")
        if "steps" not in hike and name is not None:  # a way to go, but not how far
            raise self._fail(
                f"hike: steps: missing (the hike toward {as_json(name)} gives no steps; 0 to stay)",
                state.day,
                seat,
            )
        steps = hike.get("steps", 0)
        if not is_whole(steps):
            raise self._fail("hike: steps: not a whole number", state.day, seat)
        if steps == 0:
            return (-1, 0)
        if name is None:
            raise self._fail(
                f"hike: direction: missing (a hike of {steps} steps gives no direction)",
                state.day,
                seat,
            )
        if name not in DIRECTION_NAMES:
            raise RuleViolation("R-HIKE-1", f"unknown direction {as_json(name)}", state.day, seat)
        return (DIRECTION_NAMES.index(name), steps)

    def paint(self, state: GameState, seat: int, options: list[list[int]]) -> list[int]:
        cells = []
        if "painted" not in self.turn:  # required (docs/record-format.md): [] for none
            raise self._fail(
                "painted: missing (the cells painted this turn; [] if none)", state.day, seat
            )
        painted = self.turn["painted"]  # (null is not "none": [] is)
        if not isinstance(painted, list):
            raise self._fail(f"painted: expected a list, got {as_json(painted)}", state.day, seat)
        for entry in painted:
            if not isinstance(entry, dict):
                raise self._fail(
                    f"painted: expected objects (cell, card), got {as_json(entry)}", state.day, seat
                )
            self._only(entry, ("cell", "card"), "painted entry", "painted: ", state.day, seat)
            if "cell" not in entry:
                raise self._fail("painted: cell: missing", state.day, seat)
            cell = entry.get("cell")
            row, col = cell if isinstance(cell, list) and len(cell) == 2 else (-1, -1)
            if not all(is_whole(x) and 0 <= x < GRID_SIZE for x in (row, col)):
                raise RuleViolation(
                    "R-PAINT-1",
                    f"painted cell {as_json(entry['cell'])} is not a cell of the grid",
                    state.day,
                    seat,
                )
            cell = row * GRID_SIZE + col
            cells.append(cell)
        return cells

    def sale(self, state: GameState, seat: int, options) -> tuple[int, list[int]] | None:
        sales = self.turn.get("sales")
        sales = [] if sales is None else sales  # optional, null: none ({} is no list)
        if not isinstance(sales, list):
            raise self._fail(f"sales: expected a list, got {as_json(sales)}", state.day, seat)
        if self.sale_count >= len(sales):
            return None
        entry = sales[self.sale_count]
        self.sale_count += 1
        if not isinstance(entry, dict):
            raise self._fail(
                f"sales: expected objects (commission, paintings), got {as_json(entry)}",
                state.day,
                seat,
            )
        self._only(entry, ("commission", "paintings"), "sale", "sales: ", state.day, seat)
        commission = self._ids("commission", [entry.get("commission")], "sales", state.day, seat)[0]
        return commission, self._ids("landscape", entry.get("paintings"), "sales", state.day, seat)

    def reshuffle(self, state: GameState, discard: list[int]) -> list[int]:
        reshuffles = self._day(state).get("reshuffles")
        reshuffles = [] if reshuffles is None else reshuffles
        if not isinstance(reshuffles, list):  # (7 read "object of type 'int' has no len()")
            raise self._fail(
                f"reshuffles: expected a list of deck orders, got {as_json(reshuffles)}", state.day
            )
        if self.reshuffle_day != state.day:
            self.reshuffle_day = state.day
            self.reshuffle_count = 0
        if self.reshuffle_count >= len(reshuffles):
            raise RuleViolation(
                "R-CLEAN-2", "a reshuffle is needed but none is recorded", state.day
            )
        deck = reshuffles[self.reshuffle_count]
        self.reshuffle_count += 1
        return self._ids("landscape", deck, "reshuffles", state.day)


def replay(
    record: dict, cards: CardSet | str | os.PathLike | None = None, on_event=None
) -> GameResult:
    """Replay a record; RecordError (one line) at the first illegal step or wrong result.
    ``cards``: a CardSet or a card file's path, as every other call takes (None: the set
    the record names)."""
    if not isinstance(record, dict):  # (None or a path: an AttributeError inside)
        raise RecordError(
            f"record: expected a game record (a dict: load_record(path)), got "
            f"{type(record).__name__}"
        )
    if cards is not None and not isinstance(cards, CardSet):
        cards = as_cards(cards)  # (a path: its set, or one InputError line)
    cards = record_cards(record, cards)
    if not isinstance(record.get("rules", {}), dict):
        raise RecordError('rules: expected an object of rule options, e.g. {"days": 6}')
    try:
        rules = Rules.from_dict(record.get("rules", {}))
    except (RuleOptionError, TypeError) as error:
        raise RecordError(f"rules: {error}") from None
    players = record.get("players")
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise RecordError(f"players: {as_json(players)} is not a player count from 2 to 4")
    labels = record.get("strategies")  # (informational: the log's seat labels)
    if labels is not None and not (
        isinstance(labels, list)
        and len(labels) == players
        and all(isinstance(label, str) for label in labels)
    ):
        raise RecordError(
            f"strategies: expected a list of {players} strategy labels (strings), got "
            f"{as_json(labels)[:80]}"
        )
    problems = check_playable(cards, players, rules.days)  # (a game that cannot be set up)
    if problems:
        raise RecordError(problems[0])
    decider = RecordDecider(record, cards)
    meta = {k: record[k] for k in ("seed", "game_index", "strategies") if k in record}

    played: list[dict] = []  # the rules' turns of the day being played, then its log
    checked = [0]  # the last day whose results were checked

    def check_as_played(kind: str, state, data: dict) -> None:
        """A day's recorded results (the cards painted, the goal flags and keeper, the
        reshuffles, the fame) are checked when the day ends, after its clean-up (or at the
        game's end), before any step of the next day: the first problem in game order is
        the one named, as the rules' replay section says (a step that breaks a rule later
        the same day comes first)."""
        if kind == "day":
            played.clear()
        elif kind == "turn":
            played.append(data)
        elif kind in ("clean_up", "end") and checked[0] < state.day:
            checked[0] = state.day
            days = record.get("days") or []
            day_log = data if kind == "clean_up" else data["days"][-1]
            if state.day <= len(days) and isinstance(days[state.day - 1], dict):
                _compare_day(state.day, day_log, played, days[state.day - 1])
        if on_event is not None:
            on_event(kind, state, data)

    try:
        result = play_game(
            cards, rules, players, decider, record_meta=meta, on_event=check_as_played
        )
        compare_results(record, result.record)
    except RuleViolation as violation:
        raise RecordError(violation.line()) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise RecordError(f"malformed record ({type(error).__name__}: {error})") from None
    return result


def _compare_turn(day: int, mine: dict, theirs: dict) -> None:
    """A turn's painted card ids and goal flag, as recorded, against the rules'."""
    for painted_mine, painted_theirs in zip(
        mine["painted"], theirs.get("painted") or [], strict=False
    ):
        if (
            isinstance(painted_theirs, dict)
            and "card" in painted_theirs
            and painted_theirs["card"] != painted_mine["card"]
        ):
            raise RecordError(
                f"day {day}, player {mine['seat']}: R-PAINT-2: cell "
                f"{painted_mine['cell']} held {painted_mine['card']}, not {_shown(painted_theirs['card'])}"
            )
    if "goal" in theirs and not isinstance(theirs["goal"], bool):
        raise RecordError(
            f"day {day}, player {mine['seat']}: goal: expected true or false, got "
            f"{as_json(theirs['goal'])}"
        )
    if "goal" in theirs and theirs["goal"] != mine["goal"]:
        claim = "took" if theirs["goal"] else "did not take"
        raise RecordError(
            f"day {day}, player {mine['seat']}: R-GOAL-1: the record says the player "
            f"{claim} the goal, the rules say otherwise"
        )


def _compare_day(day: int, mine: dict, turns: list[dict], theirs: dict) -> None:
    """A day's recorded results against the rules', in game order: the day's goal card,
    each turn's (``turns``: the rules' turns), the turns and reshuffles counted, the goal's
    keeper, the fame after the day."""
    if "goal" in theirs and theirs["goal"] != mine["goal"]:
        rule = "R-SET-3" if day == 1 else "R-CLEAN-3"  # turned up at set-up, then at clean-up
        raise RecordError(
            f"day {day}: {rule}: the day's goal is {_shown(mine['goal'])}, not {_shown(theirs['goal'])}"
        )
    for key in ("turns", "reshuffles"):
        if theirs.get(key) is not None and not isinstance(theirs[key], list):  # (null: none)
            raise RecordError(f"day {day}: {key}: expected a list, got {as_json(theirs[key])}")
    recorded_turns = theirs.get("turns") or []
    for turn_mine, turn_theirs in zip(turns, recorded_turns, strict=False):
        if isinstance(turn_theirs, dict):
            _compare_turn(day, turn_mine, turn_theirs)
    recorded_plans = theirs.get("plans")  # one entry per player: a third of two was read
    if isinstance(recorded_plans, list) and len(recorded_plans) != len(mine["plans"]):
        raise RecordError(
            f"day {day}: R-PLAN-1: the record has {len(recorded_plans)} plans, the game has "
            f"{len(mine['plans'])} players"
        )
    for key, rule in (("turns", "R-ORD-1"), ("reshuffles", "R-CLEAN-2")):
        if len(theirs.get(key) or []) != len(mine.get(key) or []):
            raise RecordError(
                f"day {day}: {rule}: the record has {len(theirs.get(key) or [])} {key}, "
                f"the game has {len(mine.get(key) or [])}"
            )
    holder = theirs.get("goal_holder")
    if "goal_holder" in theirs and holder is not None and not is_whole(holder):
        raise RecordError(
            f"day {day}: goal_holder: expected a seat number or null, got {as_json(holder)}"
        )
    if "goal_holder" in theirs and holder != mine["goal_holder"]:
        raise RecordError(
            f"day {day}: R-GOAL-2: goal kept by {as_json(holder)}, the rules give "
            f"{as_json(mine['goal_holder'])}"
        )
    if "fame" in theirs:
        check_type(f"day {day}: fame", theirs["fame"], mine["fame"])
    if "fame" in theirs and theirs["fame"] != mine["fame"]:
        raise RecordError(
            f"day {day}: R-END-2: fame after the day recorded as {as_json(theirs['fame'])}, the "
            f"rules give {mine['fame']}"
        )


def compare_results(recorded: dict, derived: dict) -> None:
    """What the record claims of the whole game must be what the rules give: the days, the
    end and the final scores (each day's results were checked when it ended:
    ``_compare_day``)."""
    if len(recorded.get("days") or []) != len(derived["days"]):
        raise RecordError(
            f"R-END-1: the record has {len(recorded.get('days') or [])} days, the game lasts {len(derived['days'])}"
        )
    if "end" in recorded:
        check_type("end", recorded["end"], derived["end"])
    if "end" in recorded and recorded["end"] != derived["end"]:
        raise RecordError(
            f"R-END-1: the record says the game ended {as_json(recorded['end'])}, the rules give "
            f"{as_json(derived['end'])}"
        )
    for key, rule in (("fame", "R-END-2"), ("fame_parts", "R-END-2"), ("winners", "R-END-3")):
        if key in recorded and not isinstance(recorded[key], list):
            raise RecordError(f"{key}: expected a list, one entry per player")
        if key in ("fame", "winners") and key in recorded:
            wrong = [value for value in recorded[key] if not is_whole(value)]
            if wrong:
                raise RecordError(f"{key}: expected whole numbers, got {as_json(wrong[0])}")
        if key in recorded:
            check_type(key, recorded[key], derived[key])
        if key in recorded and recorded[key] != derived[key]:
            for seat, (theirs, mine) in enumerate(zip(recorded[key], derived[key], strict=False)):
                if theirs != mine and key != "winners":
                    raise RecordError(
                        f"player {seat}: {rule}: recorded {key} {printable(theirs)}, the rules "
                        f"give {mine}"
                    )
            raise RecordError(
                f"{rule}: recorded {key} {printable(recorded[key])}, the rules give {derived[key]}"
            )
