"""Phase 2, sell (R-SELL-1 .. R-SELL-4)."""

from __future__ import annotations

from sunset_sim.rules.errors import RuleViolation
from sunset_sim.rules.state import GameState


def sale_options(state: GameState, seat: int) -> list[tuple[int, list[int]]]:
    """Legal sales, in the canonical order both engines use (the "stop" option not included).

    Commissions in row order; for each, assignments frame by frame over the player's
    paintings in the order taken. Paintings with identical feature multisets are
    interchangeable, so per frame only the first unused one of each kind is offered.
    Every legal sale is listed, however many (R-SELL-1).
    """
    tables = state.tables
    hand = state.players[seat].paintings
    options: list[tuple[int, list[int]]] = []

    def extend(commission: int, frames: list[int], chosen: list[int]) -> None:
        if len(chosen) == len(frames):
            options.append((commission, list(chosen)))
            return
        frame = frames[len(chosen)]
        kinds_tried: set[int] = set()
        for card in hand:
            kind = int(tables.land_kind[card])
            if card in chosen or kind in kinds_tried or not tables.match[card, frame]:
                continue
            kinds_tried.add(kind)
            chosen.append(card)
            extend(commission, frames, chosen)
            chosen.pop()

    for commission in state.commission_row:
        frames = [
            int(f) for f in tables.comm_frames[commission, : tables.comm_n_frames[commission]]
        ]
        extend(commission, frames, [])
    return options


def check_sale(state: GameState, seat: int, commission: int, paintings: list[int]) -> None:
    day = state.day
    name = (
        state.cards.commissions[commission].id
        if 0 <= commission < len(state.cards.commissions)
        else commission
    )
    if commission == state.preview:
        raise RuleViolation("R-SELL-1", f"commission {name} is the preview", day, seat)
    if commission not in state.commission_row:
        raise RuleViolation(
            "R-SELL-1", f"commission {name} is not in the commission row", day, seat
        )
    frames = state.cards.commissions[commission].frames
    if len(paintings) != len(frames):
        raise RuleViolation(
            "R-SELL-2",
            f"commission {name} needs {len(frames)} painting(s), one per frame; {len(paintings)} given",
            day,
            seat,
        )
    if len(set(paintings)) != len(paintings):
        raise RuleViolation("R-SELL-2", "a painting is used for two frames", day, seat)
    hand = state.players[seat].paintings
    for slot, card in enumerate(paintings):
        if card not in hand:
            label = (
                state.cards.landscapes[card].id if 0 <= card < len(state.cards.landscapes) else card
            )
            raise RuleViolation(
                "R-SELL-2", f"painting {label} is not held by the player", day, seat
            )
        if not frames[slot].matches(state.cards.landscapes[card].features):
            raise RuleViolation(
                "R-SELL-3",
                f"painting {state.cards.landscapes[card].id} does not match frame {slot} of {name}",
                day,
                seat,
            )


def apply_sale(state: GameState, seat: int, commission: int, paintings: list[int]) -> None:
    """R-SELL-2: paintings to the discard pile in frame order; the commission to the player."""
    player = state.players[seat]
    for card in paintings:
        player.paintings.remove(card)
        state.landscape_discard.append(card)
    state.commission_row.remove(commission)  # R-SELL-4: not replaced until clean-up
    player.commissions.append(commission)
