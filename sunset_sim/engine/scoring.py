"""The end of a game in the fast engine (R-END-2/3), as ``rules/scoring.py`` counts it:
fame from commissions, kept goals and half the icons of unsold paintings; every seat
with the most fame wins."""

from __future__ import annotations

from sunset_sim.engine.jit import jit
from sunset_sim.engine.state import (
    S_COMMISSION_FAME,
    S_COMMISSIONS,
    S_GOAL_FAME,
    S_GOALS,
    S_ICONS,
    S_PAINTED,
    S_SOLD,
    trace_put,
)
from sunset_sim.enums import (
    R_CARDS_PAINTED,
    R_COMMISSIONS_WON,
    R_FAME,
    R_FAME_COMMISSIONS,
    R_FAME_GOALS,
    R_FAME_PAINTINGS,
    R_GOALS_WON,
    R_PAINTINGS_SOLD,
    R_WINNERS,
    R_WON,
)


@jit(inline="always")
def score(sums, seat_out, n_players, trace):
    """R-END-2/3: each seat's fame and its parts, and the (shared) win, into seat_out."""
    trace_put(trace, -2)
    best = -1
    for seat in range(n_players):
        fame = sums[seat, S_COMMISSION_FAME] + sums[seat, S_GOAL_FAME] + sums[seat, S_ICONS] // 2
        seat_out[seat, R_FAME] = fame
        seat_out[seat, R_FAME_COMMISSIONS] = sums[seat, S_COMMISSION_FAME]
        seat_out[seat, R_FAME_GOALS] = sums[seat, S_GOAL_FAME]
        seat_out[seat, R_FAME_PAINTINGS] = sums[seat, S_ICONS] // 2
        seat_out[seat, R_COMMISSIONS_WON] = sums[seat, S_COMMISSIONS]
        seat_out[seat, R_GOALS_WON] = sums[seat, S_GOALS]
        seat_out[seat, R_PAINTINGS_SOLD] = sums[seat, S_SOLD]
        seat_out[seat, R_CARDS_PAINTED] = sums[seat, S_PAINTED]
        if fame > best:
            best = fame
    n_winners = 0
    for seat in range(n_players):
        if seat_out[seat, R_FAME] == best:
            n_winners += 1
    for seat in range(n_players):
        seat_out[seat, R_WINNERS] = n_winners
        seat_out[seat, R_WON] = 1 if seat_out[seat, R_FAME] == best else 0
        trace_put(trace, seat_out[seat, R_FAME])
