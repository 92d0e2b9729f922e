"""Cancel is answered inside every phase of a training, not only while the tree grows: a
cancel that arrives as a phase starts stops the job within that phase. (How quickly, on a
million rows, is benchmarks/bench_cancel.py's business: no timings are asserted here.)"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import Cancelled
from engine.estimator import DecisionTree
from engine.evaluate.baseline import baselines
from engine.evaluate.evaluation import cross_validate
from engine.monitor import Monitor, watching
from engine.predict import predict_proba
from engine.prune.cost_complexity import cost_complexity_path
from engine.tree import Tree


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(7)
    n = 3000
    frame = pd.DataFrame(rng.normal(size=(n, 4)), columns=list("abcd"))
    frame["e"] = rng.choice(["p", "q", "r"], n)
    frame["y"] = np.where(frame.a * frame.b + rng.normal(scale=0.5, size=n) > 0, "yes", "no")
    return make_table(frame)


def _job(table, params: dict, folds: int = 0):
    """The window's Train without the window: fit, baselines, CV, training accuracy, path."""

    def job(monitor):
        with watching(monitor):
            data = encode(table)
            model = DecisionTree(**params).fit(table, monitor=monitor)
            baselines(data)
            if folds:
                cross_validate(data, model.settings_, folds, 1, monitor)
            predict_proba(model.tree_, data.X)
            # A tree read from a file or edited by hand: its arrays made by a walk over its
            # nodes (a fitted tree keeps those growth made).
            cost_complexity_path(Tree(model.tree_.root, model.tree_.schema))

    return job


# phase: (settings, folds, the function whose loop must answer, where it is looked up)
PHASES = {
    "routing rows for pruning": ({"algorithm": "c45"}, 0, "engine.prune.pessimistic_arrays:route"),
    "collapse": (
        {"algorithm": "c45", "prune": "none"},
        0,
        "engine.fitting:collapse_tree",
    ),
    "pessimistic error estimates": (
        {"algorithm": "c45"},
        0,
        "engine.prune.pessimistic_arrays:_leaves_below",
    ),
    "rebuilding the pruned tree": (
        {"algorithm": "c45"},
        0,
        "engine.prune.pessimistic_arrays:to_tree",
    ),
    "cost-complexity pruning": (
        {"algorithm": "cart", "prune": "cost-complexity", "alpha": 0.001},
        0,
        "engine.prune.cost_complexity:_weakest_links",
    ),
    "making the node objects of a pruned tree's arrays": (
        {"algorithm": "cart", "prune": "cost-complexity", "alpha": 0.001},
        0,
        "engine.flat:_made_nodes",
    ),
    "CV alpha": (
        {"algorithm": "cart", "prune": "cost-complexity", "cv_alpha": 3},
        0,
        "engine.prune.alpha:_loss_sums_per_probe",
    ),
    "reduced error": (
        {"algorithm": "cart", "prune": "reduced-error"},
        0,
        "engine.fitting:prune_reduced_error",
    ),
    "baselines": (
        {"algorithm": "cart", "max_depth": 3},
        0,
        "engine.evaluate.baseline:_numeric_rule",
    ),
    "cross-validation": (
        {"algorithm": "cart", "max_depth": 3},
        3,
        "engine.evaluate.evaluation:fit_tree",
    ),
    "predicting": ({"algorithm": "cart"}, 0, "engine.predict:_leaves"),
    "the pruning path": ({"algorithm": "cart"}, 0, "engine.flat:from_nodes"),
}


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_a_cancel_as_the_phase_starts_stops_it(table, monkeypatch, phase):
    params, folds, where = PHASES[phase]
    module_name, attribute = where.split(":")
    module = importlib.import_module(module_name)
    original = getattr(module, attribute)
    monitor = Monitor()
    calls = {"entered": 0, "finished": 0}

    def cancelling(*args, **kwargs):
        calls["entered"] += 1
        monitor.cancel()  # the user presses Cancel just as this starts
        result = original(*args, **kwargs)
        if hasattr(result, "__next__"):  # a generator: its loop runs as it is consumed
            return result
        calls["finished"] += 1
        return result

    monkeypatch.setattr(module, attribute, cancelling)
    with pytest.raises(Cancelled):
        _job(table, params, folds)(monitor)
    # Folds grown side by side (issue 34) may each have entered before the cancel; none ends.
    side_by_side = phase in ("cross-validation", "CV alpha")
    assert calls["finished"] == 0, calls
    assert 1 <= calls["entered"] <= (3 if side_by_side else 1), calls  # 3 folds


def test_without_a_cancel_every_phase_runs_to_the_end(table):
    _job(table, {"algorithm": "cart", "prune": "cost-complexity", "cv_alpha": 3}, 3)(Monitor())
