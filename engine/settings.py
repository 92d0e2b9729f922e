"""Learner options: one declarative table of allowed values and per-algorithm defaults.

The estimator stores its keyword arguments as given; ``resolve`` validates them
here, fills the algorithm's defaults and returns a frozen :class:`Settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from engine.errors import ArborError

ALGORITHMS = ("id3", "c45", "cart")
CRITERIA = ("entropy", "gain_ratio", "gini", "misclassification", "squared_error")
TASKS = ("classification", "regression")
GROWTH = ("depth", "best")
PRUNING = ("none", "pessimistic", "cost-complexity", "reduced-error")
ERROR_ESTIMATES = ("c45", "exact")
#: Numeric split search: every distinct value ("exact"), binned values ("histogram"), or
#: exact below ``engine.fast.builder.AUTO_HISTOGRAM_ROWS`` rows and binned above for CART ("auto").
SPLITTERS = ("auto", "exact", "histogram")

#: Defaults that differ per algorithm (everything else is shared).
DEFAULTS = {
    "id3": {"criterion": "entropy", "min_samples_leaf": 0.0, "prune": "none"},
    "c45": {"criterion": "gain_ratio", "min_samples_leaf": 2.0, "prune": "pessimistic"},
    "cart": {"criterion": "gini", "min_samples_leaf": 1.0, "prune": "none"},
}


@dataclass(frozen=True)
class Settings:
    """Validated, complete options for one fit."""

    algorithm: str = "c45"
    criterion: str = "gain_ratio"
    task: str = "classification"
    max_depth: int | None = None
    min_samples_split: float = 2.0
    min_samples_leaf: float = 2.0
    min_gain: float = 0.0
    max_leaves: int | None = None
    growth: str = "depth"
    prune: str = "pessimistic"
    confidence: float = 0.25
    subtree_raising: bool = True
    error_estimate: str = "c45"
    alpha: float | None = None
    cv_alpha: int | None = None
    one_se: bool = False
    holdout: float = 1 / 3
    seed: int = 1
    splitter: str = "auto"
    max_bins: int = 255

    @property
    def impurity(self) -> str:
        """The impurity measure behind the criterion (gain ratio is built on entropy)."""
        return "entropy" if self.criterion == "gain_ratio" else self.criterion

    @property
    def binary(self) -> bool:
        return self.algorithm == "cart"


def _choice(name, allowed):
    def check(value):
        if value not in allowed:
            raise ArborError(f"{name.replace('_', '-')} must be one of {', '.join(allowed)}; got {value!r}")
        return value
    return check


def _number(name, low=None, high=None, integer=False, optional=False, low_open=False):
    def check(value):
        if value is None and optional:
            return None
        try:
            number = int(value) if integer else float(value)
            if integer and float(value) != number:
                raise ValueError
        except (TypeError, ValueError):
            kind = "a whole number" if integer else "a number"
            raise ArborError(f"{name.replace('_', '-')} must be {kind}; got {value!r}") from None
        too_low = low is not None and (number <= low if low_open else number < low)
        if too_low or (high is not None and number > high):
            span = f"{'above' if low_open else 'at least'} {low}" if high is None else f"between {low} and {high}"
            raise ArborError(f"{name.replace('_', '-')} must be {span}; got {value!r}")
        return number
    return check


#: The one table of what each option accepts.
CONSTRAINTS = {
    "algorithm": _choice("algorithm", ALGORITHMS),
    "criterion": _choice("criterion", CRITERIA),
    "task": _choice("task", TASKS),
    "max_depth": _number("max_depth", 0, integer=True, optional=True),
    "min_samples_split": _number("min_samples_split", 0),
    "min_samples_leaf": _number("min_samples_leaf", 0),
    "min_gain": _number("min_gain", 0),
    "max_leaves": _number("max_leaves", 2, integer=True, optional=True),
    "growth": _choice("growth", GROWTH),
    "prune": _choice("prune", PRUNING),
    "confidence": _number("confidence", 0, 0.5, low_open=True),
    "subtree_raising": bool,
    "error_estimate": _choice("error_estimate", ERROR_ESTIMATES),
    "alpha": _number("alpha", 0, optional=True),
    "cv_alpha": _number("cv_alpha", 2, integer=True, optional=True),
    "one_se": bool,
    "holdout": _number("holdout", 0, 0.9, low_open=True),
    "seed": _number("seed", 0, integer=True),
    "splitter": _choice("splitter", SPLITTERS),
    "max_bins": _number("max_bins", 2, 255, integer=True),
}


def resolve(**params) -> Settings:
    """Validate ``params`` (None = the algorithm's default) into :class:`Settings`.

    Examples
    --------
    >>> resolve(algorithm="cart").criterion
    'gini'
    >>> resolve(algorithm="cart", task="regression").criterion
    'squared_error'
    """
    algorithm = CONSTRAINTS["algorithm"](params.get("algorithm") or "c45")
    task = CONSTRAINTS["task"](params.get("task") or "classification")
    defaults = dict(DEFAULTS[algorithm])
    if task == "regression":
        defaults["criterion"] = "squared_error"
    values = {}
    for f in fields(Settings):
        given = params.get(f.name)
        value = given if given is not None else defaults.get(f.name, f.default)
        values[f.name] = CONSTRAINTS[f.name](value)
    values["algorithm"], values["task"] = algorithm, task
    settings = Settings(**values)
    _check_combination(settings)
    return settings


def _check_combination(s: Settings) -> None:
    if s.task == "regression":
        if s.algorithm != "cart":
            raise ArborError(f"regression trees are CART trees; {s.algorithm.upper()} only classifies "
                             "(use --algorithm cart)")
        if s.criterion != "squared_error":
            raise ArborError("regression uses the squared_error criterion")
    elif s.criterion == "squared_error":
        raise ArborError("squared_error is a regression criterion (use --task regression)")
    if s.algorithm == "cart" and s.criterion == "gain_ratio":
        raise ArborError("CART splits in two, so gain ratio does not apply; use gini, entropy or misclassification")
    if s.prune == "pessimistic" and s.algorithm != "c45":
        raise ArborError("pessimistic pruning is C4.5's; use cost-complexity or reduced-error with "
                         f"{s.algorithm.upper()}")
    if s.prune == "cost-complexity" and s.algorithm != "cart":
        raise ArborError("cost-complexity pruning is CART's; use pessimistic or reduced-error with "
                         f"{s.algorithm.upper()}")
