"""Class weights and priors (issue 33, item 1): each training row's weight times its class's,
before growth, so every criterion, stopping rule, pruning error and leaf share after it counts
weighted rows.

``--class-weight`` is scikit-learn's ``class_weight``: ``balanced`` weighs class k by
n / (K n_k), rows counted (not their weights), and named classes by the given numbers (the
others by 1). ``--priors`` is rpart's ``parms = list(prior = ...)``: the factors that make the
classes' total weights proportional to the priors, their sum kept (a class with no rows
cannot take its prior's share, so it is refused).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.settings import Settings, class_values


def class_factors(settings: Settings, data: Encoded) -> np.ndarray | None:
    """What each class's rows are weighed by, in the schema's class order (None: all 1)."""
    text = settings.class_weight or settings.priors
    if text is None or data.schema.is_regression:
        return None
    classes = list(data.schema.classes)
    K = len(classes)
    rows = np.bincount(data.y, minlength=K).astype(np.float64)
    if text == "balanced":  # as scikit-learn: by row counts; an absent class's weight is moot
        with np.errstate(divide="ignore"):
            return np.where(rows > 0, data.n_rows / (K * np.maximum(rows, 1)), 1.0)
    given = class_values(text)
    unknown = [name for name in given if name not in classes]
    option = "class-weight" if settings.class_weight else "priors"
    if unknown:
        raise ArborError(
            f"{option} names {unknown[0]!r}, which is not a class of the target "
            f"(its classes: {', '.join(classes)})"
        )
    if settings.class_weight:
        return np.array([given.get(name, 1.0) for name in classes])
    missing = [name for name in classes if name not in given]
    if missing:
        raise ArborError(f"priors must give every class a prior; {missing[0]!r} has none")
    weight = np.bincount(data.y, weights=np.broadcast_to(data.weight, (data.n_rows,)), minlength=K)
    prior = np.array([given[name] for name in classes])
    empty = (weight <= 0) & (prior > 0)
    if empty.any():
        raise ArborError(
            f"priors give class {classes[int(np.argmax(empty))]!r} a share, but no training "
            "row has it"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(weight > 0, prior * weight.sum() / weight, 1.0)


def weighted_by_class(data: Encoded, settings: Settings) -> Encoded:
    """``data`` with each row's weight times its class's factor (itself when none apply)."""
    factors = class_factors(settings, data)
    if factors is None or not data.n_rows:
        return data
    return replace(data, weight=np.broadcast_to(data.weight, (data.n_rows,)) * factors[data.y])
