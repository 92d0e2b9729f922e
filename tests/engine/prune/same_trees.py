"""Every tree, alpha, CV figure and prediction of the example datasets, as digests (issue 39).

The trees are now pruned, routed and predicted as flat arrays (:mod:`engine.flat`); these
digests were recorded from the node-object code that did it before
(``python -m tests.engine.prune.same_trees --write``), so the arrays are held to exactly
its trees and figures, to the last bit of every float. Three cases were recorded again when
the sums stopped going through BLAS, whose kernel (picked by the processor) added in its own
order (:mod:`engine.sums`): floats of their CV figures and reduced-error records moved by at
most one unit in the last place; no tree, prediction or choice changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.evaluate.evaluation import cross_val_predict
from engine.fitting import fit_tree
from engine.predict import predict_proba, predict_value
from engine.prune.alpha import choose_alpha
from engine.prune.cost_complexity import cost_complexity_path, prune_to_step
from engine.tree import Tree

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "flat" / "digests.json"
WEKA = Path(__file__).resolve().parents[2] / "fixtures" / "weka" / "data"

#: (name, where): samples by name, Weka's files by path (labor, soybean and breast-cancer
#: have missing values: fractional rows in pruning, routing and prediction).
DATASETS = {
    "weather": "weather",
    "weather-numeric": "weather-numeric",
    "contact-lenses": "contact-lenses",
    "iris": "iris",
    "restaurant": "restaurant",
    "labor": WEKA / "labor.arff",
    "soybean": WEKA / "soybean.arff",
    "breast-cancer": WEKA / "breast-cancer.arff",
    "iris-regression": ("iris", "petalwidth"),
    "labor-regression": (WEKA / "labor.arff", "wage-increase-first-year"),
}

#: The learners: every algorithm and pruning method (and C4.5's options).
LEARNERS = {
    "cart": dict(algorithm="cart"),
    "cart-none": dict(algorithm="cart", prune="none"),
    "cart-re": dict(algorithm="cart", prune="reduced-error"),
    "cart-alpha": dict(algorithm="cart", cv_alpha=None, alpha=0.01),
    "cart-min": dict(algorithm="cart", one_se=False),
    "c45": dict(algorithm="c45"),
    "c45-noraise": dict(algorithm="c45", subtree_raising=False),
    "c45-exact": dict(algorithm="c45", error_estimate="exact"),
    "c45-re": dict(algorithm="c45", prune="reduced-error"),
    "c45-none": dict(algorithm="c45", prune="none"),
    "id3": dict(algorithm="id3"),
}

#: Regression trees' learners (CART's).
REGRESSION_LEARNERS = {
    "cart": dict(algorithm="cart", task="regression"),
    "cart-none": dict(algorithm="cart", task="regression", prune="none"),
    "cart-re": dict(algorithm="cart", task="regression", prune="reduced-error"),
    "cart-alpha": dict(algorithm="cart", task="regression", cv_alpha=None, alpha=0.01),
}

#: Cross-validated (each fold's fit and predictions) on the smaller tables only: the suite's budget.
CV_DATASETS = ("weather", "contact-lenses", "iris", "labor", "iris-regression")

#: What the quick run checks (the rest with -m slow): missing values, multiway, binary
#: subsets, thresholds, regression, every pruning method.
QUICK = (
    "weather/cart",
    "weather/c45",
    "contact-lenses/cart-re",
    "contact-lenses/id3",
    "labor/cart-none",  # labor/cart's CV alone takes 2.7 s (-m slow; choose_alpha's own
    "labor/c45",  # missing values: tests/engine/prune/test_cv_alpha_recorded.py)
    "labor/c45-noraise",
    "labor/c45-re",
    "labor/cart-alpha",
    "iris/cart-min",
    "iris/c45-exact",
    "iris-regression/cart",
    "labor-regression/cart-re",
    "soybean/c45-none",
)


def _table(name: str):
    where, target = DATASETS[name], None
    if isinstance(where, tuple):
        where, target = where
    table = read_table(str(where)) if isinstance(where, Path) else load_sample(where)
    return table if target is None else table.with_target(target)


def learners(dataset: str) -> dict[str, dict]:
    return REGRESSION_LEARNERS if dataset.endswith("-regression") else LEARNERS


def _canon(value):
    if isinstance(value, np.ndarray):
        return [_canon(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, dict):
        return {k: _canon(value[k]) for k in sorted(value)}
    return value


def _digest(value) -> str:
    text = json.dumps(_canon(value), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def tree_record(tree: Tree) -> list:
    """Every node's every field, in pre-order."""
    out = []
    for n in tree.nodes():
        split = n.split
        out.append(
            [
                n.id,
                n.depth,
                n.weight,
                np.asarray(n.distribution, dtype=float),
                n.impurity,
                n.value,
                None
                if split is None
                else [split.attribute, split.kind, split.fractions, split.threshold, split.groups],
                {k: float(v) for k, v in n.stats.items()},
                len(n.children),
            ]
        )
    return out


def _missing_rows(X: np.ndarray) -> np.ndarray:
    """``X`` with every third value of every row blanked: rows going down several branches."""
    out = X.astype(float).copy()
    mask = (np.arange(out.size).reshape(out.shape) % 3) == 1
    out[mask] = np.nan
    return out


def _outputs(tree: Tree, X: np.ndarray) -> np.ndarray:
    return predict_value(tree, X) if tree.is_regression else predict_proba(tree, X)


def case(dataset: str, learner: str) -> dict[str, str]:
    """The digests of one fit (and, for the small tables, its cross-validation)."""
    table = _table(dataset)
    settings = DecisionTree(**learners(dataset)[learner]).settings()
    data = encode(table, settings.task)
    tree = fit_tree(data, settings, record=True)
    out = {
        "tree": _digest(tree_record(tree)),
        "n_nodes": str(tree.n_nodes),
        "predict": _digest(_outputs(tree, data.X)),
        "predict-missing": _digest(_outputs(tree, _missing_rows(data.X))),
    }
    if tree.pruning is not None:
        record = tree.pruning
        out["record"] = _digest(
            [
                [d.path, d.verdict, [(o.kind, o.total, o.branch) for o in d.options]]
                + [
                    None if t is None else tree_record(Tree(t, tree.schema))
                    for t in (d.before, d.after)
                ]
                for d in record.decisions
            ]
        )
    if learner == "cart":
        grown = fit_tree(data, replace(settings, prune="none"))
        path = cost_complexity_path(grown)
        out["path"] = _digest(
            [path.alphas, path.impurities, path.n_leaves, path.pruned, path.errors]
        )
        out["steps"] = _digest(
            [tree_record(prune_to_step(grown, path, k)) for k in range(len(path.alphas))]
        )
        out["alpha"] = _digest(choose_alpha(grown, data, replace(settings, cv_alpha=10)).as_dict())
    if dataset in CV_DATASETS:
        cv, scores = cross_val_predict(data, settings, 10, 1)
        out["cv"] = _digest([cv, scores])
    return out


def all_cases() -> dict[str, dict[str, str]]:
    return {f"{d}/{k}": case(d, k) for d in DATASETS for k in learners(d)}


if __name__ == "__main__":
    if "--write" in sys.argv:
        FIXTURE.write_text(json.dumps(all_cases(), indent=1, sort_keys=True) + "\n")
    else:
        print(json.dumps(all_cases(), indent=1, sort_keys=True))
