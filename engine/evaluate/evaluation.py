"""Honest measurement: stratified k-fold cross-validation, a test set, or a holdout split."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from engine.data import folds as folding
from engine.data.encoding import Encoded, subset
from engine.data.folds import holdout_split, training_rows
from engine.errors import ArborError
from engine.evaluate.curves import ClassCurves, class_curves, weighted_mean
from engine.evaluate.gains import gains_points, lift_points
from engine.fast.threads import FOLD_THREADS_MAX_CELLS, fold_map, n_threads
from engine.fitting import fit_tree
from engine.learn.costs import settings_costs
from engine.monitor import NULL_MONITOR, Monitor
from engine.predict import class_codes, predict_proba, predict_value
from engine.settings import Settings
from engine.sums import dot
from engine.tree import Tree


@dataclass(frozen=True)
class Evaluation:
    """Scores of one evaluation. Classification fills the first block, regression the second."""

    n: float
    method: str
    classes: tuple[str, ...] | None = None
    confusion: np.ndarray | None = None
    accuracy: float | None = None
    accuracy_std: float | None = None
    fold_scores: tuple[float, ...] = ()
    kappa: float | None = None
    precision: tuple[float, ...] = ()
    recall: tuple[float, ...] = ()
    f1: tuple[float, ...] = ()
    rmse: float | None = None
    mae: float | None = None
    r2: float | None = None
    notes: tuple[str, ...] = field(default=())
    curves: tuple[ClassCurves, ...] = ()  # classification: ROC and precision-recall per class
    points: np.ndarray | None = (
        None  # regression: (actual, predicted) rows, at most MAX_POINTS_KEPT
    )
    #: Cross-validation: the seed that dealt the folds (with ``method`` and the data, which
    #: folds; two runs on the same folds can be paired, :mod:`engine.evaluate.paired_test`).
    fold_seed: int | None = None
    #: Cross-validation: whether the folds were Weka's dealing (not every label says so).
    weka_folds: bool = False
    #: The trees' cost matrix (``--costs``; rows actual, columns predicted), when they had one:
    #: the predictions counted are the classes of least expected cost, and the figures add
    #: their total and average cost.
    cost_matrix: tuple[tuple[float, ...], ...] = ()

    @property
    def total_cost(self) -> float | None:
        """What the counted predictions cost (weighted rows), with a cost matrix."""
        if not self.cost_matrix or self.confusion is None:
            return None
        return float((self.confusion * np.asarray(self.cost_matrix)).sum())

    @property
    def average_cost(self) -> float | None:
        """:attr:`total_cost` a row (of weight 1)."""
        total = self.total_cost
        return None if total is None else total / self.n if self.n else 0.0

    @property
    def roc_auc(self) -> float | None:
        """ROC area averaged over the classes by their sizes (Weka's weighted average)."""
        return weighted_mean([c.roc_auc for c in self.curves], self.curves) if self.curves else None

    def as_dict(self) -> dict:
        out = {"n": self.n, "method": self.method, "notes": list(self.notes)}
        if self.classes is not None:
            out.update(
                accuracy=self.accuracy,
                accuracy_std=self.accuracy_std,
                kappa=self.kappa,
                confusion_matrix=self.confusion.tolist(),
                classes=list(self.classes),
                fold_accuracies=list(self.fold_scores),
                per_class=[
                    {"class": c, "precision": p, "recall": r, "f1": f}
                    for c, p, r, f in zip(
                        self.classes, self.precision, self.recall, self.f1, strict=True
                    )
                ],
            )
            if self.cost_matrix:
                out["cost"] = {"total": self.total_cost, "average": self.average_cost}
            if self.curves:
                for row, curve in zip(out["per_class"], self.curves, strict=True):
                    row.update(
                        roc_auc=_json_number(curve.roc_auc),
                        average_precision=_json_number(curve.average_precision),
                        # (share of rows targeted, share of the class found / lift)
                        cumulative_gains=gains_points(curve).tolist(),
                        lift=lift_points(curve).tolist(),
                    )
                out["roc_auc"] = _json_number(self.roc_auc)
        else:
            out.update(rmse=self.rmse, mae=self.mae, r2=self.r2, fold_rmse=list(self.fold_scores))
        return out


#: Regression keeps this many (actual, predicted) pairs for its plots, drawn evenly at random.
MAX_POINTS_KEPT = 2000


def _json_number(value: float | None):
    return None if value is None or np.isnan(value) else value


def _output(tree: Tree, data: Encoded) -> np.ndarray:
    """Class probabilities (one row per instance) or predicted values."""
    if tree.is_regression:
        return predict_value(tree, data.X)
    return predict_proba(tree, data.X)


def _classification(
    method, classes, y, proba, w, fold_scores, notes, algorithm, costs=()
) -> Evaluation:
    K = len(classes)
    pred = class_codes(proba, algorithm, costs)
    confusion = np.zeros((K, K))
    np.add.at(confusion, (y, pred), w)
    ev = from_confusion(
        method, classes, confusion, fold_scores, notes, class_curves(proba, y, classes, w)
    )
    return replace(ev, cost_matrix=tuple(map(tuple, costs))) if len(costs) else ev


def from_confusion(
    method, classes, confusion: np.ndarray, fold_scores=(), notes=(), curves=()
) -> Evaluation:
    """The classification scores of a confusion matrix (rows actual, columns predicted):
    what a per-row evaluation and one summed over partitions (:mod:`engine.scale`) share."""
    n = confusion.sum()
    accuracy = float(np.trace(confusion) / n)
    expected = dot(confusion.sum(axis=0), confusion.sum(axis=1)) / (n * n)
    kappa = (accuracy - expected) / (1 - expected) if expected < 1 else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.nan_to_num(np.diag(confusion) / confusion.sum(axis=0))
        recall = np.nan_to_num(np.diag(confusion) / confusion.sum(axis=1))
        f1 = np.nan_to_num(2 * precision * recall / (precision + recall))
    scores = tuple(float(s) for s in fold_scores)
    return Evaluation(
        n=float(n),
        method=method,
        classes=classes,
        confusion=confusion,
        accuracy=accuracy,
        accuracy_std=float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0,
        fold_scores=scores,
        kappa=float(kappa),
        precision=tuple(precision.tolist()),
        recall=tuple(recall.tolist()),
        f1=tuple(f1.tolist()),
        notes=tuple(notes),
        curves=tuple(curves),
    )


def _kept_points(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    rows = np.arange(len(y))
    if len(rows) > MAX_POINTS_KEPT:
        rows = np.sort(np.random.default_rng(0).choice(rows, MAX_POINTS_KEPT, replace=False))
    return np.column_stack([y[rows], pred[rows]])


def _regression(method, y, pred, w, fold_scores, notes) -> Evaluation:
    err = pred - y
    n = w.sum()
    mse = dot(w, err**2) / n
    mean = dot(w, y) / n
    total = dot(w, (y - mean) ** 2)
    return Evaluation(
        n=float(n),
        method=method,
        rmse=mse**0.5,
        mae=dot(w, np.abs(err)) / n,
        r2=1 - dot(w, err**2) / total if total > 0 else 0.0,
        fold_scores=tuple(float(s) for s in fold_scores),
        notes=notes,
        points=_kept_points(y, pred),
    )


def _summarise(
    method, data: Encoded, out, fold_scores, notes=(), algorithm=None, costs=()
) -> Evaluation:
    """``algorithm`` (the trees') picks the class rule of :func:`engine.predict.predict_class`,
    ``costs`` (the trees' cost matrix, if any) the class of least expected cost instead."""
    if data.schema.is_regression:
        return _regression(method, data.y, out, data.weight, fold_scores, notes)
    return _classification(
        method, data.schema.classes, data.y, out, data.weight, fold_scores, notes, algorithm, costs
    )


def _score(data: Encoded, out, algorithm=None, costs=()) -> float:
    if data.schema.is_regression:
        return float(np.sqrt(np.average((out - data.y) ** 2, weights=data.weight)))
    return float(np.average(class_codes(out, algorithm, costs) == data.y, weights=data.weight))


def outputs(tree: Tree):
    """``tree`` as a function from encoded rows to outputs: class probabilities or values."""
    if tree.is_regression:
        return lambda X: predict_value(tree, X)
    return lambda X: predict_proba(tree, X)


def cross_val_predict(
    data: Encoded,
    settings: Settings,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    weka_folds: bool = False,
) -> tuple[np.ndarray, list[float]]:
    """Out-of-fold outputs of stratified k-fold cross-validation: class probabilities (one row
    per instance) or predicted values, each from the tree that did not see it; and each fold's
    score (accuracy or RMSE).

    ``weka_folds`` deals the folds exactly as Weka's ``-x folds -s seed`` does
    (:func:`engine.data.folds.weka_folds`), so that C4.5's correct count can be set
    beside J48's fold for fold; otherwise each class is shuffled with numpy and dealt round.
    """
    threads = fold_threads(data, settings)
    if threads > 1:  # each fold's tree on one thread, the folds side by side
        settings = replace(settings, threads=1)
    return cross_val_predict_with(
        data,
        lambda part, fold_monitor: outputs(fit_tree(part, settings, fold_monitor)),
        folds,
        seed,
        monitor,
        weka_folds,
        settings.algorithm,
        threads,
        settings_costs(settings, data.schema.classes),
    )


def fold_threads(data: Encoded, settings: Settings) -> int:
    """How many folds grow at once (1: one after another, each on every thread)."""
    if data.n_rows * max(data.X.shape[1], 1) > FOLD_THREADS_MAX_CELLS:
        return 1
    return n_threads(settings.threads)


def cross_val_predict_with(
    data: Encoded,
    learner,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    weka_folds: bool = False,
    algorithm: str | None = None,
    threads: int = 1,
    costs=(),
) -> tuple[np.ndarray, list[float]]:
    """:func:`cross_val_predict` for any learner, on the same folds for the same seed:
    ``learner(training_part, monitor)`` returns a function from encoded rows to outputs;
    ``threads`` folds at once (the results are the same whatever the number); ``costs``, the
    learner's cost matrix, picks the classes the folds are scored by.
    The 0-R and 1-R baselines and a hand-built tree's structure are cross-validated this way,
    so they are scored on exactly the folds the learner's tree is."""
    y = None if data.schema.is_regression else data.y
    out = np.zeros(data.n_rows if y is None else (data.n_rows, len(data.schema.classes)))
    scores = []
    if weka_folds:
        dealt = folding.weka_folds(y, data.n_rows, folds, seed, data.unlabelled)
    else:
        dealt = folding.stratified_folds(y, data.n_rows, folds, seed)

    def run(f_test, monitor):
        f, test = f_test
        monitor.check()
        fold = f"fold {f + 1} of {folds}"
        monitor.report(f / folds, fold)
        if not len(test):
            return None  # Weka's fold of rows without a class only: nothing to score
        train = training_rows(test, data.n_rows)
        # Labelled, so that the learner's own messages (CART's inner folds choosing alpha,
        # growth) still name the outer fold.
        output = learner(subset(data, train), monitor.scaled(f / folds, (f + 1) / folds, fold))
        held = subset(data, test)
        fold_out = output(held.X)
        return fold_out, _score(held, fold_out, algorithm, costs)

    dealt = list(dealt)
    for test, result in zip(dealt, fold_map(run, enumerate(dealt), threads, monitor), strict=True):
        if result is not None:
            out[test] = result[0]
            scores.append(result[1])
    monitor.report(1.0, "cross-validated")
    return out, scores


def cross_validate(
    data: Encoded,
    settings: Settings,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    weka_folds: bool = False,
) -> Evaluation:
    """Stratified k-fold cross-validation; the same seed gives the same folds and scores.
    ``weka_folds``: Weka's folds, as in :func:`cross_val_predict`."""
    return cross_validate_outputs(data, settings, folds, seed, monitor, weka_folds)[0]


def cross_validate_outputs(
    data: Encoded,
    settings: Settings,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    weka_folds: bool = False,
) -> tuple[Evaluation, np.ndarray]:
    """:func:`cross_validate`'s evaluation and the out-of-fold outputs it was scored from
    (:func:`cross_val_predict`'s), for the held-out rows on the tree (issue 32)."""
    out, scores = cross_val_predict(data, settings, folds, seed, monitor, weka_folds)
    method = f"{folds}-fold cross-validation" + (
        f" (Weka's folds, seed {seed})" if weka_folds else ""
    )
    costs = settings_costs(settings, data.schema.classes)
    ev = _summarise(method, data, out, scores, data.notes, settings.algorithm, costs)
    return replace(ev, fold_seed=seed, weka_folds=weka_folds), out


def cross_validate_with(
    data: Encoded,
    learner,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    algorithm: str | None = None,
    weka_folds: bool = False,
) -> Evaluation:
    """:func:`cross_validate` for any learner (see :func:`cross_val_predict_with`)."""
    return cross_validate_with_outputs(data, learner, folds, seed, monitor, algorithm, weka_folds)[
        0
    ]


def cross_validate_with_outputs(
    data: Encoded,
    learner,
    folds: int = 10,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    algorithm: str | None = None,
    weka_folds: bool = False,
) -> tuple[Evaluation, np.ndarray]:
    """:func:`cross_validate_with`'s evaluation and the out-of-fold outputs it was scored from."""
    out, scores = cross_val_predict_with(data, learner, folds, seed, monitor, weka_folds, algorithm)
    ev = _summarise(f"{folds}-fold cross-validation", data, out, scores, (), algorithm)
    return replace(ev, fold_seed=seed, weka_folds=weka_folds), out


def summarise(
    method: str, data: Encoded, out: np.ndarray, algorithm: str | None = None
) -> Evaluation:
    """Scores of outputs ``out`` (class probabilities or values) for every row of ``data``."""
    return _summarise(method, data, out, [_score(data, out, algorithm)], (), algorithm)


def evaluate_tree(
    tree: Tree, data: Encoded, method: str = "test set", algorithm: str | None = None
) -> Evaluation:
    """Scores of a trained tree on ``data`` (whose schema must match the tree's); ``algorithm``
    (the tree's) picks the class rule of :func:`engine.predict.predict_class`."""
    out, costs = _output(tree, data), tree.costs
    scores = [_score(data, out, algorithm, costs)]
    return _summarise(method, data, out, scores, data.notes, algorithm, costs)


def holdout_evaluate(
    data: Encoded,
    settings: Settings,
    train_percent: float,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
) -> Evaluation:
    """Train on a random ``train_percent`` of the rows (stratified), test on the rest."""
    train, test = holdout_rows(data, train_percent, seed)
    tree = fit_tree(subset(data, train), settings, monitor)
    return evaluate_tree(
        tree, subset(data, test), holdout_method(train_percent), settings.algorithm
    )


def holdout_rows(data: Encoded, train_percent: float, seed: int = 1):
    """(training rows, test rows) of :func:`holdout_evaluate`'s split: a random
    ``train_percent`` of the rows (stratified by class) and the rest."""
    if not 0 < train_percent < 100:
        raise ArborError("the training percentage must be between 0 and 100")
    y = None if data.schema.is_regression else data.y
    train, test = holdout_split(y, data.n_rows, 1 - train_percent / 100, seed)
    if len(test) == 0 or len(train) == 0:
        raise ArborError("the split leaves no rows to train or to test on")
    return train, test


def holdout_method(train_percent: float) -> str:
    """How a percentage split's evaluation is named."""
    return f"{train_percent:g}% train / rest test"
