"""A node's training and test rows and errors side by side, as the inspector's HTML (issue 32).
The figures are the engine's (:mod:`engine.evaluate.per_node`); this only lays them out."""

from __future__ import annotations

from html import escape

import numpy as np

from engine.evaluate.per_node import SIDE_CV, SIDE_TEST
from engine.export.labels import number

MUTED = "#8A94A3"


def _count(value: float) -> str:
    return number(round(float(value), 2))


def _wrong(errors: float, n: float) -> str:
    return f"{_count(errors)} ({100 * errors / n:.0f}%)" if n > 0 else _count(errors)


def test_rows_html(tree, node_id: int, figures, label: str) -> str:
    """The node's rows and errors on the training rows and on the test rows (``label``: what
    they are), and for classification each class's rows on either side."""
    k = figures.position.get(node_id)
    if k is None:
        return ""
    train_n, test_n = figures.train_n[k], figures.test_n[k]
    train_err, test_err = figures.train_errors[k], figures.test_errors[k]
    cv = figures.out_of_fold
    side = SIDE_CV if cv else SIDE_TEST
    head = f"<tr><th align=left></th><th align=right>training</th><th align=right>{side}</th></tr>"
    rows = [
        f"<tr><td>rows</td><td align=right>{_count(train_n)}</td>"
        f"<td align=right>{_count(test_n)}</td></tr>"
    ]
    if figures.regression:
        rmse = [
            number(round(float(np.sqrt(e / n)), 4)) if n > 0 else "–"
            for e, n in ((train_err, train_n), (test_err, test_n))
        ]
        rows.append(
            f"<tr><td>{'RMSE' if cv else 'RMSE as a leaf'}</td><td align=right>{rmse[0]}</td>"
            f"<td align=right>{rmse[1]}</td></tr>"
        )
        note = "RMSE: the rows' root mean squared difference from the node's mean."
        if cv:
            note = (
                "RMSE: training, the rows' root mean squared difference from the node's mean; "
                "CV held-out, that of the rows' out-of-fold predictions."
            )
    else:
        rows.append(
            f"<tr><td>{'wrong' if cv else 'wrong as a leaf'}</td><td align=right>{_wrong(train_err, train_n)}</td>"
            f"<td align=right>{_wrong(test_err, test_n)}</td></tr>"
        )
        node = tree.node(node_id)
        for name, train_c, test_c in zip(
            tree.classes, node.distribution.tolist(), figures.test_dist[k].tolist(), strict=True
        ):
            rows.append(
                f"<tr><td>&nbsp;&nbsp;{escape(name)}</td><td align=right>{_count(train_c)}</td>"
                f"<td align=right>{_count(test_c)}</td></tr>"
            )
        predicted = tree.classes[int(figures.predicted[k])]
        note = f"Wrong: rows whose class is not {escape(predicted)}, what the node predicts."
        if cv:
            note = (
                f"Wrong: training, rows whose class is not {escape(predicted)}, what the node "
                "predicts; CV held-out, rows whose out-of-fold prediction was wrong."
            )
    total = f"the tree: training {_tree_error(figures, 0)}, {side} {_tree_error(figures, 1)}"
    if cv:
        note += (
            " Out-of-fold: each row predicted by the tree of the cross-validation fold that "
            "held it out, not by this tree; the rows are placed on the nodes of this tree, "
            "grown on all the rows."
        )
    title = "Training and CV held-out rows" if cv else "Training and test rows"
    return (
        f"<p><b>{title}</b> <span style='color:{MUTED}'>"
        f"({escape(label)})</span></p>"
        f"<table cellspacing=3>{head}{''.join(rows)}</table>"
        f"<p style='color:{MUTED}'><small>{note} Rows missing the split attribute go down "
        f"every branch by its share. For {total}.</small></p>"
    )


def _tree_error(figures, side: int) -> str:
    value = figures.error_rates()[side]
    if np.isnan(value):
        return "no rows"
    return f"RMSE {value:.4g}" if figures.regression else f"{100 * value:.1f}% wrong"
