"""Bias, variance and noise of a tree's error as its size grows.

A third of the rows (stratified, :func:`engine.data.folds.holdout_split` with the seed) are
the test rows. Training sets are drawn from the rest, either bootstrap samples or the
training parts of k folds, and a tree is trained on each with the user's settings (through
:func:`engine.fitting.fit_tree`), once for each value of max depth or max leaves. Every test
row's predictions over the training sets give the decomposition.

The swept size is the complexity knob, so by default those trees are grown unpruned: the
user's pruning would cut every size back to about the same tree (CART's cost-complexity
pruning on iris leaves 3 leaves whether 3 or 7 are allowed) and the sweep would show one
tree many times. ``keep_pruning`` prunes them as the user's options say; the chosen tree
is always the user's own, pruned as they ask.

**Squared error** (regression): error = noise + bias² + variance, where, for a test row, the
variance is the spread of its predictions about their mean, bias² the squared distance from
that mean to the expected target, and noise the spread of the target about its expectation.

**0-1 loss** (classification), following Domingos (2000, "A unified bias-variance
decomposition"): the *main prediction* of a row is the class its trees predict most often;
its *bias* is 1 when the main prediction differs from the optimal (Bayes) class and 0 when it
does not; its *variance* is the share of trees not predicting the main prediction. Variance
where the bias is 0 adds to the error (*unbiased variance*), where the bias is 1 it takes
from it (*biased variance*), and the *net variance* is the difference:
error = c1·noise + bias + net variance, exactly, with Domingos' c1 and c2 for any number
of classes.

Noise (and the expected target, or the optimal class) can be told apart only where the
table repeats a row's attribute values: test rows with the same values are one point x,
and their targets estimate the target's distribution there. A row whose values no other test
row has is its own optimum, with no noise; its noise shows as bias. So the noise is what
the repeated rows show, and ``noise_rows`` says how many there are. For squared error the
noise and bias² are unbiased estimates (:func:`squared_error_parts`); for 0-1 loss the
optimal class is the most frequent at the point, so with few rows a point's noise is
estimated low (two rows that disagree: noise 1/2, whatever the truth).

Seed 004's terms: **bias** (representation bias: a model too simple; search bias: not
enough search), **variance** (error due to lack of data) and **noise**.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded, subset
from engine.data.folds import holdout_split, stratified_folds, training_rows
from engine.errors import ArborError
from engine.fitting import fit_tree
from engine.monitor import NULL_MONITOR, Monitor
from engine.predict import class_codes, predict_proba, predict_value
from engine.settings import Settings

#: The share of the rows held out as test rows.
TEST_SHARE = 1 / 3
#: Most values of the parameter tried when none are given.
MAX_VALUES = 12
PARAMETERS = {"depth": "max_depth", "leaves": "max_leaves"}
RESAMPLINGS = ("bootstrap", "folds")


@dataclass(frozen=True)
class Decomposition:
    """One value's figures, averaged over the test rows (weighted).

    ``bias`` is bias² for squared error. ``noise_term`` is what the noise adds to the error
    (c1·noise for 0-1 loss; the noise itself for squared error), so that
    ``error == noise_term + bias + variance``; ``variance`` is the net variance for 0-1 loss.
    """

    error: float
    bias: float
    variance: float
    noise: float
    noise_term: float
    unbiased_variance: float | None = None
    biased_variance: float | None = None


@dataclass(frozen=True)
class BiasVariance:
    """The decomposition at each value of ``parameter`` (max_depth or max_leaves)."""

    parameter: str
    values: tuple[int, ...]
    parts: tuple[Decomposition, ...]
    loss: str
    resampling: str
    resamples: int
    seed: int
    train_rows: int
    test_rows: int
    noise_rows: int
    chosen: int
    chosen_depth: int
    chosen_leaves: int
    keep_pruning: bool = False

    def column(self, name: str) -> np.ndarray:
        """One figure at every value, as an array (``error``, ``bias``, ``variance``...)."""
        return np.array([getattr(p, name) for p in self.parts], dtype=float)

    def as_dict(self) -> dict:
        out = {
            "kind": "bias-variance",
            "loss": self.loss,
            "parameter": self.parameter,
            "values": list(self.values),
            "resampling": self.resampling,
            "resamples": self.resamples,
            "seed": self.seed,
            "train_rows": self.train_rows,
            "test_rows": self.test_rows,
            "noise_rows": self.noise_rows,
            "chosen": self.chosen,
            "chosen_depth": self.chosen_depth,
            "chosen_leaves": self.chosen_leaves,
            "keep_pruning": self.keep_pruning,
        }
        names = ["error", "bias", "variance", "noise", "noise_term"]
        if self.loss == ZERO_ONE:
            names += ["unbiased_variance", "biased_variance"]
        out.update({name: self.column(name).tolist() for name in names})
        return out


SQUARED, ZERO_ONE = "squared error", "0-1 loss"


def points(X: np.ndarray) -> np.ndarray:
    """Which point x each row is: rows with the same attribute values (missing ones
    included) share a number.

    >>> points(np.array([[1.0, np.nan], [2.0, 0.0], [1.0, np.nan]])).tolist()
    [0, 1, 0]
    """
    if not len(X):
        return np.zeros(0, dtype=np.intp)
    filled = np.where(np.isnan(X), -np.inf, X)  # NaN never equals itself; -inf does
    return np.unique(filled, axis=0, return_inverse=True)[1].reshape(-1)


def _group_mean(values: np.ndarray, group: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each row's weighted mean of ``values`` (rows, or rows x columns) over its group."""
    n_groups = group.max() + 1 if len(group) else 0
    totals = np.zeros((n_groups,) + values.shape[1:])
    np.add.at(totals, group, values * (w if values.ndim == 1 else w[:, None]))
    weights = np.bincount(group, weights=w, minlength=n_groups)
    shape = (-1,) + (1,) * (values.ndim - 1)
    return (totals / weights.reshape(shape))[group]


