"""A training hands the window a tree whose node objects are made already (on the worker,
not on the window's thread), and keeps the grown CART tree's unmade: the pruning path and
its slider work on the arrays (issue 39)."""

from __future__ import annotations

from engine.data.samples import load_sample
from engine.monitor import Monitor
from engine.prune.cost_complexity import prune_to_step
from gui.session.jobs import train_call


def test_a_training_makes_the_shown_trees_nodes_and_leaves_the_grown_ones_unmade():
    result = train_call(load_sample("iris"), {"algorithm": "cart"}, 0, 1)(Monitor())
    shown, grown = result.model.tree_, result.full_tree
    assert shown.__dict__["_root"] is not None
    assert grown.__dict__["_root"] is None
    assert grown.n_nodes > shown.n_nodes  # counted from the arrays
    step = len(result.path.alphas) - 2  # the slider one step above the root alone
    two_leaves = prune_to_step(grown, result.path, step)
    assert grown.__dict__["_root"] is None
    assert two_leaves.n_leaves == 2 and two_leaves.root.children[0].is_leaf
