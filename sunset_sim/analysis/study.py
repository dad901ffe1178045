"""A designer study: every card's value from paired experiments, targets, and rebalance
suggestions that are verified by playing before they are suggested.

1. **Values** (``experiments.restricted_play``): the restricted-play value of every plan
   card, commission and feature type (and landscapes on request).
2. **Edits** (``card_edits``): commission fame +-1 (and, on request, goal fame +-1 and
   every plan card field one step either way) on the same deals: how each edit moves
   the card's own value and every strategy's win share.
3. **Targets** (``targets.py``): each card's metric against a band computed from the
   *other* cards of its family; a card is outside only when its whole 95% CI is (a
   commission or plan card outside, or whose value is outside but whose CI holds the
   band's edge, is measured on fresh deals, ``fresh_deals.refine_targets``, and
   judged on them alone: the study's deals chose it).
   Commissions: value per fame point within factors of the others' median (every
   fame point about as easy to earn as any other: an over-priced card is worth far
   more per point, an under-priced one nothing), and a whole value at most a factor
   above the others' median (a hard commission's points stay as hard to earn at any
   fame: only its whole value shows it over-priced); plan cards: value within a band of
   the others' (no card far more or less worth keeping) and in wake-up order
   (a card out of order with several others is too strong or too weak for its time,
   not they); goals: the share of the days a goal was kept by the last player to move.
4. **Suggestions** (``suggestions.py``): for every commission or plan card outside its
   band, a walk toward the band one step at a time (at each step, of every field's one-step
   edit, the one that leaves the card's metric on the study's deals nearest the band,
   then nearest its centre: for a plan card, the centre of the part of the band no more
   than the margin under the cards that wake before it), to the first set inside. Each
   is then VERIFIED by playing the whole field on the set with those edits on fresh
   deals (game indices after the study's), before (original set) and after (edited set)
   with CIs; while the
   after-value's CI holds an edge of the band, as many fresh deals again are played and
   both values are taken over all of them (at most four batches). If the after-value
   is not inside, the walk goes on to its next set inside (four tries, shared with the
   walk's sets outside the band on the study's deals whose CI there still reaches it,
   verified nearest first when no set inside was verified); nothing unverified is
   suggested. A plan card may end with edits to several fields: a row
   each. Last, all verified edits together (``suggested-cards.toml``) are played on
   the fresh deals once more, and each card's value there is reported beside its own
   (``after_all_edits``, ``inside_with_all_edits``, and a note for a card outside its
   target there): edits interact, and the designer should see how.
   Goals have no suggestion: the study walks no goal field (a note says what to try).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sunset_sim import validation
from sunset_sim.analysis.experiments import (
    FAMILIES,
    FieldRun,
    Lab,
    Restriction,
    restrictions_for,
    values_frame,
)
from sunset_sim.analysis.fresh_deals import Status, fresh_batches, refine_targets
from sunset_sim.analysis.paired_values import POINTS, _mean_ci, half_contrast, wake_halves
from sunset_sim.analysis.suggestions import PLAN_FIELDS, SUGGESTION_COLUMNS
from sunset_sim.analysis.suggestions import suggest as suggest_edits  # (``suggest``: an argument)
from sunset_sim.analysis.targets import METRIC, Targets, card_targets, goal_targets, plain_zeros
from sunset_sim.analysis.tournament import check_distinct, seatings
from sunset_sim.analysis.wake_order import (
    above_by_numbers,
    by_numbers_notes,
    lone_pair_notes,
    lone_pairs,
    unnamed_pair_notes,
)
from sunset_sim.cards.edit import CardEditError, card_value, edit_card
from sunset_sim.cards.loader import load_cards
from sunset_sim.cards.model import CardSet
from sunset_sim.enums import GOAL_KINDS_WITH_COUNT
from sunset_sim.rules.options import Rules
from sunset_sim.run.backends import BackendOption, DaskBackend, LocalBackend, using_backend
from sunset_sim.run.progress import ProgressOption, progress_bar
from sunset_sim.strategy import Player, make_player

__all__ = [
    "EDIT_FAMILIES",
    "Study",
    "Targets",
    "card_edits",
    "run_study",
]

EDIT_FAMILIES = ("commission-fame", "goal-fame", "plan")


@dataclass
class Study:
    """Everything a study found; ``study_files.write_study`` puts it in a folder."""

    values: pd.DataFrame
    edits: pd.DataFrame
    targets: pd.DataFrame
    suggestions: pd.DataFrame
    suggested_cards: CardSet | None
    settings: dict
    compare_command: str = ""
    notes: list[str] = field(default_factory=list)
    # early rise against paint power (``plan_tradeoff``), None without the plan family
    tradeoff: dict | None = None

    def target_text(self) -> list[str]:
        """The targets the study held its cards to, a line per family (``Targets.describe``
        of the targets it was given; the defaults' for a Study made without them)."""
        return list(self.settings.get("targets") or Targets().describe())

    @property
    def suggested(self) -> bool:
        """Whether the study looked for suggestions (``suggest=False``: values and targets
        only, so "none" would say what was not asked)."""
        return bool(self.settings.get("suggest", True))

    def outside(self) -> pd.DataFrame:
        """The target rows of the cards outside their targets."""
        return self.targets[self.targets["status"].isin(["above", "below"])]

    def unsettled(self) -> pd.DataFrame:
        """The target rows of the cards whose value is outside their target but whose CI
        reaches in, even on the fresh deals (``targets.band_status``)."""
        return self.targets[self.targets["status"] == "unsettled"]


# --- card edits -----------------------------------------------------------------------


def _edit_list(cards: CardSet, families: Sequence[str]) -> list[tuple[str, str, int]]:
    unknown = [f for f in families if f not in EDIT_FAMILIES]
    if unknown:
        raise validation.InputError(
            f"edits: {unknown[0]!r} is not one of {', '.join(EDIT_FAMILIES)}"
        )
    edits = []
    for family in families:
        if family == "commission-fame":
            edits += [(c.id, "fame", s) for c in cards.commissions for s in (1, -1)]
        elif family == "goal-fame":
            edits += [(g.id, "fame", s) for g in cards.goals for s in (1, -1)]
        else:
            edits += [(p.id, f, s) for p in cards.plans for f in PLAN_FIELDS for s in (1, -1)]
    return edits


def _share_by_strategy(run: FieldRun) -> dict[str, np.ndarray]:
    """Per strategy, per deal: its mean win share over every seat it holds."""
    out = {}
    for label in sorted({label for table in run.labels for label in table}):
        mask = np.array([[seat == label for seat in table] for table in run.labels])  # (T, P)
        total = (run.share * mask[:, None, :]).sum(axis=(0, 2))
        out[label] = total / mask.sum()
    return out


EDIT_COLUMNS = [
    "card",
    "field",
    "current",
    "edited",
    "measure",
    "item",
    "before",
    "after",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "n",
]


def _edit_rows(lab: Lab, cards: CardSet, card: str, field_: str, steps: int) -> list[dict]:
    try:
        edited = edit_card(cards, card, field_, steps)
    except CardEditError:
        return []  # out of the card's range: no such edit
    common = {
        "card": card,
        "field": field_,
        "current": card_value(cards, card, field_),
        "edited": card_value(edited, card, field_),
    }
    rows = []
    games = lab.games * len(lab.tables)
    family = "commission" if any(c.id == card for c in cards.commissions) else None
    if family is None and any(p.id == card for p in cards.plans):
        family = "plan"
    if family is not None:
        restriction = Restriction(family, card)
        before, after = lab.cost(cards, restriction), lab.cost(edited, restriction)
        # with the bound paired_value has: no game changed is not "0 to 0" (a value moves
        # by at most 2 x POINTS in a game, a win share by POINTS)
        diff, lo, hi = _mean_ci(after - before, bound=2 * POINTS, games=games)
        rows.append(
            {
                **common,
                "measure": "value",
                "item": card,
                "before": float(np.mean(before)),
                "after": float(np.mean(after)),
                "diff": diff,
                "diff_ci_low": lo,
                "diff_ci_high": hi,
                "n": lab.games,
            }  # fmt: skip
        )
    base_shares = _share_by_strategy(lab.base(cards))
    for label, shares in _share_by_strategy(lab.base(edited)).items():
        before = base_shares[label] * POINTS
        diff, lo, hi = _mean_ci(shares * POINTS - before, bound=POINTS, games=games)
        rows.append(
            {
                **common,
                "measure": "win_share",
                "item": label,
                "before": float(before.mean()),
                "after": float(shares.mean() * POINTS),
                "diff": diff,
                "diff_ci_low": lo,
                "diff_ci_high": hi,
                "n": lab.games,
            }  # fmt: skip
        )
    lab.forget(edited)
    return rows


def card_edits(
    strategies: Sequence[str | Player] = ("greedy",),
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | None = None,
    families: Sequence[str] = ("commission-fame",),
    edits: Sequence[tuple[str, str, int]] | None = None,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Every edit of ``families`` (or the ``edits`` given as (card, field, steps)) played on
    the same deals as the unedited set. Rows per edit: ``measure`` "value" (the card's
    restricted-play value in points, commissions and plan cards) and "win_share" per
    strategy (points); ``diff`` = after - before with its paired 95% CI; win shares and
    values in points. ``backend``/``scheduler``: as ``simulate`` takes them."""
    card_set = cards if isinstance(cards, CardSet) else load_cards(cards)
    entrants = [s if isinstance(s, Player) else make_player(s) for s in strategies]
    with using_backend(backend, jobs, scheduler) as runner:
        lab = Lab(
            seatings(entrants, players), games, seed, rules or Rules(), 0, jobs, progress,
            backend=runner,
        )  # fmt: skip
        chosen = list(edits) if edits is not None else _edit_list(card_set, families)
        rows = [row for edit in chosen for row in _edit_rows(lab, card_set, *edit)]
    return pd.DataFrame(rows, columns=EDIT_COLUMNS)


# --- the study --------------------------------------------------------------------------


@contextmanager
def _noted_once() -> Iterator[None]:
    """Around ``run_study`` calling itself: the same entrants are checked again, and
    their note (two entrants that play alike) was given once already (it came two or
    three times, from each line that called)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", validation.SameEntrantWarning)
        yield


@validation.memory_as_input_error
def run_study(
    strategies: Sequence[str | Player],
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    cards: CardSet | str | os.PathLike | None = None,
    rules: Rules | Mapping | Sequence[str] | None = None,
    families: Sequence[str] = ("plan", "commission", "feature"),
    edits: Sequence[str] = ("commission-fame",),
    targets: Targets | None = None,
    suggest: bool = True,
    verify_games: int | None = None,
    max_steps: int = 6,
    check_field: Sequence[str | Player] | None = None,
    check_games: int | None = None,
    jobs: int | None = None,
    progress: ProgressOption = False,
    status: Status | None = None,
    backend: BackendOption = "local",
    scheduler: str | None = None,
) -> Study:
    """The whole study (module docstring): values, edits, targets, verified suggestions.

    ``games`` deals are played at every rotation of the table for each arm;
    ``verify_games`` fresh deals (default ``games``) verify the suggestions;
    ``max_steps``: the longest walk of a plan card's search (a commission's may go down to
    fame 1 or up to the set's highest commission fame); ``check_field`` replays the values
    with a second field (``check_games`` deals) and marks in
    ``targets.holds_in_check_field`` whether that field's status on its deals is the
    study's (after the fresh deals, where a card was measured again), with that field's
    own status, value and CI in ``targets.check_field_status``, ``check_field_value`` and
    its CI columns, and its own target in ``check_field_target_low`` and ``_high``.
    ``progress``: a callable told the games played, or True for a ``tqdm.auto`` bar over
    the values and edits (Jupyter or stderr; the suggestions' search is not counted).
    ``backend``/``scheduler``: where the chunks are played, as ``simulate`` takes them
    ("local", "dask", a ``distributed.Client``); the same study on any.
    Inputs are held to the command line's limits (``InputError``, one line naming the
    argument); ``rules`` may be a ``Rules`` record or a dict such as ``{"days": 4}``."""
    arguments = dict(locals())  # the call as given, to repeat it under a bar
    players = validation.check_players(players)
    games = validation.check_deals(games)
    seed = validation.check_seed(seed)
    jobs = validation.check_jobs(jobs)
    if verify_games is not None:
        verify_games = validation.check_deals(verify_games, "verify_games")
    if check_games is not None:
        check_games = validation.check_deals(check_games, "check_games")
    max_steps = validation.check_whole(max_steps, "max_steps")
    progress = validation.check_progress(progress) or None  # (False: none)
    if status is not None and not callable(status):
        raise validation.InputError(
            f"status: {validation.short_number(repr(status))} is not None or a callable "
            "(told each step's line)"
        )
    if check_games is not None and not check_field:
        raise validation.InputError(
            "check_games: given without check_field (the second field whose deals it counts)"
        )
    if not isinstance(suggest, bool):
        raise validation.InputError(
            f"suggest: {validation.one_line(repr(suggest))} is not True or False"
        )
    if targets is not None and not isinstance(targets, Targets):
        raise validation.InputError(
            f"targets: {type(targets).__name__} is not a Targets (analysis.targets.Targets)"
        )
    families = validation.check_names(families, "families", FAMILIES)
    edits = validation.check_names(edits, "edits", EDIT_FAMILIES, allow_empty=True)
    rules = validation.as_rules(rules)
    card_set = validation.as_cards(cards, players=players, days=rules.days)
    entrants = validation.check_strategies(strategies)
    check_distinct(entrants)
    if check_field:  # None or empty: no second field
        check_field = validation.check_strategies(check_field, "check_field")
        check_distinct(check_field, "check_field")
    arguments.update(
        players=players, games=games, seed=seed, jobs=jobs, verify_games=verify_games,
        check_games=check_games, families=families, edits=edits, rules=rules,
        cards=card_set, strategies=entrants, check_field=check_field,
    )  # fmt: skip
    if progress is True:
        tables = len(seatings(entrants, players))
        arms = 1 + len(restrictions_for(card_set, families)) + 2 * len(_edit_list(card_set, edits))
        with progress_bar(True, arms * games * tables) as bar, _noted_once():
            return run_study(**{**arguments, "progress": bar})
    if not isinstance(backend, LocalBackend | DaskBackend):  # connect once for every arm
        with using_backend(backend, jobs, scheduler) as runner, _noted_once():
            return run_study(**{**arguments, "backend": runner, "scheduler": None})
    targets = targets or Targets()
    say = status or (lambda text: None)
    tables = seatings(entrants, players)
    lab = Lab(tables, games, seed, rules, 0, jobs, progress, backend=backend)
    say(f"values: {len(families)} famil(ies) on {games} deals x {len(tables)} table(s)")
    base = lab.base(card_set)
    values = values_frame(lab, card_set, restrictions_for(card_set, families))
    edit_rows = []
    if edits:
        say(f"edits: {', '.join(edits)}")
        for edit in _edit_list(card_set, edits):
            edit_rows.extend(_edit_rows(lab, card_set, *edit))
    edit_frame = pd.DataFrame(edit_rows, columns=EDIT_COLUMNS)
    tradeoff = plan_tradeoff(lab, card_set, base) if "plan" in families else None
    target_frame = card_targets(values, targets, card_set)
    judged = target_frame  # (on the study's deals: the cards above by their numbers)
    target_frame = pd.concat(
        [target_frame, goal_targets(card_set, base, targets)],
        ignore_index=True,
    )
    notes = [
        _last_mover_note(row, card_set)
        for _, row in target_frame.iterrows()
        if row["family"] == "goal" and row["status"] == "above"
    ]
    notes += lone_pair_notes(target_frame, card_set, targets.later_margin)
    # fresh deals (game indices after the study's): for cards outside or at a band's edge
    # and for verifying the suggestions
    batches = fresh_batches(
        Lab(tables, verify_games or games, seed, rules, games, jobs, None, backend=backend)
    )
    lab.progress = None  # what follows plays an unknown number of arms
    target_frame, refined = refine_targets(
        batches, card_set, target_frame, say, targets.later_margin
    )
    notes += refined
    notes += by_numbers_notes(judged, card_set, targets.later_margin)
    notes += unnamed_pair_notes(target_frame, card_set)  # (as the fresh deals judged)
    if check_field:
        checked = _check(
            check_field, players, check_games or games, seed, card_set, rules, families,
            targets, target_frame, jobs, progress, say, backend,
        )  # fmt: skip
        for column in checked:
            target_frame[column] = checked[column].to_numpy()
        # the check field's status on its deals against the status the study gives (after
        # its fresh deals), as the mark says: compared before the fresh deals, the column
        # read False beside an "inside" the check field found too
        held = target_frame["check_field_status"] == target_frame["status"]
        target_frame["holds_in_check_field"] = held.to_numpy(dtype=bool)
    suggestions = pd.DataFrame(columns=SUGGESTION_COLUMNS)
    suggested = None
    if suggest:
        suggestions, suggested, more, changed = suggest_edits(
            lab, batches, card_set, target_frame, values, targets, max_steps, say,
            by_numbers=above_by_numbers(judged, card_set, targets.later_margin),
            lone=lone_pairs(judged, card_set, targets.later_margin),
        )  # fmt: skip
        for card, columns in changed.items():  # measured on more fresh deals: that stands
            where = target_frame.index[target_frame["card"] == card]
            target_frame.loc[where, list(columns)] = list(columns.values())
            # (its note on fewer of them, "below", read beside "unsettled, not below")
            notes = [n for n in notes if not (n in refined and n.startswith(f"{card}: "))]
        notes += more
        if check_field and changed:
            held = target_frame["check_field_status"] == target_frame["status"]
            target_frame["holds_in_check_field"] = held.to_numpy(dtype=bool)
    settings = {
        "strategies": [p.name for p in entrants],
        "players": players,
        "games": games,
        "verify_games": verify_games or games,
        "seed": seed,
        "cards": card_set.path,
        "cards_name": card_set.name,
        "cards_hash": card_set.content_hash,  # (write_study refuses another set)
        "rules": rules.to_dict(),
        "families": list(families),
        "edits": list(edits),
        "tables": len(tables),
        "targets": targets.describe(),
        "suggest": suggest,
        "check_field": [p.name for p in check_field] if check_field else [],
        "check_games": (check_games or games) if check_field else None,
    }
    notes = [plain_zeros(note) for note in notes]  # ("95% CI -0.00 to 0.58": 0.00)
    return Study(
        values, edit_frame, target_frame, suggestions, suggested, settings, notes=notes,
        tradeoff=tradeoff,
    )  # fmt: skip


def _last_mover_note(row: pd.Series, card_set: CardSet) -> str:
    """A goal kept by the last player to move too often: easy enough that whoever moves
    last meets it and takes it. A tester's: the note said "no card field changes who moves
    last", where G7 at n = 1 was kept so on 99% of its days and at n = 3 on 58%."""
    goal = next(goal for goal in card_set.goals if goal.id == row["card"])
    count = (
        f"its n, now {goal.param}, higher" if goal.kind in GOAL_KINDS_WITH_COUNT else "another kind"
    )
    return (
        f"{row['card']}: kept by the last player to move on {row['value']:.0%} of the "
        f"{int(row['n']):,} days it was kept on the study's deals: easy enough that whoever "
        f"moves last meets it and takes it. The study walks no goal field, so nothing is "
        f"suggested: a harder goal ({count}) leaves the earlier movers a chance to keep it; "
        f"its fame ({goal.fame}) is not judged against the other goals'"
    )


def plan_tradeoff(lab: Lab, cards: CardSet, base: FieldRun) -> dict | None:
    """Early rise against paint power, measured: the later-waking half of the plan cards'
    mean value less the earlier half's (``wake_halves``), paired deal by deal; the report's
    conclusion reads it."""
    halves = wake_halves(cards.plans, lambda plan: plan.wake)
    if halves is None:
        return None
    early, late = halves

    def runs(part: list) -> list[FieldRun]:
        return [lab.restricted(cards, Restriction("plan", plan.id)) for plan in part]

    diff, low, high = half_contrast(base, runs(early), runs(late))
    return {
        "early": [plan.id for plan in early],
        "late": [plan.id for plan in late],
        "diff": diff,
        "diff_ci_low": low,
        "diff_ci_high": high,
    }


def _check(
    check_field, players, games, seed, cards, rules, families, targets, study_targets,
    jobs, progress, say, backend="local",
) -> pd.DataFrame:  # fmt: skip
    """Per target row (of ``study_targets``): the second field's status, value and CI on
    its deals (``check_field_*``): a card the study judged outside only on fresh deals,
    after an unsettled start, was marked "the check field finds the same" where that
    field was unsettled too, and its own figures were written nowhere. Its own target
    too: its value was printed beside the study's band, against which it read wrong."""
    entrants = [s if isinstance(s, Player) else make_player(s) for s in check_field]
    lab = Lab(seatings(entrants, players), games, seed, rules, 0, jobs, progress, backend=backend)
    say(f"check field {', '.join(p.name for p in entrants)}: {games} deals")
    base = lab.base(cards)
    wanted = restrictions_for(cards, [f for f in families if f in METRIC])
    values = values_frame(lab, cards, wanted, by_strategy=False)
    checked = pd.concat(
        [card_targets(values, targets, cards), goal_targets(cards, base, targets)],
        ignore_index=True,
    )
    found = checked.set_index(["family", "card"])
    keys = list(zip(study_targets["family"], study_targets["card"], strict=True))
    return pd.DataFrame(
        {
            "check_field_status": [found["status"].get(key) for key in keys],
            **{
                f"check_field_{column}": [found[column].get(key, math.nan) for key in keys]
                for column in (
                    "value",
                    "value_ci_low",
                    "value_ci_high",
                    "target_low",
                    "target_high",
                )
            },
        }
    )
