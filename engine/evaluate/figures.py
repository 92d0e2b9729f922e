"""Every number shown for one tree, each labelled by how it was measured.

*Training* figures score a tree on the rows it was grown from (resubstitution, an
optimistic estimate). *Cross-validated* figures score the way the tree was made,
refitted in each fold and tested on the rows left out: the learner's options for a
trained or pruned tree, or, for a tree built or edited by hand, its structure with the
leaves re-counted from each fold's training rows. The 0-R and 1-R baselines beside a
tree are always measured the same way: on the training rows beside training figures,
refitted on the same folds beside cross-validated ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.data.encoding import Encoded
from engine.evaluate.baseline import fit_one_r, fit_zero_r
from engine.evaluate.evaluation import (
    Evaluation,
    cross_validate_outputs,
    cross_validate_with,
    cross_validate_with_outputs,
    evaluate_tree,
    summarise,
)
from engine.evaluate.per_node import fold_predictions
from engine.monitor import NULL_MONITOR, Monitor
from engine.settings import Settings
from engine.tree import Tree

TRAINING, CROSS_VALIDATION = "training set", "cross-validation"
#: A fold with fewer test rows than this makes a fold's score coarse, and the spread says little.
FEW_ROWS_PER_FOLD = 10


@dataclass(frozen=True)
class Measured:
    """One way of measuring: the tree's scores and the baselines' on the same rows.

    ``how`` is ``TRAINING`` or ``CROSS_VALIDATION``; for cross-validation ``folds`` and
    ``seed`` say which folds, and ``refit`` what was refitted in each ("options" or
    "structure"). ``one_r`` is None for regression (1-R classifies).
    """

    how: str
    tree: Evaluation
    zero_r: Evaluation
    one_r: Evaluation | None
    folds: int = 0
    seed: int = 0
    refit: str = ""
    predictions: np.ndarray | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Figures:
    """The numbers of one tree: always its training figures, and cross-validated ones once run.

    ``zero_r_says`` and ``one_r_says`` describe the baselines fitted on all the rows
    ("predict yes", "on outlook"); in cross-validation each fold fits its own.
    """

    training: Measured
    zero_r_says: str
    one_r_says: str
    cv: Measured | None = None

    def with_cv(self, cv: Measured) -> Figures:
        return Figures(self.training, self.zero_r_says, self.one_r_says, cv)


@dataclass(frozen=True)
class Baselines:
    """0-R and 1-R fitted on all the rows and scored on them (the same for every tree of a table)."""

    zero_r: Evaluation
    one_r: Evaluation | None
    zero_r_says: str
    one_r_says: str


def training_baselines(data: Encoded) -> Baselines:
    """0-R and 1-R fitted on ``data`` and scored on it."""
    zero = fit_zero_r(data)
    zero_eval = summarise(TRAINING, data, zero.output(data.X))
    if data.schema.is_regression:
        return Baselines(zero_eval, None, zero.says, "")
    one = fit_one_r(data)
    return Baselines(zero_eval, summarise(TRAINING, data, one.output(data.X)), zero.says, one.says)


def training_figures(
    tree: Tree, data: Encoded, baselines: Baselines | None = None, algorithm: str | None = None
) -> Figures:
    """``tree`` scored on the rows it was made from, beside the baselines (worked out if not
    given); ``algorithm`` (the tree's) picks its rule for near-ties (``engine.predict.predict_class``)."""
    base = baselines or training_baselines(data)
    measured = Measured(
        TRAINING, evaluate_tree(tree, data, TRAINING, algorithm), base.zero_r, base.one_r
    )
    return Figures(measured, base.zero_r_says, base.one_r_says)


def cross_validated(
    data: Encoded,
    folds: int,
    seed: int,
    settings: Settings | None = None,
    tree: Tree | None = None,
    monitor: Monitor = NULL_MONITOR,
    algorithm: str | None = None,
    weka_folds: bool = False,
) -> Measured:
    """Cross-validate the learner ``settings`` or, without them, the structure of ``tree``
    (its leaves re-counted from each fold's training rows, its class rule ``algorithm``'s),
    with 0-R and 1-R on the same folds (Weka's folds with ``weka_folds``)."""
    if settings is None and tree is None:
        raise ValueError("cross-validate either settings or a tree")
    share = 0.9
    if settings is not None:
        result, out = cross_validate_outputs(
            data, settings, folds, seed, monitor.scaled(0.0, share), weka_folds
        )
        refit, algorithm = "options", settings.algorithm
    else:
        result, out = cross_validate_with_outputs(
            data,
            _structure_learner(tree),
            folds,
            seed,
            monitor.scaled(0.0, share),
            algorithm,
            weka_folds,
        )
        refit = "structure"
    zero = cross_validate_with(
        data,
        lambda part, _m: fit_zero_r(part).output,
        folds,
        seed,
        monitor.scaled(share, 0.95),
        weka_folds=weka_folds,
    )
    one = (
        None
        if data.schema.is_regression
        else cross_validate_with(
            data,
            lambda part, _m: fit_one_r(part).output,
            folds,
            seed,
            monitor.scaled(0.95, 1.0),
            weka_folds=weka_folds,
        )
    )
    costs = result.cost_matrix  # the cross-validated trees' cost matrix, if any
    predictions = fold_predictions(data, out, algorithm, costs)
    return Measured(CROSS_VALIDATION, result, zero, one, folds, seed, refit, predictions)


def few_rows_note(n_rows: float, folds: int) -> str | None:
    """What to say when folds are too small for their spread to mean much (None: nothing)."""
    per_fold = n_rows / folds if folds else 0
    if not folds or per_fold >= FEW_ROWS_PER_FOLD:
        return None
    low, high = int(n_rows // folds), int(-(-n_rows // folds))
    rows = f"{low}" if low == high else f"{low} or {high}"
    return (
        f"With {n_rows:g} rows in {folds} folds each fold tests {rows} rows, so one fold's "
        "score moves in large steps and the spread over the folds says little."
    )


def _structure_learner(tree: Tree):
    """Fits ``tree``'s structure to a fold: the same splits, counts from the fold's rows."""
    from engine.evaluate.evaluation import outputs
    from engine.learn.problem import Problem
    from engine.prune.routing import rebuild, training_live
    from engine.settings import resolve

    settings = resolve(
        algorithm="cart" if tree.is_regression else "c45",
        prune="none",
        task="regression" if tree.is_regression else "classification",
        criterion="squared_error" if tree.is_regression else "entropy",
    )

    def fit(part: Encoded, _monitor):
        problem = Problem(part, settings)
        return outputs(rebuild(problem, tree, training_live(problem, tree)))

    return fit