def squared_error_parts(predictions: np.ndarray, y: np.ndarray, group, w=None) -> Decomposition:
    """The decomposition of squared error; ``predictions`` has one row per training set and
    one column per test row; ``group`` numbers the test rows' points (:func:`points`).

    A point's noise is the unbiased variance of its targets (a sample's variance about its
    own mean is short of the spread by a factor (n - 1)/n, which matters at the few rows a
    point has), and its bias² is the squared distance from the mean prediction to the
    targets' mean less the variance of that mean (noise / n): both unbiased, and the sum
    still exactly the error, since a tree predicts the same at every row of a point.

    >>> p = np.array([[1.0, 1.0], [3.0, 3.0]])
    >>> d = squared_error_parts(p, np.array([2.0, 4.0]), np.array([0, 0]))
    >>> d.error, d.noise, d.bias, d.variance
    (3.0, 2.0, 0.0, 1.0)
    """
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    mean = predictions.mean(axis=0)
    expected = _group_mean(y, group, w)

    def total(values):  # each row's sum of ``values`` over its point's rows
        return np.bincount(group, weights=values)[group]

    v1, v2 = total(w), total(w * w)
    dof = v1 - v2 / v1  # n - 1 for unit weights (reliability weights otherwise)
    alone = dof <= 1e-12 * v1  # a point of one row: its noise cannot be told from bias
    noise = np.where(alone, 0.0, total(w * (y - expected) ** 2) / np.where(alone, 1.0, dof))
    each = {
        "error": ((predictions - y) ** 2).mean(axis=0),
        "bias": (expected - mean) ** 2 - noise * v2 / v1**2,
        "variance": predictions.var(axis=0),
        "noise": noise,
    }
    avg = {k: float(np.average(v, weights=w)) + 0.0 for k, v in each.items()}
    return Decomposition(noise_term=avg["noise"], **avg)


