"""Grow-then-prune for one training set: what ``fit``, cross-validation and the window share."""

from __future__ import annotations

from dataclasses import replace

from engine.data.encoding import Encoded, subset
from engine.data.folds import holdout_split
from engine.growth import grow_whole
from engine.learn.class_weights import weighted_by_class
from engine.learn.costs import with_costs
from engine.learn.pseudocounts import with_pseudocounts
from engine.monitor import NULL_MONITOR, Monitor, watching
from engine.prune.alpha import choose_alpha, grow_and_choose_alpha
from engine.prune.cost_complexity import prune_along, prune_cost_complexity
from engine.prune.pessimistic import collapse_tree, prune_pessimistic
from engine.prune.reduced_error import prune_reduced_error
from engine.settings import Settings
from engine.tree import Tree


def fit_tree(
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
    grown: list | None = None,
) -> Tree:
    """Grow a tree on ``data`` and prune it as ``settings`` ask; every phase answers ``monitor``'s
    cancel (the loops shared by the phases through :func:`engine.monitor.checkpoint`).

    ``record``: C4.5's and reduced-error pruning keep their decisions on the tree
    (``tree.pruning``, an :class:`engine.prune.record.PruningRecord`) for views to follow.
    ``grown``: a list the tree is appended to as grown on all of ``data``, before pruning
    (not for reduced-error pruning, which grows on part of it).
    """
    data = weighted_by_class(data, settings)  # every phase below counts the weighted rows
    with watching(monitor):
        kept: list = []
        tree = with_pseudocounts(_fit(data, settings, monitor, record, kept), settings)
        if grown is not None:  # the grown tree gives the same probabilities as the pruned
            grown.extend(with_costs(with_pseudocounts(t, settings), settings) for t in kept)
        return with_costs(tree, settings)


def _fit(data: Encoded, settings: Settings, monitor: Monitor, record: bool, grown: list) -> Tree:
    if settings.prune == "reduced-error":
        y = None if data.schema.is_regression else data.y
        grow_rows, prune_rows = holdout_split(y, data.n_rows, settings.holdout, settings.seed)
        part = subset(data, grow_rows)
        tree = with_costs(grow_whole(part, settings, monitor.scaled(0.0, 0.8)), settings)
        if settings.algorithm == "c45":
            tree = collapse_tree(tree, part, settings)
        return prune_reduced_error(tree, data, prune_rows, monitor.scaled(0.8, 1.0), record)
    pruning = settings.prune != "none"

    def grow(monitor: Monitor) -> Tree:
        # The cost matrix before pruning: C4.5's and cost-complexity's errors are its costs.
        return with_costs(grow_whole(data, settings, monitor), settings)

    folds = _alpha_folds(data, settings)
    choice = None
    if folds >= 2 and settings.algorithm != "c45":  # (C4.5's path is of its collapsed tree)
        tree, choice, path = grow_and_choose_alpha(
            data, replace(settings, cv_alpha=folds), grow, monitor.scaled(0.0, 0.95)
        )
    else:
        tree = grow(monitor.scaled(0.0, 0.7) if pruning else monitor)
    grown.append(tree)
    if choice is not None:  # along the path the alpha was chosen on: no second search
        return prune_along(tree, path, choice.chosen_alpha)
    return prune_for(tree, data, settings, monitor.scaled(0.7, 1.0), record)


def _alpha_folds(data: Encoded, settings: Settings) -> int:
    """How many inner folds choose the alpha of cost-complexity pruning (below 2: none)."""
    if settings.prune != "cost-complexity":
        return 0
    return min(settings.cv_alpha or 0, data.n_rows)  # a table of 6 rows: 6 folds


def prune_for(
    tree: Tree,
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
) -> Tree:
    """Apply pessimistic or cost-complexity pruning as ``settings`` ask.

    C4.5 always collapses splits that do not lower training error, as J48 does
    even when pruning is off. Reduced-error pruning needs rows the tree was not
    grown on, so :func:`engine.fitting.fit_tree` handles it.
    """
    if settings.prune == "pessimistic":
        return prune_pessimistic(tree, data, settings, monitor, record)
    if settings.algorithm == "c45":
        tree = collapse_tree(tree, data, settings)
    if settings.prune == "cost-complexity":
        folds = _alpha_folds(data, settings)
        if folds >= 2:
            alpha = choose_alpha(
                tree, data, replace(settings, cv_alpha=folds), monitor
            ).chosen_alpha
        else:
            alpha = settings.alpha or 0.0
        return prune_cost_complexity(tree, alpha, settings.ccp_measure)
    return tree
