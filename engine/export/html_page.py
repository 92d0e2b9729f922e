"""The tree as one self-contained interactive HTML page (``train --html``, File > Export >
Interactive page).

The page carries the tree as JSON and draws it on a canvas with its own script and styles,
all inline: no network, no external file. It collapses and expands subtrees, shows a node's
counts and rule on hover, searches the labels, and routes a row typed into its form as
:func:`engine.predict.predict_proba` does, C4.5's fractional instances included: a missing
value goes down every branch with the branch's share of the training weight, and each leaf
gives the output predict reads (:func:`engine.predict.node_output`, pseudocounts included).

Everything from the data (names, categories, classes) travels inside the JSON and is put on
screen as text (``textContent``, canvas ``fillText``), never as markup. The JSON sits in a
``<script type="application/json">``, so :func:`script_json` escapes ``<``, ``>`` and ``&``
(no ``</script>`` or ``<!--`` can end or bend it) and U+2028/2029.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources

import numpy as np

from engine.export.colours import class_hex
from engine.export.labels import attribute_name, branch_condition, condition, predicted
from engine.export.node_labels import NodeLabels, node_lines
from engine.export.surrogate_check import refuse_surrogates
from engine.predict import node_output
from engine.tree import THRESHOLD, Tree

#: What a node's box says by default: as on the canvas.
DEFAULT_LABELS = NodeLabels()

_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def script_json(value) -> str:
    """``value`` as JSON that can sit inside an HTML ``<script>`` element unchanged.

    >>> script_json({"a": "</script><!-- \\u2028"})
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003c!-- \\\\u2028"}'
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return "".join(_SCRIPT_ESCAPES.get(ch, ch) for ch in text)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def page_model(tree: Tree, algorithm: str | None = None, labels: NodeLabels = DEFAULT_LABELS):
    """The tree as the page's script reads it: the schema, and one entry per node in each
    array, in pre-order (a node's parent comes before it)."""
    refuse_surrogates(tree, "HTML page")
    schema = tree.schema
    labels = NodeLabels(**{n: getattr(labels, n) for n in NodeLabels.NAMES if n != "test"})
    nodes = {k: [] for k in ("id", "parent", "branch", "attribute", "threshold", "groups")}
    nodes.update({k: [] for k in ("fractions", "dist", "value", "weight", "head", "lines")})
    nodes.update({k: [] for k in ("cond", "edge", "dashed", "output")})
    # What each node predicts, by the one rule predict reads (engine.flat.FlatTree.outputs):
    # with pseudocounts (--laplace, --m-estimate) not the class shares the page draws.
    stack = [(tree.root, -1, -1, None)]
    while stack:
        node, parent_row, branch, parent = stack.pop()
        row = len(nodes["id"])
        split = node.split
        nodes["id"].append(node.id)
        nodes["parent"].append(parent_row)
        nodes["branch"].append(branch)
        nodes["attribute"].append(-1 if split is None else split.attribute)
        nodes["threshold"].append(
            None if split is None or split.kind != THRESHOLD else float(split.threshold)
        )
        nodes["groups"].append(
            None if split is None or split.kind == THRESHOLD else [list(g) for g in split.groups]
        )
        nodes["fractions"].append(None if split is None else [float(f) for f in split.fractions])
        nodes["dist"].append([] if tree.is_regression else node.distribution.tolist())
        nodes["value"].append(_finite(node.value) if tree.is_regression else None)
        nodes["weight"].append(float(node.weight))
        nodes["head"].append(
            predicted(tree, node, parent) if node.is_leaf else attribute_name(tree, node)
        )
        nodes["lines"].append(node_lines(tree, node, labels))
        nodes["cond"].append("" if parent is None else condition(tree, parent, branch))
        nodes["edge"].append("" if parent is None else branch_condition(tree, parent, branch))
        nodes["dashed"].append(bool(node.stats.get("pruned") or node.stats.get("raised")))
        out = node_output(tree, node)
        nodes["output"].append(_finite(out) if tree.is_regression else out.tolist())
        stack.extend((child, row, b, node) for b, child in reversed(list(enumerate(node.children))))
    classes = list(schema.classes or ())
    return {
        "target": schema.target,
        "regression": tree.is_regression,
        "algorithm": algorithm,
        "costs": [list(row) for row in tree.costs] if tree.costs else None,
        "classes": classes,
        "colours": [class_hex(k) for k in range(len(classes))],
        "attributes": [
            {"name": a.name, "nominal": a.is_nominal, "categories": list(a.categories or ())}
            for a in schema.attributes
        ],
        "labels": {"n": labels.n, "bar": labels.bar},
        "nodes": nodes,
    }


def _asset(name: str) -> str:
    return resources.files("engine.export.page").joinpath(name).read_text(encoding="utf-8")


def to_html(
    tree: Tree,
    algorithm: str | None = None,
    labels: NodeLabels = DEFAULT_LABELS,
    title: str | None = None,
) -> str:
    """The page: one HTML file holding the tree, its script and its styles."""
    parts = {
        "TITLE": html.escape(title or f"Decision tree: {tree.schema.target}"),
        "STYLE": _asset("page.css"),
        "MODEL": script_json(page_model(tree, algorithm, labels)),
        "SCRIPT": _asset("page.js"),
    }
    # One pass: a name in the data that reads "{{SCRIPT}}" stays a name.
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], _asset("page.html"))