def zero_one_parts(codes: np.ndarray, y: np.ndarray, group, n_classes: int, w=None):
    """Domingos' decomposition of 0-1 loss; ``codes`` holds the predicted classes, one row per
    training set and one column per test row; ``group`` numbers the test rows' points.

    >>> codes = np.array([[0, 1], [0, 1], [1, 1]])
    >>> d = zero_one_parts(codes, np.array([0, 0]), np.array([0, 1]), 2)
    >>> round(d.error, 4), round(d.bias, 4), round(d.unbiased_variance, 4), d.biased_variance
    (0.6667, 0.5, 0.1667, 0.0)
    """
    w = np.ones(len(y)) if w is None else w
    n = codes.shape[1]
    # shares[i, a]: the share of training sets whose tree predicts class a for row i.
    flat = codes + n_classes * np.arange(n)
    shares = np.bincount(flat.ravel(), minlength=n * n_classes).reshape(n, n_classes)
    shares = shares / codes.shape[0]
    # The target's distribution at each row's point, and the optimal class there.
    target = _group_mean(np.eye(n_classes)[y], group, w)
    optimal = np.argmax(target, axis=1)
    rows = np.arange(n)
    noise = 1.0 - target[rows, optimal]
    main = np.argmax(shares, axis=1)
    bias = (main != optimal).astype(float)
    variance = 1.0 - shares[rows, main]
    right = shares[rows, optimal]  # P(a tree predicts the optimal class)
    # Domingos' c2 * variance: the variance where unbiased; minus P(optimal) where biased.
    net = np.where(bias > 0, -right, variance)
    # c1 * noise: P(optimal) * noise, less the chance a tree predicts the noisy label.
    agree = np.sum(shares * target, axis=1)
    noise_term = right * noise - (agree - right * target[rows, optimal])
    error = 1.0 - agree
    avg = lambda v: float(np.average(v, weights=w)) + 0.0  # noqa: E731 - no -0.0 shown
    return Decomposition(
        error=avg(error),
        bias=avg(bias),
        variance=avg(net),
        noise=avg(noise),
        noise_term=avg(noise_term),
        unbiased_variance=avg((1 - bias) * variance),
        biased_variance=avg(bias * right),
    )


def default_values(parameter: str, deepest: int, most_leaves: int) -> tuple[int, ...]:
    """Depths 1 to the deepest tree's, or leaf counts 2 to the largest tree's; at most
    :data:`MAX_VALUES` of them, spread evenly (leaves: on a log scale).

    >>> default_values("depth", 4, 9), default_values("leaves", 4, 40)
    ((1, 2, 3, 4), (2, 3, 5, 6, 8, 10, 13, 18, 23, 30, 40))
    """
    if parameter == "depth":
        top = max(deepest, 1)
        return tuple(int(v) for v in np.unique(np.round(np.linspace(1, top, min(top, MAX_VALUES)))))
    top = max(most_leaves, 2)
    spread = np.geomspace(2, top, min(top - 1, MAX_VALUES))
    return tuple(int(v) for v in np.unique(np.round(spread)))


def _training_sets(y, n_train: int, resampling: str, resamples: int, seed: int):
    if resampling == "folds":
        return [training_rows(t, n_train) for t in stratified_folds(y, n_train, resamples, seed)]
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n_train, n_train) for _ in range(resamples)]


