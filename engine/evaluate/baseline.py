"""0-R and 1-R: the baselines every tree should beat (seed 000, section 1.1).

0-R predicts the majority class for everything. 1-R picks the single attribute
whose one-level rule (each value -> its majority class) makes the fewest
training errors; ties go to the attribute that comes first, and ties in a
majority to the class that comes first. Numeric attributes are bucketed the
way Holte's 1R does it (each bucket holds at least ``min_bucket`` instances of
its majority class, adjacent buckets with the same class merge); missing values
form a bucket of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.monitor import checkpoint


@dataclass(frozen=True)
class Baselines:
    n: float
    zero_r_class: str
    zero_r_errors: float
    one_r_attribute: str
    one_r_errors: float
    one_r_rules: tuple[tuple[str, str], ...]
    errors_by_attribute: tuple[tuple[str, float], ...]


def _errors(table: np.ndarray) -> float:
    return float(table.sum() - table.max(axis=-1).sum())


def _nominal_rule(x, y, w, categories, K):
    known = ~np.isnan(x)
    codes = np.where(known, np.nan_to_num(x), len(categories)).astype(np.intp)
    table = np.bincount(codes * K + y, weights=w, minlength=(len(categories) + 1) * K)
    table = table.reshape(-1, K)
    labels = [*categories, "missing"]
    rules = [(labels[v], int(np.argmax(table[v]))) for v in range(len(labels)) if table[v].sum() > 0]
    return _errors(table), rules


def _numeric_rule(x, y, w, K, min_bucket):
    known = ~np.isnan(x)
    order = np.argsort(x[known], kind="stable")
    checkpoint()  # sorting a million values is the longest step here
    xs, ys, ws = x[known][order], y[known][order], w[known][order]
    # Runs of equal values: a bucket only ends between two different values.
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]]) if len(xs) else np.zeros(0, np.intp)
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(xs)]))
    per_run = np.bincount(run * K + ys, weights=ws, minlength=len(starts) * K).reshape(-1, K)
    checkpoint()
    after = np.r_[ys[starts[1:]], -1].tolist()  # the class of the row after each run (-1: none)
    values = xs[np.r_[starts[1:] - 1, len(xs) - 1]].tolist() if len(xs) else []
    buckets: list[tuple[float, np.ndarray]] = []  # (upper value, class counts)
    classes = range(K)
    # Plain floats, one flat list: this loop runs once per distinct value, and makes no
    # objects the garbage collector tracks (a collection in a worker thread may free Qt
    # objects of the window, which must happen on its own thread).
    flat = per_run.ravel().tolist()
    counts = [0.0] * K
    for r, upper in enumerate(values):
        if not r & 4095:
            checkpoint()
        for k in classes:
            counts[k] += flat[r * K + k]
        best = max(classes, key=counts.__getitem__)  # the first of equal counts, as argmax
        if counts[best] >= min_bucket and after[r] != best:
            buckets.append((upper, np.array(counts)))
            counts = [0.0] * K
    if sum(counts) > 0:
        buckets.append((xs[-1], np.array(counts)))
    merged: list[tuple[float, np.ndarray]] = []
    for upper, c in buckets:
        if merged and np.argmax(merged[-1][1]) == np.argmax(c):
            merged[-1] = (upper, merged[-1][1] + c)
        else:
            merged.append((upper, c))
    miss = np.bincount(y[~known], weights=w[~known], minlength=K)
    errors = sum(_errors(c) for _, c in merged) + _errors(miss)
    rules = []
    for k, (upper, c) in enumerate(merged):
        label = f"<= {upper:g}" if k < len(merged) - 1 else f"> {merged[k - 1][0]:g}" if k else "any"
        rules.append((label, int(np.argmax(c))))
    if miss.sum() > 0:
        rules.append(("missing", int(np.argmax(miss))))
    return errors, rules


def baselines(data: Encoded, min_bucket: int = 6) -> Baselines:
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
    if schema.is_regression:
        raise ArborError("0-R and 1-R are classification baselines; the target is numeric")
    K = len(schema.classes)
    totals = np.bincount(data.y, weights=data.weight, minlength=K)
    best, best_errors, best_rules, per_attr = None, np.inf, [], []
    for j, attr in enumerate(schema.attributes):
        x = data.X[:, j]
        if attr.is_nominal:
            errors, rules = _nominal_rule(x, data.y, data.weight, attr.categories, K)
        else:
            errors, rules = _numeric_rule(x, data.y, data.weight, K, min_bucket)
        per_attr.append((attr.name, errors))
        if errors < best_errors - 1e-9:
            best, best_errors, best_rules = attr.name, errors, rules
    return Baselines(
        n=float(totals.sum()),
        zero_r_class=schema.classes[int(np.argmax(totals))],
        zero_r_errors=_errors(totals),
        one_r_attribute=best or "",
        one_r_errors=float(best_errors) if best else _errors(totals),
        one_r_rules=tuple((v, schema.classes[c]) for v, c in best_rules),
        errors_by_attribute=tuple(per_attr),
    )
