"""Learner options, declared once: the table the engine, the command line and the window read.

:data:`OPTIONS` lists every option a fit takes. From it come the frozen
:class:`Settings` (one field per option, in the table's order), :func:`resolve`
(validation and the algorithm's defaults), the command line's arguments
(``cli/main.py`` adds one per option) and the window's algorithm panel.

What the window reads (the interface the algorithm panel is built on)
---------------------------------------------------------------------
- ``OPTIONS`` in display order; ``option.group`` is "Algorithm", "Growth", "Pruning" or
  "Evaluation" (:data:`GROUPS`, in order).
- ``option.label`` ("Max depth") and ``option.help``, the tooltip (from the lecture notes).
- ``option.kind``: "choice", "bool", "int", "float" or "text" (a line the option's own
  parser checks: class weights and priors, ``NAME=W,...``; None reads as ``option.unset``).
  "choice": ``option.choices``, :class:`Choice` records in display order with ``value``
  (what the engine takes: "c45"), ``label`` (what people read: "C4.5") and ``help``.
  "int"/"float": ``option.low`` and ``option.high`` (None: unbounded), ``option.low_open``
  (the low end itself is not allowed), and for spin boxes ``option.step``,
  ``option.decimals`` and ``option.widget_high`` (a finite top when ``high`` is None).
  ``option.optional``: None is allowed, and reads as ``option.unset`` ("no limit", "off").
- :func:`default` (one option) and :func:`defaults` (all): what to show when the
  algorithm or the task changes.
- :func:`why_not`: None when an option applies under the panel's current values, else
  the reason it does not, for a disabled widget's tooltip ("Only for C4.5's
  pessimistic pruning").
- :func:`choices_for`: the choices allowed there (criteria and pruning methods
  depend on the algorithm and the task), each with the reason a disallowed one is not.
- :func:`problem`: why the current values cannot train (``resolve``'s message), or None.

Options not in the table (the number of folds the window cross-validates with, say)
are the front end's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, make_dataclass

from engine.errors import ArborError

GROUPS = ("Algorithm", "Growth", "Pruning", "Evaluation")
CLASSIFICATION, REGRESSION = "classification", "regression"


@dataclass(frozen=True)
class Choice:
    """One allowed value of a "choice" option.

    ``algorithms``/``tasks``: where it is allowed (empty: everywhere); ``why_not`` is the
    message when it is chosen elsewhere (``{algorithm}`` becomes the algorithm's label),
    ``why_not_task`` the message when only the task rules it out.
    """

    value: str
    label: str
    help: str = ""
    algorithms: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    why_not: str = ""
    why_not_task: str = ""


@dataclass(frozen=True)
class Need:
    """An option applies only if another option has one of ``values`` (empty: any value
    but None, 0 and False); ``why`` says so."""

    option: str
    values: tuple = ()
    why: str = ""


@dataclass(frozen=True)
class Option:
    """One learner option (the module docstring lists what each field is for)."""

    name: str
    kind: str
    label: str
    help: str
    group: str
    default: object = None
    per_algorithm: Mapping[str, object] = field(default_factory=dict)
    per_task: Mapping[str, object] = field(default_factory=dict)
    choices: tuple[Choice, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    optional: bool = False
    unset: str = ""
    step: float = 1.0
    decimals: int = 0
    widget_high: float | None = None
    metavar: str = ""
    flag: str = ""
    algorithms: tuple[str, ...] = ()
    why_not: str = ""
    needs: tuple[Need, ...] = ()

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)

    def choice(self, value) -> Choice | None:
        return next((c for c in self.choices if c.value == value), None)


_C45_PESSIMISTIC = "Only for C4.5's pessimistic pruning"
_CART_CC = "Only for CART's cost-complexity pruning"
_PROBABILITIES = "Only for classification: corrects the leaves' class probabilities"
_CLASSIFY_ONLY = "regression uses the squared_error criterion"
_OPTIMAL_ERRORS = "The optimal tree minimises training errors (misclassified weight)"
_GREEDY = "Only for greedy growth: the optimal tree searches every tree of its depth"
_BINARY_MISSING = (
    "--missing majority and surrogate route rows down CART's binary splits; {algorithm} "
    "keeps fractional rows (use --algorithm cart)"
)
_NO_RATIO = (
    "CART splits in two, so gain ratio does not apply; use gini, entropy or misclassification"
)

#: The one table of learner options, in the order :class:`Settings` has them.
OPTIONS: tuple[Option, ...] = (
    Option(
        "algorithm",
        "choice",
        "Algorithm",
        group="Algorithm",
        default="c45",
        help="ID3: multiway splits on nominal attributes by information gain (seed 000). "
        "C4.5: gain ratio, numeric thresholds, missing values, pruning. CART: binary "
        "splits, Gini. Optimal: the tree of least training error of its depth, found by "
        "searching them all, where the others split greedily (seed 000)",
        choices=(
            Choice("c45", "C4.5", "gain ratio, numeric thresholds, missing values, pruning"),
            Choice("id3", "ID3", "nominal attributes, one branch per value, information gain"),
            Choice("cart", "CART", "binary splits, Gini; also regression"),
            Choice(
                "optimal",
                "Optimal",
                "the fewest training errors of any tree of its depth (up to 4), found exactly",
            ),
        ),
    ),
    Option(
        "criterion",
        "choice",
        "Criterion",
        group="Algorithm",
        per_algorithm={
            "id3": "entropy",
            "c45": "gain_ratio",
            "cart": "gini",
            "optimal": "misclassification",
        },
        per_task={REGRESSION: "squared_error"},
        help="entropy: information gain; gain ratio: gain divided by split info, less biased "
        "towards many-valued attributes (seed 000, 2.5); Gini: 1 - sum p^2; "
        "misclassification: 1 - max p; squared error: regression, mean leaves; absolute "
        "error: regression, median leaves (seed 004: the point estimate)",
        algorithms=("id3", "c45", "cart"),
        why_not=_OPTIMAL_ERRORS,
        choices=(
            Choice(
                "entropy",
                "Entropy (information gain)",
                "information gain",
                tasks=(CLASSIFICATION,),
                why_not_task=_CLASSIFY_ONLY,
            ),
            Choice(
                "gain_ratio",
                "Gain ratio",
                "gain divided by split info",
                algorithms=("id3", "c45"),
                tasks=(CLASSIFICATION,),
                why_not=_NO_RATIO,
                why_not_task=_CLASSIFY_ONLY,
            ),
            Choice(
                "gini", "Gini", "1 - sum p^2", tasks=(CLASSIFICATION,), why_not_task=_CLASSIFY_ONLY
            ),
            Choice(
                "misclassification",
                "Misclassification",
                "1 - max p",
                tasks=(CLASSIFICATION,),
                why_not_task=_CLASSIFY_ONLY,
            ),
            Choice(
                "squared_error",
                "Squared error",
                "variance of the target (regression): leaves predict the mean",
                tasks=(REGRESSION,),
                why_not_task="squared_error is a regression criterion (use --task regression)",
            ),
            Choice(
                "absolute_error",
                "Absolute error (median)",
                "mean absolute deviation from the median (regression): leaves predict the "
                "median, seed 004's other point estimate; numeric attributes, no missing values",
                algorithms=("cart",),
                tasks=(REGRESSION,),
                why_not="absolute_error is a CART regression criterion",
                why_not_task="absolute_error is a regression criterion (use --task regression)",
            ),
        ),
    ),
    Option(
        "task",
        "choice",
        "Task",
        group="Algorithm",
        default=CLASSIFICATION,
        help="Classification predicts a class; regression (CART) predicts a numeric target: a "
        "leaf's mean (squared error) or median (absolute error), seed 004's point estimates",
        algorithms=("cart",),
        why_not="Regression trees are CART trees",
        choices=(
            Choice(CLASSIFICATION, "Classification", "predict a class"),
            Choice(
                REGRESSION,
                "Regression",
                "predict a number (a leaf's mean, or its median with absolute error)",
                algorithms=("cart",),
                why_not="regression trees are CART trees; {algorithm} only classifies "
                "(use --algorithm cart)",
            ),
        ),
    ),
    Option(
        "class_weight",
        "text",
        "Class weights",
        group="Algorithm",
        optional=True,
        unset="none",
        metavar="balanced|NAME=W,...",
        help="Each row's weight times its class's (scikit-learn's class_weight): balanced "
        "weighs class k by n / (K n_k); NAME=W,... names classes (the others weigh 1). "
        "Growth, pruning and the leaves' shares see the weighted rows",
        needs=(Need("task", (CLASSIFICATION,), "Only for classification: weighs classes"),),
    ),
    Option(
        "priors",
        "text",
        "Priors",
        group="Algorithm",
        optional=True,
        unset="none",
        metavar="NAME=P,...",
        help="Class priors, as rpart's parms = list(prior = ...): the class weights that make "
        "the classes' total weights proportional to P (every class named, adding up to 1)",
        needs=(Need("task", (CLASSIFICATION,), "Only for classification: weighs classes"),),
    ),
    Option(
        "costs",
        "text",
        "Costs",
        group="Algorithm",
        optional=True,
        unset="none",
        metavar="FILE",
        help="A cost matrix (CSV or whitespace; predicted classes as header, each row an actual "
        "class and its costs): every leaf predicts its class of least expected cost, the "
        "evaluation adds total and average cost; the probabilities stay the leaves' shares",
        needs=(Need("task", (CLASSIFICATION,), "Only for classification: costs errors"),),
    ),
    Option(
        "laplace",
        "bool",
        "Laplace correction",
        group="Algorithm",
        default=False,
        help="Leaf probabilities (n_k + 1) / (n + K): one pseudocount per class (seed 004, "
        "pseudocounts), as J48's -A, so a leaf of 2 rows no longer says probability 1; a leaf with rows "
        "still predicts its mode",
        needs=(Need("task", (CLASSIFICATION,), _PROBABILITIES),),
    ),
    Option(
        "m_estimate",
        "float",
        "m-estimate",
        group="Algorithm",
        low=0,
        low_open=True,
        optional=True,
        unset="off",
        decimals=2,
        step=1.0,
        widget_high=1e6,
        metavar="M",
        help="Leaf probabilities (n_k + M p_k) / (n + M), p_k the class's share of the training "
        "rows: M pseudocounts spread as the classes are (seed 004, pseudocounts); a small leaf "
        "is pulled towards the most frequent class",
        needs=(Need("task", (CLASSIFICATION,), _PROBABILITIES),),
    ),
    Option(
        "max_depth",
        "int",
        "Max depth",
        group="Growth",
        low=0,
        optional=True,
        unset="no limit",
        widget_high=10_000,
        metavar="N",
        per_algorithm={"optimal": 3},
        help="Stop splitting at this depth; a single leaf has depth 0 (then split it by hand). "
        "Optimal trees: at most 4",
    ),
    Option(
        "min_samples_split",
        "float",
        "Min samples to split",
        group="Growth",
        default=2.0,
        low=0,
        decimals=1,
        widget_high=1e9,
        metavar="N",
        help="Do not split a node with fewer instances than this",
        algorithms=("id3", "c45", "cart"),
        why_not=_GREEDY,
    ),
    Option(
        "min_samples_leaf",
        "float",
        "Min samples per leaf",
        group="Growth",
        per_algorithm={"id3": 0.0, "c45": 2.0, "cart": 1.0, "optimal": 1.0},
        low=0,
        decimals=1,
        widget_high=1e9,
        metavar="N",
        help="Instances a branch needs. C4.5: at least two branches need this many (J48's -M); "
        "CART: every branch",
        algorithms=("id3", "c45", "cart"),
        why_not=_GREEDY,
    ),
    Option(
        "min_gain",
        "float",
        "Min gain (tau)",
        group="Growth",
        default=0.0,
        low=0,
        decimals=4,
        step=0.01,
        widget_high=100,
        metavar="TAU",
        help="Split only when the gain exceeds tau; a very small improvement is often "
        "unjustifiable (seed 000, 2.6)",
        algorithms=("id3", "c45", "cart"),
        why_not=_GREEDY,
    ),
    Option(
        "max_leaves",
        "int",
        "Max leaves",
        group="Growth",
        low=2,
        optional=True,
        unset="no limit",
        widget_high=1_000_000,
        metavar="N",
        help="Stop when the tree has this many leaves; with best-first growth the leaves that "
        "lower impurity most are expanded first. Optimal trees: the best tree with at most "
        "this many leaves",
    ),
    Option(
        "growth",
        "choice",
        "Order",
        group="Growth",
        default="depth",
        help="Depth-first recursion as in ID3's pseudocode, or best-first through a priority "
        "queue of leaves ranked by impurity reduction (seed 004, Algorithm 3)",
        algorithms=("id3", "c45", "cart"),
        why_not=_GREEDY,
        choices=(
            Choice("depth", "Depth-first", "recursion, as in ID3's pseudocode"),
            Choice("best", "Best-first", "the leaf that lowers impurity most, first"),
        ),
    ),
    Option(
        "priority",
        "choice",
        "Queue key",
        group="Growth",
        default="weighted",
        help="What best-first growth ranks open leaves by: n/N x gain, how much a split lowers "
        "the whole tree's impurity (scikit-learn's max_leaf_nodes order), or the gain alone, "
        "seed 004's ΔI (Algorithm 3)",
        needs=(Need("growth", ("best",), "Only for best-first growth"),),
        choices=(
            Choice("weighted", "n/N × gain", "the leaf's share of the rows times its gain"),
            Choice("gain", "Gain (ΔI)", "the gain of the leaf's best split, seed 004's ΔI"),
        ),
    ),
    Option(
        "prune",
        "choice",
        "Pruning",
        group="Pruning",
        per_algorithm={
            "id3": "none",
            "c45": "pessimistic",
            "cart": "cost-complexity",
            "optimal": "none",
        },
        help="pessimistic: C4.5's upper error bound (seed 001); cost-complexity: CART's "
        "weakest-link pruning; reduced-error: prune on held-out rows (seed 004)",
        choices=(
            Choice("none", "None", "keep the grown tree"),
            Choice(
                "pessimistic",
                "Pessimistic (C4.5)",
                "C4.5's upper error bound",
                algorithms=("c45",),
                why_not="pessimistic pruning is C4.5's; use cost-complexity or reduced-error "
                "with {algorithm}",
            ),
            Choice(
                "cost-complexity",
                "Cost-complexity (CART)",
                "CART's weakest-link pruning",
                algorithms=("cart",),
                why_not="cost-complexity pruning is CART's; use pessimistic or reduced-error "
                "with {algorithm}",
            ),
            Choice("reduced-error", "Reduced error", "prune on held-out rows"),
        ),
    ),
    Option(
        "confidence",
        "float",
        "Confidence",
        group="Pruning",
        default=0.25,
        low=0,
        high=0.5,
        low_open=True,
        decimals=3,
        step=0.05,
        metavar="CF",
        help="C4.5's confidence factor for the pessimistic error bound: smaller values prune "
        "more (J48's -C)",
        algorithms=("c45",),
        why_not=_C45_PESSIMISTIC,
        needs=(Need("prune", ("pessimistic",), _C45_PESSIMISTIC),),
    ),
    Option(
        "subtree_raising",
        "bool",
        "Subtree raising",
        group="Pruning",
        default=True,
        flag="--no-subtree-raising",
        help="C4.5 may replace a node by its most populated branch (seed 001, option 3)",
        algorithms=("c45",),
        why_not=_C45_PESSIMISTIC,
        needs=(Need("prune", ("pessimistic",), _C45_PESSIMISTIC),),
    ),
    Option(
        "error_estimate",
        "choice",
        "Error bound",
        group="Pruning",
        default="c45",
        help="The pessimistic error bound: the normal approximation J48 uses, or the exact "
        "binomial bound of seed 001 solved numerically",
        algorithms=("c45",),
        why_not=_C45_PESSIMISTIC,
        needs=(Need("prune", ("pessimistic",), _C45_PESSIMISTIC),),
        choices=(
            Choice("c45", "Normal approximation (J48)", "what J48 computes"),
            Choice("exact", "Exact binomial", "the bound of seed 001"),
        ),
    ),
    Option(
        "alpha",
        "float",
        "Alpha",
        group="Pruning",
        low=0,
        optional=True,
        decimals=5,
        step=0.001,
        widget_high=1e6,
        metavar="A",
        unset="none",
        help="CART's complexity parameter: prune at this alpha; larger alpha, smaller tree",
        algorithms=("cart",),
        why_not=_CART_CC,
        needs=(Need("prune", ("cost-complexity",), _CART_CC),),
    ),
    Option(
        "ccp_measure",
        "choice",
        "Alpha measure",
        group="Pruning",
        default="impurity",
        help="What cost-complexity pruning weighs against alpha times the leaves: impurity "
        "(scikit-learn's weighted leaf impurity, alpha a share of it) or errors (seed 001's "
        "misclassified rows, or squared errors for regression, as Breiman's and rpart's "
        "sequence; alpha in rows, rpart's cp times the root's error)",
        algorithms=("cart",),
        why_not=_CART_CC,
        needs=(Need("prune", ("cost-complexity",), _CART_CC),),
        choices=(
            Choice("impurity", "Impurity", "scikit-learn's weighted leaf impurity"),
            Choice("errors", "Errors", "misclassified rows (squared errors for regression)"),
        ),
    ),
    Option(
        "cv_alpha",
        "int",
        "CV folds for alpha",
        group="Pruning",
        low=2,
        optional=True,
        unset="off",
        widget_high=100,
        metavar="K",
        per_algorithm={"cart": 10},
        help="CART: choose alpha by this many folds of cross-validation (CART's default: 10, as "
        "rpart; an alpha given without it is used as it is)",
        algorithms=("cart",),
        why_not=_CART_CC,
        needs=(Need("prune", ("cost-complexity",), _CART_CC),),
    ),
    Option(
        "one_se",
        "bool",
        "One-standard-error rule",
        group="Pruning",
        default=False,
        per_algorithm={"cart": True},
        help="With CV for alpha: the smallest tree within one standard error of the best",
        algorithms=("cart",),
        why_not=_CART_CC,
        needs=(
            Need("prune", ("cost-complexity",), _CART_CC),
            Need("cv_alpha", (), "Needs CV folds for alpha"),
        ),
    ),
    Option(
        "holdout",
        "float",
        "Holdout share",
        group="Pruning",
        default=1 / 3,
        low=0,
        high=0.9,
        low_open=True,
        decimals=2,
        step=0.05,
        metavar="F",
        help="Reduced-error pruning: the share of rows held out to prune on",
        needs=(Need("prune", ("reduced-error",), "Only for reduced-error pruning"),),
    ),
    Option(
        "seed",
        "int",
        "Seed",
        group="Evaluation",
        default=1,
        low=0,
        widget_high=2**31 - 1,
        metavar="S",
        help="Random seed for folds and holdouts: the same seed gives the same results",
    ),
    Option(
        "splitter",
        "choice",
        "Numeric search",
        group="Growth",
        default="auto",
        help="exact: every distinct value of a numeric attribute is a candidate threshold; "
        "histogram: up to max-bins quantile bins (much faster on big tables); auto: bins "
        "for CART from 500,000 rows, and for optimal trees for an attribute with more "
        "distinct values than max-bins",
        choices=(
            Choice("auto", "Auto", "bins for CART from 500,000 rows, else exact"),
            Choice("exact", "Exact", "every distinct value"),
            Choice("histogram", "Histogram (binned)", "quantile bins"),
        ),
    ),
    Option(
        "threads",
        "int",
        "Threads",
        group="Growth",
        default=0,
        low=0,
        widget_high=256,
        metavar="N",
        help="Threads that grow a tree (0: one per core). Every number of threads grows the "
        "same tree; 1 grows it on one core",
    ),
    Option(
        "max_bins",
        "int",
        "Histogram bins",
        group="Growth",
        default=255,
        per_algorithm={"optimal": 16},
        low=2,
        high=255,
        metavar="B",
        help="Bins per numeric attribute for the histogram search (2-255); optimal trees "
        "take thresholds at this many quantiles (16 unless set)",
        needs=(Need("splitter", ("auto", "histogram"), "Only for the histogram search"),),
    ),
    Option(
        "time_limit",
        "float",
        "Time limit (s)",
        group="Growth",
        low=0,
        low_open=True,
        optional=True,
        unset="none",
        decimals=1,
        widget_high=86_400,
        metavar="SECONDS",
        help="Optimal trees: stop the search after this many seconds and keep the best tree "
        "found, with the gap to the lower bound proved",
        algorithms=("optimal",),
        why_not="Only for optimal trees",
    ),
    Option(
        "missing",
        "choice",
        "Missing values",
        group="Algorithm",
        default="fractional",
        help="Where a row missing a split's attribute goes, in growth and prediction: "
        "fractional: down every branch, its weight shared as the known rows are (C4.5's); "
        "majority: down the branch with most training weight; surrogate: by the first of "
        "up to five surrogate splits that agrees most with the split (rpart's), else the "
        "majority branch",
        choices=(
            Choice("fractional", "Fractional (C4.5)", "down every branch, weight shared"),
            Choice(
                "majority",
                "Majority branch",
                "down the branch with most training weight",
                algorithms=("cart",),
                why_not=_BINARY_MISSING,
            ),
            Choice(
                "surrogate",
                "Surrogate splits (rpart)",
                "by the best stand-in split, else the majority branch",
                algorithms=("cart",),
                why_not=_BINARY_MISSING,
            ),
        ),
    ),
)

OPTION: dict[str, Option] = {o.name: o for o in OPTIONS}
DEFAULT_ALGORITHM = OPTION["algorithm"].default


def default(name: str, algorithm: str = DEFAULT_ALGORITHM, task: str = CLASSIFICATION):
    """The default of option ``name`` for ``algorithm`` and ``task``."""
    option = OPTION[name]
    if task in option.per_task:
        return option.per_task[task]
    return option.per_algorithm.get(algorithm, option.default)


def defaults(algorithm: str = DEFAULT_ALGORITHM, task: str = CLASSIFICATION) -> dict:
    """Every option's default for ``algorithm`` and ``task``."""
    return {o.name: default(o.name, algorithm, task) for o in OPTIONS}


def _settings_doc() -> str:
    return "Validated, complete options for one fit (fields: :data:`OPTIONS`, in order)."


def _impurity(self) -> str:
    """The impurity measure behind the criterion (gain ratio is built on entropy)."""
    return "entropy" if self.criterion == "gain_ratio" else self.criterion


def _binary(self) -> bool:
    return self.algorithm in ("cart", "optimal")  # an optimal tree's splits are binary


_TYPES = {"choice": "str", "bool": "bool", "int": "int", "float": "float", "text": "str"}

Settings = make_dataclass(
    "Settings",
    [
        (o.name, _TYPES[o.kind] + (" | None" if o.optional else ""), field(default=default(o.name)))
        for o in OPTIONS
    ],
    frozen=True,
    namespace={
        "__module__": __name__,
        "__doc__": _settings_doc(),
        "impurity": property(_impurity),
        "binary": property(_binary),
    },
)

#: The algorithms, in the table's order (other options' values: ``OPTION[name].values``).
ALGORITHMS = OPTION["algorithm"].values
#: What people read for each algorithm ("C4.5" for "c45").
ALGORITHM_LABELS = {c.value: c.label for c in OPTION["algorithm"].choices}
#: Every option's default per algorithm (classification).
DEFAULTS = {a: defaults(a) for a in ALGORITHMS}


# ---------------------------------------------------------------------- validation


def check(name: str, value):
    """``value`` as option ``name`` takes it, or ArborError saying what is allowed."""
    option = OPTION[name]
    shown = name.replace("_", "-")
    if option.kind == "bool":
        return bool(value)
    if option.kind == "text":
        if value is None or str(value).strip() == "":
            return None
        if name == "costs":  # the matrix's text; its classes are checked when a fit knows them
            return _cost_text(value)
        return _class_values(name, value)
    if option.kind == "choice":
        if value not in option.values:
            raise ArborError(f"{shown} must be one of {', '.join(option.values)}; got {value!r}")
        return value
    if value is None and option.optional:
        return None
    integer = option.kind == "int"
    try:
        number = int(value) if integer else float(value)
        if integer and float(value) != number:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        kind = "a whole number" if integer else "a number"
        raise ArborError(f"{shown} must be {kind}; got {value!r}") from None
    low, high = option.low, option.high
    too_low = low is not None and (number <= low if option.low_open else number < low)
    if too_low or (high is not None and number > high) or number != number:  # NaN: neither
        if high is None:
            span = f"{'above' if option.low_open else 'at least'} {low:g}"
        else:
            span = f"between {low:g} and {high:g}"
        raise ArborError(f"{shown} must be {span}; got {value!r}")
    return number


def resolve(**params) -> Settings:
    """Validate ``params`` (None = the algorithm's default) into :class:`Settings`; other keys
    (options of older versions, in saved projects) are ignored.

    Examples
    --------
    >>> resolve(algorithm="cart").criterion
    'gini'
    >>> resolve(algorithm="cart", task="regression").criterion
    'squared_error'
    """
    algorithm = check("algorithm", params.get("algorithm") or DEFAULT_ALGORITHM)
    task = check("task", params.get("task") or CLASSIFICATION)
    values = {}
    for option in OPTIONS:
        given = params.get(option.name)
        values[option.name] = check(
            option.name, given if given is not None else default(option.name, algorithm, task)
        )
    values["algorithm"], values["task"] = algorithm, task
    settings = Settings(**_given_alpha(params, values))
    reason = (
        _disallowed(values)
        or _too_deep(values)
        or _one_correction(values)
        or _one_weighting(values)
        or _median_search(values)
    )
    if reason:
        raise ArborError(reason)
    return settings


def _disallowed(values: Mapping) -> str | None:
    """The first chosen value these ``values`` rule out (the table's ``Choice`` limits)."""
    for name in ("task", "criterion", "prune", "missing"):
        reason = _choice_why_not(OPTION[name], values[name], values)
        if reason:
            return reason
    return None


#: The deepest optimal tree searched for (the search grows about F^(d-2)-fold with the
#: depth, F the number of binary splits).
OPTIMAL_MAX_DEPTH = 4


def _too_deep(values: Mapping) -> str | None:
    depth = values.get("max_depth")
    if values.get("algorithm") == "optimal" and (depth is None or depth > OPTIMAL_MAX_DEPTH):
        return (
            f"optimal trees need a max depth of {OPTIMAL_MAX_DEPTH} or less (the search grows "
            f"with the depth); got {'no limit' if depth is None else depth}"
        )
    return None


def _median_search(values: Mapping) -> str | None:
    if values.get("criterion") == "absolute_error" and values.get("splitter") == "histogram":
        return (
            "absolute_error needs every value of an attribute (its medians are not in the "
            "bins): use --splitter exact or auto"
        )
    return None


def _class_values(name: str, value) -> str:
    """``balanced`` (class weights only) or ``NAME=NUMBER,...``, checked and written one way
    (``a=2,b=1``): which names are the target's classes only a fit can tell."""
    shown = name.replace("_", "-")
    text = str(value).strip()
    if name == "class_weight" and text == "balanced":
        return text
    pairs = {}
    for item in text.split(","):
        key, sep, number = item.rpartition("=")
        key = key.strip()
        try:
            weight = float(number)
        except ValueError:
            weight = None
        if not sep or not key or weight is None:
            form = "balanced or NAME=W,..." if name == "class_weight" else "NAME=P,..."
            raise ArborError(f"{shown} must be {form}; cannot read {item.strip()!r}")
        if not (weight >= 0 and weight != float("inf")):
            raise ArborError(f"{shown}: {key}'s value must be a number of at least 0; got {number}")
        if key in pairs:
            raise ArborError(f"{shown} names class {key!r} twice")
        pairs[key] = weight
    if name == "priors" and abs(sum(pairs.values()) - 1) > 1e-6:
        raise ArborError(f"priors must add up to 1; they add up to {sum(pairs.values()):g}")
    return ",".join(f"{k}={v!r}" for k, v in pairs.items())


#: The most characters a cost matrix's text may hold (a matrix of a few hundred classes).
COSTS_CHARS = 1_000_000


def _cost_text(value) -> str:
    """A cost matrix's text, its lines stripped and blank ones dropped."""
    if not isinstance(value, str):
        raise ArborError(f"costs must be a cost matrix's text; got {type(value).__name__}")
    if len(value) > COSTS_CHARS:
        raise ArborError(f"costs: a cost matrix of at most {COSTS_CHARS} characters, please")
    return "\n".join(line.strip() for line in value.splitlines() if line.strip())


def class_values(text: str) -> dict[str, float]:
    """A checked class weights' or priors' line as ``{class name: number}``."""
    return {k: float(v) for k, _, v in (item.rpartition("=") for item in text.split(","))}


def _one_weighting(values: Mapping) -> str | None:
    if values.get("class_weight") is not None and values.get("priors") is not None:
        return (
            "use --class-weight or --priors, not both (priors set the class weights, "
            "as rpart's prior does)"
        )
    return None


def _one_correction(values: Mapping) -> str | None:
    if values.get("laplace") and values.get("m_estimate") is not None:
        return "use --laplace or --m-estimate M, not both (Laplace is an m-estimate with M = K)"
    if (values.get("laplace") or values.get("m_estimate") is not None) and values.get(
        "task"
    ) == REGRESSION:
        return "--laplace and --m-estimate correct class probabilities: not for regression"
    return None


def _choice_why_not(option: Option, value, values: Mapping) -> str | None:
    choice = option.choice(value)
    if choice is None:
        return None
    algorithm = values.get("algorithm") or DEFAULT_ALGORITHM
    task = values.get("task") or CLASSIFICATION
    if choice.tasks and task not in choice.tasks:
        return choice.why_not_task or f"{option.label.lower()} {choice.label} is not for {task}"
    if choice.algorithms and algorithm not in choice.algorithms:
        name = OPTION["algorithm"].choice(algorithm)
        message = choice.why_not or f"{choice.label} is not for {{algorithm}}"
        return message.format(algorithm=name.label if name else algorithm)
    return None


# ---------------------------------------------------------------------- for front ends


def _current(params: Mapping) -> dict:
    """``params`` with the defaults filled in (None and missing keys)."""
    algorithm = params.get("algorithm") or DEFAULT_ALGORITHM
    task = params.get("task") or CLASSIFICATION
    return _given_alpha(
        params,
        {
            o.name: params[o.name]
            if params.get(o.name) is not None
            else default(o.name, algorithm, task)
            for o in OPTIONS
        },
    )


def _given_alpha(params: Mapping, values: dict) -> dict:
    """An alpha given without CV folds for it is the alpha to prune at: CART's default
    cross-validation of alpha then does not apply."""
    if params.get("alpha") is not None and params.get("cv_alpha") is None:
        values["cv_alpha"] = None
    return values


def why_not(name: str, params: Mapping) -> str | None:
    """None if option ``name`` applies under ``params`` (a front end's current values),
    else why it does not."""
    return _why_not(OPTION[name], _current(params))


def why_nots(params: Mapping) -> dict[str, str | None]:
    """:func:`why_not` of every option at once (a panel's every change asks for all of them:
    one at a time, each filled in the defaults of all again)."""
    values = _current(params)
    return {option.name: _why_not(option, values) for option in OPTIONS}


def _why_not(option: Option, values: Mapping) -> str | None:
    if option.algorithms and values["algorithm"] not in option.algorithms:
        return option.why_not
    for need in option.needs:
        value = values.get(need.option)
        if (value not in need.values) if need.values else not value:
            return need.why
    return None


def choices_for(name: str, params: Mapping) -> list[tuple[Choice, str | None]]:
    """Option ``name``'s choices, each with None if allowed under ``params`` or the reason not."""
    option = OPTION[name]
    values = _current(params)
    return [(c, _choice_why_not(option, c.value, values)) for c in option.choices]


def problem(params: Mapping) -> str | None:
    """Why ``params`` cannot train (what :func:`resolve` would say), or None."""
    try:
        resolve(**{k: v for k, v in params.items() if k in OPTION})
    except ArborError as err:
        return str(err)
    return None
