"""The pruning record: every node's candidates with the shares that make them, the verdicts in
the order they were made, and what was cut away (seed 001's toys; Weka's example sets)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.growth import grow
from engine.prune.bounds import estimated_errors
from engine.prune.pessimistic import prune_pessimistic
from engine.prune.record import (
    BRANCH,
    COLLAPSED,
    IS_LEAF,
    KEPT,
    LEAF,
    PRUNED,
    RAISED,
    RECORD_LIMIT,
    SUBTREE,
)
from engine.settings import resolve
from engine.tree import Tree

WEKA = Path("/usr/share/doc/weka/examples")


def _same(a, b) -> bool:
    """Same shape, splits and counts (ids and stats aside)."""
    if (a.split is None) != (b.split is None) or abs(a.weight - b.weight) > 1e-9:
        return False
    if not np.allclose(a.distribution, b.distribution):
        return False
    if a.split is not None and (a.split.attribute, a.split.threshold, a.split.groups) != (
        b.split.attribute,
        b.split.threshold,
        b.split.groups,
    ):
        return False
    return len(a.children) == len(b.children) and all(
        _same(x, y) for x, y in zip(a.children, b.children, strict=True)
    )


def _toys_record(toys, method):
    table = toys.with_kinds(Players="ignored")  # the seed's tree: colour only
    data = encode(table)
    grown = Tree(grow(data, resolve(algorithm="id3")), data.schema)
    settings = resolve(algorithm="c45", error_estimate=method, min_samples_leaf=0)
    return grown, prune_pessimistic(grown, data, settings, record=True)


@pytest.mark.parametrize("method", ["exact", "c45"])
def test_toys_root_weighs_the_notes_bounds(toys, method):
    grown, pruned = _toys_record(toys, method)
    record = pruned.pruning
    assert (
        record.method == "pessimistic" and record.estimate == method and record.confidence == 0.25
    )
    assert [d.verdict for d in record.decisions] == [IS_LEAF, IS_LEAF, IS_LEAF, PRUNED]
    root = record.decisions[-1]
    assert root.path == ()
    subtree = root.option(SUBTREE)
    assert [(s.branch, s.n, s.errors, s.leaves) for s in subtree.parts] == [
        (0, 6, 0, 1),
        (1, 9, 0, 1),
        (2, 1, 0, 1),
    ]
    # A leaf with no errors has the exact bound 1 - CF^(1/N) under both estimates.
    assert [round(s.rate, 3) for s in subtree.parts] == [0.206, 0.143, 0.75]
    assert round(subtree.total, 3) == 3.273
    leaf = root.option(LEAF)
    assert (leaf.parts[0].n, leaf.parts[0].errors) == (16, 1)
    assert leaf.total == pytest.approx(estimated_errors(16, 1, 0.25, method))
    if method == "exact":
        # 16 p with p = 0.1596 solving the notes' equation; they print p = 0.157 and 2.512.
        assert round(leaf.total, 3) == 2.554 and round(leaf.parts[0].rate, 4) == 0.1596
    branch = root.option(BRANCH)
    assert branch.branch == 1 and branch.total == pytest.approx(leaf.total)  # green, 9 of 16
    assert root.option(SUBTREE).total == pruned.root.stats["error_as_subtree"]
    # The leaves' own bounds are kept too, as the decisions at their paths.
    assert [round(d.option(LEAF).parts[0].rate, 3) for d in record.decisions[:3]] == [
        0.206,
        0.143,
        0.75,
    ]


def test_toys_record_replays_and_keeps_what_was_cut(toys):
    grown, pruned = _toys_record(toys, "exact")
    record = pruned.pruning
    assert record.before is grown
    assert record.tree_at(0).n_nodes == 4 and record.tree_at(3).n_nodes == 4
    assert record.tree_at(4).n_nodes == 1
    assert [d.verdict for d in record.decisions_at(pruned, 0)] == [PRUNED]
    ghost = record.removed(pruned, 0)
    assert _same(ghost, grown.root)
    # Before the root's step, the root's place held a split: nothing was cut there yet.
    assert record.removed(record.tree_at(3), 0, step=3) is None
    # The children's decisions belong to the unpruned states only.
    assert [d.verdict for d in record.decisions_at(record.tree_at(3), 2, step=3)] == [IS_LEAF]


def test_no_record_unless_asked(weather):
    assert DecisionTree(algorithm="c45").fit(weather).tree_.pruning is None
    assert DecisionTree(algorithm="c45").fit(weather, record=True).tree_.pruning is not None
    # A grown or hand-built tree has none, and CART's path is a record of its own kind.
    assert DecisionTree(algorithm="cart").fit(weather, record=True).tree_.pruning is None


def test_big_trees_keep_no_record(weather, monkeypatch):
    import engine.prune.pessimistic as pessimistic
    import engine.prune.pessimistic_arrays as pessimistic_arrays
    import engine.prune.reduced_error as reduced_error

    assert RECORD_LIMIT >= 2_000  # a tree a person reads, with room to spare
    monkeypatch.setattr(pessimistic, "RECORD_LIMIT", 7)  # the grown weather tree has 8 nodes
    monkeypatch.setattr(pessimistic_arrays, "RECORD_LIMIT", 7)
    monkeypatch.setattr(reduced_error, "RECORD_LIMIT", 0)
    assert DecisionTree(algorithm="c45").fit(weather, record=True).tree_.pruning is None
    rep = DecisionTree(algorithm="id3", prune="reduced-error").fit(weather, record=True)
    assert rep.tree_.pruning is None


@pytest.mark.skipif(not WEKA.exists(), reason="Weka's example sets are not installed")
@pytest.mark.parametrize("name", ["labor", "soybean", "vote", "diabetes", "breast-cancer"])
@pytest.mark.parametrize("method", ["c45", "exact"])
def test_record_replays_to_the_pruned_tree(name, method):
    table = read_table(WEKA / f"{name}.arff")
    pruned = DecisionTree(algorithm="c45", error_estimate=method).fit(table, record=True).tree_
    record = pruned.pruning
    assert _same(record.tree_at(len(record.decisions)).root, pruned.root)
    assert _same(record.tree_at(0).root, record.before.root)
    steps = [d.step for d in record.decisions]
    assert steps == list(range(len(steps)))
    for d in record.decisions:
        options = {o.kind: o for o in d.options}
        for option in options.values():
            assert option.total == pytest.approx(sum(s.estimate for s in option.parts))
        if d.verdict == IS_LEAF:
            assert set(options) == {LEAF} and d.before is None
        elif d.verdict == COLLAPSED:  # training errors: the subtree's are no fewer than the leaf's
            assert options[SUBTREE].total >= options[LEAF].total - 1e-3
        elif d.verdict == PRUNED:
            assert options[LEAF].total <= options[SUBTREE].total + 0.1 + 1e-6
            assert d.after.is_leaf and _same(replace_children(d.after), replace_children(d.before))
        elif d.verdict == RAISED:
            assert options[BRANCH].total <= options[SUBTREE].total + 0.1 + 1e-6
            assert options[BRANCH].total < options[LEAF].total - 0.1
            assert abs(d.after.weight - d.before.weight) < 1e-9
        else:
            assert d.verdict == KEPT and d.before is None and d.after is None
    # Every leaf pruning made shows what it cut, as grown when no raise happened above it.
    verdicts = {d.verdict for d in record.decisions}
    for node in pruned.nodes():
        if node.stats.get("pruned"):
            ghost = record.removed(pruned, node.id)
            assert ghost is not None and not ghost.is_leaf
            if RAISED not in verdicts:  # (a raise above routes other rows through the branch)
                assert ghost.weight == pytest.approx(node.weight)
                path = tuple(b for _, b in pruned.path_to(node.id)[:-1])
                grown = record.before.root
                for b in path:
                    grown = grown.children[b]
                assert _same(ghost, grown)


def replace_children(node):
    """The node without its subtree, to compare a leaf with the split it came from."""
    from dataclasses import replace

    return replace(node, split=None, children=())


def test_reduced_error_record_counts_held_out_errors():
    rng = np.random.default_rng(3)
    x = np.array(list("vwxyz"))[rng.integers(0, 5, size=(300, 3))]
    y = np.where(rng.random(300) < 0.8, x[:, 0] == "w", rng.random(300) < 0.5)
    table = make_table(pd.DataFrame(x, columns=list("abc")).assign(y=np.where(y, "t", "f")))
    pruned = (
        DecisionTree(algorithm="id3", prune="reduced-error", seed=2).fit(table, record=True).tree_
    )
    record = pruned.pruning
    assert record.method == "reduced-error" and record.estimate is None
    assert _same(record.tree_at(len(record.decisions)).root, pruned.root)
    root = record.decisions[-1]
    assert root.path == ()
    # The held-out rows: a third of 300 (stratified); every leaf option's n adds up at the root.
    held = root.option(LEAF).parts[0].n
    assert held == pytest.approx(sum(s.n for s in root.option(SUBTREE).parts))
    assert 95 <= held <= 105
    for d in record.decisions:
        if d.verdict == PRUNED:
            assert d.option(LEAF).total <= d.option(SUBTREE).total + 1e-12
        elif d.verdict == KEPT:
            assert d.option(LEAF).total > d.option(SUBTREE).total
        for option in d.options:  # held-out errors are counted, not estimated
            assert all(s.estimate == s.errors for s in option.parts)
