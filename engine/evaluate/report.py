"""An evaluation as plain text: the command line prints it and the window shows and copies it."""

from __future__ import annotations

import numpy as np

from engine.evaluate.curves import weighted_mean
from engine.evaluate.evaluation import Evaluation
from engine.sums import dot


def _cell(value: float | None, width: int) -> str:
    return f"{'?':>{width}}" if value is None or np.isnan(value) else f"{value:>{width}.3f}"


def per_class_rows(ev: Evaluation) -> list[tuple[str, list[float | None]]]:
    """(class, [precision, recall, F1, ROC area, PR area]) per class, then "Weighted avg.";
    the areas are None when the evaluation has no curves."""
    curves = ev.curves or (None,) * len(ev.classes)
    rows = []
    for c, p, r, f, curve in zip(ev.classes, ev.precision, ev.recall, ev.f1, curves, strict=True):
        rows.append(
            (
                c,
                [
                    p,
                    r,
                    f,
                    curve.roc_auc if curve else None,
                    curve.average_precision if curve else None,
                ],
            )
        )
    support = ev.confusion.sum(axis=1)
    if support.sum() > 0:
        avg = [
            dot(np.asarray(v), support) / support.sum() for v in (ev.precision, ev.recall, ev.f1)
        ]
        if ev.curves:
            avg += [
                weighted_mean([c.roc_auc for c in ev.curves], ev.curves),
                weighted_mean([c.average_precision for c in ev.curves], ev.curves),
            ]
        else:
            avg += [None, None]
        rows.append(("Weighted avg.", avg))
    return rows


def evaluation_text(ev: Evaluation, target: str) -> str:
    """Accuracy or errors, per-class precision, recall, F1 and curve areas, and the confusion matrix.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.estimator import DecisionTree
    >>> from engine.evaluate.evaluation import evaluate_tree
    >>> table = load_sample("weather")
    >>> ev = evaluate_tree(DecisionTree(algorithm="id3").fit(table).tree_, encode(table), "training set")
    >>> print(evaluation_text(ev, "play").splitlines()[1])
    Accuracy: 100.00%  (14 of 14 right)
    """
    lines = [f"=== {ev.method} ({ev.n:g} instances) ==="]
    if ev.classes is None:
        lines += [f"RMSE: {ev.rmse:.4f}", f"MAE:  {ev.mae:.4f}", f"R^2:  {ev.r2:.4f}"]
        if len(ev.fold_scores) > 1:
            lines.append(
                f"RMSE per fold: {np.mean(ev.fold_scores):.4f} +/- {np.std(ev.fold_scores, ddof=1):.4f}"
            )
        return "\n".join(lines)
    right = float(np.trace(ev.confusion))
    spread = (
        f"  (+/- {100 * ev.accuracy_std:.2f} across {len(ev.fold_scores)} folds)"
        if len(ev.fold_scores) > 1
        else f"  ({right:g} of {ev.n:g} right)"
    )
    lines += [f"Accuracy: {100 * ev.accuracy:.2f}%{spread}", f"Kappa:    {ev.kappa:.4f}"]
    if ev.cost_matrix:
        lines.append(
            f"Cost:     total {ev.total_cost:g}, {ev.average_cost:.4g} a row (the cost matrix; "
            "each row predicted its class of least expected cost)"
        )
    lines.append("")
    name = max(16, *(len(c) + 2 for c in ev.classes))
    lines.append(
        f"{'class':<{name}}{'precision':>10}{'recall':>10}{'F1':>10}{'ROC area':>10}{'PR area':>10}"
    )
    for label, values in per_class_rows(ev):
        lines.append(f"{label:<{name}}" + "".join(_cell(v, 10) for v in values))
    width = max(8, *(len(c) + 1 for c in ev.classes))
    lines += ["", f"Confusion matrix (rows: actual {target}, columns: predicted)"]
    lines.append(" " * width + "".join(f"{c:>{width}}" for c in ev.classes))
    for c, row in zip(ev.classes, ev.confusion, strict=True):
        lines.append(f"{c:>{width}}" + "".join(f"{v:>{width}g}" for v in row))
    lines += [f"Note: {n}" for n in ev.notes]
    return "\n".join(lines)
