"""The tree as an ONNX model: ``ai.onnx.ml`` TreeEnsembleClassifier or TreeEnsembleRegressor.

The model reads one input, ``input``: a double tensor of shape ``[rows, attributes]``, the
tree's attributes in the order of ``schema.attributes``, as :mod:`engine.data.encoding`
encodes them: a numeric attribute as its value, a nominal one as its category's code (the
position of the category in the attribute's list, from 0), and a missing value as NaN. The
model's metadata (``arbor.inputs``, JSON) lists each column's name, kind and categories in
code order, so a program can encode its rows without Arbor. A classifier answers ``label``
(the class names) and ``probabilities`` (floats, one column per class in the tree's order);
a regressor answers ``variable`` (floats). With a cost matrix (``--costs``) the label is the
class of least expected cost: the probabilities times the matrix, then ArgMin.

What ONNX cannot say: Arbor sends a row with a missing value (or a category no branch of
the split holds) down every branch, weighted by the branches' training shares. An ONNX tree
sends each row down one branch, so this model sends such a row down the branch that took
the most training weight. On complete rows its probabilities are Arbor's (as floats).

A split on categories is a chain of BRANCH_EQ nodes (one per category code of every branch
but the one missing values take), each false node the next in the list: several codes of one
branch share that branch's subtree, the form ONNX Runtime reads as set membership.

Names from the data go only into protobuf strings (class labels, JSON metadata, the doc
string): nothing in an ONNX model is run as code.
"""

from __future__ import annotations

import json

import numpy as np

from engine.errors import ArborError
from engine.export.surrogate_check import refuse_surrogates
from engine.predict import node_output
from engine.tree import THRESHOLD, Node, Tree

#: The note an export gives: what the ONNX model does with a missing value.
MISSING_NOTE = (
    "ONNX cannot split a row across branches: a missing value (NaN) or an unknown category "
    "code goes down the branch that took the most training weight, so only complete rows "
    "score exactly as in Arbor"
)

ML_OPSET, ONNX_OPSET = 3, 17
#: Columns of a node row: feature, mode, value, true node, false node, NaN takes true.
TRUE, FALSE, MISSING_TRUE = 3, 4, 5


def _onnx():
    try:
        import onnx
    except ImportError:
        raise ArborError(
            "exporting ONNX needs the onnx package: pip install 'arbor[onnx]'"
        ) from None
    return onnx


def _majority_branch(node: Node) -> int:
    """The branch a missing value takes in ONNX: the largest training share (the first of equals)."""
    return int(np.argmax(node.split.fractions))


