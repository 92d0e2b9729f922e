"""The interactive page (issue 36): the tree it carries is the tree trained, names from the data
stay data, and ``train --html`` writes it. The page itself runs in a real browser in
``tests/browser`` (``-m browser``)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.export.html_page import script_json, to_html
from engine.export.labels import attribute_name, branch_condition, predicted
from engine.tree import THRESHOLD

MODEL = re.compile(r'<script type="application/json" id="model">(.*?)</script>', re.S)


def embedded(page: str) -> dict:
    """The JSON the page's script parses (JSON.parse reads the \\u escapes as json does)."""
    (text,) = MODEL.findall(page)
    return json.loads(text)


def _preorder(tree):
    out, stack = [], [(tree.root, None, -1)]
    while stack:
        node, parent, branch = stack.pop()
        out.append((node, parent, branch))
        stack.extend((c, node, b) for b, c in reversed(list(enumerate(node.children))))
    return out


@pytest.mark.parametrize(("sample", "algorithm"), [("weather", "id3"), ("iris", "c45")])
def test_the_page_carries_the_tree(sample, algorithm):
    model = DecisionTree(algorithm=algorithm).fit(load_sample(sample))
    tree = model.tree_
    m = embedded(to_html(tree, algorithm))
    nodes = m["nodes"]
    assert m["algorithm"] == algorithm and m["classes"] == list(tree.classes)
    assert m["colours"][:2] == ["#0072B2", "#E69F00"]
    order = _preorder(tree)
    assert len(nodes["id"]) == tree.n_nodes == len(order)
    for row, (node, parent, branch) in enumerate(order):
        assert nodes["id"][row] == node.id
        assert nodes["dist"][row] == node.distribution.tolist()
        assert nodes["weight"][row] == node.weight
        if parent is not None:
            assert nodes["id"][nodes["parent"][row]] == parent.id
            assert nodes["branch"][row] == branch
            assert nodes["edge"][row] == branch_condition(tree, parent, branch)
        if node.is_leaf:
            assert nodes["attribute"][row] == -1
            assert nodes["head"][row] == predicted(tree, node, parent)
            continue
        split = node.split
        assert nodes["attribute"][row] == split.attribute
        assert nodes["head"][row] == attribute_name(tree, node)
        assert nodes["fractions"][row] == list(split.fractions)
        if split.kind == THRESHOLD:
            assert nodes["threshold"][row] == split.threshold  # exact: JSON keeps every digit
        else:
            assert nodes["groups"][row] == [list(g) for g in split.groups]


HOSTILE = [
    "</script><script>alert(1)</script>",
    "<!--<script>",
    "line\u2028sep\u2029para",
    "{{SCRIPT}}",
    "<img src=x onerror=alert(1)>",
]


def test_names_from_the_data_stay_data():
    rows = [
        (HOSTILE[k % 2], float(k), HOSTILE[2 + k % 3] if k > 5 else "{{MODEL}}") for k in range(12)
    ]
    frame = pd.DataFrame(rows, columns=[HOSTILE[3], HOSTILE[4], HOSTILE[0]])
    tree = DecisionTree(algorithm="cart").fit(make_table(frame)).tree_
    page = to_html(tree, "cart")
    # Two script elements and no others: the model's JSON and the page's own code.
    assert page.count("<script") == 2 and page.lower().count("</script") == 2
    assert "<!--" not in page and "\u2028" not in page and "\u2029" not in page
    assert "<img" not in page
    m = embedded(page)
    assert m["target"] == HOSTILE[0]
    assert [a["name"] for a in m["attributes"]] == [HOSTILE[3], HOSTILE[4]]
    assert set(m["classes"]) == {"{{MODEL}}", *HOSTILE[2:5]}
    assert set(m["attributes"][0]["categories"]) == set(HOSTILE[:2])
    # The title is escaped markup; the script sets every other text with textContent.
    assert "<title>Decision tree: &lt;/script&gt;" in page
    script = page.split('id="model">', 1)[1]
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script


def test_script_json_escapes_what_ends_a_script():
    text = script_json(["</script>", "<!--", "a&b", "\u2028\u2029"])
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == ["</script>", "<!--", "a&b", "\u2028\u2029"]


def test_train_writes_the_page(tmp_path, capsys):
    path = tmp_path / "tree.html"
    assert main(["train", "--sample", "weather", "--html", str(path)]) == 0
    assert f"Wrote {path}" in capsys.readouterr().out
    page = path.read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page and "src=" not in page
    assert len(embedded(page)["nodes"]["id"]) == 8
    assert embedded(page)["nodes"]["lines"][0] == ["n = 14"]


def test_train_labels_say_what_the_page_nodes_show(tmp_path, capsys):
    path = tmp_path / "tree.html"
    argv = ["train", "--sample", "weather", "--labels", "weka,counts", "--html", str(path)]
    assert main(argv) == 0
    model = embedded(path.read_text(encoding="utf-8"))
    assert model["nodes"]["lines"][0] == ["(14.0/5.0)", "yes 9 · no 5"]
    assert model["labels"] == {"n": False, "bar": False}


def test_regression_trees_carry_their_means():
    frame = pd.DataFrame({"x": np.arange(20.0), "y": np.r_[np.zeros(10), np.ones(10) * 3]})
    tree = DecisionTree(algorithm="cart", task="regression").fit(make_table(frame)).tree_
    m = embedded(to_html(tree, "cart"))
    assert m["regression"] and m["classes"] == []
    assert m["nodes"]["value"] == [n.value for n, _, _ in _preorder(tree)]


def test_each_node_carries_predicts_output_pseudocounts_included():
    from engine.predict import node_output

    tree = DecisionTree(algorithm="id3", laplace=True).fit(load_sample("weather")).tree_
    nodes = embedded(to_html(tree, "id3"))["nodes"]
    for row, (node, _, _) in enumerate(_preorder(tree)):
        assert nodes["output"][row] == node_output(tree, node).tolist()
    leaf = next(row for row, (node, _, _) in enumerate(_preorder(tree)) if node.is_leaf)
    # weather's first leaf, outlook = sunny and humidity = high: no 3 of 3, Laplace (0 + 1, 3 + 1) / 5
    assert nodes["dist"][leaf] == [0.0, 3.0] and nodes["output"][leaf] == pytest.approx([0.2, 0.8])
