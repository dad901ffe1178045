"""A readable day-by-day log of a game, built from the engine's events (play and replay)."""

from __future__ import annotations

from sunset_sim.enums import DIRCLASS_NAMES, GOAL_KIND_NAMES, GOAL_MOVED, GRID_SIZE
from sunset_sim.rules.state import EMPTY, GameState
from sunset_sim.validation import one_line

CELL_WIDTH = 9


class GameLog:
    """Collects log lines; pass ``GameLog().on_event`` as play_game's ``on_event``."""

    def __init__(self, names: list[str] | None = None) -> None:
        self.lines: list[str] = []
        # names can come from a record file: never pass its control characters (terminal
        # escape sequences) through to the terminal
        self.names = [printable(name) for name in names or []]

    def seat(self, seat: int) -> str:
        name = self.names[seat] if seat < len(self.names) else ""
        return f"P{seat}" + (f" [{name}]" if name else "")

    def on_event(self, kind: str, state: GameState, data: dict) -> None:
        if kind == "day":
            self.day(state, data)
        elif kind == "turn":
            self.turn(state, data)
        elif kind == "day_end":
            kept = data["goal_holder"]
            fame = " | ".join(f"P{s} {f}" for s, f in enumerate(data["fame"]))
            goal = f" (goal kept by P{kept})" if kept is not None else ""
            self.lines.append(f"Fame after day {state.day}: {fame}{goal}")
        elif kind == "end":
            self.end(state, data)

    def day(self, state: GameState, data: dict) -> None:
        cards = state.cards
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
                f"P{seat} {plan.wake_label} ({plan.id} {plan.directions} hike {plan.hike} paint {plan.paint})"
            )
        self.lines.append("Order: " + " -> ".join(order))

    def turn(self, state: GameState, data: dict) -> None:
        hike = data["hike"]
        move = f"{hike['direction']} {hike['steps']}" if hike["steps"] else "stays"
        position = state.players[data["seat"]].position
        parts = [
            f"  {self.seat(data['seat'])}: hikes {move} to [{position // GRID_SIZE}, {position % GRID_SIZE}]"
        ]
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
            "Winner: " + ", ".join(f"P{s}" for s in won) + (" (tie)" if len(won) > 1 else "")
        )


def goal_text(kind: int, param: int) -> str:
    if kind == GOAL_MOVED:
        return f"moved {DIRCLASS_NAMES[param]}"
    return f"{GOAL_KIND_NAMES[kind]}" + (f" {param}" if param else "")


def features_text(state: GameState, card: int) -> str:
    names = state.cards.features
    counts = state.cards.landscapes[card].features
    return "".join(names[f][0] * n for f, n in enumerate(counts))


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


def printable(value) -> str:
    """Text safe to print: control characters shown as escapes, at most 80 characters."""
    return one_line(value if isinstance(value, str) else repr(value), 80, keep=77)
