"""Best-first growth's queue key: seed 004's ΔI (``--priority gain``) or n/N x ΔI (the default).

The gains are worked out here by hand from the class counts at each node (the counts the
seed's trace of iris and weather shows), not read back from the engine.
"""

from math import log2

import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.growth import grow_steps, with_stable_ids
from engine.settings import resolve
from engine.tree import Tree


def gini(counts):
    n = sum(counts)
    return 1 - sum((c / n) ** 2 for c in counts)


def entropy(counts):
    n = sum(counts)
    return -sum(c / n * log2(c / n) for c in counts if c)


def gain(measure, parent, children):
    n = sum(parent)
    return measure(parent) - sum(sum(c) / n * measure(c) for c in children)


# iris under CART (Gini): each expanded node's class counts and its best split's children.
IRIS = {
    (50, 50, 50): [(50, 0, 0), (0, 50, 50)],
    (0, 50, 50): [(0, 49, 5), (0, 1, 45)],
    (0, 49, 5): [(0, 47, 1), (0, 2, 4)],
    (0, 47, 1): [(0, 47, 0), (0, 0, 1)],  # n = 48, ΔI 0.041
    (0, 2, 4): [(0, 0, 3), (0, 2, 1)],  # n = 6, ΔI 0.222
    (0, 2, 1): [(0, 2, 0), (0, 0, 1)],
    (0, 1, 45): [(0, 1, 2), (0, 0, 43)],
}


def expansions(name, priority, **options):
    data = encode(load_sample(name))
    settings = resolve(growth="best", priority=priority, **options)
    steps = list(with_stable_ids(grow_steps(data, settings)))
    nodes = [Tree(s.root, data.schema).node(s.expanded) for s in steps]
    return steps, [tuple(int(round(c)) for c in n.distribution) for n in nodes]


@pytest.mark.parametrize("priority", ["gain", "weighted"])
def test_iris_grows_in_the_order_of_its_queue_key(priority):
    steps, counts = expansions("iris", priority, algorithm="cart")
    delta = {node: gain(gini, node, children) for node, children in IRIS.items()}
    key = {n: d if priority == "gain" else sum(n) / 150 * d for n, d in delta.items()}
    assert counts[:7] == [
        (50, 50, 50),
        (0, 50, 50),
        (0, 49, 5),
        *(
            [(0, 2, 4), (0, 2, 1), (0, 47, 1)]
            if priority == "gain"  # ΔI 0.222 and 0.444 before 0.041
            else [(0, 47, 1), (0, 2, 4), (0, 2, 1)]  # 48/150 x 0.041 = 0.013 first
        ),
        (0, 1, 45),
    ]
    for step, node in zip(steps, counts[:7], strict=False):
        assert step.priority == pytest.approx(key[node], abs=1e-12)
    assert delta[(0, 47, 1)] == pytest.approx(0.0408, abs=1e-4)
    assert delta[(0, 2, 4)] == pytest.approx(0.2222, abs=1e-4)


def test_iris_queue_shows_the_key_it_ranks_by():
    steps, _ = expansions("iris", "gain", algorithm="cart")
    # After node (0, 49, 5) splits, the queue holds its children and the (0, 1, 45) leaf.
    after = steps[2].queue
    want = sorted(
        [
            gain(gini, (0, 2, 4), IRIS[(0, 2, 4)]),
            gain(gini, (0, 47, 1), IRIS[(0, 47, 1)]),
            gain(gini, (0, 1, 45), IRIS[(0, 1, 45)]),
        ],
        reverse=True,
    )
    assert [p for _, p in after] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("priority", ["gain", "weighted"])
def test_weather_queue_keys_are_the_seeds_gains(priority):
    # ID3 on weather: outlook at the root, then sunny (2 yes, 3 no) by humidity and rainy
    # (3 yes, 2 no) by windy, each a ΔI of H(2/5) = 0.971.
    steps, counts = expansions("weather", priority, algorithm="id3")
    root = gain(entropy, (9, 5), [(2, 3), (4, 0), (3, 2)])
    sunny = gain(entropy, (2, 3), [(0, 3), (2, 0)])
    share = 1.0 if priority == "gain" else 5 / 14
    assert counts == [(9, 5), (2, 3), (3, 2)]
    assert steps[0].priority == pytest.approx(root, abs=1e-12)
    assert [p for _, p in steps[0].queue] == pytest.approx([share * sunny] * 2, abs=1e-12)
    assert sunny == pytest.approx(0.971, abs=1e-3)


def test_priority_is_an_option_of_best_first_growth_only():
    from engine.settings import why_not

    assert why_not("priority", {"growth": "depth"}) == "Only for best-first growth"
    assert why_not("priority", {"growth": "best"}) is None
    assert resolve().priority == "weighted"  # scikit-learn's max_leaf_nodes order stays


def test_gain_priority_with_a_leaf_limit_keeps_the_highest_gain_splits():
    from engine.estimator import DecisionTree

    data = load_sample("iris")
    model = DecisionTree("cart", growth="best", priority="gain", max_leaves=5, prune="none")
    tree = model.fit(data).tree_
    split = {tuple(int(round(c)) for c in n.distribution) for n in tree.nodes() if n.split}
    assert split == {(50, 50, 50), (0, 50, 50), (0, 49, 5), (0, 2, 4)}
