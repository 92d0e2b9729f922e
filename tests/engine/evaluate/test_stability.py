"""How stable a tree is: fold recurrence and near-ties on tables whose answer is known by
construction."""

import numpy as np
import pandas as pd

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.evaluate.stability import stability, stability_summary
from engine.fitting import fit_tree
from engine.settings import resolve


def _fit(columns: dict, algorithm="id3"):
    data = encode(make_table(pd.DataFrame(columns), target="class"))
    settings = resolve(algorithm=algorithm, prune="none")
    return fit_tree(data, settings), data, settings


def test_an_attribute_that_always_wins_recurs_in_every_fold_with_no_near_tie():
    rng = np.random.default_rng(0)
    y = np.array(["yes", "no"] * 20)
    tree, data, settings = _fit(
        {"noise": rng.choice(["p", "q", "r"], 40), "a": np.where(y == "yes", "t", "f"), "class": y}
    )
    s = stability(tree, data, settings)
    root = s.nodes[0]
    assert (root.folds, root.recurs, root.attribute_recurs, root.near_ties) == (10, 10, 10, ())
    assert s.near_tied() == []
    weka = stability(tree, data, settings, weka_folds=True).nodes[0]  # Weka's dealing
    assert (weka.folds, weka.recurs) == (10, 10)


def test_a_near_copy_is_a_near_tie_and_the_original_still_recurs():
    y = np.array(["yes", "no"] * 100)
    copy = np.where(y == "yes", "t", "f")
    near = copy.copy()
    near[0] = "f"  # one row of 200 disagrees: gain 0.959 against 1.0
    tree, data, settings = _fit({"b": copy, "c": near, "class": y})
    s = stability(tree, data, settings)
    root = s.nodes[0]
    assert root.recurs == 10  # when the odd row is held out the two tie, and b comes first
    assert [t.attribute for t in root.near_ties] == ["c"]
    tie = root.near_ties[0]
    assert round(tie.chosen_score, 4) == 1.0
    assert round(tie.score, 4) == round(1 - 101 / 200 * 0.08021, 4)  # 1 - 101/200 H(1/101)
    assert "recurs in 10 of 10" in stability_summary(root, s)
    assert "Near-tie" in stability_summary(root, s)


def test_a_threshold_recurs_within_the_tolerance_only():
    # x cuts the classes at 50 exactly; the folds' cuts move with the rows they hold out.
    x = np.arange(100, dtype=float)
    y = np.where(x < 50, "low", "high")
    columns = {"x": x, "class": y}
    tree, data, settings = _fit(columns, algorithm="cart")
    assert tree.root.split.threshold == 49.5
    loose = stability(tree, data, settings, tolerance=0.05).nodes[0]
    assert loose.recurs == loose.attribute_recurs == 10
    strict = stability(tree, data, settings, tolerance=0.0).nodes[0]
    assert strict.attribute_recurs == 10 and strict.recurs < 10
