"""0-R and 1-R: the baselines every tree should beat (seed 000, section 1.1).

0-R predicts the majority class for everything. 1-R picks the single attribute
whose one-level rule (each value -> its majority class) makes the fewest
training errors; ties go to the attribute that comes first, and ties in a
majority to the class that comes first. Numeric attributes are bucketed the
way Holte's 1R does it (each bucket holds at least ``min_bucket`` instances of
its majority class, adjacent buckets with the same class merge); missing values
form a bucket of their own.

:func:`fit_zero_r` and :func:`fit_one_r` return the fitted rules as predictors, so the
baselines can be scored on other rows (cross-validation folds) exactly as a tree is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.compiling import lifecycle as compilation
from engine.data.encoding import Encoded
from engine.data.order import column_order
from engine.errors import ArborError
from engine.monitor import checkpoint


@dataclass(frozen=True)
class BaselineReport:
    n: float
    zero_r_class: str
    zero_r_errors: float
    one_r_attribute: str
    one_r_errors: float
    one_r_rules: tuple[tuple[str, str], ...]
    errors_by_attribute: tuple[tuple[str, float], ...]


#: A numeric attribute of at least this many distinct values has its 1-R buckets found by
#: the compiled loop (engine.fast.buckets), once the kernels are; fewer, by numpy and Python
#: (a small table's baselines load no compiled code).
COMPILED_LEAST_VALUES = 2048


def _errors(table: np.ndarray) -> float:
    return float(table.sum() - table.max(axis=-1).sum())


def _one_hot(classes: np.ndarray, n_classes: int) -> np.ndarray:
    out = np.zeros((len(classes), n_classes))
    out[np.arange(len(classes)), classes] = 1.0
    return out


@dataclass(frozen=True)
class ZeroRule:
    """0-R: one prediction for every row (the majority class, or the mean of a numeric target).

    ``n_classes`` is 0 for a numeric target."""

    value: float
    n_classes: int
    says: str

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.value, dtype=np.intp if self.n_classes else np.float64)

    def output(self, X: np.ndarray) -> np.ndarray:
        """As a tree's: class probabilities (all on the one class) or values."""
        pred = self.predict(X)
        return _one_hot(pred, self.n_classes) if self.n_classes else pred


@dataclass(frozen=True)
class OneRule:
    """1-R: one attribute's values (numeric: buckets up to ``uppers``) each predict a class.

    ``classes[k]`` is the class of value or bucket ``k``; ``missing`` the class of a missing
    value, and ``default`` (the majority) of a value the rule never saw.
    """

    attribute: int
    nominal: bool
    classes: np.ndarray
    uppers: np.ndarray
    missing: int
    default: int
    n_classes: int
    says: str

    def output(self, X: np.ndarray) -> np.ndarray:
        """As a tree's: class probabilities, all on the rule's class."""
        return _one_hot(self.predict(X), self.n_classes)

    def predict(self, X: np.ndarray) -> np.ndarray:
        if self.attribute < 0:
            return np.full(len(X), self.default, dtype=np.intp)
        x = X[:, self.attribute]
        known = ~np.isnan(x)
        out = np.full(len(x), self.missing, dtype=np.intp)
        if self.nominal:
            codes = np.where(known, np.nan_to_num(x), -1).astype(np.intp)
            seen = known & (codes >= 0) & (codes < len(self.classes))
            out[seen] = self.classes[codes[seen]]
            out[known & ~seen] = self.default
        else:
            out[known] = self.classes[
                np.minimum(
                    np.searchsorted(self.uppers, x[known], side="left"), len(self.classes) - 1
                )
            ]
        return out


def fit_zero_r(data: Encoded) -> ZeroRule:
    """The majority class of ``data`` (first on ties), or the weighted mean of a numeric target."""
    if data.schema.is_regression:
        mean = float(np.average(data.y, weights=data.weight)) if data.n_rows else 0.0
        return ZeroRule(mean, 0, f"predict the mean, {mean:.4g}")
    K = len(data.schema.classes)
    best = int(np.argmax(np.bincount(data.y, weights=data.weight, minlength=K)))
    return ZeroRule(best, K, f"predict {data.schema.classes[best]}")


def fit_one_r(data: Encoded, min_bucket: int = 6) -> OneRule:
    """1-R fitted on ``data`` as :func:`baselines` describes it, as a predictor."""
    rules_by_attribute = _rule_per_attribute(data, min_bucket)  # checks the target first
    K = len(data.schema.classes)
    default = int(np.argmax(np.bincount(data.y, weights=data.weight, minlength=K)))
    best = None
    for j, attr, errors, _, fitted in rules_by_attribute:
        if best is None or errors < best[0] - 1e-9:
            best = (errors, j, attr, fitted)
    if best is None:
        return OneRule(
            -1, True, np.zeros(0, dtype=np.intp), np.zeros(0), default, default, K, "no attribute"
        )
    _, j, attr, (classes, uppers, missing) = best
    classes = np.where(classes < 0, default, classes).astype(np.intp)
    return OneRule(
        j,
        attr.is_nominal,
        classes,
        uppers,
        default if missing < 0 else missing,
        default,
        K,
        f"on {attr.name}",
    )


