"""Finding nodes over a whole tree: the index answers as reading every label would."""

import pytest

from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.labels import attribute_name, branch_condition, condition, predicted
from engine.export.search import find_nodes, search_index

CREDIT = "/usr/share/doc/weka/examples/credit-g.arff"


def _by_reading(tree, text):
    """Every node's labels read one by one: the behaviour the index must keep."""
    text = text.strip().lower()
    parents = tree.parents()
    hits = []
    for node in tree.nodes():
        parent = parents.get(node.id)
        words = [predicted(tree, node, parent) if node.is_leaf else attribute_name(tree, node)]
        if parent is not None:
            branch = [c.id for c in parent.children].index(node.id)
            words.append(branch_condition(tree, parent, branch))
            if text not in attribute_name(tree, parent).lower():
                words.append(condition(tree, parent, branch))
        if any(text in w.lower() for w in words):
            hits.append(node.id)
    return sorted(hits)


@pytest.fixture(scope="module")
def credit_tree():
    try:
        table = read_table(CREDIT)
    except Exception:  # noqa: BLE001 - Weka's examples are not on every machine
        pytest.skip("Weka's credit-g.arff is not installed")
    return DecisionTree(algorithm="cart", prune="none", min_samples_leaf=1).fit(table).tree_


@pytest.mark.parametrize(
    "text",
    [
        "checking_status",
        "no checking",
        "in {",
        "<= 22.5",
        "good",
        "BAD",
        "purpose = radio/tv",
        "credit_amount >",
        "zzz",
        " savings ",
    ],
)
def test_the_index_finds_what_reading_every_label_finds(credit_tree, text):
    assert find_nodes(credit_tree, text) == _by_reading(credit_tree, text)


def test_weather_finds_by_attribute_condition_and_class():
    tree = DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_
    assert find_nodes(tree, "humidity") == [1]  # the node split on it, not its children
    assert find_nodes(tree, "humidity = high") == [2]
    assert find_nodes(tree, "= rainy") == find_nodes(tree, "outlook = rainy") == [5]
    assert find_nodes(tree, "no") == [2, 3, 6]  # the two leaves predicting no, and "= normal"
    assert find_nodes(tree, "   ") == []
    assert search_index(tree) is search_index(tree)  # written once per tree
