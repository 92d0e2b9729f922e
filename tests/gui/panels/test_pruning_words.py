"""The pruning table words every branch by its test (issue 30: raised branches read
"branch 0 / branch 1" where the subtree was kept, not raised)."""

import re

from engine import DecisionTree
from engine.data.samples import load_sample
from gui.panels.pruning_text import decision_html


def _decided(name):
    tree = DecisionTree(algorithm="c45").fit(load_sample(name), record=True).tree_
    record = tree.pruning
    for k, decision in enumerate(record.decisions):
        state = record.tree_at(k)
        node = state.root
        for branch in decision.path:
            node = node.children[branch]
        node = decision.before if decision.before is not None else node
        text = re.sub(r"<[^>]+>", " ", decision_html(state, decision, record, node))
        yield decision, re.sub(r"(\s|&nbsp;)+", " ", text)


def test_a_branch_weighed_for_raising_is_named_by_its_split():
    texts = [text for _, text in _decided("weather")]
    root = texts[-1]  # the root is decided last
    assert "raise a branch: outlook = rainy" in root
    assert "windy = TRUE 6 3" in root and "windy = FALSE 8 2" in root
    assert "keep the subtree" in root and "outlook = sunny" in root
    for name in ("weather", "iris", "contact-lenses", "restaurant"):
        for _, text in _decided(name):
            assert "branch 0" not in text and "branch 1" not in text
