"""Step-by-step growth keeps each node's id for the life of the tree (issue 30): ids are
handed out as nodes are made, not as pre-order positions that shift with every split."""

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.export.labels import condition
from engine.growth import grow_steps, with_stable_ids
from engine.settings import resolve
from engine.tree import Tree


def _rules(tree):
    return {
        n.id: " AND ".join(condition(tree, a, b) for a, b in tree.path_to(n.id)[:-1])
        for n in tree.nodes()
    }


def test_a_node_keeps_its_id_as_weather_grows():
    data = encode(load_sample("weather"))
    steps = list(with_stable_ids(grow_steps(data, resolve(algorithm="id3"))))
    assert [s.expanded for s in steps] == [
        0,
        1,
        3,
    ]  # outlook, then sunny's humidity, then rainy's windy
    seen = {}
    for step in steps:
        for node_id, rule in _rules(Tree(step.root, data.schema)).items():
            assert seen.setdefault(node_id, rule) == rule  # the same node under the same number
    assert seen[3] == "outlook = rainy" and seen[6] == "outlook = rainy AND windy = TRUE"
    assert sorted(seen) == list(range(8))
    assert all(k in seen for k, _ in steps[0].queue)


def test_the_tree_is_the_one_grown_with_other_numbers():
    data = encode(load_sample("iris"))
    settings = resolve(algorithm="cart", growth="best")
    plain, kept = (
        list(grow_steps(data, settings)),
        list(with_stable_ids(grow_steps(data, settings))),
    )
    for a, b in zip(plain, kept, strict=True):
        ta, tb = Tree(a.root, data.schema), Tree(b.root, data.schema)
        assert sorted(_rules(ta).values()) == sorted(_rules(tb).values())
        assert _rules(ta)[a.expanded] == _rules(tb)[b.expanded]
        assert [_rules(ta)[k] for k, _ in a.queue] == [_rules(tb)[k] for k, _ in b.queue]