class _Nodes:
    """The ONNX node list of one tree, built in the order that ONNX Runtime needs."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self.rows: list[list] = []  # [feature, mode, value, true id, false id, missing true]
        self.leaves: list[tuple[int, object]] = []  # (node id, output)

    def add(self, root: Node) -> None:
        """Append ``root``'s subtree, each subtree's rows together (pre-order), without
        recursion: trees can be deep."""
        # (node, its parent's output, the (row, column) of each ONNX pointer to its first row)
        stack: list[tuple[Node, object, list[tuple[int, int]]]] = [(root, None, [])]
        while stack:
            node, fallback, parents = stack.pop()
            here = node_output(self.tree, node, fallback)
            first = len(self.rows)
            for at, column in parents:
                self.rows[at][column] = first
            if node.is_leaf:
                self.leaves.append((self._row(0, "LEAF", 0.0, 0, 0, 0), here))
                continue
            split, default = node.split, _majority_branch(node)
            if split.kind == THRESHOLD:
                at = self._row(split.attribute, "BRANCH_LEQ", float(split.threshold), -1, -1, 0)
                self.rows[at][MISSING_TRUE] = int(default == 0)
                stack.append((node.children[1], here, [(at, FALSE)]))
                stack.append((node.children[0], here, [(at, TRUE)]))
                continue
            tests = [
                (b, code) for b, group in enumerate(split.groups) if b != default for code in group
            ]
            if not tests:  # every category goes where missing values go
                stack.append((node.children[default], here, []))
                continue
            chain = {b: [] for b, _ in tests}
            for b, code in tests:
                at = self._row(split.attribute, "BRANCH_EQ", float(code), -1, -1, 0)
                self.rows[at][FALSE] = at + 1  # the last one's: the default branch, next
                chain[b].append(at)
            for b in reversed(range(len(node.children))):
                if b in chain:
                    stack.append((node.children[b], here, [(at, TRUE) for at in chain[b]]))
            stack.append((node.children[default], here, []))  # popped first: right after

    def _row(self, feature, mode, value, true, false, missing) -> int:
        self.rows.append([feature, mode, value, true, false, missing])
        return len(self.rows) - 1


def _class_code(tree: Tree, helper, numpy_helper, initializers: list) -> list:
    """The nodes that pick each row's class code from its probabilities: the most probable,
    or with the tree's cost matrix the least expected cost (probabilities times the matrix,
    rows actual and columns predicted, then the first smallest), as
    :func:`engine.predict.class_codes` picks it."""
    if not tree.costs:
        return [helper.make_node("ArgMax", ["probabilities"], ["class_code"], axis=1, keepdims=0)]
    initializers.append(
        numpy_helper.from_array(np.asarray(tree.costs, dtype=np.float32), "cost_matrix")
    )
    return [
        helper.make_node("MatMul", ["probabilities", "cost_matrix"], ["expected_cost"]),
        helper.make_node("ArgMin", ["expected_cost"], ["class_code"], axis=1, keepdims=0),
    ]


def _inputs(tree: Tree) -> str:
    return json.dumps(
        [
            {"name": a.name, "kind": a.kind, "categories": list(a.categories)}
            for a in tree.schema.attributes
        ],
        ensure_ascii=False,
    )


def to_onnx(tree: Tree):
    """The tree as an ``onnx.ModelProto`` (checked with ``onnx.checker``).

    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> model = to_onnx(DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_)
    >>> model.graph.node[0].op_type, [i.name for i in model.graph.input]
    ('TreeEnsembleClassifier', ['input'])
    """
    refuse_surrogates(tree, "ONNX")
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    if tree.root.is_leaf:
        # ONNX Runtime wants a split to start a tree: one that always goes left.
        nodes = _Nodes(tree)
        nodes._row(0, "BRANCH_LEQ", float("inf"), 1, 2, 1)
        output = node_output(tree, tree.root, None)
        nodes.leaves = [(nodes._row(0, "LEAF", 0.0, 0, 0, 0), output)]
        nodes.leaves.append((nodes._row(0, "LEAF", 0.0, 0, 0, 0), output))
    else:
        nodes = _Nodes(tree)
        nodes.add(tree.root)
    rows = nodes.rows
    if not tree.schema.attributes:
        raise ArborError("an ONNX model needs at least one input attribute")
    common = {
        "nodes_treeids": [0] * len(rows),
        "nodes_nodeids": list(range(len(rows))),
        "nodes_featureids": [r[0] for r in rows],
        "nodes_modes": [r[1] for r in rows],
        "nodes_values_as_tensor": numpy_helper.from_array(
            np.array([r[2] for r in rows], dtype=np.float64)
        ),
        "nodes_truenodeids": [r[3] for r in rows],
        "nodes_falsenodeids": [r[4] for r in rows],
        "nodes_missing_value_tracks_true": [r[5] for r in rows],
        "post_transform": "NONE",
    }
    n_inputs = len(tree.schema.attributes)
    source = helper.make_tensor_value_info("input", TensorProto.DOUBLE, [None, n_inputs])
    initializers = []
    if tree.is_regression:
        op = helper.make_node(
            "TreeEnsembleRegressor",
            ["input"],
            ["variable"],
            domain="ai.onnx.ml",
            n_targets=1,
            aggregate_function="SUM",
            target_treeids=[0] * len(nodes.leaves),
            target_nodeids=[at for at, _ in nodes.leaves],
            target_ids=[0] * len(nodes.leaves),
            target_weights_as_tensor=numpy_helper.from_array(
                np.array([float(v) for _, v in nodes.leaves], dtype=np.float64)
            ),
            **common,
        )
        ops = [op]
        outputs = [helper.make_tensor_value_info("variable", TensorProto.FLOAT, [None, 1])]
    else:
        k = len(tree.classes)
        ops = [
            helper.make_node(
                "TreeEnsembleClassifier",
                ["input"],
                ["tree_label", "probabilities"],
                domain="ai.onnx.ml",
                classlabels_strings=list(tree.classes),
                class_treeids=[0] * (k * len(nodes.leaves)),
                class_nodeids=[at for at, _ in nodes.leaves for _ in range(k)],
                class_ids=[c for _ in nodes.leaves for c in range(k)],
                class_weights_as_tensor=numpy_helper.from_array(
                    np.concatenate([np.asarray(p, dtype=np.float64) for _, p in nodes.leaves])
                ),
                **common,
            ),
            # The label is picked here, not by the classifier: ONNX Runtime's classifier names
            # the wrong class of two when both have weights (0.64 / 0.36 gives the second).
            *_class_code(tree, helper, numpy_helper, initializers),
            helper.make_node("Gather", ["class_names", "class_code"], ["label"], axis=0),
        ]
        names = helper.make_tensor(
            "class_names", TensorProto.STRING, [k], [c.encode("utf-8") for c in tree.classes]
        )
        initializers.append(names)
        outputs = [
            helper.make_tensor_value_info("label", TensorProto.STRING, [None]),
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, k]),
        ]
    graph = helper.make_graph(ops, "arbor_tree", [source], outputs, initializer=initializers)
    model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", ONNX_OPSET),
            helper.make_opsetid("ai.onnx.ml", ML_OPSET),
        ],
        producer_name="arbor",
        doc_string=(
            f"Decision tree for {json.dumps(tree.schema.target, ensure_ascii=False)}. Input: "
            f"doubles [rows, {n_inputs}], the attributes of the metadata's arbor.inputs in "
            "order; a nominal attribute as its category's position in that list (from 0); "
            f"missing as NaN. {MISSING_NOTE}."
        ),
    )
    model.ir_version = 8  # ONNX 1.12 (2022), which opset 17 came with: older runtimes read it
    helper.set_model_props(
        model,
        {
            "arbor.inputs": _inputs(tree),
            "arbor.target": tree.schema.target,
            "arbor.missing": MISSING_NOTE,
        },
    )
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError as err:  # a bug here, not in the data: say it plainly
        raise ArborError(f"the ONNX model did not pass onnx's checker: {err}") from None
    return model


def onnx_bytes(tree: Tree) -> bytes:
    """The serialised model :func:`to_onnx` makes, as a ``.onnx`` file holds it."""
    return to_onnx(tree).SerializeToString()
