"""Optimal trees (issue 35): the search against an exhaustive one, STreeD's recorded
objectives, the XOR table greedy growth gets wrong, leaf budgets, the time limit, cancel."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError, Cancelled
from engine.estimator import DecisionTree
from engine.monitor import Monitor
from engine.optimal import binarise, misclassified, solve_optimal
from engine.predict import predict_class
from engine.settings import resolve
from engine.tree import Tree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "optimal"


def exhaustive(features, y, w, n_classes, rows, depth, leaves, seen=None):
    """The least error of any tree of ``depth`` with at most ``leaves`` leaves on ``rows``,
    trying every split at every node (no bounds; ``seen`` only spares repeating a case)."""
    seen = {} if seen is None else seen
    key = (rows.tobytes(), depth, leaves)
    if key not in seen:
        seen[key] = _exhaustive(features, y, w, n_classes, rows, depth, leaves, seen)
    return seen[key]


def _exhaustive(features, y, w, n_classes, rows, depth, leaves, seen):
    counts = np.bincount(y[rows], w[rows], minlength=n_classes)
    best = float(misclassified(counts))
    if depth == 0 or leaves < 2:
        return best
    for f in range(features.n_features):
        mask = features.inside(f, rows)
        inner, outer = rows[mask], rows[~mask]
        if len(inner) == 0 or len(outer) == 0:
            continue
        for k_in in range(1, leaves):
            cost = exhaustive(features, y, w, n_classes, inner, depth - 1, k_in, seen)
            cost += exhaustive(features, y, w, n_classes, outer, depth - 1, leaves - k_in, seen)
            best = min(best, cost)
    return best


def tiny_table(seed: int, n: int = 14) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": rng.integers(0, 5, n).astype(float),
            "colour": rng.choice(["red", "green", "blue"], n),
            "z": rng.normal(size=n).round(1),
            "class": rng.choice(["a", "b", "c"] if seed % 2 else ["a", "b"], n),
        }
    )
    frame.loc[rng.random(n) < 0.15, "x"] = np.nan  # missing values go with the rest
    return frame


def tree_errors(tree, data) -> float:
    """Misclassified training weight of ``tree``, by routing the rows through it."""
    predicted = predict_class(tree, data.X, "optimal")
    return float(data.weight[predicted != data.y].sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_search_finds_the_exhaustive_optimum(seed):
    table = make_table(tiny_table(seed))
    data = encode(table)
    y = data.y.astype(np.int64)
    for depth, leaves in [(0, None), (1, None), (2, None), (3, None), (2, 3), (3, 3), (3, 5)]:
        settings = resolve(
            algorithm="optimal",
            max_depth=depth,
            max_leaves=leaves,
            splitter="histogram",
            max_bins=3,
        )
        rows = np.arange(data.n_rows)
        features = binarise(data, rows, settings.splitter, settings.max_bins)
        budget = leaves or 2**depth
        expected = exhaustive(
            features, y, data.weight, len(data.schema.classes), rows, depth, budget
        )
        solution = solve_optimal(data, settings, compiled=False)
        assert solution.finished
        assert solution.error == expected, (depth, leaves)
        # The tree built is the tree scored: its own errors, depth and leaves agree.
        tree = Tree(solution.root, data.schema)
        assert tree_errors(tree, data) == expected
        assert tree.depth <= depth
        assert tree.n_leaves <= budget


def test_weighted_rows_count_by_weight():
    frame = tiny_table(4)
    table = make_table(frame)
    data = encode(table)
    weighted = type(data)(data.schema, data.X, data.y, np.linspace(0.5, 2.0, data.n_rows))
    settings = resolve(algorithm="optimal", max_depth=2, splitter="exact")
    rows = np.arange(data.n_rows)
    features = binarise(weighted, rows, "exact", 16)
    y = data.y.astype(np.int64)
    expected = exhaustive(features, y, weighted.weight, len(data.schema.classes), rows, 2, 4)
    assert solve_optimal(weighted, settings, compiled=False).error == pytest.approx(expected)


def xor_table() -> pd.DataFrame:
    """300 rows of binary attributes whose class is a XOR of the first two (10% of the classes
    flipped), with two attributes that each agree with the class on about 70% of rows: greedy
    growth takes those (the XOR's attributes gain nothing alone), the optimal tree does not."""
    rng = np.random.default_rng(35)
    X = rng.integers(0, 2, (300, 8))
    y = X[:, 0] ^ X[:, 1]
    X[:, 2] = np.where(rng.random(300) < 0.72, y, 1 - y)
    X[:, 3] = np.where(rng.random(300) < 0.68, y, 1 - y)
    y = np.where(rng.random(300) < 0.1, 1 - y, y)
    frame = pd.DataFrame({f"x{i}": np.where(X[:, i] == 1, "t", "f") for i in range(8)})
    frame["class"] = np.where(y == 1, "yes", "no")
    return frame


def test_xor_the_optimal_depth_3_tree_beats_greedy_growth():
    table = make_table(xor_table())
    data = encode(table)
    greedy = DecisionTree(algorithm="cart", max_depth=3, prune="none").fit(table).tree_
    solution = solve_optimal(data, resolve(algorithm="optimal", max_depth=3), compiled=False)
    optimal = Tree(solution.root, data.schema)
    assert (tree_errors(greedy, data), tree_errors(optimal, data)) == (88, 28)
    assert solution.finished and solution.error == 28


def test_the_estimator_fits_an_optimal_tree_and_says_it_is_optimal():
    model = DecisionTree(algorithm="optimal", max_depth=2).fit(make_table(tiny_table(0)))
    assert model.tree_.depth <= 2
    assert any(note.startswith("optimal: no tree") for note in model.notes_)


def test_a_greedy_fit_says_nothing_of_a_search_and_leaves_its_nodes_unmade():
    """The search's note looks at the root only when the node objects exist: fitting a greedy
    tree does not make them all (16 ms for 4,000 nodes) for a note it never has."""
    table = make_table(xor_table())
    model = DecisionTree(algorithm="cart", max_depth=3, prune="none").fit(table)
    assert model.tree_.root_made is None
    assert not any("optimal" in note for note in model.notes_)
    assert model.tree_.n_leaves == 8 and model.tree_.root_made is None
    assert model.tree_.root is model.tree_.root_made


def streed_tables() -> list[dict]:
    return json.loads((FIXTURES / "streed.json").read_text("utf-8"))


def binary_frame(table: dict) -> pd.DataFrame:
    X = np.array([[int(c) for c in r] for r in table["rows"]], dtype=float)
    frame = pd.DataFrame(X, columns=[f"b{i}" for i in range(X.shape[1])])
    frame["class"] = [f"c{c}" for c in table["classes"]]
    return frame


@pytest.mark.parametrize("table", streed_tables(), ids=lambda t: t["name"])
def test_equal_objective_to_streed_recorded(table):
    data = encode(make_table(binary_frame(table)))
    for depth, errors in table["errors"].items():
        settings = resolve(algorithm="optimal", max_depth=int(depth))
        assert solve_optimal(data, settings, compiled=False).error == errors, depth


@pytest.mark.streed
@pytest.mark.parametrize("table", streed_tables()[:2], ids=lambda t: t["name"])
def test_equal_objective_to_streed_live(table):
    pytest.importorskip("pystreed")
    from tests.fixtures.optimal.record import matrix, streed_errors

    X, y = matrix(table)
    data = encode(make_table(binary_frame(table)))
    for depth in (2, 3):
        ours = solve_optimal(data, resolve(algorithm="optimal", max_depth=depth)).error
        assert ours == streed_errors(X, y, depth)


def test_the_time_limit_returns_the_best_tree_found_with_its_gap():
    table = make_table(xor_table())
    data = encode(table)
    settings = resolve(algorithm="optimal", max_depth=3, time_limit=1e-9)
    solution = solve_optimal(data, settings, compiled=False)
    assert not solution.finished
    # The first tree (the best of depth 2) stands, not yet proved optimal.
    assert (solution.error, solution.bound) == (28, 21)
    assert solution.gap == solution.error - solution.bound
    model = DecisionTree(algorithm="optimal", max_depth=3, time_limit=1e-9)
    model.fit(make_table(tiny_table(1)))
    assert any("time limit stopped the search" in note for note in model.notes_)


def test_cancel_stops_the_search():
    monitor = Monitor()
    monitor.cancel()
    with pytest.raises(Cancelled):
        solve_optimal(encode(make_table(xor_table())), resolve(algorithm="optimal"), monitor)


def test_depth_is_at_most_four():
    with pytest.raises(ArborError, match="max depth of 4 or less"):
        resolve(algorithm="optimal", max_depth=5)
    assert resolve(algorithm="optimal").max_depth == 3


def test_nominal_values_and_thresholds_are_the_splits():
    data = encode(make_table(tiny_table(1)))
    features = binarise(data, np.arange(data.n_rows), "exact", 16)
    x_values = np.unique(data.X[:, 0][~np.isnan(data.X[:, 0])])
    assert features.first.tolist()[:2] == [0, len(x_values) - 1]  # every midpoint of x
    assert features.first[2] - features.first[1] == 3  # colour: each value against the rest
    assert np.allclose(features.thresholds[0], (x_values[0] + x_values[1]) / 2)


def test_an_optimal_tree_is_not_grown_step_by_step():
    from engine.growth import grow_steps

    data = encode(make_table(tiny_table(0)))
    with pytest.raises(ArborError, match="searched whole"):
        grow_steps(data, resolve(algorithm="optimal"))
