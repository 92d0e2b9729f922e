"""Test rows on the tree as text and records: each node's training and test rows and errors,
side by side, for ``evaluate --per-node`` (issue 32)."""

from __future__ import annotations

import textwrap

from engine.evaluate.per_node import OUT_OF_FOLD_NOTE, SIDE_CV, SIDE_TEST, NodeRows
from engine.export.labels import condition, number, shown
from engine.tree import Tree


def node_records(tree: Tree, figures: NodeRows) -> list[dict]:
    """:meth:`NodeRows.records` with what each node is: the condition on its edge
    (``"outlook = sunny"``, empty at the root) and what it predicts (a class or a mean)."""
    records = figures.records()
    edges = {c.id: condition(tree, n, b) for n in tree.nodes() for b, c in enumerate(n.children)}
    for record, code in zip(records, figures.predicted.tolist(), strict=True):
        record["condition"] = edges.get(record["id"], "")
        record["predicted"] = float(code) if tree.is_regression else str(tree.classes[int(code)])
    return records


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, 92))


def _cell(value: float) -> str:
    return number(round(float(value), 2))


def per_node_text(tree: Tree, figures: NodeRows, label: str) -> str:
    """A table of every node, indented as the tree: its training rows and errors beside its
    test rows and errors.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> from engine.evaluate.per_node import node_rows
    >>> table = load_sample("weather")
    >>> tree = DecisionTree(algorithm="id3").fit(table).tree_
    >>> text = per_node_text(tree, node_rows(tree, encode(table), "id3"), "the same rows")
    >>> print("\\n".join(text.splitlines()[3:7]))
    node  condition -> prediction                 rows  errors    rows  errors
       0  (root)                                    14       5      14       5
       1    outlook = sunny                          5       2       5       2
       2      humidity = high -> no                  3       0       3       0
    """
    regression = tree.is_regression
    what = "squared error, summed" if regression else "rows it would misclassify as a leaf"
    side = SIDE_CV if figures.out_of_fold else SIDE_TEST
    if figures.out_of_fold:
        what = (
            "training: "
            + what
            + "; "
            + SIDE_CV
            + ": "
            + (
                "squared errors of the rows' out-of-fold predictions, summed"
                if regression
                else "rows whose out-of-fold prediction was wrong"
            )
        )
    rows = []
    for record in node_records(tree, figures):
        where = "  " * record["depth"] + (record["condition"] or "(root)")
        said = number(record["predicted"]) if regression else shown(record["predicted"])
        rows.append(
            (
                str(record["id"]),
                f"{where} -> {said}" if record["leaf"] else where,
                _cell(record["train_n"]),
                _cell(record["train_errors"]),
                _cell(record["test_n"]),
                _cell(record["test_errors"]),
            )
        )
    node_w = max(4, *(len(r[0]) for r in rows))
    where_w = max(36, *(len(r[1]) + 2 for r in rows))
    nums = [max(8, *(len(r[k]) + 2 for r in rows)) for k in range(2, 6)]
    train_total, test_total = figures.leaf_sums()
    rates = figures.error_rates()
    rate = (
        (lambda v: f"RMSE {v:.4g}")
        if regression
        else (lambda v: f"{100 * v:.2f}% wrong" if v == v else "no rows")
    )
    lines = [
        f"=== Per node: training rows | {label} ===",
        _wrapped(f"errors: {what}; a node's rows are its children's summed"),
        *([_wrapped(OUT_OF_FOLD_NOTE + ".")] if figures.out_of_fold else []),
        f"{'':>{node_w}}  {'':<{where_w}}{'training':>{nums[0] + nums[1]}}{side:>{nums[2] + nums[3]}}",
        f"{'node':>{node_w}}  {'condition -> prediction':<{where_w}}"
        f"{'rows':>{nums[0]}}{'errors':>{nums[1]}}{'rows':>{nums[2]}}{'errors':>{nums[3]}}",
    ]
    lines += [
        f"{r[0]:>{node_w}}  {r[1]:<{where_w}}"
        + "".join(f"{r[k]:>{nums[k - 2]}}" for k in range(2, 6))
        for r in rows
    ]
    lines += [
        "",
        f"leaves: training {_cell(train_total)} errors of {_cell(figures.train_total)} "
        f"({rate(rates[0])}); {side} {_cell(test_total)} errors of {_cell(figures.test_total)} "
        f"({rate(rates[1])})",
    ]
    return "\n".join(lines)