def bias_variance(
    data: Encoded,
    settings: Settings,
    parameter: str = "depth",
    values=None,
    resampling: str = "bootstrap",
    resamples: int = 20,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
    keep_pruning: bool = False,
) -> BiasVariance:
    """Error, bias, variance and noise of trees trained with ``settings`` on ``resamples``
    training sets, at each of ``values`` of max depth (``parameter`` "depth") or max leaves
    ("leaves"); by default :func:`default_values` up to the unpruned tree's, and the chosen
    tree's own (``settings`` unchanged). The trees are grown unpruned at each value unless
    ``keep_pruning`` (then pruned as ``settings`` say). The same seed gives the same test
    rows, training sets and figures.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.settings import resolve
    >>> bv = bias_variance(encode(load_sample("iris")), resolve(), values=[1, 2], resamples=4)
    >>> bv.loss, bv.values, bv.test_rows
    ('0-1 loss', (1, 2), 51)
    >>> e, b, v, nt = (bv.column(k)[0] for k in ("error", "bias", "variance", "noise_term"))
    >>> bool(np.isclose(e, b + v + nt))
    True
    """
    if parameter not in PARAMETERS:
        raise ArborError(f"vary depth or leaves, not {parameter!r}")
    if resampling not in RESAMPLINGS:
        raise ArborError(f"resample by bootstrap or folds, not {resampling!r}")
    if resamples < 2:
        raise ArborError("the decomposition needs at least 2 training sets")
    regression = data.schema.is_regression
    y = None if regression else data.y
    train, test = holdout_split(y, data.n_rows, TEST_SHARE, seed)
    if len(train) < 2 or len(test) < 1:
        raise ArborError("too few rows: a third are held out to test, and the rest must be 2")
    learn, held = subset(data, train), subset(data, test)
    if resampling == "folds" and resamples > learn.n_rows:
        raise ArborError(f"cannot make {resamples} folds from {learn.n_rows} training rows")
    monitor.report(0.0, "the chosen tree")
    chosen = fit_tree(learn, settings, monitor.scaled(0.0, 0.02, "the chosen tree"))
    option = PARAMETERS[parameter]
    if values is None:
        grown = fit_tree(
            learn, replace(settings, **{option: None}, prune="none"), monitor.scaled(0.02, 0.04)
        )
        values = default_values(parameter, grown.depth, grown.n_leaves)
        mark = chosen.depth if parameter == "depth" else chosen.n_leaves
        values = (*values, mark) if mark >= (1 if parameter == "depth" else 2) else values
    values = tuple(sorted({int(v) for v in values}))
    low = 1 if parameter == "depth" else 2
    if not values or values[0] < low:
        raise ArborError(f"max {parameter} values must be at least {low}")
    sets = _training_sets(
        None if regression else learn.y, learn.n_rows, resampling, resamples, seed
    )
    swept = settings if keep_pruning else replace(settings, prune="none")
    group = points(held.X)
    predictions = np.zeros((len(values), resamples, held.n_rows))
    total = len(values) * resamples
    for b, rows in enumerate(sets):
        part = subset(learn, rows)
        for v, value in enumerate(values):
            monitor.check()
            step = b * len(values) + v
            label = f"training set {b + 1} of {resamples}, max {parameter} {value}"
            start, stop = 0.04 + 0.96 * step / total, 0.04 + 0.96 * (step + 1) / total
            monitor.report(start, label)
            fitting = monitor.scaled(start, stop, label)  # the fit's messages name the step
            tree = fit_tree(part, replace(swept, **{option: value}), fitting)
            if regression:
                predictions[v, b] = predict_value(tree, held.X)
            else:
                predictions[v, b] = class_codes(
                    predict_proba(tree, held.X), settings.algorithm, tree.costs
                )
    if regression:
        parts = [squared_error_parts(p, held.y, group, held.weight) for p in predictions]
    else:
        k = len(data.schema.classes)
        parts = [
            zero_one_parts(p.astype(np.intp), held.y, group, k, held.weight) for p in predictions
        ]
    monitor.report(1.0, "bias and variance done")
    repeated = np.bincount(group)[group] > 1 if len(group) else np.zeros(0, dtype=bool)
    return BiasVariance(
        parameter=parameter,
        values=values,
        parts=tuple(parts),
        loss=SQUARED if regression else ZERO_ONE,
        resampling=resampling,
        resamples=resamples,
        seed=seed,
        train_rows=learn.n_rows,
        test_rows=held.n_rows,
        noise_rows=int(repeated.sum()),
        chosen=chosen.depth if parameter == "depth" else chosen.n_leaves,
        chosen_depth=chosen.depth,
        chosen_leaves=chosen.n_leaves,
        keep_pruning=keep_pruning,
    )