def _rule_per_attribute(data: Encoded, min_bucket: int):
    """1-R's rule on each attribute in turn: (index, attribute, errors, rules, fitted); ``rules``
    makes the rule's text when called (only the best attribute's is ever read)."""
    schema = data.schema
    if schema.is_regression:
        raise ArborError("0-R and 1-R are classification baselines; the target is numeric")
    K = len(schema.classes)
    # A big table's columns sorted as growth sorts them (a table too big to keep its orders
    # is sorted again here, beside the fit): numpy's merge sort took 90 ms a million values.
    radix = None
    if data.n_rows >= COMPILED_LEAST_VALUES and compilation.is_ready():
        from engine.fast.radix import stable_order as radix

    def rules():
        for j, attr in enumerate(schema.attributes):
            x = data.X[:, j]
            if attr.is_nominal:
                yield j, attr, *_nominal_rule(x, data.y, data.weight, attr.categories, K)
            else:  # the column's order kept with the table: growth sorted it already
                order = column_order(data, j, radix)
                yield j, attr, *_numeric_rule(x, data.y, data.weight, K, min_bucket, order)

    return rules()


def _nominal_rule(x, y, w, categories, K):
    known = ~np.isnan(x)
    codes = np.where(known, np.nan_to_num(x), len(categories)).astype(np.intp)
    table = np.bincount(codes * K + y, weights=w, minlength=(len(categories) + 1) * K)
    table = table.reshape(-1, K)
    labels = [*categories, "missing"]

    def rules():
        return [
            (labels[v], int(np.argmax(table[v]))) for v in range(len(labels)) if table[v].sum() > 0
        ]

    seen = table.sum(axis=1) > 0
    classes = np.where(seen, np.argmax(table, axis=1), -1)
    return _errors(table), rules, (classes[:-1], np.zeros(0), int(classes[-1]))


def _numeric_rule(x, y, w, K, min_bucket, order):
    """``order``: the rows in the stable ascending order of ``x``, missing values last."""
    known = ~np.isnan(x)
    ranked = order[: int(known.sum())]
    uppers, counts = _sorted_buckets(x[ranked], y[ranked], w[ranked], K, min_bucket)
    # Adjacent buckets of one majority class merge. Their sum keeps that class as its first
    # maximum, so the merged buckets are the runs of equal majorities, each summed in order.
    majority = counts.argmax(axis=1)
    heads = np.flatnonzero(np.r_[True, majority[1:] != majority[:-1]])
    if len(counts):
        merged = np.add.reduceat(counts, heads, axis=0)
        merged_uppers = uppers[np.r_[heads[1:] - 1, len(counts) - 1]]
    else:
        merged, merged_uppers = counts, uppers
    classes = majority[heads]
    miss = np.bincount(y[~known], weights=w[~known], minlength=K)
    errors = sum((merged.sum(axis=1) - merged.max(axis=1)).tolist()) + _errors(miss)

    def rules():
        out, last = [], merged_uppers.tolist()
        for k, c in enumerate(classes.tolist()):
            label = f"<= {last[k]:g}" if k < len(last) - 1 else f"> {last[k - 1]:g}" if k else "any"
            out.append((label, c))
        if miss.sum() > 0:
            out.append(("missing", int(np.argmax(miss))))
        return out

    # A value up to a bucket's last one falls in it, as the labels say; the last bucket takes the rest.
    fitted_classes = classes.astype(np.intp) if len(classes) else np.array([-1], dtype=np.intp)
    return (
        errors,
        rules,
        (fitted_classes, merged_uppers[:-1], int(np.argmax(miss)) if miss.sum() > 0 else -1),
    )


def _numeric_buckets(x, y, w, K, min_bucket) -> tuple[np.ndarray, np.ndarray]:
    """Holte's buckets over the sorted known values: each one's last value, and its class
    weights (a row a bucket).

    A bucket takes whole runs of equal values and closes after a value once its majority
    class holds at least ``min_bucket`` and the next value's first row (in stable order) is
    of another class. Worked per distinct value from cumulative class weights: where the
    majority reaches ``min_bucket`` is a binary search, and where the next value's class
    first differs a look-up in the runs of equal first classes; only a bucket whose tail
    holds values with several rows is scanned value by value (their other rows can change
    the majority on the way).
    """
    order = np.argsort(x, kind="stable")
    checkpoint()  # sorting a million values is the longest step here
    return _sorted_buckets(x[order], y[order], w[order], K, min_bucket)


