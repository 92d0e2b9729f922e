"""Grow-then-prune for one training set: what ``fit``, cross-validation and the window share."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.encoding import Encoded
from engine.growth import grow
from engine.monitor import NULL_MONITOR, Monitor
from engine.pruning import collapse_tree, holdout_split, prune_for, prune_reduced_error
from engine.settings import Settings
from engine.tree import Tree


def subset(data: Encoded, rows: np.ndarray) -> Encoded:
    """The training set restricted to ``rows`` (a fold, a holdout part)."""
    return replace(data, X=np.asfortranarray(data.X[rows]), y=data.y[rows], weight=data.weight[rows])


def fit_tree(data: Encoded, settings: Settings, monitor: Monitor = NULL_MONITOR) -> Tree:
    """Grow a tree on ``data`` and prune it as ``settings`` ask."""
    if settings.prune == "reduced-error":
        y = None if data.schema.is_regression else data.y
        grow_rows, prune_rows = holdout_split(y, data.n_rows, settings.holdout, settings.seed)
        part = subset(data, grow_rows)
        tree = Tree(grow(part, settings, monitor.scaled(0.0, 0.8)), data.schema)
        if settings.algorithm == "c45":
            tree = collapse_tree(tree, part, settings)
        return prune_reduced_error(tree, data, prune_rows, monitor.scaled(0.8, 1.0))
    pruning = settings.prune != "none"
    tree = Tree(grow(data, settings, monitor.scaled(0.0, 0.7) if pruning else monitor), data.schema)
    return prune_for(tree, data, settings, monitor.scaled(0.7, 1.0))
