"""A readable day-by-day log of a game, built from the engine's events (play and replay)."""

from __future__ import annotations

from sunset_sim.enums import DIRCLASS_NAMES, GOAL_KIND_NAMES, GOAL_MOVED, GRID_SIZE
from sunset_sim.rules.state import EMPTY, GameState
from sunset_sim.validation import one_line

CELL_WIDTH = 9


class GameLog:
    """Collects log lines; pass ``GameLog().on_event`` as play_game's ``on_event``."""

    def __init__(self, names: list[str] | None = None, heading: str = "") -> None:
        self.lines: list[str] = []
        self.heading = heading  # (game_heading: which game, set and rules; first line)
        # names can come from a record file: never pass its control characters (terminal
        # escape sequences) through to the terminal
        self.names = [printable(name) for name in names or []]

    def seat(self, seat: int) -> str:
        name = self.names[seat] if seat < len(self.names) else ""
        return f"seat {seat}" + (f" [{name}]" if name else "")

    def on_event(self, kind: str, state: GameState, data: dict) -> None:
        if kind == "day":
            self.day(state, data)
        elif kind == "turn":
            self.turn(state, data)
        elif kind == "day_end":
            kept = data["goal_holder"]
            fame = " | ".join(f"seat {s}: {f}" for s, f in enumerate(data["fame"]))
            goal = f" (goal kept by seat {kept})" if kept is not None else ""
            self.lines.append(f"Fame after day {state.day}: {fame}{goal}")
        elif kind == "end":
            self.end(state, data)

    def day(self, state: GameState, data: dict) -> None:
        cards = state.cards
        if not self.lines:  # (the first day: which game, and what the grid's letters are)
            if self.heading:
                self.lines.append(self.heading)
            letters = feature_letters(cards.features)
            legend = ", ".join(
                f"{letter} {printable(name)}"
                for letter, name in zip(letters, cards.features, strict=True)
            )
            self.lines.append(f"Features on the grid: {legend}; *N: the artist of seat N")
        self.lines.append(f"== Day {state.day} " + "=" * 50)
        if state.goal >= 0:
            goal = cards.goals[state.goal]
            self.lines.append(
                f"Goal: {goal.id} {goal_text(goal.kind, goal.param)} ({goal.fame} fame)"
            )
        else:
            self.lines.append("Goal: none")
        row = ", ".join(commission_text(state, c) for c in state.commission_row)
        preview = commission_text(state, state.preview) if state.preview >= 0 else "none"
        self.lines.append(f"Commissions: {row}   preview: {preview}")
        self.lines.extend(grid_lines(state))
        order = []
        for seat in data["order"]:
            plan = cards.plans[state.players[seat].plan]
            order.append(
                f"seat {seat} {plan.wake_label} (plan card {plan.id}: {plan.directions}, hike "
                f"{plan.hike}, paint {plan.paint})"
            )
        self.lines.append("Order: " + " -> ".join(order))

    def turn(self, state: GameState, data: dict) -> None:
        hike = data["hike"]
        position = state.players[data["seat"]].position
        cell = f"[{position // GRID_SIZE}, {position % GRID_SIZE}]"
        move = f"hikes {hike['direction']} {hike['steps']} to" if hike["steps"] else "stays at"
        parts = [f"  {self.seat(data['seat'])}: {move} {cell}"]
        if data["painted"]:
            parts.append(
                "paints " + ", ".join(landscape_text(state, p["card"]) for p in data["painted"])
            )
        for sale in data["sales"]:
            parts.append(f"sells {', '.join(sale['paintings'])} for {sale['commission']}")
        if data["goal"]:
            parts.append("takes the goal")
        self.lines.append("; ".join(parts))

    def end(self, state: GameState, record: dict) -> None:
        self.lines.append(
            f"== End: {record['end']['reason']} after day {record['end']['day']} " + "=" * 30
        )
        for seat, (fame, parts) in enumerate(
            zip(record["fame"], record["fame_parts"], strict=True)
        ):
            self.lines.append(
                f"  {self.seat(seat)}: {fame} fame (commissions {parts[0]}, goals {parts[1]}, "
                f"paintings {parts[2]})"
            )
        won = record["winners"]
        self.lines.append(
            "Winner: " + ", ".join(f"seat {s}" for s in won) + (" (tie)" if len(won) > 1 else "")
        )


def goal_text(kind: int, param: int) -> str:
    if kind == GOAL_MOVED:
        return f"moved {DIRCLASS_NAMES[param]}"
    return f"{GOAL_KIND_NAMES[kind]}" + (f" {param}" if param else "")


def game_heading(cards_name: str, cards_hash: str, rules: dict, seed: int, game: int) -> str:
    """The log's first line: a variant's log (other rules or cards) read like any other."""
    options = ", ".join(f"{key}={value}" for key, value in rules.items())
    return printable(
        f"Game {game} of seed {seed}; cards {cards_name} ({str(cards_hash)[:12]}); rules {options}",
        400,
    )


def record_log(record: dict) -> GameLog:
    """The log of a game record's replay: the play log, heading included."""
    names = record.get("strategies")
    cards = record.get("cards") if isinstance(record.get("cards"), dict) else {}
    rules = record.get("rules") if isinstance(record.get("rules"), dict) else {}
    heading = game_heading(
        cards.get("name", "?"), cards.get("hash", "?"), rules, record.get("seed", "?"),
        record.get("game_index", "?"),
    )  # fmt: skip
    return GameLog(names if isinstance(names, list) else None, heading)


def feature_letters(features: tuple[str, ...]) -> list[str]:
    """One letter per feature for the grid, each a different one: the name's first
    letter not taken by a feature before it ("snow" after "sun": n), else a free digit (two
    features sharing an initial read alike: "ss" was snow and sun, or sun twice)."""
    letters: list[str] = []
    spare = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # (feature names are lower-case)
    for name in features:
        free = [c for c in name + spare if c.isalnum() and c not in letters]
        letters.append(free[0])
    return letters


def features_text(state: GameState, card: int) -> str:
    letters = feature_letters(state.cards.features)
    counts = state.cards.landscapes[card].features
    return "".join(letters[f] * n for f, n in enumerate(counts))


def landscape_text(state: GameState, card_id: str) -> str:
    index = next(i for i, c in enumerate(state.cards.landscapes) if c.id == card_id)
    return f"{card_id}({features_text(state, index)})"


def commission_text(state: GameState, commission: int) -> str:
    card = state.cards.commissions[commission]
    return f"{card.id}:{card.fame}"


def grid_lines(state: GameState) -> list[str]:
    """The wilderness: each cell's feature initials, ``*`` and seats for artists, ``.`` empty."""
    header = "     " + "".join(f"{col:<{CELL_WIDTH}}" for col in range(GRID_SIZE))
    lines = [header]
    for row in range(GRID_SIZE):
        cells = []
        for col in range(GRID_SIZE):
            cell = row * GRID_SIZE + col
            card = state.grid[cell]
            text = "." if card == EMPTY else features_text(state, card)
            artists = "".join(str(p.seat) for p in state.players if p.position == cell)
            if artists:
                text += "*" + artists
            cells.append(f"{text:<{CELL_WIDTH}}")
        lines.append(f"  {row}  " + "".join(cells))
    return lines


def printable(value, most: int = 80) -> str:
    """Text safe to print: control characters shown as escapes, at most ``most`` characters."""
    return one_line(value if isinstance(value, str) else repr(value), most, keep=most - 3)