def _sorted_buckets(xs, ys, ws, K, min_bucket) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_numeric_buckets` of values already in stable ascending order."""
    if len(xs) == 0:
        return np.zeros(0), np.zeros((0, K))
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # first row of each distinct value
    group = np.cumsum(np.r_[False, xs[1:] != xs[:-1]])
    V = len(starts)
    # Class-major cumulative weights: cum[k, g] = weight of class k among the values before g.
    cum = np.zeros((K, V + 1))
    np.cumsum(
        np.bincount(ys * V + group, weights=ws, minlength=K * V).reshape(K, V),
        axis=1,
        out=cum[:, 1:],
    )
    first = ys[starts]  # class of each value's first row
    tol = 1e-9 * max(1.0, float(cum[:, -1].sum()))
    if V >= COMPILED_LEAST_VALUES and compilation.is_ready():
        from engine.fast.buckets import bucket_bounds

        checkpoint()  # the loop takes milliseconds for a million values: no check within
        multi = np.diff(np.r_[starts, len(xs)]) > 1
        opens, closes = bucket_bounds(cum, first.astype(np.intp), multi, float(min_bucket - tol))
        return xs[starts[closes]], (cum[:, closes + 1] - cum[:, opens]).T.copy()
    # The same buckets as the kernel (engine.fast.buckets, whose oracle this is), in numpy
    # and a step of Python per bucket.
    # reach[p]: the first value g >= p at which one class holds min_bucket since value p,
    # and majority[p] the class that leads there.
    reach = np.full(V, V, dtype=np.intp)
    for k in range(K):
        np.minimum(
            reach,
            np.searchsorted(cum[k, 1:], cum[k, :-1] + (min_bucket - tol), side="left"),
            out=reach,
        )
    np.maximum(reach, np.arange(V), out=reach)
    ends = np.minimum(reach, V - 1) + 1
    majority = np.argmax(cum[:, ends] - cum[:, :-1], axis=0)
    # run_end[i]: the last value of the run of equal first classes that value i is in.
    breaks = np.r_[first[1:] != first[:-1], True]
    run_end = np.minimum.accumulate(np.where(breaks, np.arange(V), V)[::-1])[::-1]
    several = np.r_[
        0, np.cumsum(np.diff(np.r_[starts, len(xs)]) > 1)
    ]  # values with 2+ rows before g
    reach_l, majority_l, first_l = reach.tolist(), majority.tolist(), first.tolist()
    run_end_l, several_l = run_end.tolist(), several.tolist()
    opens, closes, p = [], [], 0
    steps = 0
    while p < V:  # one step per bucket, each a few look-ups
        if not steps & 4095:
            checkpoint()
        steps += 1
        a = reach_l[p]
        if a >= V:
            break
        k = majority_l[p]
        c = a if a == V - 1 or first_l[a + 1] != k else run_end_l[a + 1]
        if c > a and several_l[c + 1] - several_l[a + 1] > 0:
            c = _scan_bucket(cum, first, p, a, min_bucket - tol)
        opens.append(p)
        closes.append(c)
        p = c + 1
    if p < V:
        opens.append(p)
        closes.append(V - 1)
    opens, closes = np.array(opens, dtype=np.intp), np.array(closes, dtype=np.intp)
    return xs[starts[closes]], (cum[:, closes + 1] - cum[:, opens]).T.copy()


def _scan_bucket(cum, first, p, a, need) -> int:
    """Where the bucket from value ``p`` closes, value by value from ``a`` (its majority reached)."""
    V = len(first)
    for g in range(a, V):
        if not (g - a) & 4095:
            checkpoint()
        counts = cum[:, g + 1] - cum[:, p]
        if counts.max() >= need and (g == V - 1 or first[g + 1] != int(np.argmax(counts))):
            return g
    return V - 1


def baselines(data: Encoded, min_bucket: int = 6) -> BaselineReport:
    """Compute 0-R and 1-R on a classification training set.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> b = baselines(encode(load_sample("weather")))
    >>> b.zero_r_errors, b.one_r_attribute, b.one_r_errors
    (5.0, 'outlook', 4.0)
    """
    schema = data.schema
    rules_by_attribute = _rule_per_attribute(data, min_bucket)  # checks the target first
    totals = np.bincount(data.y, weights=data.weight, minlength=len(schema.classes))
    best, best_errors, best_rules, per_attr = None, np.inf, list, []
    for _, attr, errors, rules, _ in rules_by_attribute:
        per_attr.append((attr.name, errors))
        if errors < best_errors - 1e-9:
            best, best_errors, best_rules = attr.name, errors, rules
    return BaselineReport(
        n=float(totals.sum()),
        zero_r_class=schema.classes[int(np.argmax(totals))],
        zero_r_errors=_errors(totals),
        one_r_attribute=best or "",
        one_r_errors=float(best_errors) if best else _errors(totals),
        one_r_rules=tuple((v, schema.classes[c]) for v, c in best_rules()),
        errors_by_attribute=tuple(per_attr),
    )
