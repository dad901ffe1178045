"""lookahead's parameters, in params-vector order, and their indices: read by the
strategy (``lookahead``) and its plan decision (``_lookahead_plan``). Not a strategy."""

from __future__ import annotations

from sunset_sim.strategy import Parameter, parameter_indices

# The parameters, in params-vector order; the index constants are derived from them.
PARAMETERS = (
    Parameter(
        "samples", 3.0, 1.0, 256.0, "Monte Carlo samples per plan decision (at most)", integer=True
    ),
    Parameter(
        "candidates", 6.0, 1.0, 33.0, "hike options played out (best one-ply first)", integer=True
    ),
    Parameter("commission", 1.0, 0.0, 3.0, "weight of frames filled toward commissions"),
    Parameter("leftover", 1.4, 0.0, 3.0, "weight of leftover fame (icons / 2)"),
    Parameter("goal", 1.5, 0.0, 3.0, "weight of today's goal"),
    Parameter("rivalry", 0.5, 0.0, 2.0, "weight of the other players' mean gain"),
    Parameter("noise", 0.5, 0.0, 5.0, "spread of the perturbation of opponents' values"),
    Parameter("spend", 0.2, 0.0, 2.0, "fame per 15 min later wake-up x share of game left"),
    Parameter("opp_lateness", 0.3, 0.0, 2.0, "opponents' model: fame per 15 min later"),
    Parameter("mobility", 0.0, 0.0, 2.0, "fame per hike end the end cell offers tomorrow"),
    Parameter("urgency", 0.5, 0.0, 1.0, "frame worth: 0 fame/frames .. 1 fame/frames missing"),
    Parameter(
        "hike_samples",
        1.0,
        1.0,
        256.0,
        "samples per hike decision (perturbed values)",
        integer=True,
    ),
    Parameter("margin", 1.5, 0.0, 10.0, "plan: stop sampling once a card leads by this (0: never)"),
)
(
    SAMPLES,
    CANDIDATES,
    COMMISSION,
    LEFTOVER,
    GOAL,
    RIVALRY,
    NOISE,
    SPEND,
    OPP_LATENESS,
    MOBILITY,
    URGENCY,
    HIKE_SAMPLES,
    MARGIN,
) = parameter_indices(
    PARAMETERS,
    "samples",
    "candidates",
    "commission",
    "leftover",
    "goal",
    "rivalry",
    "noise",
    "spend",
    "opp_lateness",
    "mobility",
    "urgency",
    "hike_samples",
    "margin",
)

MIN_SAMPLES = 2  # plan samples before an early stop (parameter ``margin``)
